"""A hand-written JSON-RPC stdio server whose list answers mix good entries with malformed ones, which
the MCP SDK's servers would refuse to send: a tool whose `inputSchema` is a string, a number or
missing, one without a `name` or with a number for one, one whose `outputSchema` is an array or whose
`annotations` is a string; a resource without its `uri`, a template whose `uriTemplate` is a number,
a prompt without a `name`. `tools/list` comes in two pages, so an entry is named by its page too.

`--era modern` answers `server/discover` (protocol 2026-07-28); `--era legacy` (the default) refuses
it with -32601, as pre-2026 servers do, and answers `initialize`. `reply` answers one message, for
a test's Streamable HTTP endpoint too. Calling the tool `grow` adds a good
tool `late` and a malformed `late_broken`, then sends `notifications/tools/list_changed`.
`regional` mirrors its `region` into an `Mcp-Param-Region` header (`x-mcp-header`, SEP-2243): given
a request's HTTP headers, `reply` refuses a call without it with -32020, as the SDK's servers do, so
a client that did not know the annotation must list the tools (both pages) and send it again.
`tasks` adds the 2025-11-25 `tasks` capability (task-augmented `tools/call`) to a 2026-07-28
session, as a server mixing the eras would (the 2026-07-28 schema has no such capability).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

LEGACY_VERSION = "2025-06-18"
MODERN_VERSION = "2026-07-28"
OBJECT = {"type": "object", "properties": {"text": {"type": "string"}}}
HEADER_MISMATCH = -32020
REGIONAL = {
    "name": "regional",
    "description": "Say which region answered.",
    "inputSchema": {
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
        "required": ["region"],
    },
    "outputSchema": {"type": "object", "properties": {"region": {"type": "string"}}, "required": ["region"]},
}

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
    REGIONAL,
]
LATE: list[object] = [
    {"name": "late", "inputSchema": {"type": "object"}},
    {"name": "late_broken", "inputSchema": ["not", "a", "schema"]},
]
RESOURCES = [{"name": "readme", "uri": "file:///readme.md"}, {"name": "no_uri"}]
TEMPLATES = [{"name": "page", "uriTemplate": "file:///{page}"}, {"name": "bad_template", "uriTemplate": 5}]
PROMPTS = [{"name": "summarize"}, {"description": "A prompt without a name."}]
OTHER_LISTS: dict[str, dict[str, object]] = {
    "resources/list": {"resources": RESOURCES},
    "resources/templates/list": {"resourceTemplates": TEMPLATES},
    "prompts/list": {"prompts": PROMPTS},
}


def reply(
    era: str,
    message: dict[str, Any],
    grown: bool = False,
    headers: dict[str, str] | None = None,
    tasks: bool = False,
) -> dict[str, object] | None:
    """The answer to one JSON-RPC message (None for a notification), over stdio or HTTP alike
    (`headers`: the HTTP request's, by lower-case name)."""
    method, request_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    arguments = params.get("arguments") or {}
    if request_id is None:
        return None
    capabilities: dict[str, object] = {"tools": {"listChanged": True}, "resources": {}, "prompts": {}}
    if tasks:
        capabilities["tasks"] = {"requests": {"tools": {"call": {}}}}
    result: dict[str, object]
    if method == "server/discover" and era == "modern":
        result = {"supportedVersions": [MODERN_VERSION], "capabilities": capabilities}
    elif method == "initialize" and era == "legacy":
        info = {"name": "malformed", "version": "1.0.0"}
        result = {"protocolVersion": LEGACY_VERSION, "capabilities": capabilities, "serverInfo": info}
    elif method == "tools/list" and params.get("cursor") == "2":
        result = {"tools": SECOND_PAGE + (LATE if grown else [])}
    elif method == "tools/list":
        result = {"tools": FIRST_PAGE, "nextCursor": "2"}
    elif method == "tools/call" and params.get("name") == "regional":
        region = arguments.get("region")
        if headers is not None and headers.get("mcp-param-region") != region:
            error = {"code": HEADER_MISMATCH, "message": f"Mcp-Param-Region header does not match region {region!r}"}
            return {"jsonrpc": "2.0", "id": request_id, "error": error}
        answer = {"region": region}
        result = {"content": [{"type": "text", "text": json.dumps(answer)}], "structuredContent": answer}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": f"echo: {arguments.get('text', '')}"}]}
    elif method in OTHER_LISTS:
        result = OTHER_LISTS[method]
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"Method not found: {method}"}}
    if era == "modern":  # the fields every 2026-07-28 result has
        result = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public", **result}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--era", choices=("legacy", "modern"), default="legacy")
    era = parser.parse_args().era
    grown = False
    for line in sys.stdin:
        message = json.loads(line)
        answer = reply(era, message, grown)
        if answer is not None:
            sys.stdout.write(json.dumps(answer) + "\n")
        if message.get("method") == "tools/call" and (message.get("params") or {}).get("name") == "grow":
            grown = True
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
