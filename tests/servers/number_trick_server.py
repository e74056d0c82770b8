"""A low-level SDK server for run-time check tests whose tools echo the arguments they received as
their structured content (`unresolved_refs_server.serve`), with schemas a value can trip `jsonschema`
on: `transfer` takes an amount in cents (`multipleOf: 0.01`) and one account; `report` takes any
object and promises a result whose balance is in cents, whose status is `ok` and whose `tree` is
arrays of arrays. An integer of 400 digits divided by 0.01 overflows a float, and a tree 150 levels
deep is more than `jsonschema` can follow on Python's stack."""

from __future__ import annotations

from mcp import types
from unresolved_refs_server import serve

CENTS = {"type": "number", "multipleOf": 0.01}

TOOLS = [
    types.Tool(
        name="transfer",
        input_schema={
            "type": "object",
            "properties": {"amount": CENTS, "account": {"enum": ["savings"]}},
            "required": ["amount", "account"],
        },
    ),
    types.Tool(
        name="report",
        input_schema={"type": "object"},
        output_schema={
            "type": "object",
            "properties": {
                "received": {
                    "type": "object",
                    "properties": {
                        "balance": CENTS,
                        "status": {"enum": ["ok"]},
                        "tree": {"$ref": "#/$defs/tree"},
                    },
                    "required": ["status"],
                }
            },
            "required": ["received"],
            "$defs": {"tree": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/tree"}}, {"type": "null"}]}},
        },
    ),
]


if __name__ == "__main__":
    serve(TOOLS, "numbers")
