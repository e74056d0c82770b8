"""Which saved code-mode scripts a catalog change breaks: each script is type-checked against the
stubs of the old catalogs and of the new ones, and a script with a diagnostic only the new stubs
give is broken by the change (as `drift --usage` names the application code a change reaches)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from codegen.config import ProjectConfig
from codegen.errors import StubgenError
from codegen.options import shown_path
from codegen.scripts.check import Diagnostic, check_scripts, choose_checker, read_scripts, script_files
from codegen.snapshot import Snapshot, load_snapshot


@dataclass(frozen=True)
class BrokenScript:
    path: str
    diagnostics: tuple[Diagnostic, ...]
    """What the new stubs report that the old ones did not."""


def broken_scripts(
    folder: Path, changes: Mapping[str, tuple[Snapshot, Snapshot]], config: ProjectConfig
) -> list[BrokenScript]:
    """The scripts under `folder` that type-check worse against the new catalogs than the old
    (`changes`: server -> (old, new)); the other configured servers keep their committed snapshots."""
    from codegen.generate.code_mode import module_stubs

    settings = config.hub_settings
    committed: dict[str, Snapshot] = {}
    for server in sorted(set(config.servers) - set(changes)):
        try:
            committed[server] = load_snapshot(config.snapshot_path(server))
        except StubgenError:
            continue  # a server without a snapshot has no module for either side
    old = {**committed, **{server: pair[0] for server, pair in changes.items()}}
    new = {**committed, **{server: pair[1] for server, pair in changes.items()}}

    def stubs(snapshots: Mapping[str, Snapshot]) -> dict[str, str]:
        return module_stubs(
            [(snapshot, config.method_names(server)) for server, snapshot in snapshots.items()], settings
        )

    checker = choose_checker()
    files = script_files(folder)
    scripts = read_scripts(files, {file: shown_path(file) for file in files})
    before = {_key(diagnostic) for diagnostic in check_scripts(scripts, stubs(old), checker)}
    after = [diagnostic for diagnostic in check_scripts(scripts, stubs(new), checker) if _key(diagnostic) not in before]
    paths = sorted({diagnostic.path for diagnostic in after})
    return [BrokenScript(path, tuple(item for item in after if item.path == path)) for path in paths]


def _key(diagnostic: Diagnostic) -> tuple[str, int, int, str]:
    return diagnostic.path, diagnostic.line, diagnostic.column, diagnostic.message


def describe(broken: Sequence[BrokenScript]) -> list[str]:
    """The lines drift prints: each diagnostic the change brings to a saved script."""
    return [
        f"{diagnostic} (a saved script this change breaks)" for script in broken for diagnostic in script.diagnostics
    ]
