"""Code mode: the hub's tools as a typed Python API written for a model to read, `<output>/code_mode/`.

With `code_mode = true` (or `generate --code-mode`) `generate` writes, beside the hub, one compact
stub per server (`<module>.pyi`: one `async def` per tool, keyword-only parameters, `Literal`
enums, `TypedDict` inputs and results, a docstring with the description, the hints and the result
shape), the same stub one tool at a time (`servers/<module>/<function>.pyi`), an `index.md` with a
line per tool, an `AGENTS.md` for coding agents, the tools' routes as data (`tools.json`), and
modules that bind the stubs' functions to the hub (`<module>.py`, `__init__.py`; the run time is
`_mcp_runtime/_code_mode.py`, whose docstring holds the contract with the sandbox).

The stubs are written here from the snapshots' JSON Schemas, not from the pydantic models: a
model reads `TypedDict`s and `Literal`s, and a sandbox's type checker needs nothing else. Names
come from `codegen.identifiers` (the client's method names and parameter names), every free text
goes through the renderer's `docstring` filter, and every key through `literal`.
"""

from __future__ import annotations

import importlib
import itertools
import json
import keyword
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegen import __version__
from codegen.errors import StubgenError, one_line
from codegen.generate.cache import Cache
from codegen.generate.escaping import docstring, literal, quoted
from codegen.generate.guard import left_to_server
from codegen.generate.headers import DO_NOT_EDIT
from codegen.generate.hub import HubSettings
from codegen.generate.member_names import TAG_LENGTH
from codegen.generate.piecewise_black import INDENT, formatted, laid_out_keyword
from codegen.generate.pipeline import Rendered, code_mode_dir
from codegen.generate.proof import RenderKey, hub_source, remember_rendered, rendered_before
from codegen.generate.templating import jinja_environment
from codegen.identifiers import (
    CODE_MODE_PACKAGE,
    FIXED_VALUE_RULES,
    PRECISE_STUB_RULES,
    UNTYPED_RESULT_STUB_RULES,
    argument_names,
    escape,
    literal_limit,
    package_name,
    pascal_case,
    plan_names,
    qualified_tools,
    wraps_result,
)
from codegen.runtime._code_mode import CodeModeTool, ResultKind, ToolHints, index_line, merge_stubs
from codegen.runtime._hub_catalog import HINT_DEFAULTS, HubTool, ToolFilter, file_stem, model_visible, summary
from codegen.schemas import MISSING, Document, follow, has_fixed_value, with_prefix_items
from codegen.snapshot import Snapshot, fingerprint, read_snapshot_bytes
from codegen.unicode14 import escape_unassigned

__all__ = [
    "CODE_MODE_PACKAGE",
    "CodeModeBuild",
    "build_code_mode",
    "module_name",
    "module_stubs",
    "remember",
    "render_code_mode",
    "report_tokens",
    "token_report",
]

PACKAGE_NAMES = frozenset({"describe", "functions", "hints", "run_code", "search_tools", "servers", "stubs", "use_hub"})
"""Names of the package's own members (and its `servers/` folder), which no server module may take."""
TYPING_NAMES = frozenset({"Any", "Literal", "NotRequired", "TypedDict"})
_MAX_DEPTH = 40
"""Schemas nested deeper than this (without a named type in between) are typed `Any`."""


def module_name(server: str) -> str:
    """The module a server's tools are imported as, in the sandbox and in-process: its package name,
    escaped away from the standard library's modules (a server `time` is `time_`) and the package's members."""
    return escape(package_name(server), PACKAGE_NAMES | set(sys.stdlib_module_names))


# -- types from JSON Schema ---------------------------------------------------------------------------

_STRING = re.compile(r'"(?:\\.|[^"\\])*"' + r"|'(?:\\.|[^'\\])*'")


def typing_names(*annotations: str) -> set[str]:
    """The `typing` names some annotations use (their string literals left out)."""
    text = _STRING.sub("", " ".join(annotations))
    return {name for name in TYPING_NAMES if re.search(rf"\b{name}\b", text)}


@dataclass
class _Types:
    """The TypedDicts one server's stubs declare, by class name: their source and the `typing` names
    they use. Tools share them, so one server's stub declares each once."""

    classes: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)


class _Clash(Exception):
    """Two schemas of one server would give one class name different bodies: the tool (`stem`) that
    came second names its class after itself."""

    def __init__(self, stem: str, name: str) -> None:
        super().__init__(name)
        self.key = (stem, name)


