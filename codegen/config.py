"""Project configuration: `[tool.mcp-stubgen]` in the nearest pyproject.toml, plus an optional
`mcpServers` / VS Code `servers` JSON file. `${VAR}` references stay unexpanded here; they are
expanded at connect time by `expand_secrets`, so no secret value is held in the config object."""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegen.errors import StubgenError
from codegen.identifiers import package_name

SERVER_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
PROTOCOLS = ("auto", "legacy")
_URL_TRANSPORTS = {"http": "http", "streamable-http": "http", "streamableHttp": "http", "sse": "sse"}
_PROJECT_KEYS = frozenset({
    "snapshots", "output", "servers_file", "hub", "connect_timeout", "request_timeout", "max_pages",
    "servers", "method_names", "renames", "drift",
})  # fmt: skip
_SERVER_KEYS = frozenset({
    "command", "args", "env", "cwd", "url", "headers", "protocol", "type",
    "connect_timeout", "request_timeout", "max_pages",
})  # fmt: skip


@dataclass(frozen=True)
class Timeouts:
    """Seconds; `connect` covers start-up and the handshake, `request` each list call."""

    connect: float = 30.0
    request: float = 30.0


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

    def snapshot_path(self, server: str) -> Path:
        return self.snapshots / f"{server}.json"

    def select(self, names: tuple[str, ...]) -> list[ServerConfig]:
        """The named servers (all of them when none is named), in a stable order."""
        if not names:
            if not self.servers:
                raise StubgenError(
                    f"{self.source or self.root}: no servers configured under [tool.mcp-stubgen.servers]"
                )
            return [self.servers[name] for name in sorted(self.servers)]
        unknown = [name for name in names if name not in self.servers]
        if unknown:
            known = ", ".join(sorted(self.servers)) or "none"
            raise StubgenError(f"unknown server {unknown[0]!r} (configured: {known})")
        return [self.servers[name] for name in names]


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None = None, servers_file: Path | None = None, start: Path | None = None) -> ProjectConfig:
    """Read the project's config; `path` overrides the search for the nearest pyproject.toml."""
    source = path if path is not None else find_pyproject(start or Path.cwd())
    table: dict[str, Any] = {}
    if source is not None:
        try:
            document = tomllib.loads(source.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StubgenError(f"{source}: config file not found") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise StubgenError(f"{source}: cannot read config ({error})") from None
        table = document.get("tool", {}).get("mcp-stubgen", {}) if source.suffix == ".toml" else {}
        if not isinstance(table, dict):
            raise StubgenError(f"{source}: [tool.mcp-stubgen] must be a table")
    root = (source.parent if source is not None else (start or Path.cwd())).resolve()
    where = str(source) if source is not None else "config"
    _reject_unknown_keys(table, _PROJECT_KEYS, f"{where}: [tool.mcp-stubgen]")
    for section in ("method_names", "renames", "drift"):  # their contents are checked by the stage that reads them
        if not isinstance(table.get(section, {}), dict):
            raise StubgenError(f"{where}: [tool.mcp-stubgen.{section}] must be a table")

    defaults = _parse_defaults(table, where)
    servers: dict[str, ServerConfig] = {}
    listed = servers_file or (
        root / _string(table["servers_file"], f"{where}: servers_file") if "servers_file" in table else None
    )
    if listed is not None:
        servers.update(_read_servers_file(listed, root, defaults))
    raw_servers = table.get("servers", {})
    if not isinstance(raw_servers, dict):
        raise StubgenError(f"{where}: [tool.mcp-stubgen.servers] must be a table of servers")
    for name, raw in raw_servers.items():
        servers[name] = parse_server(name, raw, f"{where}: [tool.mcp-stubgen.servers.{name}]", root, defaults)
    _check_distinct_outputs(servers, where)

    output = table.get("output")
    return ProjectConfig(
        root=root,
        source=source,
        snapshots=root / _string(table.get("snapshots", "mcp/snapshots"), f"{where}: snapshots"),
        output=root / _string(output, f"{where}: output") if output is not None else None,
        servers=servers,
        hub=_boolean(table.get("hub", False), f"{where}: hub"),
        settings=table,
    )


def _check_distinct_outputs(servers: Mapping[str, ServerConfig], where: str) -> None:
    """Two ids sharing a package folder or a snapshot file would overwrite each other on every run
    (the last one silently winning, `--check` stale forever), so that is a config error."""
    packages: dict[str, str] = {}
    snapshot_files: dict[str, str] = {}
    for name in sorted(servers):
        package = package_name(name)
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
    name: str, raw: Any, where: str, root: Path, defaults: Mapping[str, Any] | None = None
) -> ServerConfig:
    if not SERVER_ID.match(name):
        raise StubgenError(
            f"{where}: server id {name!r} must start with a letter and use only letters, digits, '_' and '-'"
        )
    if not isinstance(raw, dict):
        raise StubgenError(f"{where}: must be a table with `command` or `url`")
    settings = {**(defaults or {}), **raw}
    _reject_unknown_keys(raw, _SERVER_KEYS, where)
    command, url = settings.get("command"), settings.get("url")
    if (command is None) == (url is None):
        raise StubgenError(f"{where}: set exactly one of `command` (stdio) or `url` (Streamable HTTP)")
    protocol = validate_protocol(settings.get("protocol", "auto"), f"{where}: protocol")
    cwd = settings.get("cwd")
    kind = _string(settings.get("type", "http"), f"{where}: type")
    transport = "stdio" if command is not None else _URL_TRANSPORTS.get(kind)
    if transport is None:
        raise StubgenError(f"{where}: type must be one of {', '.join(sorted(_URL_TRANSPORTS))} for a `url` server")
    return ServerConfig(
        name=name,
        command=_string(command, f"{where}: command") if command is not None else None,
        args=tuple(_strings(settings.get("args", []), f"{where}: args")),
        env=_string_table(settings.get("env", {}), f"{where}: env"),
        cwd=root / _string(cwd, f"{where}: cwd") if cwd is not None else None,
        url=_string(url, f"{where}: url") if url is not None else None,
        transport=transport,
        headers=_string_table(settings.get("headers", {}), f"{where}: headers"),
        protocol=protocol,
        timeouts=Timeouts(
            connect=_positive_number(settings.get("connect_timeout", Timeouts.connect), f"{where}: connect_timeout"),
            request=_positive_number(settings.get("request_timeout", Timeouts.request), f"{where}: request_timeout"),
        ),
        max_pages=_positive_integer(settings.get("max_pages", 1000), f"{where}: max_pages"),
    )


