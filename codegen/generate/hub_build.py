"""The hub as the committed snapshots give it: which snapshot files and settings it is rendered from,
and its render through the pipeline (proven current from their bytes, else rendered), for
`generate`, `generate --check`, `sync`, `watch` and `view` alike."""

from __future__ import annotations

import difflib
import fnmatch
import shlex
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codegen import console
from codegen.config import HubSettings, ProjectConfig
from codegen.errors import StubgenError
from codegen.generate.cache import Cache
from codegen.generate.hub import render_hub
from codegen.generate.pipeline import Rendered, hub_dir, stale_diff
from codegen.generate.proof import RenderKey, hub_source, rendered_before
from codegen.generate.publish import read_tree
from codegen.snapshot import Snapshot, parse_snapshot, read_snapshot_bytes

if TYPE_CHECKING:
    from codegen.generate.code_mode import CodeModeBuild

__all__ = [
    "HubBuild",
    "HubInput",
    "HubSources",
    "LeftOut",
    "code_mode_build",
    "hub_is_stale",
    "hub_key",
    "hub_rendered",
    "hub_sources",
    "left_out_errors",
]


@dataclass(frozen=True)
class HubInput:
    """One server the hub covers: its snapshot file and its method-name overrides."""

    snapshot: Path
    method_names: Mapping[str, str]


@dataclass(frozen=True)
class HubSources:
    """The hub's snapshot files and how it names and selects their tools."""

    servers: tuple[HubInput, ...]
    settings: HubSettings = HubSettings()


def hub_sources(config: ProjectConfig) -> HubSources:
    """Every configured server's committed snapshot: the hub covers all of them, whichever were named."""
    servers = tuple(HubInput(config.snapshot_path(name), config.method_names(name)) for name in sorted(config.servers))
    return HubSources(servers, config.hub_settings)


def hub_key(snapshots: Sequence[tuple[bytes, Mapping[str, str]]], settings: HubSettings) -> RenderKey:
    """What the hub's record is kept under: its servers' snapshot bytes and method names, its settings."""
    return RenderKey(hub_source(snapshots, settings))


@dataclass(frozen=True)
class LeftOut:
    """A server the hub was built without, and why."""

    server: str
    """Its snapshot file's name without `.json`: the server id for a configured server."""
    message: str
    """The line naming it and why (its snapshot is missing or invalid)."""
    unsnapshotted: bool
    """It has no snapshot file at all: a server not snapshotted yet, not one whose file is broken."""


@dataclass(frozen=True)
class HubBuild:
    """The hub as the snapshots on disk give it: built from every server whose snapshot can be read
    and parsed, so one missing server does not leave the rest without a hub."""

    rendered: Rendered
    lacking: tuple[LeftOut, ...]


def hub_rendered(hub: HubSources, out_dir: Path, cache: Cache) -> HubBuild:
    """The hub over the servers that have a usable snapshot, rendered unless proven unchanged;
    raises `StubgenError` when no hub can be built at all, or when a published hub would lose a
    server whose snapshot is there but cannot be used (`_keep_for_damaged`)."""
    target = hub_dir(out_dir)
    readable: list[tuple[HubInput, bytes]] = []
    lacking: list[LeftOut] = []
    for server in hub.servers:
        try:
            readable.append((server, read_snapshot_bytes(server.snapshot)))
        except StubgenError as error:
            _keep_for_damaged(server.snapshot, error, target)
            lacking.append(_lacks(server.snapshot, error))
    _warn_unmatched_filters(readable, hub.settings)
    key = hub_key([(data, server.method_names) for server, data in readable], hub.settings)
    if rendered_before(key, out_dir, cache) is not None:
        return HubBuild(Rendered(target, None, key), tuple(lacking))
    parsed: list[tuple[Snapshot, HubInput, bytes]] = []
    for server, data in readable:
        try:
            parsed.append((parse_snapshot(data, str(server.snapshot)), server, data))
        except StubgenError as error:
            _keep_for_damaged(server.snapshot, error, target)
            lacking.append(_lacks(server.snapshot, error))
    if lacking and not parsed:
        raise StubgenError("hub: no server has a usable snapshot to build it from; run `mcp-stubgen snapshot` first")
    if len(parsed) < len(readable):
        key = hub_key([(data, server.method_names) for _, server, data in parsed], hub.settings)
    try:
        files = render_hub([(snapshot, server.method_names) for snapshot, server, _ in parsed], cache, hub.settings)
    except StubgenError as error:
        message = str(error)
        raise StubgenError(message if message.startswith("hub: ") else f"hub: {message}") from None
    return HubBuild(Rendered(target, files, key), tuple(lacking))


