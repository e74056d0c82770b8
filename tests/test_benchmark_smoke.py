"""The benchmark of issue 5 runs end to end on the 10-tool catalog (no timing is asserted: CI machines vary).

The scripts that import the MCP SDK run as `PYTHON` (a fork of a process that imported it, docs/development.md);
the commands they time still start as fresh interpreters (`sys.executable`), their CPU counted as a user's run would be."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import PYTHON

REPO = Path(__file__).resolve().parent.parent


def test_smoke_run_prints_the_table() -> None:
    result = subprocess.run(
        [PYTHON, "benchmarks/run.py", "--smoke"], capture_output=True, text=True, cwd=REPO, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert lines[0].startswith("| figure | value | CPU | baseline | baseline value | baseline CPU |"), result.stdout
    rows = [line.split(" | ") for line in lines[2 : lines.index("")] if line.startswith("| ")]
    figures = [row[0].lstrip("| ") for row in rows]
    # every generate row prints CPU (the command and its workers) beside wall, for both sides (one
    # against an absolute line, for its own)
    generate_rows = [row for row in rows if row[0].lstrip("| ").startswith("generate")]
    assert generate_rows and all(row[2] != "-" for row in generate_rows), result.stdout
    assert all(row[5] != "-" for row in generate_rows if row[3] != "(absolute)"), result.stdout
    assert "generate, 10 tools, nothing cached" in figures
    assert "generate again, catalog unchanged" in figures
    assert "generate --check, up to date, empty cache" in figures
    assert "generate --check, up to date, warm cache" in figures
    assert "snapshot, 8 servers starting in 0.5 s" in figures
    assert "200 sync client calls" in figures
    # the many-packages rows count the golden and fixture catalogs of the day (each configured twice)
    assert any(re.fullmatch(r"generate --check, \d+ packages and a hub \(\d+ tools\), warm cache", f) for f in figures)
    assert any(re.fullmatch(r"generate, \d+ packages and a hub \(\d+ tools\): the hub alone", f) for f in figures)
    assert "run_code: four calls, three at once" in figures
    assert len(figures) == 15
    assert "peak memory of a cold 10-tool generate" in result.stdout
    # and the shortlist's quality on BFCL v4, each split labelled in-sample or held out (issue 25)
    if importlib.util.find_spec("bfcl_eval") is not None:
        bfcl = lines[next(i for i, line in enumerate(lines) if line.startswith("BFCL v4")) + 3 :]
        labels = [line.split(" | ")[0].lstrip("| ") for line in bfcl if line.startswith("| ")]
        assert labels == ["multiple (in-sample)", "live_multiple (held out)", "all"], result.stdout


def test_hub_smoke_run_prints_every_figure() -> None:
    result = subprocess.run(
        [sys.executable, "benchmarks/hub.py", "--smoke"], capture_output=True, text=True, cwd=REPO, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    figures = [line.split(" | ")[0].lstrip("| ") for line in result.stdout.splitlines()[2:] if line.startswith("| ")]
    golden = re.fullmatch(r"shortlist, (\d+) tools \(golden servers\): median", figures[0])
    assert golden, figures  # as many tools as the golden servers have that day
    count = golden[1]
    assert figures == [
        f"shortlist, {count} tools (golden servers): median",
        f"shortlist, {count} tools: 95th percentile",
        f"search index build, {count} tools (first query only)",
        "shortlist, 1,000 tools: median",
        "shortlist, 1,000 tools: 95th percentile",
        "search index build, 1,000 tools (first query only)",
        "import the hub over 5 servers (20 tools)",
        "import one server's package",
        "generate --hub over 2 real catalogs (6 tools), packages present",
        "import the hub over 2 real catalogs (6 tools)",
        "import the hub over 2 real catalogs (6 tools) and list its tool definitions",
    ]
    assert "The hub over 2 real catalogs (6 tools): " in result.stdout and "catalog.json" in result.stdout


def test_contract_benchmark_calls_every_method_shape(tmp_path: Path) -> None:
    """benchmarks/jsts_contract.py on a two-group suite of this test's own, in the suite's format: a
    map root (the method takes `arguments`) and an open root with properties (keywords and `extra`).
    Both must agree with jsonschema on every instance; a method signature the script misreads (the
    per-call options taken for `extra`, say) shows as false rejects."""
    groups = [
        {
            "description": "a map root",
            "schema": {"propertyNames": {"maxLength": 3}},
            "tests": [
                {"description": "short names", "data": {"f": {}, "foo": {}}, "valid": True},
                {"description": "a long name", "data": {"foooo": {}}, "valid": False},
                {"description": "no names", "data": {}, "valid": True},
                {"description": "not an object", "data": 12, "valid": True},
            ],
        },
        {
            "description": "an open root with a property",
            "schema": {"properties": {"a": {"type": "integer"}}},
            "tests": [
                {"description": "declared and more", "data": {"a": 1, "b": "x"}, "valid": True},
                {"description": "declared, wrong type", "data": {"a": "1"}, "valid": False},
            ],
        },
    ]
    (tmp_path / "propertyNames.json").write_text(json.dumps(groups))
    result = subprocess.run(
        [PYTHON, "benchmarks/jsts_contract.py", str(tmp_path), "--show", "5"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "false accepts 0, false rejects 0, changed 0" in result.stdout, result.stdout
    assert "tools that failed to generate: 0" in result.stdout, result.stdout
    assert "agreement 100.00%" in result.stdout, result.stdout
    # 12 is an instance of the `value` placement, but no tool's arguments at the root: counted, not judged
    assert "a root of another type), left out: 2" in result.stdout, result.stdout


def test_code_mode_smoke_run_prints_tokens_and_sends_nothing_for_a_wrong_script() -> None:
    result = subprocess.run(
        [PYTHON, "benchmarks/code_mode.py", "--smoke"], capture_output=True, text=True, cwd=REPO, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [line.split(" | ") for line in result.stdout.splitlines() if line.startswith("| ") and "---" not in line]
    figures = {row[0].lstrip("| "): row[1:] for row in rows}
    assert "real catalogs: every tool definition as tools/list gives it (51 tools)" in figures
    assert "examples: AGENTS.md and index.md" in figures
    assert figures["run_code: four calls, three at once"][-1] == "4 |"
    rejected = [cells for figure, cells in figures.items() if figure.startswith("run_code rejects")]
    assert len(rejected) == 5 and all(cells[-1] == "0 |" for cells in rejected), result.stdout


def test_stdio_transport_benchmark_echoes_through_both_transports() -> None:
    result = subprocess.run(
        [PYTHON, "benchmarks/stdio_transport.py", "--megabytes", "1", "--calls", "10", "--runs", "1"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [line.split(" | ")[0] for line in result.stdout.splitlines()[2:]]
    assert rows == ["| an answer of 1 MiB", "| 10 small calls, per call"], result.stdout


def test_call_overhead_benchmark_prints_its_figures() -> None:
    """It broke unseen when `SessionLoop` began to take its owner's name."""
    result = subprocess.run(
        [PYTHON, "benchmarks/call_overhead.py", "--calls", "50", "--round-trips", "5"],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "the generated method's own cost:" in result.stdout and "sync twin:" in result.stdout, result.stdout
