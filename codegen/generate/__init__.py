"""The generate stage: snapshot -> intermediate model -> rendered files -> published package folder."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from codegen.generate.cache import Cache
from codegen.generate.pipeline import PackageInputs, package_dir, publish_rendered, render_current, render_snapshot
from codegen.generate.publish import Published
from codegen.generate.runtime_folder import prune_runtime, publish_runtime
from codegen.snapshot import Snapshot

__all__ = ["Cache", "Published", "generate_package", "package_dir", "render_snapshot"]


def generate_package(
    snapshot: Snapshot,
    out_dir: Path,
    method_names: Mapping[str, str] | None = None,
    cache: Cache | None = None,
    strict: bool = False,
    renames: Mapping[str, str] | None = None,
    sync_client: bool = True,
) -> Published:
    """Render the snapshot's package and publish it atomically under `out_dir`, beside the folder's
    runtime (written first, so the package never imports one older than itself); raises StubgenError.

    With a cache, a package this very generator wrote before and nobody edited since is left as it
    is without rendering anything (`proof.rendered_before`); not when `strict`, since such a package
    may hold untyped tools that `strict` must refuse.
    """
    cache = cache or Cache.disabled()
    inputs = PackageInputs(
        snapshot.canonical_bytes(), snapshot.server, method_names or {}, renames or {}, sync_client, strict
    )
    rendered = render_current(inputs, out_dir, cache, snapshot)
    runtime = publish_runtime(out_dir, coming=[] if rendered.files is None else [rendered.files])
    result = publish_rendered(rendered, cache)
    prune_runtime(out_dir, runtime)
    return result
