"""A low-level MCP server over stdio serving a synthetic catalog, paging `tools/list` 50 at a time.

`python benchmarks/server.py COUNT`: the catalog is `benchmarks.catalog.make_tools(COUNT)`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.catalog import make_tools

PAGE_SIZE = 50


def build_server(count: int) -> Server[Any]:
    """A server listing `count` synthetic tools in pages of 50; every call echoes a small structured result."""
    tools = [types.Tool.model_validate(tool) for tool in make_tools(count)]

    async def list_tools(_context: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + PAGE_SIZE
        return types.ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="ok")],
            structured_content={"echo": str(arguments.get("text", "")), "count": len(arguments)},
        )

    return Server("bench", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve(count: int) -> None:
    server = build_server(count)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve, int(sys.argv[1]))
