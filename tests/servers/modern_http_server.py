"""A hand-written 2026-07-28 server over Streamable HTTP (stateless, JSON answers), for what the
SDK's own servers never do:

- `--refuse-first VERSION,...` answers the first request with HTTP 400 and -32022 "Unsupported
  protocol version", listing those versions as supported (as the conformance runner's
  `request-metadata` server does); every later request is answered;
- its one tool, `add`, answers `tools/call` without `resultType`, which SEP-2322 says a client
  reads as `complete` (as the runner's `sep-2322-client-request-state` server does);
- `--slow METHOD=SECONDS` answers each request of that method (`server/discover`, `tools/list`,
  or `DELETE`, the end of a session) that many seconds late;
- `--session-id ID` answers the legacy `initialize` too (as a 2025-06-18 server), with
  `Mcp-Session-Id: ID`, so a client that speaks the legacy handshake ends its session with a `DELETE`.
- `--announce` says on stderr where it listens once it does ("Server listening on
  http://127.0.0.1:PORT/mcp"), as TypeScript SDK servers that serve HTTP alone do, and reads nothing on
  stdin: started as a stdio server, it is one that was given the wrong transport.

Every request is appended to the `--log` file as `<method> <MCP-Protocol-Version header>`.

    python modern_http_server.py PORT --log FILE [--refuse-first VERSION,...] [--slow METHOD=SECONDS ...]
        [--session-id ID] [--announce]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

VERSION = "2026-07-28"
CACHE = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
ADD = {
    "name": "add",
    "description": "Add two integers.",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}


def result_of(method: str, params: dict[str, Any], session_id: str | None) -> dict[str, Any] | None:
    if method == "initialize" and session_id is not None:
        info = {"name": "modern", "version": "1.0.0"}
        return {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": info}
    if method == "server/discover":
        return {
            **CACHE,
            "supportedVersions": [VERSION],
            "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "1.0.0"}},
        }
    if method == "tools/list":
        return {**CACHE, "tools": [ADD]}
    if method == "tools/call" and params.get("name") == "add":
        arguments = params.get("arguments") or {}
        return {"content": [{"type": "text", "text": str(arguments["a"] + arguments["b"])}]}
    return None


def serve(
    port: int, log: Path, refuse_first: list[str], slow: dict[str, float], session_id: str | None, announce: bool
) -> None:
    refusals = [refuse_first] if refuse_first else []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["content-length"])))
            header = self.headers.get("mcp-protocol-version", "-")
            with log.open("a", encoding="utf-8") as file:
                file.write(f"{request.get('method')} {header}\n")
            time.sleep(slow.get(request.get("method"), 0.0))
            if "id" not in request:
                self.answer(202, None)
            elif refusals:
                error = {"code": -32022, "message": "Unsupported protocol version"}
                error["data"] = {"supported": refusals.pop(), "requested": header}
                self.answer(400, {"jsonrpc": "2.0", "id": request["id"], "error": error})
            elif (result := result_of(request["method"], request.get("params") or {}, session_id)) is not None:
                self.answer(200, {"jsonrpc": "2.0", "id": request["id"], "result": result})
            else:
                error = {"code": -32601, "message": f"Method not found: {request['method']}"}
                self.answer(200, {"jsonrpc": "2.0", "id": request["id"], "error": error})

        def do_GET(self) -> None:
            self.answer(405, None)

        def do_DELETE(self) -> None:
            with log.open("a", encoding="utf-8") as file:
                file.write("DELETE -\n")
            time.sleep(slow.get("DELETE", 0.0))
            self.answer(405, None)

        def answer(self, status: int, body: dict[str, Any] | None) -> None:
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            if session_id is not None:  # the SDK's client takes it from the answer to `initialize`
                self.send_header("mcp-session-id", session_id)
            if body is not None:
                self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    if announce:
        sys.stderr.write(f"Server listening on http://127.0.0.1:{port}/mcp\n")
        sys.stderr.flush()
    server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port", type=int)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--refuse-first", type=lambda value: value.split(","), default=[])
    parser.add_argument("--slow", action="append", default=[], help="METHOD=SECONDS: answer it that late")
    parser.add_argument("--session-id", help="send Mcp-Session-Id: ID with every answer")
    parser.add_argument("--announce", action="store_true", help="say on stderr where it listens")
    options = parser.parse_args()
    slow = {method: float(seconds) for method, _, seconds in (item.partition("=") for item in options.slow)}
    serve(options.port, options.log, options.refuse_first, slow, options.session_id, options.announce)
