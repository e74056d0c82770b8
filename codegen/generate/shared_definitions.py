"""A definition that several tools of a group repeat, made once in the group's datamodel-code-generator call.

Catalogs made from one API repeat definitions tool after tool (an OpenAPI document's schemas, copied
into the `$defs` of every operation that uses them; the benchmark's `Paging` and `Filter`), and
datamodel-code-generator builds each copy's class again: a fifth of a cold run on the benchmark's
catalog. Here each copy in a group is replaced by a stub (an open object with one marker field), so
each still gets its class, under the name datamodel-code-generator gives it in its own tool, and one
more tool of the group, the probe, carries each repeated definition once. In the module that comes
back, each stub's class body is replaced by the probe's class body for its definition, and the
probe's classes are dropped: the group's module as it would be without stubs, which
`model_batches` then cuts apart as before.

That rests on a class's body depending on its definition alone (its name, which a `title` may give,
is the stub's), so only a definition that makes one class and names no other is shared
(`_shareable`: an object of plain-valued properties, no `$ref`), and the module is checked as it
comes back: each stub found once, with the body a stub has; the probe's classes first, one per
definition; no marker left. Anything else is the group's call made with every copy, as before.
Every import a shared definition needs is still in the group's module (the probe's class needs it),
so each tool's imports are cut from it as before.
"""

from __future__ import annotations

import ast
import hashlib
import json
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codegen.schemas import DEFINITIONS
from codegen.snapshot import JSON

PROBE_STEM = "McpStubgenSharedDefinitions"
"""The probe tool's model stem; a group where a tool's stem starts it, or it starts one, shares nothing."""

_SIDES = ("inputSchema", "outputSchema")
_SHARED_ROOT_KEYWORDS = frozenset({"type", "properties", "required", "description", "additionalProperties", "title"})
_PLAIN_VALUE_KEYWORDS = frozenset({
    "type", "description", "enum", "format", "default", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "anyOf", "items",
})  # fmt: skip
"""What a property of a shared definition may say: nothing that makes a class or names one."""
_PLAIN_ITEM_KEYWORDS = frozenset({"type", "format", "enum"})
"""What an array property's `items` may say: a constraint there makes a class for the item."""
_SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean", "null"})


@dataclass(frozen=True)
class SharedCall:
    """A group's tools as datamodel-code-generator is shown them when definitions are shared."""

    entries: list[JSON]
    """The probe, then the group's tools, each repeated definition a stub."""
    marker: str
    """What every stub's one field is named after: `<marker><index>`, its definition's index as letters."""
    definitions: int
    """Definitions the probe carries (`D0`, `D1`, ...)."""
    stubs: int
    """Stubs put in the tools' schemas: each must come back as one class."""


def shared_call(entries: Sequence[JSON]) -> SharedCall | None:
    """The call that makes each definition repeated in the group once, or None where none is repeated
    (or the probe's stem could be confused with a tool's)."""
    if any(PROBE_STEM.startswith(entry["name"]) or entry["name"].startswith(PROBE_STEM) for entry in entries):
        return None
    seen: dict[str, int] = {}
    for entry in entries:
        for *_, text in _definitions(entry):
            seen[text] = seen.get(text, 0) + 1
    repeated = [text for text, count in seen.items() if count > 1]
    if not repeated:
        return None
    index = {text: number for number, text in enumerate(repeated)}
    marker = "stubgenshared" + _letters(hashlib.sha256(json.dumps(entries).encode()).hexdigest()[:16])
    stubs = 0
    stubbed: list[JSON] = []
    for entry in entries:
        copy = dict(entry)
        for side, container, name, text in _definitions(entry):
            if text not in index:
                continue
            schema = copy[side] = dict(copy[side])
            stub = _stub(marker + _letters(str(index[text])), schema[container][name].get("title"))
            schema[container] = {**schema[container], name: stub}
            stubs += 1
        stubbed.append(copy)
    probe = {
        "type": "object",
        "additionalProperties": True,
        "properties": {f"p{number}": {"$ref": f"#/$defs/D{number}"} for number in range(len(repeated))},
        "$defs": {f"D{number}": _untitled(json.loads(text)) for number, text in enumerate(repeated)},
    }
    return SharedCall([{"name": PROBE_STEM, "inputSchema": probe}, *stubbed], marker, len(repeated), stubs)


