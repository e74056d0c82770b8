"""The model classes of a regenerated package, as user code names them (`model-renamed`).

Drift compares schemas with their `$ref`s resolved, so renaming a `$defs` entry, or moving an inline
object into `$defs`, means nothing to the other rules; but a tool's nested models are named after
their `$defs` keys (`GetRouteInputPoint`), and code that builds or annotates one stops type-checking
when its class takes another name. Inline union members are named by their place among the
members (`GetRouteInputWhere`, `GetRouteInputWhere1`), so reordering them, or removing one before
another, hands a class name to another member while drift, comparing unions as sets, sees nothing.
The names are the generator's own: each changed tool's models are generated, which happens only for
a tool whose references or unions changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from codegen.drift.normalize import JSON, canonical
from codegen.errors import StubgenError
from codegen.schemas import subschemas
from codegen.snapshot import Snapshot

if TYPE_CHECKING:
    from codegen.generate.cache import Cache
    from codegen.generate.package_plan import ToolPlan


def renamed_models(
    old: Snapshot, new: Snapshot, method_names: Mapping[str, str] | None, add: Callable[..., None]
) -> None:
    """Report each tool kept under its name whose regenerated models name a class another way, as
    `add(rule, kind, name, message, path, old, new)`: a class name lost while another came, or a
    class's fields now under another class's name. A class that is only gone went with its property,
    which the schema rules report."""
    now_tools = {tool["name"]: tool for tool in new.tools}
    boxes_values = min(old.naming_rules, new.naming_rules) < 6  # rules 6 make no class for a plain value
    changed = [
        before["name"]
        for before in old.tools
        if before["name"] in now_tools and _names_may_change(before, now_tools[before["name"]], boxes_values)
    ]
    if not changed:
        return
    from codegen.generate.cache import Cache  # the generator loads only when a name may change
    from codegen.generate.package_plan import plan_package

    try:
        plans = [{plan.tool["name"]: plan for plan in plan_package(side, method_names).tools} for side in (old, new)]
    except StubgenError:  # a catalog or `method_names` the generator refuses: it says so itself
        return
    cache = Cache.default()  # what `generate` already made of a tool is read, not made again
    for name in changed:
        was = _models(old.server, plans[0][name], cache)
        now = _models(new.server, plans[1][name], cache)
        moved = sorted(
            (old_name, new_name)
            for old_name, shape in was.items()
            for new_name, new_shape in now.items()
            if old_name != new_name and shape == new_shape and now.get(old_name) != shape and was.get(new_name) != shape
        )
        gone = sorted(was.keys() - now.keys() - {old_name for old_name, _new_name in moved})
        came = sorted(now.keys() - was.keys() - {new_name for _old_name, new_name in moved})
        gone, came = _in_one_place(gone, was, came, now)
        _respelled_fields(name, was, now, add)
        _boxed_fields(name, was, now, add)
        if not moved and not gone:
            continue
        renames = [f"{old_name} is now {new_name}" for old_name, new_name in moved]
        if gone:
            renames.append(f"{', '.join(came)} where they were {', '.join(gone)}")
        message = (
            f"the regenerated models are named anew: {'; '.join(renames)}; code that names the old classes must change"
        )
        olds, news = [pair[0] for pair in moved], [pair[1] for pair in moved]
        add("model-renamed", "tool", name, message, "", olds + gone, news + came)


def _in_one_place(
    gone: list[str], was: Mapping[str, Shape], came: list[str], now: Mapping[str, Shape]
) -> tuple[list[str], list[str]]:
    """The classes gone and come that took each other's place: a field of one name held a gone class
    and now holds a come one. The rest went with their property or came with a new one, which the
    schema rules report."""
    held_before = {name: _holders(name, was) for name in gone}
    held_after = {name: _holders(name, now) for name in came}
    return (
        [name for name in gone if any(held_before[name] & held for held in held_after.values())],
        [name for name in came if any(held_after[name] & held for held in held_before.values())],
    )


def _holders(name: str, models: Mapping[str, Shape]) -> set[str]:
    """The wire names of the fields whose type names the class (`*` for extra keys, a base, an alias)."""
    from codegen.generate.model_reader import names_in

    held: set[str] = set()
    for fields, bases, extra, alias_of in models.values():
        held.update(wire for wire, _python, text, _required in fields if name in names_in(text))
        if any(name in names_in(text) for text in (*bases, extra or "", alias_of or "")):
            held.add("*")
    return held


def _respelled_fields(name: str, was: Mapping[str, Shape], now: Mapping[str, Shape], add: Callable[..., None]) -> None:
    """Report each attribute of a class kept under its name that reads another wire key now: a new
    property whose Python name is an old one's (`item-count` beside `itemCount`, both `item_count`)
    takes that name, and the old property gets a numbered one (`item_count_1`), so code reading
    `result.item_count` reads another value and type-checks."""
    for model in sorted(was.keys() & now.keys()):
        before = {python: wire for wire, python, _type, _required in was[model][0]}
        after = {python: wire for wire, python, _type, _required in now[model][0]}
        for python in sorted(before.keys() & after.keys()):
            if before[python] != after[python]:
                message = (
                    f"{model}.{python} now holds {after[python]!r} where it held {before[python]!r}; "
                    "code that reads or sets it must change"
                )
                add(
                    "model-field-respelled",
                    "tool",
                    name,
                    message,
                    "",
                    [model, python, before[python]],
                    [model, python, after[python]],
                )


def _boxed_fields(name: str, was: Mapping[str, Shape], now: Mapping[str, Shape], add: Callable[..., None]) -> None:
    """Report each attribute of a class kept under its name whose value is held in a class now, or no
    longer: naming rules 1 to 5 make a root model class of an array's item or a union's member that
    has a bound (`list[int]` becomes `list[TOutputSize]`), so the first bound added makes one and the
    last removed takes it away, while the schema rules see only a bound come or go."""
    for model in sorted(was.keys() & now.keys()):
        before = {(wire, python): text for wire, python, text, _required in was[model][0]}
        after = {(wire, python): text for wire, python, text, _required in now[model][0]}
        for key in sorted(before.keys() & after.keys()):
            came = sorted(_root_classes(after[key], now) - _root_classes(before[key], was))
            went = sorted(_root_classes(before[key], was) - _root_classes(after[key], now))
            if bool(came) == bool(went):  # unchanged, or one class for another: `model-renamed` says so
                continue
            how = f"{', '.join(came)} now holds its value" if came else f"{', '.join(went)} no longer holds it"
            message = (
                f"{model}.{key[1]} is {after[key]} where it was {before[key]}: {how}; code that passes, builds or "
                "reads it must change"
            )
            add(
                "model-value-boxed",
                "tool",
                name,
                message,
                "",
                [model, key[1], before[key]],
                [model, key[1], after[key]],
            )


def _root_classes(annotation: str, models: Mapping[str, Shape]) -> set[str]:
    """The root model classes (a plain value in a class) an annotation names."""
    from codegen.generate.model_reader import names_in

    return {
        used
        for used in names_in(annotation)
        if used in models and any(base.startswith("RootModel[") for base in models[used][1])
    }


def _names_may_change(old: JSON, new: JSON, boxes_values: bool) -> bool:
    """Whether the tool's model classes may be named otherwise while its schemas mean the same: its
    references changed (which definitions it has, which it points to where; models are named after
    the definitions they come from), its unions' members did (inline members are named by place), or
    properties spelled alike came or went (the first of them takes the shared attribute name).
    Schema rules see through all three; a tool with none of them changed is not generated. Where
    `boxes_values` (naming rules 1 to 5), an array's items that changed may gain or lose their class."""
    schemas = [[tool.get("inputSchema", {}), tool.get("outputSchema", {})] for tool in (old, new)]
    if schemas[0] == schemas[1]:  # most tools: compared in C, key order aside, without writing them out
        return False
    texts = [canonical(both) for both in schemas]
    return (
        _REFERENCE.findall(texts[0]) != _REFERENCE.findall(texts[1])
        or _definitions(old) != _definitions(new)
        or _placed_names(schemas[0]) != _placed_names(schemas[1])
        or (boxes_values and _items(schemas[0]) != _items(schemas[1]))
    )


