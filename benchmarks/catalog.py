"""Synthetic tool catalogs for the benchmark: the same seed always gives the same tools.

The schemas carry what slows a generator down in real catalogs: nested objects, arrays of objects,
enums, nullable unions, `$defs` with `$ref`, and an output schema on every second tool.
"""

from __future__ import annotations

import random
from typing import Any

SEED = 20260728
VERBS = ("get", "list", "create", "update", "delete", "search", "sync", "export")
NOUNS = ("user", "order", "invoice", "ticket", "project", "report", "asset", "event", "note", "team")


def _scalar(rng: random.Random, index: int) -> dict[str, Any]:
    kind = rng.choice(("string", "integer", "number", "boolean", "enum", "nullable", "format"))
    if kind == "string":
        return {"type": "string", "description": f"Free text {index}.", "maxLength": rng.randint(8, 256)}
    if kind == "integer":
        low = rng.randint(0, 10)
        return {"type": "integer", "minimum": low, "maximum": low + rng.randint(1, 1000), "default": low}
    if kind == "number":
        return {"type": "number", "exclusiveMinimum": 0}
    if kind == "boolean":
        return {"type": "boolean", "default": rng.random() < 0.5}
    if kind == "enum":
        return {"type": "string", "enum": rng.sample(["low", "medium", "high", "urgent", "none", "auto"], 3)}
    if kind == "nullable":
        if rng.random() < 0.5:
            return {"type": ["string", "null"], "description": "May be null."}
        return {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "An id or null."}
    return {"type": "string", "format": rng.choice(("date-time", "date", "uuid", "email"))}


def _object(rng: random.Random, depth: int, width: int) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for index in range(width):
        name = f"{rng.choice(NOUNS)}_{rng.choice(('id', 'name', 'count', 'kind', 'state', 'at'))}_{index}"
        roll = rng.random()
        if depth > 0 and roll < 0.2:
            properties[name] = _object(rng, depth - 1, max(2, width // 2))
        elif depth > 0 and roll < 0.35:
            properties[name] = {"type": "array", "items": _object(rng, depth - 1, max(2, width // 2))}
        else:
            properties[name] = _scalar(rng, index)
    required = sorted(rng.sample(sorted(properties), k=max(1, len(properties) // 3)))
    return {"type": "object", "properties": properties, "required": required}


def _tool(rng: random.Random, index: int) -> dict[str, Any]:
    name = f"{rng.choice(VERBS)}-{rng.choice(NOUNS)}-{index:04d}"
    schema = _object(rng, depth=2, width=rng.randint(3, 8))
    schema["$defs"] = {
        "Paging": {
            "type": "object",
            "properties": {"cursor": {"type": ["string", "null"]}, "limit": {"type": "integer", "minimum": 1}},
        },
        "Filter": {
            "type": "object",
            "properties": {
                "field": {"type": "string"},
                "op": {"type": "string", "enum": ["eq", "ne", "lt", "gt"]},
                "value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]},
            },
            "required": ["field", "op"],
        },
    }
    schema["properties"]["paging"] = {"$ref": "#/$defs/Paging"}
    schema["properties"]["filters"] = {"type": "array", "items": {"$ref": "#/$defs/Filter"}}
    tool: dict[str, Any] = {
        "name": name,
        "description": f"{name.replace('-', ' ').capitalize()}: a synthetic tool for the benchmark.",
        "inputSchema": schema,
    }
    if index % 2 == 0:
        tool["outputSchema"] = _object(rng, depth=1, width=rng.randint(2, 6))
    return tool


def make_tools(count: int, seed: int = SEED) -> list[dict[str, Any]]:
    """`count` tools, in wire shape (camelCase keys), identical for the same `count` and `seed`."""
    rng = random.Random(seed)
    return [_tool(rng, index) for index in range(count)]


def changed(tools: list[dict[str, Any]], how_many: int, seed: int = SEED + 1) -> list[dict[str, Any]]:
    """A copy of `tools` with `how_many` of them changed the way servers change: a new optional
    argument, a removed required one, a narrowed enum, a new description."""
    rng = random.Random(seed)
    result = [dict(tool) for tool in tools]
    for position, index in enumerate(sorted(rng.sample(range(len(tools)), how_many))):
        tool = result[index]
        schema = {**tool["inputSchema"], "properties": dict(tool["inputSchema"]["properties"])}
        if position % 3 == 0:
            schema["properties"]["added_flag"] = {"type": "boolean"}
        elif position % 3 == 1:
            schema["required"] = [*schema.get("required", []), "paging"]
        else:
            tool["description"] = tool["description"] + " Changed."
        tool["inputSchema"] = schema
    return result
