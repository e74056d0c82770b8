"""The benchmark of issue 5 runs end to end on the 10-tool catalog (no timing is asserted: CI machines vary)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_smoke_run_prints_the_table() -> None:
    result = subprocess.run(
        [sys.executable, "benchmarks/run.py", "--smoke"], capture_output=True, text=True, cwd=REPO, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0].startswith("| figure | value | baseline |"), result.stdout
    figures = [line.split(" | ")[0].lstrip("| ") for line in lines[2:] if line.startswith("| ")]
    assert "generate, 10 tools, nothing cached" in figures
    assert "generate again, catalog unchanged" in figures
    assert "generate --check, up to date, empty cache" in figures
    assert "generate --check, up to date, warm cache" in figures
    assert "snapshot, 8 servers starting in 0.5 s" in figures
    assert "200 sync client calls" in figures
    assert len(figures) == 12
    assert "peak memory of a cold 10-tool generate" in result.stdout


def test_hub_smoke_run_prints_every_figure() -> None:
    result = subprocess.run(
        [sys.executable, "benchmarks/hub.py", "--smoke"], capture_output=True, text=True, cwd=REPO, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    figures = [line.split(" | ")[0].lstrip("| ") for line in result.stdout.splitlines()[2:]]
    assert figures == [
        "shortlist, 44 tools (golden servers): median",
        "shortlist, 44 tools: 95th percentile",
        "search index build, 44 tools (first query only)",
        "shortlist, 1,000 tools: median",
        "shortlist, 1,000 tools: 95th percentile",
        "search index build, 1,000 tools (first query only)",
        "import the hub over 5 servers (20 tools)",
        "import one server's package",
    ]
