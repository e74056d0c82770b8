"""The snapshot's own JSON encoder writes exactly what `json.dumps` would: fingerprints depend on it."""

from __future__ import annotations

import hashlib
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.snapshot import Snapshot, canonical_json_bytes, fingerprint

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec=None)),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)


def stdlib(value: object) -> bytes:
    text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8", errors="backslashreplace")


@settings(max_examples=300)
@given(JSON_VALUES)
def test_same_bytes_as_json_dumps(value: object) -> None:
    assert canonical_json_bytes(value) == stdlib(value)


@pytest.mark.parametrize("value", [{"a": (1, 2.5, "\ud800")}, {1: "int key"}, {"x": True, "y": [[], {}]}, -0.0, 10**30])
def test_unusual_values_match_too(value: object) -> None:
    assert canonical_json_bytes(value) == stdlib(value)


@pytest.mark.parametrize("value", [math.nan, {"a": math.inf}, {"a": object()}])
def test_what_json_refuses_is_refused(value: object) -> None:
    with pytest.raises((ValueError, TypeError)):
        canonical_json_bytes(value)


TOOLS = st.lists(
    st.fixed_dictionaries({"name": st.text(min_size=1, max_size=8), "inputSchema": JSON_VALUES}),
    max_size=4,
    unique_by=lambda tool: tool["name"],
)


@settings(max_examples=200)
@given(TOOLS, st.one_of(st.none(), st.text(st.characters(codec=None))))
def test_a_snapshots_bytes_and_fingerprints_encode_each_tool_once_and_still_match(
    tools: list[dict[str, object]], instructions: str | None
) -> None:
    snapshot = Snapshot(
        server="s",
        protocol_version="2025-06-18",
        capabilities={"tools": {"listChanged": True}},
        instructions=instructions,
        tools=tuple(sorted(tools, key=lambda tool: str(tool["name"]))),
    )
    assert snapshot.canonical_bytes() == stdlib(snapshot.to_json())
    assert snapshot.tool_fingerprints == {str(tool["name"]): fingerprint(tool) for tool in tools}


@pytest.mark.parametrize(
    "schema",
    [
        {"minimum": 1e-05, "maximum": 1e16, "default": 5e-324, "multipleOf": 0.1},
        {"const": 10**30, "enum": [-0.0, 1.0, 1e22, 123456789.123]},
        {"description": '\x00\x1f\x7f\u2028 "quoted" back\\slash é 😀 \t\n'},
        {"items": [[], {}, [{}], {"a": []}], "z": None, "a": True},
        {"description": "lone \ud800 surrogate"},
    ],
)
def test_tool_fingerprints_match_json_dumps_where_a_faster_encoder_would_differ(schema: dict[str, object]) -> None:
    """A snapshot encodes its tools in Rust where that gives the standard library's text: numbers it
    writes another way, and text it cannot write, must still hash as `json.dumps` writes them."""
    tool = {"name": "t", "inputSchema": {"type": "object", **schema}}
    snapshot = Snapshot(server="s", protocol_version="2025-06-18", capabilities={}, tools=(tool,))
    assert snapshot.tool_fingerprints == {"t": hashlib.sha256(stdlib(tool)).hexdigest()[:16]}
    assert snapshot.canonical_bytes() == stdlib(snapshot.to_json())
