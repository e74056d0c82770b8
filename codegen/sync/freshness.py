"""How long a server said its last listing stays fresh (protocol 2026-07-28 `ttlMs`), so a `sync` within
that time need not start the server and list it again.

A record lives in the user's cache folder (`MCP_STUBGEN_CACHE_DIR`, beside the generate cache), never in
the project: the snapshot stays free of times. It holds when the listing stops being fresh and a hash of
the snapshot written from it, and is used only while the snapshot file still has those bytes. Its name is
a hash of how the server is reached, its expanded `env`, `envFile` and `headers` included, so a listing is
reused only for the same command and the same credentials (a `private` `cacheScope` is never shared with
another authorization context). An unreadable or damaged record is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from dataclasses import replace
from pathlib import Path

from codegen import __version__
from codegen.cache_dir import default_cache_dir
from codegen.config import ServerConfig, Timeouts, expand_headers, server_environment
from codegen.errors import StubgenError
from codegen.fsutil import atomic_write_bytes

_FOLDER = "listings-v1"


def _record_path(server: ServerConfig, snapshot: Path) -> Path | None:
    """Where the record of `server`'s listing into `snapshot` lives; None when its secrets cannot be
    read, or the snapshot's path resolved (a symbolic link loop: the listing then says why)."""
    try:
        env = server_environment(server)
        headers = expand_headers(server)
        resolved = snapshot.resolve()
    except (StubgenError, RuntimeError, OSError):
        return None
    identity = repr((__version__, str(resolved), replace(server, timeouts=Timeouts()), env, headers))
    return default_cache_dir() / _FOLDER / f"{hashlib.sha256(identity.encode()).hexdigest()}.json"


class Freshness:
    """The listing records `sync` reads and writes; `refresh` (`--refresh`) ignores the ones it reads."""

    def __init__(self, refresh: bool = False) -> None:
        self.refresh = refresh

    def fresh_for(self, server: ServerConfig, snapshot: Path) -> float:
        """How many more seconds the listing that wrote `snapshot` is fresh by the server's word; 0 when
        it is stale, was never recorded, the snapshot file changed since, or `refresh` is set."""
        record = None if self.refresh else _record_path(server, snapshot)
        if record is None:
            return 0.0
        try:
            content = json.loads(record.read_text(encoding="utf-8"))
            left = float(content["freshUntil"]) - time.time()
            if left <= 0 or content["sha256"] != hashlib.sha256(snapshot.read_bytes()).hexdigest():
                return 0.0
        except (OSError, ValueError, TypeError, KeyError):
            return 0.0
        return left

    def remember(self, server: ServerConfig, snapshot: Path, fresh_until: float | None) -> None:
        """Record that the snapshot now at `snapshot` stays fresh until `fresh_until` (seconds since the
        epoch); None forgets any earlier record. A cache folder that cannot be written is no error."""
        record = _record_path(server, snapshot)
        if record is None:
            return
        with contextlib.suppress(OSError):
            if fresh_until is None:
                record.unlink(missing_ok=True)
                return
            content = {"freshUntil": fresh_until, "sha256": hashlib.sha256(snapshot.read_bytes()).hexdigest()}
            record.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(record, json.dumps(content).encode(), durable=False)
