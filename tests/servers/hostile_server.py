"""A hand-written JSON-RPC server, over stdio or Streamable HTTP on 127.0.0.1, that misbehaves once
it is past the handshake: in what its `tools/call` results hold, in how it answers them, and in
what its catalog holds. For tests/hostile/test_live_server.py.

It speaks the legacy handshake (it answers `server/discover` with -32601) and lists two tools:
`echo` (no output schema) and `count` (an output schema: an object with an integer `n`). Each
`--mode` breaks one thing:

- `unknown-block`: every `tools/call` result holds a content block of a type MCP does not have.
- `error-with-structured`: `count` fails (`isError: true`) with `structuredContent` its schema refuses.
- `exit-mid-call`: the process exits when asked for `tools/call`, without answering.
- `answer-twice`: each `tools/call` is answered twice, the second time with another result.
- `flood-mid-call`: 500 `notifications/tools/list_changed` before each `tools/call` answer.
- `ref-cycle`: a third tool, `loop`, takes `text` through a `$ref` cycle that never reaches a type.
- `unknown-version`: `initialize` is answered with protocol version 2099-01-01.
- `initialize-error`, `exit-at-start`: `initialize` is answered with an error, or not at all (the process exits).
- `garbage-first`: three lines that are not JSON-RPC on stdout before anything else.
- `tools-not-implemented`: `tools/list`, though declared, is answered with -32601 Method not found.
- `off-schema`, `no-structured`, `dangling-output`: `count` returns `n` as a string, returns no
  `structuredContent`, or lists an output schema whose `$ref` names nothing.
- `relist-fails`, `relist-invalid`: every `tools/list` after the first is an error answer, or not
  valid MCP; each `tools/call` (and, with `--notify`, the first listing) says the tools changed.
- `lone-surrogate`: `echo`'s description and results end in half an emoji (`\\ud83d`).
- `not-utf8`: `echo`'s results hold a byte that is not UTF-8 (0xff), written as is (stdio only).
- `long-integer`: `count` returns an `n` of 5,001 digits.
- `null-list`, `null-call`: `tools/list` (or `tools/call`) is answered with `"result": null`.
- `bad-discover`, `discover-unknown`, `discover-null`: `server/discover` answered with a string for
  `supportedVersions`, only version 2099-01-01, or `null` capabilities.

    python hostile_server.py --mode MODE [--notify] [--http PORT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from http.server import ThreadingHTTPServer
from typing import Any

from json_http import JsonHttpHandler

VERSION = "2025-06-18"
COUNT_OUTPUT = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
CYCLE = {
    "type": "object",
    "properties": {"text": {"$ref": "#/$defs/a"}},
    "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
}
"""A schema whose `text` is a `$ref` cycle that never reaches a type."""


class Hostile:
    def __init__(self, mode: str, notify: bool = False) -> None:
        self.notify = notify
        self.mode = mode
        self.listings = 0
        self.lock = threading.Lock()

    def tools(self) -> list[dict[str, Any]]:
        echo_input: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}
        count_output: dict[str, Any] = COUNT_OUTPUT
        echo_description = "Echo the text back."
        if self.mode == "dangling-output":  # a live output schema that names a definition it lacks
            count_output = {"type": "object", "properties": {"n": {"$ref": "#/$defs/missing"}}}
        if self.mode == "lone-surrogate":  # a JavaScript server that cut an emoji in half
            echo_description = "Echo the text back \ud83d"
        looping = [{"name": "loop", "description": "Loop.", "inputSchema": CYCLE}] if self.mode == "ref-cycle" else []
        return [
            *looping,
            {"name": "echo", "description": echo_description, "inputSchema": echo_input},
            {
                "name": "count",
                "description": "Count.",
                "inputSchema": {"type": "object", "properties": {}},
                "outputSchema": count_output,
            },
        ]

    def call(self, params: dict[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if self.mode == "unknown-block":
            return {"content": [{"type": "video", "url": "https://example.com/v.mp4"}]}
        if name == "count":
            if self.mode == "error-with-structured":
                return {"content": [{"type": "text", "text": "no count today"}], "isError": True,
                        "structuredContent": {"n": "not a number"}}  # fmt: skip
            if self.mode == "off-schema":
                return {"content": [{"type": "text", "text": '{"n": "three"}'}], "structuredContent": {"n": "three"}}
            if self.mode == "long-integer":  # more digits than Python (and the SDK's parser) reads by default
                return {"content": [{"type": "text", "text": "a big count"}], "structuredContent": {"n": 10**5000}}
            if self.mode == "no-structured":
                return {"content": [{"type": "text", "text": '{"n": 3}'}]}
            return {"content": [{"type": "text", "text": '{"n": 3}'}], "structuredContent": {"n": 3}}
        text = "half an emoji: \ud83d" if self.mode == "lone-surrogate" else str(arguments.get("text"))
        if self.mode == "not-utf8":
            text = "not UTF-8: \udcff"  # the byte 0xff, once written with `surrogateescape`
        return {"content": [{"type": "text", "text": text}]}

    def respond(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """The messages to send for one received message, in order."""
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if request_id is None:
            return []
        if method == "initialize" and self.mode == "initialize-error":
            error = {"code": -32603, "message": "license expired"}
            return [{"jsonrpc": "2.0", "id": request_id, "error": error}]
        if method == "initialize" and self.mode == "exit-at-start":
            os._exit(3)
        if method == "initialize":
            version = "2099-01-01" if self.mode == "unknown-version" else VERSION
            result: dict[str, Any] = {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "hostile", "version": "1.0.0"},
            }
        elif method == "server/discover" and self.mode in ("bad-discover", "discover-unknown", "discover-null"):
            result = {
                "supportedVersions": "2026-07-28" if self.mode == "bad-discover" else ["2099-01-01"],
                "capabilities": None if self.mode == "discover-null" else {"tools": {}},
                "resultType": "complete", "ttlMs": 0, "cacheScope": "public",
            }  # fmt: skip
        elif method in ("tools/list", "tools/call") and self.mode == f"null-{str(method).split('/')[1]}":
            return [{"jsonrpc": "2.0", "id": request_id, "result": None}]  # neither a result object nor an error
        elif method == "tools/list" and self.mode == "tools-not-implemented":  # declared, never implemented
            return [{"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}]
        elif method == "tools/list":
            with self.lock:
                self.listings += 1
                if self.mode == "relist-fails" and self.listings > 1:
                    error = {"code": -32603, "message": "catalog backend unavailable"}
                    return [{"jsonrpc": "2.0", "id": request_id, "error": error}]
                result = {"tools": self.tools()}
                if self.mode == "relist-invalid" and self.listings > 1:
                    result = {"tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": []}}]}
                if self.mode in ("relist-fails", "relist-invalid") and self.listings == 1 and self.notify:
                    changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
                    return [{"jsonrpc": "2.0", "id": request_id, "result": result}, changed]
        elif method == "tools/call":
            if self.mode == "exit-mid-call":
                os._exit(3)
            result = self.call(params)
            before: list[dict[str, Any]] = []
            if self.mode in ("relist-fails", "relist-invalid"):
                before = [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]
            if self.mode == "flood-mid-call":
                before = [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}] * 500
            answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
            if self.mode == "answer-twice":
                other = {"content": [{"type": "text", "text": "a second answer"}]}
                return [answer, {"jsonrpc": "2.0", "id": request_id, "result": other}]
            return [*before, answer]
        elif method == "ping":
            result = {}
        else:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            return [{"jsonrpc": "2.0", "id": request_id, "error": error}]
        return [{"jsonrpc": "2.0", "id": request_id, "result": result}]


def serve_stdio(server: Hostile) -> None:
    if server.mode == "garbage-first":  # a server that logs to stdout before it speaks JSON-RPC
        sys.stdout.write("Starting hostile server v1.0...\n{not json\n[1, 2]\n")
        sys.stdout.flush()
    for line in sys.stdin:
        if line.strip():
            for reply in server.respond(json.loads(line)):
                if server.mode == "not-utf8":  # the escaped byte written as itself
                    sys.stdout.flush()
                    sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode("utf-8", "surrogateescape"))
                    sys.stdout.buffer.write(b"\n")
                else:
                    sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def serve_http(server: Hostile, port: int) -> None:
    """Streamable HTTP without sessions or streams: each POST is answered with its JSON-RPC answer."""

    class Handler(JsonHttpHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            answers = [reply for reply in server.respond(message) if reply.get("id") == message.get("id")]
            if not answers:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_json(answers[0])

    http = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening on {http.server_address[1]}", flush=True)
    http.serve_forever()


def main() -> None:
    sys.set_int_max_str_digits(0)  # `long-integer` writes one
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="plain")
    parser.add_argument(
        "--notify", action="store_true", help="relist-* modes: say the tools changed after the first listing"
    )
    parser.add_argument("--http", type=int, help="serve Streamable HTTP on this port of 127.0.0.1 instead of stdio")
    options = parser.parse_args()
    server = Hostile(options.mode, options.notify)
    if options.http is not None:
        serve_http(server, options.http)
    else:
        serve_stdio(server)


if __name__ == "__main__":
    main()
