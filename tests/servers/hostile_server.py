"""A hand-written JSON-RPC server, over stdio or Streamable HTTP on 127.0.0.1, that misbehaves once
it is past the handshake: in what its `tools/call` results hold, in how it answers them, and in
what its catalog holds. For tests/hostile/test_live_server.py.

It speaks the legacy handshake (it answers `server/discover` with -32601; with `--modern`, over
stdio, it answers it with 2026-07-28 and speaks that version instead) and lists two tools:
`echo` (no output schema) and `count` (an output schema: an object with an integer `n`). Each
`--mode` breaks one thing:

- `unknown-block`: every `tools/call` result holds a content block of a type MCP does not have.
- `error-with-structured`: `count` fails (`isError: true`) with `structuredContent` its schema refuses.
- `exit-mid-call`: the process exits when asked for `tools/call`, without answering.
- `answer-twice`: each `tools/call` is answered twice, the second time with another result.
- `flood-mid-call`: 500 `notifications/tools/list_changed` before each `tools/call` answer.
- `ref-cycle`: a third tool, `loop`, takes `text` through a `$ref` cycle that never reaches a type.
- `fan-out`: `count`'s output schema means what it did through a fan-out of 13 definitions, each
  naming the next one twice (2**13 subschemas once its references are followed), and a third tool,
  `fanned`, takes `echo`'s input through another.
- `unknown-version`: `initialize` is answered with protocol version 2099-01-01.
- `initialize-error`, `exit-at-start`: `initialize` is answered with an error, or not at all (the process exits).
- `garbage-first`: three lines that are not JSON-RPC, and two blank ones, on stdout before anything else.
- `tools-not-implemented`: `tools/list`, though declared, is answered with -32601 Method not found.
- `off-schema`, `no-structured`, `dangling-output`: `count` returns `n` as a string, returns no
  `structuredContent`, or lists an output schema whose `$ref` names nothing.
- `relist-fails`, `relist-invalid`: every `tools/list` after the first is an error answer, or a page
  that is not valid MCP (its `tools` not a list); each `tools/call` (and, with `--notify`, the first listing) says the tools changed.
- `lone-surrogate`: `echo`'s description and results end in half an emoji (`\\ud83d`).
- `not-utf8`: `echo`'s results hold a byte that is not UTF-8 (0xff), written as is (stdio only).
- `huge-answer`, `huge-listing`: `echo`'s answer (or `tools/list`'s) is a line of 65 MiB, its id
  written last, as the TypeScript SDK orders an answer's members (stdio only).
- `long-integer`: `count` returns an `n` of 5,001 digits.
- `null-list`, `null-call`: `tools/list` (or `tools/call`) is answered with `"result": null`.
- `no-list-changed`: `tools` is declared without `listChanged` (a watcher polls it).
- `bad-discover`, `discover-unknown`, `discover-null`: `server/discover` answered with a string for
  `supportedVersions`, only version 2099-01-01, or `null` capabilities; `bad-discover-only`: as
  `bad-discover`, and `initialize` refused with -32601 (a 2026-07-28 server alone);
  `discover-error-only`: `server/discover` refused with -32603 and `initialize` with -32601 (a
  2026-07-28 server alone that fails as it starts).
- `discover-refused-32000`, `discover-refused-32001`: `server/discover` refused with that code (some
  servers' "unknown method"), which is also the SDK's own for a closed connection, or a timeout.
- `list-refused-32000`: `tools/list` refused with -32000 (a server's own failure).
- `odd`: `echo`'s `text` names how its call is answered (`ODD`, below, over stdio only; `media:NAME`
  and `media-error:NAME` as `MEDIA` says, and over stdio `sampling:NAME` asks the client for a
  sampling of a message holding it; `answer-when-cancelled` is answered only once the client cancels
  it, as mcp 1.x servers answer a cancelled call; any other text is echoed), and the catalog adds a resource
  `odd://blob` and a prompt `greet`, answered oddly (its `who` a name in `MEDIA`, `input-forever` as
  `ODD` says, or else a message of role `system`), and a template `odd://blobs/{kind}` whose `blob` is spelled as `BLOBS[kind]` says.

Over HTTP, `--http-fault FAULT` breaks how one request is answered at the HTTP level: `tools/call`
of `--fault-on TOOL` (default `echo`; `count` keeps working), or any other method it names
(`initialize`, `server/discover`, `tools/list`), or with `--fault-on relist` each `tools/list` after
the first. With `--http-fault by-text`, each `echo` call is answered with the fault its `text`
names (any other text is echoed), and `initialize` gives a session id (`session-1`), so one server
serves every fault:

- `status-400`, `status-401`, `status-404`, `status-405`, `status-429`, `status-500`, `status-502`,
  `status-503`, `status-504`: that status with an HTML body (a proxy's error page); 429 with
  `Retry-After: 30`, 401 without `WWW-Authenticate`.
- `insufficient-scope`: a 403 whose `WWW-Authenticate` asks for the scope `admin` (`insufficient_scope`),
  with a JSON-RPC error in its body.
- `dpop-401`: a 401 whose `WWW-Authenticate` asks for a DPoP-bound token alone (RFC 9449), as a server
  that takes no bearer token does.
- `already-initialized`: a 400 whose body is the JSON-RPC error a TypeScript SDK server that made one
  transport gives a second session's `initialize` (hostinger-api-mcp's `--http`).
- `html-200`, `not-jsonrpc`, `wrong-type`: a 200 whose `application/json` body is an HTML page, is
  JSON but not JSON-RPC, or is the right answer as `text/plain`.
- `sse-not-json`, `sse-ends`, `sse-stalls`: a `text/event-stream` whose data line is not JSON, that
  ends before the answer, or that stays open and silent.
- `sse`: the right answer, as the one event of an event stream (not a fault: how SDK servers answer).
- `batch`: the answer as a JSON-RPC batch of one (as `echo`'s text `batch` over stdio in `odd` mode).
- `other-id`: the answer carries another request's id; `sse-other-id`: an event stream whose first
  event is the answer to a request never sent, then the right answer.
- `redirect`: a 307 to `--redirect-to URL`.
- `gzip-bomb`: a gzip body of 256 KiB that expands to 256 MiB (the answer, then spaces).
- `huge-header`: a 1 MB response header.
- `get-not-json`: `initialize` gives a session id, and the GET stream it opens sends an event whose
  data is not JSON, then `notifications/tools/list_changed`, then stays open.

`--log-requests FILE` (over HTTP) appends the method of each POST it receives to FILE, one a line,
before answering it, so a test knows what reached the server (an `initialize` never sent, say).

    python hostile_server.py --mode MODE [--notify] [--modern] [--http PORT [--http-fault FAULT] [--fault-on TOOL]
                                                          [--log-requests FILE]]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import threading
from http.server import ThreadingHTTPServer
from typing import Any

from json_http import JsonHttpHandler

VERSION = "2025-06-18"
MODERN_VERSION = "2026-07-28"
MODERN = "--modern" in sys.argv
"""`--modern`: answer `server/discover` with 2026-07-28, and every result as that version has it."""
COUNT_OUTPUT = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
CYCLE = {
    "type": "object",
    "properties": {"text": {"$ref": "#/$defs/a"}},
    "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
}
"""A schema whose `text` is a `$ref` cycle that never reaches a type."""


def fan_out(schema: dict[str, Any], definitions: int = 13) -> dict[str, Any]:
    """`schema`, reached through `definitions` definitions each naming the next one twice: the same
    meaning, and 2**definitions subschemas once its references are followed."""
    defs: dict[str, Any] = {
        f"d{index}": {"allOf": [{"$ref": f"#/$defs/d{index + 1}"}] * 2} for index in range(definitions)
    }
    defs[f"d{definitions}"] = schema
    return {"type": "object", "$defs": defs, "allOf": [{"$ref": "#/$defs/d0"}]}


ANSI = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\x1b[0m\r\nINFO all good"
"""Terminal control a server may put in its text: a window title, clear screen, colour, a forged line."""
MULTI_LINE = "Query failed:\r\n  SELECT * FRM users\r\n           ^\r\n\tsyntax error near 'FRM'\r\n"
"""A failed tool's text as servers write it: several lines, indented, a tab, CRLF line ends."""
ODD: dict[str, Any] = {
    "multi-line-is-error": {"result": {"content": [{"type": "text", "text": MULTI_LINE},
                                                   {"type": "text", "text": "Did you mean FROM?"}], "isError": True}},
    "ansi-is-error": {"result": {"content": [{"type": "text", "text": ANSI}], "isError": True}},
    "ansi-rpc-error": {"error": {"code": -32603, "message": ANSI, "data": ANSI}},
    "code-not-int": {"error": {"code": "oops", "message": "bad"}},
    "message-not-str": {"error": {"code": -32603, "message": 42}},
    "data-huge": {"error": {"code": -32603, "message": "big data", "data": ["x" * 1000] * 20000}},
    "result-and-error": {"result": {"content": [{"type": "text", "text": "both"}]},
                         "error": {"code": -32603, "message": "both"}},
    "structured-list": {"result": {"content": [], "structuredContent": [1, 2]}},
    "text-missing": {"result": {"content": [{"type": "text"}]}},
    "empty-error": {"result": {"content": [], "isError": True}},
    "is-error-yes": {"result": {"content": [{"type": "text", "text": "done?"}], "isError": "yes"}},
    "is-error-zero": {"result": {"content": [{"type": "text", "text": "done?"}], "isError": 0}},
    "input-forever": {"result": {"resultType": "input_required", "requestState": "again"}},
    "invalid-params": {"error": {"code": -32602, "message": "Invalid arguments for tool echo: 'size' is a required property"}},
    "url-elicitation": {"error": {"code": -32042, "message": "This request requires browser-based authorization.",
                                  "data": {"elicitations": [{"mode": "url", "url": "https://example.com/consent\x1b[2J",
                                                             "message": "Open this link", "elicitationId": "e1"}]}}},
}  # fmt: skip
"""How `echo` answers in `odd` mode, by its `text`: the answer's members besides `jsonrpc` and `id`."""
LARGE_BLOB = bytes(range(256)) * 16384
"""4 MiB of every byte value: the bytes of `odd://blobs/large`."""
BLOBS = {
    "good": "aGVsbG8gd29ybGQ=",
    "empty": "",
    "large": base64.b64encode(LARGE_BLOB).decode(),
    "unpadded": "aGVsbG8gd29ybGQ",
    "newline": "aGVsbG8g\nd29ybGQ=",
    "urlsafe": base64.urlsafe_b64encode(b"\xfb\xff\xfe").decode(),
    "garbage": "not base64 at all!",
    "not-ascii": "aGVsbG8gd29ybGQ\u00e9",
}
"""The `blob` of each `odd://blobs/{kind}`: valid standard base64, then what a careless server sends."""
MEDIA: dict[str, dict[str, Any]] = {
    "image-unpadded": {"type": "image", "data": BLOBS["unpadded"], "mimeType": "image/png"},
    "audio-newline": {"type": "audio", "data": BLOBS["newline"], "mimeType": "audio/wav"},
    "embedded-urlsafe": {"type": "resource", "resource": {"uri": "odd://x", "blob": BLOBS["urlsafe"]}},
    "image-not-ascii": {"type": "image", "data": BLOBS["not-ascii"], "mimeType": "image/png"},
    "image-good": {"type": "image", "data": BLOBS["good"], "mimeType": "image/png"},
    "audio-empty": {"type": "audio", "data": BLOBS["empty"], "mimeType": "audio/wav"},
    "embedded-good": {"type": "resource", "resource": {"uri": "odd://x", "blob": BLOBS["good"]}},
    "embedded-text": {"type": "resource", "resource": {"uri": "odd://x", "text": "not base64 at all!"}},
}
"""Content blocks carrying base64, by name: in `odd` mode, `echo` with `text` `media:NAME` answers a
text block then that block (`media-error:NAME`: the same with `isError`), and the prompt `greet`
with `who` NAME a message holding it; valid standard base64 or not, as `BLOBS` says."""


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
        if self.mode == "fan-out":  # the same meanings, each past any work budget once its references are followed
            count_output = fan_out(COUNT_OUTPUT)
            looping = [{"name": "fanned", "description": "Fanned.", "inputSchema": fan_out(echo_input)}]
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
        kind, _, media = text.partition(":")
        if self.mode == "odd" and kind in ("media", "media-error") and media in MEDIA:
            content = [{"type": "text", "text": f"here is {media}"}, MEDIA[media]]
            return {"content": content, "isError": kind == "media-error"}
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
        if method == "initialize" and self.mode in ("bad-discover-only", "discover-error-only"):
            return [{"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}]
        if method == "initialize" and self.mode == "exit-at-start":
            os._exit(3)
        if method == "initialize":
            version = "2099-01-01" if self.mode == "unknown-version" else VERSION
            result: dict[str, Any] = {
                "protocolVersion": version,
                "capabilities": {
                    "tools": {} if self.mode == "no-list-changed" else {"listChanged": True},
                    **({"resources": {}, "prompts": {}} if self.mode == "odd" else {}),
                },
                "serverInfo": {"name": "hostile", "version": "1.0.0"},
            }
        elif method == "server/discover" and MODERN:
            result = {
                "supportedVersions": [MODERN_VERSION],
                "capabilities": {"tools": {"listChanged": True}, **({"resources": {}, "prompts": {}} if self.mode == "odd" else {})},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "hostile", "version": "1.0.0"}},
            }  # fmt: skip
        elif method == "server/discover" and self.mode == "discover-error-only":
            error = {"code": -32603, "message": "database not ready"}
            return [{"jsonrpc": "2.0", "id": request_id, "error": error}]
        elif method == "server/discover" and self.mode.startswith("discover-refused-"):
            error = {"code": -int(self.mode.rsplit("-", 1)[1]), "message": "Unknown method: server/discover"}
            return [{"jsonrpc": "2.0", "id": request_id, "error": error}]
        elif method == "server/discover" and self.mode in (
            "bad-discover",
            "bad-discover-only",
            "discover-unknown",
            "discover-null",
        ):
            result = {
                "supportedVersions": "2026-07-28" if self.mode.startswith("bad-discover") else ["2099-01-01"],
                "capabilities": None if self.mode == "discover-null" else {"tools": {}},
                "resultType": "complete", "ttlMs": 0, "cacheScope": "public",
            }  # fmt: skip
        elif method in ("tools/list", "tools/call") and self.mode == f"null-{str(method).split('/')[1]}":
            return [{"jsonrpc": "2.0", "id": request_id, "result": None}]  # neither a result object nor an error
        elif method == "tools/list" and self.mode == "list-refused-32000":
            return [{"jsonrpc": "2.0", "id": request_id, "error": {"code": -32000, "message": "catalog backend down"}}]
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
                    result = {"tools": {"name": "echo", "inputSchema": {"type": "object"}}}  # not a list
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
        elif method == "resources/list" and self.mode == "odd":
            result = {"resources": [{"uri": "odd://blob", "name": "blob", "mimeType": "image/png"}]}
        elif method == "resources/templates/list" and self.mode == "odd":
            result = {"resourceTemplates": [{"uriTemplate": "odd://blobs/{kind}", "name": "blobs"}]}
        elif method == "resources/read" and self.mode == "odd":
            uri = str(params.get("uri"))
            blob = BLOBS[uri.removeprefix("odd://blobs/")] if uri.startswith("odd://blobs/") else "not base64 at all!"
            text = {"uri": uri, "text": "a text part beside the blob"}
            result = {"contents": [text, {"uri": uri, "mimeType": "application/octet-stream", "blob": blob}]}
        elif method == "prompts/list" and self.mode == "odd":
            result = {"prompts": [{"name": "greet", "arguments": [{"name": "who", "required": True}]}]}
        elif method == "prompts/get" and self.mode == "odd":
            who = str((params.get("arguments") or {}).get("who"))
            message = (
                {"role": "user", "content": MEDIA[who]}
                if who in MEDIA
                else {"role": "system", "content": {"type": "text", "text": "hi"}}
            )
            result = {"messages": [{"role": "user", "content": {"type": "text", "text": "look:"}}, message]}
            if who == "input-forever":  # with `--modern`, asks for input on every round
                result = ODD["input-forever"]["result"]
        elif method == "ping":
            result = {}
        else:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            return [{"jsonrpc": "2.0", "id": request_id, "error": error}]
        return [{"jsonrpc": "2.0", "id": request_id, "result": result}]


