"""The one sequence every command turns a snapshot into a package folder by: prove current, else
render; publish; record as current. `generate`, `generate --check`, `sync`, `watch` and `view` all
go through here, so a package one of them wrote is proven current by every other (`proof`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codegen import console
from codegen.generate.cache import Cache
from codegen.generate.proof import RenderKey, remember_rendered, rendered_before
from codegen.generate.publish import MARKER, Published, Tree, diff_trees, publish, read_tree
from codegen.generate.runtime_folder import RUNTIME_PACKAGE
from codegen.identifiers import CODE_MODE_PACKAGE, HUB_PACKAGE, package_name
from codegen.options import shown_path
from codegen.snapshot import Snapshot, parse_snapshot

if TYPE_CHECKING:
    from codegen.generate.last_render import LastRender

__all__ = [
    "PackageInputs",
    "Rendered",
    "announce_package",
    "announce_runtime",
    "note_stray_packages",
    "package_dir",
    "package_label",
    "publish_rendered",
    "render_current",
    "render_snapshot",
    "stale_diff",
    "stray_packages",
]


def package_dir(snapshot: Snapshot, out_dir: Path) -> Path:
    """The folder a snapshot's package lives in: the server id in snake_case, under `out_dir`."""
    return out_dir / package_name(snapshot.server)


def hub_dir(out_dir: Path) -> Path:
    """The hub package's folder, beside the servers' packages."""
    return out_dir / HUB_PACKAGE


def code_mode_dir(out_dir: Path) -> Path:
    """The code-mode package's folder, beside the hub's."""
    return out_dir / CODE_MODE_PACKAGE


