"""A tool's models module written directly for plain schemas, byte for byte what datamodel-code-generator
and `modelgen`'s passes make of them, at a small part of their CPU.

Most tools' schemas are objects of strings, numbers, booleans, enums of strings, arrays and nested
objects. For those, datamodel-code-generator's parse, model graph and formatter (about 80% of a cold
generate's CPU) always come to the same few lines, which this module writes itself. Anything it does
not know for certain how they would be written (a pattern, a combinator beyond a nullable or plain
union, a `$ref` between definitions, a name that shadows an import or a pydantic attribute, a line
black would wrap another way) makes it return None, and the tool goes to datamodel-code-generator as
before. `tests/test_plain_models.py` holds it to `modelgen.model_source` on every corpus the
repository has and on generated schemas: where the two disagree, this module is wrong.

The same walk, names and line widths aside, tells `drift` that a tool's method is typed for certain
(`plainly_typed`) without making its models.
"""

from __future__ import annotations

import functools
import keyword
import re
from dataclasses import dataclass, field
from typing import Any

from codegen.generate.dcg_speedups import proven_release
from codegen.generate.escaping import literal
from codegen.generate.formatting import LINE_LENGTH
from codegen.generate.guard import plainly_valid
from codegen.generate.model_reader import camel_alias, known_pydantic
from codegen.generate.modelgen import HEADER_PLACEHOLDER, ModelJob, datamodel_entry, plain_format_types
from codegen.schemas import Document
from codegen.snapshot import JSON
from codegen.unicode14 import unassigned

__all__ = ["plain_source", "plainly_typed"]

DIGIT_RULES = 3
"""Rules 1 and 2 split a digit off a name's letters in some class and field names: under them a
property named with a digit is left to datamodel-code-generator and `modelgen`'s renames."""

_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_CAMEL = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+")
_KEBAB = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+")
_DEFINITION = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]+)*")
_NUMBER_KEYWORDS = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt", "exclusiveMaximum": "lt"}
_TEXT_KEYWORDS = frozenset({"description", "title"})
_OBJECT_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties"} | _TEXT_KEYWORDS)
"""What an object schema may hold to be plain (a tool schema's root may add `_ROOT_ONLY`)."""
_ROOT_ONLY = frozenset({"$schema", "$defs"})
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
_MODULE_NAMES = frozenset(
    {"str", "int", "float", "bool", "list", "dict", "None", "Any", "Literal", "Field", "BaseModel", "ConfigDict"}
    | {"to_camel", "annotations", "typing", "pydantic"}
)
"""Names the module uses: a field named so would shadow one (datamodel-code-generator then renames
the field, or the import)."""


class _NotPlain(Exception):
    """The schema has something this module does not write: datamodel-code-generator makes the tool."""


def plain_source(job: ModelJob, entry: JSON) -> str | None:
    """The tool's models module as `modelgen.model_source` writes it, from `entry`
    (`modelgen.datamodel_entry(job)`), or None where the schemas are not plain."""
    if not job.stem.isascii() or not job.stem.isidentifier() or not proven_release():
        return None
    module = _Module(job.stem, job.naming_rules >= DIGIT_RULES)
    return module.text() if _took(module, entry) else None


def _took(module: _Module, entry: JSON) -> bool:
    """Whether `module` took the tool's schemas (`entry`): False where one is not plain."""
    try:
        module.root(entry["inputSchema"], "Input")
        if "outputSchema" in entry:
            module.root(entry["outputSchema"], "Output")
    except _NotPlain:
        return False
    return True


_SHAPE_STEM = "Tool"
"""The stem `plainly_typed` walks a tool's schemas under: a class name's stem decides what the
classes are called, not whether there are any."""


