"""Same snapshot in, same bytes out: twice in one process and across hash seeds."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

from codegen.generate import render_snapshot
from codegen.snapshot import load_snapshot
from tests.regen_goldens import GOLDEN

SNAPSHOT = GOLDEN / "catalog" / "snapshot.json"
DIGEST = """
import hashlib, sys
from pathlib import Path
from codegen.generate import render_snapshot
from codegen.snapshot import load_snapshot
files = render_snapshot(load_snapshot(Path(sys.argv[1])))
print(hashlib.sha256(b"".join(name.encode() + b"\\0" + data for name, data in sorted(files.items()))).hexdigest())
"""


def digest(files: dict[str, bytes]) -> str:
    return hashlib.sha256(b"".join(name.encode() + b"\0" + data for name, data in sorted(files.items()))).hexdigest()


def test_two_runs_in_one_process_are_identical() -> None:
    snapshot = load_snapshot(SNAPSHOT)
    assert render_snapshot(snapshot) == render_snapshot(load_snapshot(SNAPSHOT))


def test_runs_with_different_hash_seeds_are_identical() -> None:
    expected = digest(render_snapshot(load_snapshot(SNAPSHOT)))
    seeds = ("0", "1", "12345")
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", DIGEST, str(SNAPSHOT)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        for seed in seeds
    ]
    for seed, process in zip(seeds, processes, strict=True):
        output, _ = process.communicate(timeout=120)
        assert process.returncode == 0
        assert output.strip() == expected, f"PYTHONHASHSEED={seed}"
