"""Pair removed entries with added ones when the evidence says it is one entry under a new name.

A rename reported as a removal plus an addition hides what a caller has to do (change a name) and
loses the schema differences that came with it. The evidence, strongest first: equal canonical
shapes, then a structural similarity above a high threshold, then name similarity as the tie-break.
Pairs are assigned globally, best first; a pair whose score ties with a rival is ambiguous and is
left as a removal plus an addition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

STRUCTURE_THRESHOLD = 0.8
"""Jaccard similarity of shape features a pair needs before it is considered at all."""
NAME_THRESHOLD = 0.5
"""Name similarity a pair needs when its shapes are too small to say anything on their own."""
TRIVIAL_FEATURES = 3
"""Shapes with at most this many features (a tool without arguments) prove nothing by being equal."""


@dataclass(frozen=True)
class Rename:
    old: str
    new: str
    similarity: float | None
    """None when the config states the rename."""


def find_renames(
    removed: Mapping[str, Any],
    added: Mapping[str, Any],
    features: Callable[[Any], frozenset[str]],
    stated: Mapping[str, str],
) -> list[Rename]:
    """Renames among pairs of `removed` and `added` (keyed by identifier); `stated` is the config's old -> new map."""
    renames = [Rename(old, new, None) for old, new in sorted(stated.items()) if old in removed and new in added]
    taken_old = {rename.old for rename in renames}
    taken_new = {rename.new for rename in renames}
    shapes_old = {key: features(entry) for key, entry in removed.items() if key not in taken_old}
    shapes_new = {key: features(entry) for key, entry in added.items() if key not in taken_new}
    scored: list[tuple[tuple[float, float], str, str]] = []
    for old, old_shape in shapes_old.items():
        for new, new_shape in shapes_new.items():
            structure = _jaccard(old_shape, new_shape)
            if structure < STRUCTURE_THRESHOLD:
                continue
            name = round(SequenceMatcher(None, old, new).ratio(), 3)
            if max(len(old_shape), len(new_shape)) <= TRIVIAL_FEATURES and name < NAME_THRESHOLD:
                continue
            scored.append(((structure, name), old, new))
    scored.sort(key=lambda item: (-item[0][0], -item[0][1], item[1], item[2]))
    blocked: set[str] = set()
    for score, old, new in scored:
        if old in taken_old or new in taken_new or old in blocked or new in blocked:
            continue
        rivals = [
            other
            for other in scored
            if other[0] == score
            and (other[1], other[2]) != (old, new)
            and (other[1] == old or other[2] == new)
            and other[1] not in taken_old
            and other[2] not in taken_new
        ]
        if rivals:
            blocked.update({old, new, *(r[1] for r in rivals), *(r[2] for r in rivals)})
            continue
        renames.append(Rename(old, new, score[0]))
        taken_old.add(old)
        taken_new.add(new)
    return sorted(renames, key=lambda rename: rename.new)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return round(len(a & b) / len(a | b), 3)


def schema_features(schema: Any, prefix: str = "") -> frozenset[str]:
    """Every leaf of a (text-free, normalised) schema as `path=value`, list members one by one."""
    found: set[str] = set()
    _collect(schema, prefix, found)
    return frozenset(found)


def _collect(value: Any, prefix: str, found: set[str]) -> None:
    if isinstance(value, dict):
        if not value:
            found.add(f"{prefix}={{}}")
        for key, item in value.items():
            _collect(item, f"{prefix}/{key}", found)
    elif isinstance(value, list):
        if not value:
            found.add(f"{prefix}=[]")
        for item in value:
            _collect(item, f"{prefix}[]", found)
    else:
        found.add(f"{prefix}={value!r}")
