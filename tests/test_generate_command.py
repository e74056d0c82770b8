"""`mcp-stubgen generate`: what it writes, what it refuses, and that failures leave the old package alone."""

from __future__ import annotations

import ast
import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.errors import StubgenError
from codegen.generate import generate_package
from codegen.generate.formatting import LINE_LENGTH
from codegen.generate.hub import generate_hub
from codegen.generate.publish import read_tree
from codegen.snapshot import load_snapshot, parse_snapshot
from tests.conftest import write_config
from tests.hostile.corpus import run_mypy
from tests.regen_goldens import GOLDEN, OUTPUT

WEATHER = GOLDEN / "weather" / "snapshot.json"


def project(tmp_path: Path) -> Path:
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n'
                 '[tool.mcp-stubgen.servers.weather]\ncommand = "python"\n')  # fmt: skip
    (tmp_path / "snaps").mkdir()
    shutil.copy(WEATHER, tmp_path / "snaps" / "weather.json")
    return tmp_path / "pyproject.toml"


def test_generate_from_config_writes_the_package_and_is_idempotent(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = project(tmp_path)
    result = run_cli("generate", "--config", config)
    assert result.exit_code == 0, result.stderr
    package = tmp_path / "clients" / "weather"
    assert {"__init__.py", "client.py", "models.py", "py.typed", "_models/__init__.py"} <= set(read_tree(package))
    assert read_tree(package) == read_tree(OUTPUT / "weather")
    # No hub in the folder: the runtime ships without the hub's modules.
    assert set(read_tree(tmp_path / "clients" / "_mcp_runtime")) == {
        "__init__.py",
        "_auth.py",
        "_http.py",
        "_loop_thread.py",
        "_runtime.py",
        "_schema_check.py",
        "_stdio.py",
        "_uri_template.py",
    }  # nor the task machinery: no weather tool may run as a task

    stamp = (package / "client.py").stat().st_mtime_ns
    again = run_cli("generate", "weather", "--config", config)
    assert again.exit_code == 0 and "weather: unchanged " in again.stderr
    assert (package / "client.py").stat().st_mtime_ns == stamp
    assert run_cli("generate", "--check", "--config", config).exit_code == 0


EVERYTHING = GOLDEN / "everything" / "snapshot.json"
"""Its `trigger-long-running-operation` may run as a task (`execution.taskSupport`)."""
_IMPORT_WITHOUT_TASKS = """
import sys
from clients.weather import WeatherClient, WeatherSyncClient, ToolError
assert not [name for name in sys.modules if name.endswith("._tasks")], "task machinery imported"
"""


def test_the_runtime_holds_the_task_machinery_only_while_a_package_in_the_folder_needs_it(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_tasks.py` comes with the first package that has a tool that may run as a task and goes with
    the last; a package without one imports nothing of it, and `--check` reports a runtime that lacks
    it or holds it for nobody."""
    monkeypatch.chdir(tmp_path)
    config = project(tmp_path)
    runtime = tmp_path / "clients" / "_mcp_runtime"
    assert run_cli("generate").exit_code == 0
    assert "_tasks.py" not in read_tree(runtime)
    assert not [
        name for name, data in read_tree(tmp_path / "clients" / "weather").items() if b"_tasks" in (data or b"")
    ]
    imported = subprocess.run(
        [sys.executable, "-c", _IMPORT_WITHOUT_TASKS], cwd=tmp_path, capture_output=True, text=True
    )
    assert imported.returncode == 0, imported.stderr

    # a server with a task tool joins the folder: the runtime gains the task machinery, and says so
    shutil.copy(EVERYTHING, tmp_path / "snaps" / "everything.json")
    config.write_text(config.read_text() + '\n[tool.mcp-stubgen.servers.everything]\ncommand = "python"\n')
    added = run_cli("generate")
    assert added.exit_code == 0, added.stderr
    assert "_mcp_runtime: generated clients/_mcp_runtime (1 file(s) written, 0 removed)" in added.stderr.splitlines()
    assert "_tasks.py" in read_tree(runtime)
    assert run_cli("generate", "--check").exit_code == 0

    (runtime / "_tasks.py").unlink()
    lacking = run_cli("generate", "--check")
    assert lacking.exit_code == 1 and "+++ b/clients/_mcp_runtime/_tasks.py" in lacking.stdout
    assert "generated clients/_mcp_runtime (1 file(s) written, 0 removed)" in run_cli("generate", "everything").stderr

    # the last such package leaves the folder: the runtime holding `_tasks.py` for nobody is stale
    config.write_text(config.read_text().replace('[tool.mcp-stubgen.servers.everything]\ncommand = "python"\n', ""))
    shutil.rmtree(tmp_path / "clients" / "everything")
    left_over = run_cli("generate", "--check")
    assert left_over.exit_code == 1 and "--- a/clients/_mcp_runtime/_tasks.py" in left_over.stdout
    removed = run_cli("generate")
    assert "_mcp_runtime: generated clients/_mcp_runtime (0 file(s) written, 1 removed)" in removed.stderr.splitlines()
    assert "_tasks.py" not in read_tree(runtime)
    assert run_cli("generate", "--check").exit_code == 0


def test_a_package_that_stops_needing_tasks_keeps_them_until_it_is_published(tmp_path: Path) -> None:
    """The runtime is published before the packages: it keeps the task machinery an old package
    still imports while the new one is not in place (here it cannot be: the folder was edited by
    hand, so it is not replaced), and drops it once no package imports it."""
    out = tmp_path / "clients"
    generate_package(load_snapshot(EVERYTHING), out)
    untasked = json.loads(EVERYTHING.read_text())
    for tool in untasked["tools"]:
        tool.pop("execution", None)
    snapshot = parse_snapshot(json.dumps(untasked).encode(), "everything")
    client, init = out / "everything" / "client.py", out / "everything" / "__init__.py"
    generated = client.read_bytes(), init.read_bytes()
    client.write_text("# my own code\n")
    init.write_bytes(b"# edited by hand\n" + generated[1])
    with pytest.raises(StubgenError):
        generate_package(snapshot, out)
    assert (out / "_mcp_runtime" / "_tasks.py").exists()  # what everything/__init__.py still imports

    client.write_bytes(generated[0])
    init.write_bytes(generated[1])
    generate_package(snapshot, out)
    assert not (out / "_mcp_runtime" / "_tasks.py").exists()
    assert b"_tasks" not in (out / "everything" / "__init__.py").read_bytes()


def test_what_the_runtime_holds_is_never_read_through_a_symlink(tmp_path: Path) -> None:
    """A folder (or an `__init__.py`) linked into the output folder is not a package of it: what it
    points at, whatever it says, never decides what the runtime holds."""
    out, elsewhere = tmp_path / "clients", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "__init__.py").write_text("# Generated by mcp-stubgen\nfrom .._mcp_runtime._tasks import TaskHandle\n")
    generate_package(load_snapshot(WEATHER), out)
    (out / "linked").symlink_to(elsewhere)
    (out / "with_linked_init").mkdir()
    (out / "with_linked_init" / "__init__.py").symlink_to(elsewhere / "__init__.py")
    generate_package(load_snapshot(WEATHER), out)
    assert "_tasks.py" not in read_tree(out / "_mcp_runtime")


@pytest.mark.generated_mypy
def test_a_folder_without_task_tools_passes_mypy_strict_without_the_task_machinery(tmp_path: Path) -> None:
    """Packages and a hub with no tool that may run as a task, and a runtime without `_tasks.py`:
    nothing in the folder refers to it, not even for type checking (the golden folder, which has
    such tools, is `test_generate_golden.py::test_goldens_pass_mypy_strict`)."""
    out = tmp_path / "notasks"
    snapshots = [load_snapshot(WEATHER), load_snapshot(GOLDEN / "notes" / "snapshot.json")]
    for snapshot in snapshots:
        generate_package(snapshot, out)
    generate_hub([(snapshot, {}) for snapshot in snapshots], out)
    assert "_tasks.py" not in read_tree(out / "_mcp_runtime") and "_hub_runtime.py" in read_tree(out / "_mcp_runtime")
    assert run_mypy(sorted(path for path in out.iterdir() if path.name != "_mcp_runtime"), out) == ""


def test_stale_files_go_and_nothing_outside_the_package_is_touched(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = project(tmp_path)
    assert run_cli("generate", "--config", config).exit_code == 0
    (tmp_path / "clients" / "weather" / "old_module.py").write_text("x = 1\n")
    (tmp_path / "clients" / "keep.txt").write_text("mine\n")

    result = run_cli("generate", "--config", config)

    assert result.exit_code == 0 and "1 removed" in result.stderr
    assert not (tmp_path / "clients" / "weather" / "old_module.py").exists()
    assert (tmp_path / "clients" / "keep.txt").read_text() == "mine\n"
    assert sorted(path.name for path in (tmp_path / "clients").iterdir()) == ["_mcp_runtime", "keep.txt", "weather"]


def test_generated_folders_get_the_umasks_mode_and_keep_a_chosen_one(tmp_path: Path) -> None:
    """A published folder was a private temporary folder (0700): a package generated as one user (a
    container's build step, as root) could not be imported by another (the application's own)."""
    os.umask(previous := os.umask(0o022))
    try:
        generate_package(load_snapshot(WEATHER), tmp_path / "out")
        folders = [tmp_path / "out" / "weather", tmp_path / "out" / "_mcp_runtime"]
        assert [stat.S_IMODE(folder.stat().st_mode) for folder in folders] == [0o755, 0o755]
        folders[0].chmod(0o750)
        (folders[0] / "old_module.py").write_text("x = 1\n")
        assert generate_package(load_snapshot(WEATHER), tmp_path / "out").changed
        assert stat.S_IMODE(folders[0].stat().st_mode) == 0o750
    finally:
        os.umask(previous)


def test_a_schema_that_cannot_be_generated_is_one_line_and_leaves_the_old_package(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    generate_package(load_snapshot(WEATHER), tmp_path / "out")
    before = read_tree(tmp_path / "out")
    broken = json.loads(WEATHER.read_text())
    broken["tools"][1]["inputSchema"]["properties"]["city"] = {"$ref": "#/$defs/Nowhere"}
    (tmp_path / "broken.json").write_text(json.dumps(broken))

    result = run_cli("generate", tmp_path / "broken.json", "--out", tmp_path / "out", "--strict")

    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "server 'weather': tool 'get_forecast': /inputSchema/properties/city/$ref: " in result.stderr
    assert "#/$defs/Nowhere" in result.stderr
    assert read_tree(tmp_path / "out") == before
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["_mcp_runtime", "weather"]


def test_a_non_object_input_schema_names_its_pointer(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Without --strict the tool gets an untyped method instead (tests/test_generate_shapes.py)."""
    broken = json.loads(WEATHER.read_text())
    broken["tools"][0]["inputSchema"] = {"type": "string"}
    (tmp_path / "broken.json").write_text(json.dumps(broken))

    result = run_cli("generate", tmp_path / "broken.json", "--out", tmp_path / "out", "--strict")

    assert result.exit_code == 2
    assert "server 'weather': tool 'celsius_to_fahrenheit': /inputSchema/type:" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_folder_not_written_by_the_generator_is_never_replaced(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "out" / "weather").mkdir(parents=True)
    (tmp_path / "out" / "weather" / "client.py").write_text("# my own code\n")

    result = run_cli("generate", WEATHER, "--out", tmp_path / "out")

    assert result.exit_code == 2 and "not a package generated by mcp-stubgen" in result.stderr
    assert (tmp_path / "out" / "weather" / "client.py").read_text() == "# my own code\n"


@pytest.mark.parametrize("given", ["config", "files"])
def test_an_output_folder_the_file_system_refuses_is_one_line_naming_it(  # type: ignore[no-untyped-def]
    given: str, run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path through a regular file (as a full disk or a read-only mount would) is the user's to fix:
    one line naming the path and the system's reason, exit 2, not "internal error ... report it"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("mine\n")
    shutil.copy(WEATHER, tmp_path / "weather.json")
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "."\noutput = "notes.txt/clients"\n'
        f'[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(sys.executable)}\nargs = ["-c", "pass"]\n',
    )
    result = run_cli("generate") if given == "config" else run_cli("generate", "weather.json", "--out", "notes.txt/x")
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, result.stderr
    assert len(lines) == 1 and "internal error" not in result.stderr, result.stderr
    assert lines[0].startswith("error: notes.txt/") and "Not a directory; check the path" in lines[0], lines[0]
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


def test_a_full_disk_is_one_line_and_the_previous_package_stays(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails for the machine's reasons alone is one line, exit 2, that names the folder
    (ENOSPC names no file; the line said only "No space left on device") and says to free space, not to
    check permissions; the package published before is left whole; an OSError that is neither is still
    ours to fix."""
    assert run_cli("generate", WEATHER, "--out", tmp_path / "out").exit_code == 0
    before = read_tree(tmp_path / "out" / "weather")
    edited = json.loads(WEATHER.read_text())
    edited["tools"][0]["description"] = "Changed, so the package is written again."
    (tmp_path / "weather.json").write_text(json.dumps(edited))

    def full(file: tuple[Path, bytes]) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("codegen.generate.publish._write_durably", full)
    result = run_cli("generate", tmp_path / "weather.json", "--out", tmp_path / "out")
    assert result.exit_code == 2, result.stderr
    assert result.stderr == (
        f"error: {tmp_path / 'out' / 'weather'}: No space left on device; "
        "free some space there (or raise the quota) and run again\n"
    )
    assert read_tree(tmp_path / "out" / "weather") == before

    def refused(file: tuple[Path, bytes]) -> None:
        raise ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")

    monkeypatch.setattr("codegen.generate.publish._write_durably", refused)
    result = run_cli("generate", tmp_path / "weather.json", "--out", tmp_path / "out")
    assert result.exit_code == 2 and result.stderr.startswith("internal error: ConnectionResetError"), result.stderr


@pytest.mark.parametrize("command", [("generate",), ("snapshot", "--name", "x", "--", sys.executable, "-c", "pass")])
def test_an_empty_out_is_an_option_error_not_the_working_directory(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    """`--out "$OUT"` with OUT unset: `generate` wrote every package into the working directory."""
    config = project(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = run_cli(*command[:1], "--config", config, "--out", "", *command[1:])
    assert result.exit_code == 2
    assert "Error: Invalid value for '--out': an empty path (an unset variable?); give a path" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pyproject.toml", "snaps"]


def test_snapshot_files_need_out(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("generate", WEATHER)
    assert result.exit_code == 2 and "--out" in result.stderr


def test_method_names_from_the_config(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = project(tmp_path)
    config.write_text(
        config.read_text() + '\n[tool.mcp-stubgen.method_names.weather]\nget_forecast = "fetch_forecast"\n',
        encoding="utf-8",
    )
    assert run_cli("generate", "--config", config).exit_code == 0
    client = (tmp_path / "clients" / "weather" / "client.py").read_text()
    assert "async def fetch_forecast(" in client and "async def get_forecast(" not in client
    assert '"get_forecast",' in client


def test_a_method_name_for_no_tool_or_no_server_is_a_warning_with_the_close_match(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A misspelt key in `method_names` was silently ignored, the method keeping its old name; a
    `renames` table of a misspelt server was ignored too."""
    config = project(tmp_path)
    config.write_text(
        config.read_text()
        + '\n[tool.mcp-stubgen.method_names.weather]\nget_forcast = "fetch_forecast"\nold_alerts = "alerts"\n'
        + '\n[tool.mcp-stubgen.method_names.wether]\nget_forecast = "fetch_forecast"\n'
        + '\n[tool.mcp-stubgen.renames.weather]\nold_alerts = "send_alert"\n'  # an alias's name: not a misspelling
        + '\n[tool.mcp-stubgen.renames.weathr]\nforecast = "get_forecast"\n',
        encoding="utf-8",
    )
    result = run_cli("generate", "--config", config)
    assert result.exit_code == 0, result.stderr
    warnings = sorted(line for line in result.stderr.splitlines() if line.startswith("warning: "))
    assert warnings == [
        f"warning: {config}: [tool.mcp-stubgen.method_names.wether] names no configured server, so it names "
        "no method; did you mean 'weather'?",
        f"warning: {config}: [tool.mcp-stubgen.renames.weathr] names no configured server, so its renames "
        "reach neither drift nor the generated aliases; did you mean 'weather'?",
        "warning: server 'weather': [tool.mcp-stubgen.method_names.weather] names 'get_forcast', which is not "
        "one of its tools, so it names no method; did you mean 'get_forecast'?",
    ]


def test_check_names_paths_relative_to_the_working_directory(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    config = project(tmp_path)
    assert run_cli("generate", "--config", config).exit_code == 0
    (tmp_path / "clients" / "weather" / "client.py").write_text("edited\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("generate", "--check", "--config", config)
    assert result.exit_code == 1
    assert "--- a/clients/weather/client.py\n+++ b/clients/weather/client.py\n" in result.stdout
    assert str(tmp_path) not in result.stdout


def test_check_reports_a_runtime_another_generator_wrote_and_generate_replaces_it(
    run_cli, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A partial regenerate never mixes silently: the folder's one runtime is checked like a package,
    and a package another generator version wrote is reported beside a fresh runtime."""
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n'
                 '[tool.mcp-stubgen.servers.weather]\ncommand = "python"\n\n'
                 '[tool.mcp-stubgen.servers.notes]\ncommand = "python"\n')  # fmt: skip
    (tmp_path / "snaps").mkdir()
    for name in ("weather", "notes"):
        shutil.copy(GOLDEN / name / "snapshot.json", tmp_path / "snaps" / f"{name}.json")
    config = tmp_path / "pyproject.toml"
    monkeypatch.chdir(tmp_path)
    assert run_cli("generate", "--config", config).exit_code == 0
    runtime = tmp_path / "clients" / "_mcp_runtime" / "_runtime.py"
    current = runtime.read_bytes()
    runtime.write_bytes(current + b"OLDER = True\n")  # what another mcp-stubgen version shipped

    stale = run_cli("generate", "--check", "--no-cache", "--config", config)
    assert stale.exit_code == 1 and "1 generated package(s) out of date" in stale.stderr
    assert "--- a/clients/_mcp_runtime/_runtime.py" in stale.stdout and "-OLDER = True" in stale.stdout

    notes = tmp_path / "clients" / "notes" / "client.py"
    notes.write_bytes(
        notes.read_bytes().replace(b"# Generated by mcp-stubgen ", b"# Generated by mcp-stubgen 0.0.1 ", 1)
    )
    assert run_cli("generate", "weather", "--config", config).exit_code == 0  # a partial regenerate
    assert runtime.read_bytes() == current
    mixed = run_cli("generate", "--check", "--no-cache", "--config", config)
    assert mixed.exit_code == 1 and "--- a/clients/notes/client.py" in mixed.stdout
    assert "_mcp_runtime" not in mixed.stdout


@pytest.mark.generated_mypy
def test_sync_client_false_leaves_out_the_sync_twin(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = project(tmp_path)
    config.write_text(config.read_text().replace("[tool.mcp-stubgen]\n", "[tool.mcp-stubgen]\nsync_client = false\n"))
    assert run_cli("generate", "--config", config).exit_code == 0
    package = tmp_path / "clients" / "weather"
    client = (package / "client.py").read_text()
    assert "class WeatherClient(" in client
    assert "WeatherSyncClient" not in client and "connect_sync" not in client
    exported = ast.literal_eval(
        next(node.value for node in ast.parse((package / "__init__.py").read_text()).body
             if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__")
    )  # fmt: skip
    assert "WeatherClient" in exported and not [name for name in exported if "Sync" in name]
    assert run_cli("generate", "--check", "--config", config).exit_code == 0
    typed = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null", "-p", "clients"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert typed.returncode == 0, typed.stdout + typed.stderr
    # nothing the twin needed is left imported: a user's ruff finds no unused import
    linted = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--line-length", str(LINE_LENGTH), "clients/weather"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert linted.returncode == 0, linted.stdout + linted.stderr

    # Turning the twin back on makes the package stale, and generate writes it back.
    config.write_text(config.read_text().replace("sync_client = false\n", ""))
    assert run_cli("generate", "--check", "--config", config).exit_code == 1
    assert run_cli("generate", "--config", config).exit_code == 0
    assert "class WeatherSyncClient(" in (package / "client.py").read_text()


def test_sync_client_false_cannot_go_with_the_hub(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = project(tmp_path)
    config.write_text(
        config.read_text().replace("[tool.mcp-stubgen]\n", "[tool.mcp-stubgen]\nsync_client = false\nhub = true\n")
    )
    result = run_cli("generate", "--config", config)
    assert result.exit_code == 2
    assert "sync_client = false cannot go with hub = true" in result.stderr
    assert not (tmp_path / "clients").exists()
