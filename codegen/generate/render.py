"""Intermediate model -> file contents: strict Jinja templates, safe literals, black with a fixed mode.

Untrusted catalog text reaches generated code only through the `literal`, `quoted` and `docstring`
filters here, so escaping is decided in one place rather than in each template.

black runs on the client piece by piece (its head, then each method in its class's context), each
piece cached by content, so one changed tool reformats one method. Pieces of a kind are formatted in
batches, one black call per batch, spread over the cores; a tool's method and its import are
formatted right after its models, in the same worker (`codegen.generate.tool_workers`). The templates write
methods in black's own layout, so a method black would leave alone (`black_leaves_alone`) skips it:
the bytes are black's either way, at a fraction of the cost. The facades (`__init__.py`, `models.py`) are written in the
exploded one-item-per-line form black itself leaves alone, and a test holds every generated file to
being a black fixed point. black is imported only when a piece is not cached.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import sys
from collections.abc import Iterable, Sequence
from importlib.resources import files
from typing import TYPE_CHECKING, Any, Literal

import jinja2

from codegen.generate.cache import Cache, cache_key
from codegen.generate.formatting import LINE_LENGTH, black_mode, literal, quoted
from codegen.generate.headers import header_lines, with_header
from codegen.generate.modelgen import HEADER_PLACEHOLDER
from codegen.generate.parallel import map_batches
from codegen.generate.spec import (
    Import,
    ModelModule,
    PackageSpec,
    Parameter,
    PromptSpec,
    ResourceSpec,
    TemplateSpec,
    ToolSpec,
)
from codegen.identifiers import CALL_OPTIONS

if TYPE_CHECKING:
    pass

CONTRACT_NAME = "_CONTRACT"
"""The name each tool's models module gives its contract; the client's methods pass it to the runtime."""
CONTRACT_DOC = "The tool's schemas from the snapshot: what the runtime checks arguments and results against."


MAX_DOCSTRING_TEXT = 100_000
"""Longest text written into one docstring; the rest is cut with a note. black needs about a second
per megabyte of docstring, and a description of megabytes is an attack on its readers, not help."""


def docstring(value: object) -> str:
    """Text safe inside a triple-quoted docstring: quotes and backslashes escaped, unprintables as escapes."""
    text = str(value).replace("\r\n", "\n")
    if len(text) > MAX_DOCSTRING_TEXT:
        text = f"{text[:MAX_DOCSTRING_TEXT]} [cut: {len(text):,} characters in the snapshot]"
    if text.replace("\n", "").isprintable():  # the usual case, without a loop over every character
        escaped = text.replace("\\", "\\\\").replace('"', '\\"')
        return "\n".join(line.rstrip() for line in escaped.strip().split("\n"))
    out: list[str] = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n" or (char.isprintable() and not 0xD800 <= ord(char) <= 0xDFFF):
            out.append(char)
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    lines = [line.rstrip() for line in "".join(out).strip().split("\n")]
    return "\n".join(lines)


def python_literal(value: Any) -> str:
    """Python source for a JSON value; every string goes through `literal`, so no catalog text becomes code."""
    if isinstance(value, dict):
        items = ", ".join(f"{literal(key)}: {python_literal(value[key])}" for key in sorted(value))
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + ", ".join(python_literal(item) for item in value) + "]"
    if isinstance(value, str):
        return literal(value)
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    raise TypeError(f"not a JSON value: {value!r}")


def all_sorted(names: Iterable[str]) -> list[str]:
    """Names in the order ruff's RUF022 keeps `__all__` in (isort style): constants, then classes, then
    the rest, each in natural order (`Get2` before `Get10`), so a user's linter finds nothing to sort."""

    def key(name: str) -> tuple[int, list[tuple[int, int | str]]]:
        kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
        return kind, [(1, int(part)) if part.isdigit() else (0, part) for part in re.split(r"(\d+)", name)]

    return sorted(names, key=key)


