"""A snapshot summed up for people and for `--format json` (its counts, one line describing it), and
the two judgements every command that takes a snapshot shares: a list method declared but missing,
and a listing that would empty the committed snapshot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegen import console
from codegen.snapshot import Snapshot

if TYPE_CHECKING:
    from codegen.config import ServerConfig

__all__ = ["counts", "describe", "emptied", "warn_unlisted_methods"]


def describe(snapshot: Snapshot) -> str:
    counts = [
        (len(snapshot.tools), "tool"),
        (len(snapshot.resources), "resource"),
        (len(snapshot.resource_templates), "template"),
        (len(snapshot.prompts), "prompt"),
    ]
    listed = ", ".join(f"{count} {noun}{'' if count == 1 else 's'}" for count, noun in counts)
    return f"{listed}; protocol {snapshot.protocol_version}"


def warn_unlisted_methods(snapshot: Snapshot, server: ServerConfig) -> None:
    """One warning line per list method the server declared that the snapshot holds nothing of: not
    implemented by the server, or left out by its config (or `--skip-list`, ad hoc)."""
    for method in snapshot.missing_methods:
        console.warn(
            f"server {snapshot.server!r}: {method} is declared but not implemented "
            "(-32601 Method not found); recorded as empty"
        )
    skipped_by = server.advise("skip_lists in its config", "--skip-list")
    for method in snapshot.skipped_lists:
        console.warn(
            f"server {snapshot.server!r}: {method} was not called ({skipped_by}); "
            "what it lists is not in the snapshot or the package"
        )


def counts(snapshot: Snapshot) -> dict[str, int]:
    """How many entries of each kind a snapshot lists, as `--format json` objects give them."""
    return {
        "tools": len(snapshot.tools),
        "resources": len(snapshot.resources),
        "templates": len(snapshot.resource_templates),
        "prompts": len(snapshot.prompts),
    }


def emptied(old: Snapshot, new: Snapshot) -> str | None:
    """Why `new` must not replace the committed `old` unasked: it lists nothing where `old` listed
    something, or lost the server's `serverInfo`. Either is far likelier a server that did not start
    properly (or a listing that came back empty) than a server that really is empty now."""
    if any(counts(old).values()) and not any(counts(new).values()):
        listed = describe(old).partition(";")[0]
        return f"the server listed no tools, resources, templates or prompts, where the committed snapshot has {listed}"
    if old.server_info is not None and new.server_info is None:
        return "the server sent no serverInfo, which the committed snapshot records"
    return None