def plainly_typed(tool: JSON, naming_rules: int) -> bool:
    """Whether `generate` certainly gives the tool's method typed arguments and, for a listed output
    schema, a typed result, told without making its models (nor loading datamodel-code-generator,
    black or pydantic): each schema within the work budget, its references all resolved, and as
    datamodel-code-generator is shown it plainly valid JSON Schema (`guard.plainly_valid`) of the
    shapes `plain_source` writes, names, formats and line widths aside (they decide how a module is written, not whether it is typed; such a tool
    may still go to datamodel-code-generator, which types it alike). False says nothing: `drift`
    then asks the generator itself (`tool_workers.tool_specs`). `tests/test_plain_models.py` holds
    it to that decision on every corpus the repository has and on generated schemas."""
    if not proven_release():
        return False
    for key in ("inputSchema", "outputSchema"):
        schema = tool.get(key, {})
        if not isinstance(schema, dict):
            return False
        document = Document.of(schema)
        if document.past_budget is not None or any(reference.problem for reference in document.references):
            return False
    entry = datamodel_entry(ModelJob(tool, _SHAPE_STEM, naming_rules))
    if not all(plainly_valid(entry[key]) for key in ("inputSchema", "outputSchema") if key in entry):
        return False
    return _took(_Module(_SHAPE_STEM, naming_rules >= DIGIT_RULES, written=False), entry)