def _items(schemas: list[Any]) -> dict[tuple[Any, ...], list[str]]:
    """The keywords of each array's `items` schema of a plain type, by where it is; words for people
    alone make no class."""
    return {
        (number, *path): sorted(set(node["items"]) - _PROSE)
        for number, schema in enumerate(schemas)
        for path, node in subschemas(schema)
        if isinstance(node.get("items"), dict)
        and node["items"].get("type") in ("string", "integer", "number", "boolean")
    }


_PROSE = frozenset({"description", "title", "examples", "$comment"})


def _placed_names(schemas: list[Any]) -> dict[tuple[Any, ...], list[str]]:
    """What the generator names by place, by where it is in the schemas: each `anyOf`/`oneOf` list, as
    its members' canonical texts (inline members are named by their place among them), and each
    object's properties spelled alike but for case and punctuation (`itemCount`, `item-count`: one
    Python name, the first takes it and the others are numbered)."""
    found: dict[tuple[Any, ...], list[str]] = {}
    for number, schema in enumerate(schemas):
        for path, node in subschemas(schema):
            for key in ("anyOf", "oneOf"):
                if isinstance(node.get(key), list):
                    found[(number, *path, key)] = [canonical(member) for member in node[key]]
            properties = node.get("properties")
            if isinstance(properties, dict) and len(properties) > 1:
                spelled: dict[str, list[str]] = {}
                for name in properties:
                    spelled.setdefault(re.sub(r"[^0-9a-z]", "", str(name).lower()), []).append(name)
                alike = sorted(name for names in spelled.values() if len(names) > 1 for name in names)
                if alike:
                    found[(number, *path, "properties")] = alike
    return found


