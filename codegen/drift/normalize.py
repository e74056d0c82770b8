"""Canonical JSON Schema: one spelling for every way of writing the same schema.

Two schemas that validate the same documents but are written differently (a `$ref` against its
inlined target, `type: [X, "null"]` against `anyOf: [X, {type: null}]`, `required` in another order)
must normalise to equal values; otherwise drift reports a change nobody made. The result stays plain
JSON so findings can quote it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from codegen.runtime._schema_check import _json_key as json_key
from codegen.schemas import (
    ANNOTATIONS,
    DEFINITIONS,
    LOWER_BOUNDS,
    MAX_NODES,
    MAX_REF_DEPTH,
    MISSING,
    NOT_A_SCHEMA,
    UPPER_BOUNDS,
    BudgetExceeded,
    Document,
    applied,
    as_2020_12,
    dialect_of,
    pointer_path,
    schema_at,
    unapplied,
)

JSON = dict[str, Any]

TEXT_KEYS = ANNOTATIONS - {"$comment", "default"}
"""Read by people and models, not by validators: a change is `schema-text-changed` (`default` is
compared on its own; `$comment` is bookkeeping)."""

VOLATILE_KEYS = frozenset({"$schema", "$id", "$comment", *DEFINITIONS})
"""Generator bookkeeping; `$defs` are inlined where they are referenced."""

_DEFAULTS: dict[str, tuple[Any, ...]] = {
    "additionalProperties": ({}, True),
    "items": ({},),
    "uniqueItems": (False,),
    "minLength": (0,),
    "minItems": (0,),
    "minProperties": (0,),
    "deprecated": (False,),
    "readOnly": (False,),
    "writeOnly": (False,),
}
"""Values that say the same as leaving the keyword out (JSON Schema's own defaults)."""

NULL_ONLY: JSON = {"type": [], "nullable": True}

SAFE_INTEGER_BOUNDS = {"minimum": -(2**53 - 1), "maximum": 2**53 - 1}
"""JavaScript's safe-integer limits, which zod 4 writes on every `.int()` where zod 3 wrote none: an
integer past them is not one a JavaScript server reads exactly, so they bound nothing a caller sends."""


def canonical(value: Any) -> str:
    """The order-free text of a JSON value, used as a set key."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def same(old: Any, new: Any) -> bool:
    """Whether two JSON values are equal as JSON Schema compares them, as the runtime's checks do
    (`_json_key`): `1` is `1.0`, but a boolean is never a number, which Python's `==` makes it
    (`True == 1`, `[0] == [False]`), so a `const: 0` that became `const: false` was no change at all."""
    return bool(json_key(old) == json_key(new))


def normalize_schema(schema: Any) -> JSON:
    """Resolve local `$ref`s against `schema` itself and rewrite it into canonical form.

    A reference back into a schema being expanded becomes `{"$recursive": n}` (n expansions up), so a
    recursive schema compares equal however its definitions are named; a reference that cannot be
    followed becomes `{"$unresolved": ref}` and any change to it is reported as uncomparable. A schema
    whose expansion exceeds the work budget (`codegen.schemas.MAX_NODES`, `MAX_REF_DEPTH`) becomes
    `{"$uncomparable": why}`, with the digest of its text in `why`: it equals only the very same schema,
    so what was not compared is never reported equal.
    """
    local = Document(schema).local()
    try:
        try:
            return _Normalizer(local).run(local, ())
        except RecursionError:
            raise BudgetExceeded.too_nested() from None
    except BudgetExceeded as error:
        digest = hashlib.sha256(canonical(schema).encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return {"$uncomparable": f"{error.reason} (schema sha256 {digest})"}


class _Normalizer:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.dialect = dialect_of(root)
        self.visited = 0

    def run(self, node: Any, stack: tuple[str, ...]) -> JSON:
        self.visited += 1
        if self.visited > MAX_NODES:
            raise BudgetExceeded.too_many_nodes()
        if node is True:
            return {}
        if node is False:
            return {"not": {}}
        if not isinstance(node, dict):
            return {"$invalid": node}
        node = {key: value for key, value in as_2020_12(node, self.dialect).items() if key not in VOLATILE_KEYS}
        if "$ref" in node:
            return self._reference(node, stack)

        def child(key: str, value: Any) -> Any:
            if key == "additionalProperties" and isinstance(value, bool):
                return value  # `false` means closed, which the comparator judges as such
            return self.run(value, stack)

        return _canonicalize(unapplied(applied(node, child), child))

    def _reference(self, node: JSON, stack: tuple[str, ...]) -> JSON:
        ref = node.pop("$ref")
        siblings = self.run(node, stack) if node else {}
        if ref in stack:
            return {**siblings, "$recursive": len(stack) - stack.index(ref)}
        path = pointer_path(ref)
        target = MISSING if path is None else schema_at(self.root, path)
        if target is MISSING or target is NOT_A_SCHEMA:  # never read as a schema: instance data, extensions
            return {**siblings, "$unresolved": ref}
        if len(stack) >= MAX_REF_DEPTH:
            raise BudgetExceeded.too_deep()
        expanded = self.run(target, (*stack, ref))
        merged = merge(expanded, siblings)
        return _canonicalize(merged) if merged is not None else {**siblings, "allOf": [expanded]}


def _canonicalize(node: JSON) -> JSON:
    """Rewrite one already-normalised level: types, nullability, sets, unions and `allOf`."""
    out = dict(node)
    nullable = out.pop("nullable", False) is True
    if "type" in out:
        types = out["type"] if isinstance(out["type"], list) else [out["type"]]
        if all(isinstance(item, str) for item in types):
            nullable = nullable or "null" in types
            out["type"] = sorted({item for item in types if item != "null"})
    if "const" in out and "enum" not in out:
        out["enum"] = [out.pop("const")]
    if isinstance(out.get("enum"), list):
        out["enum"] = _unique_sorted(out["enum"])
    if isinstance(out.get("required"), list):
        out["required"] = (
            sorted(set(out["required"])) if all(isinstance(r, str) for r in out["required"]) else out["required"]
        )
    for key in ("anyOf", "oneOf"):
        branches = out.get(key)
        if isinstance(branches, list):
            kept = []
            for branch in branches:
                if _without_text(branch) == NULL_ONLY:
                    nullable = True
                    continue
                if key == "anyOf" and branch.get("nullable") is True:
                    nullable = True
                    branch = {k: v for k, v in branch.items() if k != "nullable"}
                kept.append(branch)
            out[key] = _unique_sorted(kept)
    if nullable:
        out["nullable"] = True
    out = _collapse_union(_enum_union(out))
    if isinstance(out.get("allOf"), list):
        out = _flatten_all_of(out)
    for key, defaults in _DEFAULTS.items():
        if key in out and any(out[key] is default or out[key] == default for default in defaults):
            del out[key]
    if out.get("type") == ["integer"]:
        for key, limit in SAFE_INTEGER_BOUNDS.items():
            if same(out.get(key), limit):
                del out[key]
    for key in ("properties", "required", "patternProperties"):
        if out.get(key) in ({}, []):
            del out[key]
    return out


def _enum_union(node: JSON) -> JSON:
    """An `anyOf` (or a `oneOf` of values no two branches share) of branches that are each an `enum`
    of one `type` is that `enum`: `anyOf: [{const: "a"}, {const: "b"}]` is `enum: ["a", "b"]`, as
    zod writes a union of literals where pydantic writes a `Literal`."""
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if not (
            isinstance(branches, list)
            and len(branches) > 1
            and all(isinstance(branch.get("enum"), list) and set(branch) <= {"enum", "type"} for branch in branches)
            and len({canonical(branch.get("type")) for branch in branches}) == 1
        ):
            continue
        values = [value for branch in branches for value in branch["enum"]]
        if key == "oneOf" and len({canonical(value) for value in values}) < len(values):
            continue  # a value two branches hold is refused by `oneOf`
        rest = {name: value for name, value in node.items() if name != key}
        if "enum" in rest or ("type" in rest and "type" in branches[0]):
            continue
        kind = {"type": branches[0]["type"]} if "type" in branches[0] else {}
        return {**rest, **kind, "enum": _unique_sorted(values)}
    return node


def _collapse_union(node: JSON) -> JSON:
    """`anyOf` with one branch is that branch; `anyOf` of bare types is a `type` list."""
    branches = node.get("anyOf")
    if not isinstance(branches, list):
        return node
    rest = {key: value for key, value in node.items() if key not in ("anyOf", "nullable")}
    nullable = node.get("nullable") is True
    if not branches:
        return {**rest, **NULL_ONLY} if nullable else node
    merged: JSON | None
    if len(branches) == 1:
        merged = merge(branches[0], rest)
    elif all(set(branch) == {"type"} for branch in branches) and "type" not in rest:
        merged = {**rest, "type": sorted({t for branch in branches for t in branch["type"]})}
    else:
        return node
    if merged is None:
        return node
    if nullable or merged.get("nullable") is True:
        merged["nullable"] = True
    return merged


def _flatten_all_of(node: JSON) -> JSON:
    """Merge `allOf` branches into their parent; branches that conflict stay as a residual `allOf`."""
    rest = {key: value for key, value in node.items() if key != "allOf"}
    accumulated: JSON = {}
    residual: list[JSON] = []
    for branch in node["allOf"]:
        merged = merge(accumulated, branch, intersect_nullable=bool(accumulated))
        if merged is None:
            residual.append(branch)
        else:
            accumulated = merged
    result = merge(accumulated, rest, intersect_nullable=bool(accumulated) and bool(rest))
    if result is None:
        return node
    if residual:
        result["allOf"] = _unique_sorted(residual)
        return result
    return _canonicalize(result)


def merge(base: JSON, overlay: JSON, *, intersect_nullable: bool = False) -> JSON | None:
    """The schema both `base` and `overlay` describe, or None when it cannot be written without
    `allOf`. Text from `overlay` wins: it is the outer schema (`$ref` siblings, the `allOf` parent)."""
    result = dict(base)
    for key, value in overlay.items():
        if key not in result or result[key] == value:
            result[key] = value
            continue
        current = result[key]
        combined = _merge_key(key, current, value)
        if combined is _CONFLICT:
            return None
        result[key] = combined
    if intersect_nullable and not (base.get("nullable") is True and overlay.get("nullable") is True):
        result.pop("nullable", None)
    return result


_CONFLICT = object()


def _merge_key(key: str, current: Any, value: Any) -> Any:
    if key in TEXT_KEYS or key == "default":
        return value
    if key == "properties" and isinstance(current, dict) and isinstance(value, dict):
        properties = dict(current)
        for name, schema in value.items():
            if name in properties:
                both = merge(properties[name], schema, intersect_nullable=True)
                if both is None:
                    return _CONFLICT
                properties[name] = both
            else:
                properties[name] = schema
        return properties
    if key == "required" and isinstance(current, list) and isinstance(value, list):
        return sorted(set(current) | set(value))
    if key in ("type", "enum") and isinstance(current, list) and isinstance(value, list):
        keep = {canonical(item) for item in value}
        common = [item for item in current if canonical(item) in keep]
        return common if common else _CONFLICT
    if key in LOWER_BOUNDS | {"exclusiveMinimum"} and _numbers(current, value):
        return max(current, value)
    if key in UPPER_BOUNDS | {"exclusiveMaximum"} and _numbers(current, value):
        return min(current, value)
    if key == "additionalProperties" and (current is False or value is False):
        return False
    if key == "nullable":
        return current is True and value is True
    return _CONFLICT


def _numbers(*values: Any) -> bool:
    return all(isinstance(value, int | float) and not isinstance(value, bool) for value in values)


def _without_text(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    return {key: value for key, value in schema.items() if key not in TEXT_KEYS}


def _unique_sorted(values: list[Any]) -> list[Any]:
    by_key = {canonical(value): value for value in values}
    return [by_key[key] for key in sorted(by_key)]


def strip_text(schema: Any) -> Any:
    """The schema without the words in it: what validators see, used to compare shapes for renames.

    Walks keywords, not keys: a property *named* `title` or `description` is kept."""
    if not isinstance(schema, dict):
        return schema
    kept = {key: value for key, value in schema.items() if key not in TEXT_KEYS and key != "default"}
    return applied(kept, lambda _, inner: strip_text(inner))
