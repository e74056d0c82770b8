"""Per-tool models: datamodel-code-generator's module for one tool, made ready for the package.

Each tool's models are a module of their own, made from that tool's schemas and model stem alone, so
a tool's module never depends on which other tools exist: a cached module is exactly what a cold run
would write, an unchanged tool costs nothing to regenerate, and importing the package does not build
every model up front.

Tools are generated many per call and split back (`codegen.generate.model_batches`); a tool no
group could make is made alone here. datamodel-code-generator is imported only when a module has to
be generated, so a run whose modules are all cached never loads it.
"""

from __future__ import annotations

import ast
import builtins
import functools
import io
import re
import tokenize
import unicodedata
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeGuard, TypeVar

from codegen.errors import StubgenError
from codegen.generate import dcg_speedups
from codegen.generate.cache import compact_json
from codegen.generate.escaping import literal
from codegen.generate.formatting import LINE_LENGTH, black_mode
from codegen.generate.member_names import member_renames
from codegen.generate.parallel import MAX_BATCH
from codegen.identifiers import (
    ASCII_RULES,
    CONST_ARRAY_RULES,
    FIXED_VALUE_RULES,
    LONG_DEFAULT_RULES,
    escape,
    literal_limit,
    package_names,
    pascal_case,
    plain_identifier,
    snake_case,
)
from codegen.runtime._hub_catalog import file_stem
from codegen.schemas import (
    ANNOTATIONS,
    COMBINATORS,
    DATA_KEYWORDS,
    KEYWORDS,
    MAX_REF_DEPTH,
    MISSING,
    VALUE_KEYWORDS,
    Document,
    Path,
    follow,
    has_fixed_value,
    json_type,
    rebuilt,
    subschemas,
    with_prefix_items,
)
from codegen.snapshot import JSON
from codegen.unicode14 import wide

HEADER_PLACEHOLDER = "# mcp-stubgen: header"
"""datamodel-code-generator writes this as the file header; the renderer puts the real header in its place."""

_P = ParamSpec("_P")
_T = TypeVar("_T")
_STACK_ROOM_SLOTS = 40_000
"""Value-stack slots of 8 bytes `_with_stack_room`'s frame claims: 320 KB, so CPython gives it a chunk of 512 KB."""


@dataclass(frozen=True)
class ModelJob:
    """What one tool's models are made from: its schemas and its model stem, nothing else."""

    tool: JSON
    stem: str
    naming_rules: int
    """The snapshot's naming rules: rules 4 name a union's members `...Variant` (`_variant_renames`)."""


def datamodel_options() -> dict[str, Any]:
    from datamodel_code_generator import InputFileType, LiteralType, NamingStrategy, PythonVersion
    from datamodel_code_generator.enums import AliasGenerator, DataModelType
    from datamodel_code_generator.format import Formatter

    return {
        "input_file_type": InputFileType.MCPTools,
        "output_model_type": DataModelType.PydanticV2BaseModel,
        "target_python_version": PythonVersion.PY_311,
        "disable_timestamp": True,
        "custom_file_header": HEADER_PLACEHOLDER,
        "formatters": [Formatter.BUILTIN],
        "builtin_format_line_length": LINE_LENGTH,
        "naming_strategy": NamingStrategy.ParentPrefixed,
        "enum_field_as_literal": LiteralType.All,
        "strict_nullable": True,
        "field_constraints": True,
        "collapse_root_models": True,
        "allow_population_by_field_name": True,
        "snake_case_field": True,
        # A camelCase wire name becomes pydantic's generated alias rather than a written `alias=`,
        # which type checkers would take as the keyword to construct a nested model with.
        "alias_generator": AliasGenerator.ToCamel,
        # mypy reads a field's default from `Field`'s `default=` keyword alone, so a positional
        # `Field(None, ...)` would make an optional field one a caller must give.
        "use_default_kwarg": True,
        "allow_remote_refs": False,
        "strict_refs": True,
        "type_mappings": plain_format_types(),
    }


def plain_format_types() -> list[str]:
    """Every `format` datamodel-code-generator knows, typed as its plain JSON type.

    A format would otherwise become `AnyUrl`, `AwareDatetime`, `date`, `UUID`, `EmailStr`, ...: a
    caller could not pass the string the wire takes (`fetch(url="https://...")` fails `mypy
    --strict`), and `EmailStr` or `ULID` need packages a user need not have. A format annotates a
    value; it does not change the JSON type it is sent and received as. The OpenAPI formats count
    too, as the MCP tools parser reads them: `password` was `SecretStr`, which pydantic dumps as
    `**********`, so that was what the server got; `binary` was `bytes`, refused in JSON unless UTF-8.
    """
    from datamodel_code_generator.parser.schema_version import get_data_formats

    return sorted(
        f"{kind}+{json_format}={kind}"
        for kind, formats in get_data_formats(is_openapi=True).items()
        for json_format in formats
        if json_format != "default"
    )


def model_source(server: str, job: ModelJob) -> str:
    """One tool's models module, starting with `HEADER_PLACEHOLDER`; a schema datamodel-code-generator
    rejects is a `StubgenError` naming the server, the tool and, where it can, a JSON pointer."""
    from datamodel_code_generator import Error

    tool = job.tool
    entry = datamodel_entry(job)
    where = f"server {server!r}: tool {tool['name']!r}"
    try:
        source = run_datamodel([entry])
    except (Error, RecursionError) as error:
        raise StubgenError(
            f"{where}: {_locate_failure(entry) or f'cannot generate models: {_failure(error)}'}"
        ) from None
    if not isinstance(source, str):
        raise StubgenError(f"{where}: datamodel-code-generator returned no single module")
    return finished_source(source, job.stem, job.naming_rules)


def datamodel_entry(job: ModelJob) -> JSON:
    """The tool as datamodel-code-generator is shown it: named by its model stem, schemas prepared
    (`for_datamodel`, `_merged_overrides`, `_root`)."""
    tool = job.tool
    entry: JSON = {
        "name": ascii_stand_in(job.stem),
        "inputSchema": _root(
            _merged_overrides(
                for_datamodel(Document.of(tool["inputSchema"]).with_definitions(), None, job.naming_rules)
            )
        ),
    }
    if "outputSchema" in tool:
        output = Document.of(tool["outputSchema"]).with_definitions()
        entry["outputSchema"] = _root(_merged_overrides(for_datamodel(output, output, job.naming_rules)))
    return entry


def ascii_stand_in(stem: str) -> str:
    """The name datamodel-code-generator is given for a tool whose model stem is not ASCII (naming
    rules 5: `统计字数`), which it would call `Model`: ASCII letters from the stem's hash, which its
    classes are renamed from (`_renamed_classes`)."""
    if stem.isascii():
        return stem
    return "Stem" + file_stem(stem).removeprefix("u_")


def finished_source(source: str, stem: str, naming_rules: int) -> str:
    """datamodel-code-generator's module for one tool with the passes that make it import, type-check
    and lint clean, and every class named after the tool's stem (and, by rules 4, a union's members
    as its variants; by rules 6, no class for a constrained plain value)."""
    source = _renamed_classes(cleaned_source(source, naming_rules), stem, naming_rules)
    if may_inline_roots(source, naming_rules):
        source = _inlined_plain_roots(source, stem)
    return _root_types_admit_none(source)


def may_inline_roots(source: str, naming_rules: int) -> bool:
    """Whether `_inlined_plain_roots` may change the module: by rules 6, where it has a root model."""
    return naming_rules >= 6 and "(RootModel[" in source


def cleaned_source(source: str, naming_rules: int) -> str:
    """The module with the passes that make it import, type-check and lint clean (`rewritten_source`;
    by naming rules 12, `_long_defaults_as_fields`), formatted by black where the built-in formatter
    may not have written what black would (`needs_black`)."""
    source = rewritten_source(source, naming_rules)
    if naming_rules >= LONG_DEFAULT_RULES:
        source = _long_defaults_as_fields(source)
    if not needs_black(source):
        return source
    import black

    return black.format_str(source, mode=black_mode())


def rewritten_source(source: str, naming_rules: int) -> str:
    """The module with the passes that rewrite it. Each rewrites statement by statement (a field's
    annotation or default, a class's bases, a call in an annotation), besides the uses of an import the
    module aliases: in a module that aliases no import, a pass that changes nothing in the whole changes
    nothing in any module made of some of its statements (`model_batches`). The naming rules choose
    the names of fields it renames, never whether it renames one."""
    source = _through_import_aliases(source.rstrip("\n") + "\n")
    source = _none_defaults_admit_none(_typed_bare_generics(_annotated_constraints(source)))
    source = _keyword_aliases(_builtin_extras_dict(_single_literals(_modern_annotations(source))))
    return _unprotected_namespaces(_plain_field_names(_plain_class_names(source), naming_rules))


