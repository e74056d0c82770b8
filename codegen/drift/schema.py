"""Judge the change between two normalised JSON Schemas for one direction.

A generated client *writes* arguments (input, contravariant: accepting less breaks callers) and
*reads* results (output, covariant: returning more breaks consumers). Each keyword below asks two
questions: does the new schema refuse something the old one accepted (it tightens), and does it
accept something the old one refused (it relaxes)? The direction decides which answer breaks.
Anything not modelled here is compared for equality and reported as uncomparable when it differs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal, TypeGuard

from codegen.drift.findings import pointer
from codegen.drift.normalize import JSON, TEXT_KEYS, canonical, same
from codegen.runtime._schema_check import _json_key as json_key
from codegen.schemas import LOWER_BOUNDS, UPPER_BOUNDS, json_type

Direction = Literal["in", "out"]
Emit = Callable[[str, str, Any, Any, str], None]
"""emit(rule, path, old, new, message)"""

_HANDLED = frozenset(
    {
        "type", "nullable", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "uniqueItems", "pattern", "format", "properties", "required",
        "additionalProperties", "items", "anyOf", "oneOf", "default", "x-mcp-header",
        *LOWER_BOUNDS, *UPPER_BOUNDS, *TEXT_KEYS,
    }
)  # fmt: skip
_MARKERS = ("$recursive", "$unresolved", "$invalid", "$uncomparable")


def compare_schema(old: JSON, new: JSON, direction: Direction, base: str, emit: Emit) -> None:
    """Emit a finding for every judged difference between `old` and `new` under `base`."""
    unresolved = {base + reference[1:] for reference in _unresolved(old) | _unresolved(new)}
    _Comparator(direction, emit, unresolved).compare(old, new, base)


def _unresolved(node: Any) -> set[str]:
    """The `#...` references the normal form left unresolved (`$unresolved`), anywhere in `node`."""
    if isinstance(node, list):
        return set().union(*(_unresolved(inner) for inner in node))
    if not isinstance(node, dict):
        return set()
    found = {node["$unresolved"]} if isinstance(node.get("$unresolved"), str) else set()
    return found.union(*(_unresolved(inner) for inner in node.values()))


class _Comparator:
    def __init__(self, direction: Direction, emit: Emit, unresolved: set[str]) -> None:
        self.direction = direction
        self.emit_raw = emit
        self.unresolved = unresolved
        """Where the references the normal form could not resolve point, as paths like findings'."""

    def referenced(self, path: str) -> bool:
        """Whether an unresolved reference points at `path` or inside it: what is there is read as a
        schema by validators, whatever its keyword."""
        return any(target == path or target.startswith(path + "/") for target in self.unresolved)

    @property
    def writes(self) -> bool:
        return self.direction == "in"

    def emit(self, rule: str, path: str, old: Any, new: Any, what: str) -> None:
        self.emit_raw(rule, path, old, new, f"{_where(path, self.direction)}: {what}")

    def uncomparable(self, path: str, old: Any, new: Any, what: str) -> None:
        self.emit("schema-uncomparable", path, old, new, f"{what}; cannot prove it compatible, review by hand")

    def judge(
        self,
        path: str,
        old: Any,
        new: Any,
        tightens: bool,
        relaxes: bool,
        what: str,
        *,
        added: bool = False,
        schemas: tuple[JSON, JSON] = ({}, {}),
    ) -> None:
        """Report one constraint change: inputs break when it tightens, outputs when it relaxes.
        `schemas` (the old and new schema holding the bound) lets a new input bound be judged by what
        it leaves valid."""
        if self.writes:
            if tightens:
                rule, why = _input_tightening(*schemas, added=added)
                self.emit(rule, path, old, new, what + why)
            elif relaxes:
                self.emit("in-bound-relaxed", path, old, new, what)
        elif relaxes:
            self.emit("out-loosened", path, old, new, what)
        elif tightens:
            self.emit("out-type-narrowed", path, old, new, what)

    def compare(self, old: JSON, new: JSON, path: str) -> None:
        if same(old, new):
            return
        for marker in _MARKERS:
            if old.get(marker) != new.get(marker):
                self.uncomparable(path, old, new, f"{_marker_text(old, new)} changed")
                return
        if ("anyOf" in old) != ("anyOf" in new):
            old, new = _lifted(old, "anyOf"), _lifted(new, "anyOf")
        elif _only_one_of(old) != _only_one_of(new) and "oneOf" not in old.keys() & new.keys():
            old, new = _lifted(old, "oneOf"), _lifted(new, "oneOf")
        disjoint = self._types(old, new, path)
        self._text(old, new, path)
        if disjoint:
            return
        self._nullable(old, new, path)
        self._enum(old, new, path)
        self._numeric_bounds(old, new, path)
        self._size_bounds(old, new, path)
        self._pattern_and_format(old, new, path)
        self._object(old, new, path)
        self._items(old, new, path)
        self._any_of(old, new, path)
        self._one_of(old, new, path)
        self._header(old, new, path)
        for key in sorted((set(old) | set(new)) - _HANDLED):
            if same(old.get(key), new.get(key)) or key in _MARKERS:
                continue
            if key.startswith("x-") and not self.referenced(pointer_join(path, key)):
                # an extension: no validator or generator reads it, people and models may
                self.emit("schema-text-changed", pointer_join(path, key), old.get(key), new.get(key), f"{key} changed")
            else:
                self.uncomparable(pointer_join(path, key), old.get(key), new.get(key), f"keyword `{key}` changed")

    def _header(self, old: JSON, new: JSON, path: str) -> None:
        """An argument's `x-mcp-header` (SEP-2243): the server checks the header against the body, so
        a client listing an older schema has its first call refused (400, -32020) until it lists the
        tools again, and proxies routing on the header see it come or go. Outputs have no headers."""
        before, after = old.get("x-mcp-header"), new.get("x-mcp-header")
        if before == after or not self.writes:
            return
        where = pointer_join(path, "x-mcp-header")
        if before is None:
            self.emit("in-header-added", where, None, after, f"now mirrored into the header Mcp-Param-{after}")
        elif after is None:
            self.emit(
                "in-header-removed", where, before, None, f"no longer mirrored into the header Mcp-Param-{before}"
            )
        else:
            self.emit(
                "in-header-changed", where, before, after, f"mirrored into Mcp-Param-{after}, was Mcp-Param-{before}"
            )

    def _types(self, old: JSON, new: JSON, path: str) -> bool:
        """Compare accepted JSON types; return True when they no longer overlap at all."""
        before, after = _types(old), _types(new)
        if before == after:
            return False
        lost = _any_type(before, after) if before is not None else ["any"]
        gained = _any_type(after, before) if after is not None else ["any"]
        if after is None:
            lost = []
        if before is None:
            gained = []
        shown_old, shown_new = _type_text(before), _type_text(after)
        what = f"type changed from {shown_old} to {shown_new}"
        where = pointer_join(path, "type")
        if self.writes:
            if lost:
                self.emit("in-type-narrowed", where, old.get("type"), new.get("type"), what)
            elif gained:
                self.emit("in-type-widened", where, old.get("type"), new.get("type"), what)
        elif gained:
            self.emit("out-type-widened", where, old.get("type"), new.get("type"), what)
        elif lost:
            self.emit("out-type-narrowed", where, old.get("type"), new.get("type"), what)
        return before is not None and after is not None and bool(before) and bool(after) and not _overlap(before, after)

    def _text(self, old: JSON, new: JSON, path: str) -> None:
        for key in sorted(TEXT_KEYS):
            if old.get(key) != new.get(key):
                self.emit("schema-text-changed", pointer_join(path, key), old.get(key), new.get(key), f"{key} changed")
        if not same(old.get("default", _ABSENT), new.get("default", _ABSENT)):
            rule = "in-default-changed" if self.writes else "schema-text-changed"
            self.emit(rule, pointer_join(path, "default"), old.get("default"), new.get("default"), "default changed")

    def _nullable(self, old: JSON, new: JSON, path: str) -> None:
        if not (_constrained(old) and _constrained(new)):
            return
        before, after = old.get("nullable") is True, new.get("nullable") is True
        if before == after:
            return
        where = pointer_join(path, "nullable")
        if after:
            rule = "in-became-nullable" if self.writes else "out-became-nullable"
            self.emit(rule, where, False, True, "now accepts null" if self.writes else "may now be null")
        else:
            rule = "in-became-not-nullable" if self.writes else "out-type-narrowed"
            self.emit(rule, where, True, False, "no longer accepts null" if self.writes else "is no longer null")

    def _enum(self, old: JSON, new: JSON, path: str) -> None:
        before, after = old.get("enum"), new.get("enum")
        if same(before, after):
            return
        where = pointer_join(path, "enum")
        if before is None:
            rule = "in-enum-value-removed" if self.writes else "out-type-narrowed"
            self.emit(rule, where, None, after, f"a free value became one of {_values(after)}")
            return
        if after is None:
            rule = "in-type-widened" if self.writes else "out-type-widened"
            self.emit(rule, where, before, None, f"no longer limited to {_values(before)}")
            return
        old_keys, new_keys = {json_key(v) for v in before}, {json_key(v) for v in after}
        removed = [v for v in before if json_key(v) not in new_keys]
        added = [v for v in after if json_key(v) not in old_keys]
        if removed:
            rule = "in-enum-value-removed" if self.writes else "out-type-narrowed"
            self.emit(rule, where, before, after, f"enum values removed: {_values(removed)}")
        if added:
            rule = "in-enum-value-added" if self.writes else "out-enum-value-added"
            self.emit(rule, where, before, after, f"enum values added: {_values(added)}")

    def _numeric_bounds(self, old: JSON, new: JSON, path: str) -> None:
        keys = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum")
        if any(isinstance(schema.get(key), bool) for schema in (old, new) for key in keys):
            for key in keys:  # draft-04 boolean exclusives: not modelled
                if old.get(key) != new.get(key):
                    self.uncomparable(pointer_join(path, key), old.get(key), new.get(key), f"`{key}` changed")
            return
        integers = old.get("type") == new.get("type") == ["integer"]
        for inclusive, exclusive, sign in (("minimum", "exclusiveMinimum", 1), ("maximum", "exclusiveMaximum", -1)):
            before, after = _bound(old, inclusive, exclusive), _bound(new, inclusive, exclusive)
            if before == after or (integers and _whole_bound(before, sign) == _whole_bound(after, sign)):
                continue
            key = exclusive if (after or before or (0, False, ""))[2] == exclusive else inclusive
            where = pointer_join(path, key)
            shown_old, shown_new = _bound_text(before), _bound_text(after)
            what = f"{'lower' if sign == 1 else 'upper'} bound changed from {shown_old} to {shown_new}"
            if before is None:
                self.judge(where, None, shown_new, True, False, what, added=True, schemas=(old, new))
            elif after is None:
                self.judge(where, shown_old, None, False, True, what)
            else:
                tighter = _tighter(before, after, sign)
                self.judge(where, shown_old, shown_new, tighter, not tighter, what, schemas=(old, new))

    def _size_bounds(self, old: JSON, new: JSON, path: str) -> None:
        for key in sorted(LOWER_BOUNDS | UPPER_BOUNDS):
            before, after = old.get(key), new.get(key)
            if before == after or key in ("minimum", "maximum"):
                continue
            where, what = pointer_join(path, key), _change_text(key, before, after)
            if before is None:
                self.judge(where, before, after, True, False, what, added=True, schemas=(old, new))
            elif after is None:
                self.judge(where, before, after, False, True, what)
            elif not (_number(before) and _number(after)):
                self.uncomparable(where, before, after, f"`{key}` changed")
            else:
                tighter = after > before if key in LOWER_BOUNDS else after < before
                self.judge(where, before, after, tighter, not tighter, what, schemas=(old, new))
        before, after = old.get("multipleOf"), new.get("multipleOf")
        if before != after:
            where, what = pointer_join(path, "multipleOf"), _change_text("multipleOf", before, after)
            if before is None:
                self.judge(where, before, after, True, False, what, added=True, schemas=(old, new))
            elif after is None:
                self.judge(where, before, after, False, True, what)
            elif _number(before) and _number(after):
                tightens = not _divides(before, after)
                relaxes = not _divides(after, before)
                self.judge(where, before, after, tightens, relaxes, what, schemas=(old, new))
            else:
                self.uncomparable(where, before, after, "`multipleOf` changed")
        before_unique, after_unique = old.get("uniqueItems") is True, new.get("uniqueItems") is True
        if before_unique != after_unique:
            what = "items must now be unique" if after_unique else "items no longer need to be unique"
            self.judge(
                pointer_join(path, "uniqueItems"), before_unique, after_unique, after_unique, before_unique, what
            )

    def _pattern_and_format(self, old: JSON, new: JSON, path: str) -> None:
        before, after = old.get("pattern"), new.get("pattern")
        where = pointer_join(path, "pattern")
        if before != after:
            if before is None:
                rule = "in-pattern-added" if self.writes else "out-type-narrowed"
                self.emit(rule, where, before, after, "a pattern was added")
            elif after is None:
                self.judge(where, before, after, False, True, "the pattern was dropped")
            elif self.writes:
                self.emit("in-pattern-changed", where, before, after, "the pattern changed")
            else:
                self.uncomparable(where, before, after, "the pattern changed")
        before, after = old.get("format"), new.get("format")
        where = pointer_join(path, "format")
        if before != after:
            if before is not None and after is not None:
                self.uncomparable(where, before, after, f"format changed from {before} to {after}")
            elif after is not None:
                rule = "in-type-narrowed" if self.writes else "out-type-narrowed"
                self.emit(rule, where, before, after, f"format {after} was added")
            else:
                rule = "in-type-widened" if self.writes else "out-type-widened"
                self.emit(rule, where, before, after, f"format {before} was dropped")

    def _object(self, old: JSON, new: JSON, path: str) -> None:
        old_props: JSON = old.get("properties", {}) if isinstance(old.get("properties"), dict) else {}
        new_props: JSON = new.get("properties", {}) if isinstance(new.get("properties"), dict) else {}
        old_required, new_required = set(old.get("required", ())), set(new.get("required", ()))
        for name in sorted(set(old_props) | set(new_props) | old_required | new_required):
            where = pointer_join(path, "properties", name)
            existed, exists = name in old_props or name in old_required, name in new_props or name in new_required
            if existed and not exists:
                rule = "in-property-removed" if self.writes else "out-property-removed"
                self.emit(rule, where, old_props.get(name), None, "was removed")
                continue
            if exists and not existed:
                if not self.writes:
                    self.emit("out-property-added", where, None, new_props.get(name), "was added")
                elif name in new_required:
                    self.emit("in-required-added", where, None, new_props.get(name), "was added as required")
                else:
                    self.emit("in-optional-added", where, None, new_props.get(name), "was added as optional")
                continue
            was_required, is_required = name in old_required, name in new_required
            if was_required != is_required:
                rule = {
                    (True, True): "in-became-required",
                    (True, False): "in-became-optional",
                    (False, True): "out-became-required",
                    (False, False): "out-became-optional",
                }[(self.writes, is_required)]
                self.emit(
                    rule, where, was_required, is_required, "became required" if is_required else "became optional"
                )
            elif not (self.writes or is_required) and _default_lost(old_props.get(name), new_props.get(name)):
                # the model filled the default where the server left the field out: now it reads None
                self.emit("out-became-optional", where, True, False, "lost its default, so it may now be missing")
            self.compare(_schema(old_props.get(name, {})), _schema(new_props.get(name, {})), where)
        before, after = old.get("additionalProperties", {}), new.get("additionalProperties", {})
        if same(before, after):
            return
        where = pointer_join(path, "additionalProperties")
        if after is False:
            rule = "in-closed" if self.writes else "out-type-narrowed"
            self.emit(rule, where, before, after, "no longer accepts other properties")
        elif before is False:
            rule = "in-type-widened" if self.writes else "out-loosened"
            self.emit(rule, where, before, after, "now accepts other properties")
        else:
            self.compare(_schema(before), _schema(after), where)

    def _items(self, old: JSON, new: JSON, path: str) -> None:
        before, after = old.get("items", {}), new.get("items", {})
        if same(before, after):
            return
        where = pointer_join(path, "items")
        if isinstance(before, dict) and isinstance(after, dict):
            self.compare(before, after, where)
        else:
            self.uncomparable(where, before, after, "tuple `items` changed")

    def _any_of(self, old: JSON, new: JSON, path: str) -> None:
        before, after = old.get("anyOf"), new.get("anyOf")
        if same(before, after) or not isinstance(before, list) or not isinstance(after, list):
            return
        new_index = {canonical(branch): index for index, branch in enumerate(after)}
        old_keys = {canonical(branch) for branch in before}
        lost = [branch for branch in before if canonical(branch) not in new_index]
        gained = [branch for branch in after if canonical(branch) not in old_keys]
        for old_branch, new_branch in _pair_branches(lost, gained):
            lost.remove(old_branch)
            gained.remove(new_branch)
            self.compare(old_branch, new_branch, pointer_join(path, "anyOf", new_index[canonical(new_branch)]))
        for branch in lost:
            rule = "in-union-narrowed" if self.writes else "out-type-narrowed"
            self.emit(rule, pointer_join(path, "anyOf"), branch, None, f"union branch {_short(branch)} was removed")
        for branch in gained:
            rule = "in-type-widened" if self.writes else "out-loosened"
            self.emit(rule, pointer_join(path, "anyOf"), None, branch, f"union branch {_short(branch)} was added")

    def _one_of(self, old: JSON, new: JSON, path: str) -> None:
        before, after = old.get("oneOf"), new.get("oneOf")
        if same(before, after):
            return
        where = pointer_join(path, "oneOf")
        old_keys = {canonical(b) for b in before} if isinstance(before, list) else None
        new_keys = {canonical(b) for b in after} if isinstance(after, list) else None
        if self.writes:
            if old_keys is not None and new_keys is not None and old_keys < new_keys and _tagged(after):
                self.emit("in-type-widened", where, before, after, "tagged oneOf gained branches")
            else:
                self.emit(
                    "in-union-narrowed", where, before, after, "oneOf changed (any oneOf edit can refuse old values)"
                )
            return
        if old_keys is not None and new_keys is not None and old_keys < new_keys:
            self.emit("out-loosened", where, before, after, "oneOf gained branches")
        elif old_keys is not None and new_keys is not None and new_keys < old_keys:
            self.emit("out-type-narrowed", where, before, after, "oneOf lost branches")
        else:
            self.uncomparable(where, before, after, "oneOf changed")


