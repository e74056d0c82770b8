"""A low-level SDK server whose tool listing never ends and grows heavy: every `tools/list` page
holds one tool with a 20,000-character description and a new 10,000-character cursor. A client
without a bound on what one listing holds keeps it all until `max_pages`.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

PADDING = "x" * 20_000


def _next(params: types.PaginatedRequestParams | None) -> tuple[int, str]:
    """This page's number and a fresh cursor for the next one, never the same twice."""
    number = int(params.cursor.split(":")[0]) if params is not None and params.cursor else 0
    return number, f"{number + 1}:" + "c" * 10_000


def build_server() -> Server[Any]:
    async def list_tools(_context: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        number, cursor = _next(params)
        tool = types.Tool(name=f"tool_{number}", description=PADDING, input_schema={"type": "object"})
        return types.ListToolsResult(tools=[tool], next_cursor=cursor)

    return Server("heavy-pages", version="1.0.0", on_list_tools=list_tools)


async def _serve() -> None:
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
