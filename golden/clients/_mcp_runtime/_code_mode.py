"""Code mode's run time: the functions behind the generated `code_mode` package's stubs, bound to a hub.

This file is copied verbatim into `_mcp_runtime/` beside a hub, so it imports only the standard
library and its siblings. Do not edit the copy: run `mcp-stubgen generate` to refresh it.

The contract the sandbox (`run_code`) and the in-process target share, one stub for both:

- Sandboxed code and in-process code call a tool the same way, module style and awaited:
  `import weather` (in-process: `from <output>.code_mode import weather`), then
  `await weather.get_forecast(city="Oslo")`. Every parameter is keyword-only and has its Python
  name; the function sends it under the tool's wire name.
- `stubs()`: server module name -> the `.pyi` source of that module (`<module>.pyi` in the
  package): what a type checker checks model code against (pydantic-monty's
  `ExternalModule(attrs, stubs=...)`), and what a reader of the package sees.
- `functions(hub)`: `"<module>.<function>"` -> an async callable bound to `hub.call`; group them
  by the part before the dot to build each module (`ExternalModule({function: callable}, ...)`).
- `hints()`: the same names -> `ToolHints` (`read_only`, `destructive`, `open_world`, as the MCP
  spec reads a tool's annotations, defaults included, and the hub's `qualified_name`), for an
  approval hook that runs before a call to a destructive or open-world tool.

A call checks its keywords (an unknown one is a `TypeError`, nothing sent), then `hub.call` checks
the arguments against the tool's JSON Schema (`ArgumentsError`, nothing sent, nothing coerced).
It returns the tool's `structuredContent` (the typed dict of the stub), the wrapped value for a
tool whose server wraps a plain value as `{"result": ...}`, or the result's text for a tool with no
output schema; a result marked `isError` raises `ToolCallError` (a `RuntimeError`) with the server's text
(control characters escaped).
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import functools
import json
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ._runtime import error_message

if TYPE_CHECKING:
    from mcp.types import CallToolResult

    from ._hub_catalog import HubTool

__all__ = [
    "CodeMode",
    "CodeModeTool",
    "NoHubError",
    "SearchDetail",
    "ToolCallError",
    "ToolHints",
    "merge_stubs",
]

ResultKind = Literal["structured", "value", "text"]
"""`structured`: the `structuredContent` object; `value`: its `result` key (a plain value the server
wrapped); `text`: the text of the result's content (no output schema)."""

SearchDetail = Literal["names", "summaries", "stubs"]
SEARCH_DETAILS: tuple[SearchDetail, ...] = ("names", "summaries", "stubs")


class ToolCallError(RuntimeError):
    """The tool ran and reported an error (`isError`): its text is the message, on its own lines behind
    a gutter, control characters escaped (`error_message`: the host may print or log it, as
    `CallRecord.detail` too); `text` keeps it as sent.
    A `RuntimeError`, as the sandbox reports it, so `except RuntimeError` works the same in both targets."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        super().__init__(
            error_message(f"{name}: the tool reported an error: {text}", keep_lines=True)
        )


class NoHubError(RuntimeError):
    """A code-mode function was called with no hub bound (`use_hub`)."""


@dataclass(frozen=True)
class ToolHints:
    """What an approval hook needs to know of a tool, the MCP spec's defaults applied: a tool that
    does not say is not read-only, destructive unless read-only, and open-world."""

    qualified_name: str
    """The hub's name for the tool (`weather__get_forecast`), which `hub.call` takes."""
    read_only: bool
    destructive: bool
    open_world: bool

    def words(self) -> str:
        """The hints as a stub's docstring and the index write them: `read-only, closed-world`."""
        effect = (
            "read-only"
            if self.read_only
            else "destructive"
            if self.destructive
            else "not destructive"
        )
        return f"{effect}, {'open-world' if self.open_world else 'closed-world'}"


@dataclass(frozen=True)
class CodeModeTool:
    """One function of the code-mode surface, as `tools.json` records it."""

    name: str
    """How code calls it: `<module>.<function>`."""
    module: str
    function: str
    server: str
    tool: str
    """The tool's own name on its server."""
    parameters: Mapping[str, str] | None
    """Python keyword -> wire name; None when the function takes the whole arguments object as `arguments`."""
    result: ResultKind
    summary: str
    hints: ToolHints

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> CodeModeTool:
        hints = entry["hints"]
        return cls(
            name=f"{entry['module']}.{entry['function']}",
            module=entry["module"],
            function=entry["function"],
            server=entry["server"],
            tool=entry["tool"],
            parameters=entry["parameters"],
            result=entry["result"],
            summary=entry["summary"],
            hints=ToolHints(
                entry["qualified_name"],
                hints["read_only"],
                hints["destructive"],
                hints["open_world"],
            ),
        )


