"""Refresh every golden package: `python -m tests.regen_goldens` (then review and commit the diff).

Each `golden/<case>/` holds `snapshot.json` and, under `expected/`, the package generated from it
(with the renames in `renames.json`, old tool name -> new, when the case has one).
`golden/hub/` holds several servers' snapshots under `snapshots/` and, under `expected/hub/`, the
hub package over them (their own packages are generated afresh when the hub is type-checked).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from codegen.generate import generate_package
from codegen.generate.hub import hub_dir, render_hub
from codegen.generate.publish import publish
from codegen.snapshot import Snapshot, load_snapshot

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
REGEN_COMMAND = "python -m tests.regen_goldens"
HUB_CASE = GOLDEN / "hub"


def cases() -> list[Path]:
    """Every golden case folder, in a stable order."""
    return sorted(path.parent for path in GOLDEN.glob("*/snapshot.json"))


def case_renames(case: Path) -> dict[str, str]:
    """The case's stated renames (`[tool.mcp-stubgen.renames.<server>]`), kept as deprecated aliases."""
    path = case / "renames.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def hub_case_snapshots(case: Path = HUB_CASE) -> list[Snapshot]:
    return [load_snapshot(path) for path in sorted((case / "snapshots").glob("*.json"))]


def hub_case_tree(case: Path = HUB_CASE) -> dict[str, bytes]:
    """The hub package that `generate --hub` writes for the hub case's snapshots."""
    return render_hub([(snapshot, {}) for snapshot in hub_case_snapshots(case)])


def main() -> int:
    for case in cases():
        result = generate_package(load_snapshot(case / "snapshot.json"), case / "expected", renames=case_renames(case))
        state = "updated" if result.changed else "unchanged"
        print(f"{case.name}: {state} ({result.path.relative_to(GOLDEN.parent)})")
    result = publish(hub_case_tree(), hub_dir(HUB_CASE / "expected"))
    state = "updated" if result.changed else "unchanged"
    print(f"hub: {state} ({result.path.relative_to(GOLDEN.parent)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
