"""JSON Schema documents for the whole project: local `$ref` resolution, schema walking, the work budget.

A tool's schema is one document, and every reference in it must point inside it: mcp-stubgen never
fetches anything. `referencing` (which `jsonschema`, and so `mcp`, brings) resolves each reference
the way validators do (JSON pointers such as `#/properties/x`, `#`, `$anchor`s like `#addr`, nested
`$defs`, `$id`-relative references within the document, each draft's own keywords), and `Document`
rewrites every one it resolves as a plain JSON pointer from the document's root (`local`). Everything
downstream, datamodel-code-generator included, then follows only `#/...` pointers (`follow`).

A schema that references itself in a fan-out (each definition an `anyOf` of two references to the
previous one) doubles in size per definition once its references are followed; `expanded_size`
measures that in linear time with the count the shipped runtime applies to live schemas
(`codegen.runtime._schema_check.expanded_size`, one count and one budget), so the generator leaves
such a schema to the server and drift calls it uncomparable up front instead of working for hours.
Likewise one rule puts a schema's sets of names (`required`...) in one order for the snapshot and for
the fingerprint a generated client takes of a live tool: the runtime's `sorted_name_sets`, which
walks where `walk` does (a test holds them to it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

# The one keyword vocabulary, the one work budget and the one order of a schema's sets of names: the
# shipped runtime's, which generate, drift and the snapshot share (so a live tool's fingerprint is the
# snapshot's, and a keyword is added in one place).
from codegen.runtime._schema_check import DATA_KEYWORDS as DATA_KEYWORDS
from codegen.runtime._schema_check import DEFINITIONS as DEFINITIONS
from codegen.runtime._schema_check import ID_KEYWORDS as ID_KEYWORDS
from codegen.runtime._schema_check import KEYWORDS as KEYWORDS
from codegen.runtime._schema_check import MAX_NODES as MAX_NODES
from codegen.runtime._schema_check import MAX_REF_DEPTH as MAX_REF_DEPTH
from codegen.runtime._schema_check import SCHEMA_LISTS as SCHEMA_LISTS
from codegen.runtime._schema_check import SCHEMA_MAPS as SCHEMA_MAPS
from codegen.runtime._schema_check import SCHEMA_VALUES as SCHEMA_VALUES
from codegen.runtime._schema_check import VALUE_KEYWORDS as VALUE_KEYWORDS
from codegen.runtime._schema_check import PastBudget
from codegen.runtime._schema_check import canonical_tool as canonical_tool
from codegen.runtime._schema_check import expanded_size as _expanded_size
from codegen.runtime._schema_check import sorted_name_sets as sorted_name_sets

ANNOTATIONS = frozenset({
    "title", "description", "$comment", "examples", "example", "default", "deprecated", "readOnly", "writeOnly",
})  # fmt: skip
"""Keywords no instance can fail: text for people and models, examples, the server's default, flags."""
COMBINATORS = frozenset({"$ref", "allOf", "anyOf", "oneOf", "not", "if"})
"""Keywords that give a schema its meaning through other schemas."""
LOWER_BOUNDS = frozenset({"minimum", "minLength", "minItems", "minProperties", "minContains"})
UPPER_BOUNDS = frozenset({"maximum", "maxLength", "maxItems", "maxProperties", "maxContains"})

Path = tuple[str | int, ...]
"""A JSON pointer as its parts."""

_BASE = "urn:mcp-stubgen:schema"
"""The base URI of a document that names none: references are resolved within the document only."""


class BudgetExceeded(PastBudget):
    """A schema stands for more work than `MAX_NODES` / `MAX_REF_DEPTH` allow; `path` is where it went
    over. The runtime's `PastBudget`, with the reasons drift's normal form raises it for."""

    @classmethod
    def too_many_nodes(cls, path: Path = ()) -> BudgetExceeded:
        return cls(path, f"stands for more than {MAX_NODES:,} schema objects once its references are followed")

    @classmethod
    def too_deep(cls, path: Path = ()) -> BudgetExceeded:
        return cls(path, f"follows more than {MAX_REF_DEPTH} references one inside another")

    @classmethod
    def too_nested(cls) -> BudgetExceeded:
        return cls((), "nests schemas too deeply to follow")


