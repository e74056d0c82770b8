"""Schemas that used to stop or stall model generation: huge free text, and the empty object schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegen.generate import generate_package, render_snapshot
from codegen.generate.escaping import MAX_DOCSTRING_TEXT
from codegen.generate.modelgen import MAX_TEXT
from codegen.snapshot import Snapshot
from tests.conftest import forget_generated, import_generated

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