def serve_stdio(server: Hostile) -> None:
    if server.mode == "garbage-first":  # a server that logs to stdout before it speaks JSON-RPC
        sys.stdout.write("Starting hostile server v1.0...\n\n{not json\n[1, 2]\n  \r\n")
        sys.stdout.flush()
    for line in sys.stdin:
        if line.strip():
            message = json.loads(line)
            if server.mode == "odd" and odd_answer(message):
                continue
            echo = message.get("method") == "tools/call" and message["params"].get("name") == "echo"
            listing = message.get("method") == "tools/list"
            for reply in server.respond(message):
                if (server.mode, True) in (("huge-answer", echo), ("huge-listing", listing)):
                    huge = {"content": [{"type": "text", "text": "x" * (65 << 20)}]}
                    sys.stdout.write(json.dumps({"result": huge, "jsonrpc": "2.0", "id": reply["id"]}) + "\n")
                elif server.mode == "not-utf8":  # the escaped byte written as itself
                    sys.stdout.flush()
                    sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode("utf-8", "surrogateescape"))
                    sys.stdout.buffer.write(b"\n")
                else:
                    sys.stdout.write(json.dumps(stamped(reply)) + "\n")
            sys.stdout.flush()


def stamped(reply: dict[str, Any]) -> dict[str, Any]:
    """`reply` with the members every 2026-07-28 result has, under `--modern` (its own kept)."""
    if not MODERN or not isinstance(reply.get("result"), dict):
        return reply
    return {**reply, "result": {"resultType": "complete", "ttlMs": 0, "cacheScope": "public", **reply["result"]}}