def parameter_doc(parameter: Parameter) -> str:
    """One parameter's docstring entry: its description, wire name when it differs, default, optionality."""
    parts = []
    if parameter.description:
        text = docstring(parameter.description)
        parts.append(text if text.endswith((".", "!", "?")) else text + ".")
    if parameter.wire != parameter.python:
        parts.append(f"Sent as {docstring(quoted(parameter.wire))}.")
    if parameter.default is not None:
        parts.append(f"Server default: {docstring(parameter.default)}.")
    if not parameter.required:
        parts.append("Optional.")
    return " ".join(parts) or "Required."


@functools.cache
def jinja_environment() -> jinja2.Environment:
    """The one strict Jinja environment every template renders in: undefined names fail, and
    catalog text reaches code only through the `literal`, `quoted`, `docstring` and `parameter_doc` filters.
    Made once per process, so each template is compiled once however many packages are rendered."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(files("codegen.templates"))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    environment.filters["literal"] = literal
    environment.filters["quoted"] = quoted
    environment.filters["docstring"] = docstring
    environment.filters["parameter_doc"] = parameter_doc
    environment.filters["all_sorted"] = all_sorted
    environment.globals["model_import"] = model_import
    environment.globals["runtime_names"] = runtime_names
    environment.globals["typing_names"] = typing_names
    environment.globals["type_checking_imports"] = type_checking_imports
    environment.globals["call_options"] = CALL_OPTIONS
    return environment


def model_import(entry: Import) -> str:
    """One `from ._models.<tool> import ...` line of the client's `if TYPE_CHECKING:` block, indented
    as there: the template writes it, and a worker formats it beside the tool's models."""
    return f"{_TYPING_INDENT}from {entry.module} import {', '.join(entry.names)}"


def runtime_names(package: PackageSpec) -> list[str]:
    """The runtime names the client's code uses, in isort's order, so a user's linter finds no unused import."""
    entries: list[ToolSpec | TemplateSpec | PromptSpec] = [*package.tools, *package.templates, *package.prompts]
    optional = any(tool.extra for tool in package.tools) or any(
        not parameter.required for entry in entries for parameter in entry.parameters
    )
    reads = bool(package.resources or package.templates or package.prompts)
    used = {
        "NOT_GIVEN": optional,
        "CallOptions": bool(package.tools),
        "GeneratedClient": True,
        "NotGiven": optional,
        "RequestOptions": reads,
        "SyncClient": package.sync_client,
        "ToolResult": any(tool.output_kind == "result" for tool in package.tools),
    }
    return [name for name, needed in used.items() if needed]


def typing_names(package: PackageSpec) -> list[str]:
    """The `typing` names the client's code uses: `Any` only where a signature has it (the sync
    twin's `connect_sync` always does), so a user's linter finds no unused import."""
    entries: list[ToolSpec | TemplateSpec | PromptSpec] = [*package.tools, *package.templates, *package.prompts]
    annotations = [
        *(parameter.annotation for entry in entries for parameter in entry.parameters),
        *(tool.return_annotation for tool in package.tools),
        *(tool.extra_annotation or "" for tool in package.tools),
    ]
    uses_any = package.sync_client or any(re.search(r"\bAny\b", text) for text in annotations)
    return ["TYPE_CHECKING", *(["Any"] if uses_any else []), "ClassVar"]


def type_checking_imports(package: PackageSpec) -> list[str]:
    """The absolute imports of the client's `if TYPE_CHECKING:` block, indented, sorted and grouped
    (standard library, then third party) as isort writes them; the model imports follow them."""
    imports: dict[str, set[str]] = {
        "collections.abc": {"Mapping"},
    }
    if package.sync_client:  # what `connect_sync` takes and returns
        imports["contextlib"] = {"AbstractContextManager"}
        imports["mcp"] = {"StdioServerParameters"}
        imports["mcp.client"] = {"Transport"}
    mcp_types = {
        "GetPromptResult": bool(package.prompts),
        "ReadResourceResult": bool(package.resources or package.templates),
    }
    if any(mcp_types.values()):
        imports["mcp.types"] = {name for name, needed in mcp_types.items() if needed}
    for entry in package.model_imports:
        if not entry.module.startswith("."):
            imports.setdefault(entry.module, set()).update(entry.names)
    standard = [module for module in sorted(imports) if module.partition(".")[0] in sys.stdlib_module_names]
    third_party = [module for module in sorted(imports) if module not in standard]
    lines = [f"{_TYPING_INDENT}from {module} import {', '.join(sorted(imports[module]))}" for module in standard]
    if third_party:
        lines.append("")
        lines.extend(
            f"{_TYPING_INDENT}from {module} import {', '.join(sorted(imports[module]))}" for module in third_party
        )
    return lines


