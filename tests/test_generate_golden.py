"""Golden packages: regenerated trees match byte for byte, type-check strictly, and `--check` guards them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.generate import package_dir, render_snapshot
from codegen.generate.publish import diff_trees, read_tree
from codegen.snapshot import load_snapshot
from tests.regen_goldens import GOLDEN, REGEN_COMMAND, case_renames, cases

CASES = cases()


def test_every_expected_case_is_present() -> None:
    assert {case.name for case in CASES} >= {"catalog", "everything", "shapes", "time", "weather"}


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_golden_tree_matches(case: Path) -> None:
    snapshot = load_snapshot(case / "snapshot.json")
    expected = read_tree(package_dir(snapshot, case / "expected"))
    assert expected, f"{case.name} has no expected package; run `{REGEN_COMMAND}`"
    diff = diff_trees(render_snapshot(snapshot, renames=case_renames(case)), expected, f"golden/{case.name}/expected")
    assert not diff, f"generated output differs from the golden files; refresh with `{REGEN_COMMAND}`\n{diff}"
    assert set(read_tree(case / "expected")) == {f"{snapshot.server}/{name}" for name in expected}


def test_goldens_pass_mypy_strict(tmp_path: Path) -> None:
    folders = [str(package_dir(load_snapshot(case / "snapshot.json"), case / "expected")) for case in CASES]
    # A cache of its own: the `time` golden shadows the standard library's `time`, which would make
    # the suite's shared mypy cache stale for every other run.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            "/dev/null",
            "--cache-dir",
            str(tmp_path),
            *folders,
        ],
        capture_output=True,
        text=True,
        cwd=GOLDEN.parent,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_passes_on_goldens_and_fails_with_a_diff_after_a_snapshot_edit(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    case = GOLDEN / "weather"
    assert run_cli("generate", case / "snapshot.json", "--out", case / "expected", "--check").exit_code == 0

    edited = json.loads((case / "snapshot.json").read_text(encoding="utf-8"))
    edited["tools"][0]["description"] = "Convert, now with a new description."
    (tmp_path / "snapshot.json").write_text(json.dumps(edited), encoding="utf-8")
    shutil.copytree(case / "expected", tmp_path / "expected")
    before = read_tree(tmp_path / "expected")

    result = run_cli("generate", tmp_path / "snapshot.json", "--out", tmp_path / "expected", "--check")

    assert result.exit_code == 1
    changed = result.stdout.splitlines()
    assert any(line.startswith("+") and "Convert, now with a new description." in line for line in changed)
    assert any(line.startswith("-") and "Convert a temperature from Celsius to Fahrenheit." in line for line in changed)
    assert "out of date" in result.stderr
    assert read_tree(tmp_path / "expected") == before


_IMPORT_PROBE = """
import sys
import weather
from weather import NOT_GIVEN, CatalogDriftError, WeatherClient, client, models
assert "pydantic" not in sys.modules and "mcp" not in sys.modules, "imported on package import"
from weather import GetForecastInput
assert "pydantic" in sys.modules and "mcp" not in sys.modules
try:
    GetForecastInput.model_validate({"city": 5})
except Exception as error:
    assert type(error).__name__ == "ValidationError", error
else:
    raise AssertionError("a wrong argument type was accepted")
"""


def test_importing_a_package_loads_neither_pydantic_nor_mcp_until_a_model_is_used() -> None:
    """Importing a generated package (its `__init__`, client and models facade) costs neither
    pydantic nor mcp; the first model asked for brings pydantic and validates fully."""
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE],
        capture_output=True,
        text=True,
        cwd=GOLDEN / "weather" / "expected",
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