class _ToolTypes:
    """Annotations for one tool's schemas; a `$ref` to an object names a TypedDict after its
    definition (`Note`), an inline object after where it is (`GetForecastResult`)."""

    def __init__(self, types: _Types, stem: str, renamed: Mapping[tuple[str, str], str], rules: int) -> None:
        self.types = types
        self.stem = stem
        self.renamed = renamed
        self.rules = rules
        """The snapshot's naming rules, which name the classes."""
        self.used: list[str] = []
        """The classes this tool's stub needs, each after the classes it uses."""
        self.refs: dict[tuple[int, str], str] = {}
        self.definitions: dict[str, str] = {}
        """Each class a `$ref` of this tool named, by name: its definition's JSON."""
        self.input_root: Any = None
        """The tool's input schema, the document whose objects are arguments (not results)."""
        self.precise = rules >= PRECISE_STUB_RULES
        """Whether to type what rules 1 to 9 left `Any` (`PRECISE_STUB_RULES`)."""

    def annotation(self, schema: Any, root: Any, name: str, depth: int = 0) -> str:
        if depth > _MAX_DEPTH or not isinstance(schema, dict) or not schema:
            return "Any"
        reference = schema.get("$ref")
        if isinstance(reference, str):
            return self._reference(reference, root, depth)
        if "const" in schema:
            return self._literal([schema["const"]]) or (_value_type(schema["const"], depth) if self.precise else "Any")
        if isinstance(schema.get("enum"), list):
            literal_type = self._literal(schema["enum"])
            if literal_type is None and self.precise and schema["enum"]:
                return _union([_value_type(value, depth) for value in schema["enum"]])
            return literal_type or self._base(schema, root, name, depth)
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                members: list[str] = []
                values: list[Any] = []  # the branches that are a `const` or an `enum`: one `Literal`
                position = 0
                tags = _tags(schema[key], self.rules)
                for index, member in enumerate(schema[key], 1):
                    literal_values = _literal_values(member)
                    if literal_values is None:
                        branch_name = name + tags[index] if index in tags else f"{name}{index}" if index > 1 else name
                        members.append(self.annotation(member, root, branch_name, depth + 1))
                        continue
                    position = position if values else len(members)
                    values += literal_values
                if values:
                    members.insert(position, self._literal(values) or self._wide(values, depth) or "Any")
                union = _union(members + (["None"] if schema.get("nullable") is True else []))
                return self._base(schema, root, name, depth) if union == "Any" and self.precise else union
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and all_of and self.precise:
            return self._all_of(schema, all_of, root, name, depth)
        if isinstance(all_of, list) and len(all_of) == 1 and not schema.get("properties"):
            return self.annotation(all_of[0], root, name, depth + 1)
        if isinstance(all_of, list) and all_of:
            merged = _merged_objects(schema, root)
            return self._object(merged, root, name, depth) if merged is not None else "Any"
        return self._base(schema, root, name, depth)

    def _all_of(self, schema: dict[str, Any], all_of: list[Any], root: Any, name: str, depth: int) -> str:
        """An `allOf`: its objects merged into one; else the first type that its members, then the
        schema's own keywords, say (each holds every value the whole does, so none is tighter; a
        member's `$ref` to an enum says more than a `type: string` beside it)."""
        merged = _merged_objects(schema, root)
        if merged is not None:
            return self._object(merged, root, name, depth)
        for member in all_of:
            annotation = self.annotation(member, root, name, depth + 1)
            if annotation != "Any":
                return annotation
        return self._base(schema, root, name, depth)

    def _base(self, schema: dict[str, Any], root: Any, name: str, depth: int) -> str:
        kinds = schema.get("type")
        if isinstance(kinds, str):
            kinds = [kinds]
        if not isinstance(kinds, list) or not kinds:
            kinds = ["object"] if "properties" in schema else []
        members = [self._kind(kind, schema, root, name, depth) for kind in kinds]
        if schema.get("nullable") is True:
            members.append("None")
        return _union(members) if members else "Any"

    def _kind(self, kind: Any, schema: dict[str, Any], root: Any, name: str, depth: int) -> str:
        simple = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
        if kind in simple:
            return simple[kind]
        if kind == "array":
            if self.precise and isinstance(with_prefix_items(schema).get("prefixItems"), list):
                return self._tuple(with_prefix_items(schema), root, name, depth)
            items = schema.get("items")
            return (
                f"list[{self.annotation(items, root, name + 'Item', depth + 1) if isinstance(items, dict) else 'Any'}]"
            )
        if kind == "object":
            return self._object(schema, root, name, depth)
        return "Any"

    def _tuple(self, schema: dict[str, Any], root: Any, name: str, depth: int) -> str:
        """A tuple (`prefixItems`, with `items` for the rest): an argument of one length is a `tuple`;
        any other, and a result (JSON gives it as a list), a list of its members' types."""
        prefix = schema["prefixItems"]
        rest = schema.get("items", True)
        least, most = schema.get("minItems", 0), schema.get("maxItems")
        least = least if type(least) is int else 0
        most = most if type(most) is int else None
        closed = rest is False or (most is not None and most <= len(prefix))
        length = min(len(prefix), most) if most is not None else len(prefix)
        members = [
            self.annotation(item, root, f"{name}Item{index}", depth + 1)
            for index, item in enumerate(prefix[:length] if closed else prefix, 1)
        ]
        if closed and least >= length and root is self.input_root:
            return f"tuple[{', '.join(members)}]" if members else "tuple[()]"
        if not closed:
            members.append(self.annotation(rest, root, name + "Item", depth + 1) if isinstance(rest, dict) else "Any")
        return f"list[{_union(members) or 'Any'}]"

    def _object(self, schema: dict[str, Any], root: Any, name: str, depth: int, class_name: str | None = None) -> str:
        properties = schema.get("properties")
        patterns = schema.get("patternProperties")
        if (
            self.precise
            and (not isinstance(properties, dict) or not properties)
            and isinstance(patterns, dict)
            and patterns
        ):
            return self._pattern_values(schema, patterns, root, name, depth)
        if not isinstance(properties, dict) or not properties:
            extra = schema.get("additionalProperties")
            value = self.annotation(extra, root, name + "Value", depth + 1) if isinstance(extra, dict) else "Any"
            return f"dict[str, {value}]"
        class_name = class_name or self._class_name(name)
        required = {key for key in schema.get("required", []) if isinstance(key, str)}
        if self.rules >= FIXED_VALUE_RULES and root is self.input_root:
            required |= {key for key, inner in properties.items() if has_fixed_value(inner)}
        fields = []
        for key in sorted(properties):
            annotation = self.annotation(properties[key], root, name + pascal_case(key, "Field", self.rules), depth + 1)
            if key not in required:
                annotation = f"NotRequired[{annotation}]"
            description = properties[key].get("description") if isinstance(properties[key], dict) else None
            fields.append((key, annotation, description if isinstance(description, str) else None))
        source = _typed_dict(class_name, fields, schema.get("description"))
        names = frozenset(typing_names(*(annotation for _, annotation, _ in fields)) | {"TypedDict"})
        existing = self.types.classes.get(class_name)
        if existing is not None and existing[0] != source:
            if class_name not in self.used or re.search(rf"\b{class_name}\b", " ".join(a for _, a, _ in fields)):
                raise _Clash(self.stem, name)
            # Two places in this tool name one class ("createdBy" + "user" and "createdByUser"): renaming
            # the tool's classes cannot tell them apart, so the later one takes the next free number,
            # unless its fields already refer to it by name.
            class_name, source = self._numbered(class_name, fields, schema.get("description"))
        self.types.classes[class_name] = (source, names)
        if class_name not in self.used:
            self.used.append(class_name)
        return class_name

    def _pattern_values(
        self, schema: dict[str, Any], patterns: dict[str, Any], root: Any, name: str, depth: int
    ) -> str:
        """An object of `patternProperties`: a key no pattern matches holds what `additionalProperties`
        allows (anything, unless it says otherwise), so the values are all of their types together."""
        extra = schema.get("additionalProperties", True)
        values = [self.annotation(inner, root, name + "Value", depth + 1) for _, inner in sorted(patterns.items())]
        if extra is not False:
            values.append(self.annotation(extra, root, name + "Value", depth + 1) if isinstance(extra, dict) else "Any")
        return f"dict[str, {_union(values)}]"

    def _numbered(
        self, class_name: str, fields: list[tuple[str, str, str | None]], description: Any
    ) -> tuple[str, str]:
        """The first of `class_name2`, `class_name3`, ... free for these fields, with its source."""
        number = 2
        while True:
            numbered = f"{class_name}{number}"
            source = _typed_dict(numbered, fields, description)
            existing = self.types.classes.get(numbered)
            if existing is None or existing[0] == source:
                return numbered, source
            number += 1

    def _reference(self, reference: str, root: Any, depth: int) -> str:
        key = (id(root), reference)  # the input and the output schema are two documents
        if key in self.refs:
            return self.refs[key]
        target = follow(root, reference)
        if target is MISSING or not isinstance(target, dict):
            return "Any"
        name = pascal_case(reference.rsplit("/", 1)[-1] or "Root", "Type", self.rules)
        if _is_object(target):
            class_name = self._class_name(name)
            definition = json.dumps(target, sort_keys=True)
            if self.definitions.setdefault(class_name, definition) != definition:
                # Another definition of this tool's, in its other schema, has the name: a number,
                # chosen now, since a recursive definition's own fields use it
                class_name = next(
                    f"{class_name}{number}"
                    for number in itertools.count(2)
                    if f"{class_name}{number}" not in self.types.classes
                    and f"{class_name}{number}" not in self.definitions
                )
                self.definitions[class_name] = definition
            self.refs[key] = class_name  # a recursive reference names it
            class_name = self.refs[key] = self._object(target, root, name, depth + 1, class_name)
            return class_name
        self.refs[key] = "Any"  # a recursive reference to anything else is `Any`
        annotation = self.refs[key] = self.annotation(target, root, name, depth + 1)
        return annotation

    def _class_name(self, name: str) -> str:
        return self.renamed.get((self.stem, name)) or escape(name, TYPING_NAMES)

    def _literal(self, values: Sequence[Any]) -> str | None:
        """The values as one `Literal` (and `None`), or None: one holds none of them, or more of them
        than `literal_limit` allows."""
        if len(values) > literal_limit(self.rules):
            return None
        written = []
        for value in values:
            if value is None or isinstance(value, bool):
                written.append(repr(value))
            elif isinstance(value, int):
                written.append(str(value))
            elif isinstance(value, str):
                written.append(literal(value))
            else:
                return None
        members = [text for text in dict.fromkeys(written) if text != "None"]
        parts = [f"Literal[{', '.join(members)}]"] if members else []
        return _union(parts + (["None"] if "None" in written else [])) or None

    def _wide(self, values: Sequence[Any], depth: int) -> str | None:
        """The types of more values than one `Literal` holds (`literal_limit`), as the models type them; else None."""
        if len(values) <= literal_limit(self.rules) or not self.precise:
            return None
        return _union([_value_type(value, depth) for value in values])