def validate_protocol(value: Any, where: str) -> str:
    protocol = _string(value, where)
    if protocol in PROTOCOLS:
        return protocol
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # importing mcp_types takes 0.2 s: only when needed

    if protocol not in MODERN_PROTOCOL_VERSIONS:
        versions = ", ".join(MODERN_PROTOCOL_VERSIONS)
        raise StubgenError(f"{where}: expected auto, legacy or a protocol version ({versions}), not {protocol!r}")
    return protocol


def _read_servers_file(path: Path, root: Path, defaults: Mapping[str, Any]) -> dict[str, ServerConfig]:
    """Claude Desktop / Claude Code / Cursor `mcpServers`, or VS Code's `servers`."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StubgenError(f"{path}: servers file not found") from None
    except (OSError, ValueError) as error:
        raise StubgenError(f"{path}: cannot read servers file ({error})") from None
    entries = document.get("mcpServers", document.get("servers")) if isinstance(document, dict) else None
    if not isinstance(entries, dict):
        raise StubgenError(f"{path}: expected an object with `mcpServers` or `servers`")
    servers = {}
    for name, raw in entries.items():
        if isinstance(raw, dict):
            raw = {key: value for key, value in raw.items() if key != "disabled" and (key, value) != ("type", "stdio")}
        servers[name] = parse_server(name, raw, f"{path}: server {name!r}", path.parent.resolve(), defaults)
    return servers


def expand_secrets(values: Mapping[str, str], server: str, what: str) -> dict[str, str]:
    """Expand `${VAR}` from the environment; a missing variable names itself, never a value."""

    def replace(match: re.Match[str]) -> str:
        variable = match.group(1)
        if variable not in os.environ:
            raise StubgenError(
                f"server {server!r}: environment variable {variable} (used in {what}) is not set; export it and retry"
            )
        return os.environ[variable]

    return {key: _VARIABLE.sub(replace, value) for key, value in values.items()}


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise StubgenError(f"{where}: expected a string")
    return value


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise StubgenError(f"{where}: expected a list of strings")
    return value


def _string_table(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise StubgenError(f"{where}: expected a table of strings")
    return dict(value)


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise StubgenError(f"{where}: expected true or false")
    return value


def _positive_integer(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise StubgenError(f"{where}: expected a positive whole number")
    return value


def _positive_number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise StubgenError(f"{where}: expected a positive number")
    return float(value)