ABSURD_SIZE = 10_000
"""A lower bound on length, items or properties at or above this leaves nothing a caller writes as an
argument valid (`minLength: 100000`)."""

_SIZES = (
    ("string", "minLength", "maxLength", "string", "characters"),
    ("array", "minItems", "maxItems", "array", "items"),
    ("object", "minProperties", "maxProperties", "object", "properties"),
)


def _input_tightening(old: JSON, new: JSON, *, added: bool) -> tuple[str, str]:
    """The rule for an input bound that now accepts less, and why, to append to the message.

    Breaking (`in-bound-impossible`) when the new bounds leave almost nothing valid and the old ones
    did not; breaking (`in-bound-tightened`) when they reject the old default or an old example, which
    callers were told to send; otherwise a new bound is `in-bound-added` (dangerous: it may reject
    what callers send, or may not) and a moved one `in-bound-tightened`."""
    empty = _almost_nothing_valid(new)
    if empty and not _almost_nothing_valid(old):
        return "in-bound-impossible", f"; {empty}"
    samples = ([("default", old["default"])] if "default" in old else []) + [
        ("example", value) for value in old.get("examples", []) if isinstance(old.get("examples"), list)
    ]
    for label, value in samples:
        if _within_bounds(value, old) and not _within_bounds(value, new):
            return "in-bound-tightened", f"; it rejects the old {label} {canonical(value)}"
    return ("in-bound-added" if added else "in-bound-tightened"), ""


