"""`mcp-stubgen sync`: snapshot then generate, the build step users run."""

from __future__ import annotations

from pathlib import Path

import click

from codegen.config import ProjectConfig, load_config
from codegen.errors import EXIT_ERROR, EXIT_OK, StubgenError
from codegen.generate import package_dir, render_snapshot
from codegen.generate.command import hub_inputs, method_names_for
from codegen.generate.hub import hub_dir, render_hub
from codegen.generate.publish import publish
from codegen.snapshot import Snapshot
from codegen.snapshot_command import _shown, apply_overrides, config_options, connection_options, report, take_snapshots


@click.command()
@click.argument("servers", nargs=-1)
@config_options
@connection_options
def sync(
    servers: tuple[str, ...],
    config_path: Path | None,
    servers_file: Path | None,
    protocol: str | None,
    connect_timeout: float | None,
    request_timeout: float | None,
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

    def render(snapshot: Snapshot) -> None:
        rendered[snapshot.server] = render_snapshot(snapshot, method_names_for(config, snapshot.server))

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
        state = "generated" if result.changed else "up to date:"
        report(f"{name}: {state} {_shown(target)}")
    if config.hub:
        failed += _sync_hub(config, output, unpublished)
    return EXIT_ERROR if failed or unpublished else EXIT_OK


def _sync_hub(config: ProjectConfig, output: Path, unpublished: int) -> int:
    """Regenerate the hub from the snapshots now on disk; 1 when it could not be, else 0.

    A server that could not be snapshotted keeps its previous snapshot and package, so the hub is
    still built; a package that could not be published would no longer match its new snapshot, so not.
    """
    if unpublished:
        report("error: hub: not regenerated, because a server's package could not be published")
        return 1
    try:
        result = publish(render_hub(hub_inputs(config)), hub_dir(output))
    except StubgenError as error:
        report(f"error: {error}")
        return 1
    report(f"hub: {'generated' if result.changed else 'up to date:'} {_shown(result.path)}")
    return 0
