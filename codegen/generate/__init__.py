"""The generate stage: snapshot -> intermediate model -> rendered files -> published package folder."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from codegen.generate.build import build_package, plan_package
from codegen.generate.cache import Cache
from codegen.generate.headers import proves_current
from codegen.generate.publish import Published, diff_trees, publish, read_tree
from codegen.generate.render import RUNTIME_FILE, render_package, runtime_source
from codegen.identifiers import package_name
from codegen.snapshot import Snapshot

__all__ = [
    "Cache",
    "Published",
    "check_package",
    "generate_package",
    "is_current",
    "package_dir",
    "render_snapshot",
]


def package_dir(snapshot: Snapshot, out_dir: Path) -> Path:
    """The folder a snapshot's package lives in: the server id in snake_case, under `out_dir`."""
    return out_dir / package_name(snapshot.server)


def render_snapshot(
    snapshot: Snapshot, method_names: Mapping[str, str] | None = None, cache: Cache | None = None
) -> dict[str, bytes]:
    """Every file of the snapshot's package, by relative path, without touching the disk.

    `cache` (default: none) reuses pieces of earlier runs; the bytes are the same either way.
    """
    return render_package(build_package(snapshot, method_names, cache), cache)


def generate_package(
    snapshot: Snapshot, out_dir: Path, method_names: Mapping[str, str] | None = None, cache: Cache | None = None
) -> Published:
    """Render the snapshot's package and publish it atomically under `out_dir`; raises StubgenError."""
    return publish(render_snapshot(snapshot, method_names, cache), package_dir(snapshot, out_dir))


def is_current(snapshot: Snapshot, folder: Path, method_names: Mapping[str, str] | None = None) -> bool:
    """Prove from the files' headers alone that `folder` holds what the snapshot generates.

    Only names and hashes are computed, no models and no black: every module must carry the inputs
    key it would be generated with and a content hash that still matches, and the folder must hold
    exactly the expected files. False means "not proven", and the caller renders to find out.
    """
    plan = plan_package(snapshot, method_names)
    committed = read_tree(folder)
    expected_keys = {name: plan.inputs_key for name in ("__init__.py", "client.py", "models.py", "_models/__init__.py")}
    expected_keys |= {f"_models/{tool.named.python}.py": tool.inputs_key for tool in plan.tools}
    if set(committed) != {*expected_keys, RUNTIME_FILE, "py.typed"}:
        return False
    if committed[RUNTIME_FILE] != runtime_source() or committed["py.typed"] != b"":
        return False
    return all(proves_current(committed[name], key) for name, key in expected_keys.items())


def check_package(
    snapshot: Snapshot, out_dir: Path, method_names: Mapping[str, str] | None = None, cache: Cache | None = None
) -> str:
    """The unified diff from the committed package to what the snapshot produces; empty when current."""
    target = package_dir(snapshot, out_dir)
    if is_current(snapshot, target, method_names):
        return ""
    return diff_trees(render_snapshot(snapshot, method_names, cache), read_tree(target), target.as_posix())