ASKED: dict[str, Any] = {}
"""In `odd` mode, the `tools/call` waiting for the client's answer to the server's own request."""


UNANSWERED: dict[str, Any] = {}
"""In `odd` mode, the `answer-when-cancelled` calls, answered once the client cancels them."""


def odd_answer(message: dict[str, Any]) -> bool:
    """Answer `message` as `odd` mode's `echo` text says (or a client's answer to a request of the
    server's, which completes the call that asked); False for a message to answer as usual."""

    def send(*replies: dict[str, Any] | str) -> None:
        for reply in replies:
            sys.stdout.write(
                (reply if isinstance(reply, str) else json.dumps(stamped({"jsonrpc": "2.0", **reply}))) + "\n"
            )
        sys.stdout.flush()

    if "method" not in message and "id" in message:  # the client answered the server's request
        asked = ASKED.pop(str(message["id"]), None)  # None: an answer to a ping or an unknown request
        text = json.dumps(message.get("result", message.get("error")), sort_keys=True)
        if asked is not None:
            send({"id": asked, "result": {"content": [{"type": "text", "text": text}]}})
        return True
    params = message.get("params") or {}
    if message.get("method") == "notifications/cancelled" and str(params.get("requestId")) in UNANSWERED:
        cancelled = UNANSWERED.pop(str(params.get("requestId")))
        send({"id": cancelled, "error": {"code": 0, "message": "Request cancelled"}})
        return True
    if message.get("method") != "tools/call" or params.get("name") != "echo":
        return False
    text, request_id = str((params.get("arguments") or {}).get("text")), message["id"]
    answer = {"content": [{"type": "text", "text": text}]}
    if text in ODD:
        send({"id": request_id, **ODD[text]})
    elif text == "deep":  # nesting no parser follows to its end
        nested = "[" * 100_000 + "]" * 100_000
        send(
            f'{{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, "result": {{"content": [], "structuredContent": {{"a": {nested}}}}}}}'
        )
    elif text == "progress-unknown":
        progress = {"progressToken": "nobody-asked", "progress": 1, "message": ANSI}
        send({"method": "notifications/progress", "params": progress}, {"id": request_id, "result": answer})
    elif text == "logs":
        levels = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
        logs = [{"method": "notifications/message", "params": {"level": level, "data": ANSI}} for level in levels]
        send(*logs * 50, {"id": request_id, "result": answer})
    elif text in ("sampling/createMessage", "elicitation/create", "roots/list") or text.startswith("sampling:"):
        media = [{"role": "user", "content": MEDIA[text.removeprefix("sampling:")]}] if ":" in text else []
        text = "sampling/createMessage" if text.startswith("sampling") else text
        asked = {
            "sampling/createMessage": {"messages": media, "maxTokens": 10},
            "elicitation/create": {"message": "name?", "requestedSchema": {"type": "object", "properties": {}}},
            "roots/list": {},
        }[text]
        ASKED[f"asked-{request_id}"] = request_id
        send({"id": f"asked-{request_id}", "method": text, "params": asked})
    elif text == "bad-notifications":  # not valid MCP, and a method MCP does not have
        send(
            {"method": "notifications/progress", "params": {"progressToken": 1, "progress": "half"}},
            {"method": "notifications/message", "params": {"level": "bogus", "data": ANSI}},
            {"method": "notifications/unheard_of", "params": {"x": ANSI}},
            {"method": "notifications/cancelled", "params": {"requestId": request_id}},
            {"id": request_id, "result": answer},
        )
    elif text == "server-ping-flood":  # requests of the server's the client must answer, mid-call
        send(*({"id": f"ping-{n}", "method": "ping"} for n in range(200)), {"id": request_id, "result": answer})
    elif text == "bad-request":  # a request of the server's that is not valid MCP
        ASKED[f"asked-{request_id}"] = request_id
        send({"id": f"asked-{request_id}", "method": "sampling/createMessage", "params": {"messages": "all"}})
    elif text == "unknown-request":
        send({"id": "odd-1", "method": "odd/unheard_of", "params": {}}, {"id": request_id, "result": answer})
    elif text == "garbage-mid-call":
        send(ANSI, "{not json", '{"jsonrpc": "2.0"}', '{"jsonrpc": "2.0", "id": 999999, "result": {}}',
             {"id": request_id, "result": answer})  # fmt: skip
    elif text == "batch":  # the answer as a JSON-RPC batch of one (MCP allowed batches only in 2025-03-26)
        send(json.dumps([{"jsonrpc": "2.0", "id": request_id, "result": answer}]))
    elif text == "other-id":
        send({"id": 10**9, "result": answer})
    elif text == "answer-when-cancelled":
        UNANSWERED[str(request_id)] = request_id
    elif text == "close-stdout":  # stdout closed, the process still running
        sys.stdout.flush()
        os.close(1)
        import time

        time.sleep(60)
    elif text == "close-mid-answer":
        sys.stdout.write(f'{{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, "result": {{"content": [{{"type": "te')
        sys.stdout.flush()
        os._exit(0)
    else:
        return False
    return True


