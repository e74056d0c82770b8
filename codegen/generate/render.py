"""Intermediate model -> a package's files: the client from its templates, formatted piecewise
(`piecewise_black`), the facades, and each tool's models module under its header.

The facades (`__init__.py`, `models.py`) are written in the exploded one-item-per-line form black
itself leaves alone, and a test holds every generated file to being a black fixed point.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

from codegen.generate.cache import Cache
from codegen.generate.escaping import literal, quoted
from codegen.generate.formatting import LINE_LENGTH, black_mode
from codegen.generate.headers import header_lines, with_header
from codegen.generate.modelgen import HEADER_PLACEHOLDER
from codegen.generate.piecewise_black import (
    PieceKind,
    cached_members,
    formatted,
    head_pieces,
)
from codegen.generate.spec import (
    CompletionSpec,
    ModelModule,
    PackageSpec,
    PromptSpec,
    ResourceSpec,
    TemplateSpec,
    ToolSpec,
)
from codegen.generate.templating import jinja_environment, method_macros

__all__ = [
    "CONTRACT_DOC",
    "CONTRACT_NAME",
    "Chunk",
    "ChunkKind",
    "model_module_file",
    "render_package",
    "render_package_in_chunks",
]


CONTRACT_NAME = "_CONTRACT"
"""The name each tool's models module gives its contract; the client's methods pass it to the runtime."""
CONTRACT_DOC = "The tool's schemas from the snapshot: what the runtime checks arguments and results against."


def _by_method(entry: ResourceSpec | TemplateSpec | PromptSpec) -> str:
    return entry.method


def _completion_members(completion: CompletionSpec, sync: bool) -> list[object]:
    """A completion method's pieces: an overload per entry where it has several, then the method."""
    helpers = method_macros()
    overloads = [helpers.completion_overload(completion, entry, sync) for entry in completion.entries]
    return [*(overloads if len(overloads) > 1 else []), helpers.completion_method(completion, sync)]


def model_module_file(module: ModelModule) -> bytes:
    """A tool's models module: datamodel-code-generator's output under the tool's own header."""
    first, _, body = module.source.partition("\n")
    assert first == HEADER_PLACEHOLDER, "datamodel-code-generator did not start with the header placeholder"
    title = f"tool {quoted(module.tool)} (fingerprint {module.tool_fingerprint})"
    contract = f'\n\n{_assignment(CONTRACT_NAME, literal(module.contract))}\n"""{CONTRACT_DOC}"""\n'
    return with_header(header_lines(title), body.rstrip("\n") + "\n" + contract)


def _assignment(name: str, value: str) -> str:
    """`name = value` as black writes it: a value too long for the line but not for a line of its own
    is wrapped in parentheses (a contract of 89 to 96 characters, as arxiv-mcp-server's `list_watches`
    has); a longer one stays on the line, which black cannot shorten. black counts a wide character
    twice, so a short line that is not ASCII is left to black itself (rare, and only then loaded)."""
    line = f"{name} = {value}"
    if len(value) + 4 > LINE_LENGTH or (line.isascii() and len(line) <= LINE_LENGTH):
        return line
    if not line.isascii():
        import black

        return black.format_str(line, mode=black_mode()).rstrip("\n")
    return f"{name} = (\n    {value}\n)"


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


ChunkKind = Literal["text", "snapshot", "fingerprint", "methods", "sync methods"]


class Chunk(NamedTuple):
    """A stretch of client.py's text after its header: fixed `text`, the `snapshot`'s or a tool's
    `fingerprint`, or a tool's `methods` or `sync methods` (`wire` names the tool). A package redone
    for a few changed tools replaces only theirs (`last_render`)."""

    kind: ChunkKind
    wire: str
    text: str


def _head_chunks(package: PackageSpec, head: list[str]) -> list[Chunk] | None:
    """The formatted head, written with stand-ins for the fingerprints, as chunks holding the real
    ones; None when the head holds any stand-in other than once (catalog text that looks like one)."""
    values = [Chunk("snapshot", "", package.snapshot_fingerprint)]
    values += [Chunk("fingerprint", tool.wire, tool.fingerprint) for tool in package.tools]
    found = [match for piece in head for match in _STAND_IN.findall(piece)]
    if sorted(found) != [_stand_in(index) for index in range(len(values))]:
        return None
    chunks: list[Chunk] = []
    for piece in head:
        position = 0
        for match in _STAND_IN.finditer(piece):
            chunks += [Chunk("text", "", piece[position : match.start()]), values[int(match[0][1:])]]
            position = match.end()
        chunks.append(Chunk("text", "", piece[position:]))
    return chunks


_FINGERPRINTS = "    tool_fingerprints: ClassVar[Mapping[str, str]] = {\n"
_PLAIN_ENTRY = re.compile(r'        "[^"\'\\]*": "~\d{15}",\n')
"""An entry of the head's `tool_fingerprints` (its fingerprint a stand-in) as black writes it: both
strings in double quotes with no quote or backslash inside, on a line that fits (`_fits_plainly`)."""


def _fits_plainly(entry: str) -> bool:
    return entry.isascii() and len(entry) <= LINE_LENGTH + 1 and _PLAIN_ENTRY.fullmatch(entry) is not None


