"""Reading a tool's generated models module back with `ast`: its classes, their fields by wire name,
and the names it imports, so the client's annotations are exactly the types the models declare."""

from __future__ import annotations

import ast
import functools
import keyword
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from codegen.generate.cache import installed_version
from codegen.generate.modelgen import UNTYPED_REASON, parsed

__all__ = ["ModelClass", "ReadModels", "names_in", "read_models", "read_statements", "untyped_reason"]


@dataclass(frozen=True)
class ModelClass:
    fields: Mapping[str, tuple[str, ast.expr]]
    """Wire name -> (Python attribute name, annotation)."""
    required: frozenset[str]
    """Wire names of the fields without a default."""
    bases: tuple[str, ...]
    """The base classes as written (`BaseModel`, `RootModel[...]`, another model)."""
    extra: ast.expr | None = None
    """The type of the values of keys it has no field for (`__pydantic_extra__: dict[str, <this>]`), if typed."""
    alias_of: ast.expr | None = None
    """For a `TypeAliasType` (not a class): the type it names."""

    @property
    def is_root(self) -> bool:
        """A `RootModel`: its value is `root`, whatever the schema's root is (a map, a union, an array...)."""
        return any(base.startswith("RootModel") for base in self.bases)


def untyped_reason(source: str) -> str | None:
    """The reason an untyped tool's module records, or None for a typed module."""
    if UNTYPED_REASON not in source:
        return None
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and [ast.unparse(target) for target in node.targets] == [UNTYPED_REASON]:
            value = ast.literal_eval(node.value)
            return str(value)
    return None


ReadModels = tuple[dict[str, ModelClass], dict[str, str]]
"""A models module's classes by name and the names it imports (name -> module)."""


def read_models(source: str) -> ReadModels:
    """The classes (and type aliases) models.py defines, with their fields by wire name, and the names it imports."""
    return read_statements(parsed(source).body)


def read_statements(body: Iterable[ast.stmt]) -> ReadModels:
    """`read_models` of a module's top-level statements; line numbers play no part, so a tool's
    statements can be read where they were parsed, in the module of a group of tools (`model_batches`)."""
    classes: dict[str, ModelClass] = {}
    imported: dict[str, str] = {}
    aliases: dict[str, str] = {}
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__" and not node.level:
            for alias in node.names:
                imported[alias.name] = node.module
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ClassDef):
            fields: dict[str, tuple[str, ast.expr]] = {}
            required: set[str] = set()
            extra: ast.expr | None = None
            for statement in node.body:
                values = _extra_values(statement) if isinstance(statement, ast.Assign | ast.AnnAssign) else None
                if values is not None:
                    extra = _unalias(values, aliases)
                elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    wire = _wire_name(statement, aliases)
                    fields[wire] = (statement.target.id, _unalias(statement.annotation, aliases))
                    if _has_no_default(statement):
                        required.add(wire)
            bases = tuple(ast.unparse(base) for base in node.bases)
            classes[node.name] = ModelClass(fields, frozenset(required), bases, extra)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func) == "TypeAliasType"
        ):  # an alias (recursive, or of a constrained array or value), used in annotations like a class
            value = node.value.args[1] if len(node.value.args) == 2 else None
            aliased = _unalias(value, aliases) if value is not None else None
            classes[node.targets[0].id] = ModelClass({}, frozenset(), (), alias_of=aliased)
    return classes, imported


def _extra_values(statement: ast.Assign | ast.AnnAssign) -> ast.expr | None:
    """`X` of `__pydantic_extra__: dict[str, X]`, or of `__annotations__ = {"__pydantic_extra__": Dict[str, X]}`
    as datamodel-code-generator writes it; None for any other statement."""
    if isinstance(statement, ast.AnnAssign):
        if not (isinstance(statement.target, ast.Name) and statement.target.id == "__pydantic_extra__"):
            return None
        annotation: ast.expr | None = statement.annotation
    else:
        targets, value = statement.targets, statement.value
        if not (len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id == "__annotations__"):
            return None
        if not isinstance(value, ast.Dict):
            return None
        annotation = next(
            (item for key, item in zip(value.keys, value.values, strict=True)
             if isinstance(key, ast.Constant) and key.value == "__pydantic_extra__"),
            None,
        )  # fmt: skip
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple):
        pair = annotation.slice.elts
        return pair[1] if len(pair) == 2 else None
    return None


