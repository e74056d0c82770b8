"""Numbers a catalog can hold but Python or JSON cannot (issue 22): an integer past Python's digit
limit and a number past a float's range each get their own clear error at snapshot, naming the
server, the tool and the JSON pointer, instead of timeout advice or a silent `null`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import SERVERS

RAW = str(SERVERS / "raw_server.py")


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("long-integer", "an integer of 5,000 digits, more than the 4,300 Python reads"),
        ("infinite-maximum", "a number too large for a float (inf), which JSON cannot hold"),
    ],
)
def test_a_number_python_cannot_hold_is_named_at_snapshot(mode: str, problem: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "raw.json"
    result = run_cli(
        "snapshot", "--name", "raw", "--out", out, "--connect-timeout", "30", "--request-timeout", "30",
        "--", sys.executable, RAW, "--mode", mode,
    )  # fmt: skip
    assert result.exit_code == 2, result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("error: server 'raw': "), line
    assert "tool 'bounded' /inputSchema/properties/count/maximum: " + problem in line, line
    assert "request_timeout" not in line and "Traceback" not in result.stderr
    assert not out.exists()
