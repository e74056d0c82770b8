"""A low-level SDK server (2026-07-28) that pages tools, resources, templates and prompts.

`MCPServer` never paginates, so this one is built on `mcp.server.lowlevel.Server`; run it over
stdio as a subprocess, or connect to `build_server()` in-process. `PAGING_SERVER_REVISED=N` changes
tool N's description.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

PAGE_SIZE = 3
REVISED = int(os.environ.get("PAGING_SERVER_REVISED", "-1"))
"""The index of a tool whose description says it was revised: one tool's text changed between starts."""


def _page(items: list[Any], params: types.PaginatedRequestParams | None) -> tuple[list[Any], str | None]:
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = start + PAGE_SIZE
    return items[start:end], (str(end) if end < len(items) else None)


def build_server(tool_count: int = 8, list_log: str | None = None) -> Server[Any]:
    """`list_log`: a file that gets one line each time a client starts listing the tools (a poll)."""
    tools = [
        types.Tool(
            name=f"tool-{index:03d}",
            description=f"Tool number {index}." + (" Revised." if index == REVISED else ""),
            input_schema={
                "type": "object",
                "properties": {"count": {"type": "integer", "minimum": 0}},
                "required": ["count"],
            },
        )
        for index in range(tool_count)
    ]
    resources = [types.Resource(uri=f"file:///data/{index}.txt", name=f"data-{index}") for index in range(7)]
    templates = [
        types.ResourceTemplate(uri_template=f"file:///logs/{{day}}/{index}.log", name=f"log-{index}")
        for index in range(4)
    ]
    prompts = [types.Prompt(name=f"prompt-{index}", description=f"Prompt {index}.") for index in range(5)]

    async def list_tools(_context: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        if list_log is not None and (params is None or not params.cursor):
            with open(list_log, "a", encoding="utf-8") as log:
                log.write("tools/list\n")
        page, cursor = _page(tools, params)
        return types.ListToolsResult(tools=page, next_cursor=cursor)

    async def list_resources(_context: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        page, cursor = _page(resources, params)
        return types.ListResourcesResult(resources=page, next_cursor=cursor)

    async def list_templates(
        _context: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        page, cursor = _page(templates, params)
        return types.ListResourceTemplatesResult(resource_templates=page, next_cursor=cursor)

    async def list_prompts(_context: Any, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        page, cursor = _page(prompts, params)
        return types.ListPromptsResult(prompts=page, next_cursor=cursor)

    return Server(
        "paging",
        version="2.1.0",
        on_list_tools=list_tools,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_list_prompts=list_prompts,
    )


async def _serve(tool_count: int, list_log: str | None) -> None:
    server = build_server(tool_count, list_log)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve, int(sys.argv[1]) if len(sys.argv) > 1 else 8, sys.argv[2] if len(sys.argv) > 2 else None)
