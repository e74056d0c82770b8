"""Helpers for the hub that mcp-stubgen generates over several servers' typed clients.

This file is copied verbatim into `_mcp_runtime/` beside a hub, so it imports only `mcp`, `pydantic`,
`jsonschema` (which `mcp` brings), the standard library and its siblings `_hub_catalog.py`,
`_hub_search.py`, `_hub_providers.py` and `_runtime.py` (the server packages' runtime, for its compiled schema checks). Do not edit
the copy: run `mcp-stubgen sync` to refresh it.

`jsonschema` and `mcp` are imported where they are used, as in each server package's `_runtime.py`:
importing the hub should cost neither, an application pays for them when it first calls a tool or
connects. `hub.call` checks arguments against the tool's JSON Schema itself, so it needs no server's
models (nor `pydantic`).
"""

from __future__ import annotations

import difflib
import functools
import importlib
import json
import os
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Concatenate,
    Generic,
    Literal,
    ParamSpec,
    Protocol,
    Self,
    TypeVar,
)

from ._hub_catalog import (
    HUB_SEPARATOR,
    SEARCH_TOOLS,
    Filters,
    HubTool,
    ToolFilter,
    ToolFormat,
    model_visible,
    names_only,
    qualified_name,
    search_result,
    search_tool,
    selected,
    tool_definition,
)
from ._hub_providers import DeferredTools, DeferredToolsMethod, Provider, anthropic_tool
from ._hub_search import SearchIndex
from ._loop_thread import SessionLoop
from ._runtime import (
    _REQUEST_TIMEOUT,
    MissingHandlerError,
    RequestTimeoutError,
    ServerError,
    _answer_error,
    _as_json,
    _call_advice,
    _check_result_base64,
    _lone_exception,
    _meta,
    _NotJson,
    _prime,
    _progress,
    _result_error,
    _timeout,
    client_handlers,
    error_message,
    list_tools,
    refuse_missing_handlers,
    tool_fingerprint,
)
from ._schema_check import CheckPastBudget, SchemaCheck, offline_validator

if TYPE_CHECKING:
    from mcp.client import Client, ClientSession
    from mcp.types import CallToolResult, Tool

    from ._runtime import (
        CallOptions,
        ElicitationHandler,
        ListRootsHandler,
        LoggingHandler,
        SamplingHandler,
        TaskSupport,
    )

__all__ = [
    "ArgumentsError",
    "Catalog",
    "CatalogDifference",
    "GeneratedHub",
    "GeneratedSyncHub",
    "HubError",
    "HubTool",
    "LeftOut",
    "ListChanged",
    "LiveTools",
    "PaginationError",
    "SiblingImport",
    "ToolFilter",
    "UnknownQualifiedToolError",
    "open_servers",
]

P = ParamSpec("P")
R = TypeVar("R")
HubT = TypeVar("HubT", bound="GeneratedHub")

SEARCH_LIMIT = 5
"""How many tools `search_tools` returns when the agent does not say."""
MAX_PAGES = 1000
"""A server's `tools/list` is read to at most this many pages, the limit `mcp-stubgen snapshot` applies."""
SETTLE_SECONDS = 0.2
"""How long a burst of change notifications may go on before the hub re-lists once (as `watch` settles)."""
RELIST_INTERVAL = 1.0
"""The fewest seconds between two re-lists of one server, however often it says its tools changed."""
RESUBSCRIBE_LONGEST_PAUSE = 60.0
"""A lost `subscriptions/listen` stream is opened again at once, then after 1, 2, 4, ... seconds, at
most this many apart: a restarted server is followed again, a dead one costs a failed request a minute.
The pauses start over only after a stream lasted this long, so a server that drops each new stream is
not asked again at once each time."""

LiveTools = Literal["ignore", "callable", "offer"]
"""What a connected hub does with a tool its server adds after the snapshot: `ignore` refuses to call
it (naming this option), `callable` lets `hub.call` call it but shows it to no model, and `offer`
also offers it to the model when the catalog-text audit finds nothing in it."""
LIVE_TOOLS: tuple[LiveTools, ...] = ("ignore", "callable", "offer")


class HubError(Exception):
    """Base of the errors the hub itself raises; the servers' own clients raise their own errors.
    A message may quote a server's text, so it is made one printable line (`error_message`)."""

    def __init__(self, message: str) -> None:
        super().__init__(error_message(message))


class PaginationError(HubError):
    """A server's `tools/list` paging does not end or holds too much: a cursor came back twice, or the
    pages ran past a limit (`MAX_PAGES`, `MAX_LISTING_BYTES`)."""

    def __init__(self, server: str, reason: str) -> None:
        self.server = server
        super().__init__(f"server {server!r}: tools/list {reason}, so its catalog cannot be listed")


class UnknownQualifiedToolError(HubError, LookupError):
    """A qualified name the hub cannot offer or call: not in its catalog, or left out for a `reason`
    (its filters, its server not connected or no longer listing it, a tool added live)."""

    def __init__(
        self, name: str, known: Sequence[str], reason: str | None = None, named: Sequence[str] = ()
    ) -> None:
        """`named`: the qualified names of tools `name` names by the server's own tool name."""
        self.name = name
        self.reason = reason
        if reason is not None:
            self.suggestions: tuple[str, ...] = ()
            super().__init__(f"the hub cannot offer or call {name!r}: {reason}")
            return
        close = difflib.get_close_matches(name, known, n=3)
        self.suggestions = tuple(dict.fromkeys([*named, *close]))[:3]
        hint = (
            f"; did you mean {', '.join(repr(match) for match in self.suggestions)}?"
            if self.suggestions
            else ""
        )
        count = f"{len(known)} tool" + ("" if len(known) == 1 else "s")
        super().__init__(f"the hub has no tool {name!r}{hint} (it has {count}: see Hub.tools)")


class ArgumentsError(HubError, ValueError):
    """Arguments that the tool's JSON Schema rejects; nothing was sent."""


@dataclass(frozen=True)
class SiblingImport:
    """A name in one of the servers' packages beside the hub, imported when first called for.

    The hub refers to its servers' clients through these, so importing the hub imports none of
    the servers' packages (with 50 servers, importing them made it three times slower).
    """

    module: str
    """The module, relative to the folder holding the hub and the servers' packages (`notes.models`)."""
    name: str

    def __call__(self) -> Any:
        return getattr(importlib.import_module(f"..{self.module}", __package__), self.name)


