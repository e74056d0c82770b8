"""`mcp-stubgen sync`: snapshot then generate, the build step users run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from codegen import console
from codegen.errors import EXIT_ERROR, EXIT_OK
from codegen.identifiers import package_name
from codegen.options import (
    allow_empty_option,
    apply_overrides,
    cache_for,
    cache_option,
    config_options,
    connection_options,
    load_project,
    shown_path,
)
from codegen.snapshot import Snapshot
from codegen.snapshot.summary import counts
from codegen.snapshot.take import start_servers, take_snapshots
from codegen.sync.freshness import Freshness

if TYPE_CHECKING:
    from codegen.generate import Published


@click.command()
@click.argument("servers", nargs=-1)
@config_options
@connection_options
@allow_empty_option
@cache_option
@click.option(
    "--refresh",
    is_flag=True,
    help="List every server again, even one whose last listing is still fresh by its ttlMs.",
)
@console.format_option
def sync(
    servers: tuple[str, ...],
    config_path: Path | None,
    servers_file: Path | None,
    protocol: str | None,
    connect_timeout: float | None,
    request_timeout: float | None,
    max_pages: int | None,
    allow_empty: bool,
    no_cache: bool,
    refresh: bool,
) -> int:
    """Snapshot the configured servers, then regenerate their packages.

    Each server's package is rendered, then published together with its snapshot: a failure or an
    interruption leaves every server's snapshot and package both as they were or both new. A server
    that said (protocol 2026-07-28 `ttlMs`) its last listing stays fresh is not listed again until
    then, unless --refresh is given.
    """
    config = load_project(config_path, servers_file)
    output = config.output
    if output is None:
        raise config.missing("set `output` under [tool.mcp-stubgen] to sync")
    selected = apply_overrides(config.select(servers), protocol, connect_timeout, request_timeout, max_pages)
    freshness = Freshness(refresh)
    start_servers(selected, {server.name: config.snapshot_path(server.name) for server in selected}, freshness)
    # Only now the generator: the servers start while it loads.
    from codegen.generate.pipeline import announce_package, load_renderer, note_stray_packages
    from codegen.generate.publish import recover_output
    from codegen.sync.publish import RuntimeChanges, publish_hub, publish_with_snapshot

    if any(not (output / package_name(server.name)).exists() for server in selected):
        load_renderer()  # a package will be rendered from nothing: load the renderer while the servers start

    # The cache `generate` uses: an unchanged tool's models are not generated again on every sync.
    cache = cache_for(no_cache)
    recover_output(output)
    published: dict[str, Published] = {}
    runtime = RuntimeChanges()

    def write(path: Path, snapshot: Snapshot) -> bool:
        published[snapshot.server] = publish_with_snapshot(snapshot, config, path, output, cache, runtime)
        return published[snapshot.server].snapshot_changed

    def announce(snapshot: Snapshot, path: Path, changed: bool) -> None:
        """Each server's package line as soon as it is published, so an interrupted run shows what it published."""
        result = published[snapshot.server]
        announce_package(snapshot.server, result)
        console.emit(
            snapshot.server,
            "generated" if result.changed else "unchanged",
            snapshot=shown_path(path),
            snapshot_changed=changed,
            package=shown_path(result.path),
            counts=counts(snapshot),
        )

    try:
        taken = take_snapshots(
            config, selected, write=write, announce=announce, allow_empty=allow_empty, freshness=freshness
        )
    except KeyboardInterrupt:
        runtime.announce()
        done = ", ".join(sorted(published)) or "nothing"
        hub = "; the hub was not regenerated (run `mcp-stubgen generate`)" if config.hub and published else ""
        click.echo(f"published before the interrupt: {done} (snapshot and package each){hub}", err=True)
        raise
    failed = len(selected) - len(taken)
    if config.hub and not publish_hub(config, output, cache, runtime, [server.name for server in selected]):
        failed += 1
    runtime.announce()
    if not servers:
        note_stray_packages(output, config.package_names())
    return EXIT_ERROR if failed else EXIT_OK
