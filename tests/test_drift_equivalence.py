"""No false positives: a catalog compared with itself, or with a re-spelled copy of itself (entries and
properties reordered, sets shuffled, `$ref`s inlined, nullable written another way), reports nothing."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from codegen.drift import compare_snapshots
from codegen.snapshot import Snapshot, load_snapshot, parse_snapshot
from tests.drift_helpers import obj, snap, tool

REPO = Path(__file__).resolve().parent.parent
FILES = sorted(REPO.glob("golden/*/snapshot.json"))

NODE = {
    "type": "object",
    "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
}
RICH = [
    snap(
        (
            tool(
                "API-get-user",
                {
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "$defs": {
                        "Address": obj(
                            {"street": {"type": "string"}, "zip": {"type": ["string", "null"], "pattern": "^[0-9]+$"}},
                            ("street",),
                        ),
                        "Kind": {"enum": ["a", "b", "c"], "type": "string"},
                        "Node": NODE,
                    },
                    "type": "object",
                    "properties": {
                        "from": {"type": "string", "format": "date-time"},
                        "class": {"$ref": "#/$defs/Kind", "default": "a"},
                        "type": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None},
                        "title": {"type": "string", "description": "A property named like a keyword."},
                        "tree": {"$ref": "#/$defs/Node"},
                        "filter": {"type": ["boolean", "string"]},
                        "$meta": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
                        "shape": {
                            "oneOf": [
                                obj(
                                    {"kind": {"const": "circle"}, "r": {"type": "number", "exclusiveMinimum": 0}},
                                    ("kind", "r"),
                                ),
                                obj({"kind": {"const": "square"}, "side": {"type": "number"}}, ("kind", "side")),
                            ]
                        },
                        "merged": {
                            "allOf": [obj({"a": {"type": "string"}}, ("a",)), obj({"b": {"type": "integer"}}, ("b",))]
                        },
                        "tags": {
                            "type": "array",
                            "items": {"type": "string", "maxLength": 20},
                            "uniqueItems": True,
                            "maxItems": 9,
                        },
                        "big": {"type": "integer", "maximum": 9007199254740991},
                    },
                    "required": ["from", "class", "tree"],
                    "additionalProperties": False,
                },
                {
                    "$ref": "#/$defs/Out",
                    "$defs": {"Out": obj({"result": {"type": "string", "nullable": True}}, ("result",))},
                },
                description="Get a user.",
                annotations={"readOnlyHint": True, "openWorldHint": False},
            ),
            tool("math.multiply", obj({"a": {"type": "number"}, "b": {"type": "number"}}, ("a", "b"))),
            tool("ping"),
        ),
        resources=({"uri": "file:///readme", "name": "readme", "mimeType": "text/markdown"},),
        templates=({"uriTemplate": "users://{id}/posts{?limit}", "name": "posts"},),
        prompts=({"name": "review", "arguments": [{"name": "code", "required": True}, {"name": "style"}]},),
        instructions="Be careful.",
    ),
]


def _snapshots() -> list[tuple[str, Snapshot]]:
    return [(path.relative_to(REPO).as_posix(), load_snapshot(path)) for path in FILES] + [
        (f"rich-{index}", snapshot) for index, snapshot in enumerate(RICH)
    ]


def _reaches(node: Any, ref: str, root: Any, seen: frozenset[str]) -> bool:
    """Whether expanding `node` leads back to `ref` (so inlining it could never finish)."""
    if isinstance(node, dict):
        target = node.get("$ref")
        if isinstance(target, str):
            if target == ref:
                return True
            if target not in seen and target.startswith("#/"):
                return _reaches(_follow(root, target), ref, root, seen | {target})
        return any(_reaches(value, ref, root, seen) for value in node.values())
    if isinstance(node, list):
        return any(_reaches(value, ref, root, seen) for value in node)
    return False


def _follow(root: Any, ref: str) -> Any:
    for part in ref[2:].split("/"):
        root = root[part]
    return root


def _respell(node: Any, root: Any, rng: random.Random) -> Any:
    """Inline every non-recursive `$ref`, shuffle key order and set-like lists, swap nullable spellings."""
    if isinstance(node, list):
        return [_respell(value, root, rng) for value in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/") and not _reaches(_follow(root, ref), ref, root, frozenset({ref})):
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        return _respell({**copy.deepcopy(_follow(root, ref)), **siblings}, root, rng)
    out = {key: _respell(value, root, rng) for key, value in node.items()}
    for key in ("required", "enum", "anyOf", "oneOf"):
        if isinstance(out.get(key), list):
            rng.shuffle(out[key])
    if isinstance(out.get("type"), list) and "null" in out["type"] and len(out["type"]) == 2:
        other = next(item for item in out.pop("type") if item != "null")
        out = {**out, "anyOf": [{"type": other}, {"type": "null"}]}
    elif isinstance(out.get("type"), list):
        rng.shuffle(out["type"])
    keys = list(out)
    rng.shuffle(keys)
    return {key: out[key] for key in keys}


def _respell_schema(schema: Any, rng: random.Random) -> Any:
    result = _respell(schema, schema, rng)
    if "$ref" not in json.dumps(result):
        result.pop("$defs", None)
    return result


def respelled(snapshot: Snapshot, seed: int) -> Snapshot:
    rng = random.Random(seed)
    document = copy.deepcopy(snapshot.to_json())
    for tool_entry in document["tools"]:
        for key in ("inputSchema", "outputSchema"):
            if key in tool_entry:
                tool_entry[key] = _respell_schema(tool_entry[key], rng)
    for key in ("tools", "resources", "resourceTemplates", "prompts"):
        rng.shuffle(document[key])
    for prompt in document["prompts"]:
        rng.shuffle(prompt.get("arguments") or [])
    return parse_snapshot(json.dumps(document), "respelled")


@pytest.mark.parametrize(("label", "snapshot"), _snapshots(), ids=lambda value: value if isinstance(value, str) else "")
def test_snapshot_against_itself_reports_nothing(label: str, snapshot: Snapshot) -> None:
    assert compare_snapshots(snapshot, snapshot) == []


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("label", "snapshot"), _snapshots(), ids=lambda value: value if isinstance(value, str) else "")
def test_respelled_copy_reports_nothing(label: str, snapshot: Snapshot, seed: int) -> None:
    """Nothing but `model-renamed`, and that only for tools whose `$ref`s were inlined or whose unions
    were shuffled: the generator names a model after the `$defs` key it came from, and an inline union
    member by its place, so either renames a class callers import."""
    copy_ = respelled(snapshot, seed)
    assert copy_.canonical_bytes() != snapshot.canonical_bytes() or not snapshot.tools
    referencing = {tool["name"] for tool in snapshot.tools if re.search(r'"(\$ref|anyOf|oneOf)"', json.dumps(tool))}
    for found in (compare_snapshots(snapshot, copy_), compare_snapshots(copy_, snapshot)):
        assert [finding for finding in found if finding.rule != "model-renamed"] == []
        assert {finding.name for finding in found} <= referencing


def test_rich_catalog_is_covered() -> None:
    """The hand-built catalog really exercises recursion, root-level `$ref` and keyword-named properties."""
    text = json.dumps(RICH[0].to_json())
    for needle in ('"#/$defs/Node"', '"$ref": "#/$defs/Out"', '"from"', '"class"', '"allOf"', '"nullable"'):
        assert needle in text
