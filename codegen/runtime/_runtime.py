"""Helpers shared by every client that mcp-stubgen generates.

This file is copied verbatim into each output folder's runtime (`_mcp_runtime/`), so it imports only `mcp`, `pydantic`, what
they bring (`jsonschema`, `pydantic_core`) and the standard library. Do not edit the copy: run
`mcp-stubgen sync` to refresh it.

`mcp` and `pydantic` are imported where they are used, not at the top: importing `mcp` takes
seconds and `pydantic` a tenth of one, and importing a generated package should cost neither (an
application loads `mcp` once it connects, `pydantic` once a tool's models are first used).

A tool's own JSON Schema is the contract, not its models: the exact arguments about to be sent and
the exact `structuredContent` received are checked against the schemas in the snapshot
(`ToolContract`), and the models only give the caller types and names. Each schema is compiled on
the tool's first call into a fast check of the keywords tools use; a schema with keywords it does
not compile (`unevaluated*`, `$dynamicRef`, embedded `$id`s, another dialect) is checked by
`jsonschema` alone. When the fast check says no, `jsonschema` gives the verdict and the message,
so the fast check can never refuse what `jsonschema` accepts.
"""

from __future__ import annotations

import binascii
import contextlib
import dataclasses
import functools
import hashlib
import importlib
import json
import math
import os
import sys
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    AsyncExitStack,
    asynccontextmanager,
    contextmanager,
    nullcontext,
)
from types import ModuleType
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Final,
    Generic,
    Literal,
    NoReturn,
    Self,
    TypeAlias,
    TypedDict,
    TypeVar,
    cast,
    final,
)
from urllib.parse import urlsplit

from ._loop_thread import SessionLoop
from ._schema_check import (
    CheckPastBudget,
    SchemaCheck,
    canonical_tool,
    offline_validator,
    past_budget,
)
from ._uri_template import UriTemplate

if TYPE_CHECKING:
    import httpx2
    from anyio import CancelScope
    from mcp.client import Client, ClientSession, Transport
    from mcp.client._transport import TransportStreams
    from mcp.client.session import (
        ClientRequestContext,
        ElicitationFnT,
        ListRootsFnT,
        LoggingFnT,
        SamplingFnT,
    )
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.auth import AuthorizationCodeResult
    from mcp.shared.dispatcher import ProgressFnT
    from mcp.shared.exceptions import MCPError
    from mcp.types import (
        AudioContent,
        CallToolResult,
        ContentBlock,
        CreateMessageRequestParams,
        CreateMessageResult,
        CreateMessageResultWithTools,
        ElicitRequestParams,
        ElicitResult,
        EmbeddedResource,
        ErrorData,
        GetPromptResult,
        ImageContent,
        InputRequest,
        InputRequiredResult,
        InputResponse,
        InputResponses,
        ListRootsResult,
        ListToolsResult,
        LoggingMessageNotificationParams,
        PaginatedRequestParams,
        ReadResourceResult,
        RequestParamsMeta,
        ResourceLink,
        Tool,
    )
    from pydantic import BaseModel, TypeAdapter

    from ._stdio import StartupWatch

    SamplingHandler: TypeAlias = (
        SamplingFnT
        | Callable[
            [ClientRequestContext, CreateMessageRequestParams],
            CreateMessageResult | CreateMessageResultWithTools | ErrorData,
        ]
    )
    ElicitationHandler: TypeAlias = (
        ElicitationFnT
        | Callable[[ClientRequestContext, ElicitRequestParams], ElicitResult | ErrorData]
    )
    ListRootsHandler: TypeAlias = (
        ListRootsFnT | Callable[[ClientRequestContext], ListRootsResult | ErrorData]
    )
    LoggingHandler: TypeAlias = LoggingFnT | Callable[[LoggingMessageNotificationParams], None]

__all__ = [
    "NOT_GIVEN",
    "AuthError",
    "CallOptions",
    "CatalogDriftError",
    "Completion",
    "GeneratedClient",
    "HandshakeTimeoutError",
    "MissingHandlerError",
    "NoStructuredContentError",
    "NotGiven",
    "PaginationError",
    "ProgressCallback",
    "RequestOptions",
    "RequestTimeoutError",
    "SchemaCheck",
    "ServerError",
    "SessionLoop",
    "StubgenClientError",
    "SyncClient",
    "TaskSupport",
    "ToolArgumentsError",
    "ToolContentError",
    "ToolContract",
    "ToolError",
    "ToolResult",
    "ToolResultError",
    "UnauthorizedError",
    "UnknownToolError",
    "authorized_transport",
    "canonical_json_bytes",
    "error_message",
    "fingerprint",
    "load_model",
    "load_tool_module",
    "one_line",
    "stored_auth",
    "tool_fingerprint",
]

OutputT = TypeVar("OutputT", bound="BaseModel")
T = TypeVar("T")
ClientT = TypeVar("ClientT", bound="GeneratedClient")

TaskSupport = Literal["optional", "required"]
"""A tool's `execution.taskSupport` when it may run as a task (`forbidden`, the default, may not)."""

_INVALID_PARAMS = -32602
_NO_STRUCTURED_CONTENT = "has an output schema but did not return structured content"
"""What the SDK's `call_tool` raises (a `RuntimeError`) for a tool that declares an output schema and sends none."""
_OFF_LIVE_SCHEMA = "Invalid structured content returned by tool"
"""What it raises (a `RuntimeError`) for structured content its live listing's output schema rejects."""
_LIVE_SCHEMA_UNUSABLE = "Invalid schema for tool"
"""What it raises (a `RuntimeError`) when its live listing's output schema cannot be applied (a `$ref` to nothing)."""
_UNSPOKEN_VERSION = "Unsupported protocol version from the server"
"""What it raises (a `RuntimeError`) when `initialize` is answered with a protocol version it does not speak."""
_UNSUPPORTED_PROTOCOL_VERSION = -32022
"""The protocol's code for a version one side does not speak (2026-07-28)."""
_NOT_MCP = -32700
"""The code of the `ServerError` for an answer that is not valid MCP: JSON-RPC's parse error, which the
SDK's Streamable HTTP transport already gives an answer it cannot parse."""
_METHOD_NOT_FOUND = -32601
_INTERNAL_ERROR = -32603
_INVALID_REQUEST = -32600
_REQUEST_TIMEOUT = -32001
CONNECT_TIMEOUT = 30.0
"""Seconds `connect` waits for a server to start and complete the handshake, as `connect_timeout`
in mcp-stubgen's config does."""
_CONNECTION_CLOSED = -32000
_HEADER_MISMATCH = -32020
"""The server refused a `tools/call` whose `Mcp-Param-*` headers do not match its arguments (SEP-2243)."""
_URL_ELICITATION_REQUIRED = -32042
"""The server needs the user to open a URL (its error's `data.elicitations`) before the call can succeed."""
_INPUT_REQUIRED_MAX_ROUNDS = 10
"""`mcp.Client`'s default `input_required_max_rounds`, for a client that wraps a bare `ClientSession`."""
_FIRST_MODERN_PROTOCOL = "2026-07-28"
"""Protocol versions are dates: one before this is spoken with the `initialize` handshake."""
_LATEST_HANDSHAKE_VERSION = "2025-11-25"
"""The version the SDK reads a message by before the handshake settles one."""

MAX_PAGES: Final = 1000
"""`verify()` lists at most this many pages, the same limit `mcp-stubgen snapshot` applies by default."""
MAX_LISTING_BYTES: Final = 256 * 1024 * 1024
"""What one listing (every page of one list method as compact JSON, and the cursors remembered to
catch a loop) may hold. The largest real catalogs measured (docs/development.md: FastMCP over
GitHub's REST description, 1,223 tools in a 17.7 MB snapshot; tooluniverse's 2,720 tools, 5 MB;
claude-flow's 353 tools, k8s-mcp's 285) hold less than a tenth of it, and four pages at the
transports' 64 MiB limit fit; without it a server could send `max_pages` such pages and make
`snapshot`, `watch`, a hub or `verify()` hold gigabytes."""


@final
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


ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None] | None]
"""Called with (progress, total, message) for each `notifications/progress` of the call; may be async."""


class RequestOptions(TypedDict, total=False):
    """Per-call options of a resource or prompt method, passed as `call_options={...}`."""

    timeout: float
    """Seconds to wait for the answer; then `RequestTimeoutError`, and the server is sent `notifications/cancelled`."""
    meta: Mapping[str, Any]
    """The request's `_meta`, sent as given (a trace id, a progress token of your own)."""


class CallOptions(RequestOptions, total=False):
    """Per-call options of a tool method, passed as `call_options={...}`; cancelling the calling task
    sends the server `notifications/cancelled` (the SDK does it), so cancellation needs no option."""

    on_progress: ProgressCallback
    """Receives the tool's `notifications/progress`; a sync client calls it on its event loop."""


def one_line(text: str) -> str:
    """`text` with every non-printable character (newlines, terminal escapes, bidi controls) shown as
    its Python escape, so text a server supplied can neither start a new line (a forged log line, a
    CI workflow command) nor drive the terminal it is printed on."""
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def quoted_lines(text: str) -> str:
    """`text` on the lines the server wrote it on (a CRLF read as a newline, blank lines at either end
    left out), each line printable as `one_line` makes it but for its tabs, and every line after the
    first behind a `  | ` gutter (`  |` for a blank one): a failed tool's multi-line text reads as
    written, yet no line of it can pass for a log line or a CI workflow command of its own, nor
    drive the terminal."""
    first, *rest = (
        "\t".join(map(one_line, line.split("\t")))
        for line in text.replace("\r\n", "\n").strip("\n").split("\n")
    )
    return "\n".join([first, *(f"  | {line}" if line else "  |" for line in rest)])


_MESSAGE_LIMIT = 4000
"""Characters an error message quotes of what a server sent at most: a log line, not a payload."""


_SENT_TOKENS: dict[str, None] = {}
"""The OAuth access tokens this process sent, newest last (`remember_sent_token`): a server may
echo the one it was sent into an error answer or a failed tool's text, and an error message is what
an application logs."""

_TOKENS_KEPT = 64
"""Tokens remembered at most: a process refreshing hourly for days keeps the recent ones."""


def remember_sent_token(token: str) -> None:
    """Have every later error message show `token` as `***` (an OAuth provider calls this as it
    sends the token)."""
    if token in _SENT_TOKENS:
        return
    _SENT_TOKENS[token] = None
    if len(_SENT_TOKENS) > _TOKENS_KEPT:
        del _SENT_TOKENS[next(iter(_SENT_TOKENS))]


def error_message(text: str, *, keep_lines: bool = False) -> str:
    """An error message quoting a server's text as one printable line (`one_line`), or with
    `keep_lines` on its own lines (`quoted_lines`), of a bounded length: a longer one keeps its start
    and its end (where the code is), the middle left out. An OAuth token this process sent is shown
    as `***`."""
    for token in _SENT_TOKENS:
        text = text.replace(token, "***")
    if len(text) > _MESSAGE_LIMIT:
        left_out = len(text) - _MESSAGE_LIMIT
        text = f"{text[: _MESSAGE_LIMIT - 1000]} ... ({left_out:,} characters left out) ... {text[-1000:]}"
    return quoted_lines(text) if keep_lines else one_line(text)


class StubgenClientError(Exception):
    """Base of the errors a generated client raises on top of the SDK's own. Their messages quote
    what a server sent (an error's message, a failed tool's text), so each is made printable and of
    bounded length here, once (`error_message`): one line, or with `keep_lines` (a failed tool's text,
    meant to be read) its lines kept behind a gutter; the attributes (`ServerError.message`,
    `ToolError.content`) keep it as sent."""

    def __init__(self, message: str, *, keep_lines: bool = False) -> None:
        super().__init__(error_message(message, keep_lines=keep_lines))


class RequestTimeoutError(StubgenClientError, TimeoutError):
    """No answer within the call's `timeout`; the server was told to stop (`notifications/cancelled`)."""

    def __init__(self, server: str, request: str, timeout: float) -> None:
        self.server = server
        self.timeout = timeout
        super().__init__(
            f"server {server!r}: {request} got no answer within {timeout:g} s (call_options timeout); it was cancelled"
        )


class ServerError(StubgenClientError):
    """The server answered a request with a JSON-RPC error instead of a result (or the SDK ended the
    request: -32000 the connection closed, -32001 its own `read_timeout_seconds` ran out).

    `code`, `message` and `data` are the error's; the SDK's `MCPError` is its `__cause__`."""

    def __init__(
        self, server: str, request: str, code: int, message: str, data: Any = None
    ) -> None:
        self.server = server
        self.code = code
        self.message = message
        self.data = data
        super().__init__(f"server {server!r}: {request} failed: {message} (code {code})")


class HandshakeTimeoutError(ServerError, TimeoutError):
    """The server did not complete the handshake within `connect`'s `connect_timeout`: a command that
    starts no MCP server (or one that serves HTTP: `listening` is the URL it said it listens on), a
    URL that takes the connection and never answers. A `ServerError` of code -32001, as the SDK
    reports a request it stopped waiting for."""

    def __init__(self, server: str, timeout: float, message: str, listening: str = "") -> None:
        self.server = server
        self.code = _REQUEST_TIMEOUT
        self.message = message
        self.data = None
        self.timeout = timeout
        self.listening = listening
        StubgenClientError.__init__(self, message)


class ToolError(StubgenClientError):
    """The server ran the tool and reported a failure (`isError: true`); its message names the server
    (a generated client's always does: an application with several servers, or a hub, logs it) and
    shows the text blocks one under another, on the lines the server wrote them on (`quoted_lines`)."""

    def __init__(
        self, tool: str, content: Sequence[ContentBlock], *, server: str | None = None
    ) -> None:
        from mcp.types import TextContent

        self.server = server
        self.tool = tool
        self.content = list(content)
        text = "\n".join(block.text for block in self.content if isinstance(block, TextContent))
        failed = f"server {server!r}: tool {tool!r} failed" if server else f"tool {tool!r} failed"
        super().__init__(f"{failed}: {text}" if text else failed, keep_lines=True)