def _value_type(value: Any, depth: int = 0) -> str:
    """The type of a JSON value no `Literal` holds (a `const` or an `enum` member): `float`, `list[int]`,
    `dict[str, str]`; one of the values `Literal` holds, its kind; nested deeper than `_MAX_DEPTH`, `Any`."""
    if depth > _MAX_DEPTH:
        return "Any"
    if isinstance(value, list):
        return f"list[{_union([_value_type(item, depth + 1) for item in value]) or 'Any'}]"
    if isinstance(value, dict):
        return f"dict[str, {_union([_value_type(item, depth + 1) for item in value.values()]) or 'Any'}]"
    kinds = {bool: "bool", int: "int", float: "float", str: "str", type(None): "None"}
    return kinds.get(type(value), "Any")


def _literal_values(schema: Any) -> list[Any] | None:
    """The values of a union's branch that is only a `const` or an `enum` of strings, integers, booleans
    and `null`, which `Literal` can hold; `None` for any other branch. Such branches make one `Literal`
    (`anyOf: [{enum: [a, b]}, {const: c}]` is `Literal["a", "b", "c"]`), as in the models."""
    if not isinstance(schema, dict) or "$ref" in schema:
        return None
    values = [schema["const"]] if "const" in schema else schema.get("enum")
    if not isinstance(values, list) or not values:
        return None
    if all(value is None or isinstance(value, (bool, int, str)) for value in values):
        return values
    return None


