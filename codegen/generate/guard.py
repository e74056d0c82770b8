"""Checks on an untrusted catalog before any code is generated from it.

A snapshot is a server's word, or a hand-edited file; anything here that would make the generator
read outside the schema, crash inside datamodel-code-generator or write a package that cannot be
imported is refused up front with one line naming the server, the item and a JSON pointer.

The catalog's text is checked before anything else (`check_text`); each tool's schemas are checked
right before its models are generated (`check_tool_schemas`), by the worker that generates them, so a
tool whose models are cached, which passed when they were made, is not checked again.

What one tool's schema does wrong that a server can send (invalid JSON Schema, a reference to
nothing, more work than the budget) costs that tool its types, not the package: it gets the untyped
method, and a schema nothing client-side can apply is left to the server (`Findings.left_to_server`).
Refused are only what no server can send (a lone surrogate; a schema that is not an object,
`package_plan.check_tool`), what would have the generator read instance data as a schema (a
reference into `enum` or `examples`) and a pattern the models could not compile.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple
from urllib.parse import unquote

from codegen.errors import StubgenError
from codegen.generate.cache import compact_json
from codegen.generate.dcg_speedups import proven_release
from codegen.generate.modelgen import for_datamodel, one_line
from codegen.identifiers import NAMING_RULES
from codegen.schemas import (
    ANNOTATIONS,
    KEYWORDS,
    NOT_A_SCHEMA,
    Document,
    Path,
    Reference,
    pointer_path,
    schema_at,
    subschemas,
)
from codegen.snapshot import JSON, Snapshot

_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN = 60
"""A longer name is cut in messages, so a 10,000-character name still gives a readable line."""


def check_text(snapshot: Snapshot) -> None:
    """Raise `StubgenError` for the first lone surrogate anywhere in the catalog: no server can send
    one, and no generated file could hold it."""
    where = f"server {shown(snapshot.server)}: "
    for label, value, text in _entries(snapshot):
        if not _has_surrogate(text):
            continue
        for path, text in _strings(value, ()):
            surrogate = _SURROGATE.search(text)
            if surrogate is not None:
                raise StubgenError(
                    f"{where}{label}{pointer(*path) or '/'}: contains a lone surrogate (\\u{ord(surrogate[0]):04x}), "
                    "which is not Unicode text; no server can send it, so the snapshot was edited: fix it"
                )


class Findings(NamedTuple):
    """What the checks found in one tool's schemas that costs it its types."""

    untypable: str | None
    """Why no models can be typed from them (the first thing found: a JSON pointer, then what), or None."""
    left_to_server: tuple[str, ...]
    """The keys (`inputSchema`, `outputSchema`) of the schemas nothing client-side applies: invalid
    JSON Schema, or past the work budget. The contract, the hub's catalog and code mode's stubs leave
    them to the server, and the SDK's check of the result is skipped."""
    input_typable: bool = True
    """Whether the input schema has nothing untypable: then `untypable` is the output schema's alone,
    and by naming rules 13 the tool keeps its typed arguments (`OUTPUT_ALONE_RULES`)."""


def check_tool_schemas(server: str, tool: JSON) -> Findings:
    """Raise `StubgenError` for the first thing in a tool's schemas no safe package can be generated
    from (a reference into instance data, a pattern no engine compiles); return why the tool is
    untyped (invalid JSON Schema, past the work budget, a reference outside the schema or to nothing)
    and which of its schemas are left to the server (`Findings`)."""
    problems: dict[str, str | None] = {}
    left: list[str] = []
    for key in ("inputSchema", "outputSchema"):
        schema = tool.get(key)
        if isinstance(schema, dict):
            where = f"server {shown(server)}: tool {shown(tool['name'])}: "
            problems[key], unusable = _check_schema(where, key, schema)
            left += [key] if unusable else []
    input_problem = problems.get("inputSchema")
    return Findings(input_problem or problems.get("outputSchema"), tuple(left), input_problem is None)


def past_budget(tool: JSON) -> str | None:
    """Why a tool's input or output schema is past the work budget (`codegen.schemas.MAX_NODES`), or
    None: such a tool is untyped and its schema left to the server (`contract`), whatever else its
    schemas hold. In time linear in the schemas, so `generate --strict` refuses the tool before
    making any tool's models."""
    for key in ("inputSchema", "outputSchema"):
        schema = tool.get(key)
        problem = _past_budget(key, schema) if isinstance(schema, dict) else None
        if problem is not None:
            return problem
    return None


def _past_budget(key: str, schema: JSON) -> str | None:
    past = Document.of(schema).past_budget
    if past is None:
        return None
    return (
        f"{pointer(key, *past.path)}: {past.reason}, more work than mcp-stubgen spends on one schema: "
        "only the server checks it (ask its authors to simplify it)"
    )


