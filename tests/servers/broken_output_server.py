"""A low-level SDK server whose tools take plain arguments and list output schemas no type can be
made from, for generated-client tests: `look`'s refers to a definition it never has
(`#/$defs/gone`), `tally`'s is not valid JSON Schema (`minLength: "x"`). Every tool returns the
arguments it received as its structured content (`unresolved_refs_server.serve`)."""

from __future__ import annotations

from mcp import types
from unresolved_refs_server import serve  # the same echoing server, with these tools

TOOLS = [
    types.Tool(
        name="look",
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        output_schema={"type": "object", "properties": {"received": {"$ref": "#/$defs/gone"}}},
    ),
    types.Tool(
        name="tally",
        input_schema={"type": "object", "properties": {"count": {"type": "integer"}}, "additionalProperties": False},
        output_schema={"type": "object", "properties": {"received": {"minLength": "x"}}},
    ),
]


if __name__ == "__main__":
    serve(TOOLS, "broken-output")