def _has_no_default(statement: ast.AnnAssign) -> bool:
    """`x: int` or `x: int = Field(..., ...)`: a field the caller must give."""
    value = statement.value
    if value is None:
        return True
    if isinstance(value, ast.Call) and value.args:
        return isinstance(value.args[0], ast.Constant) and value.args[0].value is Ellipsis
    return False


def _unalias(annotation: ast.expr, aliases: Mapping[str, str]) -> ast.expr:
    """The annotation with imports' original names: models.py aliases `Literal` when a field is named
    `Literal`, but the client, which has no such field, imports and writes plain `Literal`."""
    if not aliases:
        return annotation
    copy = ast.parse(ast.unparse(annotation), mode="eval").body
    for node in ast.walk(copy):
        if isinstance(node, ast.Name) and node.id in aliases:
            node.id = aliases[node.id]
    return copy


def _wire_name(statement: ast.AnnAssign, aliases: Mapping[str, str]) -> str:
    """The field's `alias=` or `validation_alias=` (`modelgen._keyword_aliases`), else the alias its
    model's `alias_generator=to_camel` gives it (modelgen
    sets that generator on every model); `Field` may itself be imported under an alias (`Field as
    Field_aliased`, when a property is named `Field`)."""
    assert isinstance(statement.target, ast.Name)
    value = statement.value
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and aliases.get(value.func.id, value.func.id) == "Field"
    ):
        for keyword in value.keywords:
            if (
                keyword.arg in ("alias", "validation_alias")
                and isinstance(keyword.value, ast.Constant)
                and isinstance(keyword.value.value, str)
            ):
                return keyword.value.value
    return camel_alias(statement.target.id)


PYDANTIC_RELEASES = ("2.12.", "2.13.", "2.14.")
"""The pydantic releases whose `alias_generators.to_camel` `camel_alias` is (the same module in each)
and whose `BaseModel` attributes `plain_models` knows: 2.12, the MCP SDK's oldest, to 2.14."""


@functools.cache
def known_pydantic() -> bool:
    """Whether the installed pydantic is one of `PYDANTIC_RELEASES`."""
    return installed_version("pydantic").startswith(PYDANTIC_RELEASES)


def camel_alias(name: str) -> str:
    """The alias the models' `alias_generator=to_camel` gives the field `name`: `_camel` for a release
    of `PYDANTIC_RELEASES`, else asked of pydantic itself. Known here, building or reading one changed
    tool's models needs neither pydantic nor pydantic-core (20 ms to import)."""
    if known_pydantic():
        return _camel(name)
    from pydantic.alias_generators import to_camel

    return to_camel(name)


_CAMEL_ALREADY = re.compile(r"^[a-z]+[A-Za-z0-9]*$")
_DIGIT_BEFORE_LOWER = re.compile(r"\d[a-z]")
_JOINED_UNDERSCORE = re.compile(r"(?<=[0-9A-Za-z])_(?=[0-9A-Z])")
_FIRST_CAPITAL = re.compile(r"^(_*)([A-Z])")


def _camel(name: str) -> str:
    """pydantic's `to_camel` (`test_plain_models` holds the two to agreeing): a name already camelCase
    with no digit before a lowercase letter is kept; otherwise its words are title-cased, an underscore
    between a letter or digit and a capital or digit goes, and the first capital after any leading
    underscores is lowered."""
    if _CAMEL_ALREADY.match(name) and not _DIGIT_BEFORE_LOWER.search(name):
        return name
    pascal = _JOINED_UNDERSCORE.sub("", name.title())
    return _FIRST_CAPITAL.sub(lambda found: found[1] + found[2].lower(), pascal, count=1)


_TOKEN = re.compile(r"\d[\w.]*|[^\W\d]\w*")
"""A number (skipped) or a name, in an annotation of names, brackets, commas, `|` and numbers."""
_PLAIN = re.compile(r"[\w\[\], |-]*")


@functools.lru_cache(maxsize=4096)
def names_in(annotation: str) -> frozenset[str]:
    """The names an annotation refers to; memoized, as a large catalog repeats the same few thousand.
    One of only ASCII names, numbers, brackets, commas and `|` (most are) is read by a regular
    expression: a thousand tools' annotations took 0.1 s to parse."""
    if annotation.isascii() and _PLAIN.fullmatch(annotation):
        return frozenset(
            token for token in _TOKEN.findall(annotation) if not token[0].isdigit() and not keyword.iskeyword(token)
        )
    names: set[str] = set()
    for node in ast.walk(ast.parse(annotation, mode="eval")):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            names.add(node.value)  # a forward reference, `Union["A", "B"]`, as a recursive root model writes it
    return frozenset(names)