def _almost_nothing_valid(schema: JSON) -> str | None:
    """Why the bounds of `schema` leave at most one value of a type it accepts, or None.

    That is: a maximum size of 0 (only the empty string, array or object), a lower size bound above
    the upper one or at `ABSURD_SIZE`, a numeric range that is empty or a single number."""
    types = _types(schema)

    def allows(kind: str) -> bool:
        return types is None or kind in types or (kind == "number" and "integer" in types)

    for kind, low_key, high_key, noun, unit in _SIZES:
        low, high = schema.get(low_key), schema.get(high_key)
        if not allows(kind):
            continue
        if _number(high) and high == 0:
            return f"{high_key} 0 leaves only the empty {noun} valid"
        if _number(low) and _number(high) and low > high:
            return f"{low_key} {low} is above {high_key} {high}: no {noun} is valid"
        if _number(low) and low >= ABSURD_SIZE:
            return f"{low_key} {low} asks for at least {low} {unit}: no caller sends that"
    if allows("number"):
        low, high = _bound(schema, "minimum", "exclusiveMinimum"), _bound(schema, "maximum", "exclusiveMaximum")
        if low is not None and high is not None:
            if low[0] > high[0] or (low[0] == high[0] and (low[1] or high[1])):
                return f"lower bound {low[0]} is above upper bound {high[0]}: no number is valid"
            if low[0] == high[0]:
                return f"lower and upper bound are both {low[0]}: only one number is valid"
    return None


