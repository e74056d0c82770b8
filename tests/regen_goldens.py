"""Refresh the golden output folder: `python -m tests.regen_goldens` (then review and commit the diff).

Each `golden/<case>/` holds a server's `snapshot.json` (and `renames.json`, old tool name -> new, when
the case has one). `golden/clients/` is the one output folder `generate` writes for all of them, as a
project's would be: one package per case, the hub and the code-mode package over the `HUB_SERVERS`
cases, and the runtime they
share once, `golden/clients/_mcp_runtime/` (the files of `codegen/runtime/`, byte for byte).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from codegen.generate import generate_package, package_dir
from codegen.generate.code_mode import render_code_mode
from codegen.generate.hub import HubSettings, generate_hub, render_hub
from codegen.generate.pipeline import code_mode_dir, hub_dir
from codegen.generate.publish import publish
from codegen.generate.runtime_folder import runtime_dir
from codegen.snapshot import Snapshot, load_snapshot

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
OUTPUT = GOLDEN / "clients"
"""The golden output folder: import its packages as `clients.<package>` with `golden/` on the path."""
REGEN_COMMAND = "python -m tests.regen_goldens"
HUB_SERVERS = ("notes", "weather")
"""The cases the golden hub is generated over."""


def cases() -> list[Path]:
    """Every golden case folder, in a stable order."""
    return sorted(path.parent for path in GOLDEN.glob("*/snapshot.json"))


def case_renames(case: Path) -> dict[str, str]:
    """The case's stated renames (`[tool.mcp-stubgen.renames.<server>]`), kept as deprecated aliases."""
    path = case / "renames.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def case_package(case: Path) -> Path:
    """The case's golden package folder under `OUTPUT`."""
    return package_dir(load_snapshot(case / "snapshot.json"), OUTPUT)


def hub_case_snapshots() -> list[Snapshot]:
    return [load_snapshot(GOLDEN / name / "snapshot.json") for name in HUB_SERVERS]


def hub_case_tree() -> dict[str, bytes]:
    """The hub package that `generate --hub` writes for the hub case's snapshots."""
    return render_hub([(snapshot, {}) for snapshot in hub_case_snapshots()])


def code_mode_case_tree() -> dict[str, bytes]:
    """The code-mode package that `generate --hub --code-mode` writes for the hub case's snapshots."""
    return render_code_mode([(snapshot, {}) for snapshot in hub_case_snapshots()], HubSettings())


def main() -> int:
    expected = {runtime_dir(OUTPUT), hub_dir(OUTPUT), code_mode_dir(OUTPUT)}
    for case in cases():
        result = generate_package(load_snapshot(case / "snapshot.json"), OUTPUT, renames=case_renames(case))
        expected.add(result.path)
        print(f"{case.name}: {'updated' if result.changed else 'unchanged'} ({result.path.relative_to(GOLDEN.parent)})")
    result = generate_hub([(snapshot, {}) for snapshot in hub_case_snapshots()], OUTPUT)
    print(f"hub: {'updated' if result.changed else 'unchanged'} ({result.path.relative_to(GOLDEN.parent)})")
    result = publish(code_mode_case_tree(), code_mode_dir(OUTPUT))
    print(f"code_mode: {'updated' if result.changed else 'unchanged'} ({result.path.relative_to(GOLDEN.parent)})")
    for stale in sorted(set(OUTPUT.iterdir()) - expected):
        shutil.rmtree(stale)
        print(f"removed {stale.relative_to(GOLDEN.parent)} (no case generates it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
