"""Helpers shared by every client that mcp-stubgen generates.

This file is copied verbatim into each generated package, so it imports only `mcp`, `pydantic` and
the standard library. Do not edit the copy: run `mcp-stubgen sync` to refresh it.

`mcp` and `pydantic` are imported where they are used, not at the top: importing `mcp` takes
seconds and `pydantic` a tenth of one, and importing a generated package should cost neither (an
application loads `mcp` once it connects, `pydantic` once a tool's models are first used).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, ClassVar, Final, Self, TypeVar

if TYPE_CHECKING:
    from mcp import Client, ClientSession, StdioServerParameters
    from mcp.client import Transport
    from mcp.types import CallToolResult, ContentBlock, GetPromptResult, ReadResourceResult, Tool
    from pydantic import BaseModel, ValidationError

__all__ = [
    "NOT_GIVEN",
    "CatalogDriftError",
    "GeneratedClient",
    "NotGiven",
    "PaginationError",
    "StubgenClientError",
    "ToolError",
    "ToolResultError",
    "UnknownToolError",
    "canonical_json_bytes",
    "fingerprint",
    "load_model",
    "tool_fingerprint",
]

OutputT = TypeVar("OutputT", bound="BaseModel")

_INVALID_PARAMS = -32602
_METHOD_NOT_FOUND = -32601

MAX_PAGES: Final = 1000
"""`verify()` lists at most this many pages, the same limit `mcp-stubgen snapshot` applies by default."""


class NotGiven:
    """The default of every optional parameter, so "not given" stays distinct from an explicit `None`."""

    _instance: ClassVar[NotGiven | None] = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Final = NotGiven()


class StubgenClientError(Exception):
    """Base of the errors a generated client raises on top of the SDK's own."""


class ToolError(StubgenClientError):
    """The server ran the tool and reported a failure (`isError: true`)."""

    def __init__(self, tool: str, content: Sequence[ContentBlock]) -> None:
        from mcp.types import TextContent

        self.tool = tool
        self.content = list(content)
        text = " ".join(block.text for block in self.content if isinstance(block, TextContent))
        super().__init__(f"tool {tool!r} failed: {text}" if text else f"tool {tool!r} failed")


class ToolResultError(StubgenClientError):
    """The server's result does not match the output schema the client was generated from."""

    def __init__(self, tool: str, reason: str) -> None:
        self.tool = tool
        super().__init__(
            f"tool {tool!r} returned a result that does not match its snapshot's output schema: {reason}; "
            "if the server changed, run `mcp-stubgen sync`"
        )


class CatalogDriftError(StubgenClientError):
    """The live server's catalog no longer matches the snapshot the client was generated from."""

    def __init__(
        self, server: str, missing: Sequence[str] = (), drifted: Sequence[str] = (), detail: str | None = None
    ) -> None:
        self.server = server
        self.missing = tuple(missing)
        self.drifted = tuple(drifted)
        if detail is None:
            parts = []
            if self.missing:
                parts.append("missing tools: " + ", ".join(repr(name) for name in self.missing))
            if self.drifted:
                parts.append("changed tools: " + ", ".join(repr(name) for name in self.drifted))
            detail = "; ".join(parts)
        super().__init__(f"server {server!r} changed since the client was generated ({detail}); run `mcp-stubgen sync`")


class PaginationError(StubgenClientError):
    """The server's `tools/list` paging does not end: a cursor came back twice, or the pages ran past the limit."""

    def __init__(self, server: str, reason: str) -> None:
        self.server = server
        super().__init__(f"server {server!r}: tools/list {reason}, so its catalog cannot be verified")


class UnknownToolError(CatalogDriftError):
    """The server answered a call with "unknown tool": the tool was removed or renamed."""

    def __init__(self, server: str, tool: str, reply: str) -> None:
        super().__init__(server, missing=(tool,), detail=f"it does not know tool {tool!r}: {reply}")
        self.tool = tool


def canonical_json_bytes(value: Any) -> bytes:
    """Byte-identical to mcp-stubgen's snapshot encoding, so fingerprints agree with the generator's."""
    text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8", errors="backslashreplace")


def fingerprint(value: Any) -> str:
    """A short content hash of any JSON value, independent of key order."""
    return hashlib.sha256(canonical_json_bytes(value)).hexdigest()[:16]