def _within_bounds(value: Any, schema: JSON) -> bool:
    """Whether `value` meets the size and numeric bounds of `schema` (the keywords this module
    compares; type, enum and pattern are judged by their own rules)."""
    if isinstance(value, bool):
        return True
    sizes = {str: "Length", list: "Items", dict: "Properties"}
    for python_type, suffix in sizes.items():
        if isinstance(value, python_type):
            size = len(value)
            low, high = schema.get("min" + suffix), schema.get("max" + suffix)
            return not ((_number(low) and size < low) or (_number(high) and size > high))
    if not _number(value):
        return True
    low, high = _bound(schema, "minimum", "exclusiveMinimum"), _bound(schema, "maximum", "exclusiveMaximum")
    if low is not None and (value < low[0] or (low[1] and value == low[0])):
        return False
    if high is not None and (value > high[0] or (high[1] and value == high[0])):
        return False
    divisor = schema.get("multipleOf")
    return not (_number(divisor) and divisor > 0 and not _divides(divisor, value))


def _change_text(key: str, before: Any, after: Any) -> str:
    """`maxLength changed from 10 to 5`, `maxLength 5 was added`, `maxLength 10 was dropped`: no `None`."""
    if before is None:
        return f"{key} {canonical(after)} was added"
    if after is None:
        return f"{key} {canonical(before)} was dropped"
    return f"{key} changed from {canonical(before)} to {canonical(after)}"


