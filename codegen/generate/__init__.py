"""The generate stage: snapshot -> intermediate model -> rendered files -> published package folder."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from codegen.generate.build import build_package
from codegen.generate.publish import Published, diff_trees, publish, read_tree
from codegen.generate.render import render_package
from codegen.identifiers import package_name
from codegen.snapshot import Snapshot

__all__ = ["Published", "check_package", "generate_package", "package_dir", "render_snapshot"]


def package_dir(snapshot: Snapshot, out_dir: Path) -> Path:
    """The folder a snapshot's package lives in: the server id in snake_case, under `out_dir`."""
    return out_dir / package_name(snapshot.server)


def render_snapshot(snapshot: Snapshot, method_names: Mapping[str, str] | None = None) -> dict[str, bytes]:
    """Every file of the snapshot's package, by relative path, without touching the disk."""
    return render_package(build_package(snapshot, method_names))


def generate_package(snapshot: Snapshot, out_dir: Path, method_names: Mapping[str, str] | None = None) -> Published:
    """Render the snapshot's package and publish it atomically under `out_dir`; raises StubgenError."""
    return publish(render_snapshot(snapshot, method_names), package_dir(snapshot, out_dir))


def check_package(snapshot: Snapshot, out_dir: Path, method_names: Mapping[str, str] | None = None) -> str:
    """The unified diff from the committed package to what the snapshot produces; empty when current."""
    target = package_dir(snapshot, out_dir)
    return diff_trees(render_snapshot(snapshot, method_names), read_tree(target), target.as_posix())