@dataclass(frozen=True)
class Reference:
    """One `$ref` in schema position: the path to the schema holding it, its text, and either the
    path of the schema it names or why it names none (`problem`)."""

    path: Path
    text: Any
    target: Path | None
    problem: str | None


Visit = Callable[[Path, dict[str, Any]], "Visit | None"]
"""What `walk` calls on each object in schema position; it returns the `Visit` for the object's own
subschemas (itself, another carrying what holds below the object, or None to leave them out)."""

_FOLLOWED = DATA_KEYWORDS | {"$ref"}
"""What a walk that follows references leaves out: instance data, and `$ref`, which it follows instead."""


_JSON_TYPES = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)
"""Python's types of JSON values, each with its JSON Schema type (a bool before an int: it is one)."""


def json_type(value: Any) -> str:
    """A JSON value's JSON Schema type (`True` is a boolean, `1.0` a number, `None` null)."""
    for python_type, name in _JSON_TYPES:
        if isinstance(value, python_type):
            return name
    return "null"


def walk(
    schema: Any,
    visit: Visit,
    path: Path = (),
    *,
    skip: frozenset[str] = DATA_KEYWORDS,
    leave: Callable[[Path, dict[str, Any]], None] | None = None,
) -> None:
    """The one walk over a schema: `visit(path, object)` on every object in schema position, parents
    first, and `leave(path, object)` once its subschemas are walked. Schema position is under a
    keyword that holds schemas (`is_schema_position`; each map of names, `SCHEMA_MAPS`, walked by
    name) and in a namespace of definitions (`is_namespace`); the values of the keywords in `skip`
    (by default instance data: `const`, `enum`, `default`...) are not walked. An unknown keyword is
    an annotation (JSON Schema 2020-12, section 6.5): no validator applies a schema, or follows a
    `$ref`, inside one, and datamodel-code-generator never sees it (`for_datamodel`), so it is not walked.

    What `visit` returns visits the object's subschemas, so a walk carries state down (a base URI an
    `$id` sets) by returning another `Visit`, and leaves a subtree out by returning None."""

    def walked(node: Any, path: Path, visit: Visit, definition: bool) -> None:
        if isinstance(node, list):
            for index, inner in enumerate(node):
                if isinstance(inner, _CONTAINERS):
                    walked(inner, (*path, index), visit, False)
            return
        below = visit(path, node)
        if below is not None:
            for key, name, inner, is_definition in _inside(node, skip, definition):
                walked(inner, (*path, key) if name is None else (*path, key, name), below, is_definition)
        if leave is not None:
            leave(path, node)

    if isinstance(schema, _CONTAINERS):
        walked(schema, path, visit, False)


def _inside(
    node: dict[str, Any], skip: frozenset[str], definition: bool
) -> Iterator[tuple[str, str | None, Any, bool]]:
    """Each list or object in schema position directly inside `node` (a definition when `definition`):
    the key it is under, its name in that key's map of names (None for none), itself, and whether it
    is a definition. What `walk` and `rebuilt` go into."""
    if definition and is_namespace(node):
        for name, inner in node.items():
            if isinstance(inner, _CONTAINERS):
                yield name, None, inner, True
        return
    for key, value in node.items():
        if not isinstance(value, _CONTAINERS) or key in skip or not is_schema_position(key):
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            for name, inner in value.items():
                if isinstance(inner, _CONTAINERS):
                    yield key, name, inner, key in DEFINITIONS
        else:
            yield key, None, value, False


def subschemas(schema: Any, path: Path = ()) -> list[tuple[Path, dict[str, Any]]]:
    """Every object in schema position (not inside `const`, `enum`, `default`..., nor an unknown
    keyword), with the path to it, parents first: `walk`'s visits."""
    found: list[tuple[Path, dict[str, Any]]] = []

    def visit(at: Path, node: dict[str, Any]) -> Visit:
        found.append((at, node))
        return visit

    walk(schema, visit, path)
    return found


