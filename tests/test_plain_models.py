"""What stands in for datamodel-code-generator's work agrees with it: the models modules
`plain_models` writes are byte for byte the ones datamodel-code-generator and `modelgen`'s passes
make, and every schema `guard.plainly_valid` vouches for is one its `JsonSchemaObject` accepts: on
every catalog the repository holds, on schemas drawn at random in and around what each takes, and
as whole packages."""

from __future__ import annotations

import keyword
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.plain_models import CATALOGS, at_rules, benchmark_catalog, catalog_name, compared, model_jobs
from codegen.errors import StubgenError
from codegen.generate import dcg_speedups, guard, model_batches, render_snapshot
from codegen.generate.cache import Cache
from codegen.generate.guard import check_tool_schemas, plainly_valid
from codegen.generate.modelgen import ModelJob, datamodel_entry, for_datamodel, model_source
from codegen.generate.package_plan import plan_package
from codegen.generate.plain_models import plain_source, plainly_typed
from codegen.generate.tool_workers import tool_specs
from codegen.identifiers import NAMING_RULES
from codegen.snapshot import Snapshot, load_snapshot
from tests.conftest import REPO

SAMPLED = 8
"""Plain tools compared per catalog and naming rules: half a datamodel-code-generator group."""


def _without_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_batches, "plain_source", lambda job, entry: None)


@pytest.mark.parametrize("path", [*CATALOGS, None], ids=lambda path: catalog_name(path) if path else "benchmark")
def test_every_plain_module_of_a_real_catalog_is_the_one_datamodel_code_generator_makes(path: Path | None) -> None:
    """The tools of the catalog `plain_source` writes (up to `SAMPLED` spread over the catalog), at
    the catalog's naming rules and the current ones, against the same tools made by
    datamodel-code-generator in groups, as a cold run makes them (`benchmarks/plain_models.py`
    compares every tool of every catalog)."""
    snapshot = benchmark_catalog(64) if path is None else load_snapshot(path)
    for rules in sorted({snapshot.naming_rules, NAMING_RULES}):
        jobs = list(model_jobs(at_rules(snapshot, rules)))
        plain = [job for job in jobs if plain_source(job, datamodel_entry(job)) is not None]
        pairs, _, _ = compared(plain[:: -(-len(plain) // SAMPLED) or 1])
        for job, source, expected in pairs:
            assert source == expected, job.stem


def test_most_tools_of_the_real_catalogs_are_plain() -> None:
    """What the path is for: most real tools' schemas are plain (2,083 of 2,407 tools of the
    repository's catalogs, at their own naming rules, when it was written)."""
    jobs = [job for path in CATALOGS for job in model_jobs(load_snapshot(path))]
    plain = sum(plain_source(job, datamodel_entry(job)) is not None for job in jobs)
    assert plain / len(jobs) > 0.6


def test_a_package_is_the_same_bytes_with_and_without_plain_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file, the client's annotations and the contracts included, on a catalog of plain and
    other tools."""
    snapshot = load_snapshot(REPO / "tests" / "fixtures" / "catalogs" / "more" / "grafana.json")
    with_plain = render_snapshot(snapshot)
    _without_plain(monkeypatch)
    assert render_snapshot(snapshot) == with_plain


def test_another_datamodel_code_generator_release_makes_every_module_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """The path is proven against the pinned release only: under any other, its modules are that
    release's to make, as `dcg_speedups` is installed for the pinned one only."""
    job = ModelJob({"name": "t", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}, "T", 11)
    assert plain_source(job, datamodel_entry(job)) is not None
    monkeypatch.setattr(dcg_speedups, "tool_versions", lambda: ("0", "0.90.0", "0"))
    dcg_speedups.proven_release.cache_clear()
    try:
        assert plain_source(job, datamodel_entry(job)) is None
    finally:
        monkeypatch.undo()
        dcg_speedups.proven_release.cache_clear()


def test_a_format_datamodel_code_generator_adds_a_pattern_for_is_left_to_it() -> None:
    """`hostname` gets a pattern of datamodel-code-generator's own (found on its own test schemas,
    `benchmarks/plain_models.py --external`): the module is its, pattern and all."""
    schema = {"type": "object", "properties": {"host": {"type": "string", "format": "hostname"}}}
    job = ModelJob({"name": "t", "inputSchema": schema}, "T", NAMING_RULES)
    assert plain_source(job, datamodel_entry(job)) is None
    assert "pattern=" in model_source("s", job)


def test_an_object_with_a_keyword_beyond_the_plain_ones_is_left_to_datamodel_code_generator() -> None:
    """A definition that extends another by `allOf` beside `type: object` became an empty class here,
    a subclass there (datamodel-code-generator's `use_generic_base_class_multi_root` test schema)."""
    definitions = {
        "Animal": {"type": "object", "properties": {"name": {"type": "string"}}},
        "Dog": {"type": "object", "allOf": [{"$ref": "#/$defs/Animal"}, {"properties": {"breed": {"type": "string"}}}]},
    }
    job = ModelJob({"name": "t", "inputSchema": {"type": "object", "$defs": definitions}}, "T", NAMING_RULES)
    assert plain_source(job, datamodel_entry(job)) is None
    assert "class TInputDog(TInputAnimal)" in model_source("s", job)


def test_an_output_default_too_long_for_its_line_is_left_to_datamodel_code_generator() -> None:
    """By naming rules 12 `modelgen` writes such a default `Field(default=...)` and black lays it out
    (`LONG_DEFAULT_RULES`); `plain_models` writes no line too wide, so the module is datamodel-code-generator's."""
    note = {"type": "string", "default": "x" * 120}
    schema = {"type": "object", "properties": {"note": note}}
    job = ModelJob({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}, "T", NAMING_RULES)
    assert plain_source(job, datamodel_entry(job)) is None
    assert f'    note: str = Field(\n        default="{note["default"]}"\n    )\n' in model_source("s", job)


# Schemas drawn in and around what `plain_models` writes: names it takes and names it leaves
# (camelCase, digits, hyphens, keywords, pydantic's and the module's own names, names that are one
# attribute once made snake_case), texts with quotes, escapes and wide characters, long lines, enums,
# unions, nested objects, arrays, definitions, constraints and output defaults.
_NAMES = st.one_of(
    st.from_regex(r"[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,5}){0,3}", fullmatch=True),
    st.from_regex(r"[a-z]{1,6}([A-Z][a-z]{1,5}){1,3}", fullmatch=True),
    st.sampled_from(["id", "type", "list", "str", "dict", "json", "schema", "copy", "class", "from", "model_config"]),
    st.sampled_from(["userID", "s3Key", "x-y", "Upper", "data", "items", "tags", "a1b", "field", "none"]),
    st.sampled_from(["userName", "user_name", "user-name", "user_name_1"]),  # one attribute for several
    st.sampled_from(sorted(keyword.kwlist)),
)
_TEXT = st.one_of(
    st.from_regex(r"[A-Za-z ,.()'/:-]{0,60}", fullmatch=True),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30),
    st.sampled_from(['say "hi"', "it's", 'it\'s "x"', "a\\b", "line\nbreak", "宽字符" * 12, "x" * 95]),
)
_NUMBERS = st.one_of(st.integers(-1000, 10**6), st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 2)))


