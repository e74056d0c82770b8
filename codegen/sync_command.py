"""`mcp-stubgen sync`: snapshot then generate, the build step users run."""

from __future__ import annotations

from pathlib import Path

import click

from codegen.config import ProjectConfig, load_config
from codegen.errors import EXIT_ERROR, EXIT_OK, StubgenError
from codegen.generate import Cache, package_dir, render_snapshot
from codegen.generate.command import cache_for, cache_option, hub_inputs, method_names_for, strict_setting
from codegen.generate.hub import hub_dir, render_hub
from codegen.generate.proof import remember_rendered
from codegen.generate.publish import publish
from codegen.snapshot import Snapshot
from codegen.snapshot_command import (
    apply_overrides,
    config_options,
    connection_options,
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

    A server's snapshot is written only once its package has rendered, and each package is
    published atomically, so a failure leaves that server's committed files as they were.
    """
    config = load_config(config_path, servers_file)
    output = config.output
    if output is None:
        raise StubgenError(f"{config.source or config.root}: set `output` under [tool.mcp-stubgen] to sync")
    selected = apply_overrides(config.select(servers), protocol, connect_timeout, request_timeout)
    rendered: dict[str, dict[str, bytes]] = {}
    # The cache `generate` uses: an unchanged tool's models are not generated again on every sync.
    cache = cache_for(no_cache)

    def render(snapshot: Snapshot) -> None:
        rendered[snapshot.server] = render_snapshot(
            snapshot, method_names_for(config, snapshot.server), cache, strict_setting(config)
        )

    taken = take_snapshots(config, selected, before_write=render)
    failed = len(selected) - len(taken)
    unpublished = 0
    for name in sorted(taken):
        target = package_dir(taken[name], output)
        try:
            result = publish(rendered[name], target)
        except StubgenError as error:
            report(f"error: {error}")
            unpublished += 1
            continue
        remember_rendered(taken[name].canonical_bytes(), method_names_for(config, name), target, rendered[name], cache)
        state = "generated" if result.changed else "up to date:"
        report(f"{name}: {state} {shown_path(target)}")
    if config.hub:
        if unpublished:
            report("error: hub: not regenerated, because a server's package could not be published")
            failed += 1
        elif not publish_hub(config, output, cache):
            failed += 1
    return EXIT_ERROR if failed or unpublished else EXIT_OK


def publish_hub(config: ProjectConfig, output: Path, cache: Cache) -> bool:
    """Regenerate the hub from every snapshot now on disk and report it; False when it could not be.

    A server that could not be snapshotted keeps its previous snapshot and package, so the hub is
    still built from what is committed.
    """
    try:
        inputs, settings = hub_inputs(config)
        result = publish(render_hub(inputs, cache, settings), hub_dir(output))
    except StubgenError as error:
        report(f"error: {error}")
        return False
    report(f"hub: {'generated' if result.changed else 'up to date:'} {shown_path(result.path)}")
    return True