class _Connected(Protocol):
    """What the hub needs of a generated client; every generated client's base class provides it."""

    @property
    def mcp_client(self) -> Client | ClientSession: ...

    @property
    def tool_task_support(self) -> Mapping[str, TaskSupport]: ...

    @property
    def tool_fingerprints(self) -> Mapping[str, str]: ...

    @property
    def protocol_version(self) -> str: ...

    async def verify(self) -> None: ...

    async def _run_task(
        self, tool: str, payload: dict[str, Any], call_options: CallOptions
    ) -> CallToolResult: ...

    async def _send_unchecked(
        self, tool: str, payload: dict[str, Any], call_options: CallOptions
    ) -> CallToolResult: ...


class Catalog:
    """A set of hub tools and, built on first use, the index `shortlist` searches and each tool's
    compiled input schema; `reasons` say why a name the hub knows is not in it."""

    def __init__(
        self,
        tools: Mapping[str, HubTool],
        reasons: Mapping[str, str] | None = None,
        about: Mapping[str, str] | None = None,
    ) -> None:
        self.tools = dict(tools)
        self.reasons = dict(reasons or {})
        self.about = dict(about or {})
        self._index: SearchIndex | None = None
        self._checks: dict[str, SchemaCheck] = {}

    def unknown(self, name: str) -> UnknownQualifiedToolError:
        """The error for a name not in this catalog: why it was left out, or the closest names, first
        those of tools it names by the server's own name (`uni__统计字数` for `uni__tool`, a tool
        name no provider accepts)."""
        named = sorted(
            tool.qualified_name
            for tool in self.tools.values()
            if name == tool.tool
            or (
                len(name) > len(tool.server) + len(tool.tool)
                and name.startswith(tool.server)
                and name.endswith(tool.tool)
            )
        )
        return UnknownQualifiedToolError(name, sorted(self.tools), self.reasons.get(name), named)

    @property
    def index(self) -> SearchIndex:
        if self._index is None:
            self._index = SearchIndex(self.tools.values(), self.about)
        return self._index

    def check(self, tool: HubTool, arguments: Mapping[str, Any]) -> None:
        """`ArgumentsError` unless the arguments fit the tool's input schema, compiled on its first
        call into the same check a generated client makes; a refusal lists every problem."""
        check = self._checks.get(tool.qualified_name)
        if check is None:
            check = self._checks[tool.qualified_name] = SchemaCheck(tool.input_schema)
        try:
            problem = check.problem(arguments)
            if problem is None:
                return
            if isinstance(problem, Exception) and not hasattr(
                problem, "schema_path"
            ):  # a crash, not a refusal
                reason = " ".join(str(problem).split())[:200]
                raise ArgumentsError(
                    f"{tool.qualified_name}: its input schema cannot be applied ({reason}); nothing was sent"
                )
            _check_with_jsonschema(tool, check.validator, arguments)
        except CheckPastBudget as error:
            raise ArgumentsError(
                f"{tool.qualified_name}: the arguments could not be checked against its input schema: "
                f"{error}; nothing was sent"
            ) from None


_SNAPSHOT_CATALOGS: dict[type[GeneratedHub], Catalog] = {}


def _snapshot_catalog(hub_class: type[GeneratedHub]) -> Catalog:
    """The class's catalog of what a model may be shown, built once, so its search index is too."""
    if hub_class not in _SNAPSHOT_CATALOGS:
        shown = {name: tool for name, tool in hub_class.tools.items() if not tool.app_only}
        hidden = {name: _APP_ONLY for name, tool in hub_class.tools.items() if tool.app_only}
        _SNAPSHOT_CATALOGS[hub_class] = Catalog(shown, hidden, hub_class.server_about)
    return _SNAPSHOT_CATALOGS[hub_class]


_APP_ONLY = "its server shows it to apps only, not to the model (MCP Apps `_meta.ui.visibility`); call it from code"


def _known_servers(filters: Filters, hub_class: type[GeneratedHub]) -> Filters:
    """`filters`, once every server id a dict of them names is one of the hub's: a misspelt one
    (`githb`) would leave that server's tools unfiltered, a read-only filter offering every tool."""
    if isinstance(filters, Mapping):
        servers = sorted(set(hub_class.servers.values()))
        for server in sorted(set(filters) - set(servers)):
            meant = difflib.get_close_matches(server, servers, n=1, cutoff=0.6)
            hint = f"did you mean {meant[0]!r}? " if meant else ""
            raise HubError(
                f"hub: filters name server {server!r}, which is no server of this hub; {hint}"
                f"its servers are {', '.join(map(repr, servers))}"
            )
    return filters


class _CatalogMethod(Generic[P, R]):
    """A method over what a model may be shown: the snapshot's on the class (nothing connected), the
    live one on a hub."""

    def __init__(self, function: Callable[Concatenate[Catalog, P], R]) -> None:
        self.function = function
        self.__doc__ = function.__doc__

    def __get__(self, hub: GeneratedHub | None, hub_class: type[GeneratedHub]) -> Callable[P, R]:
        catalog = _snapshot_catalog(hub_class) if hub is None else hub.model_catalog

        @functools.wraps(self.function)
        def bound(*args: P.args, **kwargs: P.kwargs) -> R:
            _known_servers(kwargs.get("filters"), hub_class)  # type: ignore[arg-type]
            return self.function(catalog, *args, **kwargs)

        return bound


class _DeferredToolsDescriptor:
    """`deferred_tools`: over the snapshot's catalog on the class (it answers searches only), over the
    live one on a connected hub (which also runs the tools the model calls)."""

    def __get__(
        self, hub: GeneratedHub | None, hub_class: type[GeneratedHub]
    ) -> DeferredToolsMethod:
        catalog = _snapshot_catalog(hub_class) if hub is None else hub.model_catalog
        call = None if hub is None else hub.call

        def deferred_tools(
            provider: Provider,
            *,
            pinned: Collection[str] = (),
            filters: Filters = None,
            limit: int = SEARCH_LIMIT,
        ) -> DeferredTools:
            """The request's tools in the provider's deferred-loading form (Anthropic, OpenAI; Gemini
            declares what searches found), and `answer(call)` for the model's search and tool calls."""
            return DeferredTools(
                catalog,
                call,
                provider,
                pinned=pinned,
                filters=_known_servers(filters, hub_class),
                limit=limit,
            )

        return deferred_tools


