"""A real catalog replayed over stdio: `python benchmarks/replay_server.py SNAPSHOT [--ttl-ms N]`.

A low-level SDK server that lists exactly the tools, resources, templates and prompts of a committed
snapshot (`golden/everything/snapshot.json` is `@modelcontextprotocol/server-everything`'s), in
either protocol era, so a benchmark runs every client against the same catalog and the same
server start-up. `--ttl-ms` declares the 2026-07-28 caching hint on its list results and discovery.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.server import CacheHint
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

CACHEABLE = ("server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list")


def build_server(snapshot: dict[str, Any], ttl_ms: int) -> Server[Any]:
    """A server listing `snapshot`'s catalog in one page each; a call answers with an empty text."""
    tools = [types.Tool.model_validate(tool) for tool in snapshot.get("tools", [])]
    resources = [types.Resource.model_validate(item) for item in snapshot.get("resources", [])]
    templates = [types.ResourceTemplate.model_validate(item) for item in snapshot.get("resourceTemplates", [])]
    prompts = [types.Prompt.model_validate(item) for item in snapshot.get("prompts", [])]

    async def list_tools(_context: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def list_resources(_context: Any, _params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resources)

    async def list_templates(_context: Any, _params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def list_prompts(_context: Any, _params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=prompts)

    async def call_tool(_context: Any, _params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="")])

    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if resources or templates:
        handlers |= {"on_list_resources": list_resources, "on_list_resource_templates": list_templates}
    if prompts:
        handlers["on_list_prompts"] = list_prompts
    info = snapshot.get("serverInfo") or {}
    hints: Any = {method: CacheHint(ttl_ms=ttl_ms, scope="public") for method in CACHEABLE} if ttl_ms else None
    return Server(
        str(info.get("name", snapshot["server"])),
        version=str(info.get("version", "")),
        instructions=snapshot.get("instructions"),
        cache_hints=hints,
        **handlers,
    )


async def _serve(snapshot: dict[str, Any], ttl_ms: int) -> None:
    server = build_server(snapshot, ttl_ms)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--ttl-ms", type=int, default=0)
    options = parser.parse_args()
    anyio.run(_serve, json.loads(options.snapshot.read_text(encoding="utf-8")), options.ttl_ms)