def _long_defaults_as_fields(source: str) -> str:
    """The module with each field whose default is one string or number too wide for a line of its
    own written `Field(default=...)` (`LONG_DEFAULT_RULES`): black puts such a value in parentheses of
    its own (`note: str = (`), which `ruff format` takes away again, and both leave a `Field(` call's
    one argument on its own line. Such a value is on a line too wide however it is laid out, which
    `needs_black` always finds: black lays out every module this changes, and a module `needs_black`
    passes over (which `model_batches` keeps as cut) has no such field."""
    if not any(_may_be_too_wide(line) for line in source.split("\n")):
        return source
    tree = parsed(source)
    starts = _line_starts(source)
    data = source.encode()
    field = "Field"
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "pydantic":
            field = next((alias.asname or alias.name for alias in node.names if alias.name == "Field"), field)
    spans: list[tuple[int, int, bytes]] = []
    for statement in _statements(tree.body):
        if not (isinstance(statement, ast.AnnAssign) and _single_value(statement.value)):
            continue
        value = data[slice(*_byte_span(starts, statement.value))].decode()
        if not _may_be_too_wide(" " * (statement.col_offset + 4) + value):
            continue
        annotation = data[slice(*_byte_span(starts, statement.annotation))].decode()
        end = starts[(statement.end_lineno or statement.lineno) - 1] + (statement.end_col_offset or 0)
        written = f": {annotation} = {field}(default={value})"
        spans.append((_byte_span(starts, statement.target)[1], end, written.encode()))
    if not spans:
        return source
    for start, end, text in sorted(spans, reverse=True):
        data = data[:start] + text + data[end:]
    return _with_import(data.decode(), "pydantic", {"Field"}) if field == "Field" else data.decode()


def _single_value(value: ast.expr | None) -> TypeGuard[ast.expr]:
    """Whether a field's default is one string or number (maybe negative), which black cannot split."""
    number = value.operand if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) else value
    return isinstance(number, ast.Constant) and type(number.value) in (str, int, float)


_LONE_STRING = re.compile(r"""\s*(?:\w+=)?[rRbBuU]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')[,)]*""")
"""A line holding one string (a call's argument, maybe by keyword), then commas or closing brackets:
black leaves it long when it is."""
_UNION_MEMBER_LINE = re.compile(r"^[ ]+\| ", re.MULTILINE)
"""A line that starts with a union's next member: the built-in formatter splits some unions that fit."""


def needs_black(source: str) -> bool:
    """Whether datamodel-code-generator's built-in formatter may have written the module otherwise
    than black would: a line that may be longer than `LINE_LENGTH` for black (a long `Literal`, a
    `Field(...)` call or a dict default, which black wraps; excel-mcp-server's models had each) other
    than a comment or a lone string, which black leaves long too; a union split one member a line,
    which black joins where it fits (server-notion's class bases); a field's value in parentheses of
    its own (`x: Literal[...] = (`, where black may write `x: Literal[...] = Field(`:
    mcp-server-kubernetes' kubectl_rollout); or a string holding both quotes that `double_quoted`
    could not requote. Every generated file must be a black fixed point; black costs a few
    milliseconds a module, so only such a module is formatted."""
    return (
        "\\'" in source
        or _UNION_MEMBER_LINE.search(source) is not None
        or any(
            line.endswith(" = (")
            or (_may_be_too_wide(line) and not (line.lstrip().startswith("#") or _LONE_STRING.fullmatch(line)))
            for line in source.split("\n")
        )
    )


def _may_be_too_wide(line: str) -> bool:
    """Whether black may find the line longer than `LINE_LENGTH`: black counts an East Asian wide
    character as two columns (and a combining one as none, which this counts as one)."""
    if len(line) > LINE_LENGTH:
        return True
    if line.isascii() or 2 * len(line) <= LINE_LENGTH:
        return False
    return sum(2 if wide(character) else 1 for character in line) > LINE_LENGTH


@functools.lru_cache(maxsize=4 * MAX_BATCH)
def parsed(source: str) -> ast.Module:
    """`ast.parse`, shared by the passes over one models module and the reading of it: a pass that
    changes nothing hands the next one the same text, which is then not parsed again. A worker reads
    a batch's modules back after making them all (`tool_workers`), so the cache holds a few trees per
    tool of a batch (about 100 KiB each). No caller changes a tree it is given."""
    return ast.parse(source)


_CONSTRAINED = {"constr": ("str", "StringConstraints"), "conint": ("int", "Field"), "confloat": ("float", "Field")}
"""pydantic's `constr(...)`-style calls and the `Annotated` form each becomes."""


def _annotated_constraints(source: str) -> str:
    """The module with `constr(pattern=...)` and the like written `Annotated[str, StringConstraints(pattern=...)]`.

    datamodel-code-generator types a constrained dict key (`patternProperties`, `propertyNames`)
    with a call, which no type checker accepts in an annotation: `mypy --strict` failed on the
    package. The `Annotated` form validates the same and type-checks as `str`.
    """
    if not any(f"{name}(" in source for name in _CONSTRAINED):
        return source
    tree = parsed(source)
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CONSTRAINED
    ]
    if not calls:
        return source
    starts = _line_starts(source)
    data = source.encode()
    needed = {"Annotated"}
    replaced: set[str] = set()
    for call in sorted(calls, key=lambda node: (node.lineno, node.col_offset), reverse=True):
        assert isinstance(call.func, ast.Name)
        replaced.add(call.func.id)
        base, constraints = _CONSTRAINED[call.func.id]
        needed.add(constraints)
        arguments = ", ".join(ast.get_source_segment(source, keyword) or "" for keyword in call.keywords)
        start = starts[call.lineno - 1] + call.col_offset
        end = starts[(call.end_lineno or call.lineno) - 1] + (call.end_col_offset or call.col_offset)
        data = data[:start] + f"Annotated[{base}, {constraints}({arguments})]".encode() + data[end:]
    text = data.decode()
    text = _with_import(text, "typing", {"Annotated"})
    text = _with_import(text, "pydantic", needed - {"Annotated"}, without=replaced)
    import black

    return black.format_str(text, mode=black_mode())


_BARE_GENERICS = {"list": "[Any]", "dict": "[str, Any]"}
"""A generic datamodel-code-generator writes without type arguments, and the arguments it gets."""
_BARE_GENERIC = re.compile(r"\b(?:list|dict)\b(?!\[)")


def _typed_bare_generics(source: str) -> str:
    """The module with every bare `list` (and `dict`) in a class base or a field annotation given its
    type arguments, `list[Any]`: datamodel-code-generator loses the element type of an array whose
    `items` refer back to it (`items: {"$ref": "#"}`), and `mypy --strict` rejects a bare `list`.
    The tool's JSON Schema, which the runtime checks every value against, still holds the rest."""
    if not _BARE_GENERIC.search(source):
        return source
    places: list[ast.expr] = []
    for statement in _statements(parsed(source).body):
        if isinstance(statement, ast.ClassDef):
            places += statement.bases
        elif isinstance(statement, ast.AnnAssign):
            places.append(statement.annotation)
    nodes = [node for place in places for node in ast.walk(place)]
    typed = {id(node.value) for node in nodes if isinstance(node, ast.Subscript)}
    bare = [
        node for node in nodes if isinstance(node, ast.Name) and node.id in _BARE_GENERICS and id(node) not in typed
    ]
    if not bare:
        return source
    lines = source.splitlines(keepends=True)
    for node in sorted(bare, key=lambda node: (node.lineno, node.col_offset), reverse=True):
        text = lines[node.lineno - 1].encode()
        column = node.end_col_offset or node.col_offset
        lines[node.lineno - 1] = (text[:column] + _BARE_GENERICS[node.id].encode() + text[column:]).decode()
    import black

    return black.format_str(_with_import("".join(lines), "typing", {"Any"}), mode=black_mode())