class GeneratedHub:
    """The base of the generated `Hub`: the catalog lookup, argument validation and routing.

    The generated subclass fills `tools` from the snapshots and sets one typed client attribute
    per server; everything that does not differ between projects lives here and is tested once.
    """

    tools: ClassVar[Mapping[str, HubTool]] = {}
    servers: ClassVar[Mapping[str, str]] = {}
    """Each client attribute's server id."""
    server_about: ClassVar[Mapping[str, str]] = {}
    """Each server's own words about itself (title, description, instructions), which the shortlist searches."""
    separator: ClassVar[str] = HUB_SEPARATOR
    """What the qualified names join server and tool with (`hub_separator`); names tools a server adds live."""
    client_classes: ClassVar[Mapping[str, Callable[[], Callable[[Any], _Connected]]]] = {}
    """Each client attribute's generated client class, imported when asked for."""
    configured_filters: ClassVar[Mapping[str, ToolFilter]] = {}
    """The config's `[tool.mcp-stubgen.hub_filters.<server>]` by server id: they left tools out of
    `tools` when the hub was generated, and leave the same tools out of what servers list live."""
    configured_live_tools: ClassVar[LiveTools] = "ignore"
    """The config's `hub_live_tools`: what a connected hub does with tools a server adds (see `LiveTools`)."""

    def __init__(
        self,
        clients: Mapping[str, _Connected | None],
        filters: Filters = None,
        live_tools: LiveTools | None = None,
    ) -> None:
        self.clients: Mapping[str, _Connected] = {
            name: client for name, client in clients.items() if client is not None
        }
        self.filters = _known_servers(filters, type(self))
        self.live_tools_mode = _live_tools_mode(live_tools, self.configured_live_tools)
        self._views: dict[str, _ServerView] = {}
        self._added_before: dict[str, str] = {}
        """Every tool a server added live, by qualified name, to its server: one it removes later is
        refused as removed, not as a name the hub never had."""
        self._difference = CatalogDifference(added=(), removed=())
        self._rebuild()

    @classmethod
    def _open(
        cls,
        targets: Mapping[str, tuple[Opener, object | None]],
        timeout: float,
        filters: Filters,
        client_options: Mapping[str, Any],
        live_tools: LiveTools | None = None,
        handlers_checked: bool = False,
    ) -> AbstractAsyncContextManager[Self]:
        """Connect the targets given concurrently, then keep the hub's live catalog in step until exit.
        Each server's client capabilities need their handlers among `client_options`, checked before
        any server starts, unless the caller has (`handlers_checked`: `connect_from_config`)."""
        _live_tools_mode(
            live_tools, cls.configured_live_tools
        )  # a bad value fails here, before any server starts
        cls._refuse_misnamed_servers(client_options)
        _known_servers(filters, cls)
        if not handlers_checked:
            cls._refuse_missing_handlers(targets, client_options)

        @asynccontextmanager
        async def connected() -> AsyncIterator[Self]:
            try:
                async with open_servers(targets, timeout, client_options) as (clients, signals):
                    hub = cls(**clients, filters=filters, live_tools=live_tools)
                    async with hub.following_list_changes(signals):
                        yield hub
            except BaseExceptionGroup as group:
                # as a generated client's `connect` does: what leaves the block in the hub's task
                # groups alone (a `ServerError` of `hub.call`) reaches the caller as itself
                lone = _lone_exception(group)
                if lone is group:
                    raise
                raise lone from lone.__cause__

        return connected()

    @classmethod
    def _refuse_missing_handlers(
        cls, targets: Mapping[str, object], client_options: Mapping[str, Any]
    ) -> None:
        """`HubError` before any server starts when a server's client was snapshotted declaring a
        capability whose handler `Hub.connect` was not given: each client's own `connect` refused it
        only as it started, after the others had, and said to pass it to `connect()`."""
        try:
            for attribute in sorted(targets):
                client_class: Any = cls.client_classes[attribute]()
                refuse_missing_handlers(
                    client_class.server_name,
                    client_class.client_capabilities,
                    "Hub.connect()",
                    client_options,
                )
        except MissingHandlerError as error:
            raise HubError(f"hub: {error}") from None

    @classmethod
    def _refuse_misnamed_servers(cls, client_options: Mapping[str, Any]) -> None:
        """A keyword that names a server by its id (`servers=` where the hub's keyword is `servers_=`) or
        misspells one is a `HubError` before any server starts; passed on as an `mcp.Client` option it
        failed every server's connection with a `TypeError` blamed on whichever server came first."""
        keywords = sorted(cls.servers)
        for option in sorted(client_options):
            by_id = [keyword for keyword in keywords if cls.servers[keyword] == option]
            meant = by_id or difflib.get_close_matches(option, keywords, n=1, cutoff=0.8)
            if meant:
                raise HubError(
                    f"hub: {option}= is no server of this hub; did you mean {meant[0]}= (server "
                    f"{cls.servers[meant[0]]!r})? Its servers are {', '.join(f'{keyword}=' for keyword in keywords)}"
                )

    @classmethod
    def _connector(cls, client: str) -> Opener:
        """The `connect` of a server's generated client, imported from the package beside the hub."""
        client_class: Any = cls.client_classes[client]()
        opener: Opener = client_class.connect
        return opener

    @classmethod
    def connect_from_config(
        cls,
        config: str | os.PathLike[str] | None = None,
        *,
        servers: Collection[str] | None = None,
        timeout: float = 30.0,
        filters: Filters = None,
        live_tools: LiveTools | None = None,
        sampling_callback: SamplingHandler | None = None,
        elicitation_callback: ElicitationHandler | None = None,
        list_roots_callback: ListRootsHandler | None = None,
        logging_callback: LoggingHandler | None = None,
    ) -> AbstractAsyncContextManager[Self]:
        """Connect the hub's servers (or the `servers` ids given) as the project's config launches them.

        The config is `[tool.mcp-stubgen]` of the nearest pyproject.toml, or the file `config`. It is
        read, and the servers reached, by mcp-stubgen itself (its transports, `${VAR}` expansion and
        timeouts), so mcp-stubgen must be installed where this runs.

        The handlers are a generated client's `connect`'s, given to every server: a server configured
        with `client_capabilities` needs the handler of each (`HubError` before any server starts),
        as its generated client does; without them its requests were refused in mcp-stubgen's words
        ("it does not sample"), which the server passed on as the tool's error.
        """
        try:
            load_config = importlib.import_module("codegen.config").load_config
            connect = importlib.import_module("codegen.snapshot.discovery").connect
        except ImportError:
            raise HubError(
                "hub: connect_from_config reads [tool.mcp-stubgen] with mcp-stubgen, which is not installed; "
                "install it, or pass each server to Hub.connect(...)"
            ) from None
        if not isinstance(config, str | os.PathLike | None) or (
            isinstance(config, str) and config in cls.servers.values() and not Path(config).exists()
        ):  # server ids where the config goes: `connect_from_config(["notes"])`
            raise HubError(
                f"hub: connect_from_config's first argument is the config file, not {config!r}; "
                "name the servers to connect with servers=[...]"
            )
        wanted = set(cls.servers.values()) if servers is None else set(servers)
        unknown = sorted(wanted - set(cls.servers.values()))
        if unknown:
            raise HubError(
                f"hub: no server {unknown[0]!r} in this hub (it has {', '.join(sorted(cls.servers.values()))})"
            )
        project = load_config(Path(config) if config is not None else None)
        missing = sorted(wanted - set(project.servers))
        if missing:
            raise HubError(
                f"hub: server {missing[0]!r} is not configured in {project.source or project.root}; "
                "add it under [tool.mcp-stubgen.servers]"
            )
        given = {
            "sampling_callback": sampling_callback,
            "elicitation_callback": elicitation_callback,
            "list_roots_callback": list_roots_callback,
            "logging_callback": logging_callback,
        }
        try:  # every server's before any starts
            answering = {
                server: client_handlers(
                    server,
                    project.servers[server].client_capabilities,
                    "Hub.connect_from_config()",
                    **given,
                )
                for server in sorted(wanted)
            }
        except MissingHandlerError as error:
            raise HubError(f"hub: {error}") from None

        def opener(client_class: Callable[[Any], _Connected]) -> Opener:
            @asynccontextmanager
            async def open_client(
                server: Any, *, message_handler: Any = None
            ) -> AsyncIterator[_Connected]:
                handlers = answering[server.name]
                async with connect(server, message_handler, _log_warning, handlers) as client:
                    yield client_class(client)

            return open_client

        targets = {
            attribute: (opener(cls.client_classes[attribute]()), project.servers[server])
            for attribute, server in cls.servers.items()
            if server in wanted
        }
        return cls._open(targets, timeout, filters, {}, live_tools, handlers_checked=True)

    @property
    def live_tools(self) -> Mapping[str, HubTool]:
        """The tools this hub can call: its connected servers' tools that its filters let through
        (and those they added live, as `live_tools_mode` allows); `tool_definitions` and `shortlist`
        offer the model those of them it may be shown."""
        return self.live_catalog.tools

    @_CatalogMethod
    def tool_definitions(
        catalog: Catalog,
        format: ToolFormat = "default",
        *,
        strict: bool = False,
        filters: Filters = None,
        names: Collection[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Every tool (or those `filters` and `names` select), sorted by name, in the chosen API's shape.

        On the class it lists the snapshots' catalog, before anything connects; on a connected hub
        the live one. Tools a server shows only to apps are left out. A name in `names` the catalog
        lacks raises `UnknownQualifiedToolError` with the closest names. See `tool_definition` for
        the formats and `strict`.
        """
        unknown = sorted(set(names or ()) - set(catalog.tools))
        if unknown:
            raise catalog.unknown(unknown[0])
        tools = names_only(selected(catalog.tools.values(), filters), names)
        if (
            format == "anthropic"
        ):  # with the schemas' examples as `input_examples`, as Anthropic takes them
            return [anthropic_tool(tool) for tool in sorted(tools, key=_by_name)]
        return [
            tool_definition(tool, format, strict=strict) for tool in sorted(tools, key=_by_name)
        ]

    @_CatalogMethod
    def shortlist(
        catalog: Catalog, query: str, limit: int = 10, *, filters: Filters = None
    ) -> list[HubTool]:
        """The tools most relevant to a task in plain words, best first (BM25 over names, descriptions,
        parameters); `ValueError` for a `limit` that is not a positive integer (-1 cut the last tool off)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"shortlist: limit must be a positive integer, not {limit!r}")
        if filters is None:
            return catalog.index.search(query, limit)
        allowed = {tool.qualified_name for tool in selected(catalog.tools.values(), filters)}
        return catalog.index.search(query, limit, lambda tool: tool.qualified_name in allowed)

    @_CatalogMethod
    def describe(catalog: Catalog, name: str) -> HubTool:
        """The tool with this qualified name, to show in full (`tool_definition`) after a search that
        gave only names or summaries; `UnknownQualifiedToolError` (with the closest names, or why it
        is left out) for a name the catalog lacks."""
        tool = catalog.tools.get(name)
        if tool is None:
            raise catalog.unknown(name)
        return tool

    deferred_tools = _DeferredToolsDescriptor()

    @staticmethod
    def search_tool_definition(format: ToolFormat = "default") -> dict[str, Any]:
        """The `search_tools` meta-tool, to offer in place of the full list; `hub.call` answers it."""
        return tool_definition(search_tool(SEARCH_LIMIT), format)

    async def call(
        self,
        qualified_name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        call_options: CallOptions | None = None,
    ) -> CallToolResult:
        """Check `arguments` against the tool's JSON Schema, then send them, as given, to the server that owns it.

        Raises `UnknownQualifiedToolError` for a name not in the catalog and `ArgumentsError` (each
        argument and the schema rule it breaks) for arguments the schema rejects, before anything is
        sent: no JSON value is converted (`"1"` is not an integer; a model, tuple or date is sent as
        its JSON form, as a generated method sends it), nothing is dropped (a key the schema allows is
        sent; one it closes out is refused), and a value JSON cannot carry (a NaN, a string holding
        a surrogate) is refused. The server's result comes back as it is,
        `isError` included, so an agent can show the model what went wrong. A tool that runs only
        as a task (`execution.taskSupport: required`) is run as one, and its result returned the
        same way. `search_tools` is answered by the hub itself. `call_options` are a generated
        method's: a timeout (`RequestTimeoutError`), a progress callback, request `_meta`. The SDK
        session is given the tool as its snapshot lists it, as a generated method's call gives it: the
        first call carries its `Mcp-Param-*` headers, with no listing first. A server that
        answers with a JSON-RPC error instead of a result raises `ServerError` (its `code`, `message`, `data`),
        and so does one whose answer is not valid MCP (base64 that is not standard included);
        one whose authorization fails, `UnauthorizedError` (an `AuthError` too), and the hub's other servers go on.
        """
        if qualified_name == SEARCH_TOOLS:
            return self._search_tools(dict(arguments or {}))
        route = self.live_tools.get(qualified_name)
        if route is None:
            raise self.live_catalog.unknown(qualified_name)
        payload: dict[str, Any] = {}
        for name, value in (arguments or {}).items():
            try:
                payload[name] = _as_json(value)
            except _NotJson as error:
                raise ArgumentsError(
                    f"{qualified_name}: invalid arguments: {name}: {error}; nothing was sent"
                ) from None
        self.live_catalog.check(route, payload)
        client = self.clients[route.client]
        options: CallOptions = call_options or {}
        timeout = _timeout(options)
        _prime(
            client.mcp_client,
            route.tool,
            lambda: route.input_schema,
            None if route.skip_sdk_output_check else route.output_schema,
        )
        try:
            if client.tool_task_support.get(route.tool) == "required":
                result = await client._run_task(route.tool, payload, options)
            elif route.skip_sdk_output_check:
                result = await client._send_unchecked(route.tool, payload, options)
            elif not options:
                result = await client.mcp_client.call_tool(route.tool, payload)
            else:
                progress = _progress(options.get("on_progress"), route.client, route.tool)
                result = await client.mcp_client.call_tool(
                    route.tool, payload, timeout, progress, meta=_meta(options)
                )
        except Exception as error:
            from mcp.shared.exceptions import MCPError

            if (
                isinstance(error, MCPError)
                and error.code == _REQUEST_TIMEOUT
                and timeout is not None
            ):
                raise RequestTimeoutError(route.client, f"tool {route.tool!r}", timeout) from None
            if isinstance(error, MCPError):
                advice = _call_advice(client.protocol_version, error)
                raise _answer_error(route.client, f"tool {route.tool!r}", error, advice) from error
            refused = _result_error(route.client, route.tool, error)
            if refused is not None:
                raise refused from None
            raise
        _check_result_base64(route.client, route.tool, result)
        return result

    def _search_tools(self, arguments: dict[str, Any]) -> CallToolResult:
        """The matching tools' definitions, as the result of the `search_tools` meta-tool."""
        from mcp.types import CallToolResult, TextContent

        meta = search_tool(SEARCH_LIMIT)
        _check_with_jsonschema(meta, offline_validator(meta.input_schema), arguments)
        if "names" in arguments:
            found = [self.describe(name) for name in dict.fromkeys(arguments["names"])]
        else:
            found = self.shortlist(arguments["query"], arguments.get("limit", SEARCH_LIMIT))
        result = search_result(found, arguments.get("detail", "full"))
        text = json.dumps(result, ensure_ascii=False)
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=result
        )

    async def verify(self) -> CatalogDifference:
        """Check every server's live tools against its snapshot; raises that client's `CatalogDriftError`.

        The live catalog is re-listed first, and the tools the servers offer beyond their snapshots
        come back as the difference, with those the hub leaves out and why (a vanished or changed
        generated tool raises). A server whose paging never ends raises `PaginationError`, with the
        page limit `snapshot` applies.
        """
        for name in sorted(self.clients):
            await self.relist(name)
        for name in sorted(self.clients):
            await self.clients[name].verify()
        return self.difference()

    # -- the live catalog ---------------------------------------------------------------------------

    def difference(self) -> CatalogDifference:
        """The live catalog beside the snapshots' catalog, over the connected servers, as last listed."""
        return self._difference

    async def relist(self, client: str) -> None:
        """List one server's tools again and make them its part of the live catalog.

        A tool the snapshot has keeps its snapshot definition and route, whatever the server lists
        now (a changed definition is reported in `difference().changed`). A tool the server added
        is named like the generator names tools and handled as `live_tools_mode` says; one whose
        qualified name a snapshot tool (or an earlier added tool) has is left out and reported. A
        tool the server no longer lists leaves the catalog, so calling it raises the unknown-tool
        error. The hub's configured filters and its run-time filters apply to all of them; a snapshot
        tool the configured filters left out stays out, whatever annotations the server lists now.
        """
        listed, malformed = await _list_all_tools(
            self.clients[client].mcp_client, self.servers[client]
        )
        self._views[client] = self._view(client, listed, malformed)
        self._rebuild()

    def _view(
        self, client: str, listed: Sequence[Tool], malformed: Mapping[str, str]
    ) -> _ServerView:
        """One server's listing beside its snapshot tools (`malformed`: what is wrong with each tool,
        by name, it listed in a form that is not valid MCP)."""
        generated = {tool.tool: tool for tool in self.tools.values() if tool.client == client}
        live = {
            tool.name: tool for tool in reversed(listed)
        }  # a name listed twice: its first entry
        expected = self.clients[client].tool_fingerprints
        added = []
        excluded = []
        for name in sorted(set(live) - set(generated)):
            if name in expected:  # reviewed; the configured filters left it out
                excluded.append(qualified_name(self.servers[client], name, self.separator))
                continue
            wire = live[name].model_dump(by_alias=True, exclude_none=True, mode="json")
            tool = HubTool(
                qualified_name=qualified_name(self.servers[client], name, self.separator),
                server=self.servers[client],
                client=client,
                tool=name,
                description=live[name].description,
                input_schema=live[name].input_schema,
                title=live[name].title,
                output_schema=live[name].output_schema,
                annotations=wire.get("annotations", {}),
                app_only=not model_visible(wire.get("_meta")),
            )
            offering = self.live_tools_mode == "offer" and not tool.app_only
            added.append((tool, _audit_findings(wire) if offering else ()))
        return _ServerView(
            # a server may hide a reviewed tool from the model later, never show one it hid
            present=tuple(
                tool
                if tool.app_only or model_visible(live[name].meta)
                else replace(tool, app_only=True)
                for name, tool in generated.items()
                if name in live
            ),
            missing=tuple(tool for name, tool in generated.items() if name not in live),
            malformed={
                name: problem
                for name, problem in malformed.items()
                if name in generated and name not in live
            },
            changed=tuple(
                tool.qualified_name
                for name, tool in generated.items()
                if name in live
                and name in expected
                and expected[name] != tool_fingerprint(live[name])
            ),
            added=tuple(added),
            excluded=tuple(excluded),
        )

    def _rebuild(self) -> None:
        """What the hub calls, what it shows the model, and why it leaves out what it leaves out,
        from each connected server's latest listing (its snapshot tools until it is listed)."""
        callable_tools: dict[str, HubTool] = {}
        shown: dict[str, HubTool] = {}
        reasons: dict[str, str] = {}
        hidden: dict[str, str] = {}
        added: list[str] = []
        removed: list[str] = []
        changed: list[str] = []
        left_out: list[LeftOut] = []
        for tool in self.tools.values():
            if tool.client not in self.clients:
                reasons[tool.qualified_name] = (
                    f"its server {tool.server!r} is not connected; connect it with "
                    f"Hub.connect({tool.client}=...) (or pass its client to Hub(...))"
                )
        taken = {*self.tools, SEARCH_TOOLS}
        for client in sorted(self.clients):
            snapshot_tools = tuple(tool for tool in self.tools.values() if tool.client == client)
            view = self._views.get(client, _ServerView(present=snapshot_tools))
            changed.extend(view.changed)
            for name in view.excluded:
                reasons.setdefault(name, _FILTERED)
            for tool in view.missing:
                if self._allows(tool):
                    removed.append(tool.qualified_name)
                    problem = view.malformed.get(tool.tool)
                    reasons[tool.qualified_name] = (
                        f"its server {tool.server!r} no longer lists it"
                        if problem is None
                        else f"its server {tool.server!r} lists it in a form that is not valid MCP ({problem})"
                    )
            for tool in view.present:
                if not self._allows(tool):
                    reasons[tool.qualified_name] = _FILTERED
                    continue
                callable_tools[tool.qualified_name] = tool
                if tool.app_only:
                    hidden[tool.qualified_name] = _APP_ONLY
                else:
                    shown[tool.qualified_name] = tool
            for tool, findings in view.added:
                name = tool.qualified_name
                if not self._allows(tool):
                    reasons[name] = _FILTERED
                    continue
                if name in taken:
                    if name in self.tools:
                        owner = f"the snapshot's tool {self.tools[name].tool!r}, which keeps it"
                    else:
                        owner = "another tool's"
                    left_out.append(
                        LeftOut(tool.server, tool.tool, f"its qualified name {name!r} is {owner}")
                    )
                    continue
                taken.add(name)
                added.append(name)
                if self.live_tools_mode == "ignore":
                    reasons[name] = (
                        f"server {tool.server!r} added it after the hub's snapshot, so it was never reviewed; "
                        "to call tools added live pass live_tools='callable' (or 'offer') to Hub.connect, or set "
                        "hub_live_tools in [tool.mcp-stubgen]; or run `mcp-stubgen sync` to review it"
                    )
                    continue
                callable_tools[name] = tool
                if self.live_tools_mode == "callable":
                    hidden[name] = (
                        "it was added live, and live_tools='callable' calls such tools without offering them"
                    )
                elif tool.app_only:
                    hidden[name] = _APP_ONLY
                elif findings:
                    reason = f"not offered to the model: the catalog-text audit found {'; '.join(findings)}"
                    left_out.append(LeftOut(tool.server, tool.tool, reason))
                    hidden[name] = reason
                else:
                    shown[name] = tool
        for name, server in self._added_before.items():
            if name not in callable_tools:
                reasons.setdefault(name, f"its server {server!r} no longer lists it")
        self._added_before.update(
            {name: callable_tools[name].server for name in added if name in callable_tools}
        )
        self.live_catalog = Catalog(
            dict(sorted(callable_tools.items())), reasons, self.server_about
        )
        self.model_catalog = Catalog(
            dict(sorted(shown.items())), {**reasons, **hidden}, self.server_about
        )
        self._difference = CatalogDifference(
            added=tuple(sorted(added)),
            removed=tuple(sorted(removed)),
            changed=tuple(sorted(changed)),
            left_out=tuple(left_out),
        )

    def _allows(self, tool: HubTool) -> bool:
        """Whether the hub's configured filters and its run-time filters both let the tool through."""
        configured = self.configured_filters.get(tool.server)
        if configured is not None and not configured.allows(tool.tool, tool.annotations):
            return False
        return bool(selected([tool], self.filters))

    @asynccontextmanager
    async def following_list_changes(
        self, signals: Mapping[str, ListChanged]
    ) -> AsyncIterator[None]:
        """While open, keep the live catalog in step with every server: listed once, then on each change.

        A server says its tools changed with `notifications/tools/list_changed` (which `signals`
        catch through each client's message handler) or, from protocol 2026-07-28, on a
        `subscriptions/listen` stream; the notification carries nothing, so the hub re-lists, once
        a burst has settled and at most once per `RELIST_INTERVAL` seconds.
        """
        import anyio

        async with anyio.create_task_group() as group:
            for name in sorted(self.clients):
                await group.start(self._follow, name, signals[name])
            try:
                yield
            finally:
                group.cancel_scope.cancel()

    async def _follow(self, client: str, signal: ListChanged, *, task_status: Any) -> None:
        import anyio
        from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
        from mcp.shared.exceptions import MCPError

        sdk_client = self.clients[client].mcp_client
        capabilities = sdk_client.server_capabilities
        tools = capabilities.tools if capabilities is not None else None
        if tools is None:  # a server that lists no tools: nothing to follow
            task_status.started()
            return
        if not tools.list_changed or not hasattr(sdk_client, "listen"):
            await self.relist(client)
            task_status.started()
            return
        started = False
        pause = 0.0
        subscribed_at = anyio.current_time()
        while True:
            try:
                async with sdk_client.listen(tools_list_changed=True) as subscription:
                    # listed after subscribing, so a change in between is not missed
                    if started:
                        await self._relist_keeping_the_last(client)
                    else:
                        await self.relist(client)
                        task_status.started()
                        started = True
                    subscribed_at = anyio.current_time()
                    async with anyio.create_task_group() as group:
                        group.start_soon(self._relist_on_change, client, signal)
                        async for _event in subscription:
                            signal.set()
                        group.cancel_scope.cancel()
                error: BaseException | None = None  # the server closed the stream (a restart may)
            except* (ListenNotSupportedError, MCPError, SubscriptionLost) as failures:
                # `except*`: a stream lost while the re-lister runs beside it arrives inside the task
                # group's exception group, and a server that died must not end the hub's other servers.
                error = failures
                while isinstance(error, BaseExceptionGroup):
                    error = error.exceptions[0]
            if not started:
                break
            if anyio.current_time() - subscribed_at >= RESUBSCRIBE_LONGEST_PAUSE:
                pause = 0.0  # a stream that lasted: a new loss, not one more of a server that drops each
            if pause == 0.0:  # once a loss: the attempts after it stay quiet
                what = "was closed by the server" if error is None else f"was lost ({error})"
                _log_listen(self.servers[client], what, "subscribing again")
            await anyio.sleep(pause)
            pause = min(max(2 * pause, 1.0), RESUBSCRIBE_LONGEST_PAUSE)
        # An older protocol, or a server that refuses the stream (-32601): the legacy notification,
        # which such a server may still send; its refusal must not end the hub.
        if not isinstance(error, ListenNotSupportedError):
            what = f"was refused ({error})"
            _log_listen(
                self.servers[client], what, "following its tools/list_changed notifications"
            )
        await self.relist(client)
        task_status.started()
        await self._relist_on_change(client, signal)

    async def _relist_on_change(self, client: str, signal: ListChanged) -> None:
        """Re-list after each burst of change signals has settled, at most once per `RELIST_INTERVAL`:
        a server that floods the hub with notifications costs it a bounded number of listings. A
        listing that fails keeps the server's last one (and is logged): one server's bad answer must
        not end the hub's session with every server; `verify()` lists again and raises it."""
        import anyio

        last = anyio.current_time()
        while True:
            await signal.wait()
            await anyio.sleep(max(SETTLE_SECONDS, last + RELIST_INTERVAL - anyio.current_time()))
            signal.clear()  # what arrived while settling is covered by this listing
            last = anyio.current_time()
            await self._relist_keeping_the_last(client)

    async def _relist_keeping_the_last(self, client: str) -> None:
        """`relist`, except that a listing that fails keeps the server's last one (and is logged)."""
        try:
            await self.relist(client)
        except (ServerError, PaginationError) as error:
            import logging

            logging.getLogger(__name__).warning(
                "hub: %s; keeping the tools it listed before", error
            )