def _without_fingerprint_entries(piece: str) -> tuple[str, str, str] | None:
    """The head piece holding `tool_fingerprints` with the dict cut down to its first entry, and what
    goes back after formatting (`_with_fingerprint_entries`): that entry's line, then the other
    entries' lines. black formats each entry of a dict that ends in a comma on its own line, apart
    from the others, and leaves one that fits plainly as it is, so the rest need not go through black
    (a thousand took it a tenth of a second). None when an entry does not fit plainly (a name black
    would respell, or too long), or the dict's opening line is not there once: the piece is then
    formatted whole."""
    start = piece.find(_FINGERPRINTS)
    if start < 0 or piece.find(_FINGERPRINTS, start + 1) >= 0:
        return None
    first = start + len(_FINGERPRINTS)
    end = piece.find("    }\n", first)
    entries = piece[first:end].splitlines(keepends=True) if end >= 0 else []
    if len(entries) < 2 or not all(_fits_plainly(entry) for entry in entries):
        return None
    return piece[:first] + entries[0] + piece[end:], _FINGERPRINTS + entries[0], "".join(entries[1:])


def _with_fingerprint_entries(formatted: str, first: str, rest: str) -> str | None:
    """A piece `_without_fingerprint_entries` cut, formatted, with the other entries back after the
    first; None when black did not leave the dict's first lines as they were."""
    if formatted.count(first) != 1:
        return None
    return formatted.replace(first, first + rest)


def render_package(package: PackageSpec, cache: Cache) -> dict[str, bytes]:
    """Every file of the package, by path relative to the package folder (the runtime it imports is the
    output folder's, `runtime_folder`), its tools' formatted methods taken from `cache`, which the
    build that made them holds them in."""
    return render_package_in_chunks(package, cache)[0]


def render_package_in_chunks(package: PackageSpec, cache: Cache) -> tuple[dict[str, bytes], list[Chunk] | None]:
    """`render_package`, and client.py's text after its header as `Chunk`s (None when its head could
    not be written with stand-in fingerprints, which then go through black as they are)."""
    templates = jinja_environment()
    helpers = method_macros()

    tools = sorted(package.tools, key=lambda tool: tool.method)
    ready = {tool.method: cached_members(tool, cache) for tool in tools}

    def methods(tool: ToolSpec, sync: bool) -> list[str]:
        """A tool's methods as the workers formatted them."""
        known = ready[tool.method]
        assert known is not None, "build_package holds every tool's formatted methods in the cache it is given"
        return known[1 if sync else 0]

    def other_members(sync: bool) -> list[tuple[PieceKind, str]]:
        return [
            ("member", str(member))
            for member in [
                *(helpers.resource_method(entry, sync) for entry in sorted(package.resources, key=_by_method)),
                *(helpers.template_method(entry, sync) for entry in sorted(package.templates, key=_by_method)),
                *(helpers.prompt_method(entry, sync) for entry in sorted(package.prompts, key=_by_method)),
                *(member for completion in package.completions for member in _completion_members(completion, sync)),
                *(helpers.alias_method(alias, sync) for alias in package.aliases),
            ]
        ]

    stand_in = _with_stand_in_fingerprints(package)
    head = head_pieces(templates.get_template("client.py.jinja").render(package=stand_in or package))
    whole = head[-1][1]  # the head's last piece holds `tool_fingerprints`
    cut = _without_fingerprint_entries(whole) if stand_in is not None else None
    if cut is not None:
        head[-1] = ("module", cut[0])
    async_others = other_members(False)
    sync_pieces: list[tuple[PieceKind, str]] = (
        [("module", str(helpers.sync_class(package))), *other_members(True)] if package.sync_client else []
    )
    texts = formatted([*head, *async_others, *sync_pieces], cache)
    head_text = texts[: len(head)]
    async_other_text = texts[len(head) : len(head) + len(async_others)]
    sync_text = texts[len(head) + len(async_others) :]
    if cut is not None:
        last = _with_fingerprint_entries(head_text[-1], *cut[1:])
        head_text[-1] = last if last is not None else formatted([("module", whole)], cache)[0]
    chunks = _head_chunks(package, _with_blank_lines(head_text)) if stand_in is not None else None
    if chunks is None:
        if stand_in is not None:  # catalog text holds the stand-in itself: format the head as it is
            head_text = formatted(head_pieces(templates.get_template("client.py.jinja").render(package=package)), cache)
        chunks = [Chunk("text", "", "".join(_with_blank_lines(head_text)))]
        laid_out = False
    else:
        laid_out = True
    chunks += [Chunk("methods", tool.wire, methods_text(methods(tool, False))) for tool in tools]
    chunks.append(Chunk("text", "", "".join("\n" + text for text in async_other_text)))
    if sync_text:
        chunks.append(Chunk("text", "", "\n\n" + sync_text[0]))
        chunks += [Chunk("sync methods", tool.wire, methods_text(methods(tool, True))) for tool in tools]
        chunks.append(Chunk("text", "", "".join("\n" + text for text in sync_text[1:])))
    client = "".join(chunk.text for chunk in chunks)

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
    return dict(sorted(output.items())), chunks if laid_out else None


def methods_text(methods: Sequence[str]) -> str:
    """A tool's formatted methods (or their sync twins) as client.py holds them: each after a blank line."""
    return "".join("\n" + text for text in methods)


def _with_blank_lines(head: list[str]) -> list[str]:
    """The head's pieces with the blank lines black keeps before the model imports and after the
    `if TYPE_CHECKING:` block."""
    if len(head) < 2:
        return head
    return [head[0] + "\n", *head[1:-1], "\n" + head[-1]]
