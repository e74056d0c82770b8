"""A low-level SDK server whose tools' schemas hold references that name nothing in them, for
generated-client tests: `lookup` refers to an anchor it never defines (`#nope`), `fetch` to a
document elsewhere (`https://example.com/x.json`) and its output to a file (`other.json#/a`);
`echo` is a plain tool beside them. Every tool returns the arguments it received."""

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
        name="lookup",
        input_schema={
            "type": "object",
            "properties": {"key": {"$ref": "#nope"}, "limit": {"type": "integer"}},
            "required": ["key"],
        },
        output_schema=RECEIVED,
    ),
    types.Tool(
        name="fetch",
        input_schema={"type": "object", "properties": {"target": {"$ref": "https://example.com/x.json"}}},
        output_schema={"type": "object", "properties": {"received": {"$ref": "other.json#/a"}}},
    ),
]


def build_server(tools: list[types.Tool], name: str) -> Server[Any]:
    """A server listing `tools`, each returning the arguments it received as its structured content."""

    async def list_tools(_context: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        structured = {"received": params.arguments or {}}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(structured))], structured_content=structured
        )

    return Server(name, version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


def serve(tools: list[types.Tool], name: str) -> None:
    """Serve `build_server(tools, name)` over stdio until stdin closes."""

    async def served() -> None:
        server = build_server(tools, name)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(served)


if __name__ == "__main__":
    serve(TOOLS, "refs")
