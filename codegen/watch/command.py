"""`mcp-stubgen watch`: keep each server's snapshot and package current while the server runs."""

from __future__ import annotations

from pathlib import Path

import click

from codegen import console
from codegen.config import ProjectConfig, ServerConfig, expand_headers, server_environment
from codegen.drift import parse_policy
from codegen.errors import EXIT_OK
from codegen.generate.cache import default_max_bytes
from codegen.generate.publish import recover_output
from codegen.options import Seconds, apply_overrides, config_options, connection_options, load_project
from codegen.snapshot import Snapshot, load_snapshot


@click.command()
@click.argument("servers", nargs=-1)
@click.option(
    "--interval",
    type=Seconds(),
    default=30.0,
    show_default=True,
    help="Seconds between re-lists of a server that declares no listChanged "
    "(and between liveness pings of a legacy server that does).",
)
@click.option(
    "--max-changes",
    type=click.IntRange(min=1),
    help="Exit 0 once this many changes have been published (for scripts and tests); default: until Ctrl-C.",
)
@config_options
@connection_options
@console.format_option
def watch(
    servers: tuple[str, ...],
    interval: float,
    max_changes: int | None,
    config_path: Path | None,
    servers_file: Path | None,
    protocol: str | None,
    connect_timeout: float | None,
    request_timeout: float | None,
    max_pages: int | None,
) -> int:
    """Keep a session open to each server and republish its snapshot and package when its catalog changes.

    \b
    Re-lists the whole catalog on notifications/*/list_changed (legacy servers) or on the
    subscriptions/listen stream (2026-07-28), and every --interval seconds for a server that
    declares no listChanged. Each change prints the drift report, then writes the snapshot and
    regenerates the package (when `output` is configured) atomically. Ctrl-C stops cleanly.
    """
    config = load_project(config_path, servers_file)
    policy = parse_policy(config.settings, str(config.source or "config"))
    selected = apply_overrides(config.select(servers), protocol, connect_timeout, request_timeout, max_pages)
    for server in selected:
        # Configuration mistakes fail now, once, rather than on every reconnection attempt; so does
        # an OAuth login that would need a browser where none can open (CI).
        server_environment(server)
        expand_headers(server)
        if server.auth is not None:
            from codegen.auth.providers import auth_for

            auth_for(server)
    default_max_bytes()
    if config.output is not None:
        recover_output(config.output)
    committed = {server.name: _committed(config, server) for server in selected}

    from codegen.watch.watcher import Watcher  # the SDK's transports load only when needed

    watcher = Watcher(config, policy, selected, committed, interval, max_changes)
    watcher.run()
    console.note(f"stopped after {watcher.changes} published change{'' if watcher.changes == 1 else 's'}")
    console.emit(None, "stopped", changes=watcher.changes)
    return EXIT_OK


def _committed(config: ProjectConfig, server: ServerConfig) -> Snapshot | None:
    """The snapshot the first listing is compared with; none yet means the first listing is written."""
    path = config.snapshot_path(server.name)
    return load_snapshot(path) if path.exists() else None