def _tags(members: list[Any], rules: int) -> dict[int, str]:
    """By naming rules 5, the name part each object member of a tagged union is named by (`Circle`),
    by its place from 1, as the models name them (`member_names`): every object member has a required
    property of one name holding one string constant, a different name part each; else none."""
    objects = {
        index: member for index, member in enumerate(members, 1) if isinstance(member, dict) and "properties" in member
    }
    if rules < 5 or len(objects) < 2:
        return {}
    first = next(iter(objects.values()))
    for tag in first["properties"] if isinstance(first["properties"], dict) else ():
        values = {index: _tag_value(member, tag) for index, member in objects.items()}
        if not all(isinstance(value, str) and len(value) <= TAG_LENGTH for value in values.values()):
            continue
        parts = {index: pascal_case(str(value), "", rules) for index, value in values.items()}
        if all(parts.values()) and len(set(parts.values())) == len(parts):
            return parts
    return {}


def _tag_value(member: dict[str, Any], tag: str) -> Any:
    """The one string constant a member's required property `tag` holds (`const`, or an `enum` of one)."""
    properties = member.get("properties")
    required = member.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list) or tag not in required:
        return None
    schema = properties.get(tag)
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    return enum[0] if isinstance(enum, list) and len(enum) == 1 else None


def _union(members: Sequence[str]) -> str:
    """The members as one type, each named once however the branches nest (rootly-mcp-server's
    `anyOf` of a nullable string and a nullable object was `str | None | X | None`, PYI016); `float`
    stands for `int | float` too, as a type checker reads it (ruff's default rules reject the pair
    in a stub's signature, PYI041)."""
    unique = list(dict.fromkeys(part for member in members for part in _top_level_members(member)))
    if "Any" in unique:
        return "Any"
    if "float" in unique:
        unique = [member for member in unique if member != "int"]
    if "None" in unique:  # last, as people write it
        unique = [member for member in unique if member != "None"] + ["None"]
    return " | ".join(unique)


def _top_level_members(annotation: str) -> list[str]:
    """The members of a union written as `A | B`, leaving alone a `|` inside brackets or a string
    (`list[str | None]`, `Literal["a | b"]`)."""
    members, start, depth, quote, escaped = [], 0, 0, "", False
    for index, char in enumerate(annotation):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[]":
            depth += 1 if char == "[" else -1
        elif char == "|" and depth == 0:
            members.append(annotation[start:index].strip())
            start = index + 1
    return [*members, annotation[start:].strip()]


def _is_object(schema: dict[str, Any]) -> bool:
    properties = schema.get("properties")
    return isinstance(properties, dict) and bool(properties) and schema.get("type", "object") in ("object", ["object"])


def _merged_objects(schema: dict[str, Any], root: Any) -> dict[str, Any] | None:
    """An `allOf` of objects as one object (their properties and required keys together), or None."""
    properties = dict(schema.get("properties") or {})
    required = [key for key in schema.get("required") or [] if isinstance(key, str)]
    for member in schema["allOf"]:
        seen: set[str] = set()
        while isinstance(member, dict) and isinstance(member.get("$ref"), str) and member["$ref"] not in seen:
            seen.add(member["$ref"])
            member = follow(root, member["$ref"])
        if not isinstance(member, dict) or not isinstance(member.get("properties"), dict):
            return None
        properties.update(member["properties"])
        required += [key for key in member.get("required", []) if isinstance(key, str)]
    return {"type": "object", "properties": properties, "required": sorted(set(required))}


def _typed_dict(name: str, fields: Sequence[tuple[str, str, str | None]], description: Any) -> str:
    """A TypedDict's source: class syntax when every key is a plain identifier, else the functional
    form, whose keys are string literals (`from`, `$meta`, `x-id`)."""
    if not all(
        key.isascii() and key.isidentifier() and not keyword.iskeyword(key) and not key.startswith("__")
        for key, _, _ in fields
    ):
        items = "".join(f"\n        {literal(key)}: {annotation}," for key, annotation, _ in fields)
        return f'{name} = TypedDict(\n    "{name}",\n    {{{items}\n    }},\n)'
    lines = [f"class {name}(TypedDict):"]
    if isinstance(description, str) and description.strip():
        lines.append(_indent(f'"""{_escaped(description)}"""', "    "))
        if fields:
            lines.append("")  # a stub's class docstring is followed by a blank line, as black lays it out
    for key, annotation, text in fields:
        lines.append(f"    {key}: {annotation}")
        if text and text.strip():
            lines.append(_indent(f'"""{_escaped(text)}"""', "    "))
    return "\n".join(lines)