def _none_defaults_admit_none(source: str) -> str:
    """The module with `| None` added to every field annotation whose default is `None` but which
    does not admit it: datamodel-code-generator writes `x: str = None` for an optional property that
    says `nullable: false` (or a `const` number), which `mypy --strict` rejects. Validation is the
    same either way, as pydantic does not validate defaults."""
    if "= None" not in source and "Field(default=None" not in source:
        return source
    tree = parsed(source)
    ends: list[tuple[int, int]] = []
    for node in _statements(tree.body):
        if not (isinstance(node, ast.AnnAssign) and node.value is not None and _defaults_to_none(node.value)):
            continue
        if not _admits_none(node.annotation):
            ends.append((node.annotation.end_lineno or node.annotation.lineno, node.annotation.end_col_offset or 0))
    if not ends:
        return source
    lines = source.splitlines(keepends=True)
    for number, column in sorted(ends, reverse=True):
        text = lines[number - 1].encode()
        lines[number - 1] = (text[:column] + b" | None" + text[column:]).decode()
    import black

    return black.format_str("".join(lines), mode=black_mode())


def _keyword_aliases(source: str) -> str:
    """The module with each field's wire name that is not its attribute's written as the name it is
    read and written by (`validation_alias=`, `serialization_alias=`) rather than as its `alias=`.

    Type checkers take a field's `alias=` as the keyword its model is built with (PEP 681), so a
    model with `from_: str = Field(alias="from")` or `user_id: ... = Field(alias="user-id")` could be
    built only as `Model(**{"from": ...})`: `Model(from_=...)`, which pydantic accepts
    (`populate_by_name`), failed `mypy --strict`. Validation and dumps by alias read and write the
    same wire names as before; an alias that is the attribute's own name (`day_of_week`, against the
    model's camelCase alias generator) stays, as it names the keyword anyway."""
    if "alias=" not in source:
        return source
    tree = parsed(source)
    starts = _line_starts(source)
    data = source.encode()
    spans: list[tuple[int, int, bytes]] = []
    for node in _statements(tree.body):
        if not (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and "Field" in node.value.func.id
        ):
            continue
        for keyword in node.value.keywords:
            value = keyword.value
            if keyword.arg != "alias" or not isinstance(value, ast.Constant) or value.value == node.target.id:
                continue
            written = data[slice(*_byte_span(starts, value))]
            start, end = _byte_span(starts, keyword)
            spans.append((start, end, b"validation_alias=" + written + b", serialization_alias=" + written))
    if not spans:
        return source
    for start, end, text in sorted(spans, reverse=True):
        data = data[:start] + text + data[end:]
    import black

    return black.format_str(data.decode(), mode=black_mode())


def _plain_class_names(source: str) -> str:
    """The module with each class whose name Python reads as another's (datamodel-code-generator
    names a property's class after the property: a fullwidth `A`, U+FF21, makes `TInput` and that letter, which
    Python reads as `TInputA`) renamed to a `plain_identifier` no other class is read as, and every
    use of it with it: beside a property `A`, the second class hid the first, whose fields then
    typed the other property (mypy: `Name "TInputA" already defined`)."""
    if source.isascii():
        return source
    tree = parsed(source)
    starts = _line_starts(source)
    data = source.encode()
    written: dict[int, str] = {}  # a class statement's line -> its name as written
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef):
            line = data[starts[statement.lineno - 1] : starts[statement.lineno]].decode()
            match = _CLASS_NAME.match(line)
            if match is not None:
                written[statement.lineno] = match.group(1)
    taken = {name for name in written.values() if plain_identifier(name)}
    renamed: dict[str, str] = {}
    for name in written.values():
        if plain_identifier(name) or name in renamed:
            continue
        base = unicodedata.normalize("NFKC", name)
        base = base if plain_identifier(base) else pascal_case(name, "Model", ASCII_RULES)
        candidate, counter = base, 0
        while candidate in taken:
            counter += 1
            candidate = f"{base}{counter}"
        taken.add(candidate)
        renamed[name] = candidate
    if not renamed:
        return source
    spans: list[tuple[int, int, bytes]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            start, end = _byte_span(starts, node)
            if data[start:end].decode() in renamed:
                spans.append((start, end, renamed[data[start:end].decode()].encode()))
        elif isinstance(node, ast.ClassDef) and written.get(node.lineno) in renamed:
            name = written[node.lineno]
            start = starts[node.lineno - 1] + data[starts[node.lineno - 1] :].index(name.encode())
            spans.append((start, start + len(name.encode()), renamed[name].encode()))
    for start, end, text in sorted(spans, reverse=True):
        data = data[:start] + text + data[end:]
    import black

    return black.format_str(data.decode(), mode=black_mode())


_CLASS_NAME = re.compile(r"class\s+([^\s(:]+)")
"""A class statement's name as written, which the syntax tree holds only in its NFKC form."""


def _plain_field_names(source: str, naming_rules: int) -> str:
    """The module with each field whose name Python reads as another (a fullwidth `a`, U+FF41, whose
    NFKC form is `a`; `U+01C6 x`, read as `džx`; a name with an invisible character) renamed to a
    `plain_identifier` no other field of its class is read as (by the package's naming rules), and
    given its wire name as `validation_alias=` and `serialization_alias=`.

    datamodel-code-generator leaves out a field's alias when the model's `to_camel` alias generator
    gives the wire name back from the name as written (a fullwidth `a` gives the fullwidth `A` it came
    from), but Python, and so pydantic and mypy, read the name in its NFKC form: the property
    fullwidth `A` was sent and read as `a`, and beside a property `a` the class had two fields `a`,
    the second hiding the first."""
    if source.isascii():
        return source
    from pydantic import BaseModel
    from pydantic.alias_generators import to_camel

    tree = parsed(source)
    starts = _line_starts(source)
    data = source.encode()
    spans: list[tuple[int, int, bytes]] = []
    pydantic_names = {name for name in dir(BaseModel) if not name.startswith("_")}
    for node in _statements(tree.body):
        if not isinstance(node, ast.ClassDef):
            continue
        fields = [
            (statement, data[slice(*_byte_span(starts, statement.target))].decode())
            for statement in node.body
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
        ]
        taken = {written for _, written in fields if plain_identifier(written)} | pydantic_names
        for statement, written in fields:
            if plain_identifier(written):
                continue
            name = escape(snake_case(written, "field", naming_rules), taken)
            taken.add(name)
            spans.append((*_byte_span(starts, statement.target), name.encode()))
            value = statement.value
            keywords = value.keywords if isinstance(value, ast.Call) else []
            if any(keyword.arg in ("alias", "validation_alias") for keyword in keywords):
                continue
            wire = literal(to_camel(written))
            aliases = f"validation_alias={wire}, serialization_alias={wire}"
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and "Field" in value.func.id:
                end = _byte_span(starts, value)[1] - 1  # before the call's closing parenthesis
                spans.append((end, end, (", " if value.args or keywords else "").encode() + aliases.encode()))
            else:
                start = _byte_span(starts, statement.target)[1]
                end = _byte_span(starts, value)[1] if value is not None else _byte_span(starts, statement.annotation)[1]
                annotation = data[slice(*_byte_span(starts, statement.annotation))].decode()
                default = "..." if value is None else f"default={data[slice(*_byte_span(starts, value))].decode()}"
                spans.append((start, end, f": {annotation} = Field({default}, {aliases})".encode()))
    if not spans:
        return source
    for start, end, text in sorted(spans, reverse=True):
        data = data[:start] + text + data[end:]
    import black

    return black.format_str(_with_import(data.decode(), "pydantic", {"Field"}), mode=black_mode())


def _line_starts(source: str) -> list[int]:
    """The offset in the source's UTF-8 bytes at which each line starts (and, last, its length): what a
    pass that edits the module by its syntax tree's positions, which count bytes, adds columns to."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line.encode()))
    return starts


def _byte_span(starts: list[int], node: ast.expr | ast.keyword) -> tuple[int, int]:
    """Where a node's text starts and ends in the source's UTF-8 bytes (`_line_starts`)."""
    end_line = node.end_lineno or node.lineno
    return starts[node.lineno - 1] + node.col_offset, starts[end_line - 1] + (node.end_col_offset or 0)


def _statements(body: list[Any]) -> Iterator[ast.AST]:
    """Every statement of a module, nested ones too: a field is a statement, so this finds each one
    without walking every expression of the module (`ast.walk` took most of this pass's time)."""
    for statement in body:
        yield statement
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, block, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _defaults_to_none(value: ast.expr) -> bool:
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and "Field" in value.func.id:
        if value.args:
            return isinstance(value.args[0], ast.Constant) and value.args[0].value is None
        return any(
            keyword.arg == "default" and isinstance(keyword.value, ast.Constant) and keyword.value.value is None
            for keyword in value.keywords
        )
    return False


def _admits_none(annotation: ast.expr) -> bool:
    if isinstance(annotation, ast.Constant):
        return annotation.value is None
    if isinstance(annotation, ast.Name):
        return annotation.id in ("Any", "None")
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _admits_none(annotation.left) or _admits_none(annotation.right)
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name):
        return annotation.value.id == "Optional"
    return False


def _with_import(source: str, module: str, names: set[str], without: Iterable[str] = ()) -> str:
    """The module with `names` added to its `from <module> import ...` (made after `__future__` if none),
    and the names `without` (which nothing uses any more) taken out of it. A statement left importing
    nothing goes with the blank lines after it, which black keeps and ruff's isort rule (I001) rejects."""
    tree = parsed(source)
    lines = source.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == module and not node.level:
            present = {
                alias.name if alias.asname is None else f"{alias.name} as {alias.asname}" for alias in node.names
            }
            merged = ", ".join(sorted((present | names) - set(without)))
            end = node.end_lineno or node.lineno
            statement = [f"from {module} import {merged}\n"] if merged else []
            while not merged and end < len(lines) and not lines[end].strip():
                end += 1
            return "".join([*lines[: node.lineno - 1], *statement, *lines[end:]])
    future = next(
        (node for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "__future__"), None
    )
    at = (future.end_lineno or future.lineno) if future is not None else 0
    return "".join([*lines[:at], "\n" if at else "", f"from {module} import {', '.join(sorted(names))}\n", *lines[at:]])


def annotation_text(annotation: ast.expr) -> str:
    """An annotation as source, its strings in the quotes black prefers (`ast.unparse` picks single
    ones): black then has nothing to change in the method that writes it. It is written in the form a
    user's linter asks for (ruff's UP007, UP037): the client postpones annotations, so a forward
    reference needs no quotes, and `X | Y` spells a union."""
    return _black_quoted(ast.unparse(_modern_annotation(annotation)))


def _black_quoted(text: str) -> str:
    """Source `ast.unparse` wrote, its strings in black's double quotes."""
    if "'" not in text:
        return text
    strings = [token for token in tokenize.generate_tokens(io.StringIO(text).readline) if token.type == tokenize.STRING]
    for token in reversed(strings):
        (_, start), (_, end) = token.start, token.end
        value = ast.literal_eval(token.string)
        if isinstance(value, str):
            text = text[:start] + literal(value) + text[end:]
    return text


def _modern_annotation(node: ast.expr) -> ast.expr:
    """`Union[A, B]` as `A | B`, `Optional[A]` as `A | None`, a quoted forward reference unquoted;
    `Literal` values and `Annotated` metadata are left as they are."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
        return ast.Name(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([_modern_annotation(node.left), _modern_annotation(node.right)])
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name) or node.value.id == "Literal":
        return node
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if node.value.id == "Annotated":
        items[0] = _modern_annotation(items[0])
    elif node.value.id in ("Union", "Optional"):
        members = [_modern_annotation(item) for item in items]
        if node.value.id == "Optional":
            members.append(ast.Constant(None))
        return _union(members)
    else:
        items = [_modern_annotation(item) for item in items]
    slice_: ast.expr = ast.Tuple(items) if isinstance(node.slice, ast.Tuple) else items[0]
    return ast.Subscript(node.value, slice_)


def _union(members: list[ast.expr]) -> ast.expr:
    """`A | B | ...`, with the values of all its `Literal` members in one `Literal` where the first
    stood: datamodel-code-generator writes an `anyOf` of `const`s as `Literal[1] | Literal[-1]`,
    which ruff's default rules reject (PYI030). The same values, so the same type."""
    flat = [part for member in members for part in _union_members(member)]
    literals = [part for part in flat if _is_literal(part)]
    if len(literals) > 1:
        values = [value for part in literals for value in _subscripts(part)]
        merged = ast.Subscript(ast.Name("Literal"), ast.Tuple(values))
        flat = [
            merged if part is literals[0] else part for part in flat if part is literals[0] or not _is_literal(part)
        ]
    union = flat[0]
    for member in flat[1:]:
        union = ast.BinOp(union, ast.BitOr(), member)
    return union


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


def _is_literal(node: ast.expr) -> TypeGuard[ast.Subscript]:
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal"


def _subscripts(node: ast.Subscript) -> list[ast.expr]:
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]


