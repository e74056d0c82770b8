"""A low-level SDK server whose tools' schemas are not all JSON Schema, as hand-written schemas can be,
for generated-client tests: `rank` declares a property whose schema is a number, `tag` a `required`
that is a string and an output property whose `type` is a number; `echo` is a plain tool beside
them. Every tool returns the arguments it received."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

RECEIVED = {"type": "object", "properties": {"received": {"type": "object"}}, "required": ["received"]}

TOOLS = [
    types.Tool(
        name="echo",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        output_schema=RECEIVED,
    ),
    types.Tool(
        name="rank",
        input_schema={"type": "object", "properties": {"query": {"type": "string"}, "limit": 5}},
        output_schema=RECEIVED,
    ),
    types.Tool(
        name="tag",
        input_schema={"type": "object", "properties": {"label": {"type": "string"}}, "required": "label"},
        output_schema={"type": "object", "properties": {"received": {"type": 5}}},
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

    return Server("bad", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve() -> None:
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