@functools.cache
def _helpers() -> Any:
    """The macros of `helpers.jinja`, one per kind of client method (loaded once per process)."""
    return jinja_environment().get_template("helpers.jinja").module


def tool_member(tool: ToolSpec, sync: bool = False) -> str:
    """A tool's client method (or, `sync`, its sync twin's) as the template writes it, before black."""
    return str(_helpers().tool_method(tool, sync))


def tool_members(tool: ToolSpec, sync: bool = False) -> list[str]:
    """A tool's client methods, async or (`sync`) sync: its method and, for a task tool, its `start_...` method."""
    members = [tool_member(tool, sync)]
    if tool.start_method:
        members.append(str(_helpers().task_method(tool, sync)))
    return members


def tool_pieces(tool: ToolSpec, model_imports: Import) -> list[tuple[PieceKind, str]]:
    """The pieces of client.py that only this tool decides (its methods, their sync twins and its
    models' import), for formatting beside its models (a tool whose annotations use none of its models
    has no import)."""
    members: list[tuple[PieceKind, str]] = [
        ("member", member) for sync in (False, True) for member in tool_members(tool, sync)
    ]
    if not model_imports.names:
        return members
    return [*members, ("import", model_import(model_imports) + "\n")]


PieceKind = Literal["module", "import", "member"]
_TYPING_INDENT = "    "
_CONTEXTS: dict[PieceKind, tuple[str, tuple[str, ...]]] = {
    "member": ("class _:\n", (f"{_TYPING_INDENT}async def ", f"{_TYPING_INDENT}def ")),
    "import": ("if TYPE_CHECKING:\n", (f"{_TYPING_INDENT}from ",)),
}
_DECORATOR = f"{_TYPING_INDENT}@"
"""A batch of members or imports is formatted inside the block it sits in, so line lengths count
its indentation, and split where each piece's first statement starts: only a member's decorator,
`def` or `async def` (and a decorator's closing bracket) and an import's `from` sit at that indentation
(bodies, docstrings and continuations sit deeper)."""


_DOCSTRING_END = f'{_TYPING_INDENT * 2}"""\n'


def _body_start(method: str) -> int:
    """Where a method's body starts: right after the line that closes its docstring. Every method's
    docstring ends with its closing quotes on a line of their own (black keeps them there), and no
    line before that is those quotes alone: the `docstring` filter escapes every quote in the text."""
    end = method.find("\n" + _DOCSTRING_END)
    assert end >= 0, "a client method ends its docstring with closing quotes on their own line"
    return end + 1 + len(_DOCSTRING_END)


_DOCSTRING_START = f'\n{_TYPING_INDENT * 2}"""'
_BLACK_REWRITES = re.compile(r"'|, ?[)\]]|\*\*|\d[eE][+-]?\d|\d[jJ]|\b0[xXoObB]|[^\x00-\x7f]")
"""Code black may respell even when every line fits: a single-quoted string (black may swap its quotes),
a trailing comma inside an annotation's brackets (black explodes them), a power operator (black hugs
it), a number in exponent, complex or prefixed form (black respells it), text past ASCII (black
counts display width, not characters)."""


def black_leaves_alone(method: str) -> bool:
    """Whether black would return this method as the template wrote it, told without running black
    (black of the methods and their sync twins took half as long as datamodel-code-generator per tool).

    The template writes black's layout (one item per line with a trailing comma, black's blank lines),
    the `docstring` filter writes text black keeps (every line stripped, every quote and backslash
    escaped, every unprintable as an escape, the closing quotes on their own line), annotations are
    `ast.unparse`d with black's quotes; so what is left for black is catalog text in the code: a line
    too long, or one of `_BLACK_REWRITES`. A method with any of them is formatted by black. A test
    holds this to black's own answer on every golden case and on generated hostile catalogs."""
    start = method.find(_DOCSTRING_START)
    if start < 0 or not method.startswith(_TYPING_INDENT) or not method.endswith("\n") or method.endswith("\n\n"):
        return False
    code = method[: start + 1] + method[_body_start(method) :]
    return all(len(line) <= LINE_LENGTH for line in code.splitlines()) and _BLACK_REWRITES.search(code) is None


