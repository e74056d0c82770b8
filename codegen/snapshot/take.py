"""Taking snapshots: start the servers, list them, and write each snapshot as it arrives, keeping the
names its package gave and refusing one that would empty a committed catalog. `snapshot` and `sync`
both run it."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from codegen import console
from codegen.config import ProjectConfig, ServerConfig
from codegen.errors import StubgenError, one_line
from codegen.fsutil import what_to_check
from codegen.identifiers import keep_names
from codegen.options import shown_path
from codegen.snapshot import Snapshot, load_snapshot, write_snapshot
from codegen.snapshot.audit import catalog_findings
from codegen.snapshot.stdio import INHERITED_NAMES, start_early
from codegen.snapshot.summary import counts, describe, emptied, warn_unlisted_methods

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
    by_name = {server.name: server for server in servers}

    def failed(name: str, message: str) -> None:
        console.error(message)
        console.emit(name, "error", error=message, snapshot=shown_path(targets[name]))

    def done(name: str, result: Snapshot | StubgenError) -> None:
        if isinstance(result, StubgenError):
            failed(name, str(result))
            return
        warn_unlisted_methods(result, by_name[name])
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
            failed(name, f"server {name!r}: cannot write {path} ({error.strerror}); {what_to_check(error)}")
            return
        taken[name] = result
        state = "wrote" if changed else "unchanged"
        flagged = catalog_findings(result)
        audit = f"; {len(flagged)} text(s) read like a prompt injection" if flagged else ""
        console.note(f"{name}: {state} {shown_path(path)} ({describe(result)}{audit})")
        for found in flagged:
            console.warn(one_line(f"server {name!r}: {found.describe()}; review it before using this server"))
        if not any(counts(result).values()):
            console.warn(listed_nothing(by_name[name], result))
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


def listed_nothing(server: ServerConfig, snapshot: Snapshot) -> str:
    """Why a server may list nothing: most often it started without a setting or credential it needs
    (mcp-atlassian lists no tools without its URLs and tokens), which for a stdio server is often a
    variable of the user's shell that it was never given; but a server that declared no list at all
    was asked for none, and a setting of the user's is not the cause."""
    if not any(kind in snapshot.capabilities for kind in ("tools", "resources", "prompts")):
        return (
            f"server {server.name!r} declared none of the tools, resources and prompts capabilities in its "
            "handshake, so nothing was listed (a client lists only what a server declares); the server has "
            "to declare what it offers"
        )
    if server.command is None:
        return f"server {server.name!r} listed no tools, resources, templates or prompts; " + server.advise(
            "check its `headers` or `auth`", "check the credentials it needs (--header 'Name: value')"
        )
    return (
        f"server {server.name!r} listed no tools, resources, templates or prompts, as a server missing a setting "
        f"or credential often does: a stdio server sees only {INHERITED_NAMES} of this environment, and "
        + server.advise("its `env`", "what --env NAME or --env NAME=VALUE gives it")
    )


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
