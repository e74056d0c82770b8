"""An MCP server over the legacy SSE transport (GET /sse, POST /messages/) on 127.0.0.1, whose HTTP
answers can be broken. For tests/hostile/test_own_sessions_over_http.py.

Usage: sse_server.py PORT [--fault FAULT --fault-on WHERE] [--slow METHOD=SECONDS ...]

It lists one tool, `echo`. `--fault` breaks how one request is answered at the HTTP level: the GET
of the event stream (`--fault-on sse`), or the POST of the message whose method `--fault-on` names
(`tools/list`), which then never reaches the server:

- `status-404`, `status-500`, `status-503`: that status with an HTML body (a proxy's error page);
  503 with `Retry-After: 30`.
- `gzip-bomb`: a 200 (for the GET, an event stream; for a POST, a 202) whose gzip body expands to
  256 MiB of spaces.

`--slow METHOD=SECONDS` accepts the POST of each message of that method (`initialize`, `tools/list`)
at once, and has the server read it, and answer it on the event stream, that many seconds later.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import anyio
import uvicorn
from hostile_server import gzip_bomb  # this script's folder is on the import path
from mcp.server.mcpserver import MCPServer

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("--fault", choices=["status-404", "status-500", "status-503", "gzip-bomb"])
parser.add_argument("--fault-on", default="sse", help="sse (the GET of the event stream), or a method")
parser.add_argument("--slow", action="append", default=[], help="METHOD=SECONDS: answer it that late")
options = parser.parse_args()
slow = {method: float(seconds) for method, _, seconds in (item.partition("=") for item in options.slow)}

server = MCPServer("sse-test")


@server.tool()
def echo(text: str) -> str:
    """Say `text` back."""
    return text


PAGE = b"<html><body><h1>%d</h1><hr>nginx</body></html>"


async def send_fault(send: Any, post: bool) -> None:
    if options.fault == "gzip-bomb":
        status, kind = (202, b"text/plain") if post else (200, b"text/event-stream")
        body = gzip_bomb(b"" if post else b"data: ", 256 << 20)
        headers = [(b"content-type", kind), (b"content-encoding", b"gzip")]
    else:
        status = int(options.fault.removeprefix("status-"))
        body = PAGE % status
        headers = [(b"content-type", b"text/html")] + ([(b"retry-after", b"30")] if status == 503 else [])
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def faulty(app: Any) -> Any:
    async def answer(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or (options.fault is None and not slow):
            return await app(scope, receive, send)
        if scope["method"] == "GET" and options.fault is not None and options.fault_on == "sse":
            return await send_fault(send, post=False)
        if scope["method"] != "POST":
            return await app(scope, receive, send)
        received, body = [], b""
        while True:
            message = await receive()
            received.append(message)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        method = json.loads(body or b"{}").get("method")
        if options.fault is not None and method == options.fault_on:
            return await send_fault(send, post=True)

        async def replay() -> dict[str, Any]:
            return received.pop(0) if received else await receive()

        if method not in slow:
            return await app(scope, replay, send)
        # Accepted at once, as the server's own 202 would be; the server reads it, and answers on
        # the event stream, that much later.
        await send({"type": "http.response.start", "status": 202, "headers": [(b"content-length", b"8")]})
        await send({"type": "http.response.body", "body": b"Accepted"})
        await anyio.sleep(slow[method])

        async def unheard(message: dict[str, Any]) -> None:
            return None

        return await app(scope, replay, unheard)

    return answer


if __name__ == "__main__":
    app = faulty(server.sse_app(host="127.0.0.1"))
    uvicorn.run(app, host="127.0.0.1", port=options.port, log_level="warning", timeout_graceful_shutdown=1)
