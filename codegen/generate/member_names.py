"""The names of a union's member classes: what naming rules 4 and 5 change in datamodel-code-generator's.

datamodel-code-generator names a union's object members by their place: a property `shape` of
`DrawInput` holding `oneOf: [circle, square]` gets `DrawInputShape` and `DrawInputShape1`, and a
union model gets its members named by the union's name twice (`PickInputPickInput`,
`PickInputPickInput1`). Rules 4 name the latter as variants (`PickInputVariant`, `PickInputVariant1`);
rules 5 name the members of a tagged union by their tag (`DrawInputShapeCircle`,
`DrawInputShapeSquare`), which reads better and stays put when the server reorders the members.
Both are computed on the module's syntax tree after generation, from names and annotations alone.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from codegen.identifiers import pascal_case

_DOUBLED = re.compile(r"(?P<union>.+)(?P=union)(?P<place>[0-9]*)")
"""How datamodel-code-generator names a union model's members: the union's name twice (its naming of
a member after its parent and after itself), then the member's place (``, `1`, `2`, ...)."""

_PLACED = re.compile(r"(?P<base>.*?)[0-9]*")
"""A member named by its place: the name its union's members share, then its place."""

TAG_LENGTH = 40
"""The longest tag a member is named by; a union with a longer one keeps its members' places."""


def member_renames(tree: ast.Module, naming_rules: int) -> dict[str, str]:
    """New names, by the naming rules, for the module's union members and the classes inside them
    (old name -> new name); empty by rules 1 to 3."""
    renamed = variant_renames(tree) if naming_rules >= 4 else {}
    if naming_rules >= 5:
        renamed.update(_tag_renames(tree, renamed, naming_rules))
    return renamed


def variant_renames(tree: ast.Module) -> dict[str, str]:
    """`_variant_renames` of a module: nothing to do, and no walk, unless a class is named by a name
    twice."""
    classes = [node.name for node in tree.body if isinstance(node, ast.ClassDef)]
    if not any(_DOUBLED.fullmatch(name) for name in classes):
        return {}
    return _variant_renames(classes, {name for union in _unions(tree) for name in union})


def _unions(tree: ast.Module) -> Iterator[list[str]]:
    """The names each of the module's unions is made of (`A | B | None`, in an annotation or a
    `RootModel[...]` base; a forward reference by its text), in the module's order."""
    chains = [node for node in ast.walk(tree) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr)]
    inner = {id(side) for node in chains for side in (node.left, node.right)}
    for node in chains:
        if id(node) in inner:  # `A | B` inside `A | B | C` is not a union of its own
            continue
        names: list[str] = []
        for side in _flattened(node):
            if isinstance(side, ast.Name):
                names.append(side.id)
            elif isinstance(side, ast.Constant) and isinstance(side.value, str):
                names.append(side.value)
        yield names