def _log_warning(message: str) -> None:
    """A warning of mcp-stubgen's about a server `connect_from_config` connects (one it started again
    for the legacy handshake), logged as the hub's other warnings are."""
    import logging

    logging.getLogger(__name__).warning("hub: %s", message)


def _log_listen(server: str, what: str, instead: str) -> None:
    """One warning of a server's `subscriptions/listen` stream: what became of it, what the hub does."""
    import logging

    logging.getLogger(__name__).warning(
        "hub: server %r: subscriptions/listen %s; %s", server, what, instead
    )


class GeneratedSyncHub(Generic[HubT]):
    """The base of the generated `SyncHub`: the async hub, run on a private event loop thread, with
    each connected server's sync client as an attribute; `call`, `verify` and `relist` block until
    answered. The catalog methods, which never wait on a server, are the async hub's: `.hub`.

    Unlike a lone sync client's loop, the hub's runs on its own thread from the start: it follows
    each server's `list_changed` between calls, so its live catalog is current when read.
    """

    sync_client_classes: ClassVar[
        Mapping[str, Callable[[], Callable[[Any, SessionLoop], object]]]
    ] = {}
    """Each client attribute's generated sync client class, imported when asked for."""

    def __init__(self, hub: HubT, loop: SessionLoop) -> None:
        self.hub = hub
        self._loop = loop
        for name, client in hub.clients.items():
            setattr(self, name, self.sync_client_classes[name]()(client, loop))

    @classmethod
    @contextmanager
    def _open(cls, connection: AbstractAsyncContextManager[HubT]) -> Iterator[Self]:
        """Enter the hub's `connect(...)` on a new loop thread; leaving closes both."""
        loop = SessionLoop("this sync hub", threaded=True)
        try:
            yield cls(loop.enter(connection), loop)
        finally:
            loop.close()

    def call(
        self,
        qualified_name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        call_options: CallOptions | None = None,
    ) -> CallToolResult:
        """`Hub.call`: validate, then call the tool on the server that owns it."""
        return self._loop.run(self.hub.call(qualified_name, arguments, call_options=call_options))

    def verify(self) -> CatalogDifference:
        """`Hub.verify`: check every server's live tools against its snapshot."""
        return self._loop.run(self.hub.verify())

    def relist(self, client: str) -> None:
        """`Hub.relist`: list one server's tools again."""
        self._loop.run(self.hub.relist(client))


