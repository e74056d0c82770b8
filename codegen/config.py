"""Project configuration: `[tool.mcp-stubgen]` in the nearest pyproject.toml, plus an optional
`mcpServers` / VS Code `servers` JSON file. `${VAR}` references stay unexpanded here, and a VS Code
`envFile` unread; both are read at connect time (`expand_secrets`, `server_environment`), so no
secret value is held in the config object."""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from codegen.errors import StubgenError
from codegen.identifiers import CODE_MODE_PACKAGE, HUB_PACKAGE, HUB_SEPARATOR, check_hub_separator, package_name
from codegen.runtime._hub_catalog import ToolFilter, hint_problem

if TYPE_CHECKING:
    from codegen.runtime._hub_runtime import LiveTools

DEFAULT_SNAPSHOTS = "mcp/snapshots"
"""Where snapshots go when `snapshots` is not set, relative to the config file."""
SERVER_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}\Z")
"""What a server id may be (`\\Z`, not `$`, which also takes an id ending in a newline into a file name)."""
_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(:-|\})")
"""The start of `${VAR}`, VS Code's `${env:VAR}`, or `${VAR:-default}` (the default when VAR is unset or
empty, itself expanded: `${VAR:-${OTHER}}`)."""
_INPUT_VARIABLE = re.compile(r"\$\{input:[^}]*\}")
_ANY_VARIABLE = re.compile(r"\$\{[^}]*\}")
_FOREIGN_KEYS = ("alwaysAllow", "autoApprove", "description", "timeout")
"""Keys of other MCP clients' servers files that mean nothing to discovery (tool approval, their own
timeouts, a description of the server for a model: modular-mcp's and Gemini CLI's)."""
PROTOCOLS = ("auto", "legacy")
_URL_TRANSPORTS = {"http": "http", "streamable-http": "http", "streamableHttp": "http", "sse": "sse"}
_PROJECT_KEYS = frozenset({
    "snapshots", "output", "servers_file", "hub", "connect_timeout", "request_timeout", "max_pages",
    "servers", "method_names", "renames", "drift", "hub_separator", "hub_filters", "hub_live_tools", "strict", "sync_client",
    "code_mode", "scripts",
})  # fmt: skip
_SERVER_KEYS = frozenset({
    "command", "args", "env", "cwd", "url", "headers", "protocol", "type",
    "connect_timeout", "request_timeout", "max_pages", "client_capabilities", "parse_text_json", "auth",
    "skip_lists",
})  # fmt: skip
CLIENT_CAPABILITIES = ("elicitation", "roots", "sampling")
"""What a server's config may declare in the handshake: some servers list tools only to clients that do."""
LIST_METHODS = ("prompts/list", "resources/list", "resources/templates/list", "tools/list")
"""The list methods discovery calls, which `skip_lists` may name."""


@dataclass(frozen=True)
class HubSettings:
    """How the hub names and selects tools: `hub_separator`, `[tool.mcp-stubgen.hub_filters.<server>]`
    and `hub_live_tools`."""

    separator: str = HUB_SEPARATOR
    filters: Mapping[str, ToolFilter] = field(default_factory=dict)
    live_tools: LiveTools = "ignore"
    """What a connected hub does with tools a server adds after the snapshot (the run-time default)."""


@dataclass(frozen=True)
class Timeouts:
    """Seconds; `connect` covers start-up and the handshake, `request` each list call."""

    connect: float = 30.0
    request: float = 30.0


AUTH_MODES = ("browser", "client_credentials", "token")
CLIENT_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "private_key_jwt", "none")
_AUTH_KEYS = frozenset({
    "mode", "client_id", "client_secret", "client_auth", "private_key", "signing_algorithm", "token",
    "scopes", "issuer", "redirect_port", "client_metadata_url",
})  # fmt: skip


@dataclass(frozen=True)
class AuthConfig:
    """`[tool.mcp-stubgen.servers.<id>.auth]`: how to get an OAuth token for a URL server. Values keep
    their `${VAR}`s until connect time, like `headers` (`expand_secrets`)."""

    mode: str = "browser"
    """`browser` (authorization code + PKCE through a loopback redirect), `client_credentials`, or
    `token` (a bearer token from the environment)."""
    client_id: str | None = None
    """A pre-registered client; without one, `browser` registers a client dynamically."""
    client_secret: str | None = None
    client_auth: str = "client_secret_basic"
    """How the client authenticates at the token endpoint (`private_key_jwt` signs with `private_key`)."""
    private_key: str | None = None
    signing_algorithm: str = "RS256"
    token: str | None = None
    """`token` mode's token; in `browser` mode the token to use where no browser can open (CI), when set."""
    scopes: tuple[str, ...] = ()
    issuer: str | None = None
    """The authorization server pre-registered credentials belong to: they are sent nowhere else."""
    redirect_port: int = 0
    """The loopback redirect's port; 0: the one the stored registration used, else any free port."""
    client_metadata_url: str | None = None
    """An https URL of a client ID metadata document, used as the client id where the server supports it."""