def _scalar() -> st.SearchStrategy[dict[str, Any]]:
    texts = st.fixed_dictionaries({}, optional={"description": _TEXT, "title": _TEXT})
    kinds = st.one_of(
        st.fixed_dictionaries({"type": st.just("string")}, optional={"maxLength": st.integers(0, 300), "minLength": st.integers(0, 3), "format": st.sampled_from(["date", "email", "uri", "hostname", "markdown"])}),
        st.fixed_dictionaries({"type": st.sampled_from(["integer", "number"])}, optional={"minimum": _NUMBERS, "maximum": _NUMBERS, "exclusiveMinimum": _NUMBERS, "format": st.sampled_from(["int64", "double", "date-time"])}),
        st.just({"type": "boolean"}),
        st.fixed_dictionaries({"type": st.just("string"), "enum": st.lists(_TEXT, min_size=1, max_size=4)}),
        st.fixed_dictionaries({"type": st.lists(st.sampled_from(["string", "integer", "number", "boolean", "null"]), min_size=1, max_size=3)}),
        st.fixed_dictionaries({"anyOf": st.lists(st.sampled_from([{"type": "string"}, {"type": "integer"}, {"type": "null"}]), min_size=2, max_size=3)}),
        st.fixed_dictionaries({"anyOf": st.tuples(st.sampled_from([{"type": "array", "items": {"type": "string"}}, {"type": "array"}, {"type": "object", "additionalProperties": {"type": "integer"}}, {"type": "string", "enum": ["a", "b"]}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]), st.just({"type": "null"})).map(list)}),
        st.just({}),
        st.fixed_dictionaries({"type": st.just("array")}, optional={"items": st.sampled_from([{"type": "string"}, {"type": "integer"}, {}]), "minItems": st.integers(0, 2)}),
        st.fixed_dictionaries({"type": st.just("object"), "additionalProperties": st.sampled_from([True, {"type": "string"}])}),
        st.fixed_dictionaries({"type": st.just("object"), "additionalProperties": st.just({}), "propertyNames": st.sampled_from([{"type": "string"}, {"type": "string", "maxLength": 3}])}),
        st.fixed_dictionaries({"type": st.just("string"), "pattern": st.just("^a")}),
    )  # fmt: skip
    defaults = st.fixed_dictionaries({}, optional={"default": st.one_of(st.none(), st.booleans(), _NUMBERS, _TEXT)})
    return st.tuples(kinds, texts, defaults).map(lambda parts: {**parts[0], **parts[1], **parts[2]})