class _Hub(Protocol):
    """What code mode needs of a connected hub (the generated `Hub`)."""

    async def call(
        self, qualified_name: str, arguments: Mapping[str, Any] | None = None
    ) -> CallToolResult: ...


class _Shortlist(Protocol):
    def shortlist(self, query: str, limit: int = 10) -> list[HubTool]: ...


_CURRENT_HUB: contextvars.ContextVar[_Hub | None] = contextvars.ContextVar(
    "code_mode_hub", default=None
)


class CodeMode:
    """The code-mode surface of one output folder: its tools (`tools.json`) and stubs, read from the
    generated `code_mode` package's folder when first needed."""

    def __init__(self, folder: Path, hub_class: Callable[[], _Shortlist]) -> None:
        self.folder = folder
        self._hub_class = hub_class

    @functools.cached_property
    def tools(self) -> dict[str, CodeModeTool]:
        entries = json.loads((self.folder / "tools.json").read_text(encoding="utf-8"))
        return {tool.name: tool for tool in map(CodeModeTool.from_json, entries)}

    @functools.cached_property
    def _by_qualified_name(self) -> dict[str, CodeModeTool]:
        return {tool.hints.qualified_name: tool for tool in self.tools.values()}

    def stubs(self) -> dict[str, str]:
        """Server module name -> its stub's source, sorted by module."""
        modules = sorted({tool.module for tool in self.tools.values()})
        return {
            module: (self.folder / f"{module}.pyi").read_text(encoding="utf-8")
            for module in modules
        }

    def tool_stub(self, tool: CodeModeTool) -> str:
        """One function's stub with the types it uses: `servers/<module>/<function>.pyi` (its
        `file_stem`)."""
        from ._hub_catalog import file_stem

        return (
            self.folder / "servers" / tool.module / f"{file_stem(tool.function)}.pyi"
        ).read_text(encoding="utf-8")

    def hints(self) -> dict[str, ToolHints]:
        return {name: tool.hints for name, tool in self.tools.items()}

    def functions(self, hub: _Hub) -> dict[str, Callable[..., Awaitable[Any]]]:
        """Every function bound to `hub`, by the name code calls it with."""
        return {name: self._bound(tool, lambda: hub) for name, tool in self.tools.items()}

    def function(self, module: str, function: str) -> Callable[..., Awaitable[Any]]:
        """A module's function as `from <output>.code_mode import <module>` gives it: bound to the hub
        `use_hub` binds where it is called."""
        return self._bound(self.tools[f"{module}.{function}"], _current_hub)

    def _bound(self, tool: CodeModeTool, hub: Callable[[], _Hub]) -> Callable[..., Awaitable[Any]]:
        async def call(**arguments: Any) -> Any:
            return await _call(hub(), tool, arguments)

        call.__name__ = call.__qualname__ = tool.function
        call.__module__ = tool.module
        return call

    def search_tools(
        self,
        query: str,
        detail: SearchDetail = "stubs",
        limit: int = 5,
        hub: _Shortlist | None = None,
    ) -> str:
        """The functions most relevant to a task in plain words, best first, grouped by server module:
        their stubs, their index lines (`summaries`) or their names. The hub's shortlist ranks them:
        a connected `hub`'s live catalog, else the snapshots'."""
        if detail not in SEARCH_DETAILS:
            raise ValueError(f"detail must be one of {', '.join(SEARCH_DETAILS)}, not {detail!r}")
        ranked = (hub or self._hub_class()).shortlist(query, limit)
        found = [
            self._by_qualified_name[tool.qualified_name]
            for tool in ranked
            if tool.qualified_name in self._by_qualified_name
        ]
        if not found:
            return f"# no tool matches {query!r}\n"
        groups: dict[str, list[CodeModeTool]] = {}
        for tool in found:
            groups.setdefault(tool.module, []).append(tool)
        if detail == "names":
            return "".join(f"{tool.name}\n" for tools in groups.values() for tool in tools)
        if detail == "summaries":
            return "".join(index_line(tool) + "\n" for tools in groups.values() for tool in tools)
        parts = [
            f"# module {module}: import {module}\n"
            + merge_stubs([self.tool_stub(tool) for tool in tools])
            for module, tools in groups.items()
        ]
        return "\n\n".join(parts)

    def describe(self, name: str) -> str:
        """One function's stub: by `<module>.<function>` or the hub's qualified name; a `LookupError`
        with the closest names for any other."""
        tool = self.tools.get(name) or self._by_qualified_name.get(name)
        if tool is None:
            close = difflib.get_close_matches(name, sorted(self.tools), n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise LookupError(
                f"code mode has no function {name!r}{hint} (see index.md for all {len(self.tools)})"
            )
        return f"# module {tool.module}: import {tool.module}\n" + self.tool_stub(tool)


def index_line(tool: CodeModeTool) -> str:
    """A tool's line in `index.md` and in a `summaries` search: name, summary, hints."""
    summary = f" - {tool.summary}" if tool.summary else ""
    return f"- `{tool.name}`{summary} ({tool.hints.words()})"


@contextlib.contextmanager
def use_hub(hub: _Hub) -> Iterator[None]:
    """Within the block (in this task and the tasks it starts), the code-mode modules call `hub`."""
    token = _CURRENT_HUB.set(hub)
    try:
        yield
    finally:
        _CURRENT_HUB.reset(token)


def _current_hub() -> _Hub:
    hub = _CURRENT_HUB.get()
    if hub is None:
        raise NoHubError(
            "no hub is bound to code mode: call the functions inside `with use_hub(hub):` "
            "(from the code_mode package), with a hub from `Hub.connect(...)`"
        )
    return hub


async def _call(hub: _Hub, tool: CodeModeTool, arguments: Mapping[str, Any]) -> Any:
    if tool.parameters is None:
        unknown = sorted(set(arguments) - {"arguments"})
        payload = arguments.get("arguments", {})
    else:
        unknown = sorted(set(arguments) - set(tool.parameters))
        payload = {
            tool.parameters[name]: value
            for name, value in arguments.items()
            if name in tool.parameters
        }
    if unknown:
        known = ", ".join(tool.parameters or ("arguments",)) or "no arguments"
        raise TypeError(
            f"{tool.name}() got an unexpected keyword argument {unknown[0]!r}; it takes {known}"
        )
    result = await hub.call(tool.hints.qualified_name, payload)
    if result.is_error:
        raise ToolCallError(tool.name, _text(result))
    if tool.result == "text":
        return _text(result)
    structured = result.structured_content
    if not isinstance(structured, dict):
        raise ToolCallError(
            tool.name,
            f"the tool declares an output schema but sent no structured result: {_text(result)}",
        )
    return structured["result"] if tool.result == "value" and "result" in structured else structured


def _text(result: CallToolResult) -> str:
    from ._hub_catalog import _block_text

    return "\n".join(_block_text(block) for block in result.content)


_TYPING_IMPORT = re.compile(r"from typing import (?:\((?P<wrapped>[^)]*)\)|(?P<names>.+))")
"""A stub's `typing` import, on one line or (too long for one) wrapped in parentheses as black writes it."""
_BLOCK_START = re.compile(r"\n(?=class |async def |from typing import |\w+ = TypedDict\()")
"""Where a stub's top-level blocks start: every other line of a block is indented (docstrings
included) or closes a bracket."""


def merge_stubs(stubs: Sequence[str]) -> str:
    """Several function stubs of one module (`servers/<module>/<function>.pyi`) as one stub: one
    `typing` import of every name they use, then each block (a type or a function) once, in order,
    a blank line apart as in any `.pyi`. The generator writes each server's stub with it too."""
    names: set[str] = set()
    blocks: list[str] = []
    for stub in stubs:
        for block in _BLOCK_START.split(stub):
            block = block.strip("\n")
            match = _TYPING_IMPORT.fullmatch(block)
            if match:
                listed = match["names"] if match["wrapped"] is None else match["wrapped"]
                names.update(name.strip() for name in listed.split(",") if name.strip())
            elif block and block not in blocks:
                blocks.append(block)
    head = [f"from typing import {', '.join(sorted(names))}"] if names else []
    return "\n\n".join(head + blocks) + "\n"
