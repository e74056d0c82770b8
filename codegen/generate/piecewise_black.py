"""black on the client piece by piece: its head, then each method in its class's context, each piece
cached by content, so one changed tool reformats one method.

Pieces of a kind are formatted in batches, one black call per batch, spread over the cores. The
templates write methods in black's own layout, so a method black would leave alone
(`black_leaves_alone`) skips it: the bytes are black's either way, at a fraction of the cost. black is
imported only when a piece is not cached.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Sequence
from typing import Literal

from codegen.generate.cache import Cache, cache_key
from codegen.generate.formatting import LINE_LENGTH, black_mode
from codegen.generate.parallel import map_batches
from codegen.generate.spec import ToolSpec

__all__ = [
    "INDENT",
    "PieceKind",
    "black_batch",
    "black_leaves_alone",
    "black_pieces",
    "cached_members",
    "formatted",
    "formatted_without_black",
    "head_pieces",
    "laid_out_keyword",
    "members_entry",
    "members_key",
]


PieceKind = Literal["module", "stub", "import", "member"]
INDENT = "    "
_CONTEXTS: dict[PieceKind, tuple[str, tuple[str, ...]]] = {
    "member": ("class _:\n", (f"{INDENT}async def ", f"{INDENT}def ")),
    "import": ("if TYPE_CHECKING:\n", (f"{INDENT}from ",)),
}
_DECORATOR = f"{INDENT}@"
"""A batch of members or imports is formatted inside the block it sits in, so line lengths count
its indentation, and split where each piece's first statement starts: only a member's decorator,
`def` or `async def` (and a decorator's closing bracket) and an import's `from` sit at that indentation
(bodies, docstrings and continuations sit deeper)."""


_DOCSTRING_END = f'{INDENT * 2}"""\n'


def _body_start(method: str) -> int:
    """Where a method's body starts: right after the line that closes its docstring. Every method's
    docstring ends with its closing quotes on a line of their own (black keeps them there), and no
    line before that is those quotes alone: the `docstring` filter escapes every quote in the text."""
    end = method.find("\n" + _DOCSTRING_END)
    assert end >= 0, "a client method ends its docstring with closing quotes on their own line"
    return end + 1 + len(_DOCSTRING_END)


_DOCSTRING_START = f'\n{INDENT * 2}"""'
_BLACK_REWRITES = re.compile(r"'|, ?[)\]]|\*\*|[0-9](?:[eE][+-]?[0-9]|[jJ])|0[xXoObB](?<=\b0[xXoObB])")
"""Code black may respell even when every line fits: a single-quoted string (black may swap its quotes),
a trailing comma inside an annotation's brackets (black explodes them), a power operator (black hugs
it), a number in exponent, complex or prefixed form (black respells it); and text past ASCII (black
counts display width, not characters), which is told apart first. Every branch starts with a
character, not `\b`, so the search skips ahead to candidates: four times faster on a method."""


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
    if start < 0 or not method.startswith(INDENT) or not method.endswith("\n") or method.endswith("\n\n"):
        return False
    code = method[: start + 1] + method[_body_start(method) :]
    return (
        code.isascii()
        and all(len(line) <= LINE_LENGTH for line in code.splitlines())
        and _BLACK_REWRITES.search(code) is None
    )


def laid_out_keyword(name: str, annotation: str, depth: int, union: str = "", default: str = "") -> str:
    """A keyword parameter `name: annotation[ | union][ = default],` of a signature at `depth` indents,
    as black lays it out: on one line, or, for a `Literal` of strings too long to fit inside its
    brackets on one line (a 500-value enum), one value per line, the union in parentheses. black
    took most of a wide enum's generate laying out each such `Literal` (in the method, its sync twin
    and code mode's two stubs); written so, the piece is one black leaves alone, and the same bytes."""
    tail = f" = {default}" if default else ""
    values = _literal_strings(annotation)
    inner = depth + (2 if union else 1)
    if len(values) < 2 or len(INDENT * inner + ", ".join(values)) <= LINE_LENGTH:
        return f"{name}: {annotation}{f' | {union}' if union else ''}{tail},"
    listed = "".join(f"{INDENT * inner}{value},\n" for value in values)
    literal = f"Literal[\n{listed}{INDENT * (inner - 1)}]"
    if not union:
        return f"{name}: {literal}{tail},"
    return f"{name}: (\n{INDENT * (depth + 1)}{literal}\n{INDENT * (depth + 1)}| {union}\n{INDENT * depth}){tail},"


def _literal_strings(annotation: str) -> list[str]:
    """The values of an annotation that is one `Literal` of ASCII strings, as written in it; else none
    (anything else, and text whose display width black would count otherwise, is left to black)."""
    if not (annotation.startswith("Literal[") and annotation.isascii()):
        return []
    node = ast.parse(annotation, mode="eval").body
    items = node.slice.elts if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) else []
    if not all(isinstance(item, ast.Constant) and isinstance(item.value, str) for item in items):
        return []
    return [annotation[item.col_offset : item.end_col_offset] for item in items]


