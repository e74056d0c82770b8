"""The snapshot's own JSON encoder writes exactly what `json.dumps` would: fingerprints depend on it."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.snapshot import canonical_json_bytes

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


@settings(max_examples=300, deadline=None)
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