_ABSENT = object()


def pointer_join(base: str, *parts: str | int) -> str:
    return base + pointer(*parts)


def _tagged(branches: Any) -> bool:
    """Whether each branch is an object that requires one property, the same in all, to hold a value
    of its own (a discriminator): no value matches two branches, so a branch added to such a `oneOf`
    refuses nothing it took."""
    if not (isinstance(branches, list) and branches and all(isinstance(branch, dict) for branch in branches)):
        return False
    shared = set.intersection(*(set(_strings(branch.get("required"))) for branch in branches))
    for name in sorted(shared):
        tags = [_schema(_schema(branch.get("properties")).get(name)).get("enum") for branch in branches]
        if all(isinstance(tag, list) and len(tag) == 1 for tag in tags) and len(
            {canonical(tag[0]) for tag in tags if tag}
        ) == len(branches):
            return True
    return False


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _default_lost(old: Any, new: Any) -> bool:
    """Whether a property that had a default other than null has none now."""
    return (
        isinstance(old, dict)
        and old.get("default") is not None
        and not (isinstance(new, dict) and new.get("default") is not None)
    )


def _schema(value: Any) -> JSON:
    if value is True:
        return {}
    if value is False:
        return {"not": {}}
    return value if isinstance(value, dict) else {"$invalid": value}