def black_pieces(kind: PieceKind, sources: Sequence[str]) -> list[str]:
    """black each piece as it would be formatted alone: modules one by one, members and imports in one call.

    black formats statement by statement and puts exactly one blank line between a class's methods
    and none between imports, so a batch split at its statements gives each piece's own formatting
    (a test holds the two ways to the same bytes).
    """
    if not sources:
        return []
    if kind == "module":
        import black

        return [black.format_str(source, mode=black_mode()) for source in sources]
    return black_batch(kind, sources)


def formatted_without_black(kind: PieceKind, source: str) -> str | None:
    """A member or model import as black writes it, when that is known without black (and so needs no
    cache entry either); None for a piece black has to format."""
    if kind == "member":
        return source if black_leaves_alone(source) else None
    if kind == "import":
        return _formatted_import(source)
    return None


def _formatted_import(line: str) -> str | None:
    """A model import (`model_import`) as black writes it, or None to leave it to black: the line as it
    is when it fits, else its names one per line in parentheses with a trailing comma, the only way
    black splits an import. The names are identifiers; anything past ASCII goes to black (display width)."""
    if not (line.isascii() and line.endswith("\n") and line.count("\n") == 1):
        return None
    if len(line) <= LINE_LENGTH + 1:
        return line
    statement, separator, names = line.rstrip("\n").partition(" import ")
    if not separator or not all(name.isidentifier() for name in names.split(", ")):
        return None
    listed = "".join(f"{_TYPING_INDENT * 2}{name},\n" for name in names.split(", "))
    return f"{statement} import (\n{listed}{_TYPING_INDENT})\n"


def black_batch(kind: PieceKind, sources: Sequence[str]) -> list[str]:
    """black a batch of members or imports in one call, split back into pieces (what black alone makes
    of each)."""
    if not sources:
        return []
    import black

    context, start = _CONTEXTS[kind]
    text = black.format_str(context + "\n".join(sources), mode=black_mode())
    pieces: list[list[str]] = []
    decorators = False
    """Whether the piece being read holds only its decorators so far (a deprecated alias's)."""
    for line in text[len(context) :].splitlines(keepends=True):
        if line.startswith(_DECORATOR):
            if not decorators:
                pieces.append([])
            decorators = True
        elif line.startswith(start):
            if not decorators:
                pieces.append([])
            decorators = False
        pieces[-1].append(line)
    assert len(pieces) == len(sources), f"black merged or split {kind} pieces"
    return ["".join(piece).rstrip("\n") + "\n" for piece in pieces]


_KINDS: tuple[PieceKind, ...] = ("module", "import", "member")


def formatted(pieces: Sequence[tuple[PieceKind, str]], cache: Cache) -> list[str]:
    """black each (kind, source) piece: as it is when black would leave it so, else from the cache when
    an identical piece was formatted before, the rest in batches over the cores."""
    results = [formatted_without_black(kind, source) for kind, source in pieces]
    keys = {index: piece_key(*pieces[index]) for index, text in enumerate(results) if text is None}
    for index, key in keys.items():
        results[index] = cache.get(key)
    missing = [index for index in keys if results[index] is None]
    for index, text in zip(missing, map_batches(formatted_pieces, [pieces[index] for index in missing]), strict=True):
        results[index] = text
        cache.put(keys[index], text)
    return [result for result in results if result is not None]


def piece_key(kind: PieceKind, source: str) -> str:
    return cache_key("black", kind, source)


def formatted_pieces(pieces: Sequence[tuple[PieceKind, str]]) -> list[str]:
    """black each (kind, source) piece in this process, in order, with one black call per kind."""
    results = [""] * len(pieces)
    for kind in _KINDS:
        indexes = [index for index, (piece_kind, _) in enumerate(pieces) if piece_kind == kind]
        for index, text in zip(indexes, black_pieces(kind, [pieces[index][1] for index in indexes]), strict=True):
            results[index] = text
    return results