Opener = Callable[..., AbstractAsyncContextManager[Any]]
"""A generated client's `connect`."""


@asynccontextmanager
async def open_servers(
    targets: Mapping[str, tuple[Opener, object | None]],
    timeout: float,
    client_options: Mapping[str, Any],
) -> AsyncIterator[tuple[dict[str, Any], dict[str, ListChanged]]]:
    """Connect every given server at once; yields the clients and their change signals by attribute.

    Each connection runs in its own task, which holds it open until the hub closes (anyio wants a
    connection closed by the task that opened it). A server that fails, or is not connected within
    `timeout` seconds, closes the others and raises one `HubError` naming it, whose `__cause__` is
    the server's own error (a `ServerError` with its `.data`, such as a 429's `retryAfter`).
    """
    import anyio

    given = {
        name: (opener, target)
        for name, (opener, target) in sorted(targets.items())
        if target is not None
    }
    signals = {name: ListChanged(client_options.get("message_handler")) for name in given}
    clients: dict[str, Any] = {}
    failures: dict[str, str] = {}
    causes: dict[str, Exception] = {}
    ready = {name: anyio.Event() for name in given}
    closing = anyio.Event()
    scopes = {name: anyio.CancelScope() for name in given}

    async def hold(name: str, opener: Opener, target: object) -> None:
        options = {**client_options, "message_handler": signals[name].handle}
        with scopes[name]:
            try:
                async with opener(target, **options) as client:
                    clients[name] = client
                    ready[name].set()
                    await closing.wait()
            except Exception as error:  # noqa: BLE001  # reported below as one line per server
                failures[name] = f"{type(error).__name__}: {error}"
                causes[name] = error
                ready[name].set()

    async with anyio.create_task_group() as group:
        for name, (opener, target) in given.items():
            group.start_soon(hold, name, opener, target)
        with anyio.move_on_after(timeout):
            for event in ready.values():
                await event.wait()
        for name in given:
            if not ready[name].is_set():
                failures[name] = f"not connected within {timeout:g} s"
                scopes[name].cancel()
        if not failures:
            try:
                yield clients, signals
            finally:
                closing.set()
        closing.set()
    if failures:
        name = min(failures)
        raise HubError(
            f"hub: server {name!r} could not connect ({failures[name]}); none of the servers stays open"
        ) from causes.get(name)


