"""Every local `$ref` form a server writes becomes a typed argument (issue 12: `#/properties/x` from
zod-to-json-schema, `$anchor`, `#`, nested `$defs`, `$id`-relative, draft-07 `$id: "#name"`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from codegen.generate import generate_package
from codegen.schemas import Document
from tests.conftest import forget_generated, import_generated
from tests.drift_helpers import obj, snap, tool

S = {"type": "string"}
ADDRESS = {"type": "object", "properties": {"street": S}, "required": ["street"]}
TOOLS = (
    tool("pointer", obj({"from": {"type": "integer"}, "to": {"$ref": "#/properties/from"}}, ("to",))),
    tool(
        "anchor", obj({"home": {"$ref": "#addr"}}, ("home",), **{"$defs": {"Address": {"$anchor": "addr", **ADDRESS}}})
    ),
    tool("itself", obj({"name": S, "child": {"$ref": "#"}}, ("name",))),
    tool(
        "nested",
        obj(
            {"inner": {"$ref": "#/$defs/outer/$defs/inner"}},
            ("inner",),
            **{"$defs": {"outer": {"$defs": {"inner": {"type": "integer"}}}}},
        ),
    ),
    tool(
        "relative",
        obj(
            {"flag": {"$ref": "item.json#/$defs/q"}},
            ("flag",),
            **{
                "$id": "https://example.com/root.json",
                "$defs": {"n": {"$id": "item.json", "$defs": {"q": {"type": "boolean"}}}},
            },
        ),
    ),
    tool(
        "draft7",
        obj({"home": {"$ref": "#address"}}, ("home",), definitions={"Address": {"$id": "#address", **ADDRESS}}),
    ),
)


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    out = tmp_path_factory.mktemp("refs")
    generate_package(snap(TOOLS), out)
    try:
        yield (out / "demo" / "client.py").read_text(), import_generated(out, "demo.models")
    finally:
        forget_generated(out)


@pytest.mark.parametrize(
    "signature",
    [
        "to: int,\n        from_: int | NotGiven = NOT_GIVEN,",
        "home: AnchorInputAddress,",
        "name: str,\n        child: ItselfInputRoot | NotGiven = NOT_GIVEN,",
        "inner: int,",
        "flag: bool,",
        "home: Draft7InputAddress,",
    ],
)
def test_each_reference_form_is_a_typed_argument(package: tuple[str, Any], signature: str) -> None:
    client, _ = package
    extra = "extra: Mapping[str, object] | NotGiven = NOT_GIVEN,"  # the roots leave more keys allowed
    options = "call_options: CallOptions | None = None,"
    assert f"        *,\n        {signature}\n        {extra}\n        {options}\n    ) -> ToolResult:" in client


def test_the_referenced_models_validate(package: tuple[str, Any]) -> None:
    _, models = package
    assert models.AnchorInputAddress.model_validate({"street": "Main"}).street == "Main"
    nested = models.ItselfInput.model_validate({"name": "a", "child": {"name": "b", "child": {"name": "c"}}})
    assert nested.child.child.name == "c"
    with pytest.raises(ValueError):
        models.Draft7InputAddress.model_validate({})


def test_references_outside_the_document_or_to_nothing_are_told_apart() -> None:
    problems = {
        reference.text: reference.problem
        for reference in Document(
            {"properties": {"a": {"$ref": "https://example.com/x.json"}, "b": {"$ref": "#nowhere"}, "c": {"$ref": 3}}}
        ).references
    }
    assert problems == {"https://example.com/x.json": "outside", "#nowhere": "dangling", 3: "must be a string, not int"}
