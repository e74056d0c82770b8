"""Schemas that used to stop or stall model generation: huge free text, huge value sets, and the empty
object schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codegen.generate import generate_package, render_snapshot
from codegen.generate.code_mode import render_code_mode
from codegen.generate.escaping import MAX_DOCSTRING_TEXT
from codegen.generate.hub import HubSettings
from codegen.generate.modelgen import MAX_TEXT, for_datamodel
from codegen.identifiers import MAX_LITERAL_VALUES, MAX_LITERAL_VALUES_BEFORE_RULES_11, NAMING_RULES, WIDE_ENUM_RULES
from codegen.snapshot import Snapshot
from tests.conftest import forget_generated, import_generated, recording_server

TEN_MB = 10 * 1024 * 1024


def snapshot(*tools: dict[str, Any], server: str = "limits") -> Snapshot:
    return Snapshot(server=server, protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tools)


def test_a_ten_megabyte_description_is_cut_for_the_models_not_lost() -> None:
    """datamodel-code-generator is superlinear in a text's length (10 MB took over 20 minutes): it gets
    the first `MAX_TEXT` characters; the docstring keeps far more, cut only past `MAX_DOCSTRING_TEXT`."""
    text = ("All work and no play makes Jack a dull boy. " * (TEN_MB // 44 + 1))[:TEN_MB]
    tool = {
        "name": "dull",
        "description": text,
        "inputSchema": {"type": "object", "properties": {"note": {"type": "string", "description": text}}},
    }
    files = render_snapshot(snapshot(tool))
    models = files["_models/dull.py"].decode()
    client = files["client.py"].decode()
    assert f"[cut: {TEN_MB:,} characters in the snapshot]" in models
    assert len(models) < 2 * MAX_TEXT + 2000
    assert (
        client.count(f"[cut: {TEN_MB:,} characters in the snapshot]") == 4
    )  # the summary and the argument, in the client and its sync twin
    assert MAX_DOCSTRING_TEXT < len(client) < 5 * MAX_DOCSTRING_TEXT  # two methods of two docstrings


def test_a_short_description_is_kept_whole() -> None:
    text = "word " * (MAX_TEXT // 5)
    tool = {
        "name": "t",
        "inputSchema": {"type": "object", "properties": {"x": {"type": "string", "description": text}}},
    }
    assert "[cut:" not in b"".join(render_snapshot(snapshot(tool)).values()).decode()


def test_the_empty_schema_is_a_tool_without_parameters(tmp_path: Path) -> None:
    """`inputSchema: {}` is valid and means "any object": a method whose one parameter is `extra`
    (any arguments by wire name), and an empty `outputSchema` an open model that keeps every field
    the server returns."""
    generate_package(snapshot({"name": "anything", "inputSchema": {}, "outputSchema": {}}, server="empty"), tmp_path)
    client = (tmp_path / "empty" / "client.py").read_text()
    assert (
        "async def anything(\n        self,\n        *,\n"
        "        extra: Mapping[str, object] | NotGiven = NOT_GIVEN,\n        call_options: CallOptions | None = None,\n    ) -> AnythingOutput:"
    ) in client
    assert (
        '"anything",\n            _models.anything._CONTRACT,\n            {},\n            _models.anything.AnythingOutput,\n'
        "            extra=extra," in client
    )
    try:
        models = import_generated(tmp_path, "empty.models")
        assert models.AnythingInput.model_validate({}).model_dump(exclude_unset=True) == {}
        output = models.AnythingOutput.model_validate({"count": 3, "nested": {"a": [1]}})
        assert output.model_dump() == {"count": 3, "nested": {"a": [1]}}
    finally:
        forget_generated(tmp_path)


def test_an_untyped_root_with_properties_gets_its_arguments() -> None:
    tool = {"name": "t", "inputSchema": {"properties": {"x": {"type": "integer"}}, "required": ["x"]}}
    assert (
        "    async def t(\n        self,\n        *,\n        x: int,\n"
        "        extra: Mapping[str, object] | NotGiven = NOT_GIVEN,\n        call_options: CallOptions | None = None,\n    ) -> ToolResult:\n"
        in render_snapshot(snapshot(tool))["client.py"].decode()
    )


def test_five_thousand_properties_become_keyword_arguments_that_validate(tmp_path: Path) -> None:
    """Issue 6's widest catalog: one tool with 5,000 properties generates, imports and validates."""
    properties = {f"field_{index}": {"type": "integer"} for index in range(5000)}
    wide = {"name": "wide", "inputSchema": {"type": "object", "properties": properties, "required": ["field_0"]}}
    generate_package(snapshot(wide, server="wide"), tmp_path)
    client = (tmp_path / "wide" / "client.py").read_text(encoding="utf-8")
    assert "field_0: int," in client and "field_4999: int | NotGiven = NOT_GIVEN" in client
    try:
        models = import_generated(tmp_path, "wide.models")
        given = models.WideInput(field_0=1, field_4999=3)
        assert given.model_dump(exclude_unset=True) == {"field_0": 1, "field_4999": 3}
    finally:
        forget_generated(tmp_path)