@dataclass(frozen=True)
class ServerConfig:
    """How to reach one server. Exactly one of `command` (stdio) and `url` (Streamable HTTP) is set."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    url: str | None = None
    transport: str = "stdio"
    """`stdio` with a command; `http` (Streamable HTTP) or `sse` with a URL."""
    headers: Mapping[str, str] = field(default_factory=dict)
    protocol: str = "auto"
    """`auto` (server/discover, legacy fallback), `legacy`, or a protocol version to pin."""
    timeouts: Timeouts = Timeouts()
    max_pages: int = 1000
    """A list that needs more pages than this is an error, never a silently truncated catalog."""
    env_file: Path | None = None
    """VS Code's `envFile`: more environment variables for a stdio server, read when connecting."""
    client_capabilities: tuple[str, ...] = ()
    """Client capabilities to declare in the handshake (sorted names from `CLIENT_CAPABILITIES`)."""
    parse_text_json: bool = False
    """Read a tool's result from its one JSON text block when it declares an `outputSchema` but sends
    no `structuredContent`; recorded in the snapshot, so the generated client does it."""
    auth: AuthConfig | None = None
    """OAuth for a URL server (`codegen/auth/`); None: only `headers` authenticate it."""
    skip_lists: tuple[str, ...] = ()
    """List methods not to call although the server declares them (sorted `LIST_METHODS`): for a
    server whose listing of one kind fails, so that the rest of its catalog can still be snapshotted."""
    ad_hoc: bool = False
    """Given on `snapshot`'s command line (`--name`), with no table in a config: advice that needs a
    table (an `auth` table for `auth login`) says to declare the server in the config first."""

    def advise(self, configured: str, ad_hoc: str) -> str:
        """The advice this server's user can follow: `--header`, `--env`, `--type` and `--skip-list`
        work only ad hoc, and an ad hoc server has no table to set a key in."""
        return ad_hoc if self.ad_hoc else configured


