"""Code mode's stubs type a schema as precisely as the client's models where a stub can say it, by
naming rules 10 (`PRECISE_STUB_RULES`), and never tighter than the schema.

`check-scripts` refuses a script that passes a wrong shape (rules 1 to 9 typed it `Any`, so it reached
the server), and accepts every value the schema allows: the catalogs' own examples and defaults, and
values hypothesis generates that `jsonschema` validates, each passed by a script the checker reads.
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.generate.code_mode import module_stubs, render_code_mode
from codegen.generate.hub import HubSettings
from codegen.identifiers import NAMING_RULES, PRECISE_STUB_RULES
from codegen.scripts.check import Checker, check_scripts
from codegen.snapshot import Snapshot, load_snapshot, parse_snapshot
from tests.conftest import REPO

HAS_MONTY = importlib.util.find_spec("pydantic_monty") is not None
CHECKERS = [
    pytest.param("pydantic-monty", marks=pytest.mark.skipif(not HAS_MONTY, reason="pydantic-monty not installed")),
    pytest.param("mypy", marks=pytest.mark.generated_mypy),
]
DRAFT_7 = "http://json-schema.org/draft-07/schema#"

SHAPES: dict[str, tuple[dict[str, Any], str, str, str]] = {
    # name: (schema, the stub's type, a value the schema refuses, a value it allows), as Python source
    "pair": (
        {"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}], "items": False, "minItems": 2},
        "tuple[float, str]",
        '("north", 59.9)',
        '(59.9, "north")',
    ),
    "point": (  # draft 7's tuple: `items` a list, `additionalItems` the rest
        {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": False, "minItems": 2},
        "tuple[float, float]",
        '(10.7, "east")',
        "(10.7, 59.9)",
    ),
    "head_and_rest": (  # rules 1 to 9 typed it `list[str]`, refusing the integer the schema asks for first
        {"type": "array", "prefixItems": [{"type": "integer"}], "items": {"type": "string"}},
        "list[int | str]",
        "[None]",
        '[3, "a", "b"]',
    ),
    "up_to_two": (
        {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}], "items": False},
        "list[int | bool]",
        '["one"]',
        "[1, True]",
    ),
    "headers": (
        {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False},
        "dict[str, int]",
        '{"x-count": "three"}',
        '{"x-count": 3}',
    ),
    "measures": (  # rules 1 to 9 typed it `dict[str, str]`, refusing the numbers its pattern allows
        {
            "type": "object",
            "patternProperties": {"^n_": {"type": "number"}},
            "additionalProperties": {"type": "string"},
        },
        "dict[str, float | str]",
        '{"n_width": None}',
        '{"n_width": 2.5, "unit": "cm"}',
    ),
    "ratio": ({"const": 0.5}, "float", '"half"', "0.5"),
    "scale": ({"enum": [0.5, 1.5, "auto"]}, "float | str", "None", '"auto"'),
    "window": ({"type": "array", "items": {"type": "integer"}, "const": [2, 10]}, "list[int]", '["2"]', "[2, 10]"),
    "slug": ({"type": "string", "allOf": [{"minLength": 1}]}, "str", "3", '"a"'),
    "day": ({"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}]}, "str", "3", '"2026-12-04"'),
    "count": ({"allOf": [{"type": "integer"}, {"minimum": 0}]}, "int", '"3"', "3"),
    # rules 9 typed this one so too, by its member: rules 10 keep its `Literal`, not the `str` beside it
    "unit": ({"type": "string", "allOf": [{"enum": ["cm", "in"]}]}, 'Literal["cm", "in"]', '"km"', '"cm"'),
}
"""Schemas whose stub rules 1 to 9 left `Any` (or, for two, made tighter than the schema), and one they typed."""


def probe_snapshot(shapes: dict[str, dict[str, Any]], rules: int = NAMING_RULES) -> Snapshot:
    """One tool per shape, `probe.<name>(value=...)`, each taking the shape as its one argument; a draft-7
    shape's tool says its dialect."""
    tools = []
    for name, schema in shapes.items():
        dialect = {"$schema": DRAFT_7} if "additionalItems" in schema else {}
        properties = {"value": schema}
        input_schema = {**dialect, "type": "object", "properties": properties, "required": ["value"]}
        tools.append({"name": name, "inputSchema": input_schema})
    document = {
        "format": 1,
        "server": "probe",
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "tools": tools,
        "namingRules": rules,
    }
    return parse_snapshot(json.dumps(document).encode(), "probe.json")


def stubs_of(snapshot: Snapshot) -> dict[str, str]:
    return module_stubs([(snapshot, {})], HubSettings())


def calls(values: list[tuple[str, str]]) -> str:
    """A script that calls `probe.<name>(value=<source>)` once for each pair, one call a line from line 2."""
    return "import probe\n" + "".join(f"await probe.{name}(value={source})\n" for name, source in values)


