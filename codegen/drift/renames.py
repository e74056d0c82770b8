"""Pair removed entries with added ones when the evidence says it is one entry under a new name.

A rename reported as a removal plus an addition hides what a caller has to do (change a name) and
loses the schema differences that came with it. Evidence comes in tiers, strongest first:

1. the names are equal once case and separators are folded (`getTinyImage`, `get-tiny-image`): a
   rename whatever else changed;
2. one name's words extend the other's at either end (`browser_wait`, `browser_wait_for`;
   `structuredContent`, `get-structured-content`) and the shapes are at least 30% alike;
3. the shapes are at least 80% alike (tiny shapes also need alike names), or the names share a word
   and the descriptions are at least 85% alike word by word (`printEnv`, `get-env`: "Prints all
   environment variables..." became "Returns all environment variables...", 90%).

Pairs are assigned globally, best first (tier, then shape, then name similarity); a pair whose score
ties with a rival is ambiguous and is left as a removal plus an addition. Tools merged into one
(`browser_tab_list` and three others into `browser_tabs`) share no folded name, extend none, and are
not alike enough, so they stay removed and added.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

STRUCTURE_THRESHOLD = 0.8
"""Jaccard similarity of shape features a pair needs when its names say nothing."""
EXTENSION_STRUCTURE_THRESHOLD = 0.3
"""Jaccard similarity a pair needs when one name extends the other."""
DESCRIPTION_THRESHOLD = 0.85
"""Word-by-word description similarity that, with a shared name word, says two entries are one."""
NAME_THRESHOLD = 0.5
"""Name similarity a pair needs when its shapes are too small to say anything on their own."""
TRIVIAL_FEATURES = 3
"""Shapes with at most this many features (a tool without arguments) prove nothing by being equal."""

_FOLDED, _EXTENDED, _ALIKE = 3, 2, 1
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@dataclass(frozen=True)
class Rename:
    old: str
    new: str
    similarity: float | None
    """How alike the shapes are (1.0 equal); None when the config states the rename."""
    evidence: str = "stated in the config's renames"


def name_words(name: str) -> tuple[str, ...]:
    """The words of an identifier, lower-cased: `getTinyImage`, `get-tiny-image` and `GET_TINY_IMAGE`
    are all (get, tiny, image)."""
    return tuple(word.lower() for word in _WORD.findall(name))


def _extends(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """Whether the shorter word list is the start or the end of the longer one."""
    short, long = sorted((old, new), key=len)
    return 0 < len(short) < len(long) and (long[: len(short)] == short or long[-len(short) :] == short)


@dataclass(frozen=True)
class _Entry:
    """What the evidence is weighed on, computed once per entry rather than once per pair."""

    key: str
    shape: frozenset[str]
    words: tuple[str, ...]
    text: tuple[str, ...]
    """The description's words."""
    text_counts: Counter[str]

    @classmethod
    def of(cls, key: str, entry: Any, features: Callable[[Any], frozenset[str]]) -> _Entry:
        description = entry.get("description") if isinstance(entry, dict) else None
        text = tuple(description.split()) if isinstance(description, str) else ()
        return cls(key, features(entry), name_words(key), text, Counter(text))


def _descriptions_alike(old: _Entry, new: _Entry) -> float:
    """How alike two descriptions are word by word (0 to 1); the cheap upper bounds come first, since
    every removed entry is weighed against every added one."""
    total = len(old.text) + len(new.text)
    if not old.text or not new.text or 2 * min(len(old.text), len(new.text)) < DESCRIPTION_THRESHOLD * total:
        return 0.0
    if 2 * sum((old.text_counts & new.text_counts).values()) < DESCRIPTION_THRESHOLD * total:
        return 0.0
    return SequenceMatcher(None, old.text, new.text, autojunk=False).ratio()


def _evidence(old: _Entry, new: _Entry) -> tuple[int, float, str] | None:
    """(tier, shape similarity, why) when the pair may be one entry renamed, else None."""
    structure = _jaccard(old.shape, new.shape)
    shape = f"shape {round(structure * 100)}% similar"
    if old.words and "".join(old.words) == "".join(new.words):
        return _FOLDED, structure, f"same name once case and separators are folded; {shape}"
    if _extends(old.words, new.words) and structure >= EXTENSION_STRUCTURE_THRESHOLD:
        longer, shorter = (new.key, old.key) if len(new.words) > len(old.words) else (old.key, new.key)
        return _EXTENDED, structure, f"{longer!r} extends {shorter!r}; {shape}"
    if structure >= STRUCTURE_THRESHOLD:
        tiny = max(len(old.shape), len(new.shape)) <= TRIVIAL_FEATURES
        if tiny and SequenceMatcher(None, old.key, new.key).ratio() < NAME_THRESHOLD:
            return None
        return _ALIKE, structure, shape
    if set(old.words) & set(new.words):
        alike = _descriptions_alike(old, new)
        if alike >= DESCRIPTION_THRESHOLD:
            return _ALIKE, structure, f"names share a word and descriptions are {round(alike * 100)}% alike; {shape}"
    return None


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
    olds = [_Entry.of(key, entry, features) for key, entry in removed.items() if key not in taken_old]
    news = [_Entry.of(key, entry, features) for key, entry in added.items() if key not in taken_new]
    scored: list[tuple[tuple[int, float, float], str, str, str]] = []
    for before in olds:
        for after in news:
            found = _evidence(before, after)
            if found is None:
                continue
            tier, structure, why = found
            name = round(SequenceMatcher(None, before.key, after.key).ratio(), 3)
            scored.append(((tier, structure, name), before.key, after.key, why))
    scored.sort(key=lambda item: (-item[0][0], -item[0][1], -item[0][2], item[1], item[2]))
    blocked: set[str] = set()
    for score, old, new, why in scored:
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
        renames.append(Rename(old, new, score[1], why))
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