@dataclass(frozen=True)
class LeftOut:
    """A tool a server lists that the hub does not offer, and why."""

    server: str
    tool: str
    """The tool's own name on its server."""
    reason: str


@dataclass(frozen=True)
class CatalogDifference:
    """The connected servers' tools beside their snapshots, by qualified name."""

    added: tuple[str, ...]
    """Tools beyond the snapshots that the hub's filters let through (callable as `live_tools_mode` says)."""
    removed: tuple[str, ...]
    """Snapshot tools the servers no longer list."""
    changed: tuple[str, ...] = ()
    """Snapshot tools whose live definition (description, annotations, schemas, ...) differs from the
    snapshot's; the hub keeps offering the snapshot's."""
    left_out: tuple[LeftOut, ...] = ()
    """Tools a server lists that the hub does not offer: a name a snapshot tool has, text the audit flags."""


@dataclass(frozen=True)
class _ServerView:
    """One server's latest listing beside its snapshot tools."""

    present: tuple[HubTool, ...]
    """Its snapshot tools that it still lists, as generated."""
    missing: tuple[HubTool, ...] = ()
    changed: tuple[str, ...] = ()
    """Qualified names of its snapshot tools whose live definition differs from the snapshot's."""
    added: tuple[tuple[HubTool, tuple[str, ...]], ...] = ()
    """Its tools beyond the snapshot, by name, each with the audit's findings when it would be offered."""
    excluded: tuple[str, ...] = ()
    """Qualified names of the snapshot tools it lists that the hub's configured filters left out of the hub."""
    malformed: Mapping[str, str] = field(default_factory=dict)
    """What is wrong with each missing snapshot tool, by name, that it lists in a form that is not valid MCP."""


