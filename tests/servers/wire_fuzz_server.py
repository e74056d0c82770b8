"""A raw JSON-RPC server that answers each call with whatever the caller tells it to, for the wire
fuzz test (`tests/hostile/test_wire_fuzz.py`): the plan of an answer travels in the request itself.

Its catalog: tools `answer` (no output schema) and `answer_typed` (an object with a number
`value`), a prompt `answer` and a resource template `fuzz:///{plan}`, each taking one string `plan`.
A plan is JSON: `{"lines": [...], "end": "stay" | "exit" | "cut"}`. Each line is written to stdout
as it is, after `__ID__` is replaced by the request's id as JSON (a character U+DC80-U+DCFF as the
byte it stands for, as `surrogateescape` writes it); `exit` ends the process after the
last line, `cut` writes only the first half of the last line, then exits. An empty plan is answered
well. The lines may hold anything: answers with another id, requests and notifications of the
server's own, text that is not JSON.

`--era modern` answers `server/discover` (protocol 2026-07-28); `--era legacy` (the default) refuses
it with -32601 and answers `initialize`. `reply` answers one message, for the test's Streamable
HTTP endpoint too (there a plan's lines are the HTTP body's JSON answer; the last one is sent).

`--plans FILE` plans the answers no call carries a plan for, for the CLI's sweep: a JSON object
from a method (`initialize`, `server/discover`, `tools/list`, ...) to the plans of its requests in
the order they come (a page after a page); a request past its method's plans is answered well.
With `--live` (the sweep of `watch` and a connected hub, `tests/hostile/test_watch_fuzz.py`) the
file is read again at each request and written back when a plan is taken, so a test changes the
server while it runs and a restarted server goes on where the last one stopped. A plans file's
`capabilities` replace the server's, its `catalog` (a list method to its entries) is what a
list request past its plans is answered from, `page` entries a page (the cursor is the next
entry's index), and its `asides` (a method to lines) come before every answer to that method no
plan gives. `--log FILE` appends each request's method (and a
list request's cursor: `tools/list@2`) as a line.
"""

from __future__ import annotations

import argparse
import json
import os
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


def reply(era: str, message: dict[str, Any], plans: dict[str, list[Any]] | None = None) -> tuple[list[str], str]:
    """The lines answering one message (none for a notification or an answer) and how to end; a
    request whose method `plans` holds plans for takes (and removes) the first."""
    method, request_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if request_id is None or method is None:
        return [], "stay"
    result: dict[str, object]
    capabilities = (plans or {}).get("capabilities", CAPABILITIES)
    if plans and plans.get(method):
        return planned_lines(plans[method].pop(0), request_id)
    if method in ("tools/call", "prompts/get", "resources/read"):
        plan, kind = plan_of(method, params)
        if plan:
            return planned_lines(json.loads(plan), request_id)
        result = dict(WELL.get(kind, WELL["answer"]))
    elif method == "server/discover" and era == "modern":
        result = {"supportedVersions": [MODERN_VERSION], "capabilities": capabilities}
    elif method == "initialize" and era == "legacy":
        info = {"name": "wirefuzz", "version": "1.0.0"}
        result = {"protocolVersion": LEGACY_VERSION, "capabilities": capabilities, "serverInfo": info}
    elif method in LISTS:
        result = listed(method, params, plans or {})
    elif method in ("ping", "logging/setLevel"):
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return [json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error})], "stay"
    if era == "modern":
        result = {**MODERN_FIELDS, **result}
    asides = (plans or {}).get("asides", {}).get(method, [])
    return [*asides, json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})], "stay"


def listed(method: str, params: dict[str, Any], plans: dict[str, Any]) -> dict[str, object]:
    """A page of the plans' `catalog` for `method` (its whole list when `page` is not set), else `LISTS`."""
    if method not in plans.get("catalog", {}):
        return LISTS[method]
    entries = plans["catalog"][method]
    start = int(params.get("cursor") or 0)
    end = start + plans.get("page", len(entries) or 1)
    key = next(iter(LISTS[method]))
    return {key: entries[start:end]} | ({"nextCursor": str(end)} if end < len(entries) else {})


def logged(message: dict[str, Any]) -> str:
    """What `--log` records of a request: its method, and a list request's cursor after `@`."""
    cursor = (message.get("params") or {}).get("cursor") if isinstance(message.get("params"), dict) else None
    return f"{message.get('method')}@{cursor}" if cursor is not None else str(message.get("method"))


def planned_lines(plan: dict[str, Any], request_id: Any) -> tuple[list[str], str]:
    text_id = json.dumps(request_id)
    return [line.replace("__ID__", text_id) for line in plan["lines"]], plan["end"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=("legacy", "modern"), default="legacy")
    parser.add_argument("--plans")
    parser.add_argument("--live", action="store_true")
    parser.add_argument("--log")
    arguments = parser.parse_args()
    era = arguments.era
    plans = read_plans(arguments.plans)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        if arguments.log and "id" in message and "method" in message:
            with open(arguments.log, "a", encoding="utf-8") as log:
                log.write(logged(message) + "\n")
        if arguments.live:
            plans = read_plans(arguments.plans)
            before = json.dumps(plans)
        lines, end = reply(era, message, plans)
        if arguments.live and json.dumps(plans) != before:
            write_plans(arguments.plans, plans)
        if end == "cut" and lines:
            lines[-1] = lines[-1][: len(lines[-1]) // 2]
        for index, text in enumerate(lines):
            cut_here = end == "cut" and index == len(lines) - 1
            # a character U+DC80-U+DCFF in a line is the byte it stands for: a line that is not UTF-8
            sys.stdout.buffer.write((text if cut_here else text + "\n").encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()
        if end != "stay":
            return


def read_plans(path: str | None) -> dict[str, Any] | None:
    if not path:
        return None
    with open(path, encoding="utf-8") as file:
        return json.load(file)  # type: ignore[no-any-return]


def write_plans(path: str, plans: dict[str, Any] | None) -> None:
    """The plans left, in place of the file at once (`--live`: the test and a restarted server read it)."""
    with open(path + ".tmp", "w", encoding="utf-8") as file:
        json.dump(plans, file)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