def test_shapes_rules_9_left_any_are_typed_as_the_models_type_them() -> None:
    snapshot = probe_snapshot({name: schema for name, (schema, _, _, _) in SHAPES.items()})
    assert NAMING_RULES >= PRECISE_STUB_RULES == 10
    stub = stubs_of(snapshot)["probe"]
    for name, (_, annotation, _, _) in SHAPES.items():
        assert f"async def {name}(\n    *,\n    value: {annotation},\n)" in stub, name
    earlier = stubs_of(replace(snapshot, naming_rules=9))["probe"]
    assert "async def ratio(\n    *,\n    value: Any,\n)" in earlier  # a snapshot of rules 9 keeps its stubs
    assert "async def head_and_rest(\n    *,\n    value: list[str],\n)" in earlier


def test_a_results_tuple_is_the_list_json_gives() -> None:
    """A result comes back as JSON gives it, so a tuple in a result is a list of its members' types."""
    pair = SHAPES["pair"][0]
    tool = {
        "name": "locate",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"at": pair}, "required": ["at"]},
    }
    document = {"format": 1, "server": "geo", "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}
    snapshot = parse_snapshot(json.dumps({**document, "tools": [tool], "namingRules": 10}).encode(), "geo.json")
    stub = render_code_mode([(snapshot, {})], HubSettings())["geo.pyi"].decode()
    assert "class LocateResult(TypedDict):\n    at: list[float | str]\n" in stub, stub


@pytest.mark.parametrize("checker", CHECKERS)
def test_check_scripts_refuses_a_wrong_shape_and_accepts_the_right_one(checker: Checker) -> None:
    """Each wrong value passed `check-scripts` by rules 9 and reached the server; each right one passes."""
    stubs = stubs_of(probe_snapshot({name: schema for name, (schema, _, _, _) in SHAPES.items()}))
    wrong = calls([(name, source) for name, (_, _, source, _) in SHAPES.items()])
    right = calls([(name, source) for name, (_, _, _, source) in SHAPES.items()])
    found = check_scripts({"wrong.py": wrong, "right.py": right}, stubs, checker)
    assert [line for line in found if line.path == "right.py"] == []
    assert sorted({line.line for line in found if line.path == "wrong.py"}) == list(range(2, len(SHAPES) + 2)), found


# -- every value the schema allows type-checks -----------------------------------------------------------


def _json(value: Any) -> Any:
    """A Python value as the JSON it is sent as (the hub sends a tuple as an array)."""
    if isinstance(value, tuple | list):
        return [_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _json(item) for key, item in value.items()}
    return value


def _of_type(kind: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    if kind == "array":
        return _array(schema)
    if kind == "object":
        return _object(schema)
    simple: dict[str, st.SearchStrategy[Any]] = {
        "string": st.text(max_size=4),
        "integer": st.integers(-9, 2**40),
        "number": st.floats(allow_nan=False, allow_infinity=False, width=32) | st.integers(-9, 9),
        "boolean": st.booleans(),
        "null": st.none(),
    }
    return simple[kind]


def _array(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A tuple where the stub says `tuple` (an argument of one length), else a list."""
    prefix = schema.get("prefixItems", schema["items"] if isinstance(schema.get("items"), list) else [])
    rest = schema.get("additionalItems" if isinstance(schema.get("items"), list) else "items", {})
    least, most = schema.get("minItems", 0), schema.get("maxItems", len(prefix) if rest is False else 4)
    if rest is False and least >= len(prefix):
        return st.tuples(*(values(item) for item in prefix))

    def of_length(length: int) -> st.SearchStrategy[Any]:
        items = [values(item) for item in prefix[:length]]
        items += [values(rest if isinstance(rest, dict) else {})] * (length - len(items))
        return st.tuples(*items).map(list)

    return st.integers(least, most).flatmap(of_length)


def _object(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    patterns = schema.get("patternProperties", {})
    extra = schema.get("additionalProperties", {})
    keyed = [st.tuples(st.from_regex(pattern), values(inner)) for pattern, inner in patterns.items()]
    if extra is not False:
        plain = st.text(max_size=3).filter(lambda key: not any(re.search(pattern, key) for pattern in patterns))
        keyed.append(st.tuples(plain, values(extra)))
    return st.lists(st.one_of(keyed), max_size=3).map(dict)


def values(schema: Any) -> st.SearchStrategy[Any]:
    """Python values for a schema of the shapes above; `valid` keeps those the schema allows."""
    if not isinstance(schema, dict) or not schema:
        return st.none() | st.integers() | st.text(max_size=3)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    fixed = [member for member in schema.get("allOf", []) if "enum" in member or "const" in member]
    if fixed:
        return values(fixed[0])
    members = [values(member) for key in ("anyOf", "allOf") for member in schema.get(key, []) if "type" in member]
    if "type" in schema:
        members.append(_of_type(schema["type"], schema))
    return st.one_of(members) if members else values({})


def valid(schema: dict[str, Any], value: Any) -> bool:
    dialect = DRAFT_7 if "additionalItems" in schema else "https://json-schema.org/draft/2020-12/schema"
    checked = jsonschema.validators.validator_for({"$schema": dialect})(schema)
    return bool(checked.is_valid(_json(value)))


def _allowed(name: str) -> st.SearchStrategy[tuple[str, str]]:
    schema = SHAPES[name][0]
    return values(schema).filter(lambda value: valid(schema, value)).map(lambda value: (name, repr(value)))


@pytest.mark.skipif(not HAS_MONTY, reason="pydantic-monty not installed")
@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(sorted(SHAPES)).flatmap(_allowed), min_size=20, max_size=40))
def test_every_value_a_shape_allows_type_checks(allowed: list[tuple[str, str]]) -> None:
    found = check_scripts({"allowed.py": calls(allowed)}, STUBS, "pydantic-monty")
    assert found == [], (found, allowed)


STUBS = stubs_of(probe_snapshot({name: schema for name, (schema, _, _, _) in SHAPES.items()}))


def catalog_examples() -> dict[str, tuple[dict[str, Any], list[Any]]]:
    """Every argument schema of the test catalogs and golden snapshots with its own `examples` or
    `default` that the schema allows, keyed `<catalog>_<n>`, with the tool's definitions beside it."""
    found: dict[str, tuple[dict[str, Any], list[Any]]] = {}
    folder = REPO / "tests" / "fixtures" / "catalogs"
    for path in sorted([*folder.glob("*.json"), *folder.glob("more/*.json"), *REPO.glob("golden/*/snapshot.json")]):
        for tool in load_snapshot(path).tools:
            root = tool.get("inputSchema")
            properties = root.get("properties") if isinstance(root, dict) else None
            for schema in (properties or {}).values() if isinstance(properties, dict) else ():
                if not isinstance(schema, dict) or "$ref" in json.dumps(schema):
                    continue
                given_values = [*(schema.get("examples") or []), *([schema["default"]] if "default" in schema else [])]
                allowed = [value for value in given_values if valid(schema, value)]
                if allowed and "$schema" not in root:
                    found[f"{Path(path).stem if path.name != 'snapshot.json' else path.parent.name}_{len(found)}"] = (
                        schema,
                        allowed,
                    )
    return found


@pytest.mark.skipif(not HAS_MONTY, reason="pydantic-monty not installed")
def test_the_catalogs_own_examples_and_defaults_type_check() -> None:
    examples = catalog_examples()
    assert len(examples) > 1000  # all defaults: no catalog here gives `examples`
    stubs = stubs_of(probe_snapshot({name: schema for name, (schema, _) in examples.items()}))
    script = calls([(name, repr(value)) for name, (_, given_values) in examples.items() for value in given_values])
    assert check_scripts({"examples.py": script}, stubs, "pydantic-monty") == []


# -- a result the client makes no type of ----------------------------------------------------------------


@pytest.mark.parametrize("checker", CHECKERS)
def test_a_result_the_client_makes_no_type_of_is_its_text(checker: Checker) -> None:
    """By naming rules 14 (`UNTYPED_RESULT_STUB_RULES`) a tool whose client method returns `ToolResult`
    though it lists an output schema (a `$ref` to nothing; 200 nested arrays, which every check
    before datamodel-code-generator passes and it fails on) returns its text, as the client types no
    result: main typed a `TypedDict` of the schema the client refused, so a script reading
    `["hit"]` passed `check-scripts` and `run_code` handed it whatever the server sent. A snapshot of
    rules 13 keeps its stubs."""
    from tests.drift_helpers import obj, snap, tool

    deep: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        deep = {"type": "array", "items": deep}
    arguments = obj({"q": {"type": "string"}})
    catalog = replace(
        snap(
            (
                tool("look", arguments, obj({"hit": {"$ref": "#/$defs/nope"}})),
                tool("dig", arguments, obj({"hit": {"type": "string"}, "more": deep})),
                tool("fine", arguments, obj({"hit": {"type": "string"}})),
            )
        ),
        naming_rules=NAMING_RULES,
    )
    files = render_code_mode([(catalog, {})], HubSettings())
    stub = files["demo.pyi"].decode()
    for function in ("look", "dig"):
        assert f"async def {function}(\n    *,\n    q: str = ...,\n) -> str:" in stub
    assert "async def fine(\n    *,\n    q: str = ...,\n) -> FineResult:" in stub
    assert "its client could make no type of its output schema" in stub
    results = {entry["function"]: entry["result"] for entry in json.loads(files["tools.json"])}
    assert results == {"dig": "text", "fine": "structured", "look": "text"}
    script = "import demo\n\nhit = (await demo.look(q='x'))['hit']\nfound = (await demo.fine(q='x'))['hit']\n"
    found = check_scripts({"reads.py": script}, {"demo": stub.split("\n", 2)[2]}, checker)
    assert [line.line for line in found] == [3], found
    earlier = module_stubs([(replace(catalog, naming_rules=13), {})], HubSettings())["demo"]
    assert "-> LookResult:" in earlier and "-> DigResult:" in earlier
