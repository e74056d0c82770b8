"""A raw JSON-RPC server that answers each call with whatever the caller tells it to, for the wire
fuzz test (`tests/hostile/test_wire_fuzz.py`): the plan of an answer travels in the request itself.

Its catalog: tools `answer` (no output schema) and `answer_typed` (an object with a number
`value`), a prompt `answer` and a resource template `fuzz:///{plan}`, each taking one string `plan`.
A plan is JSON: `{"lines": [...], "end": "stay" | "exit" | "cut"}`. Each line is written to stdout
as it is, after `__ID__` is replaced by the request's id as JSON; `exit` ends the process after the
last line, `cut` writes only the first half of the last line, then exits. An empty plan is answered
well. The lines may hold anything: answers with another id, requests and notifications of the
server's own, text that is not JSON.

`--era modern` answers `server/discover` (protocol 2026-07-28); `--era legacy` (the default) refuses
it with -32601 and answers `initialize`. `reply` answers one message, for the test's Streamable
HTTP endpoint too (there a plan's lines are the HTTP body's JSON answer; the last one is sent).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.parse
from typing import Any

LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
MODERN_FIELDS = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
"""The fields every 2026-07-28 result has."""
PLAN = {"type": "object", "properties": {"plan": {"type": "string"}}, "required": ["plan"]}
TOOLS = [
    {"name": "answer", "description": "Answer as planned.", "inputSchema": PLAN},
    {
        "name": "answer_typed",
        "description": "Answer as planned, with a typed result.",
        "inputSchema": PLAN,
        "outputSchema": {"type": "object", "properties": {"value": {"type": "number"}}, "required": ["value"]},
    },
]
TEMPLATE = "fuzz:///{plan}"
LISTS: dict[str, dict[str, object]] = {
    "tools/list": {"tools": TOOLS},
    "resources/list": {"resources": []},
    "resources/templates/list": {"resourceTemplates": [{"name": "answer", "uriTemplate": TEMPLATE}]},
    "prompts/list": {"prompts": [{"name": "answer", "arguments": [{"name": "plan", "required": True}]}]},
}
CAPABILITIES = {"tools": {"listChanged": True}, "resources": {"listChanged": True}, "prompts": {}, "logging": {}}
WELL = {
    "answer": {"content": [{"type": "text", "text": "ok"}]},
    "answer_typed": {"content": [{"type": "text", "text": '{"value": 1}'}], "structuredContent": {"value": 1}},
    "prompts/get": {"messages": [{"role": "user", "content": {"type": "text", "text": "ok"}}]},
    "resources/read": {"contents": [{"uri": "fuzz:///", "text": "ok"}]},
}
"""The good answer to each request when the plan is empty."""


def plan_of(method: str, params: dict[str, Any]) -> tuple[str, str]:
    """The plan a request carries, and what its good answer is called."""
    if method == "tools/call":
        return str((params.get("arguments") or {}).get("plan", "")), str(params.get("name"))
    if method == "prompts/get":
        return str((params.get("arguments") or {}).get("plan", "")), method
    uri = str(params.get("uri", ""))
    return urllib.parse.unquote(uri.removeprefix("fuzz:///")), method


def reply(era: str, message: dict[str, Any]) -> tuple[list[str], str]:
    """The lines answering one message (none for a notification or an answer) and how to end."""
    method, request_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if request_id is None or method is None:
        return [], "stay"
    result: dict[str, object]
    if method in ("tools/call", "prompts/get", "resources/read"):
        plan, kind = plan_of(method, params)
        if plan:
            planned = json.loads(plan)
            text_id = json.dumps(request_id)
            return [line.replace("__ID__", text_id) for line in planned["lines"]], planned["end"]
        result = dict(WELL.get(kind, WELL["answer"]))
    elif method == "server/discover" and era == "modern":
        result = {"supportedVersions": [MODERN_VERSION], "capabilities": CAPABILITIES}
    elif method == "initialize" and era == "legacy":
        info = {"name": "wirefuzz", "version": "1.0.0"}
        result = {"protocolVersion": LEGACY_VERSION, "capabilities": CAPABILITIES, "serverInfo": info}
    elif method in LISTS:
        result = LISTS[method]
    elif method in ("ping", "logging/setLevel"):
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return [json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error})], "stay"
    if era == "modern":
        result = {**MODERN_FIELDS, **result}
    return [json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})], "stay"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=("legacy", "modern"), default="legacy")
    era = parser.parse_args().era
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        lines, end = reply(era, message)
        if end == "cut" and lines:
            lines[-1] = lines[-1][: len(lines[-1]) // 2]
        for index, text in enumerate(lines):
            cut_here = end == "cut" and index == len(lines) - 1
            sys.stdout.write(text if cut_here else text + "\n")
        sys.stdout.flush()
        if end != "stay":
            return


if __name__ == "__main__":
    main()
