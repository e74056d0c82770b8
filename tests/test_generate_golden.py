"""Golden packages: regenerated trees match byte for byte, share one runtime, type-check strictly, and
`--check` guards them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.generate import render_snapshot
from codegen.generate.formatting import LINE_LENGTH
from codegen.generate.publish import diff_trees, read_tree
from codegen.generate.runtime_folder import OPTIONAL_FILES, RUNTIME_PACKAGE, runtime_files
from codegen.snapshot import load_snapshot, write_snapshot
from tests.conftest import PYTHON, REPO
from tests.drift_helpers import obj, snap, tool
from tests.regen_goldens import GOLDEN, OUTPUT, REGEN_COMMAND, case_package, case_renames, cases

CASES = cases()


def test_every_expected_case_is_present() -> None:
    assert {case.name for case in CASES} >= {
        "catalog",
        "everything",
        "later_unicode",
        "notes",
        "shapes",
        "time",
        "weather",
    }


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_golden_tree_matches(case: Path) -> None:
    snapshot = load_snapshot(case / "snapshot.json")
    folder = case_package(case)
    expected = read_tree(folder)
    assert expected, f"{case.name} has no expected package; run `{REGEN_COMMAND}`"
    label = folder.relative_to(GOLDEN.parent).as_posix()
    diff = diff_trees(render_snapshot(snapshot, renames=case_renames(case)), expected, label)
    assert not diff, f"generated output differs from the golden files; refresh with `{REGEN_COMMAND}`\n{diff}"


def test_the_output_folder_holds_one_runtime_the_files_of_codegen_runtime_byte_for_byte() -> None:
    """No package carries a runtime of its own: the folder's one `_mcp_runtime/` is mcp-stubgen's."""
    shipped = Path(__file__).resolve().parent.parent / "codegen" / "runtime"
    assert read_tree(OUTPUT / RUNTIME_PACKAGE) == runtime_files(with_hub=True, optional=OPTIONAL_FILES)
    assert runtime_files(with_hub=True, optional=OPTIONAL_FILES) == {
        path.name: path.read_bytes() for path in (*shipped.glob("*.py"), *shipped.glob("*.txt"))
    }
    packages = {case_package(case).name for case in CASES} | {"hub", "code_mode", RUNTIME_PACKAGE}
    assert {path.name for path in OUTPUT.iterdir()} == packages
    copies = [path for path in OUTPUT.rglob("_runtime.py") if path.parent.name != RUNTIME_PACKAGE]
    assert not copies


@pytest.mark.generated_mypy
def test_goldens_pass_mypy_strict() -> None:
    # The worker's shared cache (tests/conftest.py): other tests type-check other packages named
    # `clients`, and mypy rechecks a module whose path or source differs from the one it cached.
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null", "-p", OUTPUT.name],
        capture_output=True,
        text=True,
        cwd=GOLDEN,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


_SHARED_CLASSES = """
import clients.hub, clients.notes, clients.weather
for name in ("ToolError", "RequestTimeoutError", "ToolResult", "CallOptions", "CatalogDriftError"):
    assert getattr(clients.weather, name) is getattr(clients.notes, name), name
assert clients.hub.RequestTimeoutError is clients.weather.RequestTimeoutError
assert clients.hub.CallOptions is clients.notes.CallOptions
try:
    raise clients.notes.ToolError("add_note", [])
except clients.weather.ToolError as error:
    print("caught", type(error).__module__)