def _has_surrogate(text: str) -> bool:
    """Whether a lone surrogate hides anywhere in a JSON value's `compact_json`: one fast encode, before any slow walk."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def shown(name: Any) -> str:
    """A name for a message: `repr` (so control characters stay escaped), cut when very long."""
    text = repr(name)
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 5]}...{text[-1]}"


def pointer(*parts: object) -> str:
    """A JSON pointer for a message, with unprintable characters escaped so it stays on one line."""
    escaped = []
    for part in parts:
        text = str(part).replace("~", "~0").replace("/", "~1")
        text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
        escaped.append(text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "...")
    return "".join(f"/{part}" for part in escaped)


def _entries(snapshot: Snapshot) -> Iterator[tuple[str, Any, str]]:
    """Each part of the catalog with its `compact_json` (a tool's made once, by the snapshot)."""
    for value in (
        {"server": snapshot.server, "serverInfo": snapshot.server_info, "instructions": snapshot.instructions},
        {"protocolVersion": snapshot.protocol_version, "capabilities": snapshot.capabilities},
    ):
        yield "", value, compact_json(value)
    for tool, text in zip(snapshot.tools, snapshot.compact_tools, strict=True):
        yield f"tool {shown(tool['name'])}: ", tool, text
    for kind, entries, key in (
        ("resource", snapshot.resources, "uri"),
        ("resource template", snapshot.resource_templates, "uriTemplate"),
        ("prompt", snapshot.prompts, "name"),
    ):
        for entry in entries:
            yield f"{kind} {shown(entry[key])}: ", entry, compact_json(entry)


def _strings(value: Any, path: tuple[object, ...]) -> Iterator[tuple[tuple[object, ...], str]]:
    """Every string in a JSON value, keys included, with the path to it."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield (*path, key), str(key)
            yield from _strings(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _strings(inner, (*path, index))


def _check_schema(where: str, key: str, sent: JSON) -> tuple[str | None, bool]:
    """Check the schema as datamodel-code-generator will get it (no extension keyword), its references
    against the schema as the server sent it (so one into a dropped keyword says so); return why it
    leaves its tool untypable (`check_tool_schemas`), or None, and whether it is left to the server
    (`left_to_server`)."""
    schema = for_datamodel(sent, None, NAMING_RULES)  # the schema checked as the newest rules prepare it
    left = _left_to_server(key, sent, schema)
    if left is not None:
        return left, True
    _check_patterns(where, key, schema)
    document = Document.of(sent)  # resolved as sent: `$id`s are not handed to datamodel-code-generator
    untypable: str | None = None
    # A reference outside the document is named first: it is the one thing the server has to change.
    for reference in sorted(document.references, key=lambda reference: reference.problem != "outside"):
        at = pointer(key, *reference.path, "$ref")
        if reference.problem == "outside":
            untypable = untypable or (
                f"{at}: {shown(reference.text)} points outside the schema; mcp-stubgen never fetches a reference "
                "(no network, no files), so the server has to put the definition under $defs"
            )
            continue
        if reference.problem == "dangling":
            problem = _reference_problem(sent, reference.text)
            if problem == _DANGLING:
                untypable = untypable or f"{at}: {shown(reference.text)} {problem}"
                continue
            raise StubgenError(f"{where}{at}: {shown(reference.text)} {problem}")
        if schema_at(sent, reference.target or ()) is NOT_A_SCHEMA:
            raise StubgenError(f"{where}{at}: {shown(reference.text)} {_NOT_A_SCHEMA}")
    targets = {reference.path: reference.target for reference in document.references}
    for reference in document.references:
        if reference.target is not None and _reaches_no_type(sent, reference, targets):
            untypable = untypable or f"{pointer(key, *reference.path, '$ref')}: {shown(reference.text)} {_CYCLE}"
            break
    return untypable, False


def left_to_server(key: str, sent: JSON) -> str | None:
    """Why nothing client-side can apply a tool's schema (`key`: `inputSchema` or `outputSchema`), so
    it is left to the server, or None. Code mode asks it of each schema: its stubs are built from
    snapshots alone (`check-scripts` has no package to read it from)."""
    return _left_to_server(key, sent, for_datamodel(sent, None, NAMING_RULES))


def _left_to_server(key: str, sent: JSON, schema: JSON) -> str | None:
    """`left_to_server`, given the schema as datamodel-code-generator gets it: invalid JSON Schema
    (which no validator applies, and datamodel-code-generator refuses or misreads) or past the work
    budget (which the runtime refuses to apply)."""
    invalid = _invalid_root(key, sent)
    if invalid is not None:
        return invalid
    for reference in Document.of(sent).references:
        if reference.problem not in (None, "outside", "dangling"):  # a `$ref` that is not a string
            return f"{pointer(key, *reference.path, '$ref')}: {reference.problem}{_LEFT}"
    past = _past_budget(key, sent)
    if past is not None:
        return past
    if proven_release() and plainly_valid(schema):
        return None
    from datamodel_code_generator import Error
    from datamodel_code_generator.parser._schema_object import JsonSchemaObject
    from pydantic_core import ValidationError

    try:
        JsonSchemaObject.model_validate(schema)
    except ValidationError as error:
        first = error.errors()[0]
        at = pointer(key, *_schema_path(schema, first["loc"]))
        return f"{at}: not valid JSON Schema ({one_line(first['msg'])}){_LEFT}"
    except (RecursionError, ValueError, Error) as error:
        return f"/{key}: not a usable JSON Schema ({type(error).__name__}){_LEFT}"
    return None


_LEFT = "; only the server checks it (ask its authors to fix it)"


def _text(value: Any, depth: int) -> bool:
    return isinstance(value, str)


def _anything(value: Any, depth: int) -> bool:
    return True


def _flag(value: Any, depth: int) -> bool:
    return isinstance(value, bool)


def _count(value: Any, depth: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any, depth: int) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _types(value: Any, depth: int) -> bool:
    return isinstance(value, str) or _names(value, depth)


def _list(value: Any, depth: int) -> bool:
    return isinstance(value, list)


def _names(value: Any, depth: int) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _schema(value: Any, depth: int) -> bool:
    """A schema below the root, where `JsonSchemaObject` takes a boolean schema too."""
    return isinstance(value, bool) or plainly_valid(value, depth + 1)


def _schemas(value: Any, depth: int) -> bool:
    return isinstance(value, list) and all(_schema(item, depth) for item in value)


def _schema_map(value: Any, depth: int) -> bool:
    return isinstance(value, dict) and all(_schema(item, depth) for item in value.values())


_PLAIN_KEYWORDS: dict[str, Callable[[Any, int], bool]] = {
    **dict.fromkeys(("description", "title", "format", "pattern", "$comment", "$schema", "$ref"), _text),
    **dict.fromkeys(("default", "examples", "example", "const"), _anything),
    **dict.fromkeys(("uniqueItems", "nullable", "readOnly", "writeOnly", "deprecated"), _flag),
    **dict.fromkeys(("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"), _count),
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"), _number),
    **dict.fromkeys(("additionalProperties", "items", "propertyNames"), _schema),
    **dict.fromkeys(("anyOf", "oneOf", "allOf"), _schemas),
    **dict.fromkeys(("properties", "$defs", "definitions"), _schema_map),
    "type": _types,
    "enum": _list,
    "required": _names,
}
"""The keywords `plainly_valid` knows, each with what its value must be for datamodel-code-generator's
`JsonSchemaObject` to accept it, whatever else the value is; any other keyword is left to it."""
_PLAIN_DEPTH = 32
"""Schemas nested deeper are left to `JsonSchemaObject` (whose own nesting limit is far beyond)."""


def plainly_valid(schema: Any, depth: int = 0) -> bool:
    """Whether `JsonSchemaObject` certainly accepts `schema`: it holds only keywords of
    `_PLAIN_KEYWORDS`, each with a value of its kind (a number that is not a boolean, a list of
    strings, a schema). Most real tools' schemas are, and proving it here spares a changed tool's
    build the import of datamodel-code-generator's parser (0.3 s) and a cold run a twentieth of its
    CPU. False says nothing: `_left_to_server` asks `JsonSchemaObject` itself (a test holds the two
    to agreeing on every corpus the repository has and on generated schemas)."""
    if not isinstance(schema, dict) or depth > _PLAIN_DEPTH:
        return False
    for key, value in schema.items():
        check = _PLAIN_KEYWORDS.get(key)
        if check is None or not check(value, depth):
            return False
    return True


def _invalid_root(key: str, schema: JSON) -> str | None:
    """Why the schema's root `properties` or `required` is not JSON Schema (which datamodel-code-generator
    would read as no properties, or none required), or None."""
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        return f"{pointer(key, 'properties')}: must be an object{_LEFT}"
    for name, inner in properties.items():
        if not isinstance(inner, dict | bool):
            return f"{pointer(key, 'properties', name)}: must be a JSON Schema{_LEFT}"
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(item, str) for item in required):
        return f"{pointer(key, 'required')}: must be a list of property names{_LEFT}"
    return None


_DANGLING = "points at nothing in the schema (a dangling reference)"
_CYCLE = "leads into a cycle of references that never reaches a type (each schema on it is only a $ref)"


def _reaches_no_type(root: JSON, start: Reference, targets: Mapping[Path, Path | None]) -> bool:
    """Whether following `start` leads only through schemas that are nothing but a `$ref` (annotations
    aside) back to one already passed: no instance can be typed, or checked, against such a loop, and
    datamodel-code-generator fails on it with a parse error of its own output. `targets`: where each
    `$ref` of the schema, by the path of the schema holding it, points."""
    passed = {start.path}
    at = start.target
    while at is not None and at in targets and _only_a_reference(schema_at(root, at)):
        if at in passed:
            return True
        passed.add(at)
        at = targets[at]
    return False


def _only_a_reference(schema: Any) -> bool:
    return isinstance(schema, dict) and all(
        key == "$ref" or key in ANNOTATIONS or key not in KEYWORDS for key in schema
    )


_NOT_A_SCHEMA = "points into instance data or a keyword mcp-stubgen does not read, not at a schema"


def _reference_problem(root: JSON, reference: str) -> str:
    """Why a local reference no validator resolves names no schema: nothing is there, or what is there
    is no schema (one into `examples`, `enum` or an unknown keyword would have datamodel-code-generator
    read instance data, extension keywords included, as a schema)."""
    path = pointer_path(unquote(reference))
    return _NOT_A_SCHEMA if path is not None and schema_at(root, path) is NOT_A_SCHEMA else _DANGLING


def _schema_path(schema: Any, location: tuple[int | str, ...]) -> list[object]:
    """A pydantic error location without its union-member tags: only the steps that exist in the schema."""
    path: list[object] = []
    node = schema
    for part in location:
        step: Any = part if isinstance(node, dict) and part in node else None
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            step = part
        if step is not None:
            node = node[step]
            path.append(step)
    return path


def _check_patterns(where: str, key: str, schema: JSON) -> None:
    """Refuse a `pattern` (or `patternProperties` name) the generated models could not compile on import.

    datamodel-code-generator copies patterns into the models, and pydantic compiles them when a model
    class is built: with its own (Rust) engine, or with Python's `re` when datamodel-code-generator's
    scan says the pattern needs it (lookaround, syntax Rust rejects). So each pattern must compile
    with the engine that scan picks for it, and when any pattern of a schema needs Python's, all of
    them must compile with Python's: one model cannot use both (checked per schema, a little stricter
    than needed). A `pattern` that cannot apply is left alone: beside an `enum` or a non-string `const`
    (no constraint is generated) or under a `type` without "string".
    """
    needs_python: tuple[tuple[object, ...], str] | None = None
    rust_only: tuple[tuple[object, ...], str] | None = None
    for path, node in subschemas(schema):
        pattern = node.get("pattern")
        found = [((*path, "pattern"), pattern)] if isinstance(pattern, str) and _pattern_applies(node) else []
        if isinstance(node.get("patternProperties"), dict):
            found += [((*path, "patternProperties", name), name) for name in node["patternProperties"]]
        for at, pattern in found:
            python, engines, problem = _regex_engines(pattern)
            engine = "python" if python else "pydantic"
            if engine not in engines:
                raise StubgenError(
                    f"{where}{pointer(key, *at)}: {shown(pattern)} is not a regular expression "
                    f"{'Python' if python else 'pydantic'} can compile ({problem[engine]})"
                )
            if python:
                needs_python = needs_python or (at, pattern)
            elif "python" not in engines:
                rust_only = rust_only or (at, pattern)
    if needs_python and rust_only:
        (python_at, python_pattern), (rust_at, rust_pattern) = needs_python, rust_only
        raise StubgenError(
            f"{where}{pointer(key, *rust_at)}: {shown(rust_pattern)} compiles only with pydantic's regex engine, "
            f"{shown(python_pattern)} at {pointer(key, *python_at)} needs Python's; the models of one schema "
            "cannot use both"
        )


def _pattern_applies(node: JSON) -> bool:
    kind = node.get("type", "string")
    if "string" not in (kind if isinstance(kind, list) else [kind]):
        return False
    return "enum" not in node and isinstance(node.get("const", ""), str)


@functools.cache
def _regex_engines(pattern: str) -> tuple[bool, tuple[str, ...], dict[str, str]]:
    """Whether datamodel-code-generator gives the pattern Python's engine, the engines that compile it
    (`python`, `pydantic`), and each failing engine's complaint, on one line."""
    from datamodel_code_generator._regex_syntax import needs_python_engine
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    engines: list[str] = []
    problem: dict[str, str] = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" and the like
            re.compile(pattern)
    except (re.error, OverflowError, RecursionError, ValueError) as error:
        problem["python"] = " ".join(str(error).split())[:200]
    else:
        engines.append("python")
    try:
        SchemaValidator(core_schema.str_schema(pattern=pattern))
    except SchemaError as error:
        problem["pydantic"] = " ".join(str(error).rpartition("error: ")[2].split())[:200]
    else:
        engines.append("pydantic")
    return needs_python_engine(pattern, row="model", compiled=True), tuple(engines), problem