def rebuilt(
    schema: Any,
    edit: Callable[[Path, dict[str, Any]], dict[str, Any]],
    path: Path = (),
    *,
    skip: frozenset[str] = DATA_KEYWORDS,
    namespaces: bool = False,
) -> Any:
    """A copy of `schema` in which every object in schema position (`walk`'s) is first passed through
    `edit(path, object)` (which returns the object itself or a new one it may not keep), then has its
    own subschemas rebuilt; the values of `skip` (instance data by default) and of unknown keywords
    are copied as they are.

    With `namespaces`, a namespace of definitions (`is_namespace`) is not an object `edit` sees: its
    entries are definitions, rebuilt in turn, and what is no schema in it is left out."""

    def copy(node: Any, path: Path, definition: bool) -> Any:
        if isinstance(node, list):
            return [
                copy(inner, (*path, index), False) if isinstance(inner, _CONTAINERS) else inner
                for index, inner in enumerate(node)
            ]
        if namespaces and definition and is_namespace(node):
            return {
                name: copy(inner, (*path, name), True) if isinstance(inner, dict) else inner
                for name, inner in node.items()
                if isinstance(inner, dict | bool)
            }
        result = edit(path, node)
        if result is node:
            result = dict(node)
        for key, name, inner, is_definition in list(_inside(result, skip, definition)):
            if name is None:
                result[key] = copy(inner, (*path, key), is_definition)
                continue
            if result[key] is node.get(key):  # a map of names: copied once, then its entries replaced
                result[key] = dict(result[key])
            result[key][name] = copy(inner, (*path, key, name), is_definition)
        return result

    return copy(schema, path, False) if isinstance(schema, _CONTAINERS) else schema


APPLIED_MAPS = SCHEMA_MAPS - {*DEFINITIONS, "dependencies"}
APPLIED_VALUES = SCHEMA_VALUES - {"contentSchema"}


def applied(node: dict[str, Any], apply: Callable[[str, Any], Any]) -> dict[str, Any]:
    """`node` with each subschema a validator applies to the instance itself, one level down,
    replaced by `apply(keyword, subschema)`: the entries of `properties`, `patternProperties` and
    `dependentSchemas` (`APPLIED_MAPS`), the members of a list of schemas, a schema-valued keyword's
    object or boolean (`APPLIED_VALUES`). What no validator applies this way is kept as it is:
    definitions (reached through `$ref`), `contentSchema` (an annotation on decoded content),
    draft-07's `dependencies` (whose entries may be lists of names), unknown keywords, data.

    The step of a walk that reads a schema as a validator does (drift's normal form), where `walk`
    and `rebuilt` visit every place a reference could hide."""
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key in APPLIED_MAPS and isinstance(value, dict):
            result[key] = {name: apply(key, inner) for name, inner in value.items()}
        elif key in SCHEMA_LISTS and isinstance(value, list):  # `items` too, in its draft-07 tuple form
            result[key] = [apply(key, inner) for inner in value]
        elif key in APPLIED_VALUES and isinstance(value, bool | dict):
            result[key] = apply(key, value)
        else:
            result[key] = value
    return result


def unapplied(node: dict[str, Any], apply: Callable[[str, Any], Any]) -> dict[str, Any]:
    """`node` with each subschema `applied` keeps as it is, definitions aside, replaced by
    `apply(keyword, subschema)`: the schema entries of draft-07's `dependencies` (its lists of names
    stay) and `contentSchema`. For a walk that compares those as a whole, as data, but must still see
    what their references point to (drift's normal form)."""
    result = dict(node)
    for key, value in node.items():
        if key in _UNAPPLIED_MAPS and isinstance(value, dict):
            result[key] = {
                name: apply(key, inner) if isinstance(inner, bool | dict) else inner for name, inner in value.items()
            }
        elif key in _UNAPPLIED_VALUES and isinstance(value, bool | dict):
            result[key] = apply(key, value)
    return result


_UNAPPLIED_MAPS = SCHEMA_MAPS - APPLIED_MAPS - set(DEFINITIONS)
_UNAPPLIED_VALUES = SCHEMA_VALUES - APPLIED_VALUES


_CONTAINERS = (dict, list)
"""What a walk goes into: anything else in a schema is a name, a number or a flag."""


_MISSING: Any = object()
_NOT_A_SCHEMA: Any = object()


