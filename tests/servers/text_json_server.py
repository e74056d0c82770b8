"""A low-level SDK server whose results a generated client reads without a model.

`report` and `garbled` declare an output schema but send their result only as JSON text, as servers
in the wild do (`garbled`'s text is not JSON); `mixed` declares none and answers with one block of
each content kind. `sampled` is listed only to a client that declares the sampling capability,
in `server/discover` or in `initialize`.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

REPORT_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
}
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
EMPTY = {"type": "object", "properties": {}}

TOOLS = [
    types.Tool(name="report", input_schema=EMPTY, output_schema=REPORT_SCHEMA),
    types.Tool(name="garbled", input_schema=EMPTY, output_schema=REPORT_SCHEMA),
    types.Tool(name="mixed", input_schema=EMPTY),
]

SAMPLED = types.Tool(name="sampled", input_schema=EMPTY)


def mixed_content() -> list[types.ContentBlock]:
    return [
        types.TextContent(type="text", text="first"),
        types.ImageContent(type="image", data=PIXEL, mime_type="image/png"),
        types.AudioContent(type="audio", data="UklGRg==", mime_type="audio/wav"),
        types.EmbeddedResource(
            type="resource",
            resource=types.TextResourceContents(uri="memo://note", mime_type="text/plain", text="a note"),
        ),
        types.ResourceLink(type="resource_link", uri="memo://other", name="other"),
        types.TextContent(type="text", text="second"),
    ]


def build_server() -> Server[Any]:
    async def list_tools(context: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        declared = context.session.client_capabilities
        sampling = declared is not None and declared.sampling is not None
        return types.ListToolsResult(tools=TOOLS + ([SAMPLED] if sampling else []))

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "report":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text='{"city": "Oslo", "celsius": 4.5}')]
            )
        if params.name == "garbled":
            return types.CallToolResult(content=[types.TextContent(type="text", text="Oslo: 4.5 degrees")])
        return types.CallToolResult(content=mixed_content())

    return Server("text-json", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve() -> None:
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