def tool_fingerprint(tool: Tool) -> str:
    """The fingerprint of a live tool, computed over its wire form exactly as the snapshot stores it."""
    return fingerprint(tool.model_dump(by_alias=True, exclude_none=True, mode="json"))


_VALIDATORS: dict[int, tuple[Mapping[str, Any], Any]] = {}
"""Compiled JSON Schema validators by the id of their (module-level, never freed) schema."""


def _schema_validator(schema: Mapping[str, Any]) -> Any:
    """The validator for an untyped tool's input schema, made on first use and kept."""
    known = _VALIDATORS.get(id(schema))
    if known is None or known[0] is not schema:
        validators = importlib.import_module("jsonschema.validators")  # `mcp` depends on jsonschema
        validator_class = validators.validator_for(schema)
        known = (schema, validator_class(schema))
        _VALIDATORS[id(schema)] = known
    return known[1]


def load_model(facade: str, modules: Mapping[str, str], name: str) -> object:
    """A model class for a facade module's `__getattr__`: import its tool's module, remember the class.

    `facade` is the facade's `__name__` (`<package>.models`); `modules` maps class name -> tool module.
    """
    module = modules.get(name)
    if module is None:
        raise AttributeError(f"module {facade!r} has no attribute {name!r}")
    package = facade.rpartition(".")[0]
    value = getattr(importlib.import_module(f"{package}._models.{module}"), name)
    setattr(sys.modules[facade], name, value)
    return value


def _named_by_field(error: ValidationError, model: type[BaseModel]) -> ValidationError:
    """The arguments' validation error with each argument named as the caller's keyword (`dry_run`),
    not as the wire spells it (`dryRun`), which the model was given."""
    from pydantic import ValidationError

    fields = {field.alias: name for name, field in model.model_fields.items() if field.alias is not None}
    details: list[Any] = []
    for detail in error.errors():
        location = detail["loc"]
        if location and location[0] in fields:
            location = (fields[location[0]], *location[1:])
        details.append({**detail, "loc": location})
    try:
        return ValidationError.from_exception_data(error.title, details)
    except (KeyError, TypeError, ValueError):  # an error type pydantic cannot rebuild: the original one
        return error


