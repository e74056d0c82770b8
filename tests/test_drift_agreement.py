"""Drift's severity agrees with what regenerating does to code that already calls the package.

For each case a server's catalog changes from `before` to `after`. The package generated from
`before` is called by user code written as a typed user would (every parameter by keyword, input
models built, every output field read, literals matched exhaustively); the package is then
regenerated from `after` in the same place, and the same code is type-checked (`mypy --strict`) and
run against an in-process server that serves the `after` catalog and refuses arguments its schemas
refuse. A change drift calls safe must leave that code passing both; a breaking one must fail one of
them (or be listed in `OVER_CAUTIOUS` with the reason docs/drift.md gives); a dangerous one that
fails them must say so in its docs/drift.md row. All cases share one project, one `generate` per
side and one mypy run per side, each error attributed by its file.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import types
from mcp.server.lowlevel import Server

from codegen.drift import compare_snapshots
from codegen.drift.findings import Severity
from codegen.identifiers import NAMING_RULES
from codegen.snapshot.format import parse_snapshot
from tests.conftest import PYTHON, REPO, forget_generated, import_generated, write_config

pytestmark = pytest.mark.generated_mypy

JSON = dict[str, Any]
S: JSON = {"type": "string"}
INT: JSON = {"type": "integer"}
N: JSON = {"type": "number"}


def obj(properties: JSON, *required: str, **extra: Any) -> JSON:
    schema: JSON = {"type": "object", "properties": properties, **extra}
    if required:
        schema["required"] = list(required)
    return schema


@dataclass(frozen=True)
class Side:
    """One catalog, and what its server answers: structured content per tool (text when absent)."""

    tools: tuple[JSON, ...] = ()
    resources: tuple[JSON, ...] = ()
    templates: tuple[JSON, ...] = ()
    prompts: tuple[JSON, ...] = ()
    replies: Mapping[str, JSON] = field(default_factory=dict)
    naming_rules: int = NAMING_RULES

    def snapshot(self, server: str) -> JSON:
        return {
            "format": 5,
            "namingRules": self.naming_rules,
            "server": server,
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
            "tools": list(self.tools),
            "resources": list(self.resources),
            "resourceTemplates": list(self.templates),
            "prompts": list(self.prompts),
        }


@dataclass(frozen=True)
class Case:
    before: Side
    after: Side
    use: str
    """The body of `async def use(c: Client) -> None`, indented four spaces; `models` is the package's."""
    renames: Mapping[str, str] = field(default_factory=dict)


def tool(inp: JSON | None = None, out: JSON | None = None, name: str = "t", **extra: Any) -> JSON:
    entry: JSON = {"name": name, "inputSchema": inp if inp is not None else obj({}), **extra}
    if out is not None:
        entry["outputSchema"] = out
    return entry


def inputs(before: JSON, after: JSON, use: str) -> Case:
    """Tool `t` whose input schema changes; it returns text."""
    return Case(Side((tool(before),)), Side((tool(after),)), use)


def outputs(before: JSON, after: JSON, use: str, reply_before: JSON, reply_after: JSON) -> Case:
    """Tool `t` (no arguments) whose output schema changes; the servers answer the replies."""
    return Case(
        Side((tool(out=before),), replies={"t": reply_before}),
        Side((tool(out=after),), replies={"t": reply_after}),
        use,
    )


def by_rules_5(case: Case) -> Case:
    """The case in a package of naming rules 5, which a snapshot taken before rules 6 keeps."""
    return replace(case, before=replace(case.before, naming_rules=5), after=replace(case.after, naming_rules=5))


DANGLING: JSON = {"$ref": "#/$defs/nope"}
"""A property no type is made from: its `$ref` names nothing in the schema."""
OPTS = obj({"depth": INT, "kind": {"enum": ["x", "y"]}}, "depth")
POINT_DEFS = {"$defs": {"Point": obj({"x": N, "y": N}, "x", "y")}}
ITEMS_OUT = obj({"items": {"type": "array", "items": {"$ref": "#/$defs/Item"}}}, "items")
RES = {"uri": "file:///a", "name": "a", "mimeType": "text/plain"}
TPL = {"uriTemplate": "users://{id}/posts", "name": "posts"}
REVIEW = {"name": "review", "arguments": [{"name": "code", "required": True}, {"name": "lang"}]}