"""


def test_packages_and_the_hub_in_one_folder_share_one_class_per_error() -> None:
    """`except clients.weather.ToolError` catches what `clients.notes` raises, and the hub's
    `RequestTimeoutError` is the packages' own."""
    result = subprocess.run(
        [sys.executable, "-c", _SHARED_CLASSES], capture_output=True, text=True, cwd=GOLDEN, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "caught clients._mcp_runtime._runtime\n"


def test_check_passes_on_goldens_and_fails_with_a_diff_after_a_snapshot_edit(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    case = GOLDEN / "weather"
    assert run_cli("generate", case / "snapshot.json", "--out", OUTPUT, "--check").exit_code == 0

    edited = json.loads((case / "snapshot.json").read_text(encoding="utf-8"))
    edited["tools"][0]["description"] = "Convert, now with a new description."
    (tmp_path / "snapshot.json").write_text(json.dumps(edited), encoding="utf-8")
    shutil.copytree(OUTPUT, tmp_path / "clients")
    before = read_tree(tmp_path / "clients")

    result = run_cli("generate", tmp_path / "snapshot.json", "--out", tmp_path / "clients", "--check")

    assert result.exit_code == 1
    changed = result.stdout.splitlines()
    assert any(line.startswith("+") and "Convert, now with a new description." in line for line in changed)
    assert any(line.startswith("-") and "Convert a temperature from Celsius to Fahrenheit." in line for line in changed)
    assert "out of date" in result.stderr
    assert read_tree(tmp_path / "clients") == before


_IMPORT_PROBE = """
import sys
import clients.weather
from clients.weather import NOT_GIVEN, CatalogDriftError, WeatherClient, client, models
assert "pydantic" not in sys.modules and "mcp" not in sys.modules, "imported on package import"
from clients.weather import GetForecastInput
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
        cwd=GOLDEN,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _ruff(*arguments: str) -> subprocess.CompletedProcess[str]:
    """ruff as a user runs it on the output folder: its default rules, nothing of this repository's
    configuration (`--isolated`), at the generator's fixed line length."""
    command = [sys.executable, "-m", "ruff", *arguments, "--isolated", "--no-cache", "--line-length", str(LINE_LENGTH)]
    return subprocess.run(command, capture_output=True, text=True, cwd=OUTPUT, timeout=120)


def test_generated_files_pass_ruff_format_and_ruffs_default_rules() -> None:
    """Every generated file is what `ruff format` writes and passes `ruff check` with its default
    rules: the clients, facades and tools' models modules, and the hub (only the imports the code
    uses, sorted; `ClassVar` tables; `X | Y` unions, no quoted forward references; `__all__` in
    RUF022's order), and the runtime copied beside them, which a user's `ruff check .` reads too."""
    generated = [path.name for path in OUTPUT.iterdir() if path.is_dir() and path.name != "__pycache__"]
    assert RUNTIME_PACKAGE in generated
    formatted = _ruff("format", "--check", *generated)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    modules = [str(path.relative_to(OUTPUT)) for name in generated for path in (OUTPUT / name).rglob("*.py")]
    assert any(path.endswith("/client.py") for path in modules) and any("/_models/" in path for path in modules)
    checked = _ruff("check", *modules)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_tools_tenth_numbered_model_is_imported_in_rufs_order(tmp_path: Path) -> None:
    """workspace-mcp 2.2.1's `batch_update_doc` takes 31 kinds of operation, which become the models
    `BatchUpdateDocInputOperations`, `...Operations1` to `...Operations30`: the packages imported them
    in plain string order (`...Operations10` before `...Operations2`), and ruff's import sorting
    (I001, a default rule in ruff 0.17) flagged `__init__.py`, `client.py` and `models.py`."""
    kinds = [obj({f"field{index}": {"type": "string"}}, (f"field{index}",)) for index in range(12)]
    schema = obj({"operations": {"type": "array", "items": {"anyOf": kinds}}}, ("operations",))
    write_snapshot(tmp_path / "numbered.json", snap((tool("batch_update_doc", schema),)))
    generate = [PYTHON, "-m", "codegen.cli", "generate", "numbered.json", "--out", "clients"]
    environment = {**os.environ, "PYTHONPATH": str(REPO)}  # this checkout's codegen, whatever is installed
    generated = subprocess.run(generate, capture_output=True, text=True, cwd=tmp_path, env=environment, timeout=300)
    assert generated.returncode == 0, generated.stderr
    assert "BatchUpdateDocInputOperations10" in (tmp_path / "clients" / "demo" / "__init__.py").read_text()
    command = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--extend-select", "I"]
    checked = subprocess.run(
        [*command, "--line-length", str(LINE_LENGTH), "clients"], capture_output=True, text=True, cwd=tmp_path
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_ruff_sorts_the_imports_alike_in_a_project_with_the_default_snapshots_folder(tmp_path: Path) -> None:
    """A project with the default `snapshots = "mcp/snapshots"` has a folder `mcp/` at its root,
    which makes ruff (like isort) count `mcp` as first party, but not `mcp.client`: the clients, the
    hub and the runtime copied beside them import from `mcp.client...` and the like alone, never
    `from mcp import`, so their imports are sorted either way (the runtime's seven blocks that did
    failed a user's `ruff check .` on ruff 0.17's default rules)."""
    (tmp_path / "mcp" / "snapshots").mkdir(parents=True)
    generated = [path.name for path in OUTPUT.iterdir() if path.is_dir() and path.name != "__pycache__"]
    assert RUNTIME_PACKAGE in generated
    for name in generated:
        shutil.copytree(OUTPUT / name, tmp_path / "clients" / name)
    command = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--line-length", str(LINE_LENGTH)]
    checked = subprocess.run([*command, "clients"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
