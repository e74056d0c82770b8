"""A low-level SDK server that lists its schemas' `required` names in another order on every start,
as a server that builds them from a set does (`list(set(names))` follows the process's hash seed).

Each start counts itself in the file `starts` of the folder given as its argument and rotates every
list of names JSON Schema reads as a set by that count: `required` (at the root, in a property, in a
`$defs` entry), `dependentRequired`'s lists and draft-07 `dependencies`' lists. Instance data that
looks alike (a `const`, an `enum`, a `default`, an unknown keyword holding `required`, and a property
named `required`) keeps one order on every start. Calls answer with the arguments they got.

    python required_order_server.py STATE_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

NAMES = ["alpha", "bravo", "charlie"]
DATA = ["zulu", "alpha", "mike"]
"""Instance data and annotations: listed in this order on every start, never sorted."""


def count_start(state: Path) -> int:
    counter = state / "starts"
    starts = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(starts + 1))
    return starts


def tools(turn: int) -> list[types.Tool]:
    names = NAMES[turn % 3 :] + NAMES[: turn % 3]
    stops = ["by", "at"] if turn % 2 else ["at", "by"]
    properties: dict[str, Any] = {name: {"type": "string"} for name in NAMES}
    properties["required"] = {"type": "array", "items": {"type": "string"}, "default": DATA}
    properties["address"] = {
        "type": "object",
        "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        "required": ["street", "city"] if turn % 2 else ["city", "street"],
    }
    properties["mode"] = {"enum": [{"required": DATA}, DATA], "const": {"required": DATA}}
    return [
        types.Tool(
            name="book",
            input_schema={
                "type": "object",
                "properties": properties,
                "required": names,
                "dependentRequired": {"alpha": names},
                "x-order": {"required": DATA},
                "$defs": {"Stop": {"type": "object", "properties": {"at": {}, "by": {}}, "required": stops}},
            },
        ),
        types.Tool(
            name="legacy_book",
            input_schema={
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {name: {"type": "integer"} for name in NAMES},
                "dependencies": {"alpha": names, "bravo": {"required": names}},
            },
        ),
    ]


def build_server(turn: int) -> Server[Any]:
    async def list_tools(_context: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools(turn))

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        structured = {"received": params.arguments or {}}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(structured))], structured_content=structured
        )

    return Server("required-order", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve(turn: int) -> None:
    server = build_server(turn)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve, count_start(Path(sys.argv[1])))
