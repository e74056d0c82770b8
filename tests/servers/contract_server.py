"""A hand-written JSON-RPC stdio server that shows a client exactly what reached it (issue 13).

For each schema in `FAMILIES` it lists two tools: `send_<family>` takes the schema as its input and
answers with the arguments it received, re-encoded with `json.dumps` from the decoded request line
(key order and number types as they came: `1.0` stays `1.0`, `"1"` stays a string), and
`get_<family>` returns its `reply` argument as `structuredContent` under the schema as its output
schema. It checks nothing itself, so whatever a client lets through arrives unchanged.

`--without-output-schemas` lists the tools without their output schemas: the SDK then has nothing
to check a result against, and only a generated client's snapshot does.
"""

from __future__ import annotations

import json
import sys
from typing import Any

LEGACY_VERSION = "2025-06-18"


def _object(properties: dict[str, Any], **keywords: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **keywords}


FAMILIES: dict[str, dict[str, Any]] = {
    # refused by the models before, though the schema allows them
    "pattern_properties": _object(
        {
            "opts": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "patternProperties": {"^x-": {"type": "integer"}},
                "additionalProperties": False,
            }
        }
    ),
    "unevaluated_properties": _object(
        {
            "opts": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "if": {"required": ["a"]},
                "then": {"properties": {"b": {"type": "integer"}}},
                "unevaluatedProperties": False,
            }
        }
    ),
    "unevaluated_items": _object(
        {"row": {"type": "array", "prefixItems": [{"type": "string"}], "unevaluatedItems": False}}
    ),
    "other_type": _object({"v": {"minimum": 1, "maxLength": 2}}),
    # let through by the models before, though the schema refuses them
    "not": _object({"name": {"type": "string", "not": {"const": "admin"}}}),
    "const": _object({"ratio": {"const": 0.5}}),
    "enum": _object({"mode": {"enum": ["fast", 1, None]}}),
    "unique_items": _object({"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}),
    "min_contains": _object(
        {"nums": {"type": "array", "contains": {"type": "integer", "minimum": 10}, "minContains": 2}}
    ),
    "all_of": _object({"n": {"allOf": [{"type": "integer", "minimum": 1}, {"maximum": 5}]}}),
    "dependent_required": _object(
        {"card": {"type": "string"}, "billing": {"type": "string"}}, dependentRequired={"card": ["billing"]}
    ),
    "dependent_schemas": _object(
        {"card": {"type": "string"}, "cvc": {"type": "string"}},
        dependentSchemas={"card": {"required": ["cvc"]}},
    ),
    "legacy_dependencies": _object(
        {"card": {"type": "string"}, "billing": {"type": "string"}, "cvc": {"type": "string"}},
        **{"$schema": "http://json-schema.org/draft-07/schema#"},
        dependencies={"card": ["billing"], "cvc": {"required": ["card"]}},
    ),
    # draft-07's tuple form of `items`: the first items are typed by place, any further one is anything
    "legacy_tuple": _object(
        {"row": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}},
        **{"$schema": "http://json-schema.org/draft-07/schema#"},
    ),
    "if_then_else": _object(
        {"country": {"type": "string"}, "postcode": {"type": "string"}},
        **{
            "if": {"properties": {"country": {"const": "US"}}, "required": ["country"]},
            "then": {"properties": {"postcode": {"pattern": "^[0-9]{5}$"}}},
            "else": {"properties": {"postcode": {"maxLength": 10}}},
        },
    ),
    "one_of": _object({"v": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}),
    "nullable": _object({"note": {"type": "string"}}),
    # changed on the way before
    "nested_keys": _object({"opts": {"type": "object", "properties": {"a": {"type": "string"}}}}),
    "min_properties": _object({"m": {"type": "object", "minProperties": 1}}),
    "no_coercion": _object({"count": {"type": "integer"}, "flag": {"type": "boolean"}}),
    "recursive": _object({"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}),
    # a root that invites more properties: the method takes them through `extra`, typed for them
    "open_root": _object({"name": {"type": "string"}}, additionalProperties={"type": "integer"}),
    # a closed root: its method has no `extra`
    "closed_root": _object({"name": {"type": "string"}}, additionalProperties=False),
    # patterns that backtrack for years in Python's `re` on a 41-character text (tests/hostile/test_runtime_checks.py)
    "backtracking": _object(
        {
            "words": {"type": "string", "pattern": "^([a-z]+ ?)*$"},
            "letters": {"type": "string", "pattern": "^(a+)+$"},
            "tail": {"type": "string", "pattern": "^(a+)+(?<!b)$"},  # a lookbehind: only Python's engine compiles it
            "counts": {
                "type": "object",
                "patternProperties": {"^(a+)+$": {"type": "integer"}},
                "additionalProperties": False,
            },
        }
    ),
}

TOOLS = [
    tool
    for family, schema in sorted(FAMILIES.items())
    for tool in (
        {"name": f"send_{family}", "inputSchema": schema},
        {
            "name": f"get_{family}",
            "inputSchema": {"type": "object", "properties": {"reply": {}}, "required": ["reply"]},
            "outputSchema": schema,
        },
    )
] + [
    # answers with a number JSON has none for, as `json.dumps` writes it: `NaN`, `Infinity`
    {
        "name": "get_no_json_number",
        "inputSchema": {"type": "object", "properties": {"value": {"enum": ["nan", "inf", "-inf"]}}},
        "outputSchema": _object({"x": {"type": "number"}}),
    }
]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def handle(message: dict[str, Any], tools: list[dict[str, Any]]) -> None:
    method, request_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if request_id is None:  # a notification
        return
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "contract", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        name, arguments = params["name"], params.get("arguments")
        if name == "get_no_json_number":
            result = {"content": [], "structuredContent": {"x": float(arguments["value"])}}
        elif name.startswith("get_"):
            result = {"content": [], "structuredContent": arguments["reply"]}
        else:
            result = {"content": [{"type": "text", "text": json.dumps(arguments)}]}
    elif method == "ping":
        result = {}
    else:
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})
        return
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def main() -> None:
    tools = TOOLS
    if "--without-output-schemas" in sys.argv:
        tools = [{key: value for key, value in tool.items() if key != "outputSchema"} for tool in TOOLS]
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line), tools)


if __name__ == "__main__":
    main()
