"""The one walk over JSON Schemas (`codegen/schemas.py`): what it visits, and what the walks built on
it (the models' and the contract's schemas, reference resolution, the work budget) get from it."""

from __future__ import annotations

import copy
import json
from pathlib import Path as FilePath
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen import schemas
from codegen.runtime import _schema_check
from codegen.runtime._schema_check import PastBudget
from codegen.runtime._schema_check import expanded_size as runtime_expanded_size
from codegen.schemas import (
    DATA_KEYWORDS,
    DEFINITIONS,
    ID_KEYWORDS,
    KEYWORDS,
    MAX_NODES,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
    SCHEMA_VALUES,
    VALUE_KEYWORDS,
    Document,
    Path,
    Visit,
    applied,
    canonical_tool,
    rebuilt,
    sorted_name_sets,
    subschemas,
    unapplied,
    walk,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"a": {"type": "string", "enum": [{"type": "data"}]}, "b": {"$ref": "#/$defs/B"}},
    "dependentRequired": {"a": ["b"]},
    "default": {"properties": {}},
    "x-extension": {"$ref": "#/$defs/B"},
    "$defs": {"B": {"anyOf": [{"type": "integer"}, True]}},
}


def test_walk_visits_objects_in_schema_position_parents_first_and_no_instance_data() -> None:
    assert [path for path, _ in subschemas(SCHEMA)] == [
        (),
        ("properties", "a"),
        ("properties", "b"),
        # not `dependentRequired` (a map of names, not of schemas), nor `x-extension`: an unknown
        # keyword is an annotation, and no validator follows the reference inside it
        ("$defs", "B"),
        ("$defs", "B", "anyOf", 0),
    ]


def test_walk_leaves_out_what_skip_names() -> None:
    visited: list[Path] = []

    def visit(path: Path, _: dict[str, Any]) -> Visit:
        visited.append(path)
        return visit

    walk(SCHEMA, visit, skip=DATA_KEYWORDS | VALUE_KEYWORDS)
    assert ("dependentRequired",) not in visited
    assert ("properties", "a") in visited


def test_a_visit_carries_state_down_and_prunes_and_leave_comes_after_the_subschemas() -> None:
    seen: list[tuple[Path, int]] = []
    left: list[Path] = []

    def at_depth(depth: int) -> Visit:
        def visit(path: Path, node: dict[str, Any]) -> Visit | None:
            seen.append((path, depth))
            return None if "anyOf" in node else at_depth(depth + 1)

        return visit

    walk(SCHEMA, at_depth(0), leave=lambda path, _: left.append(path))
    assert (("properties", "b"), 1) in seen
    assert (("$defs", "B"), 1) in seen
    assert not any(path[:3] == ("$defs", "B", "anyOf") for path, _ in seen)  # pruned below `anyOf`
    assert left[-1] == ()  # the root is left last
    assert left.index(("properties", "a")) < left.index(())


def test_rebuilt_passes_every_visited_object_through_edit_and_copies_the_rest() -> None:
    edited: list[Path] = []

    def mark(path: Path, node: dict[str, Any]) -> dict[str, Any]:
        edited.append(path)
        return {**node, "seen": True}

    copy = rebuilt(SCHEMA, mark)
    assert edited == [path for path, _ in subschemas(SCHEMA)]
    assert copy["properties"]["a"] == {"type": "string", "enum": [{"type": "data"}], "seen": True}
    assert copy["default"] == {"properties": {}}  # instance data, as it was
    assert SCHEMA["properties"]["a"] == {"type": "string", "enum": [{"type": "data"}]}  # nothing changed in place


def test_rebuilt_copies_maps_of_names_and_unknown_keywords_unwalked() -> None:
    """A map of names (`dependentRequired`) seen as a schema would lose its names to an edit that
    keeps only keywords; an unknown keyword's value is no schema an edit sees (nor its `$ref` one a
    reference resolution rewrites)."""

    def keywords_only(_: Path, node: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in node.items() if not key.startswith("a")} | {"seen": True}

    kept = rebuilt(SCHEMA, keywords_only)
    assert kept["dependentRequired"] == {"a": ["b"]}
    assert kept["x-extension"] == {"$ref": "#/$defs/B"}
    assert kept["$defs"]["B"] == {"seen": True}


def test_rebuilt_with_namespaces_keeps_a_namespace_of_definitions() -> None:
    schema = {"definitions": {"v2": {"User": {"type": "object", "title": "U"}, "note": "not a schema"}}}

    def untitled(_: Path, node: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in node.items() if key in ("type", "definitions")}

    assert rebuilt(schema, untitled) == {"definitions": {"v2": {}}}
    assert rebuilt(schema, untitled, namespaces=True) == {"definitions": {"v2": {"User": {"type": "object"}}}}


