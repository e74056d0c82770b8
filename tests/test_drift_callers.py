"""Drift's severities against `mypy --strict` on code that calls the package (benchmarks/drift_callers.py).

The release history in tests/fixtures/history is checked the way docs/drift.md's real pairs were: a
caller written mechanically from the old package, type-checked and run against the regenerated one;
every break must have a breaking or dangerous finding on its tool and field.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.drift_callers import PairResult, observe_pair, rated
from codegen.drift import Severity
from tests.conftest import PYTHON
from tests.drift_helpers import obj, tool

pytestmark = pytest.mark.generated_mypy

HISTORY = Path(__file__).resolve().parent / "fixtures" / "history"
S = {"type": "string"}
INT = {"type": "integer"}


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path, Path], PairResult]:
    """A pair observed once for every rating a test asks of it: generating, running and type-checking
    its caller is the cost, and the severities change only how its breaks are matched."""
    seen: dict[tuple[Path, Path], PairResult] = {}

    def observe(old: Path, new: Path) -> PairResult:
        if (old, new) not in seen:
            seen[old, new] = observe_pair(old, new, tmp_path_factory.mktemp("pair"), python=PYTHON)
        return seen[old, new]

    return observe


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
    old: str, new: str, broken: int, observed: Callable[[Path, Path], PairResult]
) -> None:
    result = rated(observed(HISTORY / f"{old}.json", HISTORY / f"{new}.json"))
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


def test_a_break_rated_safe_is_a_miss_on_its_tool_and_field(
    tmp_path: Path, observed: Callable[[Path, Path], PairResult]
) -> None:
    """A project that rates `out-property-removed` safe is told which calls that breaks."""
    old = _snapshot(
        tmp_path / "old.json",
        tool("stats", obj({"q": S}), obj({"count": INT, "total": INT}, ("count", "total"))),
    )
    new = _snapshot(
        tmp_path / "new.json",
        tool("stats", obj({"q": S}), obj({"count": INT}, ("count",))),
    )
    as_shipped = rated(observed(old, new))
    assert set(as_shipped.breaks) == {"tool stats"}
    assert as_shipped.misses == {}
    rated_safe = rated(observed(old, new), {"out-property-removed": Severity.SAFE})
    [(side, error)] = rated_safe.misses["tool stats"]
    assert side == "output"
    assert '"total"' in error


def test_text_and_hint_findings_do_not_cover_a_break(observed: Callable[[Path, Path], PairResult]) -> None:
    """filesystem 2025.11.25 gave every tool an output schema and changed hints and titles: rated safe,
    `out-schema-added` leaves each tool's broken `.text` read to findings about what a model reads."""
    result = rated(
        observed(HISTORY / "filesystem-2025.8.21.json", HISTORY / "filesystem-2025.11.25.json"),
        {"out-schema-added": Severity.SAFE},
    )
    assert len(result.misses) == 14