def _object(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    values = (
        _scalar() if depth == 0 else st.one_of(_scalar(), _scalar(), _object(depth - 1), _array_of(_object(depth - 1)))
    )
    return st.dictionaries(
        _NAMES, values, max_size=5
    ).flatmap(
        lambda properties: st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.just(properties),
                "required": st.lists(st.sampled_from(sorted(properties)), unique=True) if properties else st.just([]),
            },
            optional={
                "additionalProperties": st.booleans(),
                "description": _TEXT,
                "minProperties": st.just(1),  # a keyword of objects beyond the plain ones
                "allOf": st.just([{"required": sorted(properties)[:1]}]),
            },
        )
    )


def _array_of(items: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return items.map(lambda item: {"type": "array", "items": item})


def _with_definitions(schema: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any]:
    if not definitions:
        return schema
    references = {f"ref_{name.lower()}": {"$ref": f"#/$defs/{name}"} for name in definitions}
    return {**schema, "properties": {**schema["properties"], **references}, "$defs": definitions}


_TOOLS = st.fixed_dictionaries(
    {
        "name": st.just("tool"),
        "inputSchema": st.tuples(
            _object(2), st.dictionaries(st.sampled_from(["Paging", "Filter", "Item"]), _object(0), max_size=2)
        ).map(lambda parts: _with_definitions(*parts)),
    },
    optional={"outputSchema": _object(1)},
)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    tool=_TOOLS,
    stem=st.sampled_from(["Tool", "GetUser", "Search2"]),
    rules=st.integers(1, NAMING_RULES),
)
def test_a_schema_drawn_at_random_is_left_alone_or_written_as_datamodel_code_generator_writes_it(
    tool: dict[str, Any], stem: str, rules: int
) -> None:
    job = ModelJob(tool, stem, rules)
    try:
        findings = check_tool_schemas("s", tool)
    except StubgenError:
        return
    if findings.untypable is not None:
        return
    source = plain_source(job, datamodel_entry(job))
    if source is not None:
        assert source == model_source("s", job)


def test_the_drawn_schemas_are_mostly_plain() -> None:
    """The random test above is not vacuous: a share of what it draws is written here (13-25% in long
    runs; which draws a process makes depends on what hypothesis ran in it before, so the floor is low)."""
    examples: list[bool] = []

    @settings(max_examples=60, deadline=None, derandomize=True, database=None)
    @given(tool=_TOOLS)
    def draw(tool: dict[str, Any]) -> None:
        job = ModelJob(tool, "Tool", NAMING_RULES)
        examples.append(plain_source(job, datamodel_entry(job)) is not None)

    draw()
    assert sum(examples) / len(examples) > 0.05, f"{sum(examples)} of {len(examples)}"


def _json_schema_object_accepts(schema: Any) -> bool:
    from datamodel_code_generator.parser._schema_object import JsonSchemaObject
    from pydantic import ValidationError

    try:
        JsonSchemaObject.model_validate(schema)
    except (ValidationError, RecursionError, ValueError):
        return False
    return True