def test_references_are_resolved_once_each_under_the_base_an_id_sets() -> None:
    schema = {
        "$id": "https://example.com/root",
        "properties": {"p": {"$ref": "item"}},
        "$defs": {
            "item": {"$id": "item", "properties": {"q": {"$ref": "#/$defs/inner"}}, "$defs": {"inner": {}}},
        },
    }
    references = Document(schema).references
    assert [(reference.path, reference.target) for reference in references] == [
        (("$defs", "item", "properties", "q"), ("$defs", "item", "$defs", "inner")),  # relative to `item`'s $id
        (("properties", "p"), ("$defs", "item")),
    ]


def test_the_budget_names_the_first_subschema_that_stands_for_too_much() -> None:
    wide = {"properties": {f"p{index}": {} for index in range(MAX_NODES)}}
    with pytest.raises(PastBudget) as raised:
        Document({"properties": {"small": {}, "wide": wide}}).expanded_size()
    assert raised.value.path == ("properties", "wide")


def test_a_recursive_reference_is_followed_once_on_each_way_down() -> None:
    schema = {"$defs": {"node": {"properties": {"next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"}
    # the root and its target `node` with `next`, whose reference is then already being followed;
    # definitions count where they are referenced, not in place (the runtime's count)
    assert Document(schema).expanded_size() == 3


def test_applied_replaces_only_what_a_validator_applies() -> None:
    replaced = applied(SCHEMA | {"contentSchema": {"type": "string"}}, lambda key, _: key)
    assert replaced["properties"] == {"a": "properties", "b": "properties"}
    assert replaced["$defs"] == SCHEMA["$defs"]  # reached through `$ref`, not applied
    assert replaced["x-extension"] == SCHEMA["x-extension"]
    assert replaced["contentSchema"] == {"type": "string"}


def test_unapplied_replaces_what_applied_keeps_but_definitions_and_lists_of_names() -> None:
    node = SCHEMA | {"contentSchema": {"type": "string"}, "dependencies": {"a": {"required": ["b"]}, "c": ["d"]}}
    replaced = unapplied(node, lambda key, _: key)
    assert replaced["contentSchema"] == "contentSchema"
    assert replaced["dependencies"] == {"a": "dependencies", "c": ["d"]}
    assert replaced["$defs"] == SCHEMA["$defs"]
    assert replaced["properties"] == SCHEMA["properties"]


def test_generate_counts_a_schema_as_the_runtime_does() -> None:
    """One count, the runtime's, serves `generate` and the generated package: definitions count where
    they are referenced, and nothing inside an unknown keyword counts. Red before: `generate` counted
    the definitions in place too (12,001 here, past the budget) and the extension's subtree, where
    the runtime counted 8,001."""
    count = 4000
    schema = {
        "type": "object",
        "properties": {f"p{index}": {"$ref": f"#/$defs/d{index}"} for index in range(count)},
        "$defs": {f"d{index}": {"type": "string"} for index in range(count)},
        "x-extension": [{"properties": {"a": {}}}],
    }
    assert Document(schema).expanded_size() == runtime_expanded_size(schema) == 1 + 2 * count


def _names_sorted_by_the_walker(schema: Any) -> Any:
    """What `sorted_name_sets` must give, made with `rebuilt`: every object `walk` reaches has its
    `required` and its `dependentRequired` and `dependencies` lists of names sorted."""

    def ordered(names: Any) -> Any:
        return sorted(names) if isinstance(names, list) and all(isinstance(name, str) for name in names) else names

    def edit(_: Path, node: dict[str, Any]) -> dict[str, Any]:
        result = dict(node)
        if "required" in node:
            result["required"] = ordered(node["required"])
        for keyword in ("dependentRequired", "dependencies"):
            if isinstance(node.get(keyword), dict):
                result[keyword] = {name: ordered(names) for name, names in node[keyword].items()}
        return result

    return rebuilt(schema, edit)


UNSORTED = ["c", "a", "b"]
NAMES_EVERYWHERE: dict[str, Any] = {
    "type": "object",
    "required": UNSORTED,
    "properties": {
        "required": {"type": "array", "default": UNSORTED, "examples": [UNSORTED]},
        "inner": {"required": UNSORTED, "items": [{"required": UNSORTED}], "not": {"required": UNSORTED}},
        "picked": {"enum": [{"required": UNSORTED}], "const": {"required": UNSORTED}},
    },
    "anyOf": [{"required": UNSORTED}, [{"required": UNSORTED}]],
    "dependentRequired": {"a": UNSORTED, "b": [1, "a"]},
    "dependencies": {"a": UNSORTED, "b": {"required": UNSORTED}},
    "$defs": {"A": {"required": UNSORTED}, "v2": {"B": {"required": UNSORTED}}},
    "definitions": {"C": {"if": {"required": UNSORTED}, "then": {"required": UNSORTED}}},
    "x-extension": {"required": UNSORTED, "properties": {"d": {"required": UNSORTED}}},
    "default": {"required": UNSORTED},
}


def test_sets_of_names_are_sorted_where_the_walk_finds_schemas_and_nowhere_else() -> None:
    """`required` is a set in JSON Schema (so are the lists of `dependentRequired` and draft-07's
    `dependencies`): a server that lists them in another order on each start lists the same schema.
    Instance data, an unknown keyword's value and a property named `required` keep their order.
    Red before: no such rule, so the snapshot kept the order of the start that took it."""
    before = copy.deepcopy(NAMES_EVERYWHERE)
    result = sorted_name_sets(NAMES_EVERYWHERE)
    assert before == NAMES_EVERYWHERE, "the schema given is left as it was"
    assert result == _names_sorted_by_the_walker(NAMES_EVERYWHERE)
    assert result["required"] == result["$defs"]["v2"]["B"]["required"] == ["a", "b", "c"]
    assert result["dependentRequired"] == {"a": ["a", "b", "c"], "b": [1, "a"]}
    assert result["dependencies"] == {"a": ["a", "b", "c"], "b": {"required": ["a", "b", "c"]}}
    for kept in ("x-extension", "default"):
        assert result[kept] == NAMES_EVERYWHERE[kept], kept
    for kept in ("required", "picked"):
        assert result["properties"][kept] == NAMES_EVERYWHERE["properties"][kept], kept
    assert sorted_name_sets(result) is result, "a sorted schema is returned as it is, not copied"


_WORDS = [*SCHEMA_MAPS, *SCHEMA_LISTS, *SCHEMA_VALUES, *DATA_KEYWORDS, "required", "dependentRequired", "x-any", "a"]
_SCHEMA_LIKE = st.recursive(
    st.lists(st.sampled_from(["b", "a", "c"]), max_size=3) | st.booleans() | st.just("a"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_WORDS), inner, max_size=4),
    max_leaves=16,
)


@settings(max_examples=100, deadline=None)
@given(_SCHEMA_LIKE)
def test_the_runtime_sorts_exactly_where_the_walk_finds_schemas(schema: Any) -> None:
    """The rule lives in the shipped runtime (a live tool's fingerprint must be the snapshot's, and the
    runtime imports nothing of mcp-stubgen); it walks its own way, so it is held to `walk`'s places."""
    assert sorted_name_sets(schema) == _names_sorted_by_the_walker(schema)


def test_the_walker_and_the_runtime_share_one_vocabulary() -> None:
    """One list of keywords, the shipped runtime's: a keyword added there is the walker's too."""
    shared = ["KEYWORDS", "ID_KEYWORDS", "DATA_KEYWORDS", "VALUE_KEYWORDS", "DEFINITIONS"]
    for name in [*shared, "SCHEMA_MAPS", "SCHEMA_LISTS", "SCHEMA_VALUES"]:
        assert getattr(schemas, name) is getattr(_schema_check, name), name
    assert KEYWORDS.isdisjoint(ID_KEYWORDS) and set(DEFINITIONS) <= SCHEMA_MAPS


def test_a_definition_with_only_an_id_is_a_schema_not_a_namespace() -> None:
    """`$id` and `id` are keywords beside `KEYWORDS`: a definition holding one is sorted as a schema."""
    for key in sorted(ID_KEYWORDS):
        schema = {"$defs": {"a": {key: "urn:a", "required": ["b", "a"]}}}
        assert sorted_name_sets(schema) == {"$defs": {"a": {key: "urn:a", "required": ["a", "b"]}}}


REPO = FilePath(__file__).resolve().parent.parent
COMMITTED = sorted(REPO.glob("golden/*/snapshot.json")) + sorted(
    (REPO / "tests" / "fixtures" / "catalogs").rglob("*.json")
)


def test_real_catalogs_are_sorted_where_the_walk_finds_schemas() -> None:
    tools = [
        tool
        for path in COMMITTED
        if isinstance(document := json.loads(path.read_text(encoding="utf-8")), dict)
        for tool in document.get("tools", [])
    ]
    assert len(tools) > 500
    for tool in tools:
        expected = {
            key: _names_sorted_by_the_walker(tool[key]) for key in ("inputSchema", "outputSchema") if key in tool
        }
        assert canonical_tool(tool) == {**tool, **expected}, tool["name"]