_FILTERED = "the hub's filters leave it out (`hub_filters` in the config, or the `filters` given to the hub)"


class ListChanged:
    """A server's `notifications/tools/list_changed`, caught by its client's message handler for the hub.

    Installed as the `mcp.Client`'s `message_handler` when the hub connects; a handler the
    application passed in `client_options` still receives every message.
    """

    def __init__(self, handler: Callable[[Any], Awaitable[None]] | None) -> None:
        import anyio

        self._handler = handler
        self._event = anyio.Event()

    async def handle(self, message: Any) -> None:
        from mcp_types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification):
            self._event.set()
        if self._handler is not None:
            await self._handler(message)

    def set(self) -> None:
        """A change signalled another way (a `subscriptions/listen` event)."""
        self._event.set()

    def clear(self) -> None:
        """Forget the changes signalled so far: the listing about to start covers them."""
        import anyio

        if self._event.is_set():
            self._event = anyio.Event()

    async def wait(self) -> None:
        """Until the next notification since the last wait returned."""
        import anyio

        await self._event.wait()
        self._event = anyio.Event()


async def _list_all_tools(
    client: Client | ClientSession, server: str
) -> tuple[list[Tool], dict[str, str]]:
    """Every tool the server lists now, page by page, bypassing the client's response cache; paging
    that does not end (a repeated cursor, more than `MAX_PAGES` pages, more than `MAX_LISTING_BYTES` held) raises `PaginationError`, an
    error answer or one that is not valid MCP `ServerError`. An entry that is not valid MCP (a tool
    whose `inputSchema` is a string) is left out with a logged warning: the server's other tools,
    and the hub's other servers, stay. Returned beside the tools: what is wrong with each entry left
    out that has a name, by name."""
    tools, left_out = await list_tools(client, server, MAX_PAGES, paging_error=PaginationError)
    for entry in left_out:
        import logging

        logging.getLogger(__name__).warning(
            "hub: server %r: %s", server, entry.warning("the hub leaves it out")
        )
    return tools, {entry.name: entry.problem for entry in left_out if entry.name is not None}


