"""`mcp-stubgen inspect` (one catalog, readable) and `mcp-stubgen list` (every configured server's
snapshot and package state). Both work offline and write nothing but the generator's cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from codegen import console
from codegen.config import SERVER_ID, ProjectConfig
from codegen.errors import EXIT_ERROR, EXIT_OK, StubgenError
from codegen.fsutil import lookup_refused, what_to_check
from codegen.generate.build import build_package
from codegen.generate.cache import Cache
from codegen.generate.hub_build import code_mode_build, hub_rendered, hub_sources
from codegen.generate.pipeline import (
    PackageInputs,
    code_mode_dir,
    hub_dir,
    package_dir,
    package_label,
    render_current,
    stale_diff,
    stray_packages,
)
from codegen.identifiers import package_name
from codegen.options import cache_for, config_options, load_project, shown_path
from codegen.snapshot import Snapshot, parse_snapshot, read_snapshot_bytes
from codegen.snapshot.summary import counts, describe
from codegen.view.catalog import catalog_json, catalog_text


@click.command()
@click.argument("targets", nargs=-1, metavar="[SERVER|SNAPSHOT.json]...")
@config_options
@console.format_option
def inspect(targets: tuple[str, ...], config_path: Path | None, servers_file: Path | None) -> int:
    """Show a catalog as its generated client sees it: tools with their parameters (Python and wire
    names), types, required and defaults, annotation badges and return types; resources, templates
    and prompts.

    \b
    mcp-stubgen inspect [SERVER...]        configured servers' committed snapshots (all when none is named)
    mcp-stubgen inspect SNAPSHOT.json      a snapshot file
    """
    config, sources = _inspected(targets, config_path, servers_file)
    cache = cache_for(False)
    failed = 0
    for number, (path, server) in enumerate(sources):
        try:
            snapshot = parse_snapshot(read_snapshot_bytes(path), str(path))
            package = (
                build_package(snapshot, config.method_names(server), cache, renames=config.renames(server))
                if config is not None and server is not None
                else build_package(snapshot, {}, cache)
            )
        except StubgenError as error:
            failed += 1
            console.error(str(error))
            console.emit(server, "error", error=str(error), snapshot=shown_path(path))
            continue
        console.result(("\n" if number else "") + catalog_text(snapshot, package, shown_path(path)), nl=False)
        console.emit(snapshot.server, "ok", snapshot=shown_path(path), **catalog_json(snapshot, package))
    return EXIT_ERROR if failed else EXIT_OK


def _inspected(
    targets: tuple[str, ...], config_path: Path | None, servers_file: Path | None
) -> tuple[ProjectConfig | None, list[tuple[Path, str | None]]]:
    """The snapshot files to show, each with its configured server id (None for a file given by
    path), in the order named; the config is read only when a server id is named, or none at all."""
    ids = tuple(target for target in targets if SERVER_ID.match(target))
    config = load_project(config_path, servers_file) if ids or not targets else None
    if config is None:
        return None, [(Path(target), None) for target in targets]
    chosen = {server.name for server in config.select(ids)}  # every configured server when none is named
    if not targets:
        return config, [(config.snapshot_path(name), name) for name in sorted(chosen)]
    return config, [
        (config.snapshot_path(target), target) if target in chosen else (Path(target), None) for target in targets
    ]


@click.command("list")
@config_options
@console.format_option
def list_servers(config_path: Path | None, servers_file: Path | None) -> int:
    """List the configured servers with the state of their snapshot (present, missing, invalid) and
    generated package (current, stale, missing), proven as `generate --check` proves it."""
    config = load_project(config_path, servers_file)
    cache = cache_for(False)
    for server in config.select(()):
        _list_server(config, server.name, cache)
    output = config.output
    if config.hub and output is not None:
        _list_package(hub_dir(output), lambda: _hub_diff(config, output, cache))
    if config.code_mode and output is not None:
        _list_package(code_mode_dir(output), lambda: _code_mode_diff(config, output, cache))
    for folder in stray_packages(output, config.package_names()) if output is not None else ():
        console.result(f"{folder.name}: package {shown_path(folder)} unconfigured (no configured server generates it)")
        console.emit(None, "ok", package=shown_path(folder), package_state="unconfigured")
    return EXIT_OK


def _list_server(config: ProjectConfig, name: str, cache: Cache) -> None:
    path = config.snapshot_path(name)
    snapshot: Snapshot | None = None
    details: dict[str, Any] = {"snapshot": shown_path(path), "snapshot_state": "missing"}
    if path.exists() or lookup_refused(path) is not None:  # a link loop is not missing: reading it says why
        try:
            source = read_snapshot_bytes(path)
            snapshot = parse_snapshot(source, str(path))
        except StubgenError as error:
            details |= {"snapshot_state": "invalid", "error": str(error)}
        else:
            details |= {"snapshot_state": "present", "counts": counts(snapshot)}
    line = f"{name}: snapshot {shown_path(path)} " + (
        f"({describe(snapshot)})" if snapshot is not None else details["snapshot_state"]
    )
    output = config.output
    details |= {"package": None, "package_state": None}
    if output is not None:
        if snapshot is None:
            target = output / package_name(name)
            state = "unchecked" if target.is_dir() or lookup_refused(target) is not None else "missing"
        else:
            target = package_dir(snapshot, output)
            inputs = PackageInputs(
                source, str(path), config.method_names(name), config.renames(name), config.sync_client
            )
            try:
                state = _package_state(target, lambda: _package_diff(inputs, snapshot, output, cache))
            except StubgenError as error:  # a snapshot the generator refuses: its package cannot be proven
                details["error"] = str(error)
                state = "unchecked"
        details |= {"package": shown_path(target), "package_state": state}
        line += f"; package {shown_path(target)} {state}"
    server = config.servers[name]
    if server.auth is not None:  # OAuth: what `auth status` shows, so a missing login is seen before a run needs it
        from codegen.auth.state import login_state
        from codegen.runtime._auth import TokenStore

        auth_state, _ = login_state(server, TokenStore())
        details["auth"] = f"{server.auth.mode}; {auth_state}"
        line += f"; auth {details['auth']}"
    console.result(line)
    console.emit(name, "ok", **details)


def _list_package(target: Path, diff: Callable[[], str]) -> None:
    """The line of a package over every server (the hub, code mode's stubs), which has no snapshot of its own."""
    reason: dict[str, str] = {}
    try:
        state = _package_state(target, diff)
    except StubgenError as error:  # no snapshot to build it from, or settings the hub refuses
        state, reason = "unchecked", {"error": str(error)}
    console.result(f"{target.name}: package {shown_path(target)} {state}")
    console.emit(None, "ok", package=shown_path(target), package_state=state, **reason)


def _package_state(target: Path, diff: Callable[[], str]) -> str:
    """`missing` without a folder, else `current` or `stale` as the `--check` proof (or render) says."""
    refused = lookup_refused(target)
    if refused is not None:
        raise StubgenError(
            f"{shown_path(target)}: cannot read the package folder ({refused.strerror}); {what_to_check(refused)}"
        )
    if not target.is_dir():
        return "missing"
    return "stale" if diff() else "current"


def _package_diff(inputs: PackageInputs, snapshot: Snapshot, output: Path, cache: Cache) -> str:
    """The `--check` diff of a server's package: proven from its snapshot's bytes, else rendered."""
    rendered = render_current(inputs, output, cache, snapshot)
    return stale_diff(rendered, cache, package_label(rendered.target))


def _hub_diff(config: ProjectConfig, output: Path, cache: Cache) -> str:
    """The `--check` diff of the hub: proven from its snapshots' bytes, else rendered."""
    rendered = hub_rendered(hub_sources(config), output, cache).rendered
    return stale_diff(rendered, cache, package_label(rendered.target))


def _code_mode_diff(config: ProjectConfig, output: Path, cache: Cache) -> str:
    """The `--check` diff of the code-mode package: proven from its snapshots' bytes, else rendered."""
    rendered = code_mode_build(hub_sources(config), output, cache).rendered
    return stale_diff(rendered, cache, package_label(rendered.target))