# Written before any was run; each `use` is what a typed user of the `before` package writes.
CASES: dict[str, Case] = {
    # -- inputs: breaking
    "in_required_added": inputs(obj({"a": S}, "a"), obj({"a": S, "b": S}, "a", "b"), '    await c.t(a="x")\n'),
    "in_required_added_default": inputs(
        obj({"a": S}, "a"), obj({"a": S, "b": {**S, "default": "z"}}, "a", "b"), '    await c.t(a="x")\n'
    ),
    "in_became_required": inputs(obj({"a": S, "b": S}, "a"), obj({"a": S, "b": S}, "a", "b"), '    await c.t(a="x")\n'),
    "in_property_removed": inputs(obj({"a": S, "b": S}), obj({"a": S}), '    await c.t(a="x", b="y")\n'),
    "in_nested_property_removed": inputs(
        obj({"opts": OPTS}),
        obj({"opts": obj({"depth": INT}, "depth")}),
        '    await c.t(opts=models.TInputOpts(depth=1, kind="x"))\n',
    ),
    "in_type_narrowed": inputs(obj({"n": N}, "n"), obj({"n": INT}, "n"), "    await c.t(n=1.5)\n    await c.t(n=2)\n"),
    "in_type_list_narrowed": inputs(
        obj({"v": {"type": ["string", "integer"]}}, "v"),
        obj({"v": S}, "v"),
        '    await c.t(v=1)\n    await c.t(v="a")\n',
    ),
    "in_format_added": inputs(
        obj({"day": S}, "day"), obj({"day": {**S, "format": "date"}}, "day"), '    await c.t(day="2026-12-03")\n'
    ),
    "in_enum_value_removed": inputs(
        obj({"mode": {"enum": ["fast", "slow"]}}),
        obj({"mode": {"enum": ["fast"]}}),
        '    await c.t(mode="fast")\n    await c.t(mode="slow")\n',
    ),
    "in_enum_value_removed_in_defs": inputs(
        obj({"p": {"$ref": "#/$defs/P"}}, **{"$defs": {"P": obj({"kind": {"enum": ["x", "y"]}}, "kind")}}),
        obj({"p": {"$ref": "#/$defs/P"}}, **{"$defs": {"P": obj({"kind": {"enum": ["x"]}}, "kind")}}),
        '    await c.t(p=models.TInputP(kind="x"))\n    await c.t(p=models.TInputP(kind="y"))\n',
    ),
    "in_free_value_became_enum": inputs(
        obj({"mode": S}, "mode"), obj({"mode": {"enum": ["fast"]}}, "mode"), '    await c.t(mode="slow")\n'
    ),
    "in_bound_tightened": inputs(
        obj({"name": {**S, "maxLength": 10}}, "name"),
        obj({"name": {**S, "maxLength": 5}}, "name"),
        '    await c.t(name="abcdefghij")\n',
    ),
    "in_array_bound_tightened": inputs(
        obj({"tags": {"type": "array", "items": S, "maxItems": 3}}, "tags"),
        obj({"tags": {"type": "array", "items": S, "maxItems": 1}}, "tags"),
        '    await c.t(tags=["a", "b", "c"])\n',
    ),
    "in_bound_impossible": inputs(
        obj({"name": S}, "name"), obj({"name": {**S, "maxLength": 0}}, "name"), '    await c.t(name="a")\n'
    ),
    "in_pattern_added": inputs(
        obj({"code": S}, "code"), obj({"code": {**S, "pattern": "^[A-Z]+$"}}, "code"), '    await c.t(code="ab1")\n'
    ),
    "in_became_not_nullable": inputs(
        obj({"maybe": {"type": ["string", "null"]}}),
        obj({"maybe": S}),
        '    await c.t(maybe=None)\n    await c.t(maybe="a")\n',
    ),
    "in_union_narrowed": inputs(
        obj({"v": {"anyOf": [S, INT]}}, "v"),
        obj({"v": {"anyOf": [S]}}, "v"),
        '    await c.t(v="a")\n    await c.t(v=1)\n',
    ),
    "in_nested_became_required": inputs(
        obj({"opts": OPTS}),
        obj({"opts": obj(OPTS["properties"], "depth", "kind")}),
        "    await c.t(opts=models.TInputOpts(depth=1))\n",
    ),
    # -- inputs: dangerous
    "in_bound_added": inputs(
        obj({"name": S}, "name"), obj({"name": {**S, "maxLength": 3}}, "name"), '    await c.t(name="ab")\n'
    ),
    "in_pattern_changed": inputs(
        obj({"code": {**S, "pattern": "^[a-z]+$"}}, "code"),
        obj({"code": {**S, "pattern": "^[a-z]{1,8}$"}}, "code"),
        '    await c.t(code="abc")\n',
    ),
    "in_default_changed": inputs(
        obj({"n": {**INT, "default": 1}}), obj({"n": {**INT, "default": 2}}), "    await c.t()\n    await c.t(n=3)\n"
    ),
    "in_closed": inputs(
        obj({"a": S}),
        obj({"a": S}, additionalProperties=False),
        '    await c.t(a="x")\n    await c.t(a="x", extra={"b": 1})\n',
    ),
    # -- inputs: safe
    "in_optional_added": inputs(obj({"b": S}, "b"), obj({"a": S, "b": S}, "b"), '    await c.t(b="x")\n'),
    "in_became_optional": inputs(obj({"a": S}, "a"), obj({"a": S}), '    await c.t(a="x")\n'),
    "in_type_widened": inputs(obj({"n": INT}, "n"), obj({"n": N}, "n"), "    await c.t(n=1)\n"),
    "in_type_widened_model_read": inputs(
        obj({"n": INT}, "n"), obj({"n": N}, "n"), "    model = models.TInput(n=1)\n    await c.t(n=model.n)\n"
    ),
    "in_enum_dropped": inputs(
        obj({"mode": {"enum": ["fast"]}}, "mode"), obj({"mode": S}, "mode"), '    await c.t(mode="fast")\n'
    ),
    "in_enum_value_added": inputs(
        obj({"mode": {"enum": ["fast"]}}, "mode"),
        obj({"mode": {"enum": ["fast", "slow"]}}, "mode"),
        '    await c.t(mode="fast")\n',
    ),
    "in_nested_item_bound_relaxed": inputs(
        obj({"opts": obj({"pages": {"type": "array", "items": {**INT, "minimum": 1}}})}),
        obj({"opts": obj({"pages": {"type": "array", "items": INT}})}),
        "    await c.t(opts=models.TInputOpts(pages=[1, 2]))\n",
    ),
    "in_nested_item_bound_relaxed_rules_5": by_rules_5(
        inputs(
            obj({"opts": obj({"pages": {"type": "array", "items": {**INT, "minimum": 1}}})}),
            obj({"opts": obj({"pages": {"type": "array", "items": INT}})}),
            "    page = models.TInputOptsPage(1)\n    await c.t(opts=models.TInputOpts(pages=[page]))\n",
        )
    ),
    "in_tagged_member_added": inputs(
        obj({"shape": {"oneOf": [obj({"kind": {"const": "circle"}, "r": N}, "kind", "r")]}}, "shape"),
        obj(
            {
                "shape": {
                    "oneOf": [
                        obj({"kind": {"const": "circle"}, "r": N}, "kind", "r"),
                        obj({"kind": {"const": "square"}, "side": N}, "kind", "side"),
                    ]
                }
            },
            "shape",
        ),
        '    await c.t(shape=models.TInputShape(kind="circle", r=1))\n',
    ),
    "in_enum_as_literal_union": inputs(
        obj({"mode": {"type": "string", "enum": ["fast", "slow"]}}, "mode"),
        obj({"mode": {"anyOf": [{"type": "string", "const": "fast"}, {"type": "string", "const": "slow"}]}}, "mode"),
        '    await c.t(mode="fast")\n    await c.t(mode="slow")\n',
    ),
    "in_bound_relaxed": inputs(
        obj({"name": {**S, "maxLength": 3}}, "name"),
        obj({"name": {**S, "maxLength": 9}}, "name"),
        '    await c.t(name="abc")\n',
    ),
    "in_became_nullable": inputs(
        obj({"a": S}, "a"), obj({"a": {"type": ["string", "null"]}}, "a"), '    await c.t(a="x")\n'
    ),
    "in_union_widened": inputs(
        obj({"v": {"anyOf": [S]}}, "v"), obj({"v": {"anyOf": [S, INT]}}, "v"), '    await c.t(v="a")\n'
    ),
    "in_nested_opened": inputs(
        obj({"opts": OPTS}),
        obj({"opts": {**OPTS, "additionalProperties": True}}),
        '    await c.t(opts=models.TInputOpts(depth=1, kind="y"))\n',
    ),
    "in_inlined_into_defs": inputs(
        obj({"opts": OPTS}),
        obj({"opts": {"$ref": "#/$defs/Options"}}, **{"$defs": {"Options": OPTS}}),
        '    await c.t(opts=models.TInputOpts(depth=1, kind="x"))\n',
    ),
    "in_defs_renamed": inputs(
        obj({"p": {"$ref": "#/$defs/Point"}}, "p", **POINT_DEFS),
        obj({"p": {"$ref": "#/$defs/Coordinates"}}, "p", **{"$defs": {"Coordinates": POINT_DEFS["$defs"]["Point"]}}),
        "    await c.t(p=models.TInputPoint(x=1.0, y=2.0))\n",
    ),
    "in_nested_title_changed": inputs(
        obj({"opts": {**OPTS, "title": "Options"}}),
        obj({"opts": {**OPTS, "title": "Settings"}}),
        "    await c.t(opts=models.TInputOpts(depth=1))\n",
    ),
    "in_description_changed": inputs(
        obj({"a": {**S, "description": "A city."}}, "a"),
        obj({"a": {**S, "description": "A town."}}, "a"),
        '    await c.t(a="x")\n',
    ),
    # -- outputs: breaking
    "out_schema_removed": Case(
        Side((tool(out=obj({"x": S}, "x")),), replies={"t": {"x": "a"}}),
        Side((tool(),)),
        "    r = await c.t()\n    print(r.x.upper())\n",
    ),
    "out_property_removed": outputs(
        obj({"x": S, "y": S}, "x", "y"),
        obj({"x": S}, "x"),
        "    r = await c.t()\n    print(r.x, r.y.upper())\n",
        {"x": "a", "y": "b"},
        {"x": "a"},
    ),
    "out_nested_property_removed": outputs(
        {**ITEMS_OUT, "$defs": {"Item": obj({"id": INT, "name": S}, "id", "name")}},
        {**ITEMS_OUT, "$defs": {"Item": obj({"id": INT}, "id")}},
        "    r = await c.t()\n    for item in r.items:\n        print(item.id + 1, item.name.upper())\n",
        {"items": [{"id": 1, "name": "a"}]},
        {"items": [{"id": 1}]},
    ),
    "out_became_optional": outputs(
        obj({"x": S}, "x"), obj({"x": S}), "    r = await c.t()\n    print(r.x.upper())\n", {"x": "a"}, {}
    ),
    "out_default_removed": outputs(
        obj({"n": {**INT, "default": 0}}),
        obj({"n": INT}),
        "    r = await c.t()\n    n: int = r.n\n    print(n + 1)\n",
        {"n": 1},
        {"n": 1},
    ),
    "out_type_widened": outputs(
        obj({"n": INT}, "n"), obj({"n": N}, "n"), "    r = await c.t()\n    print([0][r.n])\n", {"n": 0}, {"n": 0.5}
    ),
    "out_became_nullable": outputs(
        obj({"x": S}, "x"),
        obj({"x": {"type": ["string", "null"]}}, "x"),
        "    r = await c.t()\n    print(r.x.upper())\n",
        {"x": "a"},
        {"x": None},
    ),
    "out_enum_dropped": outputs(
        obj({"state": {"enum": ["on", "off"]}}, "state"),
        obj({"state": S}, "state"),
        '    r = await c.t()\n    match r.state:\n        case "on" | "off":\n            print(r.state)\n'
        "        case _:\n            assert_never(r.state)\n",
        {"state": "on"},
        {"state": "dim"},
    ),
    "out_union_branch_added": outputs(
        obj({"v": {"anyOf": [S, INT]}}, "v"),
        obj({"v": {"anyOf": [S, INT, N]}}, "v"),
        "    r = await c.t()\n    if isinstance(r.v, str):\n        print(r.v.upper())\n    elif isinstance(r.v, int):\n"
        "        print(r.v + 1)\n    else:\n        assert_never(r.v)\n",
        {"v": "a"},
        {"v": 0.5},
    ),
    "out_bound_relaxed": outputs(
        obj({"code": {**S, "maxLength": 3}}, "code"),
        obj({"code": {**S, "maxLength": 30}}, "code"),
        "    r = await c.t()\n    print(r.code.upper())\n",
        {"code": "abc"},
        {"code": "abcdefgh"},
    ),
    "out_item_bound_added": outputs(
        obj({"sizes": {"type": "array", "items": INT}}, "sizes"),
        obj({"sizes": {"type": "array", "items": {**INT, "minimum": 0}}}, "sizes"),
        "    r = await c.t()\n    first: int = r.sizes[0]\n    print(first + 1)\n",
        {"sizes": [1]},
        {"sizes": [2]},
    ),
    "out_item_bound_added_rules_5": by_rules_5(
        outputs(
            obj({"sizes": {"type": "array", "items": INT}}, "sizes"),
            obj({"sizes": {"type": "array", "items": {**INT, "minimum": 0}}}, "sizes"),
            "    r = await c.t()\n    first: int = r.sizes[0]\n    print(first + 1)\n",
            {"sizes": [1]},
            {"sizes": [2]},
        )
    ),
    # -- outputs: dangerous
    "out_enum_value_added": outputs(
        obj({"state": {"enum": ["on", "off"]}}, "state"),
        obj({"state": {"enum": ["on", "off", "dim"]}}, "state"),
        '    r = await c.t()\n    match r.state:\n        case "on" | "off":\n            print(r.state)\n'
        "        case _:\n            assert_never(r.state)\n",
        {"state": "on"},
        {"state": "dim"},
    ),
    "out_schema_added": Case(
        Side((tool(),)),
        Side((tool(out=obj({"x": S}, "x")),), replies={"t": {"x": "a"}}),
        "    r = await c.t()\n    print(r.content, r.text)\n",
    ),
    # -- outputs: safe
    "out_property_added": outputs(
        obj({"x": S}, "x"),
        obj({"x": S, "y": S}, "x", "y"),
        "    r = await c.t()\n    print(r.x.upper())\n",
        {"x": "a"},
        {"x": "a", "y": "b"},
    ),
    "out_property_added_to_result": outputs(
        obj({"result": INT}, "result", title="tOutput"),
        obj({"result": INT, "unit": S}, "result", title="tOutput"),
        "    n: int = await c.t()\n    print(n + 1)\n",
        {"result": 1},
        {"result": 1, "unit": "m"},
    ),
    "out_result_title_changed": outputs(
        obj({"result": INT}, "result", title="tOutput"),
        obj({"result": INT}, "result", title="Count"),
        "    n: int = await c.t()\n    print(n + 1)\n",
        {"result": 1},
        {"result": 1},
    ),
    "out_became_required": outputs(
        obj({"x": S, "opt": INT}, "x"),
        obj({"x": S, "opt": INT}, "x", "opt"),
        "    r = await c.t()\n    if r.opt is not None:\n        print(r.opt + 1)\n",
        {"x": "a"},
        {"x": "a", "opt": 2},
    ),
    "out_type_narrowed": outputs(
        obj({"n": N}, "n"),
        obj({"n": INT}, "n"),
        "    r = await c.t()\n    f: float = r.n\n    print(f / 2)\n",
        {"n": 0.5},
        {"n": 1},
    ),
    "out_enum_value_removed": outputs(
        obj({"state": {"enum": ["on", "off"]}}, "state"),
        obj({"state": {"enum": ["on"]}}, "state"),
        '    r = await c.t()\n    match r.state:\n        case "on" | "off":\n            print(r.state)\n'
        "        case _:\n            assert_never(r.state)\n",
        {"state": "off"},
        {"state": "on"},
    ),
    "out_no_longer_nullable": outputs(
        obj({"x": {"type": ["string", "null"]}}, "x"),
        obj({"x": S}, "x"),
        "    r = await c.t()\n    if r.x is not None:\n        print(r.x.upper())\n",
        {"x": None},
        {"x": "a"},
    ),
    "out_defs_renamed": outputs(
        {**ITEMS_OUT, "$defs": {"Item": obj({"id": INT}, "id")}},
        {
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Entry"}}},
            "required": ["items"],
            "$defs": {"Entry": obj({"id": INT}, "id")},
        },
        "    r = await c.t()\n    first: models.TOutputItem = r.items[0]\n    print(first.id + 1)\n",
        {"items": [{"id": 1}]},
        {"items": [{"id": 1}]},
    ),
    # -- added after the first run (before running them)
    "in_optional_added_beside_a_definition": inputs(
        obj({"p": {"$ref": "#/$defs/Point"}}, "p", **POINT_DEFS),
        obj({"p": {"$ref": "#/$defs/Point"}, "point": obj({"z": N})}, "p", **POINT_DEFS),
        "    await c.t(p=models.TInputPoint(x=1.0, y=2.0))\n",
    ),
    "in_extra_type_narrowed": inputs(
        obj({"a": S}, additionalProperties=N),
        obj({"a": S}, additionalProperties=INT),
        '    await c.t(a="x", extra={"k": 1.5})\n',
    ),
    "in_property_respelled": inputs(
        obj({"userId": S}, "userId"), obj({"user_id": S}, "user_id"), '    await c.t(user_id="u")\n'
    ),
    "out_union_branch_removed": outputs(
        obj(
            {"v": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}},
            "v",
            **{"$defs": {"A": obj({"a": S}, "a"), "B": obj({"b": INT}, "b")}},
        ),
        obj({"v": {"anyOf": [{"$ref": "#/$defs/A"}]}}, "v", **{"$defs": {"A": obj({"a": S}, "a")}}),
        "    r = await c.t()\n    if isinstance(r.v, models.TOutputA):\n        print(r.v.a)\n"
        "    elif isinstance(r.v, models.TOutputB):\n        print(r.v.b + 1)\n",
        {"v": {"a": "x"}},
        {"v": {"a": "x"}},
    ),
    "out_inline_union_branch_removed": outputs(
        obj({"v": {"anyOf": [obj({"a": S}, "a"), obj({"b": INT}, "b")]}}, "v"),
        obj({"v": {"anyOf": [obj({"b": INT}, "b")]}}, "v"),
        "    r = await c.t()\n    if isinstance(r.v, models.TOutputV):\n        print(r.v.a)\n"
        "    elif isinstance(r.v, models.TOutputV1):\n        print(r.v.b + 1)\n",
        {"v": {"a": "x"}},
        {"v": {"b": 1}},
    ),
    "out_property_spelled_alike_added": outputs(
        obj({"itemCount": INT}, "itemCount"),
        obj({"itemCount": INT, "item-count": S}, "itemCount"),
        "    r = await c.t()\n    print(r.item_count + 1)\n",
        {"itemCount": 1},
        {"itemCount": 1, "item-count": "one"},
    ),
    "in_inline_union_reordered": inputs(
        obj({"v": {"anyOf": [obj({"a": S}, "a"), obj({"b": INT}, "b")]}}, "v"),
        obj({"v": {"anyOf": [obj({"b": INT}, "b"), obj({"a": S}, "a")]}}, "v"),
        '    await c.t(v=models.TInputV(a="x"))\n    await c.t(v=models.TInputV1(b=1))\n',
    ),
    # -- a schema no type is made from: the method loses its types, or gains them back
    "in_typing_lost": inputs(obj({"a": S}, "a"), obj({"a": S, "more": DANGLING}, "a"), '    await c.t(a="x")\n'),
    "in_typing_regained": inputs(
        obj({"a": S, "more": DANGLING}, "a"), obj({"a": S}, "a"), '    await c.t(arguments={"a": "x"})\n'
    ),
    "out_typing_lost": outputs(
        obj({"x": S}, "x"),
        obj({"x": S, "more": DANGLING}, "x"),
        "    r = await c.t()\n    print(r.x.upper())\n",
        {"x": "a"},
        {"x": "a"},
    ),
    "out_typing_regained": outputs(
        obj({"x": S, "more": DANGLING}, "x"),
        obj({"x": S}, "x"),
        "    r = await c.t()\n    print(r.text, r.raw.structured_content)\n",
        {"x": "a"},
        {"x": "a"},
    ),
    "out_typing_lost_rules_12": Case(
        Side((tool(obj({"a": S}, "a"), obj({"x": S}, "x")),), replies={"t": {"x": "a"}}, naming_rules=12),
        Side(
            (tool(obj({"a": S}, "a"), obj({"x": S, "more": DANGLING}, "x")),),
            replies={"t": {"x": "a"}},
            naming_rules=12,
        ),
        '    r = await c.t(a="x")\n    print(r.x.upper())\n',
    ),
    "task_support_forbidden": Case(
        Side((tool(execution={"taskSupport": "optional"}),)), Side((tool(),)), "    await c.t()\n    print(c.start_t)\n"
    ),
    # -- tools
    "tool_removed": Case(Side((tool(), tool(name="u"))), Side((tool(),)), "    await c.t()\n    await c.u()\n"),
    "tool_renamed": Case(
        Side((tool(obj({"city": S}, "city"), name="get_city"),)),
        Side((tool(obj({"city": S}, "city"), name="fetch_city"),)),
        '    await c.get_city(city="Oslo")\n',
    ),
    "tool_renamed_stated": Case(
        Side((tool(obj({"city": S}, "city"), obj({"x": S}, "x"), name="get_city"),), replies={"get_city": {"x": "a"}}),
        Side(
            (tool(obj({"city": S}, "city"), obj({"x": S}, "x"), name="fetch_city"),), replies={"fetch_city": {"x": "a"}}
        ),
        '    r = await c.get_city(city="Oslo")\n    print(r.x.upper())\n',
        renames={"get_city": "fetch_city"},
    ),
    "tool_added": Case(
        Side((tool(),)),
        Side((tool(), tool(name="u", annotations={"readOnlyHint": True, "openWorldHint": False}))),
        "    await c.t()\n",
    ),
    "tool_description_changed": Case(
        Side((tool(description="Adds."),)), Side((tool(description="Adds twice."),)), "    await c.t()\n"
    ),
    "tool_title_changed": Case(Side((tool(title="Add"),)), Side((tool(title="Sum"),)), "    await c.t()\n"),
    "annotation_readonly_withdrawn": Case(
        Side((tool(annotations={"readOnlyHint": True}),)),
        Side((tool(annotations={"readOnlyHint": False}),)),
        "    await c.t()\n",
    ),
    "task_support_widened": Case(
        Side((tool(),)), Side((tool(execution={"taskSupport": "optional"}),)), "    await c.t()\n"
    ),
    # -- resources, templates, prompts
    "resource_removed": Case(Side(resources=(RES,)), Side(), "    await c.read_a()\n"),
    "resource_renamed": Case(
        Side(resources=(RES,)), Side(resources=({**RES, "uri": "file:///b", "name": "b"},)), "    await c.read_a()\n"
    ),
    "resource_added": Case(
        Side(resources=(RES,)),
        Side(resources=(RES, {**RES, "uri": "file:///b", "name": "b"})),
        "    await c.read_a()\n",
    ),
    "resource_mimetype_changed": Case(
        Side(resources=(RES,)),
        Side(resources=({**RES, "mimeType": "application/json"},)),
        "    r = await c.read_a()\n    print(r.contents[0])\n",
    ),
    "template_variables_changed": Case(
        Side(templates=(TPL,)),
        Side(templates=({**TPL, "uriTemplate": "users://{user}/posts"},)),
        '    await c.read_posts(id_="1")\n',
    ),
    "template_added": Case(
        Side(templates=(TPL,)),
        Side(templates=(TPL, {"uriTemplate": "users://{id}/likes", "name": "likes"})),
        '    await c.read_posts(id_="1")\n',
    ),
    "prompt_removed": Case(Side(prompts=(REVIEW,)), Side(), '    await c.prompt_review(code="x", lang="py")\n'),
    "prompt_arg_required_added": Case(
        Side(prompts=(REVIEW,)),
        Side(prompts=({**REVIEW, "arguments": [*REVIEW["arguments"], {"name": "style", "required": True}]},)),
        '    await c.prompt_review(code="x", lang="py")\n',
    ),
    "prompt_arg_became_required": Case(
        Side(prompts=(REVIEW,)),
        Side(
            prompts=({**REVIEW, "arguments": [{"name": "code", "required": True}, {"name": "lang", "required": True}]},)
        ),
        '    await c.prompt_review(code="x")\n',
    ),
    "prompt_arg_removed": Case(
        Side(prompts=(REVIEW,)),
        Side(prompts=({**REVIEW, "arguments": [{"name": "code", "required": True}]},)),
        '    await c.prompt_review(code="x", lang="py")\n',
    ),
    "prompt_optional_added": Case(
        Side(prompts=(REVIEW,)),
        Side(prompts=({**REVIEW, "arguments": [*REVIEW["arguments"], {"name": "style"}]},)),
        '    await c.prompt_review(code="x", lang="py")\n',
    ),
    "prompt_renamed": Case(
        Side(prompts=(REVIEW,)),
        Side(prompts=({**REVIEW, "name": "review_code"},)),
        '    await c.prompt_review(code="x")\n',
    ),
}