def zones(count: int) -> list[str]:
    return [f"zone-{index:05d}" for index in range(count)]


def test_more_values_than_one_literal_holds_are_typed_as_their_json_type() -> None:
    """An `enum`, or an `anyOf` or `oneOf` of `const`s, past `MAX_LITERAL_VALUES` reaches
    datamodel-code-generator as the values' JSON types, beside the union's other branches; a snapshot
    of rules 1 to 10 keeps its `Literal` up to `MAX_LITERAL_VALUES_BEFORE_RULES_11`."""

    def prepared(schema: dict[str, Any], rules: int = NAMING_RULES) -> Any:
        return for_datamodel({"type": "object", "properties": {"zone": schema}}, None, rules)["properties"]["zone"]

    assert NAMING_RULES >= WIDE_ENUM_RULES == 11
    kept = {"type": "string", "enum": zones(MAX_LITERAL_VALUES)}
    assert prepared(kept) == kept
    assert prepared({"type": "string", "enum": zones(MAX_LITERAL_VALUES + 1)}) == {"type": "string"}
    assert prepared({"enum": [*range(MAX_LITERAL_VALUES), 0.5, None]}) == {"type": ["null", "number"]}
    branches = [{"const": zone, "title": zone} for zone in zones(MAX_LITERAL_VALUES + 1)]
    assert prepared({"oneOf": [*branches[:1], {"type": "integer"}, *branches[1:]]}) == {
        "oneOf": [{"type": "string"}, {"type": "integer"}]
    }
    assert prepared({"anyOf": [{"enum": [True, False]}, *branches]}) == {"anyOf": [{"type": ["boolean", "string"]}]}
    assert prepared({"anyOf": branches[:MAX_LITERAL_VALUES]}) == {"anyOf": branches[:MAX_LITERAL_VALUES]}
    earlier = {"type": "string", "enum": zones(MAX_LITERAL_VALUES_BEFORE_RULES_11)}
    assert prepared(earlier, rules=10) == earlier
    past = {"type": "string", "enum": zones(MAX_LITERAL_VALUES_BEFORE_RULES_11 + 1)}
    assert prepared(past, rules=10) == {"type": "string"}


async def test_a_thirty_thousand_value_enum_is_a_str_the_runtime_still_checks(tmp_path: Path) -> None:
    """A 30,000-value `enum` took 34 s of CPU to generate, a `Literal` of them all written three times
    over by black. It is typed `str` in the model, both methods and code mode's stub, and the client
    still refuses a value outside it before anything is sent."""
    from mcp import Client

    schema = {"type": "object", "properties": {"zone": {"type": "string", "enum": zones(30_000)}}, "required": ["zone"]}
    server, received = recording_server("zones", "pick", schema)

    wide = snapshot({"name": "pick", "inputSchema": schema}, server="zones")
    generate_package(wide, tmp_path)
    client = (tmp_path / "zones" / "client.py").read_text(encoding="utf-8")
    models = (tmp_path / "zones" / "_models" / "pick.py").read_text(encoding="utf-8")
    assert client.count("        zone: str,\n") == 2
    assert "    zone: str\n" in models and "Literal" not in models
    stub = render_code_mode([(wide, {})], HubSettings())["zones.pyi"].decode()
    assert "    zone: str,\n" in stub and "Literal" not in stub
    try:
        package = import_generated(tmp_path, "zones")
        async with Client(server, cache=None) as session:
            typed = package.ZonesClient(session)
            await typed.pick(zone="zone-29999")
            with pytest.raises(package.ToolArgumentsError, match="argument zone: 'zone-30000' is not one of"):
                await typed.pick(zone="zone-30000")
        assert received == [{"zone": "zone-29999"}]
    finally:
        forget_generated(tmp_path)
