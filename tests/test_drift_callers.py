"""Drift's severities against `mypy --strict` on code that calls the package (benchmarks/drift_callers.py).

The release history in tests/fixtures/history is checked the way docs/drift.md's real pairs were: a
caller written mechanically from the old package, type-checked and run against the regenerated one;
every break must have a breaking or dangerous finding on its tool and field.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.drift_callers import check_pair
from codegen.drift import Severity
from tests.drift_helpers import obj, tool

pytestmark = pytest.mark.generated_mypy

HISTORY = Path(__file__).resolve().parent / "fixtures" / "history"
S = {"type": "string"}
INT = {"type": "integer"}


@pytest.mark.parametrize(
    ("old", "new", "broken"),
    [
        # the SDK upgrade: every tool gained an output schema, so `.text` on a result no longer type-checks
        ("filesystem-2025.8.21", "filesystem-2025.11.25", 14),
        ("filesystem-2026.7.4", "filesystem-2026.7.10", 1),
        ("everything-2025.11.25", "everything-2026.1.26", 110),
    ],
)
def test_every_break_of_a_typed_caller_in_the_release_history_has_a_finding(
    old: str, new: str, broken: int, tmp_path: Path
) -> None:
    result = check_pair(HISTORY / f"{old}.json", HISTORY / f"{new}.json", tmp_path / "pair")
    assert result.mypy_old == [], "the caller must type-check against the package it was written from"
    assert result.unwritten == {}
    assert len(result.breaks) == broken
    assert result.misses == {}


def _snapshot(path: Path, *tools: dict[str, object]) -> Path:
    path.write_text(
        json.dumps(
            {
                "format": 5,
                "server": "demo",
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "tools": list(tools),
            }
        )
    )
    return path


def test_a_break_rated_safe_is_a_miss_on_its_tool_and_field(tmp_path: Path) -> None:
    """A project that rates `out-property-removed` safe is told which calls that breaks."""
    old = _snapshot(
        tmp_path / "old.json",
        tool("stats", obj({"q": S}), obj({"count": INT, "total": INT}, ("count", "total"))),
    )
    new = _snapshot(
        tmp_path / "new.json",
        tool("stats", obj({"q": S}), obj({"count": INT}, ("count",))),
    )
    as_shipped = check_pair(old, new, tmp_path / "shipped")
    assert set(as_shipped.breaks) == {"tool stats"}
    assert as_shipped.misses == {}
    rated_safe = check_pair(old, new, tmp_path / "rated", severities={"out-property-removed": Severity.SAFE})
    [(side, error)] = rated_safe.misses["tool stats"]
    assert side == "output"
    assert '"total"' in error


def test_text_and_hint_findings_do_not_cover_a_break(tmp_path: Path) -> None:
    """filesystem 2025.11.25 gave every tool an output schema and changed hints and titles: rated safe,
    `out-schema-added` leaves each tool's broken `.text` read to findings about what a model reads."""
    result = check_pair(
        HISTORY / "filesystem-2025.8.21.json",
        HISTORY / "filesystem-2025.11.25.json",
        tmp_path / "pair",
        severities={"out-schema-added": Severity.SAFE},
    )
    assert len(result.misses) == 14
