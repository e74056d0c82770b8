"""The generate stage: snapshot -> intermediate model -> rendered files -> published package folder."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from codegen.generate.build import build_package
from codegen.generate.cache import Cache
from codegen.generate.proof import remember_rendered, rendered_before
from codegen.generate.publish import Published, publish
from codegen.generate.render import render_package
from codegen.generate.runtime_folder import prune_runtime, publish_runtime
from codegen.identifiers import package_name
from codegen.snapshot import Snapshot

__all__ = ["Cache", "Published", "generate_package", "package_dir", "render_snapshot"]


def package_dir(snapshot: Snapshot, out_dir: Path) -> Path:
    """The folder a snapshot's package lives in: the server id in snake_case, under `out_dir`."""
    return out_dir / package_name(snapshot.server)


def render_snapshot(
    snapshot: Snapshot,
    method_names: Mapping[str, str] | None = None,
    cache: Cache | None = None,
    strict: bool = False,
    renames: Mapping[str, str] | None = None,
    sync_client: bool = True,
) -> dict[str, bytes]:
    """Every file of the snapshot's package, by relative path, without touching the disk.

    `cache` (default: none) reuses pieces of earlier runs; the bytes are the same either way.
    `strict` makes a tool no models can be generated for an error rather than an untyped method.
    `renames` (old tool name -> new) keeps each renamed tool's old method as a deprecated alias.
    `sync_client=False` leaves out the sync twin (`<Server>SyncClient` and `connect_sync`).
    """
    cache = cache or Cache.disabled()  # one for both stages: the renderer finds what the builder formatted
    return render_package(build_package(snapshot, method_names, cache, strict, renames, sync_client), cache)


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
    source = snapshot.canonical_bytes()
    unchanged = None if strict else rendered_before(source, method_names, out_dir, cache, renames, sync_client)
    if unchanged is not None:
        publish_runtime(out_dir)
        return Published(unchanged, False, (), ())
    target = package_dir(snapshot, out_dir)
    files = render_snapshot(snapshot, method_names, cache, strict, renames, sync_client)
    runtime = publish_runtime(out_dir, coming=[files])
    result = publish(files, target)
    prune_runtime(out_dir, runtime)
    remember_rendered(source, method_names, target, files, cache, renames, sync_client)
    return result