class ToolResultError(StubgenClientError):
    """The server's result does not match the tool's output schema: the snapshot's, which the client
    was generated from (the server changed that schema, or breaks it: `drift` tells which), or the
    one the server lists now (the server breaks its own listing, which no sync mends). It names the
    server, since a hub raises it for a tool name several of its servers may have."""

    def __init__(self, server: str, tool: str, reason: str, *, live: bool = False) -> None:
        self.server = server
        self.tool = tool
        if live:
            message = (
                f"server {server!r}: tool {tool!r} returned a result that the output schema the server "
                f"lists {reason}; the fault is in the server's own listing, which `mcp-stubgen sync` "
                "cannot mend: tell the server's maintainers"
            )
        else:
            message = (
                f"server {server!r}: tool {tool!r} returned a result that does not match its snapshot's "
                f"output schema: {reason}; the server changed that schema since the snapshot, or its "
                "result breaks it (`mcp-stubgen drift` tells which; `mcp-stubgen sync` takes a change in)"
            )
        super().__init__(message)


class NoStructuredContentError(ToolResultError):
    """The tool declares an output schema, but the server sent no `structuredContent` to read it from."""

    def __init__(self, server: str, tool: str) -> None:
        self.server = server
        self.tool = tool
        StubgenClientError.__init__(
            self,
            f"tool {tool!r} declares an outputSchema but its result has no structuredContent; if server "
            f"{server!r} sends the result as JSON text instead, set `parse_text_json = true` in its config "
            "and run `mcp-stubgen sync`",
        )


class ToolContentError(StubgenClientError, ValueError):
    """A result's content is not what it was read as: `.json()` of anything but one JSON text block."""

    def __init__(self, tool: str, reason: str) -> None:
        self.tool = tool
        super().__init__(f"tool {tool!r}: {reason}")


class MissingHandlerError(StubgenClientError, TypeError):
    """The client was generated from a catalog listed to a client declaring capabilities, and `connect`
    was given no handler for some: the server would not list the tools that need them. Every missing
    one is named at once, so a second attempt does not fail on the next."""

    def __init__(
        self, server: str, missing: Sequence[tuple[str, str]], where: str = "connect()"
    ) -> None:
        capabilities = " and ".join(repr(capability) for capability, _ in missing)
        handlers = " and ".join(f"{handler}=" for _, handler in missing)
        plural = len(missing) > 1
        super().__init__(
            f"server {server!r} was snapshotted declaring the client "
            f"{'capabilities' if plural else 'capability'} {capabilities}, so this client has tools the "
            f"server lists only to clients that declare {'them' if plural else 'it'}: pass {handlers} to {where}"
        )


class ToolArgumentsError(StubgenClientError, ValueError):
    """The arguments do not match the tool's input schema, so the call was not sent. Its message names
    the server, as `ToolError`'s does: a hub's servers may share a tool name."""

    def __init__(self, tool: str, reason: str, *, server: str | None = None) -> None:
        self.server = server
        self.tool = tool
        where = f"server {server!r}: tool {tool!r}" if server else f"tool {tool!r}"
        super().__init__(f"{where}: {reason}; nothing was sent")


class CatalogDriftError(StubgenClientError):
    """The live server's catalog no longer matches the snapshot the client was generated from.

    `unusable`: why each of the `missing` tools the server still lists, in a form that is not valid
    MCP, was left out of its listing."""

    def __init__(
        self,
        server: str,
        missing: Sequence[str] = (),
        drifted: Sequence[str] = (),
        detail: str | None = None,
        unusable: Mapping[str, str] | None = None,
    ) -> None:
        self.server = server
        self.missing = tuple(missing)
        self.drifted = tuple(drifted)
        if detail is None:
            parts = []
            if self.missing:
                parts.append("missing tools: " + ", ".join(repr(name) for name in self.missing))
            parts.extend((unusable or {}).values())
            if self.drifted:
                parts.append("changed tools: " + ", ".join(repr(name) for name in self.drifted))
            detail = "; ".join(parts)
        super().__init__(
            f"server {server!r} changed since the client was generated ({detail}); run `mcp-stubgen sync`"
        )


def repeated_cursor(cursor: str) -> str:
    """Why a listing stopped at a cursor that came back: since MCP 2026-07-28 an empty `nextCursor`
    is a cursor like any other, which some servers still send on their last page."""
    if cursor == "":
        return (
            "returned cursor '' twice (its paging loops: an empty nextCursor is a cursor, not the end of "
            "the list, and the server has to leave it out of its last page)"
        )
    return f"returned cursor {cursor[:40]!r} twice (its paging loops)"


def page_size(result: Any) -> int:
    """A list page's size as received, as compact ASCII JSON: the same measure whichever transport
    and whichever reader brought it."""
    return len(json.dumps(result, separators=(",", ":"), default=str))


class ListingBound:
    """One listing's pages so far, and the rule every caller applies to them: a cursor that comes
    back means the paging loops, and the pages and remembered cursors may not add up to more than
    `MAX_LISTING_BYTES`. One per listing: `snapshot`, `verify()`, the hub and a call's re-listing
    share it, so no caller can hold more than another."""

    def __init__(self) -> None:
        self.pages = 0
        self.held = 0
        self._cursors: set[str] = set()

    def stop(self, size: int, cursor: str | None) -> str | None:
        """Why the listing cannot go on after a page of `size` (`page_size`) whose next cursor is
        `cursor`, or None: it ended (no cursor), or it may ask for the next page."""
        self.pages += 1
        self.held += size
        if cursor is not None:
            if cursor in self._cursors:
                return repeated_cursor(cursor)
            self._cursors.add(cursor)
            self.held += len(cursor)
        limit = MAX_LISTING_BYTES
        if self.held > limit:
            return (
                f"held more than {limit / 2**20:g} MiB in {self.pages} pages, more than any real "
                "catalog (the server has to send less, or end its paging)"
            )
        return None


class PaginationError(StubgenClientError):
    """The server's `tools/list` paging does not end, or holds too much: a cursor came back twice, the
    pages ran past the limit, or they held more than `MAX_LISTING_BYTES`."""

    def __init__(self, server: str, reason: str) -> None:
        self.server = server
        super().__init__(
            f"server {server!r}: tools/list {reason}, so its catalog cannot be verified"
        )


LIST_ENTRIES: Final = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}
"""Each list method and the key of its result that holds the entries."""
_ENTRY_KINDS: Final = {
    "tools/list": "tool",
    "resources/list": "resource",
    "resources/templates/list": "resource template",
    "prompts/list": "prompt",
}


@dataclasses.dataclass(frozen=True)
class LeftOutEntry:
    """An entry of a list page that the MCP SDK's own model of one entry refuses (a tool whose
    `inputSchema` is a string, a prompt without a `name`): left out, so that one malformed entry
    does not cost the server's whole catalog, as the SDK's check of the whole page would."""

    method: str
    index: int
    """Its place on its page, from 0."""
    name: str | None
    """Its `name`, when that is a non-empty string."""
    problem: str
    """The first thing the SDK's model finds wrong: `/pointer: message`."""
    page: int = 1
    """The page it was on, from 1."""

    def describe(self) -> str:
        """`tools/list: tool 'x' is not valid MCP (/inputSchema: ...)`, by index without a readable name."""
        if self.name:
            entry = f"{_ENTRY_KINDS[self.method]} {one_line(_clip(self.name, 80))!r}"
        else:
            entry = f"the entry at index {self.index} of page {self.page}"
        return f"{self.method}: {entry} is not valid MCP ({self.problem})"

    def warning(self, fate: str) -> str:
        """The entry's one warning line: what is wrong with it, `fate` (what became of it), and what to
        do, the same in snapshot, verify() and the hub: only the server's authors can fix the entry."""
        return f"{self.describe()}; {fate} (ask the server's authors to fix it; until then it cannot be used)"


def valid_entries(method: str, version: str, result: Any) -> tuple[Any, tuple[LeftOutEntry, ...]]:
    """`result`, a page of `method` as received, without the entries the SDK's models of one entry
    refuse (the revision's wire model, which its check of the whole page applies, then the
    version-free one it parses into), and those entries with why. A page that is not an object, or
    whose entries are not a list, comes back as it is: the SDK's check of the page refuses it."""
    key = LIST_ENTRIES[method]
    entries = result.get(key) if isinstance(result, dict) else None
    if not isinstance(entries, list):
        return result, ()
    from pydantic import ValidationError

    models = _entry_models(method, version)
    kept = []
    left_out = []
    for index, entry in enumerate(entries):
        try:
            for model in models:
                model.model_validate(entry, by_name=False)
        except ValidationError as error:
            problem = error.errors()[0]
            pointer = "/" + "/".join(str(part) for part in problem["loc"])
            name = entry.get("name") if isinstance(entry, dict) else None
            left_out.append(
                LeftOutEntry(
                    method,
                    index,
                    name if isinstance(name, str) and name else None,
                    f"{one_line(_clip(pointer, 120))}: {one_line(_clip(problem['msg'], 200))}",
                )
            )
            continue
        kept.append(entry)
    if not left_out:
        return result, ()
    return {**result, key: kept}, tuple(left_out)


@functools.cache
def _entry_models(method: str, version: str) -> tuple[type[BaseModel], ...]:
    """The SDK's models of one entry of `method`'s page at `version`: the revision's wire model
    (none for a version the SDK does not know), then the version-free model."""
    from typing import get_args

    from mcp.types import Prompt, Resource, ResourceTemplate, Tool, methods

    version_free: dict[str, type[BaseModel]] = {
        "tools/list": Tool,
        "resources/list": Resource,
        "resources/templates/list": ResourceTemplate,
        "prompts/list": Prompt,
    }
    row = methods.SERVER_RESULTS.get((method, version))
    fields = getattr(row, "model_fields", {})
    wire = [
        get_args(field.annotation)[0]
        for name, field in fields.items()
        if (field.alias or name) == LIST_ENTRIES[method]
    ]
    return (*wire, version_free[method])


def read_page(method: str, version: str, result: Any) -> tuple[Any, tuple[LeftOutEntry, ...]]:
    """A page of a list method as the SDK's `ClientSession` reads it at `version` (its model of the
    result), except that an entry the SDK's models refuse is left out and returned (`valid_entries`)
    instead of refusing the whole page. A page that is not valid MCP apart from its entries raises
    pydantic's `ValidationError`, as the SDK does. A valid page is read once, as the SDK reads it."""
    from mcp.client.session import _clamp_inbound_ttl, _later_revision_fields
    from mcp.types import (
        ListPromptsResult,
        ListResourcesResult,
        ListResourceTemplatesResult,
        ListToolsResult,
        methods,
    )
    from pydantic import ValidationError

    results: dict[str, type[BaseModel]] = {
        "tools/list": ListToolsResult,
        "resources/list": ListResourcesResult,
        "resources/templates/list": ListResourceTemplatesResult,
        "prompts/list": ListPromptsResult,
    }
    foreign = _later_revision_fields(method, version)

    def parse(raw: Any) -> Any:
        with contextlib.suppress(KeyError):  # a version it has no wire model for: so does the SDK
            methods.validate_server_result(method, version, raw)
        if isinstance(raw, dict) and not foreign.isdisjoint(raw):
            raw = {key: value for key, value in raw.items() if key not in foreign}
        return results[method].model_validate(raw, by_name=False)

    if isinstance(result, dict):
        result = dict(result)
        _clamp_inbound_ttl(result)
    try:
        return parse(result), ()
    except ValidationError:
        kept, left_out = valid_entries(method, version, result)
        if not left_out:
            raise
    return parse(kept), left_out