_MODEL_IMPORT = f"{_TYPING_INDENT}from ._models."


def _head_pieces(head: str) -> list[tuple[PieceKind, str]]:
    """The client's head as black pieces: the model imports (one per tool, the last lines of its
    `if TYPE_CHECKING:` block, after a blank line) each on their own, the text before and after them
    as modules, so one changed tool does not reformat a thousand imports. black formats statements one
    by one, and the blank lines around the model imports are the template's, so the joined pieces are
    what formatting the whole head gives (the golden packages hold it to that).

    The model imports are looked for only before `__all__`, which comes before any catalog text: a
    server's name and instructions, written into the class below, may hold any line at all."""
    lines = head.splitlines(keepends=True)
    end = next(index for index, line in enumerate(lines) if line.startswith("__all__ = "))
    first = next((index for index in range(end) if lines[index].startswith(_MODEL_IMPORT)), None)
    if first is None:
        return [("module", head)]
    last = first
    while lines[last].startswith(_MODEL_IMPORT):
        last += 1
    assert lines[first - 1] == lines[last] == "\n", "blank lines surround the model imports"
    return [
        ("module", "".join(lines[: first - 1])),
        *(("import", line) for line in lines[first:last]),
        ("module", "".join(lines[last + 1 :])),
    ]


def _by_method(entry: ResourceSpec | TemplateSpec | PromptSpec) -> str:
    return entry.method


def model_module_file(module: ModelModule) -> bytes:
    """A tool's models module: datamodel-code-generator's output under the tool's own header."""
    first, _, body = module.source.partition("\n")
    assert first == HEADER_PLACEHOLDER, "datamodel-code-generator did not start with the header placeholder"
    title = f"tool {quoted(module.tool)} (fingerprint {module.tool_fingerprint})"
    contract = f'\n\n{CONTRACT_NAME} = {literal(module.contract)}\n"""{CONTRACT_DOC}"""\n'
    return with_header(header_lines(title), body.rstrip("\n") + "\n" + contract)


def _stand_in(index: int) -> str:
    """What the client's head holds before black in place of a fingerprint (all are 16 hex digits):
    as long, and told apart by its number."""
    return f"~{index:015d}"


def _with_stand_in_fingerprints(package: PackageSpec) -> PackageSpec | None:
    """The package with each fingerprint the client's head writes (the snapshot's, then the tools')
    replaced by a stand-in, so that the head's formatting depends on the catalog's names, not on its
    contents, and a changed tool finds it in the cache (black of a 1,000-tool head took half a
    second); None when a fingerprint is not 16 characters long (the head is then formatted as it is)."""
    fingerprints = [package.snapshot_fingerprint, *(tool.fingerprint for tool in package.tools)]
    if any(len(fingerprint) != len(_stand_in(0)) for fingerprint in fingerprints):
        return None
    tools = tuple(
        dataclasses.replace(tool, fingerprint=_stand_in(index + 1)) for index, tool in enumerate(package.tools)
    )
    return dataclasses.replace(package, snapshot_fingerprint=_stand_in(0), tools=tools)


_STAND_IN = re.compile(r"~\d{15}")


def _real_fingerprints(package: PackageSpec, head: list[str]) -> list[str] | None:
    """The formatted head with the real fingerprints in place of the stand-ins; None when the head
    holds any stand-in other than once (catalog text that looks like one)."""
    values = [package.snapshot_fingerprint, *(tool.fingerprint for tool in package.tools)]
    found = [match for piece in head for match in _STAND_IN.findall(piece)]
    if sorted(found) != [_stand_in(index) for index in range(len(values))]:
        return None
    return [_STAND_IN.sub(lambda match: values[int(match[0][1:])], piece) for piece in head]


def members_key(tool: ToolSpec) -> str:
    """Where a tool's formatted client methods are cached: by everything its method is written from
    (the spec's `repr`: its fields are text, flags and tuples, so it is exact, and ten times faster
    than `asdict` and JSON)."""
    return cache_key("members", repr(tool))


