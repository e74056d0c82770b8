"""`mcp-stubgen snapshot`: discover configured (or ad hoc) servers and write their snapshots."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from codegen import console
from codegen.config import (
    SERVER_ID,
    ProjectConfig,
    ServerConfig,
    parse_server,
)
from codegen.errors import EXIT_ERROR, EXIT_OK, StubgenError, one_line
from codegen.identifiers import keep_names
from codegen.options import apply_overrides, config_options, connection_options, load_project, shown_path
from codegen.snapshot import Snapshot, load_snapshot, write_snapshot
from codegen.snapshot.audit import catalog_findings
from codegen.snapshot.stdio import start_early
from codegen.snapshot.summary import counts, describe, emptied, warn_missing_methods

if TYPE_CHECKING:
    from codegen.sync.freshness import Freshness


def refuse_emptied(path: Path, old: Snapshot | None, snapshot: Snapshot) -> None:
    """Raise `StubgenError` when `snapshot` would empty `old`, the snapshot committed at `path`
    (`emptied`); None (a missing or unreadable file) has nothing to lose."""
    if old is None:
        return
    reason = emptied(old, snapshot)
    if reason is not None:
        raise StubgenError(
            f"server {snapshot.server!r}: {reason} ({shown_path(path)}); nothing was written, so the committed "
            "files are kept (pass --allow-empty to write it anyway)"
        )


def take_snapshots(
    config: ProjectConfig,
    servers: list[ServerConfig],
    out: Path | None = None,
    write: Callable[[Path, Snapshot], bool] = write_snapshot,
    announce: Callable[[Snapshot, Path, bool], None] | None = None,
    allow_empty: bool = False,
    freshness: Freshness | None = None,
) -> dict[str, Snapshot]:
    """Discover the servers concurrently and write each snapshot as it arrives; failures are reported
    (with `--format json`, as one object each). Stdio servers are started first, so their start-up
    runs beside the SDK's import.

    With `freshness` (`sync`), a server whose last listing is still fresh by its own `ttlMs` is not
    started or listed: its committed snapshot is written again as it is; every new listing is recorded.

    `write` stores a snapshot at its path and says whether the file changed; it may refuse by
    raising `StubgenError` (sync publishes the package together with it). `announce` is told of
    each snapshot written, with its path and whether the file changed. A snapshot that would empty
    the committed one (`emptied`) is refused unless `allow_empty`. Returns the snapshots that were
    written; the caller decides the exit code from the missing ones.
    """
    taken: dict[str, Snapshot] = {}
    targets = {server.name: out or config.snapshot_path(server.name) for server in servers}

    def failed(name: str, message: str) -> None:
        console.error(message)
        console.emit(name, "error", error=message, snapshot=shown_path(targets[name]))

    def done(name: str, result: Snapshot | StubgenError) -> None:
        if isinstance(result, StubgenError):
            failed(name, str(result))
            return
        warn_missing_methods(result)
        path = targets[name]
        try:
            committed = _committed(path)  # read once: for the names its package gave, and what it would lose
            result = keep_names(committed, result, config.method_names(name))
            if not allow_empty:
                refuse_emptied(path, committed, result)
            changed = write(path, result)
            if freshness is not None and name not in reused:
                freshness.remember(by_name[name], path, fresh_until.get(name))
        except StubgenError as error:
            failed(name, str(error))
            return
        except OSError as error:
            failed(name, f"server {name!r}: cannot write {path} ({error.strerror}); check the folder's permissions")
            return
        taken[name] = result
        state = "wrote" if changed else "unchanged"
        flagged = catalog_findings(result)
        audit = f"; {len(flagged)} text(s) read like a prompt injection" if flagged else ""
        console.note(f"{name}: {state} {shown_path(path)} ({describe(result)}{audit})")
        for found in flagged:
            console.warn(one_line(f"server {name!r}: {found.describe()}; review it before using this server"))
        if announce is not None:
            announce(result, path, changed)

    by_name = {server.name: server for server in servers}
    fresh_until: dict[str, float] = {}
    reused = start_servers(servers, targets, freshness)
    listed = [server for server in servers if server.name not in reused]
    for name, (committed, left) in reused.items():
        console.note(f"{name}: the server's listing is fresh for {left:.0f}s more (its ttlMs); not listed again")
        done(name, committed)

    if not listed:
        return taken
    from codegen.snapshot.discovery import snapshot_servers  # the SDK's transports load only when needed

    if sys.stderr.isatty():
        console.note(f"snapshotting {', '.join(server.name for server in listed)} ...")
    snapshot_servers(listed, done, console.warn, fresh_until.__setitem__)
    return taken


def start_servers(
    servers: list[ServerConfig], targets: dict[str, Path], freshness: Freshness | None = None
) -> dict[str, tuple[Snapshot, float]]:
    """Start the stdio servers that are to be listed (`stdio.start_early`: one already started is not
    started again), and return the committed snapshots `freshness` says need no listing, with the
    seconds their listing stays fresh. `sync` calls it before it loads the generator, so the servers'
    start-up also runs beside that."""
    reused = {}
    for server in servers:
        left = freshness.fresh_for(server, targets[server.name]) if freshness is not None else 0.0
        committed = _committed(targets[server.name]) if left > 0 else None
        if committed is not None:
            reused[server.name] = (committed, left)
    start_early([server for server in servers if server.name not in reused])
    return reused


def _committed(path: Path) -> Snapshot | None:
    """The snapshot a new one replaces, for the names its package gave; None when there is none to read."""
    try:
        return load_snapshot(path)
    except StubgenError:
        return None


allow_empty_option = click.option(
    "--allow-empty",
    is_flag=True,
    help="Write a snapshot that lists nothing, or has no serverInfo, over a committed one that does.",
)


class _SnapshotCommand(click.Command):
    """Remembers whether `--` was given: the words after it are a command to run, not server ids."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["snapshot.command_given"] = "--" in args
        return super().parse_args(ctx, args)


