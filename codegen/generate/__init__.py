"""The generate stage: snapshot -> intermediate model -> rendered files -> published package folder."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from codegen.errors import StubgenError
from codegen.generate.build import build_package, plan_package
from codegen.generate.cache import Cache, cache_key
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
    "remember_rendered",
    "render_snapshot",
    "rendered_before",
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
    cache = cache or Cache.disabled()  # one for both stages: the renderer finds what the builder formatted
    return render_package(build_package(snapshot, method_names, cache), cache)


def generate_package(
    snapshot: Snapshot, out_dir: Path, method_names: Mapping[str, str] | None = None, cache: Cache | None = None
) -> Published:
    """Render the snapshot's package and publish it atomically under `out_dir`; raises StubgenError.

    With a cache, a package this very generator wrote before and nobody edited since is left as it
    is without rendering anything (see `rendered_before`).
    """
    cache = cache or Cache.disabled()
    source = snapshot.canonical_bytes()
    unchanged = rendered_before(source, method_names, out_dir, cache)
    if unchanged is not None:
        return Published(unchanged, False, (), ())
    target = package_dir(snapshot, out_dir)
    files = render_snapshot(snapshot, method_names, cache)
    result = publish(files, target)
    remember_rendered(source, method_names, target, files, cache)
    return result


def _record_key(source: bytes, method_names: Mapping[str, str] | None) -> str:
    overrides = json.dumps(sorted((method_names or {}).items()), ensure_ascii=False)
    return cache_key("rendered-from", hashlib.sha256(source).hexdigest(), overrides)


def _tree_digest(files: Mapping[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode("utf-8") + b"\0" + hashlib.sha256(files[name]).digest())
    return digest.hexdigest()


def remember_rendered(
    source: bytes, method_names: Mapping[str, str] | None, folder: Path, files: Mapping[str, bytes], cache: Cache
) -> None:
    """Note in the cache that this generator (its code is part of every key) rendered the snapshot
    bytes `source` into exactly `files`, in `folder`."""
    cache.put(_record_key(source, method_names), json.dumps([folder.name, _tree_digest(files)]))


def rendered_before(source: bytes, method_names: Mapping[str, str] | None, out_dir: Path, cache: Cache) -> Path | None:
    """The package folder under `out_dir` when this generator rendered the snapshot bytes `source`
    into it and it still holds exactly that tree, else None.

    Generating is a function of the snapshot's bytes, the method names and the generator (whose
    code and versions are in every cache key), so a package proven this way needs no parsing,
    planning or rendering: an unchanged build step costs reading its files. A hand edit, a new or a
    missing file changes the tree and is rendered over. Headers alone could not tell a generator
    whose code changed under the same version number (a development checkout) from the one that
    wrote them.
    """
    record = cache.get(_record_key(source, method_names))
    try:
        name, digest = json.loads(record or "null")
    except (ValueError, TypeError):
        return None  # no record, or one damaged by hand: a miss, like any unreadable cache entry
    if not isinstance(name, str) or Path(name).name != name:
        return None
    folder = out_dir / name
    return folder if _tree_digest(read_tree(folder)) == digest else None


def is_current(snapshot: Snapshot, folder: Path, method_names: Mapping[str, str] | None = None) -> bool:
    """Prove from the files' headers alone that `folder` holds what the snapshot generates.

    Only names and hashes are computed, no models and no black: every module must carry the inputs
    key it would be generated with and a content hash that still matches, and the folder must hold
    exactly the expected files. False means "not proven", and the caller renders to find out.
    """
    try:
        plan = plan_package(snapshot, method_names, check=False)
    except StubgenError:
        return False  # rendering reports it, after the catalog checks this skipped
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