OVER_CAUTIOUS: dict[str, str] = {
    "in_format_added": "in-type-narrowed",
    "in_property_respelled": "in-property-removed",
    "resource_mimetype_changed": "resource-mimetype-changed",
    "out_bound_relaxed": "out-loosened",
    "tool_renamed_stated": "tool-renamed",
}
"""Cases drift calls breaking whose typed callers keep working: each rule's row in docs/drift.md says
so, and why it stays breaking."""

DRIFT_DOC = REPO / "docs" / "drift.md"


def _rule_rows() -> dict[str, str]:
    """Each rule's row of docs/drift.md's rule table."""
    table = DRIFT_DOC.read_text(encoding="utf-8").split("\n## Rules\n", 1)[1]
    return {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| ")}


HEADER = """\
from __future__ import annotations

from typing_extensions import assert_never

from clients.{server} import {client} as Client
from clients.{server} import models


async def use(c: Client) -> None:
"""


@dataclass
class Outcome:
    """What regenerating did to one case's user code."""

    mypy_before: list[str]
    mypy_after: list[str]
    run_before: str | None
    run_after: str | None
    severity: Severity | None
    rules: list[str]


def _serve(side: Side, server: str) -> Server[Any]:
    """A server of `side`'s catalog that refuses arguments its input schemas refuse, as MCPServer does."""
    listed = {entry["name"]: types.Tool.model_validate(entry) for entry in side.tools}

    async def list_tools(_context: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(listed.values()))

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        entry = next((entry for entry in side.tools if entry["name"] == params.name), None)
        if entry is None:
            return types.CallToolResult(content=[types.TextContent(type="text", text="no such tool")], is_error=True)
        problem = jsonschema.Draft202012Validator(entry["inputSchema"]).iter_errors(params.arguments or {})
        if (error := next(problem, None)) is not None:
            return types.CallToolResult(content=[types.TextContent(type="text", text=error.message)], is_error=True)
        reply = side.replies.get(params.name)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(reply) if reply is not None else "ok")],
            structured_content=reply,
        )

    async def list_resources(_context: Any, _params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource.model_validate(entry) for entry in side.resources])

    async def list_templates(_context: Any, _params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[types.ResourceTemplate.model_validate(entry) for entry in side.templates]
        )

    async def read_resource(_context: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        known = {entry["uri"] for entry in side.resources}
        if params.uri not in known and not any(
            re.fullmatch(re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(entry["uriTemplate"])), params.uri)
            for entry in side.templates
        ):
            raise ValueError(f"no resource {params.uri}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, text="ok", mime_type="text/plain")]
        )

    async def list_prompts(_context: Any, _params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt.model_validate(entry) for entry in side.prompts])

    async def get_prompt(_context: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        entry = next((entry for entry in side.prompts if entry["name"] == params.name), None)
        given = set(params.arguments or {})
        if entry is None:
            raise ValueError(f"no prompt {params.name}")
        declared = {argument["name"] for argument in entry.get("arguments", [])}
        needed = {argument["name"] for argument in entry.get("arguments", []) if argument.get("required")}
        if not needed <= given or not given <= declared:
            raise ValueError(f"prompt {params.name} takes {sorted(declared)}, needs {sorted(needed)}")
        return types.GetPromptResult(
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text="ok"))]
        )

    return Server(
        server,
        version="1",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def _mypy(project: Path) -> dict[str, list[str]]:
    """`mypy --strict` over every user file at once; its errors by case."""
    result = subprocess.run(
        [PYTHON, "-m", "mypy", "--strict", "--config-file", "/dev/null", *(f"use_{name}.py" for name in CASES)],
        capture_output=True,
        text=True,
        cwd=project,
        env={"MYPYPATH": str(project), "PATH": "/usr/bin:/bin", "MYPY_CACHE_DIR": os.environ["MYPY_CACHE_DIR"]},
        timeout=600,
    )
    errors: dict[str, list[str]] = {name: [] for name in CASES}
    for line in result.stdout.splitlines():
        if ": error:" in line:
            errors[line.split(".py:", 1)[0].removeprefix("use_")].append(line)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    return errors


async def _run(project: Path, name: str, side: Side) -> str | None:
    """Run the case's user code against a server of `side`; the exception it raised, if any."""
    package = import_generated(project / "clients", name)
    user = importlib.import_module(f"use_{name}")
    client_class = getattr(package, _client_name(project, name))
    try:
        with warnings.catch_warnings():  # a stated rename's alias warns as documented; only failures count
            warnings.simplefilter("ignore", DeprecationWarning)
            async with client_class.connect(_serve(side, name)) as client:
                await user.use(client)
    except Exception as error:  # any failure is the finding
        return f"{type(error).__name__}: {error}"
    return None


def _client_name(project: Path, name: str) -> str:
    init = (project / "clients" / name / "client.py").read_text(encoding="utf-8")
    return re.findall(r'__all__ = \["(\w+Client)"', init)[0]


def _generate(project: Path) -> None:
    result = subprocess.run(
        [PYTHON, "-m", "codegen.cli", "generate"], cwd=project, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


def _write_side(project: Path, side_of: str) -> None:
    for name, case in CASES.items():
        side = getattr(case, side_of)
        (project / "snaps" / f"{name}.json").write_text(json.dumps(side.snapshot(name)), encoding="utf-8")


def _run_all(project: Path, side_of: str) -> dict[str, str | None]:
    sys.path.insert(0, str(project))
    try:
        return {name: anyio.run(_run, project, name, getattr(case, side_of)) for name, case in CASES.items()}
    finally:
        sys.path.remove(str(project))
        forget_generated(project / "clients")
        for module in [module for module in sys.modules if module.startswith("use_")]:
            del sys.modules[module]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    project = tmp_path_factory.mktemp("agreement")
    servers = "".join(f'[tool.mcp-stubgen.servers.{name}]\ncommand = "true"\n\n' for name in CASES)
    renames = "".join(
        f"[tool.mcp-stubgen.renames.{name}]\n"
        + "".join(f"{old} = {json.dumps(new)}\n" for old, new in case.renames.items())
        for name, case in CASES.items()
        if case.renames
    )
    write_config(project, f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n{servers}{renames}')
    (project / "snaps").mkdir()
    _write_side(project, "before")
    _generate(project)
    for name, case in CASES.items():
        header = HEADER.format(server=name, client=_client_name(project, name))
        (project / f"use_{name}.py").write_text(header + case.use, encoding="utf-8")
    mypy_before = _mypy(project)
    run_before = _run_all(project, "before")
    _write_side(project, "after")
    _generate(project)
    mypy_after = _mypy(project)
    run_after = _run_all(project, "after")
    result = {}
    for name, case in CASES.items():
        old, new = (parse_snapshot(json.dumps(side.snapshot(name)), name) for side in (case.before, case.after))
        found = compare_snapshots(old, new, dict(case.renames))
        worst = max((finding.severity for finding in found), key=lambda severity: severity.rank, default=None)
        result[name] = Outcome(
            mypy_before[name],
            mypy_after[name],
            run_before[name],
            run_after[name],
            worst,
            sorted({f.rule for f in found}),
        )
    return result


@pytest.mark.parametrize("name", sorted(CASES))
def test_drift_severity_agrees_with_what_regenerating_does(name: str, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[name]
    assert outcome.mypy_before == [] and outcome.run_before is None, f"the user code is wrong: {outcome}"
    broke = bool(outcome.mypy_after) or outcome.run_after is not None
    if outcome.severity in (None, Severity.SAFE):
        assert not broke, f"drift says {outcome.severity} ({outcome.rules}), but the code broke: {outcome}"
    elif outcome.severity is Severity.BREAKING and name in OVER_CAUTIOUS:
        assert not broke, f"{name} broke the code: drop it from OVER_CAUTIOUS: {outcome}"
        assert OVER_CAUTIOUS[name] in outcome.rules and "working" in _rule_rows()[OVER_CAUTIOUS[name]]
    elif outcome.severity is Severity.BREAKING:
        assert broke, f"drift says breaking ({outcome.rules}), but the code still works: {outcome}"
    elif broke:  # dangerous: its row must say what it breaks
        rows = _rule_rows()
        assert any(
            "break" in rows[rule] for rule in outcome.rules if rows[rule].split("|")[2].strip() == "dangerous"
        ), f"drift says dangerous ({outcome.rules}) and the code broke, which docs/drift.md does not say: {outcome}"