def _literal_union(node: ast.expr) -> bool:
    """Whether an annotation holds a union of two `Literal`s or more, which `_union` writes as one."""
    members = _union_members(node)
    if sum(map(_is_literal, members)) > 1:
        return True
    return any(
        _literal_union(item)
        for member in members
        if isinstance(member, ast.Subscript) and not _is_literal(member)
        for item in _subscripts(member)
    )


_LITERAL_AFTER_UNION = re.compile(r"\]\s*\|\s*Literal\[")


def _single_literals(source: str) -> str:
    """The module with each field's union of `Literal`s as one `Literal` (`_union`), its annotation
    on one line or many; black then lays it out."""
    if not _LITERAL_AFTER_UNION.search(source):
        return source
    places = [
        statement.annotation
        for node in parsed(source).body
        if isinstance(node, ast.ClassDef)
        for statement in node.body
        if isinstance(statement, ast.AnnAssign) and _literal_union(statement.annotation)
    ]
    if not places:
        return source
    starts = _line_starts(source)
    data = source.encode()
    for annotation in sorted(places, key=lambda node: node.lineno, reverse=True):
        start = starts[annotation.lineno - 1] + annotation.col_offset
        end = starts[(annotation.end_lineno or annotation.lineno) - 1] + (annotation.end_col_offset or 0)
        data = data[:start] + annotation_text(annotation).encode() + data[end:]
    import black

    return black.format_str(data.decode(), mode=black_mode())


def _respelt(node: ast.expr) -> bool:
    """Whether `_modern_annotation` changes an annotation: it holds a union by name, or a quoted name
    outside `Literal` and `Annotated`'s metadata. Most do not, and are then never written back out."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.isidentifier()
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _respelt(node.left) or _respelt(node.right)
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name) or node.value.id == "Literal":
        return False
    if node.value.id in ("Union", "Optional"):
        return True
    items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    return any(_respelt(item) for item in (items[:1] if node.value.id == "Annotated" else items))


def _modern_annotations(source: str) -> str:
    """The module with each field's annotation in the form a user's linter asks for (ruff's UP007,
    UP037): `A | B` for datamodel-code-generator's `Union["A", "B"]`, which the module's postponed
    annotations make the same type. Class bases keep theirs: they are evaluated when the class is made.
    An annotation `ast.unparse` would respell otherwise (a raw string, say) is left as it is."""
    if "Union[" not in source and "Optional[" not in source and '["' not in source:
        return source
    starts = _line_starts(source)
    data = source.encode()
    places = [
        statement.annotation
        for node in parsed(source).body
        if isinstance(node, ast.ClassDef)
        for statement in node.body
        if isinstance(statement, ast.AnnAssign) and statement.annotation.end_lineno == statement.annotation.lineno
    ]
    changed = False
    for annotation in sorted(places, key=lambda node: node.lineno, reverse=True):
        if not _respelt(annotation):
            continue
        start = starts[annotation.lineno - 1] + annotation.col_offset
        end = starts[annotation.lineno - 1] + (annotation.end_col_offset or annotation.col_offset)
        written = data[start:end].decode()
        modern = annotation_text(annotation)
        if modern != written and _black_quoted(ast.unparse(annotation)) == written:
            data = data[:start] + modern.encode() + data[end:]
            changed = True
    if not changed:
        return source
    text = data.decode()
    used = {node.id for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Name)}
    text = _with_import(text, "typing", set(), without={"Union", "Optional"} - used)
    import black

    return black.format_str(text, mode=black_mode())


_TYPED_EXTRAS = re.compile(r"^( +__annotations__ = \{\n +\"__pydantic_extra__\": )Dict\[", re.MULTILINE)
"""datamodel-code-generator's typed extras, `__annotations__ = {"__pydantic_extra__": Dict[str, X]}`."""


def _builtin_extras_dict(source: str) -> str:
    """The module with typed extras written `dict[str, X]`: datamodel-code-generator spells them with
    `typing.Dict` (an object with `properties` and an `additionalProperties` schema), which ruff's
    default rules reject (UP006, UP035). The dict is evaluated when the class is made, where the
    builtin `dict[...]` is the same type."""
    if "__annotations__ = {" not in source:
        return source
    text = _TYPED_EXTRAS.sub(r"\1dict[", source)
    if text == source:
        return source
    if any(isinstance(node, ast.Name) and node.id == "Dict" for node in ast.walk(parsed(text))):
        return text
    import black

    return black.format_str(_with_import(text, "typing", set(), without={"Dict"}), mode=black_mode())