def is_schema_position(keyword: str) -> bool:
    """Whether a keyword of a schema holds schemas (directly, in a list or in a map of names)."""
    return keyword in SCHEMA_MAPS or keyword in SCHEMA_LISTS or keyword in SCHEMA_VALUES


def is_namespace(definition: Any) -> bool:
    """Whether a definition is a namespace of further definitions (`definitions: {v2: {User: {...}}}`):
    an object with no keyword of JSON Schema, whose entries are then definitions whatever their names."""
    return (
        isinstance(definition, dict)
        and bool(definition)
        and not any(key in KEYWORDS or key in ID_KEYWORDS for key in definition)
    )


def dialect_of(schema: Any) -> str:
    """The dialect a document's root `$schema` names (`draft-07`, `draft2019-09`, ...), as `referencing`
    names it; `draft2020-12`, which MCP takes a schema without one to be, for none or one it does not know."""
    from referencing.jsonschema import DRAFT202012, specification_with

    named = schema.get("$schema") if isinstance(schema, dict) else None
    return specification_with(named, default=DRAFT202012).name if isinstance(named, str) else DRAFT202012.name


_REFERENCE_ALONE = frozenset({"draft-03", "draft-04", "draft-06", "draft-07"})
"""Dialects in which a `$ref` stands alone: every other keyword beside it is ignored, and whose
`dependencies` 2019-09 split into `dependentRequired` and `dependentSchemas`."""


_KEPT_BESIDE_REFERENCE = ANNOTATIONS | set(DEFINITIONS)
"""What `as_2020_12` keeps beside a `$ref` of a dialect that ignores the rest."""


def has_fixed_value(schema: Any) -> bool:
    """Whether a property schema allows one scalar value (`const`) and defaults to it: by naming rules 8
    such a property of a nested input object is required in the models and the code-mode stubs, since
    the client sends only what the caller gave and a discriminated union's members differ only there."""
    if not isinstance(schema, dict) or "const" not in schema or "default" not in schema:
        return False
    value = schema["const"]
    return not isinstance(value, dict | list) and type(schema["default"]) is type(value) and schema["default"] == value


def with_prefix_items(node: dict[str, Any]) -> dict[str, Any]:
    """`node` with a tuple `items` (a list of schemas, up to draft 2019-09) written as 2020-12 writes
    it: `prefixItems`, with `additionalItems` as its `items`. An `additionalItems` beside no tuple is
    dropped: no validator reads it."""
    if "additionalItems" not in node and not isinstance(node.get("items"), list):
        return node
    result = {key: value for key, value in node.items() if key != "additionalItems"}
    if isinstance(node.get("items"), list) and "prefixItems" not in node:
        result["prefixItems"] = result.pop("items")
        if "additionalItems" in node:
            result["items"] = node["additionalItems"]
    return result


def as_2020_12(node: dict[str, Any], dialect: str) -> dict[str, Any]:
    """One schema object of a document in `dialect` (`dialect_of`) written as draft 2020-12 writes
    what it means, so two schemas are compared by meaning whichever dialect each is in: before
    2019-09 a `$ref` ignores the keywords beside it (definitions stay, and so do annotations, which
    people and models still read) and `dependencies` are `dependentRequired` (lists of names) and
    `dependentSchemas`; a tuple `items` is `prefixItems` (`with_prefix_items`)."""
    if dialect in _REFERENCE_ALONE:
        if "$ref" in node:
            node = {key: value for key, value in node.items() if key == "$ref" or key in _KEPT_BESIDE_REFERENCE}
        dependencies = node.get("dependencies")
        if isinstance(dependencies, dict) and not {"dependentRequired", "dependentSchemas"} & node.keys():
            node = {key: value for key, value in node.items() if key != "dependencies"}
            names = {name: needed for name, needed in dependencies.items() if isinstance(needed, list)}
            schemas = {name: needed for name, needed in dependencies.items() if not isinstance(needed, list)}
            node.update({"dependentRequired": names} if names else {})
            node.update({"dependentSchemas": schemas} if schemas else {})
    return with_prefix_items(node)