def _escaped(text: str) -> str:
    """Catalog text for a docstring: escaped by the renderer's filter, runs of blank lines made one."""
    return re.sub(r"\n{3,}", "\n\n", docstring(text))


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else "" for line in text.split("\n"))


# -- one tool -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ToolStub:
    tool: CodeModeTool
    stub: str
    """`servers/<module>/<function>.pyi`: the function and the types it uses."""
    definition: dict[str, Any]
    """The tool as `tools/list` gives it, for the token report."""


def _hints(tool: Mapping[str, Any], qualified: str) -> ToolHints:
    annotations = tool.get("annotations") or {}

    def hint(key: str) -> bool:
        value = annotations.get(key, HINT_DEFAULTS[key])
        return value if isinstance(value, bool) else HINT_DEFAULTS[key]

    read_only = hint("readOnlyHint")
    return ToolHints(qualified, read_only, not read_only and hint("destructiveHint"), hint("openWorldHint"))


@dataclass(frozen=True)
class _Route:
    server: str
    module: str
    function: str
    qualified_name: str
    keywords: Mapping[str, str]
    """The committed package's keywords for the tool's arguments, as its client method takes them."""
    naming_rules: int
    """The snapshot's naming rules, which name the tool's other keywords."""
    untyped_result: bool = False
    """The tool's client method returns `ToolResult` though it lists an output schema (by naming rules
    14, `UNTYPED_RESULT_STUB_RULES`): the function returns the result's text, as the client types none."""


def _tool_stub(
    route: _Route, raw: Mapping[str, Any], types: _Types, renamed: Mapping[tuple[str, str], str]
) -> _ToolStub:
    """One tool's function stub with the classes it uses (declared into `types`)."""
    stem = pascal_case(route.function, "Tool", route.naming_rules)
    builder = _ToolTypes(types, stem, renamed, route.naming_rules)
    input_schema, output_schema = _local(raw, "inputSchema"), _local(raw, "outputSchema")
    root = input_schema if isinstance(input_schema, dict) else {}
    builder.input_root = root
    target = follow(root, root["$ref"]) if isinstance(root.get("$ref"), str) else root
    properties = target.get("properties") if isinstance(target, dict) else None
    if isinstance(target, dict) and properties is None and target.get("type") == "object":
        properties = {}  # any object: the function takes no arguments
    parameters: dict[str, str] | None = None
    lines, docs = [], []
    if isinstance(target, dict) and isinstance(properties, dict):
        required = {key for key in target.get("required", []) if isinstance(key, str)}
        names = sorted(
            argument_names(properties, route.keywords, route.naming_rules),
            key=lambda named: named.wire not in required,
        )
        parameters = {named.python: named.wire for named in names}
        for named in names:
            annotation = builder.annotation(
                properties[named.wire], root, stem + pascal_case(named.wire, "Arg", route.naming_rules)
            )
            default = "" if named.wire in required else "..."
            lines.append(INDENT + laid_out_keyword(named.python, annotation, 1, default=default))
            doc = _parameter_doc(named.python, named.wire, properties[named.wire], named.wire in required)
            docs += [doc] if doc is not None else []
    else:
        lines.append("    arguments: dict[str, Any],")
        left = input_schema == {} and bool(raw["inputSchema"])
        why = "its input schema is left to the server" if left else "the input schema's root is not one object"
        docs.append(f"arguments: The whole arguments object ({why}).")
    result: ResultKind = "text"
    returns, shape = "str", "the text of the tool's result (it declares no output schema)"
    if isinstance(raw.get("outputSchema"), dict) and output_schema == {} and raw["outputSchema"]:
        shape = "the text of the tool's result (its output schema is left to the server)"
    elif route.untyped_result:
        shape = "the text of the tool's result (its client could make no type of its output schema)"
    elif isinstance(output_schema, dict) and output_schema:
        if wraps_result(raw["name"], output_schema):
            result, shape = "value", "the tool's result value (its server sends it wrapped as `result`)"
            returns = builder.annotation(output_schema["properties"]["result"], output_schema, stem + "Result")
        else:
            result, shape = "structured", "the tool's structured result"
            returns = builder.annotation(output_schema, output_schema, stem + "Result")
    hints = _hints(raw, route.qualified_name)
    description = raw.get("description") or raw.get("title")
    sections = [_escaped(description)] if isinstance(description, str) and description.strip() else []
    if docs:
        sections.append("Args:\n" + "\n".join(_indent(_escaped(doc), "    ") for doc in docs))
    sections.append(f"Returns {shape}.\nHints: {hints.words()}.")
    parameter_lines = "".join(f"{line}\n" for line in lines)
    signature = (
        f"async def {route.function}(\n    *,\n{parameter_lines}) -> {returns}:"
        if lines
        else f"async def {route.function}() -> {returns}:"
    )
    lines_of_doc = [sections[0], "", *sections[1:]] if len(sections) > 1 and description else sections
    function_source = f'{signature}\n    """{_indent(chr(10).join(lines_of_doc), "    ").lstrip()}\n    """'
    used = [types.classes[name] for name in builder.used]
    names_used = typing_names(*(line for line in lines), returns).union(*(names for _, names in used))
    head = [f"from typing import {', '.join(sorted(names_used))}"] if names_used else []
    stub = merge_stubs([*head, *(source for source, _ in used), function_source])
    tool = CodeModeTool(
        name=f"{route.module}.{route.function}",
        module=route.module,
        function=route.function,
        server=route.server,
        tool=raw["name"],
        parameters=parameters,
        result=result,
        summary=_one_line(raw),
        hints=hints,
    )
    definition = {
        key: raw[key]
        for key in ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
        if key in raw
    }
    return _ToolStub(tool, stub, definition)


