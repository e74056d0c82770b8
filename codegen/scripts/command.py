"""`mcp-stubgen check-scripts [DIR]`: type-check saved code-mode scripts against the current stubs."""

from __future__ import annotations

from pathlib import Path

import click

from codegen import console
from codegen.config import ProjectConfig
from codegen.errors import EXIT_FINDINGS, EXIT_OK
from codegen.options import config_options, load_project, shown_path
from codegen.scripts.check import (
    CHECKERS,
    Checker,
    Diagnostic,
    check_scripts,
    choose_checker,
    read_scripts,
    script_files,
)


def current_stubs(config: ProjectConfig) -> dict[str, str]:
    """Every configured server's code-mode stub, from its committed snapshot; a server without a usable
    snapshot is a `StubgenError` naming it."""
    from codegen.generate.code_mode import module_stubs
    from codegen.generate.hub_build import hub_sources
    from codegen.snapshot import load_snapshot

    hub = hub_sources(config)
    return module_stubs([(load_snapshot(server.snapshot), server.method_names) for server in hub.servers], hub.settings)


def check_folder(folder: Path, stubs: dict[str, str], checker: Checker) -> tuple[int, list[Diagnostic]]:
    """How many scripts the folder holds, and every diagnostic against `stubs`."""
    files = script_files(folder)
    return len(files), check_scripts(read_scripts(files, {file: shown_path(file) for file in files}), stubs, checker)


@click.command("check-scripts")
@click.argument("folder", required=False, type=click.Path(path_type=Path))
@click.option(
    "--checker",
    type=click.Choice(("auto", *CHECKERS)),
    default="auto",
    show_default=True,
    help="The type checker: pydantic-monty's (what run_code applies) when installed, else mypy.",
)
@config_options
def check_scripts_command(
    folder: Path | None, checker: str, config_path: Path | None, servers_file: Path | None
) -> int:
    """Type-check the saved code-mode scripts in FOLDER (default: `scripts` in the config) against the
    stubs the committed snapshots give; exit 1 with `file:line:column` diagnostics when any fails."""
    config = load_project(config_path, servers_file)
    folder = folder or config.scripts
    if folder is None:
        raise config.missing('set `scripts = "agent_scripts"` (the folder of saved scripts) or pass the folder')
    chosen = choose_checker(checker)
    count, diagnostics = check_folder(folder, current_stubs(config), chosen)
    for diagnostic in diagnostics:
        console.result(str(diagnostic))
    failing = len({diagnostic.path for diagnostic in diagnostics})
    if failing:
        console.note(f"{failing} of {count} script(s) in {shown_path(folder)} fail the type check ({chosen})")
        return EXIT_FINDINGS
    if count == 0:
        console.note(f"no scripts in {shown_path(folder)}")
    else:
        console.note(f"{count} script(s) in {shown_path(folder)} pass the type check ({chosen})")
    return EXIT_OK