def pointer_path(reference: Any) -> Path | None:
    """The parts of a local JSON pointer reference as `as_reference` writes it (`#`, `#/a/b`), or None."""
    if not isinstance(reference, str) or not reference.startswith("#"):
        return None
    if reference in ("#", "#/"):
        return ()
    if not reference.startswith("#/"):
        return None
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in reference[2:].split("/"))


def _step(node: Any, part: str | int) -> Any:
    if isinstance(node, dict) and part in node:
        return node[part]
    if isinstance(node, list) and str(part).isdigit() and int(part) < len(node):
        return node[int(part)]
    return _MISSING


def follow(root: Any, reference: Any) -> Any:
    """The value a local JSON pointer reference (`#`, `#/a/b`) names in `root`, or `MISSING`."""
    path = pointer_path(reference)
    if path is None:
        return _MISSING
    node = root
    for part in path:
        node = _step(node, part)
        if node is _MISSING:
            break
    return node


def schema_at(root: Any, path: Path) -> Any:
    """The schema at `path` in `root`, reached through schema positions only; `MISSING` when the path
    names nothing, `NOT_A_SCHEMA` when it names instance data (`enum`, `examples`...), an unknown
    keyword's value or anything else no validator reads as a schema of this document.

    A definition may be a namespace of further definitions (`#/definitions/v2/User`, `is_namespace`).
    """
    node = root
    holds = "schema"  # what `node` is: a schema, a definition, a map of names, a list of schemas, or a value
    for part in path:
        parent, node = node, _step(node, part)
        if node is _MISSING:
            return _MISSING
        if holds == "definition" and is_namespace(parent):
            continue  # an entry of a namespace is a definition too
        if holds in ("schema", "definition"):
            name = str(part)
            if name in SCHEMA_MAPS:
                holds = "definitions" if name in DEFINITIONS else "map"
            elif name in SCHEMA_LISTS or name in SCHEMA_VALUES:
                holds = "schema" if isinstance(node, dict | bool) else "list"
            else:
                holds = "value"
        elif holds in ("map", "list"):
            holds = "schema"
        elif holds == "definitions":
            holds = "definition"
    if holds not in ("schema", "definition") or not isinstance(node, dict | bool):
        return _NOT_A_SCHEMA
    return node


MISSING = _MISSING
"""What `follow` and `schema_at` return for a reference that names nothing."""
NOT_A_SCHEMA = _NOT_A_SCHEMA
"""What `schema_at` returns for a path to a value that is not in schema position."""


def as_reference(path: Path) -> str:
    """The local JSON pointer reference to `path`."""
    return "#" + "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


