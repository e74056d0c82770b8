"""A low-level SDK server over Streamable HTTP whose `tools/list` answer is one event of several MiB,
as ToolUniverse's 2,720 tools are (FastMCP answers on an event stream and does not paginate).

    python large_catalog_server.py PORT TOOLS
"""

from __future__ import annotations

import argparse
from typing import Any

import uvicorn
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server


def build_server(count: int) -> Server[Any]:
    tools = [
        types.Tool(
            name=f"lookup_{index:04d}",
            description=f"Look up record {index} in its registry. " + "Returns its fields. " * 100,
            input_schema={"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        )
        for index in range(count)
    ]

    async def list_tools(
        _context: ServerRequestContext[Any, Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    return Server("large-catalog", on_list_tools=list_tools)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("tools", type=int)
    arguments = parser.parse_args()
    app = build_server(arguments.tools).streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=arguments.port, log_level="warning")


if __name__ == "__main__":
    main()