def _parameter_doc(python: str, wire: str, schema: Any, required: bool) -> str | None:
    """A parameter's line under `Args:`: its description, wire name, default and optionality; None
    for a required one with nothing more to say."""
    parts = []
    text = schema.get("description") if isinstance(schema, dict) else None
    if isinstance(text, str) and text.strip():
        parts.append(text.strip() if text.strip().endswith((".", "!", "?")) else text.strip() + ".")
    if wire != python:
        parts.append(f"Sent as {quoted(wire)}.")
    if isinstance(schema, dict) and "default" in schema:
        parts.append(f"Default: {json.dumps(schema['default'], ensure_ascii=False)}.")
    if not required:
        parts.append("Optional.")
    return f"{python}: {' '.join(parts)}" if parts else None


def _one_line(raw: Mapping[str, Any]) -> str:
    """The tool's summary on one line of at most 160 characters, as `index.md` shows it: with every
    non-printable character (as Python 3.11 reads them) as its escape (`one_line`), so a terminal
    escape or a bidi control in a description reaches no terminal that shows the committed file, nor
    reorders its text."""
    text = summary(HubTool("", "", "", "", raw.get("description"), {}, title=raw.get("title")))
    text = " ".join(text.split()).replace("`", "'")
    return escape_unassigned(one_line(text if len(text) <= 160 else text[:157] + "..."))


def _local(raw: Mapping[str, Any], key: str) -> Any:
    """The tool's schema under `key` with every `$ref` a local JSON pointer; one left to the server
    (invalid, or past the work budget: `left_to_server`) is untyped."""
    schema = raw.get(key)
    if not isinstance(schema, dict):
        return schema
    return {} if left_to_server(key, schema) is not None else Document.of(schema).local()


# -- the package ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CodeModeServer:
    server: str
    module: str
    about: str
    """The server's own words about itself (title, description, instructions)."""
    tools: tuple[_ToolStub, ...]


def code_mode_clash(server: str) -> StubgenError:
    """The error for a server whose package would be code mode's own folder."""
    return StubgenError(
        f"code mode: server {server!r} would generate the package {CODE_MODE_PACKAGE!r}, which is code "
        "mode's own folder; rename the server id"
    )


def build_servers(
    servers: Sequence[tuple[Snapshot, Mapping[str, str]]], settings: HubSettings, cache: Cache | None = None
) -> tuple[CodeModeServer, ...]:
    """Every server's stubs: its tools the hub's filters let through and it shows to models, named as
    its client names them, routed by the hub's qualified names. `cache` holds what `generate` made of
    the tools, whose client methods say which results are untyped (`_untyped_results`)."""
    by_server = {snapshot.server: (snapshot, method_names) for snapshot, method_names in servers}
    modules: dict[str, str] = {}
    for server in sorted(by_server):
        if package_name(server) == CODE_MODE_PACKAGE:
            raise code_mode_clash(server)
        module = module_name(server)
        other = next((name for name, taken in modules.items() if taken == module), None)
        if other is not None:
            raise StubgenError(
                f"code mode: servers {other!r} and {server!r} would both be the module {module!r}; rename one"
            )
        modules[server] = module
    catalog: dict[str, list[str]] = {}
    functions: dict[str, dict[str, str]] = {}
    for server, (snapshot, method_names) in by_server.items():
        rule = settings.filters.get(server, ToolFilter())
        catalog[server] = [
            tool["name"]
            for tool in snapshot.tools
            if rule.allows(tool["name"], tool.get("annotations") or {}) and model_visible(tool.get("_meta"))
        ]
        functions[server] = {named.wire: named.python for named in plan_names(snapshot, method_names).tools}
    untyped = {
        server: _untyped_results(snapshot, method_names, catalog[server], cache or Cache.disabled())
        for server, (snapshot, method_names) in by_server.items()
    }
    routes = {
        (entry.server, entry.tool): _Route(
            entry.server,
            modules[entry.server],
            functions[entry.server][entry.tool],
            entry.qualified_name,
            by_server[entry.server][0].argument_names.get("tools", {}).get(entry.tool, {}),
            by_server[entry.server][0].naming_rules,
            entry.tool in untyped[entry.server],
        )
        for entry in qualified_tools(
            catalog, settings.separator, functions, {server: by_server[server][0].naming_rules for server in by_server}
        )
    }
    built = []
    for server in sorted(by_server):
        snapshot = by_server[server][0]
        raw = {tool["name"]: tool for tool in snapshot.tools}
        wanted = sorted(catalog[server], key=lambda name: functions[server][name])
        info = snapshot.server_info if isinstance(snapshot.server_info, dict) else {}
        parts = (info.get("title"), info.get("description"), snapshot.instructions)
        about = " ".join(part for part in parts if isinstance(part, str) and part)
        built.append(CodeModeServer(server, modules[server], about, _server_stubs(server, wanted, raw, routes)))
    return tuple(built)


