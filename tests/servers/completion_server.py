"""A stdio server that declares `completions` and answers `completion/complete` with what it was
asked, for the generated clients' completion methods (tests/test_client_completions.py).

Its names are chosen to collide: tools `complete_prompt` and `complete_template` (the client's own
completion methods from naming rules 14), a prompt whose name and argument would close a `Literal`
and start a statement, and a prompt without arguments (nothing to complete). Every completion
answers `["<ref>", "<argument>=<value>", "<context as sorted JSON>"]`, `total` 7 and `hasMore`.

    python completion_server.py [--no-completions]
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

HOSTILE_PROMPT = 'x"]) -> None: ...\nimport os  # '
HOSTILE_ARGUMENT = 'a"]\\b'
TEMPLATE = "files://{folder}/{name}"

PROMPTS = [
    types.Prompt(
        name="review",
        arguments=[
            types.PromptArgument(name="language", required=True),
            types.PromptArgument(name="style"),
        ],
    ),
    types.Prompt(name=HOSTILE_PROMPT, arguments=[types.PromptArgument(name=HOSTILE_ARGUMENT)]),
    types.Prompt(name="greet"),
]
TOOLS = [
    types.Tool(name=name, input_schema={"type": "object", "properties": {"q": {"type": "string"}}})
    for name in ("complete_prompt", "complete_template")
]


def build_server(completions: bool) -> Server[Any]:
    async def list_tools(_context: ServerRequestContext[Any, Any], _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(
        _context: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(text=f"tool {params.name}")])

    async def list_prompts(_context: ServerRequestContext[Any, Any], _params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=PROMPTS)

    async def get_prompt(
        _context: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        text = types.TextContent(text=json.dumps(params.arguments or {}, sort_keys=True))
        return types.GetPromptResult(messages=[types.PromptMessage(role="user", content=text)])

    async def list_templates(
        _context: ServerRequestContext[Any, Any], _params: Any
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[types.ResourceTemplate(name="file", uri_template=TEMPLATE)]
        )

    async def list_resources(_context: ServerRequestContext[Any, Any], _params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def complete(
        _context: ServerRequestContext[Any, Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        ref = params.ref
        asked = f"prompt {ref.name}" if isinstance(ref, types.PromptReference) else f"template {ref.uri}"
        chosen = None if params.context is None else params.context.arguments
        values = [asked, f"{params.argument.name}={params.argument.value}", json.dumps(chosen, sort_keys=True)]
        return types.CompleteResult(completion=types.Completion(values=values, total=7, has_more=True))

    return Server(
        "completion",
        version="1.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_completion=complete if completions else None,
    )


async def _serve(completions: bool) -> None:
    server = build_server(completions)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-completions", action="store_true")
    anyio.run(_serve, not parser.parse_args().no_completions)


if __name__ == "__main__":
    main()
