"""Comparison details the per-rule table does not pin down: refs that cannot be followed, renames
carrying their remaining differences, and a deterministic order."""

from __future__ import annotations

from codegen.drift import compare_snapshots
from tests.drift_helpers import inputs, obj, rules, snap, tool

S = {"type": "string"}


def test_changed_unresolvable_ref_is_uncomparable() -> None:
    pair = inputs({"$ref": "https://example.com/a.json"}, {"$ref": "https://example.com/b.json"})
    assert rules(pair) == ["schema-uncomparable"]
    assert rules(inputs({"$ref": "#/$defs/Missing"}, {"$ref": "#/$defs/Missing"})) == []


def test_recursive_schema_change_inside_the_cycle_is_found() -> None:
    def tree(leaf: dict[str, object]) -> dict[str, object]:
        node = obj({"value": leaf, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}})
        return {"$defs": {"Node": node}, **obj({"root": {"$ref": "#/$defs/Node"}}, ("root",))}

    before, after = tree({"type": "number"}), tree({"type": "integer"})
    found = compare_snapshots(snap((tool(inp=before),)), snap((tool(inp=after),)))
    assert [(f.rule, f.path) for f in found] == [
        ("in-type-narrowed", "/inputSchema/properties/root/properties/value/type")
    ]


def test_rename_is_reported_once_with_its_remaining_differences() -> None:
    old = snap((tool("get_city", obj({"city": S, "days": {"type": "integer"}, "units": S}, ("city",))),))
    new = snap((tool("fetch_city", obj({"city": S, "days": {"type": "integer"}, "units": S}, ("city", "units"))),))
    found = compare_snapshots(old, new)
    assert [(f.rule, f.name, f.old_name) for f in found] == [
        ("tool-renamed", "fetch_city", "get_city"),
        ("in-became-required", "fetch_city", "get_city"),
    ]
    renamed = found[0]
    assert renamed.similarity is not None and 0.8 <= renamed.similarity < 1.0


def test_order_of_findings_does_not_depend_on_input_order() -> None:
    tools_before = (tool("a", obj({"x": S})), tool("b", obj({"x": S})), tool("c"))
    tools_after = (tool("c", description="new"), tool("b", obj({"x": {"type": "integer"}})))
    forward = compare_snapshots(snap(tools_before), snap(tools_after))
    backward = compare_snapshots(snap(tools_before[::-1]), snap(tools_after[::-1]))
    assert forward == backward
    assert [f.severity.value for f in forward] == sorted(
        (f.severity.value for f in forward), key=["breaking", "dangerous", "safe"].index
    )