class Document:
    """One schema document and the resolution of every reference in it."""

    def __init__(self, root: Any) -> None:
        self.root = root

    @classmethod
    def of(cls, root: Any) -> Document:
        """The document of `root`, shared with the last few callers that asked for the same object:
        a tool's schema is checked, turned into models and read for its method's parameters in a
        row, and its references are then resolved once. (Schemas are never changed in place.)"""
        document = _RECENT.get(id(root))
        if document is None or document.root is not root:  # held here, so an id names one object
            if len(_RECENT) >= _RECENT_MAX:
                del _RECENT[next(iter(_RECENT))]
            document = _RECENT[id(root)] = cls(root)
        return document

    @functools.cached_property
    def references(self) -> tuple[Reference, ...]:
        """Every `$ref` in schema position, resolved the way a validator resolves it.

        A document without `$schema` is read as the current draft; a reference that resolves only
        as draft-07 reads it (an `$id` of `#name` naming its schema) resolves that way."""
        if not isinstance(self.root, dict) or not _mentions_ref(self.root):
            return ()
        pointers = self._pointers_only()
        if pointers is not None:
            return pointers
        from referencing.jsonschema import DRAFT7, DRAFT202012, specification_with

        dialect = self.root.get("$schema")
        if isinstance(dialect, str):
            return self._resolved(specification_with(dialect, default=DRAFT202012))
        found = self._resolved(DRAFT202012)
        if all(reference.problem != "dangling" for reference in found):
            return found
        older = {reference.path: reference for reference in self._resolved(DRAFT7)}
        return tuple(older[reference.path] if reference.problem == "dangling" else reference for reference in found)

    @functools.cached_property
    def _nodes(self) -> list[tuple[Path, dict[str, Any]]]:
        return subschemas(self.root) if isinstance(self.root, dict) else []

    @functools.cached_property
    def _places(self) -> dict[int, Path]:
        """Where each object in schema position is (its first place, for one met twice)."""
        places: dict[int, Path] = {}
        for path, node in self._nodes:
            places.setdefault(id(node), path)
        return places

    def _pointers_only(self) -> tuple[Reference, ...] | None:
        """The references, when every one is a JSON pointer (`#`, `#/...`) to a schema, in a document
        with no `$id` (draft-04: `id`) or anchor: each then names what its pointer names from the
        root, in every draft, as `_resolved` finds, without building a registry (which was most of
        a typical tool's time in this module). None for any other document, which `_resolved` reads."""
        nodes = self._nodes
        if any(isinstance(node.get(key), str) for _, node in nodes for key in _NAMING):
            return None
        places = self._places
        found = []
        for path, node in nodes:
            if "$ref" not in node:
                continue
            text = node["$ref"]
            if not isinstance(text, str) or not (text == "#" or (text.startswith("#/") and text != "#/")):
                return None
            target = follow(self.root, unquote(text))
            if not isinstance(target, dict) or id(target) not in places:
                return None
            found.append(Reference(path, text, places[id(target)], None))
        return tuple(sorted(found, key=lambda reference: [str(part) for part in reference.path]))

    def _resolved(self, specification: Any) -> tuple[Reference, ...]:
        from referencing import Registry
        from referencing.exceptions import Unresolvable

        places = self._places
        resource = specification.create_resource(self.root)
        try:
            base = resource.id() or _BASE
        except Exception:  # an `$id` that is not a string: the document names no base
            base = _BASE
        try:
            registry = Registry().with_resource(base, resource).crawl()
        except Exception:  # a subschema the draft cannot read: references into it stay unresolved
            registry = Registry().with_resource(base, resource)
        found: list[Reference] = []

        def within(resolver: Any) -> Visit:
            """The visit of the subschemas `resolver` resolves references in: until the next `$id`."""

            def visit(path: Path, node: dict[str, Any]) -> Visit:
                inner = resolver
                if node is not self.root and isinstance(node.get("$id"), str):
                    inner = resolver.in_subresource(specification.create_resource(node))
                if "$ref" in node:
                    found.append(_resolve(path, node["$ref"], inner, places, Unresolvable, self.root))
                return visit if inner is resolver else within(inner)

            return visit

        walk(self.root, within(registry.resolver(base)), skip=_FOLLOWED)
        return tuple(sorted(found, key=lambda reference: [str(part) for part in reference.path]))

    def local(self) -> Any:
        """The document with every reference that resolves written as a JSON pointer from its root,
        and the `$id`s (draft-04: `id`) that made them relative dropped: what `follow` and
        datamodel-code-generator read. A reference that does not resolve is left as written."""
        return self._local

    @functools.cached_property
    def _local(self) -> Any:
        if not self.references:
            return self.root
        rewrites = {
            reference.path: as_reference(reference.target)
            for reference in self.references
            if reference.target is not None
        }

        def rewrite(path: Path, node: dict[str, Any]) -> dict[str, Any]:
            kept = {key: value for key, value in node.items() if not (key in ID_KEYWORDS and isinstance(value, str))}
            return {**kept, "$ref": rewrites[path]} if "$ref" in kept and path in rewrites else kept

        return rebuilt(self.root, rewrite)

    def without_unresolved(self) -> Any:
        """The document with every `$ref` that names nothing in it (one outside the document or to
        nothing) dropped, so its place accepts what the rest of its schema accepts: what a validator
        may apply without fetching anything, leaving that value for the server to judge."""
        dropped = {reference.path for reference in self.unresolved}

        def drop(path: Path, node: dict[str, Any]) -> dict[str, Any]:
            return {key: value for key, value in node.items() if key != "$ref" or path not in dropped}

        return rebuilt(self.root, drop) if dropped else self.root

    @property
    def unresolved(self) -> tuple[Reference, ...]:
        """The references that name nothing in the document: outside it, or to nothing."""
        return tuple(reference for reference in self.references if reference.problem in ("outside", "dangling"))

    def with_definitions(self) -> Any:
        """`local`, with every schema a reference names moved up to a top-level definition.

        datamodel-code-generator follows only references to the root or to a top-level `$defs` or
        `definitions` entry; a reference to `#/properties/from` or to a nested `$defs` entry is
        unresolved there, and `#` names the document it builds from all of a tool's schemas. Each
        such target (the root included) is copied to `$defs` under a name of its own (its last
        key, made unique), and every reference to it points at the copy.
        """
        local = self.local()
        targets = sorted(
            {
                reference.target
                for reference in self.references
                if reference.target is not None
                and not (len(reference.target) == 2 and reference.target[0] in DEFINITIONS)
            },
            key=lambda path: [str(part) for part in path],
        )
        if not targets or not isinstance(local, dict):
            return local
        definitions = dict(local.get("$defs") or {}) if isinstance(local.get("$defs"), dict) else {}
        moved: dict[str, str] = {}
        for path in targets:
            name = stem = str(path[-1]) if path else "Root"
            count = 1
            while name in definitions:
                count += 1
                name = f"{stem}{count}"
            target = follow(local, as_reference(path))
            if not path:  # the root itself: its definitions stay where they are
                target = {key: value for key, value in target.items() if key not in DEFINITIONS}
            definitions[name] = target
            moved[as_reference(path)] = as_reference(("$defs", name))

        def move(_: Path, node: dict[str, Any]) -> dict[str, Any]:
            reference = node.get("$ref")
            return {**node, "$ref": moved.get(reference, reference)} if isinstance(reference, str) else node

        return rebuilt({**local, "$defs": definitions}, move)

    def expanded_size(self) -> int:
        """How many schema objects the local document stands for with its references followed (a
        recursive one counted once; the runtime's count); raises `PastBudget` past `MAX_NODES` or
        `MAX_REF_DEPTH`."""
        if isinstance(self._expansion, PastBudget):
            raise self._expansion
        return self._expansion

    @property
    def past_budget(self) -> PastBudget | None:
        """Why the document is past the work budget (`expanded_size`), or None."""
        return self._expansion if isinstance(self._expansion, PastBudget) else None

    @functools.cached_property
    def _expansion(self) -> int | PastBudget:
        try:
            return _expanded_size(self.local())
        except PastBudget as error:
            return error


