"""A low-level SDK server whose tools take plain arguments and list output schemas no type can be
made from, for generated-client tests: `look`'s refers to a definition it never has
(`#/$defs/gone`), `tally`'s is not valid JSON Schema (`minLength: "x"`). Every tool returns the
arguments it received as its structured content."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name="look",
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        output_schema={"type": "object", "properties": {"received": {"$ref": "#/$defs/gone"}}},
    ),
    types.Tool(
        name="tally",
        input_schema={"type": "object", "properties": {"count": {"type": "integer"}}, "additionalProperties": False},
        output_schema={"type": "object", "properties": {"received": {"minLength": "x"}}},
    ),
]


def build_server() -> Server[Any]:
    async def list_tools(_context: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        structured = {"received": params.arguments or {}}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(structured))], structured_content=structured
        )

    return Server("broken-output", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve() -> None:
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