def test_every_schema_of_a_real_catalog_plainly_valid_is_one_datamodel_code_generator_accepts() -> None:
    """As `guard` checks them (prepared for datamodel-code-generator) and as sent; and the check is
    worth having: most real schemas are plainly valid (2,983 of 3,378 as prepared when written)."""
    prepared = [
        for_datamodel(tool[key], None, NAMING_RULES)
        for path in CATALOGS
        for tool in load_snapshot(path).tools
        for key in ("inputSchema", "outputSchema")
        if isinstance(tool.get(key), dict)
    ]
    sent = [
        tool[key]
        for path in CATALOGS
        for tool in load_snapshot(path).tools
        for key in ("inputSchema", "outputSchema")
        if key in tool
    ]
    vouched = [schema for schema in [*prepared, *sent] if plainly_valid(schema)]
    assert [schema for schema in vouched if not _json_schema_object_accepts(schema)] == []
    assert sum(map(plainly_valid, prepared)) / len(prepared) > 0.8


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.lists(st.one_of(st.text(max_size=3), st.integers(), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=3), st.one_of(st.integers(), st.text(max_size=3)), max_size=2),
)
"""Values of every JSON kind, for any keyword: most are the wrong kind for it."""


def _drawn_schema(depth: int) -> st.SearchStrategy[Any]:
    """A schema of the keywords `plainly_valid` knows and a few it does not, each with a value of its
    own kind (a text, a count, a number, a flag, a list of names, schemas; four times in six) or of
    any other, nested."""
    inner = st.one_of(st.booleans(), _drawn_schema(depth - 1)) if depth else st.just({"type": "string"})
    own_kind = {
        guard._text: st.text(max_size=5),
        guard._anything: _VALUES,
        guard._flag: st.booleans(),
        guard._count: st.integers(-(2**70), 2**70),
        guard._number: st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False)),
        guard._types: st.one_of(
            st.sampled_from(["string", "object", "null", "x"]), st.lists(st.text(max_size=3), max_size=3)
        ),
        guard._list: st.lists(_VALUES, max_size=3),
        guard._names: st.lists(st.text(max_size=3), max_size=3),
        guard._schema: inner,
        guard._schemas: st.lists(inner, max_size=2),
        guard._schema_map: st.dictionaries(st.text(max_size=3), inner, max_size=2),
    }
    known = [
        st.tuples(st.just(key), st.one_of(*[own_kind[check]] * 4, _VALUES, inner))
        for key, check in guard._PLAIN_KEYWORDS.items()
    ]
    unknown = st.tuples(st.sampled_from(["discriminator", "id", "$id", "x-enum-varnames", "customTypePath"]), _VALUES)
    return st.lists(st.one_of(*known, unknown), max_size=4).map(dict)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(schema=_drawn_schema(2))
def test_a_schema_drawn_at_random_that_is_plainly_valid_is_one_datamodel_code_generator_accepts(schema: Any) -> None:
    if plainly_valid(schema):
        assert _json_schema_object_accepts(schema), schema


def test_the_drawn_schemas_are_often_plainly_valid() -> None:
    """The random test above is not vacuous (about a tenth of its draws when written)."""
    vouched: list[bool] = []

    @settings(max_examples=200, deadline=None, derandomize=True, database=None)
    @given(schema=_drawn_schema(2))
    def draw(schema: Any) -> None:
        vouched.append(plainly_valid(schema))

    draw()
    assert sum(vouched) / len(vouched) > 0.05, f"{sum(vouched)} of {len(vouched)}"


