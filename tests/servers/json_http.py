"""The HTTP side the test suite's raw Streamable HTTP servers share: JSON answers to POSTs, no
streams (GET and DELETE are 405), and no request log on stderr. Imported by the tests
(`tests.servers.json_http`) and, beside it, by a server run as a script (`json_http`)."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler


class JsonHttpHandler(BaseHTTPRequestHandler):
    """A subclass writes `do_POST`; `send_json` answers it with one JSON body."""

    def send_json(self, payload: object, status: int = 200) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_DELETE = do_GET

    def log_message(self, *args: object) -> None:
        return None