@click.command(cls=_SnapshotCommand)
@click.argument("servers", nargs=-1)
@click.option("--name", help="Ad hoc: the id of a server given by --url or after `--` (default: from the command).")
@click.option("--url", help="Ad hoc: a Streamable HTTP endpoint.")
@click.option("--header", "headers", multiple=True, help="Ad hoc: an HTTP header 'Name: value' (repeatable).")
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Ad hoc: where to write the snapshot (default: NAME.json).",
)
@config_options
@connection_options
@allow_empty_option
@console.format_option
def snapshot(
    servers: tuple[str, ...],
    name: str | None,
    url: str | None,
    headers: tuple[str, ...],
    out: Path | None,
    config_path: Path | None,
    servers_file: Path | None,
    protocol: str | None,
    connect_timeout: float | None,
    request_timeout: float | None,
    allow_empty: bool,
) -> int:
    """Discover servers and write one canonical JSON snapshot per server.

    \b
    With a config:  mcp-stubgen snapshot [SERVER...]
    Ad hoc (stdio): mcp-stubgen snapshot [--name NAME] [--out FILE] -- COMMAND [ARGS...]
    Ad hoc (HTTP):  mcp-stubgen snapshot --name NAME --url URL [--header 'K: V'] [--out FILE]
    """
    if name is None and servers and click.get_current_context().meta.get("snapshot.command_given"):
        name = derived_server_id(servers)
        if name is None:
            raise click.UsageError(f"cannot tell a server id from the command {servers[0]!r}; pass --name NAME")
        console.note(f"note: no --name given; calling the server {name!r} (from its command)")
    if name is not None:
        config = ProjectConfig(root=Path.cwd(), source=None, snapshots=Path.cwd(), output=None, servers={})
        selected = [ad_hoc_server(name, servers, url, headers)]
        out = out or Path(f"{name}.json")
    else:
        if url is not None or headers or out is not None:
            raise click.UsageError("--url, --header and --out need --name (ad hoc mode)")
        config = load_project(config_path, servers_file)
        selected = config.select(servers)
    selected = apply_overrides(selected, protocol, connect_timeout, request_timeout)
    taken = take_snapshots(config, selected, out, announce=_announce, allow_empty=allow_empty)
    return EXIT_OK if len(taken) == len(selected) else EXIT_ERROR


def _announce(snapshot: Snapshot, path: Path, changed: bool) -> None:
    console.emit(
        snapshot.server,
        "wrote" if changed else "unchanged",
        snapshot=shown_path(path),
        counts=counts(snapshot),
        protocol=snapshot.protocol_version,
        missing_methods=list(snapshot.missing_methods),
    )


_LAUNCHER = re.compile(r"(?:npx|bunx|pnpx|uvx|pipx|uv|npm|pnpm|yarn|bun|deno|node|docker|podman|python[0-9.]*|py)")
_LAUNCHER_VERBS = frozenset({"run", "x", "dlx", "exec", "tool"})
_NOT_A_NAME = frozenset({"index", "main", "server", "cli", "app", "__main__", "dist", "build", "src"})


def derived_server_id(command: tuple[str, ...]) -> str | None:
    """A server id from what the command runs, or None when it names nothing useful.

    After a launcher (`npx`, `uvx`, `python`, `docker run`, ...) that is the first word that is
    not an option: `npx -y @scope/server-x@1.2` gives `server-x`, `python -m mcp_server_time`
    `mcp_server_time`, `docker run -i --rm mcp/fetch:latest` `fetch`; otherwise the program's own
    name (`./weather_server.py` gives `weather_server`). Characters a server id cannot hold become `-`.
    """
    program, *rest = command
    target = program
    if _LAUNCHER.fullmatch(Path(program).name.removesuffix(".exe")):
        words = [word for word in rest if not word.startswith("-") and "=" not in word]
        if words and words[0] in _LAUNCHER_VERBS:
            words = words[1:]
        if not words:
            return None
        target = words[0]
    if target.startswith("@"):  # an npm package of a scope
        target = target.partition("/")[2]
    target = Path(target.partition("@")[0]).name.partition(":")[0]  # no version, folder or image tag
    for suffix in (".py", ".js", ".mjs", ".cjs", ".ts", ".exe"):
        target = target.removesuffix(suffix)
    candidate = re.sub(r"[^A-Za-z0-9_-]+", "-", target).lstrip("0123456789_-").rstrip("-")[:64]
    if not candidate or candidate in _NOT_A_NAME or not SERVER_ID.match(candidate):
        return None
    return candidate


def ad_hoc_server(name: str, command: tuple[str, ...], url: str | None, headers: tuple[str, ...]) -> ServerConfig:
    if (url is None) == (not command):
        raise click.UsageError("give either --url URL or `-- COMMAND [ARGS...]` with --name")
    parsed_headers = {}
    for header in headers:
        key, separator, value = header.partition(":")
        if not separator or not key.strip():
            raise click.UsageError(f"--header {key.strip() or '?'!r}: expected 'Name: value'")
        parsed_headers[key.strip()] = value.strip()
    raw: dict[str, object] = (
        {"url": url, "headers": parsed_headers} if url else {"command": command[0], "args": list(command[1:])}
    )
    return parse_server(name, raw, f"--name {name}", Path.cwd())
