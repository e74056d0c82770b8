"""Discovery: connect to a live server, negotiate, and list its whole catalog into a `Snapshot`.

Only the list methods whose capability the server declared are called; every `nextCursor` is
followed, and a repeating cursor or an endless listing is an error rather than a truncated catalog.
A declared list method the server does not implement (-32601) is recorded as missing, not fatal.
Error messages name the server and what to do, and never contain `env`, `headers` or `auth` values
or an OAuth token; nor does a catalog (`codegen/redact.py`).

A stdio server is listed over `stdio.StdioSession`, JSON-RPC without the MCP SDK, its results read
as the SDK reads them (`wire.py`); an HTTP server (and any server on Windows) through the SDK's
`Client`, over Streamable HTTP by the transport generated clients use (`codegen/runtime/_http.py`),
so a server's HTTP-level fault is the error answer of its one request here too. The handshake's
rules and the listing are written once, over `_Peer`, for both. `connect` gives the SDK's `Client`
over either transport to the commands that keep a session (`watch`, the hub).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO
from urllib.parse import parse_qsl, unquote, urlsplit

import anyio
from pydantic import ValidationError

from codegen.config import ServerConfig, expand_headers, server_environment
from codegen.errors import StubgenError
from codegen.redact import Secrets
from codegen.runtime._http import (
    AUTH_STEP_KEY,
    DPOP_UNSUPPORTED,
    HTTP_STATUS_KEY,
    TRY_LATER,
    asks_for_dpop,
    asks_to_wait,
    retry_advice,
    says_nothing_of_the_era,
    status_line,
    tls_failure,
)
from codegen.runtime._runtime import LeftOutEntry, ListingBound, _clip, list_page, page_size
from codegen.runtime._stdio import (
    HTTP_QUIET_SHARE,
    NESTED_TOO_DEEP,
    answers_one_of,
    endpoint_advice,
    http_quiet_ended,
    linked_node_script,
    linked_node_script_advice,
    quiet_after_url,
    read_refused,
    serves_http,
    sign_in_redirect,
    warn_not_json_rpc,
)
from codegen.snapshot import wire
from codegen.snapshot.deadlines import deadline, held, move_on_after
from codegen.snapshot.format import (
    JSON,
    MAX_NESTING,
    TOO_DEEP,
    Snapshot,
    find_in_json,
    is_non_finite,
    sorted_copy,
    sorted_entries,
)
from codegen.snapshot.stdio import (
    FIXED_HASH_SEED,
    INHERITED_ENVIRONMENT,
    INHERITED_NAMES,
    NOT_UTF_8,
    StdioProcess,
    StdioSession,
    StrayStdout,
    Unreadable,
    can_start,
    claim,
    listening_port,
    program_path,
    search_path,
    start,
    stdio_transport,
)
from codegen.snapshot.wire import (
    CONNECTION_CLOSED,
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LATEST_MODERN_VERSION,
    METHOD_NOT_FOUND,
    MODERN_PROTOCOL_VERSIONS,
    NEITHER_RESULT_NOR_ERROR,
    NOT_AN_ANSWER,
    ConnectionClosed,
    RemoteError,
)

if TYPE_CHECKING:
    import httpx2
    from mcp import Client, MCPError
    from mcp.client.session import ClientRequestContext, ClientSession, IncomingMessage, MessageHandlerFnT
    from mcp.types import CreateMessageRequestParams, ElicitRequestParams, ErrorData, ListRootsResult

STREAM_IDLE_SECONDS = 300.0
"""How long an HTTP response (`watch`'s `subscriptions/listen` stream, an SSE event stream) may send
no byte at all before it is taken for lost, as the generated clients take it (the MCP SDK's read
timeout): a connection a NAT or a proxy dropped without a word would otherwise be waited on for
ever. A server's keep-alive comments count as bytes."""
STDERR_TAIL_LINES = 5
STDERR_TAIL_CHARACTERS = 600


@dataclass(frozen=True)
class _Listing:
    method: str
    capability: str
    """The server capability that declares it."""
    items: str
    """The attribute of the SDK's result page that holds the entries."""


_TOOLS = _Listing("tools/list", "tools", "tools")
_RESOURCES = _Listing("resources/list", "resources", "resources")
_TEMPLATES = _Listing("resources/templates/list", "resources", "resource_templates")
_PROMPTS = _Listing("prompts/list", "prompts", "prompts")


@dataclass(frozen=True)
class _Page:
    entries: list[Any]
    next_cursor: str | None
    ttl_ms: int
    keys_sorted: bool = False
    """Whether every object's keys are already sorted, as `Snapshot.of_sorted_entries` takes them."""
    left_out: tuple[LeftOutEntry, ...] = ()
    """Its entries that are not valid MCP, each checked on its own, which `entries` leaves out."""
    size: int = 0
    """Its `page_size` as received, which its listing's `ListingBound` adds up."""


class _Peer(Protocol):
    """A connection to a server as the handshake and the listing use it, whichever way it speaks.

    Failures are `RemoteError` (an error answer, or the connection closing), pydantic's
    `ValidationError` (a result that is not valid MCP), and `TimeoutError`."""

    @property
    def protocol_version(self) -> str: ...
    @property
    def capabilities(self) -> JSON: ...
    @property
    def server_info(self) -> JSON | None: ...
    @property
    def instructions(self) -> str | None: ...
    @property
    def discover_ttl_ms(self) -> int:
        """The `server/discover` result's `ttlMs`; 0 on a legacy session."""

    async def discover(self, version: str, timeout: float) -> JSON:
        """`server/discover` in `version`'s envelope: the result as the SDK's model dumps it."""

    async def initialize(self, version: str, timeout: float) -> JSON:
        """`initialize` proposing `version`, unstamped: the result as the SDK's model dumps it."""

    def adopt_discovered(self, result: JSON) -> None:
        """Speak the newest modern version the discover result offers from now on."""

    async def adopt_initialized(self, result: JSON) -> None:
        """Speak the version `initialize` answered with, after telling the server it is initialized."""

    async def list_page(self, listing: _Listing, cursor: str | None) -> _Page: ...


Warn = Callable[[str], None]
"""Told each warning line of a listing (a tool dropped for invalid `x-mcp-header` annotations)."""


def _ignore(_line: str) -> None:
    return None


async def snapshot_server(server: ServerConfig, warn: Warn = _ignore) -> Snapshot:
    """Connect, negotiate and list everything the server declares; raise `StubgenError` on failure."""
    async with _listed(server, warn) as (result, _ttl):
        if isinstance(result, StubgenError):
            raise result
        return result


@asynccontextmanager
async def _listed(server: ServerConfig, warn: Warn) -> AsyncIterator[tuple[Snapshot | StubgenError, float]]:
    """The snapshot (or why there is none), and for how many seconds the server said all of it stays
    fresh: the shortest `ttlMs` of its `server/discover` result and of every page listed (0: any of
    them may change now).

    A stdio server's stdin is closed before this yields, and the caller's work runs while it exits;
    leaving waits for it (and terminates it if it lingers)."""
    ttls: list[int] = []
    if server.command is None or sys.platform == "win32":
        try:
            async with connect(server, warn=warn) as client:
                snapshot = await list_catalog(client, server, warn, ttls)
        except StubgenError as error:
            yield error, 0.0
            return
        yield snapshot, _fresh_seconds(ttls)
        return
    try:
        env = server_environment(server)
        _secrets_of(server)  # a variable they name that is unset is this line, before the server starts
    except StubgenError as error:
        yield error, 0.0
        return
    started = claim(server, env)
    with started.stderr_log if started is not None else _stderr_file() as stderr_log:
        diagnostics = _Diagnostics(stderr_log)
        current = _diagnostics.set(diagnostics)
        try:
            for attempt in (server, replace(server, protocol="legacy")):
                if started is None:
                    try:
                        started = _start(attempt, env, stderr_log)
                    except Exception as error:
                        yield _failure(attempt, error, diagnostics), 0.0
                        return
                session = StdioSession(
                    started,
                    wire.client_capabilities(attempt.client_capabilities),
                    left_out=functools.partial(_warn_left_out, attempt, warn),
                )
                async with session.running():
                    peer = _StdioPeer(session)
                    result: Snapshot | StubgenError
                    try:
                        with (
                            deadline(attempt.timeouts.connect) as handshake,  # start-up and the handshake
                            _ended_early_if_it_serves_http(session, diagnostics, handshake, attempt),
                        ):
                            await _negotiate(peer, attempt)
                        result = await list_catalog(peer, attempt, warn, ttls)
                    except Exception as error:
                        if isinstance(_leaf(error), TimeoutError):
                            diagnostics.find_http(session.stray, session.started.process)
                        if _probe_unanswered(attempt, error, session) and not diagnostics.serves_http:
                            warn(_started_again(attempt))
                            started = None
                            continue  # leaving the session stops this server
                        if not session.answered and _probe_ended_it(attempt, error, diagnostics):
                            warn(_started_again_after_exit(attempt))
                            started = None
                            continue
                        diagnostics.stray, diagnostics.process = session.stray, session.started.process
                        result, ttls = _failure(attempt, error, diagnostics), []
                    await session.close_input()
                    yield result, _fresh_seconds(ttls)
                    return
        finally:
            _diagnostics.reset(current)


def _probe_unanswered(server: ServerConfig, error: Exception, session: StdioSession) -> bool:
    """Whether `auto`'s `server/discover` went unanswered within `connect_timeout` by a server that
    is still running: the spec reads that as a legacy server (some never answer a method they do
    not know, or stop reading: Python SDK 1.6 servers, chroma-mcp among them), and it is started
    again for the legacy handshake alone, so `initialize` never follows the probe on one connection."""
    return (
        server.protocol == "auto"
        and isinstance(_leaf(error), TimeoutError)
        and not session.answered
        and session.started.process.poll() is None
    )


def _probe_timed_out(server: ServerConfig, error: Exception) -> bool:
    """`_probe_unanswered` for `connect`, whose stdio session the SDK holds: `auto`'s handshake with a
    stdio server ran out of `connect_timeout` (`_negotiate` sends nothing after an unanswered probe)."""
    return server.protocol == "auto" and server.command is not None and isinstance(_leaf(error), TimeoutError)


_PROBE_REFUSALS = ("server/discover", "did not match any variant of untagged enum JsonRpcMessage")
"""What a stdio server that exits on `auto`'s probe says on stderr: rmcp 1.x names the method, rmcp
0.x (Elastic's elasticsearch-core-mcp-server in es-mcp 0.2.2) says the line fits none of its message
types; the probe is the only line it was sent."""


def _probe_ended_it(server: ServerConfig, error: Exception, diagnostics: _Diagnostics) -> bool:
    """Whether `auto`'s `server/discover` made a stdio server close the connection without an answer,
    saying so on stderr (`_PROBE_REFUSALS`) where the spec expects -32601: rmcp servers (Temporal
    Cortex's cortex-mcp 0.9.1) exit with "expect initialized request, but received: ...
    server/discover". It is started again for the legacy handshake alone (by `connect` too, for
    `watch` and the hub). A server that says neither as it exits crashed for its own reasons and is
    not started twice."""
    if server.protocol != "auto" or server.command is None or _error_answer(_leaf(error))[0] != CONNECTION_CLOSED:
        return False
    with contextlib.suppress(OSError, ValueError):
        diagnostics.stderr_log.seek(0)
        said = diagnostics.stderr_log.read()
        return any(refusal in said for refusal in _PROBE_REFUSALS)
    return False


def _started_again_after_exit(server: ServerConfig) -> str:
    return (
        f"server {server.name!r}: it closed the connection on server/discover, which it does not know; "
        'started it again for the legacy handshake (set protocol = "legacy" in the config or --protocol legacy '
        "to skip the probe)"
    )


def _started_again(server: ServerConfig) -> str:
    return (
        f"server {server.name!r}: no answer to server/discover within {server.timeouts.connect:g}s; "
        'started it again for the legacy handshake (set protocol = "legacy" in the config or --protocol legacy '
        "to skip the wait, or raise connect_timeout or --connect-timeout if it only starts slowly)"
    )


def _fresh_seconds(ttls: list[int]) -> float:
    """How long the server said all of its listing stays fresh, at most a day (`wire.MAX_TTL_MS`, as the
    SDK's own response cache caps it): a `ttlMs` of 10**15 must not keep `sync` from listing a
    server for millennia, nor one of 10**400 overflow a float."""
    return min(min(ttls, default=0), wire.MAX_TTL_MS) / 1000


def _stderr_file() -> TextIO:
    return tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")


def _start(server: ServerConfig, env: dict[str, str], stderr_log: TextIO) -> StdioProcess:
    assert server.command is not None
    if not can_start(server, env):
        raise StubgenError(_not_runnable(server, env))
    return start(server, env, stderr_log)


def _failure(server: ServerConfig, error: BaseException, diagnostics: _Diagnostics) -> StubgenError:
    """One line for a failure of the connection, naming the server and showing no secret: its
    secrets are read now, so they include a token its OAuth flow got since it connected."""
    secrets = _secrets_of(server)
    return StubgenError(secrets.scrub(_explain(server, error, diagnostics, secrets)))


@functools.cache
def _session_client() -> type[Client]:
    """`mcp.Client`, whose session leaves out a notification that is not valid MCP with one warning
    naming the server, as a generated client's does (the SDK logs a traceback for each)."""
    from mcp import Client

    from codegen.runtime._runtime import _leave_out_invalid_notifications

    class SessionClient(Client):
        server_name = ""
        """Who its warnings name (`_connected` sets it)."""

        async def _build_session(self, exit_stack: contextlib.AsyncExitStack) -> ClientSession:
            session = await super()._build_session(exit_stack)
            _leave_out_invalid_notifications(session, self.server_name)
            return session

    return SessionClient


@asynccontextmanager
async def connect(
    server: ServerConfig,
    message_handler: MessageHandlerFnT | None = None,
    warn: Warn = _ignore,
    handlers: Mapping[str, Any] | None = None,
) -> AsyncIterator[Client]:
    """The SDK's connected, negotiated `Client`; a failure of the connection, the caller's own work
    inside included, becomes one `StubgenError` line that names the server and never shows a secret.
    A stdio server that `auto`'s probe ends, or leaves unanswered, is started again for the legacy
    handshake, as `snapshot` starts it, and `warn` is told so.

    For the commands that hold a session open (`watch` hears the server's change notifications
    through `message_handler`; the hub calls tools), and for discovery over HTTP. `handlers` (the
    hub's: `sampling_callback=` and the rest, as `mcp.Client` takes them) answer the server's
    requests in place of discovery's refusals.
    """
    from codegen.auth.providers import auth_for

    env = server_environment(server)
    headers = expand_headers(server)
    auth = auth_for(server)
    started = claim(server, env, by_session=False) if server.command is not None else None
    stderr_file = started.stderr_log if started is not None else None
    with stderr_file or _stderr_file() as stderr_log:
        diagnostics = _Diagnostics(stderr_log)
        current = _diagnostics.set(diagnostics)
        try:
            for attempt in (server, replace(server, protocol="legacy")):
                opened = False
                diagnostics.stray, diagnostics.heard = StrayStdout(), False
                try:
                    async with _connected(
                        attempt, env, headers, diagnostics, auth, started, message_handler, warn, handlers or {}
                    ) as client:
                        opened = True
                        yield client
                    return
                except Exception as error:  # every failure of a server becomes one clear line
                    if not opened and _probe_ended_it(attempt, error, diagnostics):
                        warn(_started_again_after_exit(attempt))
                    elif not opened and _probe_timed_out(attempt, error) and not diagnostics.serves_http:
                        warn(_started_again(attempt))
                    else:
                        raise _failure(attempt, error, diagnostics) from None
                    started = None  # as `_listed` does: start it again for `initialize` alone
        finally:
            _diagnostics.reset(current)


@asynccontextmanager
async def _connected(
    server: ServerConfig,
    env: dict[str, str],
    headers: dict[str, str],
    diagnostics: _Diagnostics,
    auth: httpx2.Auth | None,
    started: StdioProcess | None,
    message_handler: MessageHandlerFnT | None,
    warn: Warn,
    handlers: Mapping[str, Any],
) -> AsyncIterator[Client]:
    """One connection of `connect`: the SDK's `Client`, negotiated as `server.protocol` says. A
    message the SDK cannot read ends it when it answers a request in flight (`_answers_in_flight`),
    and is one warning when it is a notification or request of the server's, or answers nothing."""
    session: anyio.CancelScope  # the scope around the whole session, below

    async def on_message(message: IncomingMessage) -> None:
        read = _unread_input(message) if isinstance(message, Exception) else None
        problem = None if read is None else _unreadable_message(server, read, str(message))
        if problem is not None and _answers_in_flight(client, read):
            # It answers a request, which the SDK cannot read: end the session now rather than
            # let that request run into its timeout.
            diagnostics.unreadable = problem
            session.cancel()
        elif problem is not None:
            warn(_secrets_of(server).scrub(_left_out(problem, read)))
        if message_handler is not None:
            await message_handler(message)

    client = _session_client()(
        _transport(server, env, headers, diagnostics, auth, started),
        # Given a version, the SDK adopts a made-up discovery result for it without asking
        # the server; `_negotiate` then asks, and adopts the server's answer instead.
        mode=_probe_version(server.protocol),
        cache=None,
        # The SDK's timeout for requests a caller sends itself (`watch`'s subscriptions/listen);
        # discovery's own take none of the SDK's, bounded by deadlines `held` moves instead.
        read_timeout_seconds=server.timeouts.request,
        message_handler=on_message,
        **{**_declared_capabilities(server.client_capabilities), **handlers},
    )
    client.server_name = server.name  # type: ignore[attr-defined]
    leaving = False
    # One scope around the whole session keeps anyio's scopes nested; its deadline covers
    # start-up and the handshake, is lifted once the client is connected, and then bounds
    # leaving, which ends an HTTP session with a DELETE that nothing else bounds.
    with move_on_after(server.timeouts.connect) as session:
        async with client:
            try:
                if diagnostics.process is None:  # over HTTP
                    await _negotiate(_SdkPeer(client), server)
                else:
                    with _ended_early_if_it_serves_http(diagnostics, diagnostics, session, server):
                        await _negotiate(_SdkPeer(client), server)
            finally:
                if session.cancel_called and diagnostics.process is not None:  # while the server still runs
                    diagnostics.find_http(diagnostics.stray, diagnostics.process)
            session.deadline = math.inf
            try:
                yield client
            finally:
                leaving = True
                if server.url is not None:
                    session.deadline = anyio.current_time() + server.timeouts.request
    if diagnostics.unreadable:
        raise StubgenError(diagnostics.unreadable)
    if session.cancelled_caught and not leaving:
        raise TimeoutError


def _probe_version(protocol: str) -> str:
    """The protocol `server/discover` is first sent in: a pinned modern version, else the newest (the
    SDK's `Client` adopts a made-up discovery result for it, replaced once the server answers)."""
    return protocol if protocol in MODERN_PROTOCOL_VERSIONS else LATEST_MODERN_VERSION


class _NotModern(Exception):
    """The server answered `server/discover` in a way that says it does not speak a 2026 protocol."""

    def __init__(self, why: str, *, with_result: bool = False) -> None:
        super().__init__(why)
        self.with_result = with_result
        """It answered with a result, which was not one we can adopt (not an error: a modern server)."""


async def _negotiate(peer: _Peer, server: ServerConfig) -> None:
    """Ask the server which protocol it speaks, as `server.protocol` says, and adopt its answer.

    `auto` sends `server/discover` and falls back to `initialize` when the server answers it with an
    error (pre-2026 servers answer -32601 or -32602); a modern pin sends `server/discover` alone, and
    `legacy` or a dated pin `initialize` alone. Each waits up to `connect_timeout`, not the SDK's
    fixed 10 s probe or `request_timeout`: a server that starts slowly is recorded as one that starts
    fast, and no answer at all is a timeout, never a fallback, so `initialize` is sent at most once.
    """
    protocol = server.protocol
    if protocol == "legacy" or protocol in HANDSHAKE_PROTOCOL_VERSIONS:
        await _initialize(peer, server, None if protocol == "legacy" else protocol)
        return
    try:
        result = await _discover(peer, server)
    except _NotModern as refusal:
        if protocol != "auto":
            raise StubgenError(_not_spoken(server, protocol, str(refusal))) from None
        try:
            await _initialize(peer, server, None)
        except RemoteError as error:
            if not refusal.with_result and error.code != METHOD_NOT_FOUND:
                raise
            if isinstance(error.data, dict) and HTTP_STATUS_KEY in error.data:
                raise  # a 404 page to both, not a server's refusal: the URL is wrong, and the line names its status
            # initialize's refusal alone would hide why discovery was not taken: a server that does not
            # know initialize speaks 2026 alone, so its answer to server/discover is what failed
            fix = "fix its server/discover result" if refusal.with_result else "answer server/discover"
            raise StubgenError(
                f"server {server.name!r}: {refusal}, and it refused initialize ({error.message}, code "
                f"{error.code}); the server has to {fix}"
            ) from None
        return
    peer.adopt_discovered(result)


async def _discover(peer: _Peer, server: ServerConfig) -> JSON:
    """`server/discover`, sent with the envelope of the probe version (`_probe_version`).

    A refusal with -32022 that lists that version among the server's supported ones is answered by
    sending it once more, as the spec and the SDK do (the only 2026 version the SDK speaks is the
    one already sent). A JSON-RPC error in an HTTP error answer is the server's answer even with
    code -32000, which is also the SDK's own "connection closed" (TypeScript SDK servers answer a
    request they do not know how to route that way). So are -32000 and -32001 over stdio, and -32000 in
    an HTTP answer: only `ConnectionClosed` says the connection closed, and a timeout is ours alone
    (`TimeoutError`), so any other error answer is the server's refusal, as the SDK's `auto` reads it."""
    diagnostics = _diagnostics.get()
    version = _probe_version(server.protocol)
    for attempt in range(2):
        if diagnostics is not None:
            diagnostics.http_status, diagnostics.answered = None, False
        try:
            result = await peer.discover(version, server.timeouts.connect)
        except RemoteError as error:
            if _auth_flow_failed(error.data):  # not a refusal of server/discover: initialize would fail alike
                raise
            if error.code == NOT_AN_ANSWER and diagnostics is not None and diagnostics.unreadable_answer:
                raise  # an answer the SDK cannot read, as over stdio: not a refusal
            if says_nothing_of_the_era(error.data):  # a rate limit or a 5xx is not a legacy server
                raise
            if isinstance(error, ConnectionClosed):
                raise
            answered_over_http = diagnostics is not None and diagnostics.answered
            if error.code == CONNECTION_CLOSED and server.url is not None and not answered_over_http:
                raise  # the HTTP transport's stand-in for a request nothing answered
            if attempt == 0 and version in wire.supported_versions(error):
                continue
            raise _NotModern(f"server/discover: {error.message} (code {error.code})") from None
        except ValidationError:
            raise _NotModern("its server/discover result is not valid MCP", with_result=True) from None
        if not set(result["supportedVersions"]) & set(MODERN_PROTOCOL_VERSIONS):
            offered = ", ".join(result["supportedVersions"])
            raise _NotModern(f"server/discover offers only {offered}", with_result=True)
        return result
    raise AssertionError("unreachable: the second attempt returns or raises")


async def _initialize(peer: _Peer, server: ServerConfig, pinned: str | None) -> None:
    """The legacy handshake, proposing `pinned` (else the newest dated version); a pinned version
    the server answers with another is an error.

    Sent unstamped: after the made-up 2026 adoption the SDK's session would stamp it with 2026
    `_meta` and headers, which a legacy HTTP server may refuse."""
    try:
        result = await peer.initialize(pinned or LATEST_HANDSHAKE_VERSION, server.timeouts.connect)
    except ValidationError as error:
        raise StubgenError(
            f"server {server.name!r}: its initialize result is not valid MCP ({_first_problem(error)}); "
            "the server has to fix it"
        ) from None
    answered = result["protocolVersion"]
    if pinned is not None and answered != pinned:
        raise StubgenError(_not_spoken(server, pinned, f"it answered initialize with {answered}"))
    if answered not in HANDSHAKE_PROTOCOL_VERSIONS:
        raise StubgenError(
            f"server {server.name!r}: answered initialize with protocol {answered!r}, which mcp-stubgen does "
            "not know; pin a version it speaks with `protocol` in the config or --protocol"
        )
    await peer.adopt_initialized(result)


def _not_spoken(server: ServerConfig, protocol: str, why: str) -> str:
    return (
        f"server {server.name!r}: does not speak the pinned protocol {protocol} ({why}); "
        'pin a version it speaks, or set protocol = "auto" in the config or --protocol auto'
    )


class _StdioPeer:
    """A stdio server spoken to without the SDK (`StdioSession`), its results read as the SDK reads them."""

    def __init__(self, session: StdioSession) -> None:
        self._session = session
        self.protocol_version = ""
        self.capabilities: JSON = {}
        self.server_info: JSON | None = None
        self.instructions: str | None = None
        self.discover_ttl_ms = 0

    async def discover(self, version: str, timeout: float) -> JSON:
        self._session.use_modern(version, wire.CLIENT_INFO)
        return wire.discover_result(version, await self._session.request("server/discover", None, timeout))

    async def initialize(self, version: str, timeout: float) -> JSON:
        params = {
            "protocolVersion": version,
            "capabilities": self._session.capabilities,
            "clientInfo": wire.CLIENT_INFO,
        }
        return wire.initialize_result(await self._session.request("initialize", params, timeout))

    def adopt_discovered(self, result: JSON) -> None:
        self.protocol_version = [
            version for version in MODERN_PROTOCOL_VERSIONS if version in result["supportedVersions"]
        ][-1]
        self._session.use_modern(self.protocol_version, wire.CLIENT_INFO)
        self.capabilities = result["capabilities"]
        self.server_info = wire.stamped_server_info(result)
        self.instructions = result.get("instructions")
        self.discover_ttl_ms = result["ttlMs"]

    async def adopt_initialized(self, result: JSON) -> None:
        self._session.use_legacy()
        self.protocol_version = result["protocolVersion"]
        self.capabilities = result["capabilities"]
        self.server_info = result["serverInfo"]
        self.instructions = result.get("instructions")
        self.discover_ttl_ms = 0
        self._session.notify("notifications/initialized")

    async def list_page(self, listing: _Listing, cursor: str | None) -> _Page:
        result = await self._session.request(listing.method, {"cursor": cursor} if cursor is not None else None)
        entries, next_cursor, ttl_ms, left_out = wire.page(listing.method, self.protocol_version, result)
        return _Page(entries, next_cursor, ttl_ms, left_out=left_out, size=page_size(result))


class _SdkPeer:
    """The SDK's `Client` (over HTTP, or stdio on Windows, and the sessions `connect` hands out)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._adopted: Any = None

    @property
    def protocol_version(self) -> str:
        return self._client.protocol_version

    @property
    def capabilities(self) -> JSON:
        dumped: JSON = self._client.server_capabilities.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped

    @property
    def server_info(self) -> JSON | None:
        info = self._client.server_info
        return info.model_dump(by_alias=True, exclude_none=True, mode="json") if info is not None else None

    @property
    def instructions(self) -> str | None:
        return self._client.instructions

    @property
    def discover_ttl_ms(self) -> int:
        discovered = self._client.session.discover_result
        return discovered.ttl_ms if discovered is not None else 0

    async def discover(self, version: str, timeout: float) -> JSON:
        from mcp import MCPError
        from mcp.types import DiscoverRequest, DiscoverResult

        try:
            with deadline(timeout):  # the SDK's own timeout would not be moved by `held`
                self._adopted = await self._client.session.send_request(
                    DiscoverRequest(), DiscoverResult, request_read_timeout_seconds=math.inf
                )
        except MCPError as error:
            raise self._remote(error) from None
        dumped: JSON = self._adopted.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped

    async def initialize(self, version: str, timeout: float) -> JSON:
        from mcp import MCPError
        from mcp.shared.dispatcher import CallOptions
        from mcp.types import InitializeRequest, InitializeRequestParams, InitializeResult

        session = self._client.session
        params = InitializeRequestParams(
            protocol_version=version,
            capabilities=session._build_capabilities(version),
            client_info=session._client_info,
        )
        data = InitializeRequest(params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
        options: CallOptions = {"cancel_on_abandon": False}  # no "timeout": the SDK's would not be moved by `held`
        try:
            with deadline(timeout):
                raw = await session._dispatcher.send_raw_request("initialize", data["params"], options)
        except MCPError as error:
            raise self._remote(error) from None
        self._adopted = InitializeResult.model_validate(raw, by_name=False)
        dumped: JSON = self._adopted.model_dump(by_alias=True, exclude_none=True, mode="json")
        return dumped

    def adopt_discovered(self, result: JSON) -> None:
        self._client.session.adopt(self._adopted)

    async def adopt_initialized(self, result: JSON) -> None:
        from mcp.types import InitializedNotification

        self._client.session.adopt(self._adopted)
        await self._client.session.send_notification(InitializedNotification())

    async def list_page(self, listing: _Listing, cursor: str | None) -> _Page:
        from mcp import MCPError

        try:
            # the session's own request, as `Client.list_tools` and the others send it, but with no
            # timeout of the SDK's (`_list_all`'s deadline bounds it, and `held` moves that one), and
            # not `Client.list_tools`, which drops a tool whose `x-mcp-header` annotations are invalid
            # without a word: `list_catalog` says which it drops and why
            page, left_out, size = await list_page(self._client, listing.method, cursor, timeout=math.inf)
        except MCPError as error:
            raise self._remote(error) from None
        entries = getattr(page, listing.items)
        ttl_ms = getattr(page, "ttl_ms", 0)
        if _any_non_finite(entries):  # as read, for `_refuse_non_finite` to name (JSON text would hold null)
            dumped = [entry.model_dump(by_alias=True, exclude_none=True) for entry in entries]
            return _Page(dumped, page.next_cursor, ttl_ms, left_out=left_out, size=size)
        return _Page(
            _page_entries(page, listing), page.next_cursor, ttl_ms, keys_sorted=True, left_out=left_out, size=size
        )

    def _remote(self, error: MCPError) -> RemoteError:
        """The SDK's error as discovery's: `ConnectionClosed` once the session's connection has closed
        (the SDK gives that and a server's own -32000 answer one code)."""
        if self._client.session._dispatcher._closed:  # type: ignore[attr-defined]
            return ConnectionClosed()
        return RemoteError(error.error.code, error.error.message, error.error.data)


async def _refuse_sampling(context: ClientRequestContext, params: CreateMessageRequestParams) -> ErrorData:
    from mcp.types import ErrorData

    return ErrorData(code=wire.INVALID_REQUEST, message="mcp-stubgen only lists the catalog; it does not sample")


async def _refuse_elicitation(context: ClientRequestContext, params: ElicitRequestParams) -> ErrorData:
    from mcp.types import ErrorData

    return ErrorData(code=wire.INVALID_REQUEST, message="mcp-stubgen only lists the catalog; it asks no user")


async def _no_roots(context: ClientRequestContext) -> ListRootsResult:
    from mcp.types import ListRootsResult

    return ListRootsResult(roots=[])


def _declared_capabilities(names: Sequence[str]) -> dict[str, Any]:
    """`mcp.Client` declares a capability when it is given its handler, in `server/discover` and in
    `initialize` alike: discovery declares the configured ones with handlers that answer the server
    honestly (no sampling, no user to ask, no roots), so it sees the catalog the application will.
    `StdioSession` answers as these do."""
    handlers: dict[str, tuple[str, Any]] = {
        "sampling": ("sampling_callback", _refuse_sampling),
        "elicitation": ("elicitation_callback", _refuse_elicitation),
        "roots": ("list_roots_callback", _no_roots),
    }
    return dict(handlers[name] for name in names)


def _secrets_of(server: ServerConfig) -> Secrets:
    env = server_environment(server)
    headers = expand_headers(server)
    values = [*env.values(), *headers.values(), *_url_credentials(server.url)]
    if server.auth is not None:
        from codegen.auth.providers import secret_values

        values += secret_values(server)
    return Secrets(values)


def _url_credentials(url: str | None) -> list[str]:
    """The password of a URL's `user:password@` (or the user alone, which may be a token), and the
    value of each query parameter named like a credential (`?token=`, `?api_key=`), never shown."""
    if url is None:
        return []
    found: list[str] = []
    with contextlib.suppress(ValueError):
        parts = urlsplit(url)
        if parts.password:
            found.append(unquote(parts.password))
        elif parts.username:
            found.append(unquote(parts.username))
        found += [value for name, value in parse_qsl(parts.query) if _CREDENTIAL_NAME.search(name) and value]
    return found


_CREDENTIAL_NAME = re.compile(r"token|key|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
"""Query parameter names whose values are credentials (`access_token`, `apiKey`, `X-Amz-Signature`)."""


@dataclass
class _Diagnostics:
    """What a failed connection leaves behind: a stdio server's stderr, the last HTTP error status."""

    stderr_log: TextIO
    http_status: int | None = None
    answered: bool = False
    """Whether an HTTP response came (the runtime's transport makes a request no response came to
    its error answer, with -32000, the code a server may answer with too)."""
    token_refused: str | None = None
    """The `WWW-Authenticate` error (or the status) of a 401/403 answer to a request that carried a token."""
    bearer_asked: bool = False
    """A 401 to a request that carried no token asked for a bearer token (`WWW-Authenticate: Bearer`):
    an OAuth server (onshape-mcp's `http`), which wants an `auth` table, not `headers` checked."""
    dpop_asked: bool = False
    """A 401 asked for a DPoP-bound token alone (`_http.asks_for_dpop`), which mcp-stubgen does not support."""
    stderr_start: int = 0
    """Where the stderr worth showing begins: at the last request, so earlier noise (the
    `server/discover` probe's, say) is not mistaken for the cause of a later failure."""
    unreadable: str = ""
    """Why the server's answer the SDK could not read (nested too deep, an integer longer than it
    reads, a lone surrogate) ended the session, where known."""
    stray: StrayStdout = field(default_factory=StrayStdout)
    """What a stdio server wrote to stdout that is not JSON-RPC, whichever session read it."""
    process: subprocess.Popen[bytes] | None = None
    """The stdio server `connect`'s transport started, for the ports it listens on."""
    serves_http: str = ""
    """Why a stdio server that never answered the handshake is an HTTP server (`find_http`)."""
    http_url: str = ""
    """The URL such a server said it listens on, where it said one."""
    quiet_after_url: bool = False
    """Whether the handshake's wait was ended early (`_end_if_it_serves_http`), not by `connect_timeout`."""
    heard: bool = False
    """Whether the stdio server `connect`'s transport started has written a JSON-RPC message to stdout
    (`StdioSession.heard`, for the SDK's session)."""
    closed_during: str = ""
    """The request a stdio server closed the connection during: when it wrote nothing since, its
    last words before it are shown (biomcp says why it will exit as it starts, then exits silently)."""
    unreadable_answer: str = ""
    """Over HTTP, where the last answer the SDK's parser refused holds a lone surrogate: the transport
    makes that answer its request's -32700 error, and this names the entry and the JSON pointer, as
    `_unreadable` does for a stdio line."""

    def find_http(self, stray: StrayStdout, process: subprocess.Popen[bytes]) -> None:
        """Why a stdio server that never answered is an HTTP server, into `serves_http`: it said where
        it listens on stdout (officeagent-mcp 1.2.0 without its `--stdio` logs "Now listening on:
        http://localhost:5000") or on stderr (`url`, then), else a port it listens on
        (lucide-icons-mcp 0.1.67 says nothing); "" when neither tells."""
        self.http_url = stray.listening or _stderr_listening(self.stderr_log, 0)[0]
        if self.http_url:
            self.serves_http = f"it says it listens on {self.http_url}"
            return
        port = listening_port(process.pid) if process.poll() is None else ""
        self.serves_http = f"it listens on {port}" if port else ""

    def hear(self) -> None:
        self.heard = True

    def mark_request(self) -> None:
        self.unreadable_answer = ""
        with contextlib.suppress(OSError, ValueError):
            self.stderr_start = os.fstat(self.stderr_log.fileno()).st_size

    async def record_response(self, response: httpx2.Response) -> None:
        self.answered = True
        if response.status_code >= 400:
            self.http_status = response.status_code
        if response.status_code == 401 and asks_for_dpop(response.headers.get("www-authenticate", "")):
            self.dpop_asked = True
        if response.status_code in (401, 403) and "authorization" in response.request.headers:
            challenge = response.headers.get("www-authenticate", "")
            found = re.search(r'error="?([A-Za-z_]+)', challenge)
            self.token_refused = found.group(1) if found else f"HTTP {response.status_code}"
        elif response.status_code == 401:
            scheme = response.headers.get("www-authenticate", "").lstrip().partition(" ")[0]
            self.bearer_asked = scheme.lower() == "bearer"


_diagnostics: ContextVar[_Diagnostics | None] = ContextVar("_diagnostics", default=None)
"""The diagnostics of the connection opened in this task, for `_list_all` to mark."""


class CatalogRefused(StubgenError):
    """A complete catalog that cannot be snapshotted (an entry listed twice, a secret echoed): what the
    server wrote as it started explains none of it, so its line quotes none of it (metabase-ai-assistant
    4.2.0's five start-up log lines followed its duplicate tool)."""


async def list_catalog(
    client: Client | _StdioPeer, server: ServerConfig, warn: Warn = _ignore, ttls: list[int] | None = None
) -> Snapshot:
    """The catalog of a connected client, listed under `server`'s name, paging and time limits.

    `ttls` is told the 2026-07-28 `ttlMs` of the discovery result and of every page (0 for a legacy
    session, which has none), for `sync` to know how long the catalog may be taken as unchanged.

    A catalog that repeats one of the server's secrets is refused, so it never reaches a snapshot.
    On a 2026-07-28 session a tool whose `x-mcp-header` annotations are invalid is left out, as the
    spec tells clients to do, with a warning line (SEP-2243)."""
    peer: _Peer = client if isinstance(client, _StdioPeer) else _SdkPeer(client)
    capabilities = peer.capabilities
    listed: dict[str, list[JSON]] = {}
    missing: list[str] = []
    collected = [] if ttls is None else ttls
    collected.append(peer.discover_ttl_ms)
    skipped: list[str] = []
    for listing in (_TOOLS, _RESOURCES, _TEMPLATES, _PROMPTS):
        declared = listing.capability in capabilities
        if declared and listing.method in server.skip_lists:
            skipped.append(listing.method)
            declared = False
        entries = await _list_all(peer, server, listing, collected, warn) if declared else []
        if entries is None:
            missing.append(listing.method)
        listed[listing.method] = entries or []
    if peer.protocol_version in MODERN_PROTOCOL_VERSIONS:
        listed[_TOOLS.method] = _valid_header_tools(server, listed[_TOOLS.method], warn)
    try:
        snapshot = Snapshot.of_sorted_entries(
            server=server.name,
            protocol_version=peer.protocol_version,
            capabilities=capabilities,
            server_info=without_drawn_name(peer.server_info),
            instructions=peer.instructions,
            tools=tuple(listed[_TOOLS.method]),
            resources=tuple(listed[_RESOURCES.method]),
            resource_templates=tuple(listed[_TEMPLATES.method]),
            prompts=tuple(listed[_PROMPTS.method]),
            missing_methods=tuple(missing),
            skipped_lists=tuple(skipped),
            client_capabilities=server.client_capabilities,
            parse_text_json=server.parse_text_json,
        )
        _secrets_of(server).refuse_in_catalog(server.name, snapshot.to_json())
    except StubgenError as error:
        raise CatalogRefused(error.message) from None
    return snapshot


DRAWN_NAME = re.compile(r"(FastMCP[A-Za-z]*)-[0-9a-f]{4}")
"""The name FastMCP gives a server built without one (`FastMCP.generate_name`): its class name and
four random hex digits, drawn anew on every start (`FastMCP-1a2b`, a proxy's `FastMCPProxy-0cb0`)."""


def without_drawn_name(server_info: JSON | None) -> JSON | None:
    """`serverInfo` with a name FastMCP drew at random (`DRAWN_NAME`) cut to its class name: such a
    name differs on every start, so the snapshot of an unchanged server would too."""
    name = server_info.get("name") if server_info is not None else None
    drawn = DRAWN_NAME.fullmatch(name) if isinstance(name, str) else None
    if server_info is None or drawn is None:
        return server_info
    return {**server_info, "name": drawn.group(1)}


X_MCP_HEADER = "x-mcp-header"


def _valid_header_tools(server: ServerConfig, tools: list[JSON], warn: Warn) -> list[JSON]:
    """The tools whose `x-mcp-header` annotations the SDK finds valid; one without any such key,
    almost every tool, is valid without asking it (and without importing it)."""
    kept = []
    for tool in tools:
        schema = tool.get("inputSchema")
        if not _mentions_key(schema, X_MCP_HEADER):
            kept.append(tool)
            continue
        from mcp.shared.inbound import find_invalid_x_mcp_header

        reason = find_invalid_x_mcp_header(schema)
        if reason is None:
            kept.append(tool)
            continue
        line = (
            f"server {server.name!r}: tool {tool['name']!r} left out: its x-mcp-header annotations are "
            f"invalid ({reason}), and protocol 2026-07-28 has clients drop such a tool"
        )
        warn(_secrets_of(server).scrub(line))
    return kept


def _mentions_key(value: Any, key: str) -> bool:
    """Whether any object inside `value` has `key`."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            if key in item:
                return True
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return False


def _transport(
    server: ServerConfig,
    env: dict[str, str],
    headers: dict[str, str],
    diagnostics: _Diagnostics,
    oauth: httpx2.Auth | None = None,
    started: StdioProcess | None = None,
) -> Any:
    if server.command is not None:
        if started is None:
            if sys.platform == "win32":  # the SDK's transport, which puts the server in a Windows job object
                if not can_start(server, env):
                    raise StubgenError(_not_runnable(server, env))
                from mcp.client.stdio import StdioServerParameters, stdio_client

                parameters = StdioServerParameters(
                    command=server.command,
                    args=list(server.args),
                    env=FIXED_HASH_SEED | env,
                    cwd=server.cwd,
                    encoding_error_handler="replace",
                )
                return stdio_client(parameters, errlog=diagnostics.stderr_log)
            started = _start(server, env, diagnostics.stderr_log)
        diagnostics.process = started.process
        return stdio_transport(
            started,
            functools.partial(_warn_unparsed, server, diagnostics.stray),
            errors="strict",
            heard=diagnostics.hear,
        )
    assert server.url is not None
    import httpx2

    # Discovery bounds every request with a deadline that `held` moves (`deadlines`); httpx's own
    # timeouts would run on while `sync` holds the loop with a render, so it keeps only the bound on
    # a response that sends nothing at all, never shorter than those deadlines.
    idle = max(STREAM_IDLE_SECONDS, server.timeouts.request, server.timeouts.connect)
    timeouts = httpx2.Timeout(None, read=idle)
    hooks = {"response": [diagnostics.record_response]}
    if server.transport == "sse":
        return _sse_transport(server.url, server.name, oauth, headers=headers, timeout=timeouts, event_hooks=hooks)
    # The generated clients' transport: a fault of the server's at the HTTP level is the error answer
    # of the one request concerned, and no answer is read past its size limit.
    from codegen.runtime._http import http_transport

    def note_unreadable(answer: bytes) -> None:
        diagnostics.unreadable_answer = _lone_surrogate(server, answer.decode("utf-8", "replace")) or ""

    return http_transport(
        server.url,
        server.name,
        oauth,
        headers=headers,
        timeout=timeouts,
        event_hooks=hooks,
        on_unreadable=note_unreadable,
    )


@asynccontextmanager
async def _sse_transport(
    url: str, server_name: str, oauth: httpx2.Auth | None, **client_options: Any
) -> AsyncIterator[Any]:
    """The SDK's legacy SSE transport (the answers come on one event stream, each message is POSTed
    on its own) over `_SseClient`: a message whose POST failed gets its error answer on the stream
    the SDK reads, merged with the server's own messages."""
    from mcp.client.sse import sse_client
    from mcp.shared.message import SessionMessage
    from mcp.types import jsonrpc_message_adapter

    failed_send, failed_receive = anyio.create_memory_object_stream[bytes](math.inf)
    client_class = _sse_client_class()

    def http_client(
        headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
    ) -> httpx2.AsyncClient:
        return client_class(server_name, failed_send.send_nowait, auth=oauth or auth, **client_options)

    async with sse_client(url, httpx_client_factory=http_client) as (read, write):
        merged_send, merged_receive = anyio.create_memory_object_stream[Any](0)

        async def from_server(out: anyio.abc.ObjectSendStream[Any]) -> None:
            async with out:
                async for message in read:
                    await out.send(message)
            failed_send.close()

        async def from_transport(out: anyio.abc.ObjectSendStream[Any]) -> None:
            async with out, failed_receive:
                async for answer in failed_receive:
                    await out.send(SessionMessage(jsonrpc_message_adapter.validate_json(answer, by_name=False)))

        async with anyio.create_task_group() as group:
            group.start_soon(from_server, merged_send.clone())
            group.start_soon(from_transport, merged_send.clone())
            merged_send.close()
            yield merged_receive, write
            group.cancel_scope.cancel()


@functools.cache
def _sse_client_class() -> Callable[..., httpx2.AsyncClient]:
    """`_SseClient`, made on first use (over the runtime's guarded client, which imports httpx then)."""
    import httpx2

    from codegen.runtime import _http
    from codegen.runtime._runtime import AuthError

    class _SseClient(_http._guarded_client_class()):  # type: ignore[misc]  # a class made at run time
        """The runtime's guarded client, for SSE: the event stream is checked event by event as on
        Streamable HTTP, and the POST of a message, which a server answers 202 (the answer comes on
        the stream), is read up to 64 KiB and dropped. A failed POST (below HTTP, an HTTP error page
        with its status and `Retry-After`, a reply larger than that, the `auth` flow's failure) is
        its request's error answer, told to `failed`, and a 202 for the SDK, whose writer ended on the
        first failure (with a traceback) and left the request to wait out its timeout."""

        def __init__(self, server_name: str, failed: Callable[[bytes], None], **options: Any) -> None:
            super().__init__(server_name, **options)
            self.failed = failed

        async def send(self, request: httpx2.Request, **options: Any) -> httpx2.Response:
            json_rpc, request_id = _http._sent_message(request)
            if not json_rpc:
                stream: httpx2.Response = await super().send(request, **options)  # the event stream's GET
                return stream
            answer = await self._post(request, request_id, options)
            if isinstance(answer, httpx2.Response):
                return answer
            if request_id is None:  # a notification: nothing waits for an answer
                _http._log.warning("%s: a message to the server was lost (%s)", self.server_name, answer["message"])
            else:
                self.failed(json.dumps({"jsonrpc": "2.0", "id": request_id, "error": answer}).encode())
            return httpx2.Response(202, request=request)

        async def _post(
            self, request: httpx2.Request, request_id: Any, options: dict[str, Any]
        ) -> httpx2.Response | Any:
            """The server's reply to the POST, to pass on (a 2xx without its body, a redirect), or
            the JSON-RPC error that stands for its failure."""
            try:
                response = await httpx2.AsyncClient.send(self, request, **options)
            except httpx2.TransportError as error:
                unsent = self._unsent_auth_request(request, error)
                if unsent is not None:
                    return _http.auth_failure_error(unsent)
                return {"code": CONNECTION_CLOSED, "message": _http._transport_failure(error)}
            except AuthError as error:
                return _http.auth_failure_error(error)
            if 300 <= response.status_code < 400:
                return response  # the SDK follows it within the origin, or refuses it
            if response.status_code >= 400:  # its error answer, whose id `send` gives
                return _error_of(await _http._http_error(request, None, response, self.given_auth))
            try:
                body = await _http._read(response, _http._ERROR_PAGE_BYTES)
            except httpx2.RequestError as error:  # the reply broke off, or cannot be decoded
                await response.aclose()
                return {"code": CONNECTION_CLOSED, "message": _http._transport_failure(error)}
            if body is None:
                limit = _http._ERROR_PAGE_BYTES >> 10
                return {
                    "code": NOT_AN_ANSWER,
                    "message": f"its reply to the message is larger than {limit} KiB once decoded; not read",
                }
            return httpx2.Response(response.status_code, request=request)

    return _SseClient


def _error_of(answer: httpx2.Response) -> Any:
    """The JSON-RPC error of an error answer the runtime's transport made."""
    return json.loads(answer.content)["error"]


def _not_runnable(config: ServerConfig, env: dict[str, str]) -> str:
    """Why `shutil.which` found no program: a file that is there but not executable, or a path to a
    folder (an npm install's folder in place of its program), or a path to nothing, says so; "give
    the program's full path" sent a user who had given one back to it. A command that is a program
    and its arguments (`command = "npx -y pkg"`, as a launcher's one-line form writes it) says to
    split it into `args`."""
    assert config.command is not None
    server, command = config.name, config.command
    split = _program_and_arguments(config, env)
    if split is not None:
        program, arguments = split
        return f"server {server!r}: command {command!r} is a program and its arguments; " + config.advise(
            f"give the program alone in `command` and the rest in `args`: command = {json.dumps(program)}, "
            f"args = {json.dumps([*arguments, *config.args], ensure_ascii=False)}",
            f"give them as separate words after --: -- {shlex.join([program, *arguments])}",
        )
    if os.path.dirname(command):
        candidates = [program_path(config)]
    else:
        candidates = [os.path.join(folder, command) for folder in (search_path(env) or "").split(os.pathsep) if folder]

    def named(candidate: str) -> str:
        return f"command {command!r}" + (f" ({candidate})" if candidate != command else "")

    for candidate in candidates:
        if os.path.isfile(candidate):
            return (
                f"server {server!r}: {named(candidate)} is not executable; make it so (`chmod +x {candidate}`) "
                "or run it through its interpreter (python, node, ...) with the file as its first argument"
            )
        if os.path.dirname(command) and os.path.isdir(candidate):
            return (
                f"server {server!r}: {named(candidate)} is a folder, not a program; give the program in it "
                "(an npm package's is under node_modules/.bin/, a venv's under bin/)"
            )
    if os.path.dirname(command):
        return f"server {server!r}: {named(candidates[0])} does not exist; check the path"
    return f"server {server!r}: command {command!r} not found; install it, or give the program's full path"


def _program_and_arguments(config: ServerConfig, env: dict[str, str]) -> tuple[str, list[str]] | None:
    """`command` as a program and its arguments, when its first words name a program: the fewest
    that do, so a path with spaces in it (`/srv/my servers/venv/bin/python`) stays whole, and each
    argument the longest run of words that names a file or folder, else one word. None when no
    run of words before the last names a program."""
    assert config.command is not None
    words = config.command.split()
    folder = str(config.cwd) if config.cwd is not None else os.getcwd()
    for end in range(1, len(words)):
        program = " ".join(words[:end])
        if shutil.which(program_path(replace(config, command=program)), path=search_path(env)):
            arguments, start = [], end
            while start < len(words):
                start, taken = next(
                    (stop, " ".join(words[start:stop]))
                    for stop in range(len(words), start, -1)
                    if stop == start + 1 or os.path.exists(os.path.join(folder, " ".join(words[start:stop])))
                )
                arguments.append(taken)
            return program, arguments
    return None


def _or_skip(server: ServerConfig, listing: _Listing) -> str:
    """For a list method other than `tools/list` that fails: how to snapshot the rest of the catalog
    until the server is fixed (a server's tools are what a snapshot is for, so they are not offered)."""
    if listing is _TOOLS:
        return ""
    return "; to snapshot the rest without it, " + server.advise(
        f'set skip_lists = ["{listing.method}"] in its server table', f"add --skip-list {listing.method}"
    )


async def _list_all(
    peer: _Peer, server: ServerConfig, listing: _Listing, ttls: list[int], warn: Warn
) -> list[JSON] | None:
    """Every page of one list method, in order, each page's `ttlMs` told to `ttls`; a repeated cursor,
    too many pages, or pages that hold too much (`ListingBound`) is an error. An entry that is not valid MCP is left out with a warning line:
    one malformed tool does not cost the server's whole catalog.

    None when the server answers the first page with -32601: it declared the capability but does
    not implement this method (mcp 1.x servers with `resources` but no templates do that)."""
    entries: list[JSON] = []
    cursor: str | None = None
    bound = ListingBound()
    diagnostics = _diagnostics.get()
    for number in range(1, server.max_pages + 1):
        if diagnostics is not None:
            diagnostics.mark_request()
        try:
            with deadline(server.timeouts.request):
                page = await peer.list_page(listing, cursor)
        except TimeoutError:
            raise StubgenError(
                f"server {server.name!r}: {listing.method} did not answer within {server.timeouts.request:g}s; "
                f"raise request_timeout in the config or --request-timeout if the server is just slow{_or_skip(server, listing)}"
            ) from None
        except ValidationError as error:
            raise StubgenError(
                f"server {server.name!r}: {listing.method} returned a result that is not valid MCP "
                f"({_first_problem(error)}); the server has to fix its catalog{_or_skip(server, listing)}"
            ) from None
        except RemoteError as error:
            if _auth_flow_failed(error.data):
                raise StubgenError(f"server {server.name!r}: {error.message}") from None
            if error.code == NOT_AN_ANSWER and diagnostics is not None and diagnostics.unreadable_answer:
                raise StubgenError(diagnostics.unreadable_answer) from None
            status = _http_status(error)
            if status in (401, 403):
                raise StubgenError(_access_refused(server, status, diagnostics)) from None
            if status is not None:  # an error page: not the server saying it lacks the method (-32601)
                raise StubgenError(f"server {server.name!r}: {listing.method} failed: {error.message}") from None
            if error.code == CONNECTION_CLOSED and server.url is not None:
                raise StubgenError(
                    f"server {server.name!r}: {listing.method} failed: {_connection_failure(server, error.message)}"
                ) from None
            if isinstance(error, ConnectionClosed):
                if diagnostics is not None:
                    diagnostics.closed_during = listing.method
                raise StubgenError(
                    f"server {server.name!r}: the server closed the connection during {listing.method}"
                ) from None
            if error.code == METHOD_NOT_FOUND and cursor is None:
                return None
            if error.message == NESTED_TOO_DEEP or TOO_DEEP in error.message:
                # Streamable HTTP reports the unreadable answer as an error: in the words of the
                # runtime's transport, or of the SDK's parser
                raise StubgenError(_too_deep(server)) from None
            raise StubgenError(
                f"server {server.name!r}: {listing.method} failed: {error.message} (code {error.code})"
                f"{_or_skip(server, listing)}"
            ) from None
        for entry in page.left_out:
            line = f"server {server.name!r}: {replace(entry, page=number).warning('it is left out of the snapshot')}"
            warn(_secrets_of(server).scrub(line))
        _refuse_non_finite(server, listing, page.entries)
        ttls.append(page.ttl_ms)
        entries.extend(page.entries if page.keys_sorted else sorted_copy(page.entries))
        cursor = page.next_cursor
        stop = bound.stop(page.size, cursor)
        if stop is not None:
            raise StubgenError(f"server {server.name!r}: {listing.method} {stop}, so its catalog cannot be listed")
        if cursor is None:
            return entries
    raise StubgenError(
        f"server {server.name!r}: {listing.method} still had more after {server.max_pages} pages; "
        "raise max_pages in the config or --max-pages if the catalog really is that large"
    )


def _first_problem(error: ValidationError) -> str:
    """The first thing pydantic found wrong with a result: its JSON pointer and pydantic's words."""
    first = error.errors()[0]
    return f"/{'/'.join(str(part) for part in first['loc'])}: {first['msg']}"


NUMBER_OUT_OF_RANGE = "number out of range"
"""What pydantic-core's JSON parser (the MCP SDK's) says of an integer longer than Python reads
(`sys.get_int_max_str_digits()`, 4,300 digits); the SDK then drops the message, and its request
would run into its timeout."""


class _LongInteger(str):
    """An integer's digits, kept as text: Python refuses to read more than its digit limit."""


def _unread_input(error: Exception) -> Any:
    """What the SDK could not read, which pydantic keeps in its error: the line's JSON text (its bytes,
    for a line that is not UTF-8), or what it held once parsed; None for another exception."""
    return error.errors()[0].get("input") if isinstance(error, ValidationError) and error.errors() else None


def _answers_in_flight(client: Client, read: Any) -> bool:
    """Whether a message the SDK could not read answers a request of the session waiting for its
    answer, or may (`_stdio.answers_one_of`, which the generated clients' runtime reads it by too)."""
    dispatcher = getattr(client.session, "_dispatcher", None)
    waiting = getattr(dispatcher, "_pending", {})
    return answers_one_of(read_refused(read) if isinstance(read, str | bytes) else read, waiting)


def _unreadable_message(server: ServerConfig, read: Any, complaint: str) -> str | None:
    """One line naming the server, and the entry and the JSON pointer where it can, for what makes a
    message one the MCP SDK cannot read (`read` as `_unread_input` gives it, `complaint` what its
    parser said); None for a line that is only not JSON-RPC (a stray print)."""
    if isinstance(read, bytes):
        text = read.decode("utf-8", "surrogateescape")
        if not any("\udc80" <= character <= "\udcff" for character in text):
            return None
        message = read_refused(text)
        return _not_utf_8(server, text, "it" if isinstance(message, dict) and "method" in message else "its answer")
    if TOO_DEEP in complaint:
        return _too_deep(server)
    if NUMBER_OUT_OF_RANGE in complaint:
        return _long_number(server, read if isinstance(read, str) else None)
    if isinstance(read, str):
        return _lone_surrogate(server, read)
    if isinstance(read, dict) and "id" in read and "method" not in read:
        return f"server {server.name!r}: {NEITHER_RESULT_NOR_ERROR}; the server has to fix it"
    return None


def _warn_unparsed(server: ServerConfig, stray: StrayStdout, line: str | bytes, error: ValueError) -> None:
    """The one warning naming the server for a stdout line that is only not JSON-RPC (a stray print),
    kept in `stray` as discovery's own session keeps it; a message the MCP SDK cannot read is the
    session's to warn of or end on (`_connected`)."""
    if _unreadable_message(server, _unread_input(error), str(error)) is None:
        warn_not_json_rpc(server.name, line, "utf-8")
        if isinstance(line, str):
            stray.add(line)


def _warn_left_out(server: ServerConfig, warn: Warn, line: str | bytes, complaint: str) -> None:
    """`warn` of a line a stdio server wrote that `StdioSession` skipped, when the MCP SDK cannot read it."""
    problem = _unreadable_message(server, line, complaint)
    if problem is not None:
        warn(_secrets_of(server).scrub(_left_out(problem, line)))


def _left_out(problem: str, read: Any) -> str:
    """The warning for a message the MCP SDK cannot read that answers no request in flight."""
    message = read_refused(read) if isinstance(read, str | bytes) else read
    method = message.get("method") if isinstance(message, dict) else None
    if isinstance(method, str):
        what = f"a {_clip(method, 80)!r} message"
    elif isinstance(message, dict) and "method" in message:
        what = "a request or notification"
    else:
        what = "an answer to no request in flight"
    return f"{problem}; {what} it sent, left out"


def _long_number(server: ServerConfig, raw: str | None) -> str:
    """One line for a message dropped for an integer too long to read, naming the tool and the JSON
    pointer when the message's text is at hand."""
    limit = sys.get_int_max_str_digits() or math.inf
    problem = f"an integer longer than the {limit:,} digits Python reads"
    where = ""
    if raw is not None:
        with contextlib.suppress(ValueError, RecursionError):
            message = json.loads(raw, parse_int=lambda text: _LongInteger(text) if len(text) > limit else int(text))
            found = find_in_json(message, lambda value: isinstance(value, _LongInteger))
            if found is not None:
                where, digits = _entry_and_pointer(message, found[0]), len(found[1].lstrip("-"))
                problem = f"an integer of {digits:,} digits, more than the {limit:,} Python reads"
    return f"server {server.name!r}: {where}{problem}; the server has to send a smaller number"


def _unreadable(server: ServerConfig, unread: Unreadable) -> str:
    """One line for an answer the MCP SDK's JSON parser refuses though Python's reads it."""
    if unread.reason == NOT_UTF_8:
        return _not_utf_8(server, unread.line)
    surrogate = _lone_surrogate(server, unread.line)
    if surrogate is not None:
        return surrogate
    return f"server {server.name!r}: sent an answer the MCP SDK cannot read ({unread.reason}); the server has to fix it"


def _lone_surrogate(server: ServerConfig, raw: str | None) -> str | None:
    """One line naming the entry and the JSON pointer of a string holding a lone UTF-16 surrogate in a
    message's JSON text, if one does (the SDK's parser refuses it, Python's reads it)."""
    if raw is None:
        return None
    with contextlib.suppress(ValueError, RecursionError):
        message = json.loads(raw)
        found = find_in_json(message, _has_lone_surrogate)
        if found is not None:
            return (
                f"server {server.name!r}: {_entry_and_pointer(message, found[0])}a string holds a lone UTF-16 "
                "surrogate (half of a character, such as an emoji cut in two), which the MCP SDK cannot read; "
                "the server has to send whole characters"
            )
    return None


def _not_utf_8(server: ServerConfig, line: str, whose: str = "its answer") -> str:
    """One line naming the entry and the JSON pointer of the string holding the first byte of an
    answer (or a message of the server's, `whose` "it") that is not UTF-8 (`line` decoded with
    surrogateescape), else the answer as a whole."""
    where, stray = "", next(character for character in line if "\udc80" <= character <= "\udcff")
    with contextlib.suppress(ValueError, RecursionError):
        message = json.loads(line)
        found = find_in_json(message, lambda value: isinstance(value, str) and stray in value)
        if found is not None:
            where = _entry_and_pointer(message, found[0])
    return (
        f"server {server.name!r}: {where}{whose} is not UTF-8 (byte 0x{ord(stray) - 0xDC00:02x}), which the "
        "MCP SDK and the generated clients cannot read; the server has to write UTF-8"
    )


def _has_lone_surrogate(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _entry_and_pointer(message: Any, path: tuple[str | int, ...]) -> str:
    """`tool 'x' /inputSchema/...: ` for a path into a list result's entry (an object), else the
    message's own pointer."""
    in_entry = len(path) > 3 and path[0] == "result" and isinstance(path[2], int)
    entry = message["result"][path[1]][path[2]] if in_entry else None
    if isinstance(entry, dict):
        name = next((entry[key] for key in ("name", "uriTemplate", "uri") if isinstance(entry.get(key), str)), "")
        kind = {"tools": "tool", "resources": "resource", "resourceTemplates": "template", "prompts": "prompt"}
        return f"{kind.get(str(path[1]), 'entry')} {name!r} {_pointer(path[3:])}: "
    return f"{_pointer(path)}: "


def _pointer(parts: tuple[str | int, ...]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def _any_non_finite(value: Any) -> bool:
    """Whether a non-finite float is anywhere in a value: a loop, not `_paths_to`, since every page
    of every catalog goes through it."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            if not math.isfinite(item):
                return True
        elif hasattr(item, "model_extra"):  # one of the SDK's models
            stack.extend(vars(item).values())
            stack.extend((item.model_extra or {}).values())
    return False


def _refuse_non_finite(server: ServerConfig, listing: _Listing, entries: list[Any]) -> None:
    """A number too large for a float (`1e999`) is infinite once read, and JSON has no infinity: the
    snapshot would hold `null` in its place. Refused, naming the entry and the JSON pointer."""
    if not _any_non_finite(entries):
        return
    items = {wire.LIST_ENTRIES[listing.method]: entries}
    found = find_in_json(items, is_non_finite)
    if found is not None:
        where = _entry_and_pointer({"result": items}, ("result", *found[0]))
        raise StubgenError(
            f"server {server.name!r}: {listing.method}: {where}a number too large for a float ({found[1]}), which "
            "JSON cannot hold; the server has to send a finite number"
        )


def _too_deep(server: ServerConfig) -> str:
    return (
        f"server {server.name!r}: sent a message nested deeper than {MAX_NESTING} levels, which the MCP SDK "
        "cannot read; the server has to flatten its schemas"
    )


def _page_entries(page: Any, listing: _Listing) -> list[JSON]:
    """A page of the SDK's models as wire JSON with keys sorted all the way down, as
    `Snapshot.of_sorted_entries` takes them.

    pydantic writes the page as JSON text and one decode sorts every object's keys as it builds it:
    a `model_dump` per entry followed by the snapshot's own sorted copy builds every object twice,
    which for a thousand tools was most of what discovery added to the SDK's own listing. Text that
    cannot be UTF-8 JSON (a lone surrogate) takes the per-entry way, with the same result.
    """
    from pydantic_core import PydanticSerializationError

    try:
        text = page.model_dump_json(include={listing.items}, by_alias=True, exclude_none=True)
    except PydanticSerializationError:
        dumped = [
            item.model_dump(by_alias=True, exclude_none=True, mode="json") for item in getattr(page, listing.items)
        ]
        entries: list[JSON] = sorted_copy(dumped)
        return entries
    return sorted_entries(
        text.replace(f'"{listing.items}":', f'"{wire.LIST_ENTRIES[listing.method]}":', 1),
        wire.LIST_ENTRIES[listing.method],
    )


def _explain(server: ServerConfig, error: BaseException, diagnostics: _Diagnostics, secrets: Secrets) -> str:
    """One line for a failure of the transport or the handshake, with a stdio server's last words."""
    leaf = _leaf(error)
    if isinstance(leaf, StubgenError):
        message = leaf.message
    elif isinstance(leaf, Unreadable) and leaf.reason == TOO_DEEP:
        message = _too_deep(server)
    elif isinstance(leaf, Unreadable) and leaf.reason == NUMBER_OUT_OF_RANGE:
        message = _long_number(server, leaf.line)
    elif isinstance(leaf, Unreadable):
        message = _unreadable(server, leaf)
    elif _error_answer(leaf)[0] == NOT_AN_ANSWER and diagnostics.unreadable_answer:
        message = diagnostics.unreadable_answer
    elif server.auth is not None and _is_auth_error(leaf):
        message = str(leaf)
    elif _auth_flow_failed(_error_data(leaf)):
        message = f"server {server.name!r}: {_error_answer(leaf)[1]}"
    elif diagnostics.token_refused is not None and (server.auth is not None or diagnostics.dpop_asked):
        message = _token_refused_message(server, diagnostics)
    elif (later := _try_later(server, leaf)) is not None:
        message = later
    elif diagnostics.http_status is not None:
        message = _http_status_message(server, diagnostics.http_status, _answered(leaf), diagnostics.bearer_asked)
    elif isinstance(leaf, TimeoutError) and (redirect := _sign_in_redirect(diagnostics)):
        message = _waits_for_sign_in(server, redirect)
    elif diagnostics.serves_http and isinstance(leaf, TimeoutError):
        message = _serves_http(server, diagnostics)
    else:
        message = _cause(server, leaf)
    if server.command is None or isinstance(leaf, CatalogRefused):
        return message
    said = _stray_stdout(diagnostics, secrets) + _stderr_tail(diagnostics, secrets)
    return (
        message
        + (said or _silent_exit(server, leaf, diagnostics))
        + _unpassed_variables(server, diagnostics)
        + _npx_asked(server, diagnostics)
    )


def _silent_exit(server: ServerConfig, leaf: BaseException, diagnostics: _Diagnostics) -> str:
    """How a stdio server that closed the connection without a word on stderr or stdout ended:
    minimax-mcp-js 0.0.18 exits with status 1, saying nothing, when `MINIMAX_API_KEY` is unset, and
    the line said only to check that `command` starts an MCP server, which it does. A status from a
    signal (the server stopped by the session's end) says nothing of why it ended."""
    closed = isinstance(leaf, ConnectionClosed) or _error_answer(leaf)[0] == CONNECTION_CLOSED
    if not closed or diagnostics.process is None:
        return ""
    with contextlib.suppress(subprocess.TimeoutExpired):
        status = diagnostics.process.wait(_EXIT_WAIT)
        if status > 0:
            return (
                f"; it exited with status {status} and wrote nothing to stderr or stdout (as a server often does "
                "for a setting it lacks: check the variables and arguments its documentation asks for)"
            )
        if status == 0:  # @primeuix/mcp 1.0.1, a library whose command runs nothing
            return (
                "; it exited with status 0 and wrote nothing to stderr or stdout (as a program that serves "
                "nothing does, or one that needs a subcommand or an option to serve MCP)"
            ) + _linked_node_script(server)
    return ""


def _linked_node_script(server: ServerConfig) -> str:
    """Advice for a command that is a symbolic link to a Node script (`_stdio.linked_node_script`),
    in the config's or the command line's words."""
    assert server.command is not None
    script = linked_node_script(program_path(server), search_path(server_environment(server)))
    if script is None:
        return ""
    return "; " + linked_node_script_advice(
        script,
        server.advise(
            f'command = "node", args = {json.dumps([script, *server.args], ensure_ascii=False)}',
            f"-- {shlex.join(['node', script, *server.args])}",
        ),
    )


_EXIT_WAIT = 1.0
"""Seconds a server that closed its stdout gets to finish exiting before its status is read."""


def _npx_asked(server: ServerConfig, diagnostics: _Diagnostics) -> str:
    """Advice for npx run without `-y` on a package it has not installed: it asks first, finds no
    terminal, and exits saying "no YES option", as lucide-icons-mcp 0.1.67's README one-liner
    `npx lucide-icons-mcp --stdio` does."""
    assert server.command is not None
    if Path(server.command).stem.lower() != "npx" or {"-y", "--yes"} & set(server.args):
        return ""
    with contextlib.suppress(OSError, ValueError):
        diagnostics.stderr_log.seek(0)
        if "npx canceled due to missing packages" in diagnostics.stderr_log.read():
            return "; npx asks before it installs a package, and a stdio server has no terminal to ask on: " + (
                server.advise('put "-y" first in its `args`', "run npx -y " + " ".join(server.args))
            )
    return ""


def _serves_http(server: ServerConfig, diagnostics: _Diagnostics) -> str:
    """The line for a stdio server that never answered and serves HTTP (`_Diagnostics.find_http`),
    with its URL in the advice where it said one, as an MCP endpoint only if it is one by convention
    (`_stdio.endpoint_advice`). It is not started again for the legacy
    handshake, whose wait would tell nothing more."""
    url = diagnostics.http_url
    waited = (
        quiet_after_url(http_quiet(server), url)
        if diagnostics.quiet_after_url
        else f"no answer to the handshake within {server.timeouts.connect:g}s; {diagnostics.serves_http}"
    )
    connect = (
        server.advise(f'give that URL as the server\'s `url` (url = "{url}")', f"snapshot it with --url {url}")
        if url
        else server.advise("give its MCP endpoint as the server's `url`", "snapshot it with --url and its MCP endpoint")
    )
    return serves_http(server.name, waited, endpoint_advice(url, connect))


def http_quiet(server: ServerConfig) -> float:
    """Seconds of silence after naming a URL that end a stdio server's handshake early (`HTTP_QUIET_SHARE`,
    the runtime's, which a generated client's `connect` applies too)."""
    return server.timeouts.connect * HTTP_QUIET_SHARE


class _Stdout(Protocol):
    """What a session read on a stdio server's stdout: `StdioSession`'s, or `_Diagnostics`' for the
    SDK's session `connect` opens."""

    @property
    def heard(self) -> bool:
        """Whether the server has written a JSON-RPC message there."""

    @property
    def stray(self) -> StrayStdout: ...


@contextlib.contextmanager
def _ended_early_if_it_serves_http(
    stdout: _Stdout,
    diagnostics: _Diagnostics,
    handshake: anyio.CancelScope,
    server: ServerConfig,
) -> Iterator[None]:
    """Watch a stdio server's handshake (`_end_if_it_serves_http`) while the block runs: `snapshot`'s
    session and the SDK's that `connect` opens (`watch`, a hub connected from the config) end it alike."""
    watch = asyncio.ensure_future(_end_if_it_serves_http(stdout, diagnostics, handshake, http_quiet(server)))
    try:
        yield
    finally:
        watch.cancel()
        watch.add_done_callback(_quietly)


async def _end_if_it_serves_http(
    stdout: _Stdout,
    diagnostics: _Diagnostics,
    handshake: anyio.CancelScope,
    quiet: float,
) -> None:
    """End the handshake's wait (`handshake`, `connect_timeout` long) early for an HTTP server started
    as a stdio one: it named a URL it listens on (stdout or stderr) and then wrote nothing JSON-RPC on
    stdout for `quiet` seconds (`http_quiet`; the runtime's `http_quiet_ended` waits, as a generated
    client's `connect` does). A server that has written JSON-RPC, answers or not, is a stdio server,
    and one that printed a sign-in URL waits for a person, so neither is cut short."""
    offset, url = 0, ""

    def look() -> tuple[bool, str]:
        nonlocal offset, url
        if not url:
            said, offset = _stderr_listening(diagnostics.stderr_log, offset)
            url = stdout.stray.listening or said
        return stdout.heard, url

    if not await http_quiet_ended(look, quiet):
        return
    if not _sign_in_redirect(diagnostics):
        diagnostics.quiet_after_url = True
        handshake.deadline = anyio.current_time()


def _quietly(task: asyncio.Future[None]) -> None:
    """Take a finished watch's outcome, so that a failure of its own (it only ends a wait early, and
    `connect_timeout` still does) is not logged with a traceback when the task is collected."""
    if not task.cancelled():
        task.exception()


def _stderr_listening(stderr_log: TextIO, offset: int) -> tuple[str, int]:
    """The URL a stdio server's stderr says it listens on in the whole lines past `offset` ("" when
    none), and the offset after them, read without moving the file's position: the server writes
    through it."""
    with contextlib.suppress(OSError, ValueError):
        size = os.fstat(stderr_log.fileno()).st_size
        data = os.pread(stderr_log.fileno(), size - offset, offset) if size > offset else b""
        whole = data[: data.rfind(b"\n") + 1]
        said = StrayStdout()
        for line in whole.decode("utf-8", "replace").splitlines():
            said.add(line)
        return said.listening, offset + len(whole)
    return "", offset


def _sign_in_redirect(diagnostics: _Diagnostics) -> str:
    """Where a sign-in URL a stdio server printed (stdout or stderr) returns to, when that is this
    machine (the runtime's `sign_in_redirect`); "" when it printed none."""
    text = "\n".join(diagnostics.stray.lines)
    with contextlib.suppress(OSError, ValueError):
        diagnostics.stderr_log.seek(0)
        text += "\n" + diagnostics.stderr_log.read()
    return sign_in_redirect(text)


def _waits_for_sign_in(server: ServerConfig, redirect: str) -> str:
    return (
        f"server {server.name!r}: no answer to the handshake within {server.timeouts.connect:g}s; it waits "
        f"for a sign-in in a browser (it printed a sign-in URL that returns to {redirect}): sign in once by "
        "running its command in a terminal, or its own sign-in command if its documentation names one (often "
        "auth or login), so that it keeps the token; then try again"
    )


def _unpassed_variables(server: ServerConfig, diagnostics: _Diagnostics) -> str:
    """Advice for a stdio server that names, in what it printed, a variable set in this environment
    that it was never given: a user who exported POSTMAN_API_KEY, as @postman/postman-mcp-server's
    README says, read its "POSTMAN_API_KEY: Required" and could not tell that it was not passed on.
    Names only, never a value."""
    text = "\n".join(diagnostics.stray.lines)
    with contextlib.suppress(OSError, ValueError):
        diagnostics.stderr_log.seek(0)
        text += "\n" + diagnostics.stderr_log.read()
    with contextlib.suppress(StubgenError):
        given = {*INHERITED_ENVIRONMENT, *FIXED_HASH_SEED, *server_environment(server)}
        named = {
            match.start(): name
            for name in os.environ
            if len(name) >= _NAMED_VARIABLE_LENGTH
            and name not in given
            and (match := re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text))
        }
        names = [named[start] for start in sorted(named)][:_NAMED_VARIABLES]
        if not names:
            return ""
        listed, it = (names[0], "it") if len(names) == 1 else (", ".join(names), "them")
        how = server.advise(
            "its `env` in the config: " + ", ".join(f'{name} = "${{{name}}}"' for name in names),
            " ".join(f"--env {name}" for name in names),
        )
        return (
            f"; it names {listed}, set here but not passed to it (a stdio server gets only {INHERITED_NAMES} "
            f"of this environment): pass {it} on with {how}"
        )
    return ""


_NAMED_VARIABLE_LENGTH = 4
"""Shorter names (`PWD`, `_`) are words a server's output has for other reasons."""
_NAMED_VARIABLES = 3


def _access_refused(server: ServerConfig, status: int, diagnostics: _Diagnostics | None) -> str:
    """An HTTP error status: for a 401/403 to a request that carried a token, the token is the problem."""
    if (
        diagnostics is not None
        and diagnostics.token_refused is not None
        and (server.auth is not None or diagnostics.dpop_asked)
    ):
        return _token_refused_message(server, diagnostics)
    return _http_status_message(server, status, bearer_asked=diagnostics is not None and diagnostics.bearer_asked)


def _auth_flow_failed(data: Any) -> bool:
    """Whether an error answer is the runtime's transport reporting that the `auth` flow failed
    (`data` names the OAuth step, and no HTTP status: the request was never sent); its message is
    `OAuth <step> failed: <what to do>`."""
    return isinstance(data, dict) and AUTH_STEP_KEY in data and HTTP_STATUS_KEY not in data


def _error_data(error: BaseException) -> Any:
    """The `data` of a JSON-RPC error answer, ours or the SDK's."""
    if isinstance(error, RemoteError):
        return error.data
    sdk_errors = sys.modules.get("mcp.shared.exceptions")
    if sdk_errors is not None and isinstance(error, sdk_errors.MCPError):
        return error.error.data
    return None


def _try_later(server: ServerConfig, error: BaseException) -> str | None:
    """One line for a handshake refused with a `TRY_LATER` status: the transport's own words for it
    (`HTTP 429 Too Many Requests; it asks to retry after 30 s`), else None."""
    data = _error_data(error)
    if isinstance(data, dict) and data.get(HTTP_STATUS_KEY) in TRY_LATER:
        return f"server {server.name!r}: handshake failed: {_error_answer(error)[1]}{retry_advice(data)}"
    httpx = sys.modules.get("httpx2")  # the SSE transport's refused event stream
    if httpx is None or not isinstance(error, httpx.HTTPStatusError) or error.response.status_code not in TRY_LATER:
        return None
    retry_after = error.response.headers.get("retry-after")
    wait = asks_to_wait(retry_after) if retry_after else "; retry later"
    return f"server {server.name!r}: handshake failed: {status_line(error.response)}{wait}"


def _http_status(error: RemoteError) -> int | None:
    """The HTTP status of an error page the runtime's transport made this error answer of (it puts
    the status in `data`); None for an answer the server sent as JSON-RPC."""
    data = error.data
    status = data.get(HTTP_STATUS_KEY) if isinstance(data, dict) else None
    return status if isinstance(status, int) else None


def _cannot_connect(server: ServerConfig, detail: str) -> str:
    """What to say of a connection nothing accepted, or whose TLS handshake failed (`tls_failure`)."""
    tls = tls_failure(detail)
    if tls is None:
        return f"cannot connect to {server.url}; is the server running?"
    words, plain = tls
    said = f"cannot connect to {server.url}: the TLS handshake failed ({words})"
    if plain:
        return f"{said}; if the server speaks plain HTTP, its URL is http://{str(server.url).removeprefix('https://')}"
    return said


def _connection_failure(server: ServerConfig, reason: str) -> str:
    """What to say of a Streamable HTTP connection that failed below HTTP: the runtime's transport
    makes that its request's -32000 answer, `reason` naming httpx's error (`ConnectError: ...`)."""
    kind = reason.partition(":")[0]
    if kind == "ConnectError":
        return _cannot_connect(server, reason)
    if kind == "RemoteProtocolError" and "without sending a response" in reason:
        return f"{server.url} closed the connection without answering; check the server's logs"
    return f"the connection to {server.url} broke ({reason}); check the server's logs"


def _token_refused_message(server: ServerConfig, diagnostics: _Diagnostics) -> str:
    """A 401/403 to a request that carried a token: the credentials, never the URL, are the problem
    (or, when the server asked for DPoP alone, that mcp-stubgen sends bearer tokens only)."""
    error = diagnostics.token_refused
    if diagnostics.dpop_asked:
        return f"server {server.name!r}: {DPOP_UNSUPPORTED}"
    if error == "insufficient_scope":
        return (
            f"server {server.name!r}: OAuth insufficient scope: the token lacks a scope the server asks for; "
            "add it to `scopes` in the server's auth config and run `mcp-stubgen auth login` again"
        )
    if server.auth is not None and server.auth.mode == "token":
        advice = "check the token its auth.token reads from the environment"
    else:
        advice = f"run `mcp-stubgen auth login {server.name}` again, or check the client credentials in its auth config"
    return f"server {server.name!r}: the server refused the token it was sent ({error}); {advice}"


def _answered(error: BaseException) -> str:
    """The server's own JSON-RPC error in an HTTP error answer, as `message (code N)`; "" when the
    error is not one the server sent (an error page the transport turned into an answer has the
    status in its `data`)."""
    code, message = _error_answer(error)
    data = _error_data(error)
    if code is None or (isinstance(data, dict) and HTTP_STATUS_KEY in data):
        return ""
    return f"{message} (code {code})"


def _http_status_message(server: ServerConfig, status: int, answered: str = "", bearer_asked: bool = False) -> str:
    if status == 401 and bearer_asked and server.auth is None:
        return f"server {server.name!r}: {server.url} refused access (HTTP 401) and asks for a bearer token; " + (
            server.advise(
                f"if it uses OAuth, give it an `auth` table and run `mcp-stubgen auth login {server.name}` "
                "(docs/authentication.md), else send the token in its `headers`",
                "send one with --header 'Authorization: Bearer <token>', or, if it uses OAuth, declare it in the "
                f"config ([tool.mcp-stubgen.servers.{server.name}] with its url and an `auth` table) and run "
                f"`mcp-stubgen auth login {server.name}` (docs/authentication.md)",
            )
        )
    if status in (401, 403) and not server.headers and server.auth is None:
        return (
            f"server {server.name!r}: {server.url} refused access (HTTP {status}) to a request that carried no "
            "credentials; " + server.advise("send them in its `headers`", "send them with --header 'Name: value'")
        )
    if status in (401, 403):
        return f"server {server.name!r}: {server.url} refused access (HTTP {status}); " + server.advise(
            "check the credentials in its `headers`", "check the credentials given with --header"
        )
    if status == 405 and server.transport != "sse":
        # An SSE server's event-stream URL takes only GET (fastapi-mcp's `mount()`, the SDK 1.x `/sse`).
        return (
            f"server {server.name!r}: {server.url} answered HTTP 405 (Method Not Allowed) to Streamable HTTP's "
            "POST; if it speaks the older SSE transport, "
            + server.advise('set type = "sse" in its server table', "add --type sse")
        )
    if status in (400, 405) and server.transport == "sse":
        # A Streamable HTTP endpoint answers a GET without a session 400 (the MCP SDK's, mcp-proxy's) or 405.
        return (
            f"server {server.name!r}: {server.url} answered HTTP {status} to the SSE transport's GET; "
            "if it speaks Streamable HTTP, "
            + server.advise('remove type = "sse" from its server table', "leave out --type sse")
        )
    if "already initialized" in answered:
        # The TypeScript SDK's words for a second `initialize` to a server that made one transport.
        return (
            f"server {server.name!r}: {server.url} answered HTTP {status}: {answered}; it takes one session "
            "per start, and an earlier command had it: restart the server before each command"
        )
    said = f": {answered}" if answered else ""
    return f"server {server.name!r}: {server.url} answered HTTP {status}{said}; check the URL and that the server is healthy"


def _cause(server: ServerConfig, leaf: BaseException) -> str:
    name = f"server {server.name!r}"
    if isinstance(leaf, TimeoutError):
        legacy = (
            ' (protocol = "legacy" in the config or --protocol legacy for one that ignores server/discover)'
            if server.protocol == "auto"
            else ""
        )
        return (
            f"{name}: no answer to the handshake within {server.timeouts.connect:g}s; "
            f"check that it is an MCP server{legacy}, or raise connect_timeout in the config or --connect-timeout"
        )
    if server.url is not None:
        import httpx2

        if isinstance(leaf, httpx2.HTTPStatusError):
            return _http_status_message(server, leaf.response.status_code)
        if isinstance(leaf, httpx2.ConnectError):
            return f"{name}: {_cannot_connect(server, str(leaf))}"
        if isinstance(leaf, httpx2.SSEError):
            return f"{name}: the event stream of {server.url} broke ({_describe(leaf)}); check the server's logs"
        if isinstance(leaf, httpx2.RemoteProtocolError):
            return f"{name}: {server.url} closed the connection without answering; check the server's logs"
        if isinstance(leaf, httpx2.TransportError):
            return f"{name}: connection to {server.url} failed ({type(leaf).__name__}); is the server running?"
    code, text = _error_answer(leaf)
    if code == CONNECTION_CLOSED and server.url is not None:
        return f"{name}: {_connection_failure(server, text)}"
    if isinstance(leaf, ConnectionClosed) or (code == CONNECTION_CLOSED and not isinstance(leaf, RemoteError)):
        return f"{name}: the server closed the connection during start-up; check that `command` starts an MCP server"
    if code is not None:
        return f"{name}: handshake failed: {text} (code {code})"
    if isinstance(leaf, OSError) and server.cwd is not None and leaf.filename == str(server.cwd):
        return f"{name}: cannot start it in {server.cwd} ({leaf.strerror or leaf}); fix `cwd` in the config (a folder, relative to the config file)"
    if isinstance(leaf, OSError) and server.command is not None:
        return f"{name}: cannot start {server.command!r} ({leaf.strerror or leaf}); check that the command is a program"
    if server.command is not None:
        return f"{name}: the server exited or broke the protocol during start-up ({_describe(leaf)})"
    return f"{name}: {_describe(leaf)}"


def _is_auth_error(error: BaseException) -> bool:
    from codegen.runtime._runtime import AuthError

    return isinstance(error, AuthError)


def _error_answer(error: BaseException) -> tuple[int | None, str]:
    """The code and message of a JSON-RPC error answer, ours or the SDK's (imported only if it is)."""
    if isinstance(error, RemoteError):
        return error.code, error.message
    sdk_errors = sys.modules.get("mcp.shared.exceptions")
    if sdk_errors is not None and isinstance(error, sdk_errors.MCPError):
        return error.error.code, error.error.message
    return None, ""


def _leaf(error: BaseException) -> BaseException:
    """The first real cause inside nested exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _stray_stdout(diagnostics: _Diagnostics, secrets: Secrets) -> str:
    """What the server wrote to stdout that is not JSON-RPC, to append to the error: a server that
    prints its complaint there (a banner, "installation not complete") and exits says why in nothing
    else. Scrubbed before it is cut, as `_stderr_tail` is."""
    lines = [line for line in (secrets.scrub(_uncoloured(line)).strip() for line in diagnostics.stray.lines) if line]
    if not lines:
        return ""
    return "; its stdout lines that are not JSON-RPC: " + _tail(lines)


_TERMINAL_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?)")
"""A terminal's colour, cursor (CSI) or hyperlink (OSC) sequence: Node servers colour their complaints
(chalk, in @stripe/mcp 0.3.3), which an error line would show as `\\x1b[31m` noise around the words."""


def _uncoloured(text: str) -> str:
    return _TERMINAL_SEQUENCE.sub("", text) if "\x1b" in text else text


def _stderr_tail(diagnostics: _Diagnostics, secrets: Secrets) -> str:
    """What the server wrote to stderr since the last request, to append to the error: its first
    error-looking line when the last lines leave it out (a cause printed before pages of usage text),
    then the last lines, a fatal JSON log line among them by its message and not twice; scrubbed before
    they are split or cut, so no part of a secret survives at a line break or the cut."""
    with contextlib.suppress(OSError, ValueError):
        diagnostics.stderr_log.seek(diagnostics.stderr_start)
        lines = _with_messages_joined(_stderr_lines(secrets.scrub(_uncoloured(diagnostics.stderr_log.read()))))
        if not lines and diagnostics.closed_during and diagnostics.stderr_start:
            diagnostics.stderr_log.seek(0)
            before = _stderr_lines(secrets.scrub(_uncoloured(diagnostics.stderr_log.read())))
            if before:
                return (
                    f"; its last stderr lines before {diagnostics.closed_during}: {_tail(before[-STDERR_TAIL_LINES:])}"
                )
        if not lines:
            return ""
        earlier, last = lines[:-STDERR_TAIL_LINES], lines[-STDERR_TAIL_LINES:]
        thrown = (line for line in earlier if _THROWN_LINE.match(line))
        mentions = (line for line in earlier if _ERROR_LINE.search(line) and line not in _PYTHON_TRACEBACKS)
        first_error = (
            next(filter(None, map(_fatal_log_entry, lines)), None)
            or next(thrown, None)
            # an error the last lines show is the cause; a line before it that merely mentions one is
            # noise (FastMCP's tool-name warning "contains invalid characters" before its traceback)
            or (None if any(_THROWN_LINE.match(line) for line in last) else next(mentions, None))
        )
        cause = f"; its first error line: {first_error[: STDERR_TAIL_CHARACTERS // 2]}" if first_error else ""
        shown = [line for line in (_fatal_log_entry(line) or line for line in last) if line != first_error]
        return f"{cause}; its last stderr lines: " + _tail(shown) if shown else cause
    return ""


def _tail(lines: Sequence[str]) -> str:
    """The last lines joined with ` | `, as many whole ones as fit in `STDERR_TAIL_CHARACTERS`: a cut
    inside a line showed its end alone (`P0151] DeprecationWarning: ...`, of Node's `(node:81) [DEP0151]
    ...`). A last line longer than that on its own keeps its end, after `...`."""
    shown: list[str] = []
    length = 0
    for line in reversed(lines):
        length += len(line) + (len(" | ") if shown else 0)
        if length > STDERR_TAIL_CHARACTERS:
            break
        shown.append(line)
    if not shown:
        return "..." + lines[-1][-(STDERR_TAIL_CHARACTERS - len("...")) :]
    return " | ".join(reversed(shown))


_ERROR_LINE = re.compile(
    r"\b(?:error|fatal|panic|exception|traceback|failed|failure|unable|cannot|can't|denied|invalid|missing)\b",
    re.IGNORECASE,
)
"""A stderr line that looks like the cause of a failure rather than usage or progress text."""


def _fatal_log_entry(line: str) -> str | None:
    """The message of a JSON log line at level fatal, panic or critical, with its `error` field: the
    cause a server logged as it gave up, shown in a few words rather than a line of stack trace, and
    preferred to what a launcher printed after it (slack-mcp-server 1.3.0's Go binary logs
    "Authentication failed - check your Slack tokens" as JSON, then its Node wrapper throws
    `Error: Command failed: .../slack-mcp-server-linux-amd64 --transport stdio`)."""
    if not line.startswith("{"):
        return None
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    nested = entry.get("fields")  # Rust's tracing puts them there
    fields: dict[str, Any] = nested if isinstance(nested, dict) else {}
    level = entry.get("level", entry.get("severity", entry.get("lvl")))
    if not isinstance(level, str) or level.lower() not in ("fatal", "panic", "critical", "crit", "dpanic"):
        return None
    message = next((text for text in (entry.get(key, fields.get(key)) for key in ("message", "msg")) if text), None)
    if not isinstance(message, str):
        return None
    error = entry.get("error", fields.get("error"))
    return f"{message}: {error}" if isinstance(error, str) and error and error not in message else message


_PYTHON_TRACEBACKS = frozenset(
    ("Traceback (most recent call last):", "Exception Group Traceback (most recent call last):")
)
"""The lines a Python traceback starts with: they name no error (the traceback's last line does, and
the last lines are shown), so neither is a first error line (mcp-tool-builder 0.1.0 under mcp 2.x)."""

_EXCEPTION_GROUP_MARGIN = re.compile(r"^(?:[|+](?: |$))+")
_EXCEPTION_GROUP_RULE = re.compile(r"\+[-+]*(?: (?:\d+|\.\.\.) -+)?")
"""How Python frames an exception group (every mcp SDK server's start-up fails in a TaskGroup): each
line behind a `| ` margin, the group's first behind `+ `, and sub-exceptions between `+-+---- 1 ----`
and `+------` rules. semgrep-mcp 0.9.0's "McpError: Semgrep is not installed" behind its margin was
not read as an error, and the rules filled the last lines."""


_RICH_RECORD = re.compile(r"(?:\[[^\]]*\] | *)(?:DEBUG {4}|INFO {5}|WARNING {2}|ERROR {4}|CRITICAL )(?=\S)")
"""The start of a record that rich's `RichHandler` logs (the time, left blank when it repeats, and the
level in a column 8 wide), up to the message column: FastMCP's and many Python servers' stderr."""
_RICH_PATH = re.compile(r" +(\S+\.py:\d+) *$")
"""The `file.py:87` column at the end of a record's first row."""


def _rich_records_joined(lines: list[str]) -> list[str]:
    """The lines with each rich log record on one line: `RichHandler` wraps a message into a column
    of an 80-character table when stderr is not a terminal, so jupyter-mcp-server 2.2.4's "Anonymous
    XSRF cookie fetch failed for http://localhost:8888" was a row per few words, and the error showed
    "its first error line: failed for". A row of one word that fills the column is a word longer than
    the column, folded: the next row goes on without a space."""
    joined: list[str] = []
    column = end = 0
    full = False
    for line in lines:
        if column and len(line) > column and line[:column].isspace() and not line[column].isspace():
            piece = line[column:].rstrip()
            joined[-1] += piece if full else f" {piece}"
            full = column + len(piece) == end and " " not in piece
            continue
        record = _RICH_RECORD.match(line)
        path = _RICH_PATH.search(line, record.end()) if record else None
        column = record.end() if record else 0
        end = path.start(1) - 1 if path else 0  # the message column's end, a space before the path's
        full = path is not None and path.start() == end and " " not in line[column:end]
        joined.append(line[: path.start()] if path else line)
    return joined


def _stderr_lines(text: str) -> list[str]:
    """The non-blank lines of `text`, stripped, an exception group's margins and rules taken off, a rich
    log record's rows joined, an error's stack frames and printed properties left out (`_what_failed`)."""
    lines = []
    for line in _rich_records_joined(text.splitlines()):
        line = _EXCEPTION_GROUP_MARGIN.sub("", line.strip()).strip()
        if line and not _EXCEPTION_GROUP_RULE.fullmatch(line):
            lines.append(line)
    return _what_failed(lines)


def _what_failed(lines: list[str]) -> list[str]:
    """The lines without the stack frames (`at f (file.js:1:2)`) and the error objects' properties that
    Node prints after an error's message (`console.error(error)`, or an uncaught one): the properties
    between the braces a message or frame line opens (`code: 'ECONNREFUSED',`, the closing `}`) say how,
    the frames where, and only the message lines what failed, a `[cause]: Error: ...` inside the braces
    included. mcp-remote 0.15.1 with its server down ended its stderr with `port: 8259 | } | }`."""
    kept: list[str] = []
    depth = 0  # how deep inside an error object's braces
    for line in lines:
        opens = line.endswith(("{", "["))
        message = _ERROR_MESSAGE.search(line) is not None
        if depth and line.startswith(("}", "]")):
            depth -= 1
            continue
        if _STACK_FRAME.fullmatch(line):
            depth += opens
            continue
        if depth or (opens and message):
            depth += opens
            if message:
                kept.append(line.removesuffix("{").rstrip())
            continue
        kept.append(line)
    return kept


def _with_messages_joined(lines: list[str]) -> list[str]:
    """The lines with an error's message joined to its `Error:` line: Node prints `Error: ` alone when
    the message begins with a line break (sharp's install help, under agentdb 1.6.1), so the line that
    threw named no error and a warning before it was taken for the cause."""
    joined: list[str] = []
    for line in lines:
        if joined and _BARE_THROWN_LINE.fullmatch(joined[-1]):
            joined[-1] = f"{joined[-1]} {line}"
        else:
            joined.append(line)
    return joined


_ERROR_NAME = r"(?:[A-Za-z_][\w.]*)?(?:Error|Exception)(?: \[[A-Z0-9_]+\])?:"
_BARE_THROWN_LINE = re.compile(_ERROR_NAME)
"""An uncaught error's first line when its message is on the next one (`Error:`, stripped)."""
_THROWN_LINE = re.compile(_ERROR_NAME + r" \S")
"""A stderr line that is an uncaught error's own message (`Error: Cannot find module 'x'`,
`Error [ERR_MODULE_NOT_FOUND]: ...`, `ModuleNotFoundError: ...`): preferred to the first line that
merely mentions an error, which in Node's report is the source line that threw
(`const err = new Error(message);`)."""

_STACK_FRAME = re.compile(r"at \S.*(?::\d+:\d+\)?|\([^()\s]+:\d+\)|\((?:<anonymous>|native|Unknown Source)\))(?: \{)?")
"""A stack frame as Node (`at fetch (node:internal/deps/undici/undici:14976:13)`, `at async
file:///srv/x.mjs:8:3 {`) or Java (`at a.B.c(B.java:12)`) prints it: where, never what."""
_ERROR_MESSAGE = re.compile(r"(?:^|[\s\[])" + _ERROR_NAME + r" \S")
"""An error's message line, as Node prints it on its own, after a log's prefix, in brackets when it has
no stack (`Fatal error: [TypeError: fetch failed] {`) or inside an error object (`[cause]: Error: ...`)."""


async def snapshot_all(
    servers: Sequence[ServerConfig],
    on_done: Callable[[str, Snapshot | StubgenError], None] | None = None,
    warn: Warn = _ignore,
    on_fresh: Callable[[str, float], None] | None = None,
) -> dict[str, Snapshot | StubgenError]:
    """Snapshot servers concurrently; one failing server does not stop the others. `on_fresh` is told,
    before `on_done`, until when (seconds since the epoch) a server said its listing stays fresh.
    `on_done` runs while a stdio server exits (its stdin already closed)."""
    results: dict[str, Snapshot | StubgenError] = {}

    async def one(server: ServerConfig) -> None:
        listed_at = time.time()
        async with _listed(server, warn) as (result, ttl):
            results[server.name] = result
            if on_fresh is not None and ttl > 0:
                on_fresh(server.name, listed_at + ttl)
            if on_done is not None:
                began = anyio.current_time()
                on_done(server.name, result)  # `sync` renders and publishes here, holding the loop
                held(anyio.current_time() - began)

    async with anyio.create_task_group() as group:
        for server in servers:
            group.start_soon(one, server)
    return {server.name: results[server.name] for server in servers}


def snapshot_servers(
    servers: Sequence[ServerConfig],
    on_done: Callable[[str, Snapshot | StubgenError], None] | None = None,
    warn: Warn = _ignore,
    on_fresh: Callable[[str, float], None] | None = None,
) -> dict[str, Snapshot | StubgenError]:
    """Synchronous entry point for the command line."""
    return anyio.run(snapshot_all, servers, on_done, warn, on_fresh)