_BESIDE_A_UNION = TEXT_KEYS | {"default", "nullable"}
"""What stays beside the union when a plain schema is written as a one-branch union."""


def _only_one_of(schema: JSON) -> bool:
    """Whether the schema is a `oneOf` and nothing else a validator reads."""
    return "oneOf" in schema and set(schema) - _BESIDE_A_UNION == {"oneOf"}


def _lifted(schema: JSON, keyword: str) -> JSON:
    """Write a plain schema as a one-branch `anyOf` or `oneOf` (`keyword`) so it can be compared with
    such a union: an object that became one of several objects (notion-mcp-server's page `parent`)
    keeps its properties in a branch, where comparing the two as they stand found them removed."""
    if keyword in schema:
        return schema
    core = {key: value for key, value in schema.items() if key not in _BESIDE_A_UNION}
    return {**{key: value for key, value in schema.items() if key in _BESIDE_A_UNION}, keyword: [core]}


def _types(schema: JSON) -> list[str] | None:
    """Accepted non-null JSON types, or None for any; an untyped `enum` is typed by its values."""
    if isinstance(schema.get("type"), list):
        return sorted(schema["type"])
    if isinstance(schema.get("enum"), list):
        return sorted({json_type(value) for value in schema["enum"] if value is not None})
    return None