def _flattened(node: ast.expr) -> list[ast.expr]:
    """The operands of a chain of `|` (`A | B | C` parses as `(A | B) | C`)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_flattened(node.left), *_flattened(node.right)]
    return [node]


def _variant_renames(classes: list[str], members: set[str]) -> dict[str, str]:
    """New names for a union's members and the classes inside them, as the union's variants: members
    `PickInputPickInput` and `PickInputPickInput1` of `PickInput` become `PickInputVariant` and
    `PickInputVariant1`, a class `PickInputPickInputAddress` inside the first `PickInputVariantAddress`
    (notion's `...ParentRequestApiRetrieveAPageInputMovePageParentRequest1` becomes
    `...ParentRequestVariant1`). A member of a union inside a member takes its renamed union's name;
    the parts an `allOf` makes the members of (`MM`, `MM1` beside members `MM2`, `MM3`) are renamed alike.
    A new name another class has already gets a number, as datamodel-code-generator numbers names."""
    unions = {match["union"] for name in members if name in classes and (match := _DOUBLED.fullmatch(name))}
    if not unions:
        return {}
    doubled = {name: match for name in classes if (match := _DOUBLED.fullmatch(name)) and match["union"] in unions}
    taken = set(classes)
    renamed: dict[str, str] = {}

    def new_name(name: str) -> str:
        if name in renamed:
            return renamed[name]
        if name in doubled:
            match = doubled[name]
            wanted = f"{new_name(match['union'])}Variant{match['place']}"
        else:
            inside = [
                member
                for member in doubled
                if len(name) > len(member) and name.startswith(member) and not name[len(member)].islower()
            ]
            if not inside:
                return name
            member = max(inside, key=len)
            wanted = new_name(member) + name[len(member) :]
        candidate, counter = wanted, 1
        while candidate in taken:
            counter += 1
            candidate = f"{wanted}{counter}"
        taken.add(candidate)
        renamed[name] = candidate
        return candidate

    for name in sorted(classes, key=len):
        new_name(name)
    return renamed


def _tag_renames(tree: ast.Module, renamed: dict[str, str], naming_rules: int) -> dict[str, str]:
    """New names for the members of each tagged union named by their place, and for the classes
    inside them: each member class has a field of the same name typed as one string `Literal`, a
    different one for each (`kind: Literal["circle"]`), so `DrawInputShape` and `DrawInputShape1`
    become `DrawInputShapeCircle` and `DrawInputShapeSquare`, and variants `PickInputVariant`,
    `PickInputVariant1` tagged `"id"` and `"email"` become `PickInputId`, `PickInputEmail`.
    `renamed` holds the names rules 4 gave (old name -> new name).

    A union keeps its members' names where a tag makes no name (`"?"`), two tags make one
    (`"page-id"`, `"page_id"`), a tag is longer than `TAG_LENGTH`, or a new name is taken."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    if sum(1 for node in classes.values() if _string_literals(node)) < 2:
        return {}  # no two members can be tagged: no need for the walk over the whole module (9 ms a group)
    current = {name: renamed.get(name, name) for name in classes}
    taken = set(current.values())
    tagged: dict[str, str] = {}
    for union in _unions(tree):
        members = tuple(dict.fromkeys(name for name in union if name in classes))
        if len(members) < 2 or any(name in tagged for name in members):
            continue
        names = _tagged_names(members, classes, current, renamed, naming_rules)
        if names is None:
            continue
        inside = {
            nested: names[member] + current[nested][len(current[member]) :]
            for member in members
            for nested in _nested(member, classes, current)
        }
        wanted = {**inside, **names}
        freed = {current[name] for name in wanted}
        if len(set(wanted.values())) < len(wanted) or any(new in taken - freed for new in wanted.values()):
            continue
        taken = (taken - freed) | set(wanted.values())
        tagged.update(wanted)
    return tagged


def _tagged_names(
    members: tuple[str, ...],
    classes: dict[str, ast.ClassDef],
    current: dict[str, str],
    renamed: dict[str, str],
    naming_rules: int,
) -> dict[str, str] | None:
    """Each member's name by its tag, where the members are named by their place and tagged by the
    first field of the first member's that tags them all."""
    placed = {match["base"] for name in members if (match := _PLACED.fullmatch(current[name]))}
    if len(placed) != 1:
        return None
    [base] = placed
    if base.endswith("Variant") and all(name in renamed for name in members):
        base = base.removesuffix("Variant")
    tags = [_string_literals(classes[name]) for name in members]
    for field in tags[0]:
        values = [fields.get(field) for fields in tags]
        if any(value is None or len(value) > TAG_LENGTH for value in values):
            continue
        parts = [pascal_case(value or "", "", naming_rules) for value in values]
        if all(parts) and len(set(parts)) == len(parts):
            return {name: base + part for name, part in zip(members, parts, strict=True)}
    return None


def _string_literals(node: ast.ClassDef) -> dict[str, str]:
    """The class's fields typed as one string `Literal` (`kind: Literal["circle"]`), by attribute name."""
    fields: dict[str, str] = {}
    for statement in node.body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        annotation = statement.annotation
        if (
            isinstance(annotation, ast.Subscript)
            and isinstance(annotation.value, ast.Name)
            and annotation.value.id == "Literal"
            and isinstance(annotation.slice, ast.Constant)
            and isinstance(annotation.slice.value, str)
        ):
            fields[statement.target.id] = annotation.slice.value
    return fields


def _nested(member: str, classes: dict[str, ast.ClassDef], current: dict[str, str]) -> list[str]:
    """The classes a member's fields reach whose names continue the member's (`DrawInputShape1Edge`
    in `DrawInputShape1`): named after it, they are renamed with it."""
    prefix = current[member]
    found: list[str] = []
    waiting = [member]
    while waiting:
        node = classes[waiting.pop()]
        for used in ast.walk(node):
            name = used.id if isinstance(used, ast.Name) else used.value if isinstance(used, ast.Constant) else None
            if (
                isinstance(name, str)
                and name in classes
                and name not in found
                and name != member
                and current[name].startswith(prefix)
                and current[name][len(prefix) : len(prefix) + 1].isupper()
            ):
                found.append(name)
                waiting.append(name)
    return found
