"""Every command scripted: `--format json` lines on stdout, `-q`, `NO_COLOR`/`FORCE_COLOR`,
`python -m codegen` and shell completion, as a script or a CI job sees them."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLE_SERVER, PYTHON, REPO, read_terminal, write_config
from tests.regen_goldens import GOLDEN

PY = PYTHON
HISTORY = REPO / "tests" / "fixtures" / "history"
DRIFT_COMMAND = [
    PY,
    "-m",
    "codegen.cli",
    "drift",
    HISTORY / "filesystem-2025.8.21.json",
    HISTORY / "filesystem-2025.11.25.json",
]
"""`drift` between two releases of server-filesystem, as a fork of the worker's server of forks (on the stdout it is given)."""


def lines(stdout: str) -> list[dict[str, Any]]:
    """The JSON Lines a command printed: every stdout line must be one JSON object."""
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example weather server (working) and `broken` (exits at once), weather's snapshot committed."""
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n'
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(EXAMPLE_SERVER))}]\n\n"
        f'[tool.mcp-stubgen.servers.broken]\ncommand = {json.dumps(PY)}\nargs = ["-c", "raise SystemExit(3)"]\n',
    )
    (tmp_path / "snaps").mkdir()
    shutil.copy(GOLDEN / "weather" / "snapshot.json", tmp_path / "snaps" / "weather.json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_snapshot_json_is_one_object_per_server_and_errors_are_objects_too(project: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("snapshot", "--format", "json")
    assert result.exit_code == 2
    objects = {item["server"]: item for item in lines(result.stdout)}
    assert set(objects) == {"weather", "broken"}
    assert objects["weather"] == {
        "format": 1,
        "command": "snapshot",
        "server": "weather",
        "status": "unchanged",
        "snapshot": "snaps/weather.json",
        "counts": {"tools": 4, "resources": 1, "templates": 1, "prompts": 1},
        "protocol": "2026-07-28",
        "missing_methods": [],
        "skipped_lists": [],
    }
    broken = objects["broken"]
    assert broken["status"] == "error" and broken["snapshot"] == "snaps/broken.json"
    assert broken["error"].startswith("server 'broken': ")
    assert f"error: {broken['error']}" in result.stderr  # people still read the same line on stderr


def test_a_failed_run_is_one_json_object_with_its_exit_code(project: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("generate", "nowhere", "--format", "json")
    assert result.exit_code == 2
    assert lines(result.stdout) == [
        {
            "format": 1,
            "command": "generate",
            "server": None,
            "status": "error",
            "error": "unknown server 'nowhere' (configured: broken, weather)",
            "exit_code": 2,
        }
    ]
    usage = run_cli("generate", "a.json", "--format", "json")
    assert usage.exit_code == 2
    assert lines(usage.stdout)[0]["error"] == "generating from snapshot files needs --out DIR"


def test_generate_and_check_as_json(project: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    generated = run_cli("generate", "weather", "--format", "json")
    assert generated.exit_code == 0, generated.stderr
    item, runtime = lines(generated.stdout)
    assert item["status"] == "generated" and item["server"] == "weather"
    assert (item["snapshot"], item["package"]) == ("snaps/weather.json", "clients/weather")
    assert "client.py" in item["written"] and item["removed"] == []
    # the folder's runtime, named when written: it belongs to no server
    assert (runtime["server"], runtime["snapshot"], runtime["package"]) == (None, None, "clients/_mcp_runtime")
    assert lines(run_cli("generate", "weather", "--format", "json").stdout)[0]["status"] == "unchanged"

    current = run_cli("generate", "weather", "--check", "--format", "json")
    assert current.exit_code == 0
    assert [item["status"] for item in lines(current.stdout)] == ["current"]
    client = project / "clients" / "weather" / "client.py"
    client.write_text(client.read_text() + "# edited\n")
    stale = run_cli("generate", "weather", "--check", "--format", "json")
    assert stale.exit_code == 1
    [item] = lines(stale.stdout)  # the diff is inside the object, not printed beside it
    assert item["status"] == "stale" and "-# edited" in item["diff"]


def test_sync_json_names_the_snapshot_and_the_package(project: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("sync", "weather", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert lines(result.stdout) == [
        {
            "format": 1,
            "command": "sync",
            "server": "weather",
            "status": "generated",
            "snapshot": "snaps/weather.json",
            "snapshot_changed": False,
            "package": "clients/weather",
            "counts": {"tools": 4, "resources": 1, "templates": 1, "prompts": 1},
        },
        {  # the folder's runtime, once the run is done with it, as generate reports it
            "format": 1,
            "command": "sync",
            "server": None,
            "status": "generated",
            "snapshot": None,
            "package": "clients/_mcp_runtime",
            "written": [
                "__init__.py",
                "_auth.py",
                "_http.py",
                "_loop_thread.py",
                "_runtime.py",
                "_schema_check.py",
                "_stdio.py",
                "_uri_template.py",
            ],
            "removed": [],
        },
    ]


def test_watch_json_is_one_object_per_event(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\n\n'
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(EXAMPLE_SERVER))}]\n",
    )
    result = subprocess.run(
        [PY, "-m", "codegen", "watch", "--max-changes", "1", "--format", "json", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    events = lines(result.stdout)
    assert [event["status"] for event in events] == ["published", "watching", "stopped"]
    published, _, stopped = events
    assert published["status"] == "published" and published["server"] == "weather"
    assert published["first"] is True and published["findings"] == []
    assert (published["snapshot"], published["package"]) == ("snaps/weather.json", None)
    assert stopped == {"format": 1, "command": "watch", "server": None, "status": "stopped", "changes": 1}


def test_quiet_prints_errors_only_wherever_it_is_given(project: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    assert run_cli("generate", "weather").stderr.startswith("weather: generated clients/weather")
    for args in (("generate", "weather", "-q"), ("-q", "generate", "weather"), ("generate", "weather", "--quiet")):
        result = run_cli(*args)
        assert (result.exit_code, result.stderr, result.stdout) == (0, "", "")
    failed = run_cli("snapshot", "-q")
    assert failed.exit_code == 2
    assert failed.stderr.startswith("error: server 'broken': ") and failed.stderr.count("\n") == 1


def test_every_command_takes_quiet(run_cli) -> None:  # type: ignore[no-untyped-def]
    from codegen.cli import cli

    for name in cli.list_commands(None):  # type: ignore[arg-type]
        assert "-q, --quiet" in run_cli(name, "--help").stdout, name


def _drift_report(env: dict[str, str]) -> str:
    """`drift` between two snapshots of one server, its report captured through a pipe."""
    result = subprocess.run(
        DRIFT_COMMAND,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
        timeout=60,
    )
    assert result.returncode in (0, 1), result.stderr
    return result.stdout


def _drift_report_on_a_terminal(env: dict[str, str]) -> bytes:
    """The same report written to a pseudo-terminal, where colour is on unless NO_COLOR says otherwise."""
    leader, follower = pty.openpty()
    environment = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    process = subprocess.Popen(
        DRIFT_COMMAND,
        stdout=follower,
        stderr=subprocess.DEVNULL,
        env={**environment, "PYTHONPATH": str(REPO), **env},
    )
    os.close(follower)
    output = read_terminal(leader)
    assert process.wait(timeout=60) in (0, 1)
    return output


def test_force_color_and_no_color() -> None:
    assert "\x1b[" not in _drift_report({})  # a pipe: no colour by default
    assert "\x1b[31m" in _drift_report({"FORCE_COLOR": "1"})
    assert "\x1b[" not in _drift_report({"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert b"\x1b[31m" in _drift_report_on_a_terminal({})
    assert b"\x1b[" not in _drift_report_on_a_terminal({"NO_COLOR": "1"})


def test_python_dash_m_codegen_is_the_command() -> None:
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    version = subprocess.run([PY, "-m", "codegen", "--version"], capture_output=True, text=True, env=environment)
    assert version.returncode == 0 and version.stdout.startswith("mcp-stubgen, version ")
    usage = subprocess.run([PY, "-m", "codegen", "--help"], capture_output=True, text=True, env=environment)
    assert usage.stdout.startswith("Usage: mcp-stubgen [OPTIONS] COMMAND [ARGS]...")


def test_shell_completion_as_documented() -> None:
    environment = {**os.environ, "PYTHONPATH": str(REPO), "_MCP_STUBGEN_COMPLETE": "bash_source"}
    script = subprocess.run([PY, "-m", "codegen"], capture_output=True, text=True, env=environment)
    assert script.returncode == 0 and "complete -o nosort -F _mcp_stubgen_completion mcp-stubgen" in script.stdout
    environment |= {"_MCP_STUBGEN_COMPLETE": "bash_complete", "COMP_WORDS": "mcp-stubgen s", "COMP_CWORD": "1"}
    words = subprocess.run([PY, "-m", "codegen"], capture_output=True, text=True, env=environment)
    assert words.stdout.split() == ["plain,snapshot", "plain,sync"]
