"""Publishing a server's snapshot together with its package, and the hub beside them: what `sync`
and `watch` share, so an interrupted run leaves every server either fully old or fully new."""

from __future__ import annotations

from pathlib import Path

from codegen import console
from codegen.config import ProjectConfig
from codegen.errors import StubgenError
from codegen.generate.cache import Cache
from codegen.generate.hub import hub_dir
from codegen.generate.hub_build import hub_rendered, hub_sources
from codegen.generate.pipeline import PackageInputs, announce_package, publish_rendered, render_current
from codegen.generate.publish import Published
from codegen.generate.runtime_folder import publish_runtime
from codegen.identifiers import HUB_PACKAGE
from codegen.options import shown_path
from codegen.snapshot import Snapshot


def publish_with_snapshot(
    snapshot: Snapshot, config: ProjectConfig, path: Path, output: Path, cache: Cache
) -> Published:
    """Render a server's package (with the config's method names, renames and `strict`) and publish
    it and its snapshot file as one step (`sync` and `watch`), so neither is ever new beside the
    other's old version; raises `StubgenError`."""
    source = snapshot.canonical_bytes()
    inputs = PackageInputs(
        source,
        str(path),
        config.method_names(snapshot.server),
        config.renames(snapshot.server),
        config.sync_client,
        config.strict,
    )
    rendered = render_current(inputs, output, cache, snapshot, prove=False)
    try:
        publish_runtime(output)
        return publish_rendered(rendered, cache, (path, source))
    except OSError as error:
        raise StubgenError(
            f"server {snapshot.server!r}: cannot write {rendered.target} and {path} ({error.strerror or error}); "
            "check the folders' permissions"
        ) from None


def publish_hub(config: ProjectConfig, output: Path, cache: Cache) -> bool:
    """Regenerate the hub from every snapshot now on disk and report it; False when it could not be
    built, or lacks a server.

    A server that could not be snapshotted or published keeps its previous snapshot and package, so
    the hub is still built from what is committed; one that never had a snapshot is left out, and said so.
    """
    try:
        built = hub_rendered(hub_sources(config), output, cache)
        publish_runtime(output, with_hub=True)
        result = publish_rendered(built.rendered, cache)
    except StubgenError as error:
        console.error(str(error))
        console.emit(None, "error", error=str(error), package=shown_path(hub_dir(output)))
        return False
    announce_package(HUB_PACKAGE, result)
    console.emit(None, "generated" if result.changed else "unchanged", package=shown_path(result.path))
    for message in built.lacking:
        console.error(message)
        console.emit(None, "error", error=message, package=shown_path(result.path))
    return not built.lacking
