"""A definition several tools of a group repeat is made once in the group's datamodel-code-generator
call (`shared_definitions`), and every tool's module is byte for byte the one it gets without that."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from codegen.generate import model_batches, render_snapshot
from codegen.snapshot import JSON, Snapshot


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def _tool(name: str, properties: dict[str, Any], definitions: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {**_object(**properties), "$defs": definitions}, **more}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


PAGING = _object(cursor={"type": ["string", "null"]}, limit={"type": "integer", "minimum": 1})
FILTER = {
    **_object(
        field={"type": "string", "description": 'It\'s "quoted".'},
        op={"type": "string", "enum": ["eq", "ne", "lt"]},
        value={"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]},
        tags={"type": "array", "items": {"type": "string"}},
    ),
    "required": ["field", "op"],
}
KEYWORDS = _object(**{"from": {"type": "string"}, "class": {"type": "integer"}, "model_config": {"type": "boolean"}})
PAGED = {"type": "object", "properties": {"page": _ref("Paging")}, "$defs": {"Paging": PAGING}}

NEAR_MISSES = [
    *(
        _tool(
            f"repeat_{index}",
            {"paging": _ref("Paging"), "filters": {"type": "array", "items": _ref("Filter")}},
            {"Paging": PAGING, "Filter": FILTER},
            outputSchema={
                **_object(next=_ref("Paging")),
                "$defs": {"Paging": _object(limit={"type": "integer", "default": 10})},
            },
        )
        for index in range(5)
    ),
    # the same name, other content (among themselves, repeated)
    *(
        _tool(f"same_name_{index}", {"paging": _ref("Paging")}, {"Paging": _object(limit={"type": "integer"})})
        for index in range(2)
    ),
    # the same content under another name, and the same properties in another order
    *(_tool(f"renamed_{index}", {"page": _ref("Page")}, {"Page": PAGING}) for index in range(2)),
    *(
        _tool(f"reordered_{index}", {"paging": _ref("Paging")}, {"Paging": _object(**dict(reversed(PAGING["properties"].items())))})
        for index in range(2)
    ),
    # a definition naming a repeated one; one naming a repeated and a unique one; one naming itself
    _tool("nested", {"query": _ref("Query")}, {"Query": _object(filter=_ref("Filter")), "Filter": FILTER}),
    _tool(
        "mixed",
        {"search": _ref("Search")},
        {"Search": _object(filter=_ref("Filter"), sort=_ref("Sort")), "Filter": FILTER, "Sort": _object(by={"type": "string"})},
    ),
    _tool(
        "walk_tree",  # last of its group, so its `model_rebuild()` can be cut with its classes
        {"node": _ref("Node"), "paging": _ref("Paging")},
        {"Node": _object(children={"type": "array", "items": _ref("Node")}), "Paging": PAGING},
    ),
    # the definition's class name taken by an inline object's first; titled after another definition
    _tool("colliding", {"paging": _object(size={"type": "integer"}), "page": _ref("Paging")}, {"Paging": PAGING}),
    *(
        _tool(
            f"titled_{index}",
            {"paging": _ref("Paging"), "filter": _ref("Filter")},
            {"Paging": {**PAGING, "title": "Filter"}, "Filter": FILTER},
        )
        for index in range(2)
    ),
    # draft-07's `definitions`; keywords and a pydantic attribute as property names
    {"name": "legacy", "inputSchema": {**_object(filter={"$ref": "#/definitions/Filter"}), "definitions": {"Filter": FILTER}}},
    *(_tool(f"odd_{index}", {"odd": _ref("Odd")}, {"Odd": KEYWORDS}) for index in range(2)),
    # in both schemas of one tool; and a reference to a definition under the property itself
    _tool("twice", {"paging": _ref("Paging")}, {"Paging": PAGING}, outputSchema={**PAGED}),
    _tool("inner", {"wrap": {**PAGED, "properties": {"page": {"$ref": "#/properties/wrap/$defs/Paging"}}}}, {}),
]  # fmt: skip


def _snapshot(tools: list[dict[str, Any]], naming_rules: int) -> Snapshot:
    snapshot = Snapshot(server="shared", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))
    return replace(snapshot, naming_rules=naming_rules)


def _calls(monkeypatch: pytest.MonkeyPatch) -> list[list[JSON]]:
    """Every group's datamodel-code-generator call, as the tools it is shown."""
    calls: list[list[JSON]] = []
    run = model_batches.run_datamodel

    def recorded(entries: list[JSON]) -> object:
        calls.append(entries)
        return run(entries)

    monkeypatch.setattr(model_batches, "run_datamodel", recorded)
    return calls


@pytest.mark.parametrize("naming_rules", [1, 2, 3, 4, 5, 6])
def test_repeated_definitions_made_once_give_the_package_made_with_every_copy(
    monkeypatch: pytest.MonkeyPatch, naming_rules: int
) -> None:
    """Near misses beside real repeats: the same name with other content, the same content under
    other names or in another order, definitions naming repeated ones and themselves, a name an
    inline object takes first, a title, `definitions`, keyword property names, both schemas of a
    tool. Each repeated definition is shown to datamodel-code-generator once a group, and every file
    is the one made with every copy."""
    snapshot = _snapshot(NEAR_MISSES, naming_rules)
    calls = _calls(monkeypatch)
    shared = render_snapshot(snapshot)
    assert len(calls) == 2, "each group made in one call"
    filters = [json.dumps(entries).count('"enum": ["eq", "ne", "lt"]') for entries in calls]
    assert filters == [1, 1], filters  # 8 tools of the first group carry the same `Filter`, 2 of the second
    monkeypatch.setattr(model_batches, "shared_call", lambda entries: None)
    every_copy = render_snapshot(snapshot)
    assert shared.keys() == every_copy.keys()
    for name, data in every_copy.items():
        assert shared[name] == data, name
    modules = b"".join(data for name, data in shared.items() if name.startswith("_models/")).decode()
    assert "class Repeat4InputFilter(BaseModel)" in modules
    assert "class Renamed1InputPage(BaseModel)" in modules


def test_a_group_whose_module_does_not_come_back_as_expected_is_made_with_every_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the module made with stubs is not what the check expects, the group is made again with
    every copy: the same files."""
    snapshot = _snapshot(NEAR_MISSES, 6)
    expected = render_snapshot(snapshot)
    monkeypatch.setattr(model_batches, "with_shared_classes", lambda module, call: None)
    assert render_snapshot(snapshot) == expected