def with_shared_classes(module: str, call: SharedCall) -> str | None:
    """The module `call` made, each stub's class given its definition's body and the probe's classes
    dropped; None where the module is not as expected (the group is then made without sharing)."""
    lines = module.rstrip("\n").split("\n")
    statements = ast.parse(module).body
    first = next((number for number, node in enumerate(statements) if isinstance(node, ast.ClassDef)), 0)
    ours = next(
        (
            number
            for number in range(first, len(statements))
            if not _class_name(statements[number]).startswith(PROBE_STEM)
        ),
        first,
    )
    if ours == first:
        return None
    bodies: dict[str, list[str]] = {}
    for node in statements[first:ours]:
        if not isinstance(node, ast.ClassDef) or not node.body or node.decorator_list:
            return None
        bodies[node.name] = lines[node.body[0].lineno - 1 : node.end_lineno]
    if bodies.keys() != {f"{PROBE_STEM}Input", *(f"{PROBE_STEM}InputD{number}" for number in range(call.definitions))}:
        return None
    edits: list[tuple[int, int, list[str]]] = [(statements[first].lineno - 1, statements[ours].lineno - 1, [])]
    for node in statements[ours:]:
        probe_class = _probe_class_of(node, call.marker)
        if probe_class is not None and probe_class in bodies:
            assert isinstance(node, ast.ClassDef)
            header = lines[node.lineno - 1 : node.body[0].lineno - 1]
            edits.append((node.lineno - 1, node.end_lineno or node.lineno, [*header, *bodies[probe_class]]))
    if len(edits) != 1 + call.stubs:
        return None
    for start, end, replacement in reversed(edits):
        lines[start:end] = replacement
    result = "\n".join(lines) + "\n"
    return None if call.marker in result or PROBE_STEM in result else result


def _definitions(entry: JSON) -> list[tuple[str, str, str, str]]:
    """Each definition of a tool that can be shared: its schema (`inputSchema` or `outputSchema`),
    where it is (`$defs` or `definitions`), its name, and its text (in its own key order, which the
    class's field order follows)."""
    found: list[tuple[str, str, str, str]] = []
    for side in _SIDES:
        schema = entry.get(side)
        if not isinstance(schema, dict):
            continue
        for container in DEFINITIONS:
            definitions = schema.get(container)
            if not isinstance(definitions, dict):
                continue
            for name, definition in definitions.items():
                if _shareable(definition):
                    found.append((side, container, name, json.dumps(definition, ensure_ascii=False)))
    return found


def _shareable(definition: Any) -> bool:
    """Whether a definition makes exactly one class whose body depends on it alone: an open object
    (as `modelgen.for_datamodel` makes every object not closed outright) of plain-valued properties."""
    if not (
        isinstance(definition, dict)
        and definition.keys() <= _SHARED_ROOT_KEYWORDS
        and definition.get("type") == "object"
        and definition.get("additionalProperties") is True
    ):
        return False
    properties = definition.get("properties")
    return isinstance(properties, dict) and bool(properties) and all(map(_plain_value, properties.values()))


def _plain_value(schema: Any) -> bool:
    """Whether a property's schema types it with builtins and `Literal` alone (no class, no name)."""
    if not isinstance(schema, dict) or not schema.keys() <= _PLAIN_VALUE_KEYWORDS:
        return False
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(kinds, list) or not set(kinds) <= _SCALAR_TYPES | {"array"}:
        return False
    if not _plain_values(schema.get("enum", [])):
        return False
    items = schema.get("items")
    if ("array" in kinds) != (items is not None):
        return False
    if items is not None and not (
        isinstance(items, dict)
        and items.keys() <= _PLAIN_ITEM_KEYWORDS
        and items.get("type") in _SCALAR_TYPES
        and _plain_values(items.get("enum", []))
    ):
        return False
    branches = schema.get("anyOf", [])
    return isinstance(branches, list) and all(
        _plain_value(branch) and "anyOf" not in branch and "items" not in branch for branch in branches
    )


def _plain_values(values: Any) -> bool:
    return isinstance(values, list) and all(value is None or isinstance(value, str | int | float) for value in values)


def _stub(field: str, title: Any) -> JSON:
    """What a repeated definition is replaced by: an open object with one string field, which makes
    a class of two statements datamodel-code-generator names as it names the definition's (by its
    `title`, where it has one)."""
    stub: JSON = {"type": "object", "additionalProperties": True, "properties": {field: {"type": "string"}}}
    return stub if title is None else {"title": title, **stub}


def _untitled(definition: JSON) -> JSON:
    """The probe's copy of a definition: named `D<index>` in the probe, not by its title (which names
    the class, and only the class)."""
    return {key: value for key, value in definition.items() if key != "title"}


def _probe_class_of(node: ast.stmt, marker: str) -> str | None:
    """The name of the probe's class for the definition a stub's class stands for; None for any other
    statement."""
    if not isinstance(node, ast.ClassDef) or len(node.body) != 2:
        return None
    field = node.body[1]
    if not (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)):
        return None
    if not field.target.id.startswith(marker):
        return None
    return f"{PROBE_STEM}InputD{_digits(field.target.id.removeprefix(marker))}"


def _class_name(node: ast.stmt) -> str:
    return node.name if isinstance(node, ast.ClassDef) else ""


_LETTERS = str.maketrans(string.hexdigits[:16], string.ascii_lowercase[:16])
_DIGITS = str.maketrans(string.ascii_lowercase[:10], string.digits)


def _letters(text: str) -> str:
    """Hex digits as lowercase letters: a field name the camelCase alias generator leaves as it is,
    so the stub's field needs no `Field(alias=...)` (nor its import)."""
    return text.translate(_LETTERS)


def _digits(text: str) -> str:
    return text.translate(_DIGITS)