async def list_page(
    client: Client | ClientSession,
    method: str,
    cursor: str | None,
    timeout: float | None = None,
    meta: RequestParamsMeta | None = None,
) -> tuple[Any, tuple[LeftOutEntry, ...], int]:
    """One page of a list method, sent as the SDK's `ClientSession` sends it and read by `read_page`:
    an entry the SDK's models refuse is left out and returned, not the whole page refused, and the
    page's `page_size` for its listing's `ListingBound`; an error answer raises the SDK's `MCPError`. `timeout`: the session's read timeout when None; `meta`: the
    request's `_meta`. The client's response cache is not used."""
    from mcp.types import (
        ListPromptsRequest,
        ListResourcesRequest,
        ListResourceTemplatesRequest,
        ListToolsRequest,
        PaginatedRequestParams,
    )

    requests = {
        "tools/list": ListToolsRequest,
        "resources/list": ListResourcesRequest,
        "resources/templates/list": ListResourceTemplatesRequest,
        "prompts/list": ListPromptsRequest,
    }
    session: Any = getattr(client, "session", client)  # an opened `mcp.Client` holds its session
    params = PaginatedRequestParams(cursor=cursor, _meta=meta)
    data = requests[method](params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
    options: dict[str, Any] = {}
    session._stamp(data, options)  # the protocol headers and 2026-07-28 `_meta`, as `send_request`
    wait = session._session_read_timeout_seconds if timeout is None else timeout
    if wait is not None:
        options["timeout"] = wait
    raw = await session._dispatcher.send_raw_request(method, data.get("params"), options)
    page, left_out = read_page(
        method, session._negotiated_version or _LATEST_HANDSHAKE_VERSION, raw
    )
    return page, left_out, page_size(raw)


async def list_tools(
    client: Client | ClientSession,
    server: str,
    max_pages: int = MAX_PAGES,
    more: str = "",
    paging_error: Callable[[str, str], Exception] = PaginationError,
) -> tuple[list[Tool], list[LeftOutEntry]]:
    """Every tool the server lists now, page by page (`list_page`, so past the client's response
    cache), each page absorbed by the session as `ClientSession.list_tools` absorbs it (the output
    schemas and `x-mcp-header` maps its calls use), and the entries left out as not valid MCP.

    No tools when the server answers the first page with -32601 (declared, not implemented), as
    `mcp-stubgen snapshot` records it; an error answer, or a page that is not valid MCP apart from
    its entries, raises `ServerError`; paging that does not end, or that holds more than a listing
    may (`ListingBound`), `paging_error(server, why)` (`more` follows its page limit)."""
    session: Any = getattr(client, "session", client)
    tools: list[Tool] = []
    left_out: list[LeftOutEntry] = []
    cursor: str | None = None
    bound = ListingBound()
    for number in range(1, max_pages + 1):
        try:
            page, dropped, size = await list_page(client, "tools/list", cursor)
        except Exception as error:
            refused = _server_error(server, "tools/list", error)
            if refused is None:
                raise
            if refused.code == _METHOD_NOT_FOUND and cursor is None:
                return [], []
            raise refused from error
        session._absorb_tool_listing(page, complete=cursor is None and page.next_cursor is None)
        tools.extend(page.tools)
        left_out.extend(dataclasses.replace(entry, page=number) for entry in dropped)
        cursor = page.next_cursor
        stop = bound.stop(size, cursor)
        if stop is not None:
            raise paging_error(server, stop)
        if cursor is None:
            return tools, left_out
    raise paging_error(server, f"still had more after {max_pages} pages{more}")


class UnknownToolError(CatalogDriftError):
    """The server answered a call with "unknown tool": the tool was removed or renamed."""

    def __init__(self, server: str, tool: str, reply: str) -> None:
        super().__init__(server, missing=(tool,), detail=f"it does not know tool {tool!r}: {reply}")
        self.tool = tool


class AuthError(StubgenClientError):
    """An OAuth step failed for a server: the message names the server, the step and what to do."""

    def __init__(self, server: str, step: str, advice: str) -> None:
        super().__init__(f"server {server!r}: OAuth {step} failed: {advice}")
        self.server = server
        self.step = step
        self.advice = advice


class UnauthorizedError(AuthError, ServerError):
    """One request failed for want of authorization, and the session goes on: the server refused its
    credentials (HTTP 401, or 403 `insufficient_scope`), or the `auth=` flow could not get a token
    for it (a refresh refused, no way to authorize again without a person). A later call may succeed
    once the credentials are renewed. It is an `AuthError` naming the step, and the `ServerError` a
    401 raised before (`code`, `message`, and `data` with `authStep` and any `httpStatus`)."""

    def __init__(
        self, server: str, request: str, step: str, code: int, message: str, data: Any
    ) -> None:
        ServerError.__init__(self, server, request, code, message, data)
        self.step = step
        self.advice = message


@dataclasses.dataclass(frozen=True)
class Completion:
    """What a server suggests for a prompt's argument or a resource template's variable
    (`completion/complete`), returned by a client's `complete_prompt` and `complete_template`."""

    values: tuple[str, ...]
    """At most 100 suggestions, best first."""
    total: int | None
    """How many suggestions the server has in all, when it says."""
    has_more: bool
    """Whether the server has more than `values` holds (its `hasMore`; False when it does not say)."""


class ToolResult:
    """What a tool without an output schema returns: its content blocks, typed by kind, and the SDK's
    `CallToolResult` as `raw` (for `_meta`, or a `structuredContent` no schema describes)."""

    __slots__ = ("raw", "tool")

    def __init__(self, tool: str, raw: CallToolResult) -> None:
        self.tool = tool
        self.raw = raw

    def __repr__(self) -> str:
        kinds = ", ".join(block.type for block in self.raw.content)
        return f"ToolResult(tool={self.tool!r}, content=[{kinds}])"

    @property
    def content(self) -> list[ContentBlock]:
        """Every block, in the server's order."""
        return self.raw.content

    @property
    def text(self) -> str:
        """The text blocks' text, joined by newlines ("" when there is none)."""
        from mcp.types import TextContent

        return "\n".join(block.text for block in self.raw.content if isinstance(block, TextContent))

    @property
    def images(self) -> list[ImageContent]:
        from mcp.types import ImageContent

        return [block for block in self.raw.content if isinstance(block, ImageContent)]

    @property
    def audio(self) -> list[AudioContent]:
        from mcp.types import AudioContent

        return [block for block in self.raw.content if isinstance(block, AudioContent)]

    @property
    def resources(self) -> list[EmbeddedResource]:
        """The embedded resources (their contents sent inline)."""
        from mcp.types import EmbeddedResource

        return [block for block in self.raw.content if isinstance(block, EmbeddedResource)]

    @property
    def resource_links(self) -> list[ResourceLink]:
        """Links to resources the caller may read."""
        from mcp.types import ResourceLink

        return [block for block in self.raw.content if isinstance(block, ResourceLink)]

    def json(self) -> Any:
        """The value of the result's one text block, parsed as JSON; `ToolContentError` when the
        result is not exactly one text block or its text is not JSON, or is nested past Python's parser."""
        from mcp.types import TextContent

        blocks = self.raw.content
        if len(blocks) != 1 or not isinstance(blocks[0], TextContent):
            kinds = ", ".join(block.type for block in blocks) or "none"
            raise ToolContentError(
                self.tool, f"expected one JSON text block, got {len(blocks)} block(s) ({kinds})"
            )
        try:
            return json.loads(blocks[0].text, parse_constant=_not_a_json_number)
        except ValueError as error:
            raise ToolContentError(
                self.tool, f"its text is not JSON ({error}): {_clip(blocks[0].text, 80)}"
            ) from None
        except RecursionError:
            raise ToolContentError(
                self.tool,
                f"its JSON text is nested too deeply to read: {_clip(blocks[0].text, 80)}",
            ) from None


def _not_a_json_number(name: str) -> Any:
    """Python's parser reads `NaN`, `Infinity` and `-Infinity`; JSON has no such numbers."""
    raise ValueError(f"{name} is not a JSON number")


def canonical_json_bytes(value: Any) -> bytes:
    """Byte-identical to mcp-stubgen's snapshot encoding, so fingerprints agree with the generator's."""
    text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8", errors="backslashreplace")


def fingerprint(value: Any) -> str:
    """A short content hash of any JSON value, independent of key order."""
    return hashlib.sha256(canonical_json_bytes(value)).hexdigest()[:16]


def tool_fingerprint(tool: Tool) -> str:
    """The fingerprint of a live tool, computed over its wire form exactly as the snapshot stores it
    (`canonical_tool`: its schemas' `required` names sorted, in whatever order this start sent them)."""
    wire = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
    return fingerprint(canonical_tool(wire))


def load_model(facade: str, modules: Mapping[str, str], name: str) -> object:
    """A model class for a facade module's `__getattr__`: import its tool's module, remember the class.

    `facade` is the facade's `__name__` (`<package>.models`); `modules` maps class name -> tool module.
    """
    module = modules.get(name)
    if module is None:
        raise AttributeError(f"module {facade!r} has no attribute {name!r}")
    package = facade.rpartition(".")[0]
    value = getattr(_tool_module(f"{package}._models", module), name)
    setattr(sys.modules[facade], name, value)
    return value


def load_tool_module(package: str, name: str) -> ModuleType:
    """A tool's models module for `_models/__init__.py`'s `__getattr__`, imported on the tool's first call.

    The import makes it an attribute of `_models`, so every later call finds it with one lookup
    and comes here no more. A name that is no module there is an `AttributeError`, as for any module.
    """
    if not name.isidentifier():
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return _tool_module(package, name)


def _tool_module(package: str, name: str) -> ModuleType:
    """Import a tool's models module; one that is gone means the package was regenerated (by `watch` or
    `sync`) after this process imported it, which the error says rather than only naming the module."""
    try:
        return importlib.import_module(f"{package}.{name}")
    except ModuleNotFoundError as error:
        if error.name != f"{package}.{name}":
            raise
    raise AttributeError(
        f"module {package!r} has no attribute {name!r}: no tool module {name!r} there; if the package was "
        "regenerated after this process imported it, restart the process to use it as it is now"
    )


def _lone_exception(error: BaseException) -> BaseException:
    """The exception inside (nested) groups of exactly one, else the error itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


Direction = Literal["input", "output"]

_PLAIN_JSON = frozenset({int, bool, type(None)})
"""The types `_as_json` returns as they are whatever the value: `_payload` skips the call for them
(and for an ASCII string)."""


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rule_broken(error: Any) -> str:
    """A jsonschema error's message and the schema rule it names."""
    return f"{error.message} (schema rule /{'/'.join(str(part) for part in error.absolute_schema_path)})"


def _value_problem(error: Any, whole: str) -> str:
    """A jsonschema error on a value, one line: where in it (`['count']`, or the whole value), what,
    and which rule; the runtime's own check and the SDK's check against a live schema say it alike."""
    where = "".join(f"[{part!r}]" for part in error.absolute_path) or f"the {whole}"
    return _clip(f"{where}: {_rule_broken(error)}")


class ToolContract:
    """One tool's schemas from the snapshot and its parameters' Python names, read from the JSON text
    its models module holds; each schema is compiled on first use."""

    _loaded: ClassVar[dict[str, ToolContract]] = {}

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.schemas: dict[str, Any] = {
            "input": document["input"],
            "output": document.get("output"),
        }
        self.parameters: Mapping[str, str] = document.get("parameters", {})
        self.skip_sdk_output_check: bool = document.get("skip_sdk_output_check", False)
        """The server's output schema holds references that name nothing in it, which the contract
        leaves out, or is past the work budget, which the contract leaves to the server: the SDK's
        own check of it would fail (or be refused) on every result."""
        self.headers: tuple[tuple[tuple[str, ...], str], ...] = tuple(
            (tuple(path), token) for path, token in document.get("headers", ())
        )
        """The parameters mirrored into `Mcp-Param-*` headers (`x-mcp-header`, SEP-2243): each one's
        path of property names and its header's name. The schemas keep only what validates."""
        self._checks: dict[str, SchemaCheck] = {}

    @classmethod
    def of(cls, text: str) -> ToolContract:
        """The contract for a models module's JSON text, parsed once per process."""
        contract = cls._loaded.get(text)
        if contract is None:
            contract = cls._loaded[text] = cls(json.loads(text))
        return contract

    def listed_input_schema(self) -> dict[str, Any]:
        """The input schema as a listing gives it to the SDK: with its `x-mcp-header` annotations."""
        schema = self.schemas["input"]
        if not isinstance(schema, dict):
            return {"type": "object"}
        if not self.headers:
            return schema
        annotated: dict[str, Any] = json.loads(json.dumps(schema))
        for path, token in self.headers:
            node = annotated
            for name in path:
                node = node["properties"][name]
            node["x-mcp-header"] = token
        return annotated

    def where(self, wire: str) -> str:
        """How an error names the argument sent as `wire`: by its parameter's Python name."""
        python = self.parameters.get(wire)
        if python is None:
            return f"extra argument {wire!r}"
        return f"argument {python}" if python == wire else f"argument {python} (sent as {wire!r})"

    def problem(self, direction: Direction, value: Any) -> str | None:
        """None when `value` fits the schema of `direction`, else a one-line reason naming where and
        which rule; `CheckPastBudget` when checking it takes more than its step budget."""
        check = self._checks.get(direction)
        if check is None:
            check = self._checks[direction] = SchemaCheck(self.schemas[direction])
        fast = check.fast
        try:
            if fast is not None and fast(
                value
            ):  # SchemaCheck.problem's first step, inlined: every call takes it
                return None
        except RecursionError:  # a `$ref` cycle that never reaches a type: the verdict says so
            pass
        error = check.verdict(value)
        if error is None:
            return None
        if isinstance(error, Exception) and not hasattr(error, "schema_path"):
            return _clip(f"its {direction} schema cannot be applied here: {error}")
        path = list(error.absolute_path)
        if direction == "input" and path:
            where = self.where(str(path[0]))
            if len(path) > 1:
                where += " at " + "".join(f"[{part!r}]" for part in path[1:])
            return _clip(f"{where}: {_rule_broken(error)}")
        return _value_problem(error, "arguments" if direction == "input" else "result")


class _NotJson(ValueError):
    """A caller's value that no JSON text carries as it is, so it is refused before anything is sent:
    a float that is no JSON number (NaN, Infinity: the MCP SDK writes them as `null`) or a string
    holding a surrogate code point (no UTF-8 text holds one: the SDK's writer fails, and over stdio
    the whole session ended, as if the server had gone)."""


def _json_text(value: str) -> str:
    """`value` unless it holds a surrogate code point (`_NotJson`)."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise _NotJson(
                f"the text {_clip(repr(value), 60)} holds a lone surrogate ({value[error.start]!r}), "
                "which no UTF-8 JSON text can carry"
            ) from None
    return value


def _as_json(value: Any) -> Any:
    """A caller's value as the JSON it stands for, changing nothing that already is JSON: a model
    becomes what it was given (by wire names, unset fields left out), a tuple a list, anything else
    pydantic can encode (dates, UUIDs, URLs, enums) its JSON form. A value JSON cannot carry as it
    is raises `_NotJson`, rather than reach the server as something else."""
    kind = type(value)
    if kind is str:
        return _json_text(value)
    if kind is float:
        if math.isfinite(value):
            return value
        raise _NotJson(f"{value!r} is no JSON number (the MCP SDK would send null)")
    if kind is int or kind is bool or value is None:
        return value
    if kind is dict:
        return {
            _json_text(name) if type(name) is str else name: _as_json(item)
            for name, item in value.items()
        }
    if kind is list or kind is tuple:
        return [_as_json(item) for item in value]
    from pydantic import BaseModel
    from pydantic_core import to_jsonable_python

    if isinstance(value, BaseModel):
        return _as_json(value.model_dump(mode="json", by_alias=True, exclude_unset=True))
    if isinstance(value, Mapping):
        return {name: _as_json(item) for name, item in value.items()}
    return to_jsonable_python(value, by_alias=True)


def _is_unknown_tool(message: str, tool: str) -> bool:
    """Whether an error answer to a call of `tool` says the server has no such tool: "Unknown tool: x"
    (the Python SDK), "Tool x not found" (the TypeScript SDK), "tool not found"; not one that names
    the tool and something else not found ("Invalid arguments for tool x: path not found")."""
    import re

    lowered = message.lower()
    if "unknown tool" in lowered or "tool not found" in lowered:
        return True
    named = rf"\btool\W+{re.escape(tool.lower())}\W*\s(?:was |is )?not found"
    return re.search(named, lowered) is not None


_ADJUSTED = "_mcp_stubgen_adjusted"
"""Marks a hook a generated client put on the SDK session it wraps, so wrapping that session again
(a client per request over one connection) does not nest the hook one level deeper each time."""


def _check_outputs_in_linear_time(client: Client | ClientSession) -> None:
    """Have the SDK check each result against the tool's live output schema with `offline_validator`:
    its own `jsonschema` validator runs a server-chosen `pattern` in Python's backtracking `re`, and one
    result can hold the event loop for years. The SDK still checks the schema and caches by tool. A
    live schema `past_budget` (a fan-out of references) is refused as one that cannot be applied."""
    session: Any = getattr(
        client, "session", client
    )  # an opened `mcp.Client` holds its `ClientSession`
    build = getattr(session, "_output_schema_validator", None)
    if build is None or getattr(
        build, _ADJUSTED, False
    ):  # a stand-in session, or one already adjusted
        return
    linear: dict[str, tuple[Any, Any, str | None]] = {}

    def output_schema_validator(name: str, output_schema: dict[str, Any]) -> Any:
        sdk_validator = build(name, output_schema)
        if name not in linear or linear[name][0] is not sdk_validator:
            too_much = past_budget(output_schema)
            validator = None if too_much else offline_validator(output_schema)
            linear[name] = (sdk_validator, validator, too_much)
        _, validator, too_much = linear[name]
        if too_much is not None:  # checking a result against it might never end
            raise RuntimeError(f"{_LIVE_SCHEMA_UNUSABLE} {name}: the schema {too_much}")
        return validator

    setattr(output_schema_validator, _ADJUSTED, True)
    session._output_schema_validator = output_schema_validator


def _read_raw_tool_results(client: Client | ClientSession) -> None:
    """Read a `tools/call` (or `tasks/result`) answer before the SDK parses it: give a 2026-07-28
    result without `resultType` the `"complete"` SEP-2322 says it means (mcp 2.3.0's check of the
    2026-07-28 schema requires the field and refuses the result), and refuse one whose `isError` is
    not a JSON boolean (-32700, `ServerError` for the caller), which the SDK's lax parse would read
    as `"yes"` -> true, `"no"` -> false, `1` -> true: a result that may or may not be a failure, or
    whose `structuredContent` holds a number JSON has none for (`NaN`, `Infinity`, which the SDK's
    parser takes, or `1e400`, which reads as infinite), returned as a float no schema rule refuses.
    Every call stays on the SDK's own path; only that one absent field is filled."""
    session: Any = getattr(
        client, "session", client
    )  # an opened `mcp.Client` holds its `ClientSession`
    dispatcher = getattr(session, "_dispatcher", None)
    if dispatcher is None or getattr(
        dispatcher.send_raw_request, _ADJUSTED, False
    ):  # a stand-in, or done
        return
    send_raw_request = dispatcher.send_raw_request

    async def read_raw(method: str, params: Any, options: Any = None, **more: Any) -> Any:
        raw = await send_raw_request(method, params, options, **more)
        if method not in _TOOL_RESULT_METHODS or not isinstance(raw, dict):
            return raw
        flag = raw.get("isError", False)
        if type(flag) is not bool:
            from mcp.shared.exceptions import MCPError

            raise MCPError(
                _NOT_MCP,
                f"its answer is not valid MCP (isError is {_clip(json.dumps(flag), 40)}, not a JSON "
                "boolean, so whether the tool failed is unknown); tell the server's maintainers",
            )
        if _holds_no_json_number(raw.get("structuredContent")):
            from mcp.shared.exceptions import MCPError

            raise MCPError(
                _NOT_MCP,
                "its answer is not valid MCP (its structuredContent holds NaN or an infinite number, "
                "which JSON has no number for); tell the server's maintainers",
            )
        modern = (session.protocol_version or "") >= _FIRST_MODERN_PROTOCOL
        if method == "tools/call" and modern and "resultType" not in raw:
            raw["resultType"] = "complete"
        return raw

    setattr(read_raw, _ADJUSTED, True)
    dispatcher.send_raw_request = read_raw


def _holds_no_json_number(value: Any) -> bool:
    """Whether a parsed answer holds a float that is no JSON number (NaN, an infinity)."""
    kind = type(value)
    if kind is float:
        return not math.isfinite(value)
    if kind is dict:
        for item in value.values():
            if type(item) in _CONTAINERS_AND_FLOAT and _holds_no_json_number(item):
                return True
    elif kind is list:
        for item in value:
            if type(item) in _CONTAINERS_AND_FLOAT and _holds_no_json_number(item):
                return True
    return False


_CONTAINERS_AND_FLOAT = frozenset({dict, list, float})
"""The types `_holds_no_json_number` looks into: a string or an integer is a JSON value as it is."""

_TOOL_RESULT_METHODS = frozenset({"tools/call", "tasks/result"})
"""The requests answered with a tool's result (`CallToolResult`), read raw by `_read_raw_tool_results`."""


def _fail_unreadable_answers(client: Client | ClientSession, server: str) -> None:
    """Fail a request at once when its answer is a line the SDK cannot read: JSON its parser refuses
    (a string holding a lone UTF-16 surrogate, half an emoji; an integer past Python's digit limit;
    nesting past the parser's depth), or an answer that is neither a result object nor an error
    (`"result": null`) or not JSON-RPC 2.0 (`"jsonrpc": null`). The SDK's stdio transport drops
    such a line, and the request would wait for ever, or until its timeout. `_stdio.read_refused`
    finds which request the line answers (by its top-level members, past any nesting); that
    request gets a -32700 error answer, which the caller sees as `ServerError`. The line is not
    passed on to the message handler as well: the session `Hub.connect_from_config` holds ends on
    an unreadable line it hears of, which must not end it for an answer that failed one call, nor
    for one no request waits for (a second answer, another id): each is one warning."""
    session: Any = getattr(
        client, "session", client
    )  # an opened `mcp.Client` holds its `ClientSession`
    dispatcher = getattr(session, "_dispatcher", None)
    observe = getattr(dispatcher, "on_stream_exception", None)
    if (
        dispatcher is None
        or not hasattr(dispatcher, "_pending")
        or getattr(observe, _ADJUSTED, False)
    ):
        return

    async def on_stream_exception(error: Exception) -> None:
        from pydantic import ValidationError

        problems = error.errors() if isinstance(error, ValidationError) else []
        # the line, or what it held once parsed: a member's problem (`"jsonrpc": null`) holds that
        # member's value, a member missing from the message (an answer's `method`) the message
        read = next(
            (
                problem["input"]
                for problem in problems
                if problem["type"] == "missing" and len(problem["loc"]) == 2
            ),
            problems[0].get("input") if problems else None,
        )
        request_id = None
        if isinstance(read, str | bytes):  # a line that is not UTF-8 (`_stdio`) comes as its bytes
            from ._stdio import read_refused

            answer = read_refused(read)
        else:
            answer = read
        if isinstance(answer, list):  # a batch: each answer in it fails its own request
            from ._http import BATCH

            for item in answer:
                waiting = item.get("id") if isinstance(item, dict) else None
                if type(waiting) in (int, str) and waiting in dispatcher._pending:
                    from mcp.types import ErrorData

                    dispatcher._resolve_pending(waiting, ErrorData(code=_NOT_MCP, message=BATCH))
            return
        if isinstance(answer, dict) and "method" not in answer:
            request_id = answer.get("id")
            if type(request_id) not in (int, str):  # no request's id (`{}`, `null`, `1.5`)
                import logging

                logging.getLogger(__name__).warning(
                    "%s: the server sent an answer whose id no request has (%s); it was left out",
                    server,
                    _clip(repr(request_id), 40),
                )
                return
        if type(request_id) in (int, str):  # an answer: its request's error, or a stray one
            from mcp.types import ErrorData

            if isinstance(read, str | bytes):
                from ._stdio import unreadable_answer

                message = unreadable_answer(read, problems[0]["msg"])
            elif isinstance(answer, dict) and answer.get("jsonrpc") != "2.0":
                message = 'its answer is not JSON-RPC 2.0 (its "jsonrpc" is not "2.0")'
            elif isinstance(answer, dict) and "error" in answer:
                message = (
                    "its error is not a JSON-RPC error object (an integer code, a string message): "
                    + _clip(repr(answer["error"]), 100)
                )
            else:
                message = "its answer holds neither a result object nor an error"
            # a second answer, or one to an id never sent, is dropped with `_warn_of_stray_answers`'
            # warning: the session `Hub.connect_from_config` holds must not end on it either
            dispatcher._resolve_pending(request_id, ErrorData(code=_NOT_MCP, message=message))
            return  # the line is that request's error now, not news for the message handler too
        if observe is not None:
            await observe(error)

    setattr(on_stream_exception, _ADJUSTED, True)
    dispatcher.on_stream_exception = on_stream_exception


def _prime(
    client: Client | ClientSession,
    tool: str,
    input_schema: Callable[[], Mapping[str, Any]],
    output_schema: Mapping[str, Any] | None = None,
) -> None:
    """Give the SDK session a tool as the snapshot lists it (`input_schema` gives its input schema,
    asked only then: a generated client's copies the schema to add its header annotations), unless a
    listing already did: its
    `x-mcp-header` parameters are then mirrored into `Mcp-Param-*` headers from the first call
    (else the server refuses the call, and the SDK lists every tool and sends it again). A generated
    client's call gives no output schema, as the runtime checks results against the snapshot's
    itself; the hub's gives the snapshot's, which the SDK then checks. Either way the SDK, which
    lists every tool on a call of a tool it has not seen listed, lists none."""
    session: Any = getattr(client, "session", client)
    if tool in getattr(
        session, "_tool_output_schemas", ()
    ):  # every call after the first takes this way out
        return
    from mcp.client import ClientSession

    if not isinstance(session, ClientSession):
        return
    from mcp.types import ListToolsResult, Tool

    output = None if output_schema is None else dict(output_schema)
    listed = Tool(name=tool, input_schema=dict(input_schema()), output_schema=output)
    session._absorb_tool_listing(ListToolsResult(tools=[listed]), complete=False)


def _list_tools_entry_by_entry(client: Client | ClientSession, server: str) -> None:
    """Have the SDK session read each `tools/list` page it sends as `list_page` does: entry by entry
    once the SDK refuses the page, each entry left out logged as a warning naming the server, and a
    listing that loops or holds too much (`ListingBound`) a `PaginationError`. The
    session lists the tools in the middle of a call: to learn the `Mcp-Param-*` headers of a call the
    server refused for them (-32020), or the output schema of a tool no listing gave it (a call
    through a hub that never listed, or straight through the SDK client), and its check of the whole
    page failed the call for one malformed tool."""
    session: Any = getattr(client, "session", client)
    if not hasattr(session, "_absorb_tool_listing") or getattr(
        session.list_tools, _ADJUSTED, False
    ):  # a stand-in session, or one already adjusted
        return
    # the current listing's bound, and the cursor that goes on with it: a request for any other
    # page (the first, or one asked for again) starts a new listing
    listing: list[Any] = [ListingBound(), None]

    async def list_tools(*, params: PaginatedRequestParams | None = None) -> ListToolsResult:
        cursor = None if params is None else params.cursor
        if cursor is None or cursor != listing[1]:
            listing[0] = ListingBound()
        bound: ListingBound = listing[0]
        meta = None if params is None else params.meta
        page, left_out, size = await list_page(session, "tools/list", cursor, meta=meta)
        number = bound.pages + 1
        stop = bound.stop(size, page.next_cursor)
        if stop is not None:
            raise PaginationError(server, stop)
        listing[1] = page.next_cursor
        for entry in left_out:
            import logging

            logging.getLogger(__name__).warning(
                "%s: %s",
                server,
                dataclasses.replace(entry, page=number).warning("it was left out"),
            )
        listed: ListToolsResult = session._absorb_tool_listing(
            page, complete=cursor is None and page.next_cursor is None
        )
        return listed

    setattr(list_tools, _ADJUSTED, True)
    session.list_tools = list_tools


_CANCELLED_REMEMBERED: Final = 1024
"""How many of the requests a session cancelled it remembers, to drop their late answers silently."""


def _warn_of_stray_answers(client: Client | ClientSession, server: str) -> None:
    """One warning naming the server for an answer no request waits for (an id never sent, a second
    answer, one after its call gave up): the SDK drops it with a debug line, so a call whose answer
    came with another id waited on without a word. An answer to a request the client cancelled
    (`notifications/cancelled`, sent on a timeout) is dropped silently, as MCP says the client should:
    mcp 1.x servers answer such a call anyway."""
    session: Any = getattr(client, "session", client)
    dispatcher: Any = getattr(session, "_dispatcher", None)
    resolve = getattr(dispatcher, "_resolve_pending", None)
    if resolve is None or not hasattr(dispatcher, "_pending") or getattr(resolve, _ADJUSTED, False):
        return
    from mcp.shared.dispatcher import coerce_request_id

    cancelled: dict[Any, None] = {}  # oldest first
    cancel_outbound = getattr(dispatcher, "_cancel_outbound", None)
    if cancel_outbound is not None:

        async def cancel(request_id: Any, *rest: Any) -> None:
            cancelled[coerce_request_id(request_id)] = None
            if len(cancelled) > _CANCELLED_REMEMBERED:
                del cancelled[next(iter(cancelled))]
            await cancel_outbound(request_id, *rest)

        dispatcher._cancel_outbound = cancel

    def resolve_pending(request_id: Any, outcome: Any) -> None:
        known = None if request_id is None else coerce_request_id(request_id)
        if known in cancelled and known not in dispatcher._pending:
            del cancelled[known]
        elif request_id is None or known not in dispatcher._pending:
            import logging

            what = (
                "an error answer without an id"
                if request_id is None
                else f"an answer to request {_clip(repr(request_id), 40)}"
            )
            logging.getLogger(__name__).warning(
                "%s: the server sent %s, which no request waits for (never sent, answered already, "
                "or given up on); it was left out",
                server,
                what,
            )
        resolve(request_id, outcome)

    setattr(resolve_pending, _ADJUSTED, True)
    dispatcher._resolve_pending = resolve_pending


class GeneratedClient:
    """The base of every generated client: holds a connected SDK client and does the calling.

    Generated subclasses add one typed method per tool, resource, template and prompt; the
    helpers here validate arguments before anything is sent and results before they are returned.
    """

    server_name: ClassVar[str] = ""
    snapshot_fingerprint: ClassVar[str] = ""
    instructions: ClassVar[str | None] = None
    """The server's instructions from the snapshot: prose addressed to a model, kept out of the docstring."""
    tool_fingerprints: ClassVar[Mapping[str, str]] = {}
    client_capabilities: ClassVar[tuple[str, ...]] = ()
    """The client capabilities the snapshot's handshake declared; `connect` needs a handler for each."""
    parse_text_json: ClassVar[bool] = False
    """Read a structured result from its one JSON text block when the server sends no `structuredContent`."""
    tool_task_support: ClassVar[Mapping[str, TaskSupport]] = {}
    """The tools that may run as a task (`execution.taskSupport`); a `required` one always does."""
    protocol_version: ClassVar[str] = ""
    """The protocol the snapshot recorded: `connect` speaks a dated (pre-2026) one with the legacy
    handshake, without first probing `server/discover`."""

    def __init__(self, client: Client | ClientSession) -> None:
        self._mcp_client = client
        self._block_ended = False
        _check_outputs_in_linear_time(client)
        _read_raw_tool_results(client)
        _fail_unreadable_answers(client, self.server_name)
        _warn_of_stray_answers(client, self.server_name)
        _list_tools_entry_by_entry(client, self.server_name)

    @classmethod
    def connect(
        cls,
        server: StdioServerParameters | str | Transport,
        *,
        sampling_callback: SamplingHandler | None = None,
        elicitation_callback: ElicitationHandler | None = None,
        list_roots_callback: ListRootsHandler | None = None,
        logging_callback: LoggingHandler | None = None,
        auth: httpx2.Auth | None = None,
        connect_timeout: float | None = CONNECT_TIMEOUT,
        **client_options: Any,
    ) -> AbstractAsyncContextManager[Self]:
        """Connect with `mcp.Client(server, ...)` and wrap it; the connection closes on exit.

        A server that has not completed the handshake within `connect_timeout` seconds (start-up
        included; `None` waits without end) raises `HandshakeTimeoutError`. A stdio server that said
        it listens on an HTTP URL and then wrote nothing on stdout for a third of it serves HTTP:
        the error names the URL to connect to instead.

        A `StdioServerParameters` server is started by the runtime's own stdio transport (`_stdio`),
        which reads a long answer in linear time.

        `auth` authenticates a URL server's HTTP requests: the SDK's OAuth providers, or
        `stored_auth(server_id)` for the tokens `mcp-stubgen auth login` stored.

        The handlers are `mcp.Client`'s: giving one declares its capability in the handshake and
        answers the server's requests (`sampling/createMessage`, `elicitation/create`, `roots/list`;
        `logging_callback` hears log messages). Each may be a plain function or an async one. Each capability the snapshot was taken declaring
        needs its handler (`MissingHandlerError`), since the server lists some tools only then.
        The handshake is the one the snapshot recorded (`mode="legacy"` for a dated protocol,
        else `"auto"`), unless `mode=` is given. `auto`'s `server/discover` probe answered with an
        HTTP error that says nothing of the server's protocol (a 429, a 5xx) fails the handshake
        there, where the SDK would take it for a legacy server and send `initialize`.
        """

        handlers = client_handlers(
            cls.server_name,
            cls.client_capabilities,
            "connect()",
            sampling_callback=sampling_callback,
            elicitation_callback=elicitation_callback,
            list_roots_callback=list_roots_callback,
            logging_callback=logging_callback,
        )
        dated = "" < cls.protocol_version < _FIRST_MODERN_PROTOCOL
        client_options.setdefault("mode", "legacy" if dated else "auto")
        if auth is not None and not isinstance(server, str):
            raise TypeError(
                f"{cls.server_name}: auth= needs the server's URL, not {type(server).__name__}"
            )
        if isinstance(server, str) and not _http_url(server):
            # a command line passed as a string would otherwise fail the handshake as a URL error
            raise ValueError(
                f"{cls.server_name}: connect takes an http:// or https:// URL, a transport, or for"
                " a command StdioServerParameters(command=..., args=[...]); the string given is"
                " not such a URL"
            )
        if connect_timeout is not None and (
            not isinstance(connect_timeout, int | float)
            or isinstance(connect_timeout, bool)
            or not connect_timeout > 0
        ):
            raise ValueError(
                f"{cls.server_name}: connect_timeout is a number of seconds above 0, or None to wait "
                f"without end; not {connect_timeout!r}"
            )
        cache: Any = client_options.get("cache")
        shared_store = getattr(cache, "store", None) is not None
        if isinstance(server, str) and shared_store and cache.target_id is None:
            # its entries are the URL's, as `mcp.Client(url)` keys them (the runtime passes a transport)
            target = _without_userinfo(server)
            client_options["cache"] = dataclasses.replace(cache, target_id=target)

        @asynccontextmanager
        async def connected() -> AsyncIterator[Self]:
            import anyio
            from mcp.client.stdio import StdioServerParameters

            from ._http import http_transport
            from ._stdio import HTTP_QUIET_SHARE, StartupWatch, pipes_served, stdio_transport

            transport: StdioServerParameters | str | Transport = server
            watch = StartupWatch()
            if isinstance(server, StdioServerParameters):
                transport = stdio_transport(server, cls.server_name, watch)
            elif isinstance(server, str):
                transport = http_transport(server, cls.server_name, auth)
            connecting = True
            # One scope around the whole session keeps anyio's scopes nested: its deadline bounds
            # start-up and the handshake, and is lifted once the client is connected.
            with anyio.CancelScope() as handshake:
                watching: AbstractContextManager[None] = nullcontext()
                if connect_timeout is not None:
                    handshake.deadline = anyio.current_time() + connect_timeout
                    if isinstance(server, StdioServerParameters) and pipes_served():
                        quiet = connect_timeout * HTTP_QUIET_SHARE
                        watching = _ended_early_if_it_serves_http(watch, handshake, quiet)
                try:
                    probing = _probing_client_class()(
                        transport,
                        **handlers,
                        **client_options,
                    )
                    probing.server_name = cls.server_name  # type: ignore[attr-defined]
                    async with AsyncExitStack() as session:
                        with watching:
                            client = await session.enter_async_context(probing)
                        connecting = False
                        handshake.deadline = math.inf
                        wrapper = cls(client)
                        try:
                            yield wrapper
                        finally:
                            wrapper._block_ended = True
                except BaseException as error:
                    if connecting and handshake.cancel_called and connect_timeout is not None:
                        late = _handshake_timeout(cls.server_name, server, connect_timeout, watch)
                        raise late from None
                    # The SDK's task groups wrap whatever leaves the block, a `ToolError` of the caller's
                    # own included; a lone exception reaches the caller as itself, so `except` finds it.
                    lone = _lone_exception(error)
                    if connecting:
                        exited = _exited_at_once(server, watch)
                        refused = _handshake_error(cls.server_name, lone, exited)
                    else:  # the HTTP transport's own failure (the server gone mid-call) ends the block
                        refused = _connection_error(cls.server_name, "the connection", lone)
                    if refused is not None:
                        raise refused from (lone.answer if isinstance(lone, _EraUnknown) else lone)
                    if lone is error:
                        raise
                    raise lone from lone.__cause__

        return connected()

    @property
    def mcp_client(self) -> Client | ClientSession:
        """The SDK client this wraps. Once the `async with` block of `connect` has ended it is closed, and
        any use says so by the server's name (the SDK's own error names neither the block nor the server)."""
        if self._block_ended:
            raise RuntimeError(
                f"{self.server_name}: this client is closed: its `async with` block has ended; call it "
                "inside the block, or connect again"
            )
        return self._mcp_client

    async def verify(self, *, max_pages: int = MAX_PAGES) -> None:
        """List the live server's tools and raise `CatalogDriftError` if any generated tool changed or vanished.

        A generated tool the server lists in a form that is not valid MCP (its `inputSchema` a
        string, say) can no longer be called as generated: it is missing, and the error says why.
        Such an entry for a tool the package does not have is left out with a logged warning. A
        server whose paging never ends (a repeated cursor, more than `max_pages` pages, more than `MAX_LISTING_BYTES` held) raises
        `PaginationError` instead of listing forever.
        """
        tools, left_out = await list_tools(
            self.mcp_client,
            self.server_name,
            max_pages,
            " (pass a larger verify(max_pages=...))",
        )
        live = {tool.name: tool_fingerprint(tool) for tool in tools}
        unusable: dict[str, str] = {}
        for entry in left_out:
            if (
                entry.name is not None
                and entry.name in self.tool_fingerprints
                and entry.name not in live
            ):
                unusable.setdefault(entry.name, entry.describe())
                continue
            import logging

            logging.getLogger(__name__).warning(
                "%s: %s", self.server_name, entry.warning("it was left out")
            )
        missing = sorted(name for name in self.tool_fingerprints if name not in live)
        drifted = sorted(
            name
            for name, expected in self.tool_fingerprints.items()
            if name in live and live[name] != expected
        )
        if missing or drifted:
            raise CatalogDriftError(
                self.server_name, missing=missing, drifted=drifted, unusable=unusable
            )

    async def _send(
        self,
        tool: str,
        terms: ToolContract,
        arguments: Mapping[Any, object] | BaseModel,
        extra: Mapping[str, object] | NotGiven = NOT_GIVEN,
        call_options: CallOptions | None = None,
    ) -> CallToolResult:
        """Send the given arguments by their wire names, exactly as given (with `extra`, more of them
        where the schema allows them), once they fit the tool's input schema; raise on failure.
        A model (a root union's member) is sent as it dumps by wire names. Keys are typed `Any`: a map
        whose names a `propertyNames` enum lists is a `dict[Literal[...], X]`, which no
        `Mapping[str, ...]` accepts (a mapping's key type is invariant)."""
        payload = self._payload(tool, terms, arguments, extra)
        _prime(self.mcp_client, tool, terms.listed_input_schema)
        try:
            if self.tool_task_support.get(tool) == "required":
                result = await self._run_task(tool, payload, call_options or {})
            elif terms.schemas["output"] is not None and (
                self.parse_text_json or terms.skip_sdk_output_check
            ):
                result = await self._send_unchecked(tool, payload, call_options or {})
            elif call_options:
                timeout, progress = (
                    _timeout(call_options),
                    _progress(call_options.get("on_progress"), self.server_name, tool),
                )
                result = await self.mcp_client.call_tool(
                    tool, payload, timeout, progress, meta=_meta(call_options)
                )
            else:
                result = await self.mcp_client.call_tool(tool, payload)
        except Exception as error:
            from mcp.shared.exceptions import MCPError  # here, not on the way of every call

            if isinstance(error, MCPError):
                self._raise_for(tool, error, call_options)
            refused = _result_error(self.server_name, tool, error)
            if refused is not None:
                raise refused from None
            raise
        return self._accepted(tool, result)

    def _raise_for(self, tool: str, error: MCPError, call_options: CallOptions | None) -> NoReturn:
        """Raise the client's own error for the SDK's `error` to a call of `tool`."""
        if error.code in (_INVALID_PARAMS, _METHOD_NOT_FOUND) and _is_unknown_tool(
            error.message, tool
        ):
            raise UnknownToolError(self.server_name, tool, error.message) from error
        if error.code == _REQUEST_TIMEOUT and call_options and "timeout" in call_options:
            raise RequestTimeoutError(
                self.server_name, f"tool {tool!r}", call_options["timeout"]
            ) from None
        raise _answer_error(
            self.server_name,
            f"tool {tool!r}",
            error,
            _call_advice(self.protocol_version, error),
        ) from error

    def _payload(
        self,
        tool: str,
        terms: ToolContract,
        arguments: Mapping[Any, object] | BaseModel,
        extra: Mapping[str, object] | NotGiven,
    ) -> dict[str, Any]:
        """The arguments to send by wire name, once they fit the tool's input schema."""
        if type(arguments) is dict or isinstance(arguments, Mapping):
            given: Mapping[Any, object] = arguments
        else:
            try:
                given = _as_json(arguments)
            except _NotJson as error:
                raise ToolArgumentsError(
                    tool, f"the arguments: {error}", server=self.server_name
                ) from None
        payload: dict[str, Any] = {}
        for (
            name,
            value,
        ) in given.items():  # a loop, not a comprehension: no frame of its own on every call
            if value is NOT_GIVEN:
                continue
            if type(value) in _PLAIN_JSON or (type(value) is str and value.isascii()):
                payload[name] = value
                continue
            try:
                payload[name] = _as_json(value)
            except _NotJson as error:
                raise ToolArgumentsError(
                    tool, f"{terms.where(name)}: {error}", server=self.server_name
                ) from None
        if not isinstance(extra, NotGiven):
            for name, value in extra.items():
                if name in terms.parameters:
                    raise ToolArgumentsError(
                        tool,
                        f"extra argument {name!r} is the parameter {terms.parameters[name]}: pass it by that name",
                        server=self.server_name,
                    )
                try:
                    payload[name] = _as_json(value)
                except _NotJson as error:
                    raise ToolArgumentsError(
                        tool, f"{terms.where(name)}: {error}", server=self.server_name
                    ) from None
        try:
            problem = terms.problem("input", payload)
        except CheckPastBudget as error:
            raise ToolArgumentsError(
                tool,
                f"the arguments could not be checked against its input schema: {error}",
                server=self.server_name,
            ) from None
        if problem is not None:
            raise ToolArgumentsError(tool, problem, server=self.server_name)
        return payload

    def _accepted(self, tool: str, result: CallToolResult) -> CallToolResult:
        """The result, unless its base64 is not standard (`ServerError`) or the server reported the
        tool failing (`ToolError`) or not known."""
        _check_result_base64(self.server_name, tool, result)
        if result.is_error:
            from mcp.types import TextContent

            texts = [block.text for block in result.content if isinstance(block, TextContent)]
            if len(texts) == 1 and texts[0].lower().startswith("unknown tool"):
                raise UnknownToolError(self.server_name, tool, texts[0])
            raise ToolError(tool, result.content, server=self.server_name)
        return result

    async def _send_unchecked(
        self, tool: str, payload: dict[str, Any], call_options: CallOptions
    ) -> CallToolResult:
        """`tools/call` without the SDK's output check, which refuses a result without
        `structuredContent` before its JSON text can be read; the runtime checks the output itself.

        Otherwise it does what `mcp.Client.call_tool` does: a server that needs input first
        (`input_required`, SEP-2322) has its requests answered by the `connect` handlers and the call
        sent again with the answers, and a call the server refuses for its `Mcp-Param-*` headers
        (-32020) is sent once more after the tools are listed again."""
        from mcp.client._input_required import run_input_required_driver
        from mcp.client.session import ClientRequestContext
        from mcp.shared.exceptions import MCPError
        from mcp.types import CallToolRequest, CallToolRequestParams, InputRequiredResult

        session = self._session()
        timeout = _timeout(call_options)
        progress = _progress(call_options.get("on_progress"), self.server_name, tool)

        async def send(
            responses: InputResponses | None, state: str | None
        ) -> CallToolResult | InputRequiredResult:
            params = CallToolRequestParams(
                name=tool,
                arguments=payload,
                input_responses=responses,
                request_state=state,
                _meta=_meta(call_options),
            )
            request = CallToolRequest(params=params)
            try:
                return await session.send_request(
                    request, _call_tool_answer(), timeout, None, progress
                )
            except MCPError as error:
                if error.code != _HEADER_MISMATCH:
                    raise
            await self._list_until(tool)
            return await session.send_request(request, _call_tool_answer(), timeout, None, progress)

        async def answer(key: str, request: InputRequest) -> InputResponse | ErrorData:
            meta = request.params.meta if request.params else None
            return await session.dispatch_input_request(
                ClientRequestContext(session=session, request_id=key, meta=meta), request
            )

        first = await send(None, None)
        if not isinstance(first, InputRequiredResult):
            return first
        rounds = getattr(self.mcp_client, "input_required_max_rounds", _INPUT_REQUIRED_MAX_ROUNDS)
        return await run_input_required_driver(
            first, dispatch=answer, retry=send, max_rounds=rounds
        )

    async def _list_until(self, tool: str) -> None:
        """List the tools again, page by page, until `tool` is listed: the session then knows its current
        schema. Each page is read entry by entry, and the listing bounded (`_list_tools_entry_by_entry`)."""
        from mcp.types import PaginatedRequestParams

        session = self._session()
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
            cursor = page.next_cursor
            if cursor is None or any(listed.name == tool for listed in page.tools):
                return

    def _session(self) -> ClientSession:
        """The SDK session: the one an opened `mcp.Client` holds, or the `ClientSession` wrapped itself
        (read without importing `mcp.Client` to test which: every call asks)."""
        client: Any = self.mcp_client
        session: ClientSession = getattr(client, "session", client)
        return session

    async def _run_task(
        self, tool: str, payload: dict[str, Any], call_options: CallOptions
    ) -> CallToolResult:
        """Run a `required` tool as a task to its end. Only a client with tools that may run as tasks
        lists them in `tool_task_support`, and its base, `_tasks.TaskClient`, does this."""
        raise NotImplementedError(f"{type(self).__name__} has no tool that runs as a task")

    async def _call(
        self,
        tool: str,
        contract: str,
        arguments: Mapping[Any, object] | BaseModel,
        extra: Mapping[str, object] | NotGiven = NOT_GIVEN,
        call_options: CallOptions | None = None,
    ) -> ToolResult:
        """Call a tool and return its result with every content block; a tool whose output schema no
        model could be made from (an untyped tool) still has its `structuredContent` checked."""
        terms = ToolContract.of(contract)
        return self._tool_result(
            tool, terms, await self._send(tool, terms, arguments, extra, call_options)
        )

    def _tool_result(self, tool: str, terms: ToolContract, result: CallToolResult) -> ToolResult:
        if (
            terms.schemas["output"] is not None
            and result.structured_content is None
            and not self.parse_text_json
        ):
            raise NoStructuredContentError(self.server_name, tool)
        if terms.schemas["output"] is not None and result.structured_content is not None:
            problem = self._output_problem(tool, terms, result.structured_content)
            if problem is not None:
                raise ToolResultError(self.server_name, tool, problem)
        return ToolResult(tool, result)

    def _output_problem(self, tool: str, terms: ToolContract, content: Any) -> str | None:
        """`terms.problem` of a result's structured content; a server whose answer takes more than
        the step budget to check is refused (`ServerError`), as a result that is not valid MCP is."""
        try:
            return terms.problem("output", content)
        except CheckPastBudget as error:
            raise _past_budget_error(self.server_name, tool, error) from None

    async def _call_structured(
        self,
        tool: str,
        contract: str,
        arguments: Mapping[Any, object] | BaseModel,
        output_model: type[OutputT],
        extra: Mapping[str, object] | NotGiven = NOT_GIVEN,
        call_options: CallOptions | None = None,
    ) -> OutputT:
        """Call a tool with an output schema and return its `structuredContent` as the output model,
        once it fits the schema: values are never changed, and one the schema allows but the model's
        types cannot hold is returned as it came rather than refused. A result without
        `structuredContent` is an error, or, with `parse_text_json`, read from its one JSON text block."""
        terms = ToolContract.of(contract)
        result = await self._send(tool, terms, arguments, extra, call_options)
        return self._structured(tool, terms, result, output_model)

    def _structured(
        self, tool: str, terms: ToolContract, result: CallToolResult, output_model: type[OutputT]
    ) -> OutputT:
        content = result.structured_content
        if content is None:
            if not self.parse_text_json:
                raise NoStructuredContentError(self.server_name, tool)
            content = ToolResult(tool, result).json()
        problem = self._output_problem(tool, terms, content)
        if problem is not None:
            raise ToolResultError(self.server_name, tool, problem)
        try:  # `model_validate` without its wrapper, which only checks arguments this call does not pass
            model: OutputT = output_model.__pydantic_validator__.validate_python(content)
            return model
        except Exception as error:
            from pydantic import ValidationError  # imported here, not on the way of every call

            if not isinstance(error, ValidationError):
                raise
            if getattr(output_model, "__pydantic_root_model__", False):
                return output_model.model_construct(content)
            return output_model.model_construct(**content)

    async def _read(
        self, uri: str, call_options: RequestOptions | None = None
    ) -> ReadResourceResult:
        """Read a static resource by its URI."""
        result = await self._request(
            f"resource {uri!r}",
            call_options,
            lambda meta: self.mcp_client.read_resource(uri, meta=meta),
        )
        return _checked_blobs(self.server_name, uri, result)

    async def _read_template(
        self,
        template: str,
        variables: Mapping[str, str | list[str] | NotGiven],
        call_options: RequestOptions | None = None,
    ) -> ReadResourceResult:
        """Expand a resource template (RFC 6570) with the given variables and read the result; an
        exploded variable (`{/path*}`) may be a list, one segment per item."""
        given = _given_texts(
            self.server_name, f"resource template {template!r}", "variable", variables, lists=True
        )
        uri = UriTemplate.parse(template).expand(given)
        result = await self._request(
            f"resource {uri!r}",
            call_options,
            lambda meta: self.mcp_client.read_resource(uri, meta=meta),
        )
        return _checked_blobs(self.server_name, uri, result)

    async def _prompt(
        self,
        prompt: str,
        arguments: Mapping[str, str | NotGiven],
        call_options: RequestOptions | None = None,
    ) -> GetPromptResult:
        """Get a prompt, sending only the arguments that were given."""
        request = f"prompt {prompt!r}"
        given = _given_texts(self.server_name, request, "argument", arguments)
        result = await self._request(
            request, call_options, lambda meta: self.mcp_client.get_prompt(prompt, given, meta=meta)
        )
        contents = (
            (f"/messages/{index}/content", message.content)
            for index, message in enumerate(result.messages)
        )
        _check_base64(self.server_name, request, contents)
        return result

    async def _complete(
        self,
        kind: Literal["prompt", "template"],
        name: str,
        argument: str,
        value: str,
        context: Mapping[str, str] | None,
        call_options: RequestOptions | None = None,
    ) -> Completion:
        """Ask the server to complete `argument` of the prompt (or variable of the resource template)
        `name` from `value`, the arguments already chosen as `context` (sent as `context.arguments`)."""
        from mcp import types

        where, named = (
            ("prompt", "argument") if kind == "prompt" else ("resource template", "variable")
        )
        request = f"completion of {where} {name!r}"
        texts = _given_texts(self.server_name, request, named, {argument: value})
        chosen = (
            None
            if context is None
            else _given_texts(self.server_name, request, f"context {named}", context)
        )
        ref: types.PromptReference | types.ResourceTemplateReference = (
            types.PromptReference(type="ref/prompt", name=name)
            if kind == "prompt"
            else types.ResourceTemplateReference(type="ref/resource", uri=name)
        )

        async def send(meta: RequestParamsMeta | None) -> types.CompleteResult:
            params = types.CompleteRequestParams(
                ref=ref,
                argument=types.CompletionArgument(name=argument, value=texts[argument]),
                context=None if chosen is None else types.CompletionContext(arguments=chosen),
                _meta=meta,
            )
            return await self._session().send_request(
                types.CompleteRequest(params=params), types.CompleteResult
            )

        completion = (await self._request(request, call_options, send)).completion
        return Completion(tuple(completion.values), completion.total, completion.has_more is True)

    async def _request(
        self,
        request: str,
        call_options: RequestOptions | None,
        send: Callable[[RequestParamsMeta | None], Awaitable[T]],
    ) -> T:
        """Send a request whose SDK method takes no timeout: the deadline cancels it, and the SDK tells
        the server so (`notifications/cancelled`), as it does for a tool call's own timeout. A
        JSON-RPC error answer raises `ServerError`."""
        from mcp.shared.exceptions import MCPError

        meta, timeout = (
            (_meta(call_options), _timeout(call_options)) if call_options else (None, None)
        )
        try:
            if timeout is None:
                return await send(meta)
            import anyio

            try:
                with anyio.fail_after(timeout):
                    return await send(meta)
            except TimeoutError:
                raise RequestTimeoutError(self.server_name, request, timeout) from None
        except MCPError as error:
            raise _answer_error(self.server_name, request, error) from error
        except Exception as error:
            refused = _not_mcp(self.server_name, request, error) or _endless_input_rounds(
                self.server_name, request, error
            )
            if refused is None:
                raise
            raise refused from error


def _past_budget_error(server: str, tool: str, error: CheckPastBudget) -> ServerError:
    """`ServerError` for a result whose structured content takes more than the step budget to check
    against the tool's output schema: a hostile answer to a schema whose alternatives name each other
    would hold the event loop for as long as the server liked."""
    return ServerError(
        server,
        f"tool {tool!r}",
        _INTERNAL_ERROR,
        f"its structuredContent could not be checked against the tool's output schema: {error}; "
        "the answer is refused, so tell the server's maintainers",
    )


def _result_error(server: str, tool: str, error: Exception) -> StubgenClientError | None:
    """The client's own error for what the SDK raised about a `tools/call` result, if it is that: its
    check against the live listing's output schema (a `RuntimeError`, which keeps the result from us;
    `CheckPastBudget` when that check ran out of steps) or a result that is not valid MCP."""
    if isinstance(error, CheckPastBudget):
        return _past_budget_error(server, tool, error)
    if not isinstance(error, RuntimeError):
        return _not_mcp(server, f"tool {tool!r}", error)
    endless = _endless_input_rounds(server, f"tool {tool!r}", error)
    if endless is not None:
        return endless
    message = str(error)
    if _NO_STRUCTURED_CONTENT in message:
        return NoStructuredContentError(server, tool)
    if message.startswith(_OFF_LIVE_SCHEMA):
        # the cause is jsonschema's error, whose one-line message leaves out where and which rule
        cause = error.__cause__
        reason = (
            _value_problem(cause, "result")
            if hasattr(cause, "absolute_schema_path")
            else message.splitlines()[0]
        )
        return ToolResultError(server, tool, f"rejects: {reason}", live=True)
    if message.startswith(_LIVE_SCHEMA_UNUSABLE):
        reason = _clip(message.partition(": ")[2], 200)
        return ToolResultError(server, tool, f"cannot be applied to ({reason})", live=True)
    return None


def _handshake_error(server: str, error: BaseException, exited: str = "") -> ServerError | None:
    """`ServerError` for what the SDK raised while connecting, where the server is the cause: an error
    answer to the handshake (or the connection closing; `auto`'s probe answered "not now"), an
    answer that is not valid MCP, or a protocol version the SDK does not speak. A 429 or 503 that
    does not say when to retry says to retry later, a 405 names the SSE transport, a 404 says to check
    the URL, and a server that takes one session per start says to restart it. `exited`: what to say
    of a stdio server that closed the connection by exiting at once (`_exited_at_once`)."""
    from mcp.shared.exceptions import MCPError

    from ._http import endpoint_advice, retry_advice

    if isinstance(error, RuntimeError) and str(error).startswith(_UNSPOKEN_VERSION):
        return ServerError(server, "the handshake", _UNSUPPORTED_PROTOCOL_VERSION, str(error))
    if isinstance(error, _EraUnknown):
        error = error.answer
    if isinstance(error, MCPError):
        data = error.error.data
        advice = retry_advice(data) or endpoint_advice(data) or _one_session_advice(error)
        return _answer_error(
            server, "the handshake", error, advice or _closed_advice(error, exited)
        )
    if not isinstance(error, Exception):
        return None
    return _server_error(server, "the handshake", error) or _connection_error(
        server, "the handshake", error
    )


@contextmanager
def _ended_early_if_it_serves_http(
    watch: StartupWatch, handshake: CancelScope, quiet: float
) -> Iterator[None]:
    """While the block runs, end the handshake (`handshake`) early for an HTTP server started as a
    stdio one: it named a URL it listens on and then wrote nothing JSON-RPC on stdout for `quiet`
    seconds (`_stdio.http_quiet_ended`, as `mcp-stubgen snapshot` watches). One that printed a
    sign-in URL waits for a person, and is not cut short."""
    import asyncio

    from ._stdio import http_quiet_ended

    async def end_if_it_serves_http() -> None:
        if (
            await http_quiet_ended(lambda: (watch.heard, watch.listening), quiet)
            and not watch.signs_in
        ):
            watch.cut_short = True
            handshake.cancel()

    ending = asyncio.ensure_future(end_if_it_serves_http())
    try:
        yield
    finally:
        ending.cancel()
        # its own failure (it only ends a wait early) is taken, not logged when it is collected
        ending.add_done_callback(lambda task: task.cancelled() or task.exception())


def _handshake_timeout(
    server_name: str, server: object, timeout: float, watch: StartupWatch
) -> HandshakeTimeoutError:
    """What to say of a server that did not complete the handshake within `connect_timeout`."""
    from mcp.client.stdio import StdioServerParameters

    from ._stdio import HTTP_QUIET_SHARE, endpoint_advice, quiet_after_url, serves_http

    waited = f"no answer to the handshake within {timeout:g}s (connect_timeout)"
    url = watch.listening
    if url:
        if watch.cut_short:
            waited = quiet_after_url(timeout * HTTP_QUIET_SHARE, url)
        else:
            waited = f"{waited}; it says it listens on {url}"
        advice = endpoint_advice(url, f'connect to that URL instead: connect("{url}")')
        return HandshakeTimeoutError(
            server_name, timeout, serves_http(server_name, waited, advice), url
        )
    if isinstance(server, str):
        advice = f"check that {_without_userinfo(server)} is the server's MCP endpoint and that the server is up"
    elif isinstance(server, StdioServerParameters):
        advice = "check that the command starts an MCP server that speaks stdio (its stderr may say why not)"
    else:
        advice = "check that the transport reaches an MCP server"
    return HandshakeTimeoutError(
        server_name,
        timeout,
        f"server {server_name!r}: {waited}; {advice}, or pass a larger connect_timeout= if it only starts slowly",
    )


class _EraUnknown(Exception):
    """`auto`'s `server/discover` probe was answered with an HTTP error page that says nothing of
    which protocol the server speaks (`_http.says_nothing_of_the_era`: a 429, a 5xx). Not an
    `MCPError`, so the SDK's `auto` policy, which falls back to `initialize` on any error answer,
    lets it through; `connect` raises `answer` as the handshake's `ServerError`."""

    def __init__(self, answer: MCPError) -> None:
        super().__init__(answer.error.message)
        self.answer = answer


@functools.cache
def _probing_client_class() -> type[Client]:
    """`mcp.Client`, whose `server/discover` probe raises `_EraUnknown` while it connects where the
    SDK would take the answer for a legacy server's refusal (made once, on first use: `mcp` is
    imported only once a connection opens)."""
    from mcp.client import Client
    from mcp.shared.exceptions import MCPError

    from ._http import says_nothing_of_the_era

    class ProbingClient(Client):
        _connecting = False
        server_name = ""
        """Who its warnings name (`connect` sets it)."""

        async def __aenter__(self) -> Self:
            self._connecting = True
            try:
                await super().__aenter__()
            finally:
                self._connecting = False
            return self

        async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
            session = await super()._build_session(exit_stack)
            probe = session.send_discover

            async def send_discover(version: str) -> dict[str, Any]:
                try:
                    return await probe(version)
                except MCPError as error:
                    if self._connecting and says_nothing_of_the_era(error.error.data):
                        raise _EraUnknown(error) from error
                    raise

            session.send_discover = send_discover  # type: ignore[method-assign]
            _leave_out_invalid_notifications(session, self.server_name)
            return session

    return ProbingClient


def _leave_out_invalid_notifications(session: ClientSession, server: str) -> None:
    """Leave out a notification that is not valid MCP (a progress of "half", a log level MCP does not
    have) with one warning naming the server and what is wrong: the SDK logged a traceback into the
    application's log for each. Set on a session not yet started: the SDK hands its dispatcher the
    handler as it starts."""
    import logging

    from mcp.types import methods
    from pydantic import ValidationError

    notify = session._on_notify

    async def on_notify(context: Any, method: str, params: Mapping[str, Any] | None) -> None:
        version = session._negotiated_version or _LATEST_HANDSHAKE_VERSION
        try:
            methods.parse_server_notification(method, version, params)
        except KeyError:  # not a notification MCP defines: the SDK's extensions, or dropped
            pass
        except ValidationError as error:
            problem = error.errors()[0]
            pointer = "/" + "/".join(str(part) for part in problem["loc"])
            logging.getLogger(__name__).warning(
                "%s: the server sent a %s that is not valid MCP (%s: %s); it was left out",
                server,
                one_line(_clip(method, 80)),
                pointer,
                one_line(_clip(problem["msg"], 200)),
            )
            return
        await notify(context, method, params)

    session._on_notify = on_notify  # type: ignore[method-assign,assignment]


def _http_url(text: str) -> bool:
    """Whether `text` is an http(s) URL with a host, the only string `connect` takes."""
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _without_userinfo(url: str) -> str:
    """`url` without credentials in its authority (`user:secret@`), which no cache key may hold."""
    scheme, slashes, rest = url.partition("//")
    if not slashes:
        return url
    end = min((at for at in map(rest.find, "/?#") if at != -1), default=len(rest))
    return scheme + slashes + rest[:end].rpartition("@")[2] + rest[end:]


def _connection_error(server: str, request: str, error: BaseException) -> ServerError | None:
    """`ServerError` (-32000, as the SDK reports a closed connection) for a failure of the HTTP
    transport itself (refused, dropped, disconnected without an answer): httpx's own error otherwise
    reaches the caller. httpx is not imported to ask: without it loaded, no error can be one of its."""
    httpx = sys.modules.get("httpx2")
    if httpx is None or not isinstance(error, httpx.TransportError):
        return None
    return ServerError(server, request, _CONNECTION_CLOSED, f"{type(error).__name__}: {error}")


def _server_error(server: str, request: str, error: Exception) -> ServerError | None:
    """`ServerError` for what the SDK raised when a request failed on the server's side: a JSON-RPC
    error answer (its `MCPError`, also the connection closing), or an answer that is not valid MCP."""
    from mcp.shared.exceptions import MCPError

    if isinstance(error, MCPError):
        return _answer_error(server, request, error)
    return _not_mcp(server, request, error)


def _answer_error(server: str, request: str, error: MCPError, advice: str = "") -> ServerError:
    """`ServerError` for a JSON-RPC error answer (its message followed by `advice`, or for the SDK's
    closed connection `_closed_advice`), or `UnauthorizedError` for the answer the HTTP transport
    (`_http.py`) makes of a request's authorization failure (its `data` names the step)."""
    from ._http import AUTH_STEP_KEY

    data = error.error.data
    step = data.get(AUTH_STEP_KEY) if isinstance(data, dict) else None
    if isinstance(step, str):
        return UnauthorizedError(server, request, step, error.code, error.message, data)
    return ServerError(
        server, request, error.code, error.message + (advice or _closed_advice(error)), data
    )


def _one_session_advice(error: MCPError) -> str:
    """What to do when a server refuses the handshake as "already initialized": a TypeScript SDK
    server that made one transport (hostinger-api-mcp's `--http`) takes one session per start."""
    if "already initialized" in error.message.lower():
        return "; the server takes one session per start and another client had it: restart it before connecting again"
    return ""


def _exited_at_once(server: object, watch: StartupWatch) -> str:
    """What to say of a stdio server that exited with status 0 before the handshake, when its command
    is a link to a Node script (`_stdio.linked_node_script`, the rule `snapshot` applies too)."""
    from mcp.client.stdio import StdioServerParameters, get_default_environment

    from ._stdio import linked_node_script, linked_node_script_advice

    if not isinstance(server, StdioServerParameters) or watch.exit_status != 0:
        return ""
    path = (get_default_environment() | (server.env or {})).get("PATH")
    command = server.command
    if server.cwd is not None and os.path.dirname(command) and not os.path.isabs(command):
        command = os.path.join(server.cwd, command)  # as the started process reads it
    script = linked_node_script(command, path)
    if script is None:
        return ""
    start = f"StdioServerParameters(command={'node'!r}, args={[script, *server.args]!r})"
    return "; the server exited with status 0 before answering; " + linked_node_script_advice(
        script, start
    )


def _closed_advice(error: MCPError, exited: str = "") -> str:
    """What to do when the SDK ended a request because the connection closed under it (stdio: the
    server exited, or closed its stdout): nothing more can be sent on that connection. `exited`
    replaces it for a server whose exit says why (`_exited_at_once`)."""
    if error.code == _CONNECTION_CLOSED and error.message == "Connection closed":
        if exited:
            return exited
        return (
            "; the server exited or closed the connection before answering (its stderr or log says "
            "why): connect again"
        )
    return ""


def _call_advice(protocol_version: str, error: MCPError) -> str:
    """What to do when a server refuses a `tools/call`: its arguments were checked against the tool's
    input schema before it was sent, so "invalid params" says the server's schema is no longer that
    one (a parameter added, renamed or retyped since the snapshot: sync), or that the server holds
    the values to rules of its own that its schema does not state (grok-search-rs on rmcp 2.2 refuses
    a private URL so): `drift` tells which. And when a server listed
    its tools in a 2026-07-28 session but refuses a call for want of `initialize` (kglite 0.21.2 on
    rmcp 3.5 answers every `tools/call` so): the older handshake. And when it refuses a call's
    `Mcp-Param-*` headers (-32020) where no listing and second try followed (a task-augmented call:
    the 2026-07-28 spec's retry is for its own `tools/call`, whose tasks are an extension; or one
    refused again after it): the snapshot's `x-mcp-header` annotations are not the server's now."""
    if error.code == _HEADER_MISMATCH:
        return (
            "; the server wants other Mcp-Param-* headers than the tool's x-mcp-header annotations "
            "in the snapshot give: run `mcp-stubgen sync` to pick up its current ones"
        )
    if error.code == _URL_ELICITATION_REQUIRED:
        return _url_elicitation_advice(error.error.data)
    if error.code == _INVALID_PARAMS:
        return (
            "; the arguments fit the tool's input schema as this client has it: the server refused "
            "their values by rules of its own, or its schema has changed since the snapshot "
            "(`mcp-stubgen drift` tells which; `mcp-stubgen sync` takes a change in)"
        )
    if (
        protocol_version >= _FIRST_MODERN_PROTOCOL
        and error.code == _INVALID_REQUEST
        and "initializ" in error.message.lower()
    ):
        return (
            "; the server wants the handshake of the versions before 2026-07-28: set "
            'protocol = "legacy" in its server table and run mcp-stubgen sync'
        )
    return ""


def _url_elicitation_advice(data: object) -> str:
    """The URLs a call refused as "URL elicitation required" (-32042) asks the user to open: its error's
    message does not name them (server-everything's "This request requires browser-based
    authorization."), its `data.elicitations` does."""
    elicitations = data.get("elicitations") if isinstance(data, dict) else None
    if not isinstance(elicitations, list):
        return ""
    urls = [
        one_line(_clip(item["url"], 200))
        for item in elicitations
        if isinstance(item, dict) and isinstance(item.get("url"), str)
    ]
    if not urls:
        return ""
    return (
        f"; the server asks the user to open {' and '.join(urls)} in a browser first, then to call "
        "again (the error's `.data` has each elicitation)"
    )


def _not_mcp(server: str, request: str, error: Exception) -> ServerError | None:
    """`ServerError` for an answer the SDK's models refuse (pydantic's `ValidationError`): not valid MCP,
    such as a content block of a type MCP does not have. It names the first problem's place and what
    is wrong there, and says when there are more. A value that fits no shape of a union is named as
    such: pydantic reports each shape's problems under the shape's class name (`/content/0/TextContent`)."""
    from pydantic import ValidationError

    if not isinstance(error, ValidationError):
        return None
    problems = error.errors()
    first = problems[0]["loc"]
    shape = next(
        (index for index, part in enumerate(first) if isinstance(part, str) and part[:1].isupper()),
        None,
    )
    if shape is None:
        where, found, covered = first, problems[0]["msg"], 1
    else:
        where = first[:shape]
        alternatives = [problem for problem in problems if problem["loc"][:shape] == where]
        # a field a shape misses names the value itself (its location: the value's, the shape's, the field)
        value = next(
            (
                problem["input"]
                for problem in alternatives
                if problem["type"] == "missing" and len(problem["loc"]) == shape + 2
            ),
            None,
        )
        found = ("it" if value is None else _clip(repr(value), 80)) + (
            " is none of the shapes MCP allows there"
        )
        covered = len(alternatives)
    pointer = "/" + "/".join(str(part) for part in where)
    more = "; and more" if covered < len(problems) else ""
    return ServerError(
        server, request, _NOT_MCP, f"its answer is not valid MCP ({pointer}: {found}{more})"
    )


def _endless_input_rounds(server: str, request: str, error: Exception) -> ServerError | None:
    """`ServerError` for a server that answered `input_required` (SEP-2322) round after round, past
    `input_required_max_rounds`: the SDK's `RuntimeError` names neither the server nor the request."""
    from mcp.client._input_required import InputRequiredRoundsExceededError

    if not isinstance(error, InputRequiredRoundsExceededError):
        return None
    return ServerError(
        server,
        request,
        _INTERNAL_ERROR,
        f"the server still asked for input (input_required) after {error.max_rounds} rounds of answers; "
        "pass connect(..., input_required_max_rounds=N) if it needs more, else it loops: tell its maintainers",
    )


def _base64_fields(item: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """The base64 text in a content block or resource contents, each with its JSON pointer: an image's
    or audio's `data`, a blob's `blob`, an embedded resource's blob, and those in a sampling
    message's tool result."""
    kind = getattr(item, "type", None)
    if kind == "image" or kind == "audio":
        yield f"{pointer}/data", item.data
    elif kind == "resource":
        yield from _base64_fields(item.resource, f"{pointer}/resource")
    elif kind == "tool_result":
        for index, block in enumerate(item.content):
            yield from _base64_fields(block, f"{pointer}/content/{index}")
    elif isinstance(getattr(item, "blob", None), str):
        yield f"{pointer}/blob", item.blob


def _base64_problem(items: Iterable[tuple[str, Any]]) -> str | None:
    """Where and why a base64 field of `items` (content blocks or resource contents, each with its
    JSON pointer in the message) is not standard base64 (RFC 4648, padded, no line breaks, as MCP's
    `format: byte` says), or None: `base64.b64decode(data, validate=True)` cannot fail on any."""
    for pointer, item in items:
        for where, text in _base64_fields(item, pointer):
            try:
                binascii.a2b_base64(text, strict_mode=True)
            except ValueError as error:  # binascii.Error, or a character that is not ASCII
                return f"{where} is not standard base64: {error}"
    return None


def _check_base64(server: str, request: str, items: Iterable[tuple[str, Any]]) -> None:
    """Raise `ServerError` unless every base64 field of `items` is standard (`_base64_problem`): one
    that is not is the server's bad answer, failed here rather than far away when it is decoded."""
    problem = _base64_problem(items)
    if problem is not None:
        raise ServerError(
            server,
            request,
            _NOT_MCP,
            f"its answer is not valid MCP ({problem}); the server must send its bytes base64-encoded "
            "with padding (RFC 4648), so tell its maintainers",
        )


_CAPABILITY_HANDLERS: Final = {
    "sampling": "sampling_callback",
    "elicitation": "elicitation_callback",
    "roots": "list_roots_callback",
}


def refuse_missing_handlers(
    server: str, capabilities: Sequence[str], where: str, given: Mapping[str, Any]
) -> None:
    """`MissingHandlerError` naming `where` when a capability the snapshot was taken declaring has no
    handler among the keywords `given` (`sampling_callback=` and the rest)."""
    missing = [
        (capability, _CAPABILITY_HANDLERS[capability])
        for capability in capabilities
        if given.get(_CAPABILITY_HANDLERS[capability]) is None
    ]
    if missing:
        raise MissingHandlerError(server, missing, where)


def client_handlers(
    server: str, capabilities: Sequence[str], where: str, **handlers: Callable[..., Any] | None
) -> dict[str, Any]:
    """The handlers given (`sampling_callback=` and the rest), as `mcp.Client` takes them, once each
    capability the snapshot was taken declaring has one (`refuse_missing_handlers`)."""
    refuse_missing_handlers(server, capabilities, where, handlers)
    answering = {
        name: _async_handler(handler) for name, handler in handlers.items() if handler is not None
    }
    if "sampling_callback" in answering:
        answering["sampling_callback"] = _checked_sampling(server, answering["sampling_callback"])
    return answering


def _async_handler(handler: Callable[..., Any]) -> Any:
    """`handler` as the async function the SDK awaits. A plain `def` handler (natural beside the sync
    client) returns its answer, which the SDK would try to await: the server was answered with that
    `TypeError`, and the call that asked failed with it."""

    async def answer(*arguments: Any) -> Any:
        outcome = handler(*arguments)
        if isinstance(outcome, Awaitable):
            return await outcome
        return outcome

    return answer


def _checked_sampling(server: str, callback: SamplingFnT) -> SamplingFnT:
    """`callback`, handed only the server's `sampling/createMessage` requests whose images and audio
    are standard base64 (`_base64_problem`), which a model provider would refuse: one that is not is
    refused (-32602, invalid params) with one warning naming the server and where."""

    async def sampling(context: Any, params: Any) -> Any:
        from mcp.types import ErrorData

        messages = (
            [(f"/params/messages/{index}/content", message.content)]
            if not isinstance(message.content, list)
            else [
                (f"/params/messages/{index}/content/{place}", block)
                for place, block in enumerate(message.content)
            ]
            for index, message in enumerate(params.messages)
        )
        problem = _base64_problem(item for blocks in messages for item in blocks)
        if problem is None:
            return await callback(context, params)
        import logging

        logging.getLogger(__name__).warning(
            "%s: the server sent a sampling/createMessage that is not valid MCP (%s); it was refused",
            server,
            problem,
        )
        return ErrorData(code=_INVALID_PARAMS, message=f"not valid MCP: {problem}")

    return cast("SamplingFnT", sampling)


def _checked_blobs(server: str, uri: str, result: ReadResourceResult) -> ReadResourceResult:
    """`result` once `_check_base64` found its blobs standard."""
    contents = ((f"/contents/{index}", item) for index, item in enumerate(result.contents))
    _check_base64(server, f"resource {uri!r}", contents)
    return result


_BASE64_BLOCKS = frozenset(("image", "audio", "resource"))
"""The content blocks of a tool's result that may carry base64 (`_base64_fields`)."""


def _check_result_base64(server: str, tool: str, result: CallToolResult) -> None:
    """`_check_base64` over a `tools/call` result's images, audio and embedded blobs. Most results
    hold text alone, and are passed at once: the walk was a tenth of a typed call's own cost."""
    if not any(block.type in _BASE64_BLOCKS for block in result.content):
        return
    blocks = ((f"/content/{index}", block) for index, block in enumerate(result.content))
    _check_base64(server, f"tool {tool!r}", blocks)


def _given_texts(
    server: str,
    request: str,
    kind: str,
    values: Mapping[str, T | NotGiven],
    *,
    lists: bool = False,
) -> dict[str, T]:
    """The values given to a prompt or a resource template (`lists`: a list of texts too), once each
    is text JSON can carry: a number reached the template's expansion as a bare `TypeError`, and a
    prompt's the SDK's request model, reported as the server's answer not being valid MCP; a lone
    surrogate failed the SDK's writer (over stdio the session ended, as if the server had gone) or its
    URI quoting (with a bare `UnicodeEncodeError`)."""
    given: dict[str, T] = {}
    for name, value in values.items():
        if isinstance(value, NotGiven):
            continue
        if not (
            isinstance(value, str)
            or (
                lists
                and isinstance(value, list | tuple)
                and all(isinstance(item, str) for item in value)
            )
        ):
            expected = "text or a list of texts" if lists else "text"
            raise ValueError(
                f"server {server!r}: {request}: {kind} {name!r} must be {expected}, "
                f"not {type(value).__name__}; nothing was sent"
            )
        try:
            given[name] = _as_json(value)
        except _NotJson as error:
            raise ValueError(
                f"server {server!r}: {request}: {kind} {name!r}: {error}; nothing was sent"
            ) from None
    return given


def _meta(options: RequestOptions) -> RequestParamsMeta | None:
    """The request's `_meta` as given, once JSON can carry it (`_as_json`): else `ValueError`."""
    meta = options.get("meta")
    if meta is None:
        return None
    try:
        return cast("RequestParamsMeta", _as_json(dict(meta)))
    except _NotJson as error:
        raise ValueError(f"call_options meta: {error}; nothing was sent") from None


def _timeout(options: RequestOptions) -> float | None:
    """The call's `timeout`, checked before anything is sent: a NaN reached the SDK, which sent the
    request and then failed on the deadline with anyio's own error, leaving the server at work; a
    negative one sent it only to cancel it at once, and an integer past any float raised a bare
    `OverflowError`."""
    return _seconds(options.get("timeout"), "call_options timeout", "nothing was sent")


def _seconds(timeout: object, what: str, consequence: str) -> float | None:
    """`timeout` when it is None or a number of seconds anyio can wait, else `ValueError` naming
    `what` and the `consequence`."""
    if timeout is None:
        return None
    if not isinstance(timeout, bool) and isinstance(timeout, int | float):
        try:
            if float(timeout) >= 0:  # False for a NaN
                return timeout
        except OverflowError:
            pass
    raise ValueError(f"{what} must be a number of seconds, not {timeout!r:.60}; {consequence}")


def _progress(callback: ProgressCallback | None, server: str, tool: str) -> ProgressFnT | None:
    """The caller's progress callback, sync or async, as the SDK's (async) one, for one call of `tool`.

    An exception it raises does not end the call: the tool runs on the server regardless, and its
    result is what the caller waits for. The first one of the call is logged as a warning with its
    traceback, naming the server and the tool, and the call's later ones are left out (the SDK logs
    a bare traceback for each update, naming neither)."""
    if callback is None:
        return None
    failed = False

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        nonlocal failed
        try:
            outcome = callback(progress, total, message)
            if outcome is not None:
                await outcome
        except Exception:
            if not failed:
                failed = True
                import logging

                logging.getLogger(__name__).warning(
                    "%s: the progress callback of a call of tool %r raised; the call goes on (later "
                    "failures of this call's callback are not logged)",
                    server,
                    tool,
                    exc_info=True,
                )

    return on_progress


@functools.cache
def _call_tool_answer() -> TypeAdapter[CallToolResult | InputRequiredResult]:
    """What a `tools/call` may be answered with since 2026-07-28, made on first use."""
    from mcp.types import CallToolResult, InputRequiredResult
    from pydantic import TypeAdapter

    return TypeAdapter(CallToolResult | InputRequiredResult)


@asynccontextmanager
async def authorized_transport(url: str, auth: httpx2.Auth) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP to `url` with every request authenticated by `auth`: what `connect(url,
    auth=...)` opens, and what a hub's `connect(weather=authorized_transport(url, auth))` takes."""
    from ._http import http_transport

    name = _without_userinfo(url)  # what its warnings call the server
    async with http_transport(url, name, auth) as streams:
        yield streams


def stored_auth(
    server: str,
    *,
    redirect_handler: Callable[[str], Awaitable[None]] | None = None,
    callback_handler: Callable[[], Awaitable[AuthorizationCodeResult]] | None = None,
) -> httpx2.Auth:
    """The OAuth tokens `mcp-stubgen auth login SERVER` stored, refreshed as they expire, for
    `connect(url, auth=stored_auth("weather"))`; the handlers, where a person can authorize again
    (see `_auth.stored_auth`, imported only when used)."""
    from ._auth import stored_auth as load

    return load(server, redirect_handler=redirect_handler, callback_handler=callback_handler)


class SyncClient(Generic[ClientT]):
    """The base of every generated sync client: its async twin, run on a private event loop (`SessionLoop`).

    Each generated method has the signature, types and docstring of the async client's method of
    the same name, and runs it with `_run`; so both clients behave the same, errors included.
    """

    def __init__(self, async_client: ClientT, loop: SessionLoop) -> None:
        self.async_client = async_client
        self._loop = loop

    @classmethod
    @contextmanager
    def _open(cls, connection: AbstractAsyncContextManager[ClientT]) -> Iterator[Self]:
        """Enter an async client's `connect(...)` on a new private loop; leaving closes both."""
        loop = SessionLoop("this sync client")
        try:
            client = loop.enter(connection)
            loop.owner = f"{client.server_name}: this sync client"
            yield cls(client, loop)
        finally:
            loop.close()

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self._loop.run(coroutine)

    def verify(self, *, max_pages: int = MAX_PAGES) -> None:
        """List the live server's tools and raise `CatalogDriftError` if any generated tool changed or vanished.

        A server whose paging never ends (a repeated cursor, more than `max_pages` pages, more than `MAX_LISTING_BYTES` held) raises
        `PaginationError` instead of listing forever.
        """
        self._run(self.async_client.verify(max_pages=max_pages))