_PROTECTED_FIELD = re.compile(r"^    model_(?:dump|validate)\w*:", re.MULTILINE)
"""A field in pydantic's protected namespaces (since pydantic 2.10, `model_dump` and `model_validate`)."""
_MODEL_CONFIG = re.compile(r"^(    model_config = ConfigDict\(\n(?:        .*\n)*?)(    \)\n)", re.MULTILINE)


def _unprotected_namespaces(source: str) -> str:
    """The module with `protected_namespaces=()` in the config of each class that has a field named
    `model_dump...` or `model_validate...` (a property `model_dump` is the field `model_dump_`):
    pydantic warns when such a class is made, which `python -W error` turns into a failed import,
    while the name shadows nothing."""
    if _PROTECTED_FIELD.search(source) is None:
        return source
    classes = re.split(r"(?m)^(?=class )", source)
    return "".join(
        _MODEL_CONFIG.sub(r"\1        protected_namespaces=(),\n\2", part, count=1)
        if part.startswith("class ") and _PROTECTED_FIELD.search(part)
        else part
        for part in classes
    )


UNTYPED_REASON = "UNTYPED_REASON"
"""The constant of an untyped tool's module holding why no models could be generated for it."""


def untyped_source(job: ModelJob, reason: str) -> str:
    """The models module of a tool whose schema no models could be generated from: why, and an input
    model that takes any arguments (for the hub, which validates through the input model); the client
    checks arguments against the tool's JSON Schema, which every models module carries (`_CONTRACT`)."""
    import black

    source = f"""{HEADER_PLACEHOLDER}

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

{UNTYPED_REASON} = {literal(reason)}
\"\"\"Why mcp-stubgen generated no models for this tool; its method takes `dict[str, Any]`.\"\"\"

class {job.stem}Input(BaseModel):
    \"\"\"Any arguments: the client checks them against the tool's JSON Schema (`_CONTRACT`) instead.\"\"\"

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Any]
"""
    return black.format_str(source, mode=black_mode())


def _renamed_classes(source: str, stem: str, naming_rules: int) -> str:
    """The module with its classes renamed: a union's members by the naming rules (`member_names`),
    a class named after the stem's `ascii_stand_in` after the stem, then every class whose name does
    not start with the tool's stem `<stem><name>`.

    datamodel-code-generator names most classes after their parents (`GetUserInputAddress`), but a
    titled definition or a model an `allOf` builds keeps its own name (`Options`), and two tools of
    one package may both have one: every class must have a name of its own in the package's
    `models` module and the client. The tool's stem is unique in the package, so the prefix makes
    the name unique without looking at any other tool, and a cached module stays exact. Nor may a
    class take a name the package's `__init__` imports from the runtime (`ServerError`, for an
    `allOf` property `error` of a tool `server`): mypy refused the package, and the model hid the
    runtime's class (`CallOptions`, the type of every method's `call_options`).
    """
    tree = parsed(source)
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    renamed = member_renames(tree, naming_rules)
    taken = {node.name for node in classes} | set(renamed.values())
    stand_in = ascii_stand_in(stem)
    runtime = package_names(naming_rules)
    for node in classes:
        current = renamed.get(node.name, node.name)
        if current.startswith(stand_in) and stand_in != stem:
            renamed[node.name] = stem + current.removeprefix(stand_in)
            continue
        if current.startswith(stem) and current not in runtime:
            continue
        base = current if current.startswith(stem) else f"{stem}{current}"
        candidate, counter = base, 1
        while candidate in taken or candidate in runtime:
            counter += 1
            candidate = f"{base}{counter}"
        taken.add(candidate)
        renamed[node.name] = candidate
    if not renamed:
        return source
    fields = {
        id(statement.target) for node in classes for statement in node.body if isinstance(statement, ast.AnnAssign)
    }
    spans: list[tuple[int, int, int, str]] = []  # (line, start, end, new name)
    lines = source.splitlines(keepends=True)
    for node in classes:
        if node.name in renamed:
            start = lines[node.lineno - 1].encode().index(f"class {node.name}".encode()) + len("class ")
            spans.append((node.lineno, start, start + len(node.name.encode()), renamed[node.name]))
    types = [
        part
        for node in ast.walk(tree)
        for typed in (
            [node.annotation]
            if isinstance(node, ast.AnnAssign)
            else node.bases
            if isinstance(node, ast.ClassDef)
            else []
        )
        for part in ast.walk(typed)
    ]
    for name in ast.walk(tree):
        if isinstance(name, ast.Name) and name.id in renamed and id(name) not in fields:
            spans.append((name.lineno, name.col_offset, name.end_col_offset or name.col_offset, renamed[name.id]))
    for name in types:  # forward references in annotations and bases; never an alias or other text
        if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value in renamed:
            quote = lines[name.lineno - 1].encode()[name.col_offset : name.col_offset + 1].decode()
            new = f"{quote}{renamed[name.value]}{quote}"  # a forward reference
            spans.append((name.lineno, name.col_offset, name.end_col_offset or name.col_offset, new))
    for number, start, end, new in sorted(spans, reverse=True):
        text = lines[number - 1].encode()
        lines[number - 1] = (text[:start] + new.encode() + text[end:]).decode()
    import black

    return black.format_str("".join(lines), mode=black_mode())


def _inlined_plain_roots(source: str, stem: str) -> str:
    """The module with each root model of a constrained plain value written where it is used, as
    `Annotated[<value>, Field(<constraints>)]`, and its class gone (naming rules 6).

    datamodel-code-generator makes a class for a constrained array item or union member
    (`pages: list[ReadPdfInputSourcePage]`, `ReadPdfInputSourcePage(RootModel[int])` for
    `minimum: 1`): pydantic takes `pages=[1]`, a type checker does not, so a caller had to wrap each
    value, a result's values had to be read through `.root`, and a constraint a server added turned
    a field's `int` into a class. The `Annotated` form validates the same and type-checks as the
    value. A class is left alone when its value names another class, its root has a default, it is
    the tool's own `Input` or `Output`, or its name is used anywhere but as a type (a string
    mentioning it, say). One default is not the class's own: for a constrained branch of an `anyOf`
    with `null` whose output default is `null` (the MCP SDK's `Annotations.priority`, in every
    FastMCP tool that returns an image), datamodel-code-generator writes `X(RootModel[float])` with
    `root: float | None = Field(None, ...)`, which fails `mypy --strict`; the `None` is the union's,
    written where the class is used, so the class stands for `Annotated[float, Field(...)]`.
    """
    tree = parsed(source)
    if any(
        isinstance(node, ast.Name) and node.id == "Annotated" and isinstance(node.ctx, ast.Store)
        for node in ast.walk(tree)
    ):
        return source
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    names = {node.name for node in classes}
    inlined: dict[str, tuple[ast.ClassDef, str]] = {}
    for node in classes:
        value = _plain_root_value(node, names, source)
        if value is not None and node.name not in (f"{stem}Input", f"{stem}Output"):
            inlined[node.name] = (node, value)
    uses: dict[str, list[ast.expr]] = {name: [] for name in inlined}
    types = [node.annotation for node in _statements(tree.body) if isinstance(node, ast.AnnAssign)]
    types += [  # `X = TypeAliasType("X", <type>)`, as datamodel-code-generator writes a type list's member
        node.value.args[1]
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and ast.unparse(node.value.func) == "TypeAliasType"
        and len(node.value.args) == 2
    ]
    for typed in [*types, *(base for node in classes for base in node.bases)]:
        for part in _type_references(typed):
            name = part.id if isinstance(part, ast.Name) else part.value
            if name in uses:
                uses[name].append(part)
    for name, places in uses.items():  # its definition, then its uses as a type, and nothing else
        if not places or len(re.findall(rf"\b{re.escape(name)}\b", source)) != 1 + len(places):
            del inlined[name]
    if not inlined:
        return source
    starts = _line_starts(source)
    edits = [(*_byte_span(starts, place), inlined[name][1]) for name in inlined for place in uses[name]]
    for definition, _ in inlined.values():
        edits.append((starts[definition.lineno - 1], starts[definition.end_lineno or definition.lineno], ""))
    data = source.encode()
    for start, end, text in sorted(edits, reverse=True):
        data = data[:start] + text.encode() + data[end:]
    text = data.decode()
    rest = parsed(text)
    still_root = any(isinstance(node, ast.Name) and node.id == "RootModel" for node in ast.walk(rest))
    text = _with_import(text, "typing", {"Annotated"})
    text = _with_import(text, "pydantic", set(), without=() if still_root else ("RootModel",))
    import black

    return black.format_str(text, mode=black_mode())