_REFERENCE = re.compile(r'"\$ref":("(?:[^"\\]|\\.)*")')


def _definitions(tool: JSON) -> list[list[str]]:
    """The names of each schema's root definitions (`$defs`, draft-07 `definitions`)."""
    return [
        sorted(schema.get(key) or {}) if isinstance(schema, dict) and isinstance(schema.get(key), dict) else []
        for schema in (tool.get("inputSchema"), tool.get("outputSchema"))
        for key in ("$defs", "definitions")
    ]


Shape = tuple[tuple[tuple[str, str, str, bool], ...], tuple[str, ...], str | None, str | None]
"""What a model class holds, names aside: its fields (wire name, attribute, type, required), bases,
the type of its extra keys and, for an alias, the type it names."""


def _models(server: str, plan: ToolPlan, cache: Cache) -> Mapping[str, Shape]:
    """The classes of the tool's models that its method takes or returns, directly or in a field, and
    their shapes, as the generator makes them (`tool_workers.tool_models`): none for the untyped
    method or a tool it refuses (`generate` reports why), the arguments' alone where by naming rules
    13 the output schema gives no type. A definition nothing the method uses reaches is generated
    too, but no caller names it."""
    from codegen.generate.model_reader import names_in
    from codegen.generate.modelgen import annotation_text
    from codegen.generate.tool_workers import tool_models

    classes = tool_models(server, plan, cache)
    stem = plan.stem
    reached: dict[str, Shape] = {}
    waiting = [f"{stem}Input", f"{stem}Output"]
    while waiting:
        name = waiting.pop()
        model = classes.get(name)
        if model is None or name in reached:
            continue
        fields = tuple(
            (wire, python, annotation_text(annotation), wire in model.required)
            for wire, (python, annotation) in sorted(model.fields.items())
        )
        extra, alias_of = (
            annotation_text(node) if node is not None else None for node in (model.extra, model.alias_of)
        )
        reached[name] = (fields, model.bases, extra, alias_of)
        waiting += [used for _wire, _python, text, _required in fields for used in names_in(text)]
        waiting += [used for text in (extra, alias_of) if text is not None for used in names_in(text)]
        waiting += [used for base in model.bases for used in names_in(base)]
    return reached
