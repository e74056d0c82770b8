"""Whether a package folder holds what the generator would write: the one proof `generate` (to skip
work) and `generate --check` (to pass CI) rely on, for the servers' packages and the hub alike.

Nothing a checked folder says about itself counts: a header, a hash in a comment, a file's date can
all be edited along with the code. What counts is a record the generator keeps in the user's cache
each time it renders: "these snapshot bytes and method names render to the tree with this digest".
Its key is a hash of exactly those inputs and of the generator itself (`cache_key`: versions and the
generator's own code), so it is derived from the snapshot and the generator, never from the checked
files; its value was computed from what the generator rendered. A folder whose files (read without
following a symlink, `read_tree`) have that digest is proven current without parsing, planning or
rendering anything. Without a record (a fresh clone, an empty cache, `--no-cache`) the package is
rendered and compared, and the record written for next time.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from codegen.generate.cache import Cache, cache_key
from codegen.generate.publish import read_tree

if TYPE_CHECKING:
    from codegen.config import HubSettings

__all__ = [
    "Proven",
    "RenderKey",
    "content_hashes",
    "hub_source",
    "remember_rendered",
    "rendered_before",
    "source_digest",
    "tree_digest",
]


class RenderKey(NamedTuple):
    """Everything a package is rendered from, and so what its record is kept under: the snapshot
    bytes (or a `hub_source`) and the settings that change the package."""

    source: bytes
    method_names: Mapping[str, str] | None = None
    renames: Mapping[str, str] | None = None
    """Stated renames: the deprecated aliases they keep are part of the package."""
    sync_client: bool = True


class Proven(NamedTuple):
    """A package folder proven current, and the server its snapshot names (None for the hub and code
    mode), kept in the record so that a proven package's snapshot is never parsed."""

    folder: Path
    server: str | None


def _record_key(key: RenderKey) -> str:
    overrides = json.dumps(sorted((key.method_names or {}).items()), ensure_ascii=False)
    if key.renames:
        overrides += json.dumps(sorted(key.renames.items()), ensure_ascii=False)
    if not key.sync_client:
        overrides += "\0no sync client"
    return cache_key("rendered-from", source_digest(key.source), overrides)


@functools.lru_cache(maxsize=4)
def source_digest(source: bytes) -> str:
    """The SHA-256 of a package's source (snapshot bytes or a `hub_source`), made once a run: its record
    is looked up and written under it, and a redo's snapshot fingerprint is its first 16 digits (three
    hashes of a 5 MB snapshot were a fiftieth of a redo). Keyed by the bytes, which Python hashes once;
    four kept, so a long `watch` holds no more."""
    return hashlib.sha256(source).hexdigest()


def content_hashes(files: Mapping[str, bytes | None]) -> dict[str, bytes]:
    """Each entry's hash as `tree_digest` hashes it, by relative path."""
    return {name: _content_hash(data) for name, data in files.items()}


def _content_hash(data: bytes | None) -> bytes:
    return b"not a regular file" if data is None else hashlib.sha256(data).digest()


def tree_digest(files: Mapping[str, bytes | None], known: Mapping[str, bytes] | None = None) -> str:
    """One hash of a whole package: every entry's relative path and bytes (None: not a regular file).
    `known` holds the `content_hashes` of entries the caller hashed before and knows unchanged."""
    known = known or {}
    digest = hashlib.sha256()
    for name, data in sorted(files.items()):
        content = known.get(name) or _content_hash(data)
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + content)
    return digest.hexdigest()


def hub_source(snapshots: Sequence[tuple[bytes, Mapping[str, str]]], settings: HubSettings) -> bytes:
    """What the hub is rendered from, as one text to key its record with: its settings, then each
    server's snapshot bytes, hashed, with its method names."""
    filters = {
        server: [list(rule.include), list(rule.exclude), sorted(rule.annotations.items())]
        for server, rule in settings.filters.items()
    }
    parts: list[object] = [[settings.separator, filters, settings.live_tools]]
    parts += [[hashlib.sha256(source).hexdigest(), sorted(method_names.items())] for source, method_names in snapshots]
    return b"hub\0" + json.dumps(parts, ensure_ascii=False).encode("utf-8")


def remember_rendered(
    key: RenderKey,
    folder: Path,
    files: Mapping[str, bytes],
    cache: Cache,
    server: str | None = None,
    known: Mapping[str, bytes] | None = None,
) -> str:
    """Record that this generator rendered `key` (snapshot bytes or a `hub_source`, method names,
    renames, sync twin or none) into exactly `files`, for the folder `folder`, from a snapshot of
    `server` (None: the hub, code mode); the files' `tree_digest` (`known` as it takes it)."""
    digest = tree_digest(files, known)
    cache.put(_record_key(key), json.dumps([folder.name, digest, server]))
    return digest


def rendered_before(key: RenderKey, out_dir: Path, cache: Cache) -> Proven | None:
    """The package folder under `out_dir` when this generator rendered `key` into it and it holds
    exactly that tree now, else None ("not proven": render to find out).

    A hand edit, a new or missing file, or a symlink changes the tree. A record damaged by hand is a
    miss, like any unreadable cache entry.
    """
    record = cache.get(_record_key(key))
    try:
        name, digest, server = json.loads(record or "null")
    except (ValueError, TypeError):
        return None
    if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
        return None
    if not isinstance(server, str | type(None)):
        return None
    folder = out_dir / name
    return Proven(folder, server) if tree_digest(read_tree(folder)) == digest else None
