"""Publishing a server's snapshot together with its package, and the hub beside them: what `sync`
and `watch` share, so an interrupted run leaves every server either fully old or fully new."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from codegen import console
from codegen.config import ProjectConfig
from codegen.errors import StubgenError
from codegen.fsutil import what_to_check
from codegen.generate.cache import Cache
from codegen.generate.pipeline import (
    PackageInputs,
    announce_package,
    announce_runtime,
    code_mode_dir,
    hub_dir,
    package_dir,
    publish_rendered,
    render_current,
)
from codegen.generate.publish import Published
from codegen.generate.runtime_folder import merged, prune_runtime, publish_runtime
from codegen.options import shown_path
from codegen.snapshot import Snapshot


class RuntimeChanges:
    """The output folder's runtime as one run changed it over its publications (each server's
    package, then the hub, then code mode, which each add what they import), reported once, at the
    run's end: one `_mcp_runtime` line, not one per step that touched it."""

    def __init__(self) -> None:
        self._changes: Published | None = None

    def add(self, published: Published) -> None:
        self._changes = published if self._changes is None else merged(self._changes, published)

    def announce(self) -> None:
        if self._changes is not None:
            announce_runtime(self._changes)
            self._changes = None


class PublishError(StubgenError):
    """A rendered package the file system (or a folder that is not ours) refused: unlike a catalog that
    cannot be rendered, it may publish once the user has done what the message says (`watch` tries again)."""


def publish_with_snapshot(
    snapshot: Snapshot, config: ProjectConfig, path: Path, output: Path, cache: Cache, runtime: RuntimeChanges
) -> Published:
    """Render a server's package (with the config's method names, renames and `strict`) and publish
    it and its snapshot file as one step (`sync` and `watch`), so neither is ever new beside the
    other's old version; raises `StubgenError`, and `PublishError` when only the publishing failed."""
    source = snapshot.canonical_bytes()
    inputs = PackageInputs(
        source,
        str(path),
        config.method_names(snapshot.server),
        config.renames(snapshot.server),
        config.sync_client,
        config.strict,
    )
    # As `generate` does, a package proven to be what these snapshot bytes render, beside a snapshot file
    # that holds them, is not rendered again (`render_current`: a strict run renders, to refuse untyped tools).
    rendered = render_current(inputs, output, cache, snapshot, prove=_holds(path, source))
    if rendered.files is None and rendered.target != package_dir(snapshot, output):
        rendered = render_current(inputs, output, cache, snapshot, prove=False)
    try:
        published = publish_runtime(output, coming=[] if rendered.files is None else [rendered.files])
        result = publish_rendered(rendered, cache, (path, source))
        runtime.add(prune_runtime(output, published))
        return result
    except OSError as error:
        raise PublishError(
            f"server {snapshot.server!r}: cannot write {rendered.target} and {path} ({error.strerror or error}); "
            f"{what_to_check(error)}"
        ) from None
    except StubgenError as error:  # a folder that is not ours to replace
        raise PublishError(error.message) from None


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def publish_hub(
    config: ProjectConfig, output: Path, cache: Cache, runtime: RuntimeChanges, listed: Collection[str]
) -> bool:
    """Regenerate the hub from every snapshot now on disk and report it; False when it could not be
    built, or lacks a server it should have.

    A server that could not be snapshotted or published keeps its previous snapshot and package, so
    the hub is still built from what is committed; one that never had a snapshot is left out, and said
    so: an error when this run was to list it (`listed`), else one warning naming what to run, since a
    user adding servers one at a time syncs each by name.
    """
    from codegen.generate.hub_build import (  # the hub's modules load only for a project with a hub
        hub_rendered,
        hub_sources,
        left_out_errors,
    )

    try:
        built = hub_rendered(hub_sources(config), output, cache)
        runtime.add(publish_runtime(output, with_hub=True))
        result = publish_rendered(built.rendered, cache)
    except StubgenError as error:
        console.error(str(error))
        console.emit(None, "error", error=str(error), package=shown_path(hub_dir(output)))
        return False
    announce_package(result.path.name, result)
    console.emit(None, "generated" if result.changed else "unchanged", package=shown_path(result.path))
    coded = not config.code_mode or publish_code_mode(config, output, cache, runtime)
    runtime.announce()  # after the packages that changed it, before what the hub lacks, as `generate` says them
    missing = left_out_errors(built.lacking, listed, listing=True)
    for message in missing:
        console.error(message)
        console.emit(None, "error", error=message, package=shown_path(result.path))
    return coded and not missing


def publish_code_mode(config: ProjectConfig, output: Path, cache: Cache, runtime: RuntimeChanges) -> bool:
    """Regenerate `<output>/code_mode/` from the snapshots on disk, as the hub is; False when it could not be."""
    from codegen.generate.hub_build import code_mode_build, hub_sources

    try:
        built = code_mode_build(hub_sources(config), output, cache)
        coming = [] if built.rendered.files is None else [built.rendered.files]
        published = publish_runtime(output, with_hub=True, coming=coming)  # with code mode's runtime files
        result = publish_rendered(built.rendered, cache)
        runtime.add(prune_runtime(output, published))
    except StubgenError as error:
        console.error(str(error))
        console.emit(None, "error", error=str(error), package=shown_path(code_mode_dir(output)))
        return False
    announce_package(result.path.name, result)
    console.emit(None, "generated" if result.changed else "unchanged", package=shown_path(result.path))
    return True
