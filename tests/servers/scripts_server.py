"""A low-level SDK server whose tools are named in other scripts than Latin, for naming rules 5, and
with Latin letters that have no ASCII form, for naming rules 7.

A Chinese `统计字数` (as tmcp's quick start names it), a Russian `получить_погоду`, a mixed
`get_天气`, and three that fold onto those: `统计字数` with a zero-width joiner in it, `получить_погоду`
ending in a right-to-left override, and `get_天气` in fullwidth letters (U+FF47 U+FF45 U+FF54, NFKC's `get`);
a German `straße_suchen` beside a `strasse_suchen` (its spelling in ASCII) and a Danish `smørbrød`
with a Polish argument `łódź`; each answers with the tool's name and the arguments it received, as
structured content.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

ECHOED = {
    "type": "object",
    "properties": {"tool": {"type": "string"}, "received": {"type": "object"}},
    "required": ["tool", "received"],
}
TOOLS = [
    types.Tool(
        name="统计字数",
        title="Zähle Wörter",
        input_schema={
            "type": "object",
            "properties": {"文本": {"type": "string"}, "max-words": {"type": "integer"}},
            "required": ["文本"],
        },
        output_schema=ECHOED,
    ),
    types.Tool(
        name="получить_погоду",
        input_schema={"type": "object", "properties": {"город": {"type": "string"}}, "required": ["город"]},
        output_schema=ECHOED,
    ),
    types.Tool(name="get_天气", input_schema={"type": "object", "properties": {}}, output_schema=ECHOED),
    types.Tool(name="统计\u200d字数", input_schema={"type": "object", "properties": {}}, output_schema=ECHOED),
    types.Tool(name="получить_погоду\u202e", input_schema={"type": "object", "properties": {}}, output_schema=ECHOED),
    types.Tool(name="\uff47\uff45\uff54_天气", input_schema={"type": "object", "properties": {}}, output_schema=ECHOED),
    types.Tool(
        name="straße_suchen",
        input_schema={
            "type": "object",
            "properties": {"straße": {"type": "string"}, "größe": {"type": "integer"}},
            "required": ["straße"],
        },
        output_schema=ECHOED,
    ),
    types.Tool(name="strasse_suchen", input_schema={"type": "object", "properties": {}}, output_schema=ECHOED),
    types.Tool(
        name="smørbrød",
        input_schema={"type": "object", "properties": {"łódź": {"type": "string"}}},
        output_schema=ECHOED,
    ),
]


def build_server() -> Server[Any]:
    async def list_tools(_context: Any, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        echoed = {"tool": params.name, "received": params.arguments or {}}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(echoed))], structured_content=echoed
        )

    return Server("scripts", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve() -> None:
    server = build_server()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
