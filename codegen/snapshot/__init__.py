"""The snapshot stage: `format` owns the canonical, versioned file, `discovery` lists a live server,
`command` is `mcp-stubgen snapshot`. The file format is this package's public face."""

from codegen.snapshot.format import (
    JSON,
    SNAPSHOT_FORMAT,
    Snapshot,
    canonical_json_bytes,
    fingerprint,
    load_snapshot,
    parse_snapshot,
    read_snapshot_bytes,
    write_snapshot,
)

__all__ = [
    "JSON",
    "SNAPSHOT_FORMAT",
    "Snapshot",
    "canonical_json_bytes",
    "fingerprint",
    "load_snapshot",
    "parse_snapshot",
    "read_snapshot_bytes",
    "write_snapshot",
]
