"""A low-level SDK server that declares how long its listings stay fresh (protocol 2026-07-28 `ttlMs`)
and counts the list requests it is sent, for `sync`'s reuse of a fresh listing.

    python ttl_server.py COUNT_FILE TTL_MS

Each request for `server/discover` or a list method appends its method's name as one line to
COUNT_FILE, so a test sees what reached the server across processes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.server import CacheHint
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

COUNT_FILE = Path(sys.argv[1])
TTL_MS = int(sys.argv[2])
TOOL = types.Tool(
    name="echo",
    description="Echo the text.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
)


def count(method: str) -> None:
    with COUNT_FILE.open("a", encoding="utf-8") as handle:
        handle.write(method + "\n")


async def list_tools(_context: Any, _params: Any) -> types.ListToolsResult:
    count("tools/list")
    return types.ListToolsResult(tools=[TOOL])


async def list_prompts(_context: Any, _params: Any) -> types.ListPromptsResult:
    count("prompts/list")
    return types.ListPromptsResult(prompts=[types.Prompt(name="greet", description="Say hello.")])


async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=str((params.arguments or {}).get("text")))]
    )


async def main() -> None:
    hint = CacheHint(ttl_ms=TTL_MS, scope="private")
    methods: Any = ("server/discover", "tools/list", "prompts/list")
    server = Server(
        "ttl",
        version="1.0.0",
        cache_hints=dict.fromkeys(methods, hint),
        on_list_tools=list_tools,
        on_list_prompts=list_prompts,
        on_call_tool=call_tool,
    )
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