def _root_types_admit_none(source: str) -> str:
    """The module with each root model whose root admits `None` where its type parameter does not
    given `| None` in the parameter too: `X(RootModel[float | None])`, its name and fields unchanged.

    For a constrained branch of an `anyOf` with `null` whose output default is `null` (the MCP SDK's
    `Annotations.priority`), datamodel-code-generator writes `X(RootModel[float])` with
    `root: float = Field(None, ...)`, which `_none_defaults_admit_none` makes `float | None`: a root
    that is not its parameter's type fails `mypy --strict`. By naming rules 6 such a class is
    written where it is used (`_inlined_plain_roots`); a class kept (by earlier rules, whose names a
    package keeps, or where rules 6 cannot write it in place) takes the root's type, which is all
    pydantic validates: the parameter is for type checkers alone. Only a rewriting pass makes such a
    root, so a module `rewritten_source` leaves alone has none (`model_batches` keeps it as cut)."""
    if "(RootModel[" not in source:
        return source
    starts = _line_starts(source)
    ends: list[int] = []
    for node in parsed(source).body:
        if not (
            isinstance(node, ast.ClassDef)
            and len(node.bases) == 1
            and isinstance(base := node.bases[0], ast.Subscript)
            and ast.unparse(base.value) == "RootModel"
            and not _admits_none(base.slice)
            # A bare forward reference (`RootModel["Node"]`) cannot take `| None` outside its quotes.
            and not isinstance(base.slice, ast.Constant)
        ):
            continue
        roots = [
            statement.annotation
            for statement in node.body
            if isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == "root"
        ]
        if roots and _admits_none(roots[0]):
            ends.append(_byte_span(starts, base.slice)[1])
    if not ends:
        return source
    data = source.encode()
    for end in sorted(ends, reverse=True):
        data = data[:end] + b" | None" + data[end:]
    import black

    return black.format_str(data.decode(), mode=black_mode())


def _type_references(annotation: ast.expr) -> Iterator[ast.Name | ast.Constant]:
    """The names in a type, and its forward references (`"A"`): not a `Literal`'s values, nor what a
    call in it (`Field(pattern="A")`) is given."""
    if isinstance(annotation, ast.Name) or (isinstance(annotation, ast.Constant) and isinstance(annotation.value, str)):
        yield annotation
    elif isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) not in ("Literal", "typing.Literal"):
        yield from _type_references(annotation.value)
        yield from _type_references(annotation.slice)
    elif isinstance(annotation, ast.Tuple | ast.List):
        for element in annotation.elts:
            yield from _type_references(element)
    elif isinstance(annotation, ast.BinOp):
        yield from _type_references(annotation.left)
        yield from _type_references(annotation.right)


def _plain_root_value(node: ast.ClassDef, classes: set[str], source: str) -> str | None:
    """What a root model of a plain value stands for, as source (`Annotated[int, Field(ge=1)]`), or
    None for any other class: a class `X(RootModel[...])` whose one statement is `root: <value>` or
    `root: <value> = Field(..., <keywords>)`, its value naming no class of the module."""
    if not (
        len(node.bases) == 1
        and isinstance(node.bases[0], ast.Subscript)
        and ast.unparse(node.bases[0].value) == "RootModel"
        and not node.keywords
        and not node.decorator_list
        and len(node.body) == 1
    ):
        return None
    (statement,) = node.body
    if not (
        isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and statement.target.id == "root"
    ):
        return None
    annotation = statement.annotation
    names = {part.id for part in ast.walk(annotation) if isinstance(part, ast.Name)}
    strings = {part.value for part in ast.walk(annotation) if isinstance(part, ast.Constant)}
    if names & classes or strings & classes:
        return None
    value = ast.get_source_segment(source, annotation)
    call = statement.value
    if call is None:
        return value
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id.startswith("Field")
        and len(call.args) == 1
        and isinstance(call.args[0], ast.Constant)
        and all(keyword.arg is not None for keyword in call.keywords)
    ):
        return None
    base = node.bases[0].slice
    if call.args[0].value is None and ast.unparse(annotation) == f"{ast.unparse(base)} | None":
        value = ast.get_source_segment(source, base)  # the union's `null` default, put on its branch's root
    elif call.args[0].value is not Ellipsis:
        return None
    if not call.keywords:
        return value
    keywords = ", ".join(ast.get_source_segment(source, keyword) or "" for keyword in call.keywords)
    return f"Annotated[{value}, {call.func.id}({keywords})]"


def _through_import_aliases(source: str) -> str:
    """The module with every bare use of an import datamodel-code-generator aliased written through
    its alias.

    When a field shadows one of the module's own imports (a property named `Field`, `BaseModel`,
    `Literal`, ...), datamodel-code-generator imports it under an alias (`Field as Field_aliased`)
    and writes most uses through that alias, but not all: a root model's `root: str = Field(...)`
    stays bare (0.89.0), and the module raises NameError on import. It has no option to choose the
    alias or to rename such fields, and renaming the field would change the client's keyword
    arguments, so its own aliasing is completed here: a name that the module binds only under an
    alias, and that is not a builtin, can mean nothing but that import. The rewrite lengthens
    lines, so a module that changed is formatted again with black (as every generated file must be
    a black fixed point); a module with no such use is returned unchanged.
    """
    if "_aliased" not in source:
        return source
    tree = parsed(source)
    bound: set[str] = set()
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            for name in node.names:
                bound.add(name.asname or name.name.split(".")[0])
                if isinstance(node, ast.ImportFrom) and name.asname and name.asname != name.name:
                    aliases[name.name] = name.asname
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            bound.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound.update(name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name))
    unbound = {name: alias for name, alias in aliases.items() if name not in bound and not hasattr(builtins, name)}
    uses = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in unbound
    ]
    if not uses:
        return source
    lines = source.splitlines(keepends=True)
    for node in sorted(uses, key=lambda use: (use.lineno, use.col_offset), reverse=True):
        line = lines[node.lineno - 1].encode()
        lines[node.lineno - 1] = (
            line[: node.col_offset] + unbound[node.id].encode() + line[node.end_col_offset or node.col_offset :]
        ).decode()
    import black

    return black.format_str("".join(lines), mode=black_mode())


def _root(schema: JSON) -> JSON:
    """A tool schema's root with what its missing `type` implies made explicit.

    MCP tool schemas are objects, so `{}` (or one with only `properties`) means "any object";
    datamodel-code-generator would read it as "anything" and make `RootModel[Any]`, which cannot
    become keyword arguments. It becomes an open object: named properties are arguments, and an
    output keeps the fields it was not told about. A root that combines or references schemas is
    left alone.
    """
    if "type" in schema or COMBINATORS & schema.keys():
        return schema
    return {"type": "object", "additionalProperties": True, **schema}


_TEXT_KEYWORDS = ANNOTATIONS - {"readOnly", "writeOnly"}


def _merged_overrides(schema: JSON) -> JSON:
    """The schema (a fresh copy, from `for_datamodel`) with each `allOf` that extends one `$ref` and
    gives one of its properties another schema holding a copy of the definition instead of the
    reference.

    datamodel-code-generator makes such an `allOf` a subclass of the referenced model that overrides
    the property, and when the two types disagree (`items: str` in the base, `items: list` in the
    subclass) `mypy --strict` rejects the override. With no reference among its parts, the `allOf`
    becomes one class of its own, its parts merged.
    """
    for _, node in subschemas(schema):
        parts = node.get("allOf")
        if not isinstance(parts, list):
            continue
        references = [index for index, part in enumerate(parts) if isinstance(part, dict) and "$ref" in part]
        if len(references) != 1 or set(parts[references[0]]) != {"$ref"}:
            continue
        base = follow(schema, parts[references[0]]["$ref"])
        inherited = base.get("properties") if isinstance(base, dict) else None
        if not isinstance(inherited, dict):
            continue
        overrides = [node.get("properties"), *(part.get("properties") for part in parts if isinstance(part, dict))]
        if any(
            name in inherited and _shape(own[name]) != _shape(inherited[name])
            for own in overrides
            if isinstance(own, dict) and own is not inherited
            for name in own
        ):
            parts[references[0]] = dict(base)
    return schema