_RECENT: dict[int, Document] = {}
_RECENT_MAX = 64
"""Documents kept for `Document.of`: the input and output schemas of a worker's batch of tools (16),
which are checked, made into models and read for their methods phase by phase, with room to spare.
With room for one tool's only, each schema's references were resolved three times."""

_NAMING = ID_KEYWORDS | {"$anchor", "$dynamicAnchor"}
"""Keywords that give a schema a name or a base URI other than its place in the document."""


def _mentions_ref(root: dict[str, Any]) -> bool:
    """Whether `$ref` appears anywhere: most tool schemas have none, and need no resolving at all.
    (A scan of every key, instance data's too, which costs less than walking the schema.)"""
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "$ref" in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _resolve(
    path: Path, text: Any, resolver: Any, places: dict[int, Path], unresolvable: type[Exception], root: Any
) -> Reference:
    if not isinstance(text, str):
        return Reference(path, text, None, f"must be a string, not {type(text).__name__}")
    try:
        target = resolver.lookup(text).contents
    except Exception as error:  # unresolvable, or an `$id` that is no URI: a plain pointer still names its place
        if text.startswith("#/") and isinstance(places.get(id(follow(root, unquote(text)))), tuple):
            return Reference(path, text, places[id(follow(root, unquote(text)))], None)
        outside = isinstance(error, unresolvable) and not text.startswith("#")
        return Reference(path, text, None, "outside" if outside else "dangling")
    place = places.get(id(target)) if isinstance(target, dict) else None
    if place is None and isinstance(target, bool) and text.startswith("#/"):
        place = pointer_path(unquote(text))
    if place is None:
        return Reference(path, text, None, "dangling")
    return Reference(path, text, place, None)