@dataclass
class _Module:
    """One tool's module as it is written: its classes in datamodel-code-generator's order (a
    definition's first, a nested object's before its parent's), and what it imports."""

    stem: str
    digits: bool
    """Whether a property's name may hold a digit (`DIGIT_RULES`)."""
    written: bool = True
    """False where only the schemas' shapes are asked (`plainly_typed`): names and text are not
    written (any property name, description and enum value will do, for datamodel-code-generator
    names and quotes them all), an array's object items keep their property's name, a `format` is
    not looked up and no line's width is measured, which would load datamodel-code-generator and
    black; and an open object may say its keys are strings (`propertyNames`), as zod writes a record."""
    classes: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    typing: set[str] = field(default_factory=set)
    uses_field: bool = False

    def root(self, schema: JSON, side: str) -> None:
        """Write a tool schema's classes: its definitions' (which may not reference one another), then
        its own."""
        definitions = schema.get("$defs", {})
        if not isinstance(definitions, dict):
            raise _NotPlain
        owner = f"{self.stem}{side}"
        known: dict[str, str] = {}
        for name, definition in definitions.items():
            if not isinstance(name, str) or not _DEFINITION.fullmatch(name) or not isinstance(definition, dict):
                raise _NotPlain
            known[f"#/$defs/{name}"] = f"{owner}{name}"
        context = _Context(known, output=side == "Output")
        for name, definition in definitions.items():
            self.model(definition, known[f"#/$defs/{name}"], _Context({}, context.output))
        self.model({key: value for key, value in schema.items() if key not in _ROOT_ONLY}, owner, context)

    def model(self, schema: JSON, name: str, context: _Context) -> None:
        """Write the class for an object schema (its nested classes first), named `name`."""
        if name in self.names and self.written:
            raise _NotPlain
        self.names.add(name)
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        extra = schema.get("additionalProperties")
        if (
            schema.get("type") != "object"
            or not set(schema) <= _OBJECT_KEYWORDS
            or not isinstance(properties, dict)
            or not isinstance(required, list)
            or not all(isinstance(item, str) and item in properties for item in required)
            or len(set(required)) != len(required)
            or not isinstance(extra, bool)
        ):
            raise _NotPlain
        lines = [
            f"class {name}(BaseModel):",
            "    model_config = ConfigDict(",
            f'        extra="{"allow" if extra else "forbid"}",',
            "        populate_by_name=True,",
            "        alias_generator=to_camel,",
            "    )",
        ]
        named: list[tuple[str, str, list[str]]]
        if not self.written:  # datamodel-code-generator names any property: only how is asked here
            named = [(wire, _shape_name(wire), []) for wire in properties]
        else:
            named = [(wire, *_attribute(wire)) for wire in properties]
        if self.written and not self.digits and any(character.isdigit() for wire in properties for character in wire):
            raise _NotPlain
        given = {attribute for _, attribute, _ in named}
        attributes: set[str] = set()
        for wire, attribute, alias in named:
            if attribute in attributes:
                # `locationId` beside `location_id`: datamodel-code-generator numbers the second
                attribute, alias = _numbered(attribute, attributes | given), _aliases(wire)
            attributes.add(attribute)
            lines += self.field(attribute, alias, properties[wire], wire in required, f"{name}{_pascal(wire)}", context)
        self.classes.append("\n".join(lines))

    def field(
        self, attribute: str, alias: list[str], schema: Any, required: bool, nested: str, context: _Context
    ) -> list[str]:
        if not isinstance(schema, dict):
            raise _NotPlain
        keywords: dict[str, str] = {}
        for key in _TEXT_KEYWORDS & schema.keys():
            keywords[key] = _string(schema[key]) if self.written else ""
        annotation, nullable = self.annotation(schema, nested, context, keywords)
        has_default = "default" in schema and not required  # a required field's default is never used
        if has_default and not context.output:
            raise _NotPlain
        if not required and not nullable and not has_default:
            annotation = f"{annotation} | None"
        if has_default:
            default = _value(schema["default"])
        elif required:
            default = "..."
        else:
            default = "None"
        arguments = [*alias, *(f"{key}={keywords[key]}" for key in sorted(keywords))]
        if not self.written:
            return []
        if not arguments:
            return _wrapped(f"    {attribute}: {annotation}" + ("" if required else f" = {default}"), [])
        self.uses_field = True
        first = default if default == "..." else f"default={default}"
        return _wrapped(f"    {attribute}: {annotation} = Field(", [first, *arguments])

    def annotation(self, schema: JSON, nested: str, context: _Context, keywords: dict[str, str]) -> tuple[str, bool]:
        """The field's type as written, and whether it admits None already; constraints go to `keywords`."""
        keys = set(schema) - _TEXT_KEYWORDS - {"default"}
        if "$ref" in schema:
            target = context.known.get(schema["$ref"])
            if keys != {"$ref"} or target is None:
                raise _NotPlain
            return target, False
        if "enum" in schema:
            return self.literal(schema, keys), False
        if "anyOf" in schema:
            return self.union(schema["anyOf"], keys, nested, context)
        kind = schema.get("type")
        if kind is None:
            if keys:
                raise _NotPlain
            self.typing.add("Any")
            return "Any", False
        if isinstance(kind, list):
            return self.union([{"type": member} for member in kind], keys - {"type"} | {"anyOf"}, nested, context)
        if kind in ("integer", "number"):
            _constraints(schema, keys, {"type", "format", *_NUMBER_KEYWORDS}, keywords, kind, self.written)
            return _SCALARS[kind], False
        if kind == "string":
            _constraints(schema, keys, {"type", "format", "minLength", "maxLength"}, keywords, kind, self.written)
            return "str", False
        if kind == "boolean" and keys == {"type"}:
            return "bool", False
        if kind == "array":
            _constraints(schema, keys, {"type", "items", "minItems", "maxItems"}, keywords, kind, self.written)
            return f"list[{self.item(schema.get('items', True), nested, context, singular=True)}]", False
        if kind == "object":
            if schema.get("properties"):
                self.model(schema, nested, context)
                return nested, False
            if not self.written and schema.get("propertyNames") == {"type": "string"}:
                keys = keys - {"propertyNames"}  # zod's record: keys are strings whatever it says
            if keys != {"type", "additionalProperties"}:
                raise _NotPlain
            return f"dict[str, {self.item(schema['additionalProperties'], nested, context)}]", False
        raise _NotPlain

    def item(self, schema: Any, nested: str, context: _Context, singular: bool = False) -> str:
        """The type of an array's items or an open object's values: a bare type, no constraints. An
        array's object items are a class named after the property made singular (`tags` ->
        `...Tag`, `data` -> `...DataItem`), by datamodel-code-generator's own function."""
        if schema is True or schema == {}:
            self.typing.add("Any")
            return "Any"
        if not isinstance(schema, dict):
            raise _NotPlain
        if singular and self.written and schema.get("type") == "object" and schema.get("properties"):
            from datamodel_code_generator.reference import get_singular_name

            nested = get_singular_name(nested)
        keywords: dict[str, str] = {}
        annotation, nullable = self.annotation(schema, nested, context, keywords)
        if keywords or nullable or set(schema) & (_TEXT_KEYWORDS | {"default"}):
            raise _NotPlain
        return annotation

    def literal(self, schema: JSON, keys: set[str]) -> str:
        values = schema["enum"]
        if (
            not keys <= {"enum", "type"}
            or schema.get("type", "string") != "string"
            or not isinstance(values, list)
            or not values
            or not all(isinstance(value, str) for value in values)
            or len(set(values)) != len(values)
        ):
            raise _NotPlain
        self.typing.add("Literal")
        return f"Literal[{', '.join(_string(value) if self.written else '' for value in values)}]"

    def union(self, members: Any, keys: set[str], nested: str, context: _Context) -> tuple[str, bool]:
        """A union of plain types (`anyOf` of bare `type`s, or a list of types), None last if at all;
        or one array, open object or string enum and null, as a Python server's `list[str] | None`."""
        if keys != {"anyOf"} or not isinstance(members, list) or len(members) < 2:
            raise _NotPlain
        if len(members) == 2 and members[1] == {"type": "null"} and _optional_member(members[0]):
            keywords: dict[str, str] = {}
            annotation, _ = self.annotation(members[0], nested, context, keywords)
            if keywords:
                raise _NotPlain
            return f"{annotation} | None", True
        kinds = [member["type"] if isinstance(member, dict) and set(member) == {"type"} else "" for member in members]
        if not all(isinstance(kind, str) and kind in _SCALARS for kind in kinds):
            raise _NotPlain
        if len(set(kinds)) != len(kinds) or ("null" in kinds and kinds[-1] != "null"):
            raise _NotPlain
        return " | ".join(_SCALARS[kind] for kind in kinds), "null" in kinds

    def text(self) -> str:
        typing = f"from typing import {', '.join(sorted(self.typing))}\n\n" if self.typing else ""
        pydantic = "BaseModel, ConfigDict, Field" if self.uses_field else "BaseModel, ConfigDict"
        head = (
            f"{HEADER_PLACEHOLDER}\n\nfrom __future__ import annotations\n\n{typing}"
            f"from pydantic import {pydantic}\nfrom pydantic.alias_generators import to_camel\n"
        )
        return head + "".join(f"\n\n{body}\n" for body in self.classes)