def _warn_unmatched_filters(readable: Sequence[tuple[HubInput, bytes]], settings: HubSettings) -> None:
    """A `warning:` for each `include` or `exclude` pattern that matches none of its server's tools: a
    misspelt include leaves the server out of the hub, a misspelt exclude lets through the tool it
    was written to keep out. Only the snapshots of servers with filters are read for it."""
    for server, data in readable:
        if server.snapshot.stem not in settings.filters:
            continue
        try:
            snapshot = parse_snapshot(data, str(server.snapshot))
        except StubgenError:
            continue  # the hub's own line names it
        chosen = settings.filters.get(snapshot.server)
        names = sorted(tool["name"] for tool in snapshot.tools)
        for key, patterns in (("include", chosen.include), ("exclude", chosen.exclude)) if chosen else ():
            for pattern in patterns:
                if any(fnmatch.fnmatchcase(name, pattern) for name in names):
                    continue
                close = difflib.get_close_matches(pattern, names, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                console.warn(
                    f"hub: [tool.mcp-stubgen.hub_filters.{snapshot.server}] {key} pattern {pattern!r} matches none "
                    f"of the server's {len(names)} tools{hint}"
                )


def _keep_for_damaged(path: Path, error: StubgenError, target: Path) -> None:
    """Raise `StubgenError` when a server's snapshot is there but cannot be used (a merge conflict,
    an edit that broke it) and a hub is published already: built without that server, it would drop
    the server's tools from a hub that has them, for a file to fix; a missing snapshot (a server not
    snapshotted yet) leaves it out, as `HubBuild` says."""
    if target.is_dir() and (path.exists() or path.is_symlink()):
        raise StubgenError(
            f"hub: kept as it was, not built without {path.stem!r}, whose snapshot cannot be used: {error}"
        )


def left_out_errors(lacking: Sequence[LeftOut], listed: Collection[str], listing: bool = False) -> list[str]:
    """Say what the hub was built without: the servers with no snapshot yet that this run was not
    asked for (`listed`) in one warning naming what to run (a user adding servers one at a time syncs
    or generates each by name); the others' lines are returned, errors for the caller to report. A run
    `listing` its servers (`sync`, `watch`) has just failed to snapshot a listed one and said why: its
    line says so, not to run `snapshot` first, which fails the same way."""
    not_yet = [left.server for left in lacking if left.unsnapshotted and left.server not in listed]
    if not_yet:
        names = ", ".join(repr(server) for server in not_yet)
        which, them = ("which has", "it") if len(not_yet) == 1 else ("which have", "them")
        command = shlex.join(["mcp-stubgen", "sync", *not_yet])
        console.warn(f"hub: built without {names}, {which} no snapshot yet; run `{command}` to add {them}")
    return [
        f"hub: built without {left.server!r}, whose snapshot failed (above)"
        if listing and left.unsnapshotted
        else left.message
        for left in lacking
        if left.server not in not_yet
    ]


def _lacks(path: Path, error: StubgenError) -> LeftOut:
    """The server the hub was built without: its snapshot file is named `<server>.json`."""
    unsnapshotted = not (path.exists() or path.is_symlink())
    return LeftOut(path.stem, f"hub: built without {path.stem!r}: {error}", unsnapshotted)


def code_mode_build(hub: HubSources, out_dir: Path, cache: Cache) -> CodeModeBuild:
    """The code-mode package over the hub's servers, rendered unless proven unchanged: what `generate`
    writes, `--check` and `list` prove, and `sync` and `watch` publish."""
    from codegen.generate.code_mode import build_code_mode

    return build_code_mode(
        [(server.snapshot, server.method_names) for server in hub.servers], hub.settings, out_dir, cache
    )


def hub_is_stale(config: ProjectConfig, out_dir: Path, cache: Cache) -> bool:
    """Whether the hub under `out_dir` (or, with `code_mode = true`, the code-mode package beside it) is
    not what the committed snapshots give, proven as `--check` proves it; a hub that lacks a server
    counts as stale, so publishing the hub reports it."""
    hub = hub_sources(config)
    try:
        built = hub_rendered(hub, out_dir, cache)
        code = code_mode_build(hub, out_dir, cache) if config.code_mode else None
    except StubgenError:
        return True
    if built.lacking or stale_diff(built.rendered, cache, built.rendered.target.name):
        return True
    return code is not None and code.files != read_tree(code.target)
