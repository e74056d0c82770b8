"""`mcp-stubgen sync`: snapshot then generate, the build step users run."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import click

from codegen.config import ProjectConfig
from codegen.errors import EXIT_ERROR, EXIT_OK, StubgenError
from codegen.generate import Cache, Published, package_dir, render_snapshot
from codegen.generate.command import cache_for, cache_option, hub_inputs, method_names_for, strict_setting
from codegen.generate.hub import hub_dir, render_hub
from codegen.generate.proof import remember_rendered
from codegen.generate.publish import publish, recover_output
from codegen.snapshot import Snapshot
from codegen.snapshot_command import (
    apply_overrides,
    config_options,
    connection_options,
    load_project,
    report,
    shown_path,
    take_snapshots,
)


@click.command()
@click.argument("servers", nargs=-1)
@config_options
@connection_options
@cache_option
def sync(
    servers: tuple[str, ...],
    config_path: Path | None,
    servers_file: Path | None,
    protocol: str | None,
    connect_timeout: float | None,
    request_timeout: float | None,
    no_cache: bool,
) -> int:
    """Snapshot the configured servers, then regenerate their packages.

    Each server's package is rendered, then published together with its snapshot: a failure or an
    interruption leaves every server's snapshot and package both as they were or both new.
    """
    config = load_project(config_path, servers_file)
    output = config.output
    if output is None:
        raise StubgenError(f"{config.source or config.root}: set `output` under [tool.mcp-stubgen] to sync")
    selected = apply_overrides(config.select(servers), protocol, connect_timeout, request_timeout)
    # The cache `generate` uses: an unchanged tool's models are not generated again on every sync.
    cache = cache_for(no_cache)
    recover_output(output)
    published: dict[str, Published] = {}

    def write(path: Path, snapshot: Snapshot) -> bool:
        method_names = method_names_for(config, snapshot.server)
        published[snapshot.server] = publish_with_snapshot(
            snapshot, method_names, path, output, cache, strict_setting(config)
        )
        return published[snapshot.server].snapshot_changed

    taken = take_snapshots(config, selected, write=write)
    for name in sorted(taken):
        state = "generated" if published[name].changed else "up to date:"
        report(f"{name}: {state} {shown_path(published[name].path)}")
    failed = len(selected) - len(taken)
    if config.hub and not publish_hub(config, output, cache):
        failed += 1
    return EXIT_ERROR if failed else EXIT_OK


def publish_with_snapshot(
    snapshot: Snapshot, method_names: Mapping[str, str], path: Path, output: Path, cache: Cache, strict: bool
) -> Published:
    """Render a server's package and publish it and its snapshot file as one step (`sync` and `watch`),
    so neither is ever new beside the other's old version; raises `StubgenError`. `strict` refuses a
    tool no models can be generated for instead of giving it an untyped method."""
    files = render_snapshot(snapshot, method_names, cache, strict)
    target = package_dir(snapshot, output)
    source = snapshot.canonical_bytes()
    try:
        result = publish(files, target, (path, source))
    except OSError as error:
        raise StubgenError(
            f"server {snapshot.server!r}: cannot write {target} and {path} ({error.strerror or error}); "
            "check the folders' permissions"
        ) from None
    remember_rendered(source, method_names, target, files, cache)
    return result


def publish_hub(config: ProjectConfig, output: Path, cache: Cache) -> bool:
    """Regenerate the hub from every snapshot now on disk and report it; False when it could not be.

    A server that could not be snapshotted or published keeps its previous snapshot and package, so
    the hub is still built from what is committed.
    """
    try:
        inputs, settings = hub_inputs(config)
        result = publish(render_hub(inputs, cache, settings), hub_dir(output))
    except StubgenError as error:
        report(f"error: {error}")
        return False
    report(f"hub: {'generated' if result.changed else 'up to date:'} {shown_path(result.path)}")
    return True