def _lone_exception(error: BaseException) -> BaseException:
    """The exception inside (nested) groups of exactly one, else the error itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _is_unknown_tool(message: str) -> bool:
    lowered = message.lower()
    return "unknown tool" in lowered or "tool not found" in lowered or ("not found" in lowered and "tool" in lowered)


class GeneratedClient:
    """The base of every generated client: holds a connected SDK client and does the calling.

    Generated subclasses add one typed method per tool, resource, template and prompt; the
    helpers here validate arguments before anything is sent and results before they are returned.
    """

    server_name: ClassVar[str] = ""
    snapshot_fingerprint: ClassVar[str] = ""
    tool_fingerprints: ClassVar[Mapping[str, str]] = {}

    def __init__(self, client: Client | ClientSession) -> None:
        self.mcp_client = client

    @classmethod
    def connect(
        cls, server: StdioServerParameters | str | Transport, **client_options: Any
    ) -> AbstractAsyncContextManager[Self]:
        """Connect with `mcp.Client(server, **client_options)` and wrap it; the connection closes on exit."""

        from mcp import Client

        @asynccontextmanager
        async def connected() -> AsyncIterator[Self]:
            try:
                async with Client(server, **client_options) as client:
                    yield cls(client)
            except BaseExceptionGroup as group:
                # The SDK's task groups wrap whatever leaves the block, a `ToolError` of the caller's
                # own included; a lone exception reaches the caller as itself, so `except` finds it.
                lone = _lone_exception(group)
                if lone is group:
                    raise
                raise lone from lone.__cause__

        return connected()

    async def verify(self, *, max_pages: int = MAX_PAGES) -> None:
        """List the live server's tools and raise `CatalogDriftError` if any generated tool changed or vanished.

        A server whose paging never ends (a repeated cursor, more than `max_pages` pages) raises
        `PaginationError` instead of listing forever.
        """
        from mcp import Client
        from mcp.types import PaginatedRequestParams

        live: dict[str, str] = {}
        cursor: str | None = None
        seen_cursors: set[str] = set()
        for _ in range(max_pages):
            if isinstance(self.mcp_client, Client):
                page = await self.mcp_client.list_tools(cursor=cursor, cache_mode="bypass")
            else:
                page = await self.mcp_client.list_tools(params=PaginatedRequestParams(cursor=cursor))
            for tool in page.tools:
                live[tool.name] = tool_fingerprint(tool)
            cursor = page.next_cursor
            if cursor is None:
                break
            if cursor in seen_cursors:
                raise PaginationError(self.server_name, f"returned cursor {cursor[:40]!r} twice (its paging loops)")
            seen_cursors.add(cursor)
        else:
            raise PaginationError(
                self.server_name, f"still had more after {max_pages} pages (pass a larger verify(max_pages=...))"
            )
        missing = sorted(name for name in self.tool_fingerprints if name not in live)
        drifted = sorted(
            name for name, expected in self.tool_fingerprints.items() if name in live and live[name] != expected
        )
        if missing or drifted:
            raise CatalogDriftError(self.server_name, missing=missing, drifted=drifted)

    async def _send(self, tool: str, input_model: type[BaseModel], arguments: Mapping[str, object]) -> CallToolResult:
        """Validate the arguments into the input model, send them by their wire names, and raise on failure."""
        from mcp import MCPError
        from mcp.types import TextContent
        from pydantic import ValidationError

        try:
            validated = input_model.model_validate(
                {name: value for name, value in arguments.items() if value is not NOT_GIVEN}
            )
        except ValidationError as error:
            raise _named_by_field(error, input_model) from None
        payload = validated.model_dump(mode="json", by_alias=True, exclude_unset=True)
        try:
            result = await self.mcp_client.call_tool(tool, payload)
        except MCPError as error:
            if error.code in (_INVALID_PARAMS, _METHOD_NOT_FOUND) and _is_unknown_tool(error.message):
                raise UnknownToolError(self.server_name, tool, error.message) from error
            raise
        if result.is_error:
            texts = [block.text for block in result.content if isinstance(block, TextContent)]
            if len(texts) == 1 and texts[0].lower().startswith("unknown tool"):
                raise UnknownToolError(self.server_name, tool, texts[0])
            raise ToolError(tool, result.content)
        return result

    async def _call(self, tool: str, input_model: type[BaseModel], arguments: Mapping[str, object]) -> CallToolResult:
        """Call a tool without an output schema: the SDK's result, every content block included."""
        return await self._send(tool, input_model, arguments)

    async def _call_structured(
        self,
        tool: str,
        input_model: type[BaseModel],
        arguments: Mapping[str, object],
        output_model: type[OutputT],
    ) -> OutputT:
        """Call a tool with an output schema and return its `structuredContent` as the output model."""
        from pydantic import ValidationError

        result = await self._send(tool, input_model, arguments)
        if result.structured_content is None:
            raise ToolResultError(tool, "the result has no structuredContent")
        try:
            return output_model.model_validate(result.structured_content)
        except ValidationError as error:
            raise ToolResultError(tool, str(error)) from error

    async def _call_untyped(
        self, tool: str, input_model: type[BaseModel], schema: Mapping[str, Any], arguments: Mapping[str, object]
    ) -> CallToolResult:
        """Call a tool whose schema no models could be generated from: the arguments are checked
        against its JSON Schema (`jsonschema.ValidationError`) before anything is sent."""
        _schema_validator(schema).validate(dict(arguments))
        return await self._send(tool, input_model, arguments)

    async def _read(self, uri: str) -> ReadResourceResult:
        """Read a static resource by its URI."""
        return await self.mcp_client.read_resource(uri)

    async def _read_template(self, template: str, variables: Mapping[str, str | NotGiven]) -> ReadResourceResult:
        """Expand a resource template (RFC 6570, by the SDK) with the given variables and read the result."""
        from mcp.shared.uri_template import UriTemplate

        given = {name: value for name, value in variables.items() if not isinstance(value, NotGiven)}
        return await self.mcp_client.read_resource(UriTemplate.parse(template).expand(given))

    async def _prompt(self, prompt: str, arguments: Mapping[str, str | NotGiven]) -> GetPromptResult:
        """Get a prompt, sending only the arguments that were given."""
        given = {name: value for name, value in arguments.items() if not isinstance(value, NotGiven)}
        return await self.mcp_client.get_prompt(prompt, given)