def _covers(types: list[str], wanted: str) -> bool:
    return wanted in types or (wanted == "integer" and "number" in types)


def _any_type(these: list[str], others: list[str] | None) -> list[str]:
    """Types in `these` that `others` does not accept."""
    if others is None:
        return []
    return [item for item in these if not _covers(others, item)]


def _overlap(before: list[str], after: list[str]) -> bool:
    return any(_covers(after, item) or _covers([item], other) for item in before for other in after)


def _type_text(types: list[str] | None) -> str:
    if types is None:
        return "any"
    return " | ".join(types) if types else "null"


def _constrained(schema: JSON) -> bool:
    return any(key in schema for key in ("type", "enum", "anyOf", "oneOf"))


def _bound(schema: JSON, inclusive: str, exclusive: str) -> tuple[float, bool, str] | None:
    """The effective bound as (value, exclusive, keyword); the tighter of the two keywords wins."""
    candidates = []
    if _number(schema.get(inclusive)):
        candidates.append((schema[inclusive], False, inclusive))
    if _number(schema.get(exclusive)):
        candidates.append((schema[exclusive], True, exclusive))
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    (a_value, _, _), (b_value, _, _) = candidates
    lower = inclusive == "minimum"
    if a_value == b_value:
        return candidates[1]
    return max(candidates) if lower else min(candidates)


def _whole_bound(bound: tuple[float, bool, str] | None, sign: int) -> int | None:
    """The inclusive bound an integer meets: `exclusiveMaximum: 1000000` is `maximum: 999999`, as
    pydantic writes `lt=` and `le=` (mcp-server-fetch moved from one spelling to the other)."""
    if bound is None:
        return None
    value, exclusive, _keyword = bound
    if sign == 1:
        return math.floor(value) + 1 if exclusive else math.ceil(value)
    return math.ceil(value) - 1 if exclusive else math.floor(value)


def _tighter(before: tuple[float, bool, str], after: tuple[float, bool, str], sign: int) -> bool:
    if after[0] != before[0]:
        return (after[0] - before[0]) * sign > 0
    return after[1] and not before[1]


def _bound_text(bound: tuple[float, bool, str] | None) -> str:
    if bound is None:
        return "none"
    return f"{bound[2]} {bound[0]}"


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _divides(divisor: float, value: float) -> bool:
    quotient = value / divisor
    return abs(quotient - round(quotient)) < 1e-9


def _branch_key(branch: JSON) -> str:
    """What makes a union branch the same branch after an edit: its types and its `const` tags."""
    tags = sorted(
        (name, canonical(schema["enum"]))
        for name, schema in (branch.get("properties") or {}).items()
        if isinstance(schema, dict) and isinstance(schema.get("enum"), list) and len(schema["enum"]) == 1
    )
    return canonical([_types(branch), tags])


def _pair_branches(lost: list[JSON], gained: list[JSON]) -> list[tuple[JSON, JSON]]:
    """Edited branches: one lost and one gained branch with the same unique key."""
    pairs = []
    for old_branch in lost:
        key = _branch_key(old_branch)
        same_old = [b for b in lost if _branch_key(b) == key]
        same_new = [b for b in gained if _branch_key(b) == key]
        if len(same_old) == 1 and len(same_new) == 1:
            pairs.append((old_branch, same_new[0]))
    return pairs


def _values(values: Any) -> str:
    return ", ".join(canonical(value) for value in values) if isinstance(values, list) else canonical(values)


def _short(schema: JSON) -> str:
    text = canonical(schema)
    return text if len(text) <= 60 else text[:57] + "..."


def _marker_text(old: JSON, new: JSON) -> str:
    for marker, text in (
        ("$uncomparable", "a schema past the work budget"),
        ("$unresolved", "an unresolvable $ref"),
        ("$recursive", "a recursive $ref"),
    ):
        if marker in old or marker in new:
            return text
    return "a non-schema value"


def _where(path: str, direction: Direction) -> str:
    """`argument city.name` / `result field temperature` / `input schema`, for messages."""
    parts = [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]
    names = [parts[i + 1] for i, part in enumerate(parts[:-1]) if part == "properties"]
    if not names:
        return "input schema" if direction == "in" else "output schema"
    return ("argument " if direction == "in" else "result field ") + repr(".".join(names))