@dataclass(frozen=True)
class _Context:
    known: dict[str, str]
    """The `$ref`s a schema may hold, each to its definition's class."""
    output: bool


def _optional_member(member: Any) -> bool:
    """Whether a union's member beside null is one `union` writes: an array, an open object or a
    string enum, with no other keyword."""
    if not isinstance(member, dict):
        return False
    kind = member.get("type")
    return (
        (kind == "array" and set(member) <= {"type", "items"})
        or (kind == "object" and set(member) == {"type", "additionalProperties"})
        or (kind == "string" and set(member) == {"type", "enum"})
    )


def _shape_name(wire: Any) -> str:
    """A property's name where only the schema's shape is asked (`plainly_typed`): any text."""
    if not isinstance(wire, str):
        raise _NotPlain
    return wire


def _attribute(wire: Any) -> tuple[str, list[str]]:
    """A property's attribute name and the alias keywords its field writes."""
    if not isinstance(wire, str):
        raise _NotPlain
    if _SNAKE.fullmatch(wire):
        attribute = wire
    elif _CAMEL.fullmatch(wire):
        attribute = re.sub(r"[A-Z]", lambda match: f"_{match.group().lower()}", wire)
    elif _KEBAB.fullmatch(wire):
        attribute = wire.replace("-", "_")
    else:
        raise _NotPlain
    if keyword.iskeyword(attribute) or attribute in _MODULE_NAMES or attribute in _pydantic_names():
        raise _NotPlain
    if camel_alias(attribute) == wire:
        return attribute, []
    if attribute == wire:
        return attribute, [f'alias="{wire}"']
    return attribute, _aliases(wire)


def _aliases(wire: str) -> list[str]:
    """The keywords of a wire name that is not its attribute's (`modelgen._keyword_aliases`)."""
    return [f'validation_alias="{wire}"', f'serialization_alias="{wire}"']


def _numbered(attribute: str, taken: set[str]) -> str:
    """A second property's attribute named like one before it, numbered as datamodel-code-generator
    numbers it (`_1`); where that is taken too (a third, or a property named so), not plain."""
    numbered = f"{attribute}_1"
    if numbered in taken:
        raise _NotPlain
    return numbered


def _pascal(wire: str) -> str:
    """A property's part of its nested class's name."""
    return "".join(part[:1].upper() + part[1:] for part in re.split("[-_]", wire))