def test_a_plain_tool_is_built_without_datamodel_code_generator_pydantic_or_black() -> None:
    """What a warm worker or a redo (`last_render`) given one changed tool loads: a tool with `$defs`
    and `$ref`s, as FastMCP servers write them, made into models and methods here loaded
    datamodel-code-generator's schema model (0.3 s), pydantic's `BaseModel` for its attribute names,
    and pydantic and pydantic-core (20 ms) for its `to_camel` and a pattern check."""
    script = """
import sys
from codegen.generate.cache import Cache
from codegen.generate.package_plan import plan_package
from codegen.generate.tool_workers import load_method_builders, tool_parts
from codegen.snapshot import Snapshot

query = {"type": "object", "properties": {"text": {"type": "string"}, "limit": {"type": "integer"}}}
schema = {
    "type": "object",
    "$defs": {"Query": query},
    "properties": {"query": {"$ref": "#/$defs/Query"}, "tags": {"type": "array", "items": {"type": "string"}}},
    "required": ["query"],
}
snapshot = Snapshot(server="s", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=({"name": "find", "inputSchema": schema},))
load_method_builders()
plan = plan_package(snapshot)  # a snapshot's reader has loaded pydantic-core; a redo reads none
before = set(sys.modules)
[parts] = tool_parts("s", plan.tools, Cache.disabled())
assert parts.spec.input_kind == "keywords", parts.spec
roots = ("datamodel_code_generator", "black", "pydantic", "pydantic_core")
print(sorted(name for name in set(sys.modules) - before if name.split(".")[0] in roots))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(
    name=st.text(alphabet=st.sampled_from("aBz_1Z9_ \n-é\u01c5\u00df"), max_size=14)
    | st.from_regex(r"[a-z_][a-zA-Z0-9_]{0,20}")
)
def test_the_camel_alias_is_pydantics_to_camel(name: str) -> None:
    """`model_reader.camel_alias` answers for pydantic's `to_camel` without importing it (the installed
    release is one it was checked against); the generated models ask pydantic itself at run time."""
    from pydantic.alias_generators import to_camel

    from codegen.generate.model_reader import _camel, known_pydantic

    assert known_pydantic()
    assert _camel(name) == to_camel(name)


def test_the_camel_alias_is_pydantics_to_camel_for_every_property_of_the_real_catalogs() -> None:
    from pydantic.alias_generators import to_camel

    from codegen.generate.model_reader import _camel

    names = {
        name
        for path in CATALOGS
        for tool in load_snapshot(path).tools
        for schema in (tool.get("inputSchema"), tool.get("outputSchema"))
        if isinstance(schema, dict)
        for name in _property_names(schema)
    }
    assert len(names) > 1000
    assert [name for name in sorted(names) if _camel(name) != to_camel(name)] == []


def _property_names(schema: Any) -> set[str]:
    found: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict):
                found.update(properties)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return found


def _typed_by_datamodel_code_generator(tools: list[dict[str, Any]], rules: int) -> list[bool]:
    """Whether `generate` types each tool's method (its arguments, and its result where it lists an
    output schema) or refuses it, with every module made by datamodel-code-generator: the decision
    `plainly_typed` must foresee without it."""
    snapshot = Snapshot(server="s", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))
    plans = plan_package(replace(snapshot, naming_rules=rules)).tools
    original = model_batches.plain_source
    model_batches.plain_source = lambda job, entry: None
    try:
        specs = tool_specs("s", plans, Cache.disabled())
    finally:
        model_batches.plain_source = original
    return [
        spec is None or (spec.input_kind != "untyped" and ("outputSchema" not in tool or spec.output_kind != "result"))
        for tool, spec in zip(tools, specs, strict=True)
    ]


@pytest.mark.parametrize("path", CATALOGS, ids=catalog_name)
def test_a_real_tool_plainly_typed_is_one_the_generator_types(path: Path) -> None:
    """Every tool `plain_source` writes is `plainly_typed`, and every other tool it vouches for (a
    name, a format or a line `plain_source` leaves to datamodel-code-generator) is typed when
    datamodel-code-generator makes its models: drift reads a typed method off it
    (`typing_changes`)."""
    snapshot = load_snapshot(path)
    rules = snapshot.naming_rules
    for job in model_jobs(snapshot):
        if plain_source(job, datamodel_entry(job)) is not None:
            assert plainly_typed(job.tool, rules), job.tool["name"]
    vouched = [tool for tool in snapshot.tools if plainly_typed(tool, rules)]
    left = [
        tool
        for tool in vouched
        if plain_source(ModelJob(tool, "Tool", rules), datamodel_entry(ModelJob(tool, "Tool", rules))) is None
    ]
    assert all(_typed_by_datamodel_code_generator(left, rules)), [tool["name"] for tool in left]


@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool=_TOOLS, rules=st.integers(1, NAMING_RULES))
def test_a_drawn_tool_plainly_typed_is_one_the_generator_types(tool: dict[str, Any], rules: int) -> None:
    if plainly_typed(tool, rules):
        assert _typed_by_datamodel_code_generator([tool], rules) == [True]


def test_a_tool_no_type_is_made_from_is_not_plainly_typed() -> None:
    """The near misses: a `$ref` to nothing, an output schema nested past what datamodel-code-generator
    makes, arguments that are not an object."""
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        deep = {"type": "array", "items": deep}
    plain = {"type": "object", "properties": {"q": {"type": "string"}}}
    for tool in (
        {"name": "t", "inputSchema": {**plain, "properties": {"q": {"$ref": "#/$defs/nope"}}}},
        {"name": "t", "inputSchema": plain, "outputSchema": {**plain, "properties": {"q": deep}}},
        {"name": "t", "inputSchema": {"type": "string"}},
    ):
        assert _typed_by_datamodel_code_generator([tool], NAMING_RULES) == [False]
        assert not plainly_typed(tool, NAMING_RULES)
    assert plainly_typed({"name": "t", "inputSchema": plain, "outputSchema": plain}, NAMING_RULES)