def black_pieces(kind: PieceKind, sources: Sequence[str]) -> list[str]:
    """black each piece as it would be formatted alone: modules one by one, members and imports in one call.

    black formats statement by statement and puts exactly one blank line between a class's methods
    and none between imports, so a batch split at its statements gives each piece's own formatting
    (a test holds the two ways to the same bytes).
    """
    if not sources:
        return []
    if kind in ("module", "stub"):
        import black

        return [black.format_str(source, mode=black_mode(stub=kind == "stub")) for source in sources]
    return black_batch(kind, sources)


def formatted_without_black(kind: PieceKind, source: str) -> str | None:
    """A member or model import as black writes it, when that is known without black (and so needs no
    cache entry either); None for a piece black has to format."""
    if kind == "member":
        return source if black_leaves_alone(source) else None
    if kind == "import":
        return _formatted_import(source)
    if kind == "stub":
        return source if _stub_left_alone(source) else None
    return None


def _stub_left_alone(stub: str) -> bool:
    """Whether black would return a code-mode stub as the generator wrote it: its code (every line but
    its docstrings' and its comments', which black does not wrap: the header names the fingerprint in a
    line of 107 characters) fits, is ASCII and holds none of `_BLACK_REWRITES`. The
    generator writes the rest of a stub's layout as black does; a test holds this to black's answer on
    real catalogs' stubs."""
    try:
        tree = ast.parse(stub)
    except SyntaxError:
        return False
    documented: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            documented.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    code = "\n".join(
        line
        for number, line in enumerate(stub.splitlines(), 1)
        if number not in documented and not (line.startswith("# ") and line == line.rstrip())
    )
    return (
        code.isascii()
        and all(len(line) <= LINE_LENGTH for line in code.splitlines())
        and _BLACK_REWRITES.search(code) is None
    )


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
    listed = "".join(f"{INDENT * 2}{name},\n" for name in names.split(", "))
    return f"{statement} import (\n{listed}{INDENT})\n"


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


_KINDS: tuple[PieceKind, ...] = ("module", "stub", "import", "member")


def formatted(pieces: Sequence[tuple[PieceKind, str]], cache: Cache) -> list[str]:
    """black each (kind, source) piece: as it is when black would leave it so, else from the cache when
    an identical piece was formatted before, the rest in batches over the cores."""
    results = [formatted_without_black(kind, source) for kind, source in pieces]
    keys = {index: piece_key(*pieces[index]) for index, text in enumerate(results) if text is None}
    for index, key in keys.items():
        results[index] = cache.get(key)
    missing = [index for index in keys if results[index] is None]
    made = map_batches(formatted_pieces, [pieces[index] for index in missing], _load_black)
    for index, text in zip(missing, made, strict=True):
        results[index] = text
        cache.put(keys[index], text)
    return [result for result in results if result is not None]


def _load_black() -> None:
    """Import black here, once, rather than in every worker forked to format pieces."""
    import black  # noqa: F401


def piece_key(kind: PieceKind, source: str) -> str:
    return cache_key("black", kind, source)


@functools.lru_cache(maxsize=1 << 14)
def members_key(tool: ToolSpec) -> str:
    """Where a tool's formatted client methods are cached: by everything its method is written from
    (the spec's `repr`: its fields are text, flags and tuples, so it is exact, and ten times faster
    than `asdict` and JSON). Kept per spec: the build holds each tool's methods under it and the
    renderer looks them up, and a spec's hash is a twentieth of its `repr`."""
    return cache_key("members", repr(tool))


def members_entry(tool: ToolSpec, texts: Sequence[str]) -> str:
    """The cache entry of a tool's formatted methods (`texts`: its method and task method, then their sync twins)."""
    count = 2 if tool.start_method else 1
    return json.dumps([list(texts[:count]), list(texts[count : 2 * count])], ensure_ascii=False)


def cached_members(tool: ToolSpec, cache: Cache) -> tuple[list[str], list[str]] | None:
    """A tool's formatted methods, async and sync, from the cache: rendering a thousand tools' methods
    again took as long as formatting the changed one."""
    text = cache.get(members_key(tool))
    if text is None:
        return None
    async_methods, sync_methods = json.loads(text)
    return async_methods, sync_methods


def formatted_pieces(pieces: Sequence[tuple[PieceKind, str]]) -> list[str]:
    """black each (kind, source) piece in this process, in order, with one black call per kind."""
    results = [""] * len(pieces)
    for kind in _KINDS:
        indexes = [index for index, (piece_kind, _) in enumerate(pieces) if piece_kind == kind]
        for index, text in zip(indexes, black_pieces(kind, [pieces[index][1] for index in indexes]), strict=True):
            results[index] = text
    return results


_MODEL_IMPORT = f"{INDENT}from ._models."


def head_pieces(head: str) -> list[tuple[PieceKind, str]]:
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