def _untyped_results(
    snapshot: Snapshot, method_names: Mapping[str, str], shown: Sequence[str], cache: Cache
) -> frozenset[str]:
    """The shown tools listing an output schema whose client method returns `ToolResult` all the
    same, by naming rules 14 (`UNTYPED_RESULT_STUB_RULES`): the generator's own decision
    (`tool_workers.tool_specs`), read from `cache` where `generate` made the tool."""
    if snapshot.naming_rules < UNTYPED_RESULT_STUB_RULES:
        return frozenset()
    from codegen.generate.package_plan import plan_package
    from codegen.generate.tool_workers import tool_specs

    wanted = set(shown)
    plans = [plan for plan in plan_package(snapshot, method_names).tools if plan.tool["name"] in wanted]
    plans = [plan for plan in plans if isinstance(plan.tool.get("outputSchema"), dict)]
    specs = tool_specs(snapshot.server, plans, cache)
    return frozenset(
        plan.tool["name"] for plan, spec in zip(plans, specs, strict=True) if spec and spec.output_kind == "result"
    )


def _server_stubs(
    server: str,
    wanted: Sequence[str],
    raw: Mapping[str, Mapping[str, Any]],
    routes: Mapping[tuple[str, str], _Route],
) -> tuple[_ToolStub, ...]:
    """The tools' stubs. Where a tool's class would be another tool's under the same name but
    different, it takes the later tool's name as a prefix (then a number), and that tool alone is
    built again: the tools before it keep their classes, so a catalog whose tools all name their
    definitions alike (`def0`, `def1`, ...) costs a rebuild per clash of one tool, not of the server."""
    types = _Types()
    renamed: dict[tuple[str, str], str] = {}
    return tuple(_tool_stub_apart(server, routes[(server, name)], raw[name], types, renamed) for name in wanted)


_MAX_RENAMES = 1000
"""Most times one tool is built again to name its classes apart from the earlier tools'."""


def _tool_stub_apart(
    server: str, route: _Route, raw: Mapping[str, Any], types: _Types, renamed: dict[tuple[str, str], str]
) -> _ToolStub:
    """One tool's stub (`_tool_stub`), its clashing classes renamed in `renamed` until none clashes."""
    for _ in range(_MAX_RENAMES):
        declared = dict(types.classes)
        try:
            return _tool_stub(route, raw, types, renamed)
        except _Clash as clash:
            types.classes = declared  # what the failed attempt declared goes with it
            stem, name = clash.key
            current = renamed.get(clash.key)
            if current is None:
                renamed[clash.key] = stem + name
            else:
                count = int(re.sub(r"^.*?(\d*)$", r"\1", current) or 1) + 1
                renamed[clash.key] = f"{stem}{name}{count}"
    raise StubgenError(f"code mode: server {server!r}: tool {raw['name']!r}: cannot name its types apart")


