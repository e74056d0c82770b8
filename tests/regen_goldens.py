"""Refresh every golden package: `python -m tests.regen_goldens` (then review and commit the diff).

Each `golden/<case>/` holds `snapshot.json` and, under `expected/`, the package generated from it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from codegen.generate import generate_package
from codegen.snapshot import load_snapshot

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
REGEN_COMMAND = "python -m tests.regen_goldens"


def cases() -> list[Path]:
    """Every golden case folder, in a stable order."""
    return sorted(path.parent for path in GOLDEN.glob("*/snapshot.json"))


def main() -> int:
    for case in cases():
        result = generate_package(load_snapshot(case / "snapshot.json"), case / "expected")
        state = "updated" if result.changed else "unchanged"
        print(f"{case.name}: {state} ({result.path.relative_to(GOLDEN.parent)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
