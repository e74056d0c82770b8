"""Packages generated from real servers' catalogs are what black and ruff format write and pass
ruff's default rules, as the golden packages are (`test_generate_golden`, `test_generate_cache`).

The catalogs were snapshotted by `mcp-stubgen snapshot` into `tests/fixtures/catalogs/more/`:
excel-mcp-server 2.2.2 (pydantic models with long `Literal`s, long `Field(...)` calls, dict
defaults, strings holding both quotes, an `anyOf` of two enums), arxiv-mcp-server 0.8.2 (a tool
whose contract is 89 characters long) and server-notion (a union in a class's bases). Only the
tools that once came out wrong are generated, to keep the test quick.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import black
import pytest

from codegen.generate import render_snapshot
from codegen.generate.formatting import LINE_LENGTH, black_mode
from codegen.snapshot import load_snapshot

MORE = Path(__file__).resolve().parent / "fixtures" / "catalogs" / "more"
TOOLS = {
    "excel": (
        "add_conditional_format",  # an anyOf of two enums (PYI030); a string holding both quotes
        "create_chart",  # a long Literal; a long Field(...) after a wrapped annotation
        "create_pivot_table",
        "describe_sheet",  # an output default that is a long dict
        "describe_workbook",
        "set_sheet_layout",
        "set_table",
        "write_range",  # a description black quotes the other way
    ),
    "arxiv": ("list_watches",),  # `_CONTRACT = '...'` one character over the line
    "notion": ("API-patch-page",),  # a union in a class's bases split where it fits
}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The chosen tools of each catalog, generated into one folder."""
    folder = tmp_path_factory.mktemp("real")
    for server, names in TOOLS.items():
        snapshot = load_snapshot(MORE / f"{server}.json")
        tools = tuple(tool for tool in snapshot.tools if tool["name"] in names)
        assert len(tools) == len(names)
        for name, data in render_snapshot(dataclasses.replace(snapshot, tools=tools)).items():
            path = folder / server / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    return folder


def test_every_file_is_a_black_fixed_point(package: Path) -> None:
    mode = black_mode()
    unformatted = [
        path.relative_to(package).as_posix()
        for path in sorted(package.rglob("*.py"))
        if black.format_str(source := path.read_text(encoding="utf-8"), mode=mode) != source
    ]
    assert not unformatted


RUFF = [sys.executable, "-m", "ruff"]
OPTIONS = ["--isolated", "--no-cache", "--line-length", str(LINE_LENGTH), "."]
"""ruff as a user runs it on the output folder: its default rules, at the generator's line length."""


def test_ruff_format_leaves_every_file_as_it_is(package: Path) -> None:
    formatted = subprocess.run([*RUFF, "format", "--check", *OPTIONS], capture_output=True, text=True, cwd=package)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_ruffs_default_rules_find_nothing(package: Path) -> None:
    """Two enums in one `anyOf` are one `Literal`, not `Literal[...] | Literal[...]` (PYI030)."""
    checked = subprocess.run([*RUFF, "check", *OPTIONS], capture_output=True, text=True, cwd=package)
    assert checked.returncode == 0, checked.stdout + checked.stderr
