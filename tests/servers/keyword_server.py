"""A low-level SDK server whose tools echo the arguments they received, for generated-client tests.

Its schemas use what `MCPServer` cannot express: keyword and dashed property names (`from`, `class`,
`seat-count`), a nullable property, camelCase properties of nested objects, and a primitive result
marked with FastMCP's wrap flag.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name="book-trip",
        description="Book a trip; returns the arguments exactly as the server received them.",
        input_schema={
            "type": "object",
            "properties": {
                "from": {"type": "string", "description": "Departure city."},
                "to": {"type": "string"},
                "class": {"type": "string", "enum": ["economy", "business"], "default": "economy"},
                "seat-count": {"type": "integer", "minimum": 1, "default": 1},
                "note": {"type": ["string", "null"]},
            },
            "required": ["from", "to"],
        },
        output_schema={
            "type": "object",
            "properties": {"received": {"type": "object", "additionalProperties": True}},
            "required": ["received"],
        },
    ),
    types.Tool(
        name="edit-file",
        description="Edit a file as server-filesystem's edit_file does; returns the arguments it received.",
        input_schema={
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                        "required": ["oldText", "newText"],
                        "additionalProperties": False,
                    },
                },
                "dryRun": {"type": "boolean", "default": False},
            },
            "required": ["path", "edits"],
        },
        output_schema={
            "type": "object",
            "properties": {"received": {"type": "object", "additionalProperties": True}},
            "required": ["received"],
        },
    ),
    types.Tool(
        name="math.add",
        description="Add two integers.",
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
        output_schema={
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
            "x-fastmcp-wrap-result": True,
        },
    ),
    types.Tool(
        name="explode",
        description="Always fails with isError.",
        input_schema={"type": "object", "properties": {}},
    ),
]


def build_server() -> Server[Any]:
    async def list_tools(_context: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name in ("book-trip", "edit-file"):
            received = {"received": arguments}
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(received))], structured_content=received
            )
        if params.name == "math.add":
            total = {"result": arguments["a"] + arguments["b"]}
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(total))], structured_content=total
            )
        if params.name == "explode":
            return types.CallToolResult(content=[types.TextContent(type="text", text="boom: it broke")], is_error=True)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"Unknown tool: {params.name}")], is_error=True
        )

    return Server("keywords", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve() -> None:
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