def _shape(schema: Any) -> str:
    """A property's schema without the words in it, as comparable text."""
    if isinstance(schema, dict):
        schema = {key: value for key, value in schema.items() if key not in _TEXT_KEYWORDS}
    return compact_json(schema)


def run_datamodel(entries: list[JSON]) -> object:
    """datamodel-code-generator on these tools: one module (a str) holding every tool's models, its
    strings in double quotes (`double_quoted`, or datamodel-code-generator's own `use_double_quotes`
    for a module that cannot vouch for)."""
    return _with_stack_room(_run_datamodel, entries)


def _with_stack_room(function: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """`function(*args, **kwargs)`, called from a frame that reserves 320 KB of CPython's data stack.

    CPython (3.11 on) keeps frames in 16 KB chunks: it maps a new chunk when a call does not fit and
    unmaps it as soon as the frame at its bottom returns, so a recursion that keeps crossing one
    boundary maps and unmaps a chunk every time. datamodel-code-generator's did, about a hundred times
    a tool at the depth our workers call it from (100,000 mmap/munmap pairs and 73,000 more page faults
    at 1,000 tools, the bare call at its own depth none). This frame fits no chunk of 16 KB, so it gets
    one of 512 KB, and the 192 KB above it hold everything it calls.
    """
    return function(*args, **kwargs)


_with_stack_room.__code__ = _with_stack_room.__code__.replace(co_stacksize=_STACK_ROOM_SLOTS)


def _run_datamodel(entries: list[JSON]) -> object:
    from datamodel_code_generator import generate

    dcg_speedups.install()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = generate(entries, **datamodel_options())
        quoted = double_quoted(source) if isinstance(source, str) else None
        return quoted if quoted is not None else generate(entries, **datamodel_options(), use_double_quotes=True)


_LITERALS = re.compile(
    r"#[^\n]*"
    r"|'''(?:[^\\]|\\.)*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"|\"(?:[^\"\\\n]|\\[^\n])*\""
    r"|'(?P<body>(?:[^'\\\n]|\\[^\n])*)'"
    r"|(?P<stray>['\"])",
    re.DOTALL,
)
"""A comment; a string in triple quotes or double quotes; a string in single quotes (its `body`); or a
quote that starts no string this scan reads. Each starts with `#` or a quote, so the scan skips ahead
to those characters (five times faster than trying every position for a prefix); a string's prefix
is read back from its quote (`_PREFIX`)."""
_PREFIX = re.compile(r"(?<![\w'\"])[rRbBuU]{0,2}\Z")
"""A string's prefix, which ends at its opening quote: none, or up to two of these letters, not right
after a name or another string (a quote right after one, as in `if'a'` or an f-string, starts no
string this scan reads)."""


def double_quoted(source: str) -> str | None:
    """The module with each `'...'` string in the quotes black gives it: `"..."` unless that takes
    more backslashes (`_black_requoted`), as datamodel-code-generator's `use_double_quotes` writes
    most of them, without its pass over every token of the module that took an eighth of its time
    (that option also keeps `'...'` where both take as many backslashes, or the body ends in one,
    which black and `ruff format` rewrite). None where this scan cannot vouch for the module: one
    that does not parse (which it leaves unformatted), one its tokens' round trip respells (tabs, form
    feeds, carriage returns, backslash continuations), one this scan cannot read."""
    if any(mark in source for mark in ("\t", "\f", "\r", "\\\n")):
        return None
    pieces: list[str] = []
    done = 0
    if "'" in source:
        for match in _LITERALS.finditer(source):
            if match["stray"] is not None:
                return None
            quote = match.start()
            if source[quote] == "#":
                continue
            prefix = _PREFIX.search(source, max(quote - 2, 0), quote)
            if prefix is None:
                return None
            body = match["body"]
            if body is None or (body := _black_requoted(body, raw="r" in prefix[0].lower())) is None:
                continue
            pieces += [source[done:quote], '"', body, '"']
            done = match.end()
    quoted = "".join([*pieces, source[done:]])
    try:  # parsed as the module's readers parse it, ending in one newline, so they find it parsed
        parsed(quoted.rstrip("\n") + "\n")
    except (SyntaxError, ValueError):
        return None
    return quoted


def _black_requoted(body: str, raw: bool) -> str | None:
    """The body of a `'...'` string written for `"..."`, as black rewrites it: escaped `'` unescaped,
    `"` escaped; None where black keeps the single quotes: that takes more backslashes than the body
    has (an escaped `"` counting none), or a raw string holds a `"` it could not escape."""
    if raw:
        return body if body.count('"') == body.count('\\"') else None
    if '"' not in body and "\\'" not in body:  # most: nothing to escape or unescape
        return body
    written: list[str] = []
    escaped_quotes = 0
    characters = iter(body)
    for character in characters:
        if character == "\\":
            escaped = next(characters)
            escaped_quotes += escaped == '"'
            written.append("'" if escaped == "'" else '\\"' if escaped == '"' else character + escaped)
        else:
            written.append('\\"' if character == '"' else character)
    quoted = "".join(written)
    return quoted if quoted.count("\\") <= body.count("\\") - escaped_quotes else None


def load_datamodel() -> None:
    """Make one empty model, so that what datamodel-code-generator loads on its first call (about 150
    modules, 0.4 s of CPU) is loaded in this process, once, and shared by the workers forked from it."""
    run_datamodel([{"name": "Load", "inputSchema": {"type": "object"}}])


def _locate_failure(entry: JSON) -> str | None:
    """Regenerate schema by schema to name the one that fails (only on the error path)."""
    from datamodel_code_generator import Error

    for key in ("inputSchema", "outputSchema"):
        if key not in entry:
            continue
        try:
            run_datamodel(
                [{"name": entry["name"], "inputSchema": entry[key] if key == "inputSchema" else {"type": "object"}}]
            )
        except (Error, RecursionError) as error:
            return f"/{key}: {_failure(error)}"
    return None


TOO_DEEP = "its schemas nest too deeply to generate models of"
"""Why a schema nested past Python's recursion limit has no models, on every Python: datamodel-code-generator
runs out of stack parsing it on 3.11 (an error naming the limit) and rendering it on 3.13 (a
`RecursionError`), so its own words made one snapshot two packages."""


def _failure(error: Exception) -> str:
    """What datamodel-code-generator's failure says, in words that do not depend on the Python running it."""
    if isinstance(error, RecursionError) or str(error).startswith("Schema nesting is too deep"):
        return TOO_DEEP
    return one_line(str(error))


def one_line(text: str) -> str:
    """datamodel-code-generator's message without its advice about its own command-line flags."""
    return " ".join(text.split()).split(" Reason: ")[0][:500]


SCHEMA_KEYWORDS = KEYWORDS
"""Every keyword datamodel-code-generator is shown: JSON Schema's own (drafts 4 to 2020-12) and OpenAPI's
`nullable`, which only adds None. Anything else is dropped, so no catalog can name what the generated
code imports, subclasses, decorates or types a field with: datamodel-code-generator acts on its own
extensions (`customTypePath`, `customBasePath`, `x-python-type`, `x-python-import`, `x-is-base-class`,
`default_factory`, ...) and more arrive with each release; the snapshot keeps them as the server sent them."""


MAX_TEXT = 2000
"""Longest `description` or `title` handed to datamodel-code-generator: it takes time superlinear in
a text's length (a 1 MB description, 14 s; 10 MB, over 20 minutes). The client's docstrings are
written from the snapshot itself and keep the whole text."""


def _cut(text: str) -> str:
    return f"{text[:MAX_TEXT]} [cut: {len(text):,} characters in the snapshot]"


def for_datamodel(schema: Any, output_root: Any, naming_rules: int) -> Any:
    """The schema as datamodel-code-generator gets it: defaults it would mistype dropped, a `const`
    object or array written as a one-value `enum`, by naming rules 6 draft-07's tuple `items` (and
    its `additionalItems`) written as `prefixItems` (and `items`), which datamodel-code-generator would
    type as a list of any of its members (earlier rules keep that `list`, so an upgrade turns no
    committed keyword's `list` into a `tuple`), free text cut to `MAX_TEXT`, and objects open
    (`additionalProperties: true`) unless the schema closes them outright: the tool's own schema,
    checked by the runtime, decides which keys an object may have, and the model keeps them all.

    An input default (`output_root` is None) is the server's to apply when an argument is not given,
    so all go. An output default stays only if it fits its schema (`_fits`, with `output_root` to
    resolve local `$ref`s) and is not the string of a formatted string: datamodel-code-generator
    writes a default as given, so `x: str = 5` or a `str` assigned to an `AnyUrl` field would fail
    `mypy --strict`, and a model default missing a required key would fail every validation that
    omits the field. A `const` object or array that is not required gets `= None` without `| None`;
    the same value as `enum: [value]` (equal in JSON Schema) gets `| None`. By naming rules 8 a nested
    input object's property whose `const` is also its default is required (`_fixed_values_required`),
    and by naming rules 9 an array type whose `const` is an array loses its `type` (`_typed_const_array`).
    A set of more values than one `Literal` holds (`literal_limit`: an `enum`, or the `const`s of an
    `anyOf` or `oneOf`) is given as their JSON types (`_widened`).
    A keyword outside `SCHEMA_KEYWORDS` is dropped, and so is a pattern pydantic's Rust engine cannot
    compile (`linear_pattern`).
    """

    limit = literal_limit(naming_rules)

    def edit(path: Path, node: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in node.items():
            if key not in SCHEMA_KEYWORDS or (key == "default" and not _keeps_default(node, output_root)):
                continue
            if key == "pattern" and isinstance(value, str) and not linear_pattern(value):
                continue
            if key == "patternProperties" and isinstance(value, dict):
                value = {name: inner for name, inner in value.items() if linear_pattern(name)}
            if key == "const" and isinstance(value, dict | list):
                result["enum"] = [value]
            elif (key == "enum" and isinstance(node.get("const"), dict | list)) or (
                key == "type" and _typed_const_array(node, naming_rules)
            ):
                continue
            elif key == "enum" and isinstance(value, list) and len(value) > limit:
                if "type" not in node:
                    result["type"] = _json_types(value)
            elif key in ("anyOf", "oneOf") and isinstance(value, list):
                result[key] = _widened(value, limit)
            elif key in ("description", "title") and isinstance(value, str) and len(value) > MAX_TEXT:
                result[key] = _cut(value)
            else:
                result[key] = value
        if output_root is None and path and naming_rules >= FIXED_VALUE_RULES:
            result = _fixed_values_required(node, result)
        if naming_rules >= 6:
            result = with_prefix_items(result)
        if (result.get("type") == "object" or "properties" in result) and (
            "additionalProperties" not in result
            or (result["additionalProperties"] is False and "patternProperties" in result)
        ):
            result["additionalProperties"] = True  # the model keeps keys it has no field for; the schema judges them
        return result

    return rebuilt(schema, edit, skip=_NOT_SCHEMAS)


def _widened(branches: list[Any], limit: int) -> list[Any]:
    """An `anyOf`'s or `oneOf`'s branches with those that are only values (a `const` or an `enum`,
    annotations aside) as one branch of their JSON types where it stood, when they hold more values
    than `limit`: datamodel-code-generator would write them as one `Literal`."""
    sets = [branch for branch in branches if _only_values(branch)]
    values = [value for branch in sets for value in _values(branch)]
    if len(values) <= limit:
        return branches
    first = sets[0]
    kept = [branch for branch in branches if branch is first or not _only_values(branch)]
    return [{"type": _json_types(values)} if branch is first else branch for branch in kept]


def _only_values(branch: Any) -> bool:
    return (
        isinstance(branch, dict)
        and ("const" in branch or isinstance(branch.get("enum"), list))
        and all(key in ("const", "enum", "type") or key in ANNOTATIONS or key not in KEYWORDS for key in branch)
    )


def _values(branch: dict[str, Any]) -> list[Any]:
    return [branch["const"]] if "const" in branch else list(branch["enum"])


def _json_types(values: list[Any]) -> list[str] | str:
    """The JSON types of some values, in JSON Schema's `type` form (`"string"`, `["integer", "null"]`);
    an integer beside a number is a number."""
    kinds = {json_type(value) for value in values}
    if "number" in kinds:
        kinds.discard("integer")
    return sorted(kinds) if len(kinds) > 1 else kinds.pop()


def _typed_const_array(node: dict[str, Any], naming_rules: int) -> bool:
    """Whether a node is an array type whose `const` is an array, which by naming rules 9 is given
    datamodel-code-generator as its one-value `enum` alone (`CONST_ARRAY_RULES`)."""
    return naming_rules >= CONST_ARRAY_RULES and node.get("type") == "array" and isinstance(node.get("const"), list)


def _fixed_values_required(node: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """`result` with every property of a nested input object whose one value (`const`) is also its
    default made required (rules 1 to 7 keep it optional). The client sends only what the caller
    set, and a discriminated union's branches (pydantic's `operation: Literal["GetItem"] =
    "GetItem"`, awslabs.dynamodb-mcp-server's access patterns) differ only in that property: without
    it an item matched every branch, so a typed call that left it out, as its `| None` invited, was
    always refused."""
    properties = node.get("properties")
    if not isinstance(properties, dict):
        return result
    fixed = [name for name, inner in properties.items() if has_fixed_value(inner)]
    required = result.get("required")
    if not fixed or not isinstance(required, list | type(None)):
        return result
    known = required or []
    return result | {"required": [*known, *(name for name in fixed if name not in known)]}


_NOT_SCHEMAS = DATA_KEYWORDS | VALUE_KEYWORDS
"""What `for_datamodel` copies without walking: instance data, and names, numbers and flags."""


@functools.lru_cache(maxsize=1024)
def linear_pattern(pattern: str) -> bool:
    """Whether pydantic's Rust engine, which matches in linear time, compiles the pattern. One it
    cannot (lookaround, backreferences) is left out of the models, as the runtime leaves it to the
    server: in the models pydantic would match it with Python's backtracking `re`, and a server's
    `^(a+)+(?<!b)$` could hold the caller's process for years on one result."""
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    try:
        SchemaValidator(core_schema.str_schema(pattern=pattern))
    except SchemaError:
        return False
    return True


def _keeps_default(schema: dict[str, Any], output_root: Any) -> bool:
    if output_root is None:
        return False
    value = schema["default"]
    if "format" in schema and isinstance(value, str):
        return False
    return _fits(value, schema, output_root, 0)


def _has_type(value: Any, name: Any) -> bool:
    """Whether a value is of a JSON Schema type as datamodel-code-generator types it in Python
    (`1.0` is not an `int`, `True` not a number)."""
    if name == "string":
        return isinstance(value, str)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "array":
        return isinstance(value, list)
    return name == "object" and isinstance(value, dict)


def _fits(value: Any, schema: Any, root: Any, refs: int) -> bool:
    """Whether a JSON value has the shape a schema types: `const`, `enum`, `type` (with `items`,
    `properties`, `required` and `additionalProperties`), combinators and local `$ref`s. Constraints
    (lengths, bounds, patterns) are not checked: they do not change a Python type. Anything it
    cannot read (a remote reference, a broken pointer) counts as not fitting, so the default goes."""
    if schema is True or schema == {}:
        return True
    if not isinstance(schema, dict):
        return False
    if "$ref" in schema:
        target = follow(root, schema["$ref"])
        if target is MISSING or refs >= MAX_REF_DEPTH or not _fits(value, target, root, refs + 1):
            return False
    if "const" in schema and compact_json(value) != compact_json(schema["const"]):
        return False
    if isinstance(schema.get("enum"), list) and compact_json(value) not in map(compact_json, schema["enum"]):
        return False
    for key, combine in (("anyOf", any), ("oneOf", any), ("allOf", all)):
        branches = schema.get(key)
        if isinstance(branches, list) and not combine(_fits(value, branch, root, refs) for branch in branches):
            return False
    types = schema.get("type")
    types = [types] if isinstance(types, str) else types
    if isinstance(types, list) and not any(_has_type(value, name) for name in types):
        return False
    if isinstance(value, list) and isinstance(schema.get("items"), dict | bool):
        return all(_fits(item, schema["items"], root, refs) for item in value)
    if isinstance(value, dict):
        return _object_fits(value, schema, root, refs)
    return True


def _object_fits(value: dict[str, Any], schema: dict[str, Any], root: Any, refs: int) -> bool:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    if isinstance(required, list) and not all(name in value for name in required if isinstance(name, str)):
        return False
    extra = schema.get("additionalProperties", True)
    return all(_fits(inner, properties.get(name, extra), root, refs) for name, inner in value.items())