def _constraints(
    schema: JSON, keys: set[str], allowed: set[str], keywords: dict[str, str], kind: str, formats: bool
) -> None:
    """A plain value's constraints as its field's keywords; a `format` decides how the value is typed
    (`str` or `AwareDatetime`), not whether, so it is looked up only where a module is written (`formats`)."""
    if not keys <= allowed or (formats and "format" in schema and schema["format"] not in _plain_formats(kind)):
        raise _NotPlain
    for key in keys - {"type", "format", "items"}:
        value = schema[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _NotPlain
        if key in _NUMBER_KEYWORDS:
            written = _number(value) if kind == "number" else _integer(value)
            keywords[_NUMBER_KEYWORDS[key]] = written
        else:
            keywords["min_length" if key.startswith("min") else "max_length"] = _integer(value)


def _integer(value: int | float) -> str:
    if not isinstance(value, int):
        raise _NotPlain
    return str(value)


def _number(value: int | float) -> str:
    written = repr(float(value))
    if "e" in written or "n" in written:  # exponents, inf and nan are written as datamodel-code-generator chooses
        raise _NotPlain
    return written


def _value(value: Any) -> str:
    """An output default as written."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        return _string(value)
    raise _NotPlain


def _string(text: Any) -> str:
    """Catalog text as its string literal (`escaping.literal`, which black leaves as it is), but for
    text holding both quotes, where black may choose the other quote than `repr`, and for text holding
    a code point Unicode 14.0 leaves unassigned: `literal` escapes it, as Python 3.11's `repr` does, and
    datamodel-code-generator, reading its own tables of each Python's Unicode, writes it as it is."""
    if not isinstance(text, str) or ('"' in text and "'" in text):
        raise _NotPlain
    if not text.isascii() and unassigned().search(text):
        raise _NotPlain
    return literal(text)


def _wrapped(head: str, arguments: list[str]) -> list[str]:
    """A field's line as black writes it: whole, or its `Field(` call's arguments on one line of their
    own, or one to a line with a trailing comma."""
    if not arguments:
        if _width(head) > LINE_LENGTH:
            raise _NotPlain
        return [head]
    whole = f"{head}{', '.join(arguments)})"
    if _width(whole) <= LINE_LENGTH:
        return [whole]
    if _width(head) > LINE_LENGTH:
        raise _NotPlain
    inner = f"        {', '.join(arguments)}"
    if _width(inner) <= LINE_LENGTH:
        return [head, inner, "    )"]
    return [head, *(f"        {argument}," for argument in arguments), "    )"]


def _width(line: str) -> int:
    """A line's width as black counts it (a wide character counts two)."""
    if line.isascii():
        return len(line)
    from black.strings import str_width

    return str_width(line)


@functools.cache
def _plain_formats(kind: str) -> frozenset[str]:
    """The formats of a JSON type that datamodel-code-generator types as the plain type and nothing
    more (`modelgen.plain_format_types`), but `hostname`, which it also gives a pattern of its own.
    A format it does not know is left to it."""
    known = (mapping.split("=")[0].split("+", 1) for mapping in plain_format_types())
    return frozenset(name for json_type, name in known if json_type == kind) - {"hostname"}


_BASE_MODEL_ATTRIBUTES = frozenset(
    {"construct", "copy", "dict", "from_orm", "json", "model_computed_fields", "model_config", "model_construct"}
    | {"model_copy", "model_dump", "model_dump_json", "model_extra", "model_fields", "model_fields_set"}
    | {"model_json_schema", "model_parametrized_name", "model_post_init", "model_rebuild", "model_validate"}
    | {"model_validate_json", "model_validate_strings", "parse_file", "parse_obj", "parse_raw", "schema"}
    | {"schema_json", "update_forward_refs", "validate"}
)
"""`pydantic.BaseModel`'s public attributes in every release of `model_reader.PYDANTIC_RELEASES` (read from each
one installed): knowing them spares a worker building one changed tool pydantic's import."""


@functools.cache
def _pydantic_names() -> frozenset[str]:
    """A model's own attributes, which a field must not hide (datamodel-code-generator renames it):
    `_BASE_MODEL_ATTRIBUTES` for a release it was read from, else asked of pydantic itself."""
    if known_pydantic():
        return _BASE_MODEL_ATTRIBUTES
    from pydantic import BaseModel

    return frozenset(name for name in dir(BaseModel) if not name.startswith("_"))