def _live_tools_mode(given: LiveTools | None, configured: LiveTools) -> LiveTools:
    """The `live_tools` given at run time, else the configured one; anything else is a `ValueError`."""
    mode = configured if given is None else given
    if mode not in LIVE_TOOLS:
        raise ValueError(
            f"hub: live_tools must be one of {', '.join(map(repr, LIVE_TOOLS))}, not {mode!r}"
        )
    return mode


def _audit_findings(tool: Mapping[str, Any]) -> tuple[str, ...]:
    """What the catalog-text audit finds in a tool's text, one line each (where, kind, excerpt, and
    the words that matched with why they matter)."""
    from ._audit import audit_tool

    return tuple(
        f"{where}: {finding.kind} ({finding.excerpt}; {finding.why})"
        for where, finding in audit_tool(tool)
    )


def _by_name(tool: HubTool) -> str:
    return tool.qualified_name


def _check_with_jsonschema(tool: HubTool, validator: Any, arguments: Mapping[str, Any]) -> None:
    """`ArgumentsError` naming every argument the schema rejects and the rule each breaks, if any does."""
    problems = sorted(
        validator.iter_errors(arguments),
        key=lambda error: [str(part) for part in error.absolute_path],
    )
    if problems:
        details = "; ".join(
            f"{'/'.join(map(str, error.absolute_path)) or '(arguments)'}: {error.message} "
            f"(schema rule /{'/'.join(map(str, error.absolute_schema_path))})"
            for error in problems
        )
        raise ArgumentsError(
            f"{tool.qualified_name}: invalid arguments: {details}; nothing was sent"
        )