HTML_PAGE = b"<html><head><title>Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"
FAULTS = (
    *(f"status-{status}" for status in (400, 401, 404, 405, 429, 500, 502, 503, 504)),
    *("html-200", "not-jsonrpc", "wrong-type", "sse-not-json", "sse-ends", "sse-stalls", "sse-other-id", "sse"),
    *("other-id", "redirect", "gzip-bomb", "huge-header", "insufficient-scope", "already-initialized", "batch"),
    "dpop-401",
)
STATUS_TEXT = {
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    405: "Method Not Allowed",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def gzip_bomb(answer: bytes, decoded: int) -> bytes:
    """A gzip body of `answer` followed by `decoded` bytes of spaces (still valid JSON), built from
    one compressed mebibyte repeated (a full flush makes each copy byte-identical)."""
    import struct
    import zlib

    block = b" " * (1 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    head = compressor.compress(answer) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeated = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    tail = compressor.flush(zlib.Z_FINISH)
    crc = zlib.crc32(answer)
    for _ in range(decoded >> 20):
        crc = zlib.crc32(block, crc)
    size = (len(answer) + decoded) & 0xFFFFFFFF
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + head + repeated * (decoded >> 20) + tail + struct.pack("<II", crc, size)


def serve_http(
    server: Hostile,
    port: int,
    fault: str | None = None,
    fault_on: str = "echo",
    redirect_to: str = "",
    log_requests: str | None = None,
) -> None:
    """Streamable HTTP without streams: each POST is answered with its JSON-RPC answer; the request
    `fault_on` names is answered with `fault` instead. Each POST's method is appended to the file
    `log_requests` names, if any, before it is answered."""
    stalled = threading.Event()  # never set: a stalled stream stays open until the client goes

    class Handler(JsonHttpHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if log_requests is not None:
                with open(log_requests, "a", encoding="utf-8") as log:
                    log.write(f"{message.get('method')}\n")
            answers = [reply for reply in server.respond(message) if reply.get("id") == message.get("id")]
            if not answers:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            method, params = message.get("method"), message.get("params") or {}
            named = params.get("name") if method == "tools/call" else method
            if fault_on == "relist" and method == "tools/list" and server.listings > 1:
                named = "relist"
            if fault in ("by-text", "get-not-json") and method == "initialize":
                self.send_body(
                    200, "application/json", json.dumps(answers[0]).encode(), ("Mcp-Session-Id", "session-1")
                )
            elif fault == "by-text" and named == fault_on:
                text = str((params.get("arguments") or {}).get("text"))
                if text in FAULTS:
                    self.send_fault(text, answers[0])
                else:
                    self.send_json(answers[0])
            elif fault in FAULTS and named == fault_on:
                self.send_fault(fault, answers[0])
            else:
                self.send_json(answers[0])

        def do_GET(self) -> None:
            if fault != "get-not-json":
                return super().do_GET()
            changed = json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}).encode()
            self.send_events(b"data: <html>Bad Gateway</html>\n\n", b"data: " + changed + b"\n\n")
            stalled.wait()

        def send_body(self, status: int, content_type: str, data: bytes, *headers: tuple[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def send_events(self, *events: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for event in events:
                self.wfile.write(event)
                self.wfile.flush()

        def send_fault(self, fault: str, answer: dict[str, Any]) -> None:
            html = "text/html; charset=utf-8"
            if fault not in FAULTS:
                raise ValueError(f"unknown --http-fault {fault}")
            if fault.startswith("status-"):
                status = int(fault.removeprefix("status-"))
                more = [("Retry-After", "30")] if status == 429 else []
                page = HTML_PAGE.replace(b"502 Bad Gateway", f"{status} {STATUS_TEXT[status]}".encode())
                self.send_body(status, html, page, *more)
            elif fault == "insufficient-scope":
                challenge = 'Bearer error="insufficient_scope", scope="admin"'
                refusal = {"jsonrpc": "2.0", "id": answer["id"], "error": {"code": -32001, "message": "forbidden"}}
                self.send_body(403, "application/json", json.dumps(refusal).encode(), ("WWW-Authenticate", challenge))
            elif fault == "dpop-401":
                challenge = 'DPoP error="invalid_token", algs="ES256 RS256"'
                self.send_body(401, "application/json", b'{"error": "invalid_token"}', ("WWW-Authenticate", challenge))
            elif fault == "already-initialized":  # the TypeScript SDK's one transport, asked for a second session
                refusal = {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32600, "message": "Invalid Request: Server already initialized"},
                }
                self.send_body(400, "application/json", json.dumps(refusal).encode())
            elif fault == "html-200":
                self.send_body(200, "application/json", HTML_PAGE)
            elif fault == "not-jsonrpc":
                self.send_body(200, "application/json", b'{"status": "ok", "items": [1, 2, 3]}')
            elif fault == "wrong-type":
                self.send_body(200, "text/plain", json.dumps(answer).encode())
            elif fault == "sse-not-json":
                self.send_events(b"event: message\rdata: <html>Bad Gateway</html>\r\r")  # CR alone ends a line too
            elif fault == "sse-ends":
                self.send_events(b": a comment, then the stream ends\n\n")
            elif fault == "sse-stalls":
                self.send_events(b": the answer never comes\n\n")
                stalled.wait()
            elif fault == "sse-other-id":  # another request's answer first, then this one's
                stray = {
                    "jsonrpc": "2.0",
                    "id": answer["id"] + 1000,
                    "result": {"content": [{"type": "text", "text": "stray"}]},
                }
                self.send_events(
                    *(
                        b"event: message\r\ndata: " + json.dumps(reply).encode() + b"\r\n\r\n"
                        for reply in (stray, answer)
                    )
                )
            elif fault == "sse":
                self.send_events(b"event: message\ndata: " + json.dumps(answer).encode() + b"\n\n")
            elif fault == "other-id":
                self.send_json({**answer, "id": answer["id"] + 1000})
            elif fault == "batch":  # the answer as a JSON-RPC batch of one (MCP allowed batches only in 2025-03-26)
                self.send_body(200, "application/json", json.dumps([answer]).encode())
            elif fault == "redirect":
                self.send_body(307, html, b"moved", ("Location", redirect_to))
            elif fault == "gzip-bomb":
                bomb = gzip_bomb(json.dumps(answer).encode(), 256 << 20)
                self.send_body(200, "application/json", bomb, ("Content-Encoding", "gzip"))
            elif fault == "huge-header":
                self.send_body(200, "application/json", json.dumps(answer).encode(), ("X-Padding", "a" * 1_000_000))

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that hung up mid-answer
                super().handle_error(request, client_address)  # (it refused a huge header) is no news

    http = Server(("127.0.0.1", port), Handler)
    print(f"listening on {http.server_address[1]}", flush=True)
    http.serve_forever()


def main() -> None:
    sys.set_int_max_str_digits(0)  # `long-integer` writes one
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="plain")
    parser.add_argument(
        "--notify", action="store_true", help="relist-* modes: say the tools changed after the first listing"
    )
    parser.add_argument("--modern", action="store_true", help="speak 2026-07-28 (stdio only)")
    parser.add_argument("--http", type=int, help="serve Streamable HTTP on this port of 127.0.0.1 instead of stdio")
    parser.add_argument("--http-fault", help="over HTTP: answer the request --fault-on names this way")
    parser.add_argument("--fault-on", default="echo", help="a tool's name, another method, or relist")
    parser.add_argument("--redirect-to", default="", help="--http-fault redirect: where to")
    parser.add_argument("--log-requests", help="over HTTP: append each POST's method to this file")
    options = parser.parse_args()
    server = Hostile(options.mode, options.notify)
    if options.http is not None:
        serve_http(
            server, options.http, options.http_fault, options.fault_on, options.redirect_to, options.log_requests
        )
    else:
        serve_stdio(server)


if __name__ == "__main__":
    main()