def members_entry(tool: ToolSpec, texts: Sequence[str]) -> str:
    """The cache entry of a tool's formatted methods (`texts`: as `tool_pieces` lists them, async then sync)."""
    count = 2 if tool.start_method else 1
    return json.dumps([list(texts[:count]), list(texts[count : 2 * count])], ensure_ascii=False)


def _cached_members(tool: ToolSpec, cache: Cache) -> tuple[list[str], list[str]] | None:
    """A tool's formatted methods, async and sync, from the cache: rendering a thousand tools' methods
    again took as long as formatting the changed one."""
    text = cache.get(members_key(tool))
    if text is None:
        return None
    async_methods, sync_methods = json.loads(text)
    return async_methods, sync_methods


def render_package(package: PackageSpec, cache: Cache | None = None) -> dict[str, bytes]:
    """Every file of the package, by path relative to the package folder (the runtime it imports is the
    output folder's, `runtime_folder`)."""
    cache = cache or Cache.disabled()
    templates = jinja_environment()
    helpers = _helpers()

    tools = sorted(package.tools, key=lambda tool: tool.method)
    ready = {tool.method: _cached_members(tool, cache) for tool in tools}

    def members(sync: bool) -> list[str | tuple[PieceKind, str]]:
        """The class's methods: a tool's formatted ones when the cache has them, else pieces to format."""
        slots: list[str | tuple[PieceKind, str]] = []
        for tool in tools:
            known = ready[tool.method]
            slots += (
                known[1 if sync else 0]
                if known is not None
                else [("member", text) for text in tool_members(tool, sync)]
            )
        slots += [
            ("member", str(member))
            for member in [
                *(helpers.resource_method(entry, sync) for entry in sorted(package.resources, key=_by_method)),
                *(helpers.template_method(entry, sync) for entry in sorted(package.templates, key=_by_method)),
                *(helpers.prompt_method(entry, sync) for entry in sorted(package.prompts, key=_by_method)),
                *(helpers.alias_method(alias, sync) for alias in package.aliases),
            ]
        ]
        return slots

    stand_in = _with_stand_in_fingerprints(package)
    head = _head_pieces(templates.get_template("client.py.jinja").render(package=stand_in or package))
    async_members = members(False)
    sync_twin: list[str | tuple[PieceKind, str]] = (
        [("module", str(helpers.sync_class(package))), *members(True)] if package.sync_client else []
    )
    slots = [*head, *async_members, *sync_twin]
    texts = iter(formatted([slot for slot in slots if not isinstance(slot, str)], cache))
    pieces = [slot if isinstance(slot, str) else next(texts) for slot in slots]
    if stand_in is not None:
        real = _real_fingerprints(package, pieces[: len(head)])
        if real is None:  # catalog text holds the stand-in itself: format the head as it is
            head = _head_pieces(templates.get_template("client.py.jinja").render(package=package))
            real = formatted(head, cache)
        pieces[: len(head)] = real
    head_text = pieces[: len(head)]
    async_methods = pieces[len(head) : len(head) + len(async_members)]
    sync_twin_text = pieces[len(head) + len(async_members) :]
    if len(head) > 1:  # the blank lines before the model imports and after the `if TYPE_CHECKING:` block
        head_text[0] += "\n"
        head_text[-1] = "\n" + head_text[-1]
    client = "".join(
        [
            *head_text,
            *("\n" + method for method in async_methods),
            *("\n\n" + text if index == 0 else "\n" + text for index, text in enumerate(sync_twin_text)),
        ]
    )

    def package_file(template: str) -> bytes:
        return with_header(package.header, templates.get_template(template).render(package=package))

    output = {
        "__init__.py": package_file("__init__.py.jinja"),
        "client.py": with_header(package.header, client),
        "models.py": package_file("models.py.jinja"),
        "_models/__init__.py": package_file("models_package.py.jinja"),
        "py.typed": b"",
    }
    for module in package.model_modules:
        output[f"_models/{module.module}.py"] = model_module_file(module)
    return dict(sorted(output.items()))
