"""The fuzz script runs as documented in tests/fuzz/README.md and finds no crash or injection in a
short run; the counts it prints add up. The long runs are done by hand, not in CI."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_generate.py"


def test_a_short_fuzz_run_has_no_crash_and_no_injection(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--count", "10", "--seed", "0", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,  # run from anywhere: the script finds the repository itself
    )
    counts = {name: int(number) for name, number in re.findall(r"^(\w[\w ]*):\s+(\d+)$", result.stdout, re.M)}
    assert result.returncode == 0, result.stdout + result.stderr
    assert counts["crash"] == 0 and counts["injection"] == 0, result.stdout
    assert counts["catalogs"] == 10 == counts["generated"] + counts["clean error"], result.stdout
    assert counts["generated"] > 0, result.stdout
    assert counts["with extension keywords"] > 0, result.stdout  # the keywords that choose code were tried