def render_code_mode(
    servers: Sequence[tuple[Snapshot, Mapping[str, str]]], settings: HubSettings, cache: Cache | None = None
) -> dict[str, bytes]:
    """Every file of `<output>/code_mode/`, by relative path."""
    built = build_servers(servers, settings, cache)
    fingerprints = {snapshot.server: snapshot.fingerprint for snapshot, _ in servers}
    header = (
        f"# Generated by mcp-stubgen {__version__} from the snapshots of {len(fingerprints)} server(s) "
        f"(combined fingerprint {fingerprint(fingerprints)}).\n{DO_NOT_EDIT}"
    )
    files: dict[str, bytes] = {}
    tools = [stub.tool for server in built for stub in server.tools]
    templates = jinja_environment()
    stubs = {
        **{f"{server.module}.pyi": f"{header}\n{server_stub(server)}" for server in built},
        **{
            f"servers/{server.module}/{file_stem(stub.tool.function)}.pyi": stub.stub
            for server in built
            for stub in server.tools
        },
    }
    for name, source in zip(
        stubs, formatted([("stub", source) for source in stubs.values()], cache or Cache.disabled()), strict=True
    ):
        files[name] = source.encode()
    context = {"header": header, "servers": built, "tools": tools, "index_line": index_line}
    sources = {
        "__init__.py": templates.get_template("code_mode_init.py.jinja").render(**context),
        **{
            f"{server.module}.py": templates.get_template("code_mode_module.py.jinja").render(server=server, **context)
            for server in built
        },
    }
    for name, source in zip(
        sources, formatted([("module", source) for source in sources.values()], cache or Cache.disabled()), strict=True
    ):
        files[name] = source.encode()
    files["index.md"] = templates.get_template("code_mode_index.md.jinja").render(**context).encode()
    files["AGENTS.md"] = templates.get_template("code_mode_agents.md.jinja").render(**context).encode()
    files["tools.json"] = (
        json.dumps([_tool_json(tool) for tool in tools], ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    ).encode()
    files["py.typed"] = b""
    return dict(sorted(files.items()))


def server_stub(server: CodeModeServer) -> str:
    """A server module's stub (`<module>.pyi` without the header): its docstring, then its tools' stubs merged."""
    about = f"\n\n{_escaped(server.about)}" if server.about.strip() else ""
    doc = (
        f'"""The tools of the MCP server {docstring(quoted(server.server))}: `import {server.module}`, '
        f"then `await {server.module}.<function>(...)`.{about}\n\n"
        'Every function raises `RuntimeError` when the tool reports an error.\n"""'
    )
    return f"{doc}\n\n{merge_stubs([stub.stub for stub in server.tools])}" if server.tools else f"{doc}\n"


def module_stubs(servers: Sequence[tuple[Snapshot, Mapping[str, str]]], settings: HubSettings) -> dict[str, str]:
    """Module name -> its stub, as `<output>/code_mode/<module>.pyi` holds it (less the header): what
    scripts are type-checked against."""
    return {server.module: server_stub(server) for server in build_servers(servers, settings, Cache.default())}


def _tool_json(tool: CodeModeTool) -> dict[str, Any]:
    hints = {
        "read_only": tool.hints.read_only,
        "destructive": tool.hints.destructive,
        "open_world": tool.hints.open_world,
    }
    return {
        "module": tool.module,
        "function": tool.function,
        "server": tool.server,
        "tool": tool.tool,
        "qualified_name": tool.hints.qualified_name,
        "parameters": dict(tool.parameters) if tool.parameters is not None else None,
        "result": tool.result,
        "summary": tool.summary,
        "hints": hints,
    }


# -- building, proving, reporting ----------------------------------------------------------------------


@dataclass(frozen=True)
class CodeModeBuild:
    target: Path
    files: dict[str, bytes] | None
    """None when the folder is proven to be what these snapshots render."""
    source: bytes
    servers: tuple[tuple[Snapshot, Mapping[str, str]], ...] = ()
    """The parsed snapshots, when rendered (for the token report)."""
    settings: HubSettings = field(default_factory=HubSettings)

    @property
    def rendered(self) -> Rendered:
        """The package as the pipeline publishes or compares it."""
        return Rendered(self.target, self.files, RenderKey(self.source))


def build_code_mode(
    sources: Sequence[tuple[Path, Mapping[str, str]]], settings: HubSettings, out_dir: Path, cache: Cache
) -> CodeModeBuild:
    """The code-mode package over the servers whose snapshot can be read (as the hub is built), rendered
    unless proven unchanged; raises `StubgenError` when there is none."""
    from codegen.snapshot import parse_snapshot

    readable = []
    for path, method_names in sources:
        try:
            readable.append((path, read_snapshot_bytes(path), method_names))
        except StubgenError:
            continue  # the hub's own lines name every server it lacks
    source = b"code-mode\0" + hub_source([(data, names) for _, data, names in readable], settings)
    target = code_mode_dir(out_dir)
    if rendered_before(RenderKey(source), out_dir, cache) is not None:
        return CodeModeBuild(target, None, source)
    servers = []
    for path, data, method_names in readable:
        try:
            servers.append((parse_snapshot(data, str(path)), method_names))
        except StubgenError:
            continue
    if not servers:
        raise StubgenError("code mode: no server has a usable snapshot; run `mcp-stubgen snapshot` first")
    try:
        files = render_code_mode(servers, settings, cache)
    except StubgenError as error:
        message = str(error)
        raise StubgenError(message if message.startswith("code mode: ") else f"code mode: {message}") from None
    return CodeModeBuild(target, files, source, tuple(servers), settings)


def remember(build: CodeModeBuild, cache: Cache) -> None:
    if build.files is not None:
        remember_rendered(RenderKey(build.source), build.target, build.files, cache)


# -- the token report ----------------------------------------------------------------------------------


def count_tokens(text: str) -> tuple[int, str]:
    """Tokens in `text` and how they were counted: tiktoken's `o200k_base` when it is installed and
    has its encoding at hand, else an approximation (every run of letters or digits counts one token
    per four characters, every other visible character one)."""
    try:
        encoding = importlib.import_module("tiktoken").get_encoding("o200k_base")
        return len(encoding.encode(text)), "tiktoken o200k_base"
    except Exception:  # not installed, or no encoding file offline: the documented approximation
        pieces = re.findall(r"[A-Za-z0-9]+|\S", text)
        return sum(math.ceil(len(piece) / 4) for piece in pieces), "approximate"


def token_report(servers: Sequence[tuple[Snapshot, Mapping[str, str]]], settings: HubSettings) -> list[dict[str, Any]]:
    """Per server: its tool definitions (as `tools/list` gives them, JSON) and its stub, in tokens."""
    rows = []
    for server in build_servers(servers, settings):
        definitions = json.dumps([stub.definition for stub in server.tools], ensure_ascii=False)
        stub = merge_stubs([stub.stub for stub in server.tools]) if server.tools else ""
        tool_tokens, method = count_tokens(definitions)
        stub_tokens, _ = count_tokens(stub)
        rows.append(
            {
                "server": server.server,
                "tools": len(server.tools),
                "definitions": tool_tokens,
                "stubs": stub_tokens,
                "counted": method,
            }
        )
    return rows


def report_tokens(build: CodeModeBuild) -> None:
    """Each server's tool definitions beside its stub, in tokens, one line each on stderr (and a
    `tokens` object with `--format json`): said when the package is written."""
    from codegen import console

    for row in token_report(build.servers, build.settings):
        share = f"{row['stubs'] / row['definitions']:.0%}" if row["definitions"] else "-"
        console.note(
            f"code mode: {row['server']}: {row['tools']} tool(s): definitions {row['definitions']:,} tokens, "
            f"stubs {row['stubs']:,} tokens ({share}; {row['counted']})"
        )
        console.emit(row["server"], "tokens", **{key: value for key, value in row.items() if key != "server"})
