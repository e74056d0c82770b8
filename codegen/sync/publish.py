"""Publishing a server's snapshot together with its package, and the hub beside them: what `sync`
and `watch` share, so an interrupted run leaves every server either fully old or fully new."""

from __future__ import annotations

from pathlib import Path

from codegen import console
from codegen.config import ProjectConfig
from codegen.errors import StubgenError
from codegen.generate import Cache, Published, package_dir, render_snapshot
from codegen.generate.code_mode import build_code_mode, code_mode_dir, remember
from codegen.generate.command import announce_package, announce_runtime, build_hub, hub_sources, method_names_for
from codegen.generate.hub import hub_dir
from codegen.generate.proof import remember_rendered, rendered_before
from codegen.generate.publish import publish
from codegen.generate.runtime_folder import prune_runtime, publish_runtime
from codegen.identifiers import HUB_PACKAGE
from codegen.options import shown_path
from codegen.snapshot import Snapshot


def publish_with_snapshot(
    snapshot: Snapshot, config: ProjectConfig, path: Path, output: Path, cache: Cache
) -> Published:
    """Render a server's package (with the config's method names, renames and `strict`) and publish
    it and its snapshot file as one step (`sync` and `watch`), so neither is ever new beside the
    other's old version; raises `StubgenError`."""
    method_names, renames = method_names_for(config, snapshot.server), config.renames(snapshot.server)
    target = package_dir(snapshot, output)
    source = snapshot.canonical_bytes()
    # As `generate` does, a package proven to be what these snapshot bytes render, beside a snapshot file
    # that holds them, is not rendered again; a strict run renders, to refuse untyped tools.
    files = None
    proven = not config.strict and _holds(path, source)
    if not proven or rendered_before(source, method_names, output, cache, renames, config.sync_client) != target:
        files = render_snapshot(snapshot, method_names, cache, config.strict, renames, config.sync_client)
    try:
        runtime = publish_runtime(output, coming=[] if files is None else [files])
        if files is None:
            announce_runtime(runtime)
            return Published(target, False, (), ())
        result = publish(files, target, (path, source))
        announce_runtime(prune_runtime(output, runtime))
    except OSError as error:
        raise StubgenError(
            f"server {snapshot.server!r}: cannot write {target} and {path} ({error.strerror or error}); "
            "check the folders' permissions"
        ) from None
    remember_rendered(source, method_names, target, files, cache, renames, config.sync_client)
    return result


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def publish_hub(config: ProjectConfig, output: Path, cache: Cache) -> bool:
    """Regenerate the hub from every snapshot now on disk and report it; False when it could not be
    built, or lacks a server.

    A server that could not be snapshotted or published keeps its previous snapshot and package, so
    the hub is still built from what is committed; one that never had a snapshot is left out, and said so.
    """
    try:
        built = build_hub(hub_sources(config), output, cache)
        announce_runtime(publish_runtime(output, with_hub=True))
        result = publish(built.files, built.target) if built.files is not None else None
    except StubgenError as error:
        console.error(str(error))
        console.emit(None, "error", error=str(error), package=shown_path(hub_dir(output)))
        return False
    if built.files is not None:
        remember_rendered(built.source, {}, built.target, built.files, cache)
    announce_package(HUB_PACKAGE, built.target, result)
    changed = result is not None and result.changed
    console.emit(None, "generated" if changed else "unchanged", package=shown_path(built.target))
    for message in built.lacking:
        console.error(message)
        console.emit(None, "error", error=message, package=shown_path(built.target))
    return not built.lacking and (not config.code_mode or publish_code_mode(config, output, cache))


def publish_code_mode(config: ProjectConfig, output: Path, cache: Cache) -> bool:
    """Regenerate `<output>/code_mode/` from the snapshots on disk, as the hub is; False when it could not be."""
    sources, settings = hub_sources(config)
    try:
        built = build_code_mode(sources, settings, output, cache)
        result = publish(built.files, built.target) if built.files is not None else None
    except StubgenError as error:
        console.error(str(error))
        console.emit(None, "error", error=str(error), package=shown_path(code_mode_dir(output)))
        return False
    remember(built, cache)
    announce_package(built.target.name, built.target, result)
    changed = result is not None and result.changed
    console.emit(None, "generated" if changed else "unchanged", package=shown_path(built.target))
    return True