@dataclass(frozen=True)
class ProjectConfig:
    root: Path
    """The folder relative paths are resolved against (the config file's folder)."""
    source: Path | None
    snapshots: Path
    output: Path | None
    servers: Mapping[str, ServerConfig]
    hub: bool = False
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The raw `[tool.mcp-stubgen]` table, for sections owned by one stage (`renames`, `drift`)."""
    notices: tuple[str, ...] = ()
    """What reading the config set aside (a disabled server, another client's keys), for the user to see."""
    warnings: tuple[str, ...] = ()
    """Settings that do nothing, most likely by mistake (a misspelt server id), for the user to see."""
    has_table: bool = True
    """Whether `source` has a `[tool.mcp-stubgen]` table at all (an empty one counts)."""
    strict: bool = False
    """`strict = true`: a tool no models can be generated for is an error, not an untyped method."""
    method_name_tables: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """`[tool.mcp-stubgen.method_names]`: server -> {tool wire name: Python method name}."""
    sync_client: bool = True
    """`sync_client = false`: generated packages have no sync twin (`<Server>SyncClient`, `connect_sync`)."""
    rename_tables: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """`[tool.mcp-stubgen.renames]`: server -> {old name: new name}."""
    hub_settings: HubSettings = HubSettings()
    code_mode: bool = False
    """`code_mode = true`: `generate` also writes `<output>/code_mode/` (needs `hub = true`)."""
    scripts: Path | None = None
    """`scripts = "agent_scripts"`: the saved code-mode scripts `check-scripts` and `drift` check."""

    def missing(self, what: str) -> StubgenError:
        """The error for a setting the project lacks (`what`: "set `output` under [tool.mcp-stubgen]
        to sync"), saying what was found where the config was looked for."""
        if self.source is None:
            return StubgenError(
                "no pyproject.toml in the working directory or any folder above it; create one "
                f"(see docs/configuration.md) or pass --config FILE, and {what}"
            )
        if not self.has_table:
            return StubgenError(f"{self.source}: no [tool.mcp-stubgen] table; add one and {what}")
        return StubgenError(f"{self.source}: {what}")

    def snapshot_path(self, server: str) -> Path:
        return self.snapshots / f"{server}.json"

    def renames(self, server: str) -> dict[str, str]:
        """`[tool.mcp-stubgen.renames.<server>]`: old name -> new name, as drift and the generator read it."""
        return dict(self.rename_tables.get(server, {}))

    def method_names(self, server: str) -> dict[str, str]:
        """`[tool.mcp-stubgen.method_names.<server>]`: tool wire name -> Python method name."""
        return dict(self.method_name_tables.get(server, {}))

    def package_names(self) -> set[str]:
        """The folders this config generates under `output`: each server's package, the hub's and
        code mode's when set (the shared runtime aside)."""
        names = {package_name(server) for server in self.servers}
        return names | ({HUB_PACKAGE} if self.hub else set()) | ({CODE_MODE_PACKAGE} if self.code_mode else set())

    def select(self, names: tuple[str, ...]) -> list[ServerConfig]:
        """The named servers (all of them when none is named), in a stable order."""
        if not names:
            if not self.servers:
                raise self.missing("configure servers under [tool.mcp-stubgen.servers]")
            return [self.servers[name] for name in sorted(self.servers)]
        unknown = [name for name in names if name not in self.servers]
        if unknown:
            known = ", ".join(sorted(self.servers)) or "none"
            raise StubgenError(f"unknown server {unknown[0]!r} (configured: {known})")
        return [self.servers[name] for name in names]


def stated_renames(settings: Mapping[str, Any], where: str) -> dict[str, dict[str, str]]:
    """The `renames` table of a raw `[tool.mcp-stubgen]` table: server -> {old name: new name}.

    Drift reports each entry as a rename; the generator keeps a renamed tool's old method name as
    a deprecated alias of the new one, until the entry is removed."""
    raw_renames = settings.get("renames", {})
    if not isinstance(raw_renames, dict):
        raise StubgenError(f"{where}: [tool.mcp-stubgen.renames] must be a table of servers")
    renames: dict[str, dict[str, str]] = {}
    for server, table in raw_renames.items():
        label = f"{where}: [tool.mcp-stubgen.renames.{server}]"
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise StubgenError(f'{label} must map old names to new names, e.g. old_tool = "new_tool"')
        renames[server] = dict(table)
    return renames


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
        if candidate.is_dir():
            raise StubgenError(
                f"{candidate} is a folder, but [tool.mcp-stubgen] is read from a pyproject.toml file; "
                "rename the folder, or pass --config FILE"
            )
    return None


def load_config(path: Path | None = None, servers_file: Path | None = None, start: Path | None = None) -> ProjectConfig:
    """Read the project's config; `path` overrides the search for the nearest pyproject.toml."""
    source = path if path is not None else find_pyproject(start or Path.cwd())
    table: dict[str, Any] = {}
    tools: Any = {}
    if source is not None:
        try:
            document = tomllib.loads(source.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StubgenError(f"{source}: config file not found") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise StubgenError(f"{source}: cannot read config ({error})") from None
        tools = document.get("tool", {}) if source.suffix == ".toml" else {}
        if isinstance(tools, dict) and "mcp-stubgen" not in tools:
            _reject_misspelt_table(tools, source)
        table = tools.get("mcp-stubgen", {}) if isinstance(tools, dict) else {}
        if not isinstance(table, dict):
            raise StubgenError(f"{source}: [tool.mcp-stubgen] must be a table")
    root = (source.parent if source is not None else (start or Path.cwd())).resolve()
    where = str(source) if source is not None else "config"
    _reject_unknown_keys(table, _PROJECT_KEYS, f"{where}: [tool.mcp-stubgen]")
    for section in ("method_names", "renames", "drift"):  # drift: checked by its stage
        if not isinstance(table.get(section, {}), dict):
            raise StubgenError(f"{where}: [tool.mcp-stubgen.{section}] must be a table")

    defaults = _parse_defaults(table, where)
    servers: dict[str, ServerConfig] = {}
    notices: list[str] = []
    listed = servers_file or (
        root / _string(table["servers_file"], f"{where}: servers_file") if "servers_file" in table else None
    )
    if listed is not None:
        servers.update(_read_servers_file(listed, defaults, notices))
    raw_servers = table.get("servers", {})
    if not isinstance(raw_servers, dict):
        raise StubgenError(f"{where}: [tool.mcp-stubgen.servers] must be a table of servers")
    for name, raw in raw_servers.items():
        servers[name] = parse_server(name, raw, f"{where}: [tool.mcp-stubgen.servers.{name}]", root, defaults)
    hub = _boolean(table.get("hub", False), f"{where}: hub")
    code_mode = _boolean(table.get("code_mode", False), f"{where}: code_mode")
    _check_distinct_outputs(servers, where, hub, code_mode)

    output = table.get("output")
    if table.get("sync_client") is False and table.get("hub") is True:
        raise StubgenError(
            f"{where}: sync_client = false cannot go with hub = true (the hub's sync twin uses each package's); drop one"
        )
    if code_mode and not hub:
        raise StubgenError(
            f"{where}: code_mode = true needs hub = true (code mode calls every tool through the hub); add hub = true"
        )
    scripts = table.get("scripts")
    method_name_tables = _method_name_tables(table.get("method_names", {}), where)
    rename_tables = stated_renames(table, where)
    return ProjectConfig(
        root=root,
        source=source,
        snapshots=root / _string(table.get("snapshots", DEFAULT_SNAPSHOTS), f"{where}: snapshots"),
        output=root / _string(output, f"{where}: output") if output is not None else None,
        servers=servers,
        hub=hub,
        settings=table,
        notices=tuple(notices),
        has_table=isinstance(tools, dict) and "mcp-stubgen" in tools,
        strict=_boolean(table.get("strict", False), f"{where}: strict"),
        method_name_tables=method_name_tables,
        sync_client=_boolean(table.get("sync_client", True), f"{where}: sync_client"),
        rename_tables=rename_tables,
        hub_settings=_hub_settings(table, where),
        code_mode=code_mode,
        scripts=root / _string(scripts, f"{where}: scripts") if scripts is not None else None,
        warnings=(
            *_unconfigured_tables("method_names", "it names no method", method_name_tables, servers, where),
            *_unconfigured_tables(
                "renames", "its renames reach neither drift nor the generated aliases", rename_tables, servers, where
            ),
        ),
    )


def _hub_settings(table: Mapping[str, Any], where: str) -> HubSettings:
    """`hub_separator`, `[tool.mcp-stubgen.hub_filters.<server>]` (`include`, `exclude`, `annotations`)
    and `hub_live_tools`, checked at load time so every command reports a bad one."""
    separator = table.get("hub_separator", HUB_SEPARATOR)
    if not isinstance(separator, str):
        raise StubgenError(f"{where}: hub_separator must be a string such as {HUB_SEPARATOR!r}")
    check_hub_separator(separator, where)
    raw_filters = table.get("hub_filters", {})
    if not isinstance(raw_filters, dict):
        raise StubgenError(f"{where}: [tool.mcp-stubgen.hub_filters] must be a table of servers")
    filters = {
        server: _tool_filter(raw, f"{where}: [tool.mcp-stubgen.hub_filters.{server}]")
        for server, raw in sorted(raw_filters.items())
    }
    live_tools = table.get("hub_live_tools", "ignore")
    if live_tools != "ignore":
        from codegen.runtime._hub_runtime import LIVE_TOOLS  # the hub's runtime loads only when it is set

        if live_tools not in LIVE_TOOLS:
            raise StubgenError(
                f"{where}: hub_live_tools must be one of {', '.join(map(repr, LIVE_TOOLS))}, not {live_tools!r}"
            )
    return HubSettings(separator=separator, filters=filters, live_tools=live_tools)


def _tool_filter(raw: Any, where: str) -> ToolFilter:
    if not isinstance(raw, dict) or not set(raw) <= {"include", "exclude", "annotations"}:
        raise StubgenError(f"{where}: must be a table of `include`, `exclude` and `annotations`")
    for key in ("include", "exclude"):
        patterns = raw.get(key, [])
        if not isinstance(patterns, list) or not all(isinstance(pattern, str) for pattern in patterns):
            raise StubgenError(f'{where}: {key} must be a list of glob patterns on tool names, e.g. ["get_*"]')
    annotations = raw.get("annotations", {})
    problem = hint_problem(annotations)
    if problem is not None:
        raise StubgenError(f"{where}: {problem}")
    return ToolFilter(
        include=tuple(raw.get("include", ())), exclude=tuple(raw.get("exclude", ())), annotations=annotations
    )


def _method_name_tables(raw: Mapping[str, Any], where: str) -> dict[str, dict[str, str]]:
    """`[tool.mcp-stubgen.method_names]`, checked at load time so every command reports a bad entry."""
    tables = {}
    for server, table in raw.items():
        if not isinstance(table, dict) or not all(isinstance(value, str) for value in table.values()):
            raise StubgenError(
                f'{where}: [tool.mcp-stubgen.method_names.{server}] must map tool names to method names, e.g. get_forecast = "forecast"'
            )
        tables[server] = dict(table)
    return tables


def _unconfigured_tables(
    section: str, effect: str, tables: Mapping[str, Mapping[str, str]], servers: Mapping[str, ServerConfig], where: str
) -> list[str]:
    """A warning for each per-server table (`method_names`, `renames`) of a server the config does not
    have: a misspelt id, or a server since removed, whose entries would otherwise be silently ignored.
    Not an error: a `--servers-file` or a disabled server can leave out a server the pyproject names."""
    warnings = []
    for server in sorted(set(tables) - set(servers)):
        close = difflib.get_close_matches(server, sorted(servers), n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"configured: {', '.join(sorted(servers)) or 'none'}"
        warnings.append(
            f"{where}: [tool.mcp-stubgen.{section}.{server}] names no configured server, so {effect}; {hint}"
        )
    return warnings


def _reject_misspelt_table(tools: Mapping[str, Any], source: Path) -> None:
    """`[tool.mcp_stubgen]` or `[tool.mcpstubgen]` is our table misspelt: an error, never a config silently unread."""
    spelt = {re.sub(r"[^a-z]", "", name.lower()): name for name in tools}
    close = spelt.get("mcpstubgen") or next(iter(difflib.get_close_matches("mcp-stubgen", list(tools), n=1)), None)
    if close is not None:
        raise StubgenError(f"{source}: found [tool.{close}], but the table is [tool.mcp-stubgen]; rename it")


def _check_distinct_outputs(servers: Mapping[str, ServerConfig], where: str, hub: bool, code_mode: bool) -> None:
    """Two ids sharing a package folder or a snapshot file would overwrite each other on every run
    (the last one silently winning, `--check` stale forever), so that is a config error; so is an id
    whose package is the hub's or code mode's own folder, which `sync` and `watch` would publish over it."""
    packages: dict[str, str] = {}
    snapshot_files: dict[str, str] = {}
    owned = {HUB_PACKAGE: hub and "the hub's", CODE_MODE_PACKAGE: code_mode and "code mode's"}
    for name in sorted(servers):
        package = package_name(name)
        if owned.get(package):
            raise StubgenError(
                f"{where}: server id {name!r} would write the package {package!r}, which is {owned[package]} own "
                "folder; rename the server id"
            )
        # Compared case-insensitively: on macOS and Windows `AB.json` and `ab.json` are one file.
        snapshot_file = f"{name}.json"
        for claimed, key, what in (
            (packages, package, f"the package {package!r}"),
            (snapshot_files, snapshot_file.casefold(), f"the snapshot file {snapshot_file!r} (ignoring case)"),
        ):
            other = claimed.setdefault(key, name)
            if other != name:
                raise StubgenError(
                    f"{where}: server ids {other!r} and {name!r} would both write {what}; rename one of them"
                )


def _parse_defaults(table: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Timeouts and paging limits set once for every server, each overridable per server."""
    defaults: dict[str, Any] = {}
    for key in ("connect_timeout", "request_timeout"):
        if key in table:
            defaults[key] = _positive_number(table[key], f"{where}: {key}")
    if "max_pages" in table:
        defaults["max_pages"] = _positive_integer(table["max_pages"], f"{where}: max_pages")
    return defaults


def _reject_unknown_keys(table: Mapping[str, Any], known: frozenset[str], where: str) -> None:
    """A misspelt key is an error naming the closest known one, never a setting silently ignored."""
    unknown = sorted(set(table) - known)
    if not unknown:
        return
    close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(sorted(known))}"
    raise StubgenError(f"{where}: unknown key {unknown[0]!r}; {hint}")


def parse_server(
    name: str,
    raw: Any,
    where: str,
    root: Path,
    defaults: Mapping[str, Any] | None = None,
    start_in: Path | None = None,
) -> ServerConfig:
    """One server's table, its relative `cwd` read from `root`. A stdio server without a `cwd` starts in
    `start_in` (else `root`): the folder its config's relative paths are written from, not wherever
    mcp-stubgen runs, so `args = ["server.py"]` starts it from a subfolder too, and so does a hub a
    script connects from the config there."""
    if not SERVER_ID.match(name):
        raise StubgenError(
            f"{where}: server id {name!r} must start with a letter and use only letters, digits, '_' and '-',"
            " at most 64 characters"
        )
    if not isinstance(raw, dict):
        raise StubgenError(f"{where}: must be a table with `command` or `url`")
    settings = {**(defaults or {}), **raw}
    _reject_unknown_keys(raw, _SERVER_KEYS, where)
    command, url = settings.get("command"), settings.get("url")
    if (command is None) == (url is None):
        raise StubgenError(f"{where}: set exactly one of `command` (stdio) or `url` (Streamable HTTP)")
    if isinstance(command, list):
        raise StubgenError(f"{where}: command: expected a string, the program alone; its arguments go in `args`")
    protocol = validate_protocol(settings.get("protocol", "auto"), f"{where}: protocol")
    _reject_input_variables(raw, where)
    cwd = settings.get("cwd")
    starts_in: Path | None
    if cwd is not None:
        starts_in = root / _string(cwd, f"{where}: cwd")
    else:
        starts_in = (start_in or root) if command is not None else None
    kind = _string(settings.get("type", "http"), f"{where}: type")
    transport = "stdio" if command is not None else _URL_TRANSPORTS.get(kind)
    if transport is None:
        raise StubgenError(f"{where}: type must be one of {', '.join(sorted(_URL_TRANSPORTS))} for a `url` server")
    return ServerConfig(
        name=name,
        command=_string(command, f"{where}: command") if command is not None else None,
        args=tuple(_strings(settings.get("args", []), f"{where}: args")),
        env=_environment(settings.get("env", {}), f"{where}: env"),
        cwd=starts_in,
        url=_url(url, f"{where}: url") if url is not None else None,
        transport=transport,
        headers=_headers(settings.get("headers", {}), f"{where}: headers"),
        protocol=protocol,
        timeouts=Timeouts(
            connect=_positive_number(settings.get("connect_timeout", Timeouts.connect), f"{where}: connect_timeout"),
            request=_positive_number(settings.get("request_timeout", Timeouts.request), f"{where}: request_timeout"),
        ),
        max_pages=_positive_integer(settings.get("max_pages", 1000), f"{where}: max_pages"),
        client_capabilities=_client_capabilities(
            settings.get("client_capabilities", []), f"{where}: client_capabilities"
        ),
        parse_text_json=_boolean(settings.get("parse_text_json", False), f"{where}: parse_text_json"),
        auth=_auth(settings["auth"], f"{where}.auth", url is not None) if "auth" in settings else None,
        skip_lists=_skip_lists(settings.get("skip_lists", []), f"{where}: skip_lists"),
    )


def _auth(value: Any, where: str, has_url: bool) -> AuthConfig:
    """Checked as a whole at load time: a mode missing what it needs is a config error, not a failed login."""
    if not isinstance(value, dict):
        raise StubgenError(f"{where}: expected a table (mode, client_id, client_secret, token, scopes, ...)")
    _reject_unknown_keys(value, _AUTH_KEYS, where)
    if not has_url:
        raise StubgenError(f"{where}: OAuth is for `url` servers; a stdio server takes its credentials in `env`")
    text = {
        key: _string(value[key], f"{where}: {key}") for key in _AUTH_KEYS - {"scopes", "redirect_port"} if key in value
    }
    if "mode" in text:
        mode = text["mode"]
    elif "client_secret" in text or "private_key" in text:
        mode = "client_credentials"
    else:
        mode = "token" if "token" in text and "client_id" not in text else "browser"
    if mode not in AUTH_MODES:
        raise StubgenError(f"{where}: mode must be one of {', '.join(AUTH_MODES)}, not {mode!r}")
    client_auth = text.get("client_auth", "private_key_jwt" if "private_key" in text else "client_secret_basic")
    if client_auth not in CLIENT_AUTH_METHODS:
        raise StubgenError(f"{where}: client_auth must be one of {', '.join(CLIENT_AUTH_METHODS)}, not {client_auth!r}")
    if mode == "token" and "token" not in text:
        raise StubgenError(f'{where}: mode "token" needs token = "${{VARIABLE}}"')
    if mode == "client_credentials":
        if "client_id" not in text:
            raise StubgenError(f'{where}: mode "client_credentials" needs client_id (e.g. "${{MY_CLIENT_ID}}")')
        needed = "private_key" if client_auth == "private_key_jwt" else "client_secret"
        if needed not in text:
            raise StubgenError(f'{where}: client_auth "{client_auth}" needs {needed} (e.g. "${{MY_{needed.upper()}}}")')
    if "client_secret" in text and "client_id" not in text:
        raise StubgenError(f"{where}: client_secret needs the client_id it belongs to")
    for key in ("issuer", "client_metadata_url"):
        if key in text and not re.match(r"^(https?://|\$\{)", text[key]):
            raise StubgenError(f"{where}: {key} must be an http(s) URL")
    port = value.get("redirect_port", 0)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise StubgenError(f"{where}: redirect_port must be a port number (0: any free port)")
    return AuthConfig(
        mode=mode,
        client_id=text.get("client_id"),
        client_secret=text.get("client_secret"),
        client_auth=client_auth,
        private_key=text.get("private_key"),
        signing_algorithm=text.get("signing_algorithm", "RS256"),
        token=text.get("token"),
        scopes=tuple(_strings(value.get("scopes", []), f"{where}: scopes")),
        issuer=text.get("issuer"),
        redirect_port=port,
        client_metadata_url=text.get("client_metadata_url"),
    )


def _client_capabilities(value: Any, where: str) -> tuple[str, ...]:
    names = _strings(value, where)
    unknown = sorted(set(names) - set(CLIENT_CAPABILITIES))
    if unknown:
        raise StubgenError(f"{where}: unknown capability {unknown[0]!r}; choose from {', '.join(CLIENT_CAPABILITIES)}")
    return tuple(sorted(set(names)))


def _skip_lists(value: Any, where: str) -> tuple[str, ...]:
    methods = _strings(value, where)
    for method in methods:
        if method not in LIST_METHODS:
            close = difflib.get_close_matches(method, LIST_METHODS, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"choose from {', '.join(LIST_METHODS)}"
            raise StubgenError(f"{where}: {method!r} is not a list method; {hint}")
    return tuple(sorted(set(methods)))


def validate_protocol(value: Any, where: str) -> str:
    protocol = _string(value, where)
    if protocol in PROTOCOLS:
        return protocol
    # importing mcp_types takes 0.2 s: only when needed
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    if protocol not in (*MODERN_PROTOCOL_VERSIONS, *HANDSHAKE_PROTOCOL_VERSIONS):
        versions = ", ".join((*MODERN_PROTOCOL_VERSIONS, *reversed(HANDSHAKE_PROTOCOL_VERSIONS)))
        raise StubgenError(f"{where}: expected auto, legacy or a protocol version ({versions}), not {protocol!r}")
    return protocol


class _RepeatedKeyError(ValueError):
    """A key written twice in one object of a servers file."""


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a key written twice: `json` keeps the last silently, so a server named
    twice in `mcpServers` ran the second entry, and the first, which may be the one meant, was gone
    without a word (TOML refuses the same in `pyproject.toml`)."""
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise _RepeatedKeyError(f"{key!r} is written twice in one object")
        document[key] = value
    return document


def _read_servers_file(path: Path, defaults: Mapping[str, Any], notices: list[str]) -> dict[str, ServerConfig]:
    """Claude Desktop / Claude Code / Cursor `mcpServers`, or VS Code's `servers`. What other clients
    write for themselves is set aside with a notice; `disabled: true` skips the server."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_object_without_repeats)
    except FileNotFoundError:
        raise StubgenError(f"{path}: servers file not found") from None
    except _RepeatedKeyError as error:
        raise StubgenError(f"{path}: {error}; keep one of them") from None
    except (OSError, ValueError) as error:
        raise StubgenError(f"{path}: cannot read servers file ({error})") from None
    entries = document.get("mcpServers", document.get("servers")) if isinstance(document, dict) else None
    if not isinstance(entries, dict):
        raise StubgenError(f"{path}: expected an object with `mcpServers` or `servers`")
    folder = path.parent.resolve()
    # VS Code keeps the file in `.vscode/`; its `${workspaceFolder}` is the folder above.
    workspace = folder.parent if folder.name == ".vscode" else folder
    servers = {}
    for name, raw in entries.items():
        where = f"{path}: server {name!r}"
        env_file = None
        if isinstance(raw, dict):
            if _boolean(raw.get("disabled", False), f"{where}: disabled"):
                notices.append(f"{where} is disabled there; skipped")
                continue
            ignored = sorted(key for key in _FOREIGN_KEYS if key in raw)
            if ignored:
                notices.append(f"{where}: ignoring {', '.join(ignored)} (settings of other MCP clients)")
            arguments = raw.get("args")
            launch = [raw.get("command"), *(arguments if isinstance(arguments, list) else [])]
            unexpanded = sorted(
                {found for text in launch if isinstance(text, str) for found in _ANY_VARIABLE.findall(text)}
            )
            if unexpanded:  # Claude Code expands them there; a server handed one as written may just hang
                notices.append(
                    f"{where}: command and args are passed as written, {', '.join(unexpanded)} included "
                    "(mcp-stubgen expands variables in env and headers only: pass the value through env)"
                )
            if "envFile" in raw:
                listed = _string(raw["envFile"], f"{where}: envFile").replace("${workspaceFolder}", str(workspace))
                env_file = workspace / listed
            skipped = {"disabled", "envFile", *_FOREIGN_KEYS}
            raw = {key: value for key, value in raw.items() if key not in skipped and (key, value) != ("type", "stdio")}
        server = parse_server(name, raw, where, folder, defaults, start_in=workspace)
        servers[name] = dataclasses.replace(server, env_file=env_file) if env_file is not None else server
    return servers


def _reject_input_variables(raw: Mapping[str, Any], where: str) -> None:
    """VS Code's `${input:id}` asks the editor to prompt for a value; a command line cannot."""
    for key, value in raw.items():
        texts = value.values() if isinstance(value, dict) else value if isinstance(value, list) else [value]
        for text in texts:
            found = _INPUT_VARIABLE.search(text) if isinstance(text, str) else None
            if found:
                raise StubgenError(
                    f"{where}: {key} uses {found.group()}, a value VS Code prompts for, which mcp-stubgen "
                    "cannot ask; write ${env:NAME} instead and export NAME"
                )


def server_environment(server: ServerConfig) -> dict[str, str]:
    """A stdio server's own variables: its `envFile` (if any), then its `env` with `${VAR}`s expanded."""
    variables = _read_env_file(server.env_file, server.name) if server.env_file is not None else {}
    return variables | expand_secrets(server.env, server.name, "env")


def _read_env_file(path: Path, server: str) -> dict[str, str]:
    """`KEY=value` lines (`export`, quotes and `#` comments allowed), as VS Code's `envFile` reads them;
    an error names the line, never a value."""
    where = f"server {server!r}: envFile {path}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StubgenError(f"{where} not found; create it or fix `envFile`") from None
    except (OSError, UnicodeDecodeError) as error:
        raise StubgenError(f"{where}: cannot read it ({type(error).__name__})") from None
    variables = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, separator, value = line.removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if not separator or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise StubgenError(f"{where}: line {number} is not KEY=value")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        variables[key] = value
    return variables


def expand_headers(server: ServerConfig) -> dict[str, str]:
    """A URL server's `headers`, expanded, each value one HTTP can carry (ASCII, no line break): httpx
    refused such a value as the request went out, and the line blamed the server's connection."""
    headers = expand_secrets(server.headers, server.name, "headers")
    for name, value in headers.items():
        if not value.isascii() or any(character in value for character in "\r\n\0"):
            raise StubgenError(
                f"server {server.name!r}: the value of header {name!r} holds a line break or a character "
                "outside ASCII, which HTTP cannot carry; check it and the variables it uses"
            )
    return headers


def expand_secrets(values: Mapping[str, str], server: str, what: str) -> dict[str, str]:
    """Expand `${VAR}`, `${env:VAR}` and `${VAR:-default}` from the environment; a missing variable
    names itself, never a value."""

    def value_of(variable: str) -> str:
        if variable not in os.environ:
            raise StubgenError(
                f"server {server!r}: environment variable {variable} (used in {what}) is not set; export it and retry"
            )
        return os.environ[variable]

    return {key: _expanded(value, value_of)[0] for key, value in values.items()}


def _expanded(text: str, value_of: Callable[[str], str], start: int = 0, nested: bool = False) -> tuple[str, int]:
    """`text` from `start` with its variables expanded, and where that stopped: at the end, or inside
    a default (`nested`) at the brace that closes it. A `${` that never closes is kept as written, and
    a default is expanded only when it is used, so an unused one's variables need not be set."""
    out: list[str] = []
    position = start
    while position < len(text):
        if nested and text[position] == "}":
            return "".join(out), position
        found = _VARIABLE.match(text, position) if text.startswith("${", position) else None
        if found is None:
            out.append(text[position])
            position += 1
            continue
        variable = found.group(1)
        if found.group(2) == "}":
            out.append(value_of(variable))
            position = found.end()
            continue
        chosen = os.environ.get(variable)
        default, closing = _expanded(text, value_of if not chosen else _unused, found.end(), nested=True)
        if closing >= len(text):  # no brace closes the default: not a variable at all
            out.append(text[position])
            position += 1
            continue
        out.append(chosen or default)
        position = closing + 1
    return "".join(out), position


def _unused(variable: str) -> str:
    """The value of a variable in a default that is not used: nothing, and never an error."""
    return ""


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise StubgenError(f"{where}: expected a string")
    if "\0" in value:  # no command, argument, path or variable can: it failed at start-up, blamed on the server
        raise StubgenError(
            f"{where}: holds a NUL character (\\u0000), which no command, path or variable can; remove it"
        )
    return value


def _url(value: Any, where: str) -> str:
    """An http(s) URL with a host: anything else would only fail later, as a broken connection."""
    text = _string(value, where)
    parts = urlsplit(text)
    if "://" not in text:
        raise StubgenError(f"{where}: the URL has no scheme; write it as http://... or https://...")
    if parts.scheme not in ("http", "https"):
        raise StubgenError(f"{where}: expected an http:// or https:// URL, not {parts.scheme}://")
    if not parts.hostname:
        raise StubgenError(f"{where}: the URL names no host")
    try:
        port = parts.port
    except ValueError:  # httpx and the socket refused it when connecting: `OverflowError: connect(): ...`
        port = 0
    if port == 0:
        raise StubgenError(f"{where}: the URL's port is not a number from 1 to 65535")
    return text


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise StubgenError(f"{where}: expected a list of strings")
    return [_string(item, where) for item in value]


def _string_table(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise StubgenError(f"{where}: expected a table of strings")
    return {_string(key, where): _string(item, where) for key, item in value.items()}


_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+\Z")
"""An HTTP header name: a token (RFC 9110 5.1)."""


def _headers(value: Any, where: str) -> dict[str, str]:
    """`headers`, whose names httpx refuses unless tokens: at connect time, blamed on the server. Two
    names that differ only in case are one HTTP header, of which one value would silently win."""
    headers = _string_table(value, where)
    seen: dict[str, str] = {}
    for name in headers:
        if not _HEADER_NAME.match(name):
            raise StubgenError(f"{where}: {name!r} is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)")
        other = seen.setdefault(name.lower(), name)
        if other != name:
            raise StubgenError(
                f"{where}: {other!r} and {name!r} are one header (HTTP header names ignore case); keep one of them"
            )
    return headers


def _environment(value: Any, where: str) -> dict[str, str]:
    """A stdio server's `env`, whose names the OS takes only without `=` and not empty: such a name
    failed at start-up, blamed on the server ("illegal environment variable name"), or was dropped."""
    env = _string_table(value, where)
    for name in env:
        if not name or "=" in name:
            raise StubgenError(f"{where}: {name!r} is not an environment variable name (one with no '=', not empty)")
    return env


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise StubgenError(f"{where}: expected true or false")
    return value


def _positive_integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise StubgenError(f"{where}: expected a positive whole number")
    return value


def _positive_number(value: Any, where: str) -> float:
    """TOML's `nan` is a float too; it compares false with everything, so it is refused by name."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value) or value <= 0:
        raise StubgenError(f"{where}: expected a positive number")
    return float(value)
