"""A hand-written JSON-RPC stdio server whose list answers mix good entries with malformed ones, which
the MCP SDK's servers would refuse to send: a tool whose `inputSchema` is a string, a number or
missing, one without a `name` or with a number for one, one whose `outputSchema` is an array or whose
`annotations` is a string; a resource without its `uri`, a template whose `uriTemplate` is a number,
a prompt without a `name`. `tools/list` comes in two pages, so an entry is named by its page too.

`--era modern` answers `server/discover` (protocol 2026-07-28); `--era legacy` (the default) refuses
it with -32601, as pre-2026 servers do, and answers `initialize`. Calling the tool `grow` adds a good
tool `late` and a malformed `late_broken`, then sends `notifications/tools/list_changed`.
"""

from __future__ import annotations

import argparse
import json
import sys

LEGACY_VERSION = "2025-06-18"
MODERN_VERSION = "2026-07-28"
OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}

FIRST_PAGE: list[object] = [
    {"name": "echo", "description": "Echo the text.", "inputSchema": OBJECT},
    {"name": "string_schema", "inputSchema": "object"},
    {"name": "number_schema", "inputSchema": 5},
    {"name": "no_schema", "description": "No inputSchema at all."},
    {"description": "A tool without a name.", "inputSchema": OBJECT},
]
SECOND_PAGE: list[object] = [
    {"name": 7, "inputSchema": OBJECT},
    {"name": "array_output", "inputSchema": OBJECT, "outputSchema": []},
    {"name": "string_annotations", "inputSchema": OBJECT, "annotations": "read only"},
    {"name": "grow", "description": "Add tools.", "inputSchema": {"type": "object"}},
]
LATE: list[object] = [
    {"name": "late", "inputSchema": {"type": "object"}},
    {"name": "late_broken", "inputSchema": ["not", "a", "schema"]},
]
RESOURCES = [{"name": "readme", "uri": "file:///readme.md"}, {"name": "no_uri"}]
TEMPLATES = [{"name": "page", "uriTemplate": "file:///{page}"}, {"name": "bad_template", "uriTemplate": 5}]
PROMPTS = [{"name": "summarize"}, {"description": "A prompt without a name."}]


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=("legacy", "modern"), default="legacy")
    era = parser.parse_args().era
    grown = False
    capabilities = {"tools": {"listChanged": True}, "resources": {}, "prompts": {}}

    def answer(request_id: object, result: dict[str, object]) -> None:
        if era == "modern":  # the fields every 2026-07-28 result has
            result = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public", **result}
        send({"jsonrpc": "2.0", "id": request_id, "result": result})

    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if request_id is None:  # a notification
            continue
        if method == "server/discover" and era == "modern":
            answer(request_id, {"supportedVersions": [MODERN_VERSION], "capabilities": capabilities})
        elif method == "server/discover":
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}})
        elif method == "initialize":
            info = {"name": "malformed", "version": "1.0.0"}
            answer(request_id, {"protocolVersion": LEGACY_VERSION, "capabilities": capabilities, "serverInfo": info})
        elif method == "tools/list":
            if params.get("cursor") == "2":
                answer(request_id, {"tools": SECOND_PAGE + (LATE if grown else [])})
            else:
                answer(request_id, {"tools": FIRST_PAGE, "nextCursor": "2"})
        elif method == "tools/call":
            if params.get("name") == "grow":
                grown = True
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            text = (params.get("arguments") or {}).get("text", "")
            answer(request_id, {"content": [{"type": "text", "text": f"echo: {text}"}]})
        elif method == "resources/list":
            answer(request_id, {"resources": RESOURCES})
        elif method == "resources/templates/list":
            answer(request_id, {"resourceTemplates": TEMPLATES})
        elif method == "prompts/list":
            answer(request_id, {"prompts": PROMPTS})
        elif method == "ping":
            answer(request_id, {})
        else:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": f"Method not found: {method}"},
                }
            )


if __name__ == "__main__":
    main()
