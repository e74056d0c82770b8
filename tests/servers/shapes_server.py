"""A low-level SDK server whose tool schemas are not one plain object, for generated-client tests.

`word_counts` returns a map (what FastMCP and MCPServer declare for a tool returning `dict[str, int]`),
`find` takes a root `anyOf` of two argument shapes, `total` takes a map of numbers, and `pages` takes
a nested model whose array items and union members are constrained plain values.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name="word_counts",
        description="Count each word of a text.",
        input_schema={
            "type": "object",
            "properties": {"text": {"title": "Text", "type": "string"}},
            "required": ["text"],
            "title": "word_countsArguments",
        },
        output_schema={"additionalProperties": {"type": "integer"}, "title": "word_countsDictOutput", "type": "object"},
    ),
    types.Tool(
        name="find",
        description="Find a record by id or by name; returns the arguments as received.",
        input_schema={
            "type": "object",
            "anyOf": [
                {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
                {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            ],
        },
        output_schema={
            "type": "object",
            "properties": {"received": {"type": "object", "additionalProperties": True}},
            "required": ["received"],
        },
    ),
    types.Tool(
        name="pages",
        description="Measure pages of a document: each page's size, in the order asked.",
        input_schema={
            "type": "object",
            "properties": {
                "source": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "pages": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                        "range": {
                            "anyOf": [
                                {"type": "string", "pattern": "^[0-9]+-[0-9]+$"},
                                {"type": "integer", "minimum": 1},
                            ]
                        },
                    },
                    "required": ["path"],
                }
            },
            "required": ["source"],
        },
        output_schema={
            "type": "object",
            "properties": {"sizes": {"type": "array", "items": {"type": "integer", "minimum": 0}}},
            "required": ["sizes"],
        },
    ),
    types.Tool(
        name="total",
        description="Add up named amounts.",
        input_schema={"type": "object", "additionalProperties": {"type": "number"}},
        output_schema={
            "type": "object",
            "properties": {"result": {"type": "number"}},
            "required": ["result"],
            "x-fastmcp-wrap-result": True,
        },
    ),
]


def build_server() -> Server[Any]:
    async def list_tools(_context: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        structured: dict[str, Any]
        if params.name == "word_counts":
            structured = {}
            for word in str(arguments["text"]).split():
                structured[word] = structured.get(word, 0) + 1
        elif params.name == "find":
            structured = {"received": arguments}
        elif params.name == "pages":
            structured = {"sizes": [100 * page for page in arguments["source"].get("pages", [])]}
        elif params.name == "total":
            structured = {"result": sum(arguments.values())}
        else:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"Unknown tool: {params.name}")], is_error=True
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(structured))], structured_content=structured
        )

    return Server("shapes", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve() -> None:
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