def stray_packages(out_dir: Path, kept: Collection[str]) -> list[Path]:
    """Folders of `out_dir` that hold a package mcp-stubgen generated (a `client.py` starting with its
    header) under a name not `kept`: the package of a server removed from the config or renamed,
    which nothing regenerates or checks any more. Links and hidden folders are not looked into."""
    strays = []
    for folder in sorted(out_dir.iterdir()) if out_dir.is_dir() else ():
        if folder.name in kept or folder.name.startswith((".", "_")) or folder.is_symlink():
            continue
        try:
            descriptor = os.open(folder / "client.py", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        with open(descriptor, "rb") as client:
            if stat.S_ISREG(os.fstat(descriptor).st_mode) and client.read(len(MARKER)) == MARKER:
                strays.append(folder)
    return strays


def note_stray_packages(out_dir: Path, kept: Collection[str]) -> None:
    """A `note:` for each stray package: it is kept (it may be imported), but no longer current."""
    for folder in stray_packages(out_dir, kept):
        console.note(
            f"note: {shown_path(folder)} holds a generated package of no server in this config (removed, "
            "renamed, or another config's?); nothing here regenerates or checks it: delete it, and its "
            "snapshot, if that server is gone"
        )


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
    return _render(snapshot, method_names or {}, cache or Cache.disabled(), strict, renames or {}, sync_client)[0]


def _render(
    snapshot: Snapshot,
    method_names: Mapping[str, str],
    cache: Cache,
    strict: bool,
    renames: Mapping[str, str],
    sync_client: bool,
    source: bytes | None = None,
) -> tuple[dict[str, bytes], LastRender | None]:
    """`render_snapshot`, and the record a later render can redo changed tools from (`last_render`)
    when `source`, the snapshot file's bytes, is given and the render can be described."""
    from codegen.generate.build import build_package, warn_unmatched_method_names  # not for a package proven current
    from codegen.generate.package_plan import plan_package
    from codegen.generate.parallel import fewer_collections
    from codegen.generate.render import render_package_in_chunks

    warn_unmatched_method_names(snapshot, method_names, renames)
    with fewer_collections():
        plan = plan_package(snapshot, method_names)
        package = build_package(snapshot, method_names, cache, strict, renames, sync_client, plan)
        files, chunks = render_package_in_chunks(package, cache)
    if source is None:
        return files, None
    from codegen.generate.last_render import describe_render

    return files, describe_render(source, snapshot, plan, package, chunks, method_names, renames)


@dataclass(frozen=True)
class PackageInputs:
    """One server's package as its config gives it: the snapshot bytes and the settings that change it."""

    source: bytes
    """The snapshot file's bytes."""
    origin: str
    """Where they were read from, for a parse error's message."""
    method_names: Mapping[str, str]
    renames: Mapping[str, str]
    sync_client: bool = True
    strict: bool = False

    @property
    def key(self) -> RenderKey:
        return RenderKey(self.source, self.method_names, self.renames, self.sync_client)


@dataclass(frozen=True)
class Rendered:
    """A package ready to publish or compare: `files` is None when its folder is proven current."""

    target: Path
    files: dict[str, bytes] | None
    key: RenderKey
    """What it was rendered from: its record is kept under this once it is published or compared."""
    server: str | None = None
    """The server its snapshot names (None for the hub and code mode): parsed to render it, or kept in
    the record that proved it current (`proof.Proven`)."""
    last_render: LastRender | None = None
    """The record a later render can redo changed tools from (`last_render`), kept once it is published
    or compared."""
    folder: Tree | None = None
    """The package folder's files as read to render it, when they were (a redone render reads them)."""
    unchanged: Mapping[str, bytes] | None = None
    """The `content_hashes` of the files taken from `folder` unchanged."""


def load_renderer() -> None:
    """Load what rendering a package from nothing loads: the builder, black, the package's templates
    (compiled, unless the template cache has them), and datamodel-code-generator, whose parser and
    model modules load on first use (so it generates one small model). `sync` calls it while its
    servers start when a package is new: this runs beside the servers' start-up rather than after
    their answers, and the forked workers inherit it."""
    import black  # noqa: F401

    from codegen.generate import build  # noqa: F401
    from codegen.generate.modelgen import run_datamodel
    from codegen.generate.templating import jinja_environment

    run_datamodel([{"name": "warm_up", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}])
    templates = jinja_environment()
    for name in templates.list_templates(extensions=["jinja"]):
        if not name.startswith(("hub_", "code_mode_")):  # the hub's and code mode's
            templates.get_template(name)


def _load_models_beside() -> None:
    """Start a worker loading the method templates, beside parsing and planning here, for a package
    rendered again into an output folder with a warm cache: few of its tools, if any, need models
    made, and in-process those imports were a third of a 1,000-tool run with one tool changed
    (`parallel.warm_up`; a no-op outside a command's `warm_workers`). datamodel-code-generator loads
    there only for a tool the plain path leaves to it (`load_method_builders`)."""
    from codegen.generate.parallel import warm_up
    from codegen.generate.tool_workers import load_builders, load_method_builders

    warm_up(load_builders, start=load_method_builders)


def render_current(
    inputs: PackageInputs, out_dir: Path, cache: Cache, snapshot: Snapshot | None = None, prove: bool = True
) -> Rendered:
    """The package proven current from its inputs and the generator (`proof.rendered_before`), else
    redone from its last render for the tools whose text changed (`last_render`), else rendered;
    `snapshot` is the parsed `inputs.source` when the caller has it. `strict` always renders whole: a
    package proven current or redone may hold untyped tools, which `strict` must refuse; `prove=False`
    never proves, for a package published together with its snapshot file (`sync`). Raises
    `StubgenError`."""
    if prove and not inputs.strict:
        proven = rendered_before(inputs.key, out_dir, cache)
        if proven is not None:
            return Rendered(proven.folder, None, inputs.key, proven.server)
    if not inputs.strict and not inputs.renames and cache.holds_entries():
        from codegen.generate.last_render import redo_changed_tools

        redone = redo_changed_tools(inputs, out_dir, cache)
        if redone is not None:
            return redone
    from codegen.generate.parallel import fewer_collections

    with fewer_collections():  # before a fork, so that neither process's collections touch what they share
        if cache.holds_entries() and (out_dir / RUNTIME_PACKAGE).is_dir():
            _load_models_beside()
        snapshot = snapshot or parse_snapshot(inputs.source, inputs.origin)
        files, described = _render(
            snapshot, inputs.method_names, cache, inputs.strict, inputs.renames, inputs.sync_client, inputs.source
        )
    return Rendered(package_dir(snapshot, out_dir), files, inputs.key, snapshot.server, described)


def publish_rendered(rendered: Rendered, cache: Cache, snapshot_file: tuple[Path, bytes] | None = None) -> Published:
    """Publish a rendered package atomically (with `snapshot_file`, path and bytes, in the same step),
    then record it as current; a package proven current is left as it is."""
    if rendered.files is None:
        return Published(rendered.target, False, (), ())
    result = publish(rendered.files, rendered.target, snapshot_file, rendered.folder)
    _remember(rendered, cache)
    return result


def stale_diff(rendered: Rendered, cache: Cache, label: str) -> str:
    """The diff from the package folder to what was rendered (`label` names the folder in it), empty
    when current; what was rendered is recorded, so the next check proves it without rendering."""
    if rendered.files is None:
        return ""
    _remember(rendered, cache)
    folder = rendered.folder if rendered.folder is not None else read_tree(rendered.target)
    return diff_trees(rendered.files, folder, label)


def _remember(rendered: Rendered, cache: Cache) -> None:
    """Record what was rendered as current (`proof`), and its last render (`last_render`)."""
    assert rendered.files is not None
    digest = remember_rendered(
        rendered.key, rendered.target, rendered.files, cache, rendered.server, rendered.unchanged
    )
    if rendered.last_render is not None:
        from codegen.generate.last_render import remember_last_render

        key = rendered.key
        remember_last_render(rendered.last_render, digest, key.method_names or {}, key.sync_client, cache)


def package_label(target: Path) -> str:
    """A package folder as a diff names it: relative to the working directory, so the diff applies there."""
    return Path(shown_path(target)).as_posix()


def announce_package(server: str, published: Published) -> None:
    """A package's line, in the words `generate` and `sync` share: `<server>: generated <folder>
    (what changed)`, or `<server>: unchanged <folder>`, as a snapshot's line says it."""
    target = published.path
    if published.changed:
        detail = f"{len(published.written)} file(s) written, {len(published.removed)} removed"
        console.note(f"{server}: generated {shown_path(target)} ({detail})")
    else:
        console.note(f"{server}: unchanged {shown_path(target)}")


def announce_runtime(runtime: Published) -> None:
    """The output folder's runtime line, only when it changed: it follows the generator and the
    packages' needs, not any snapshot."""
    if runtime.changed:
        announce_package(RUNTIME_PACKAGE, runtime)
        changes = {"written": list(runtime.written), "removed": list(runtime.removed)}
        console.emit(None, "generated", snapshot=None, package=package_label(runtime.path), **changes)
