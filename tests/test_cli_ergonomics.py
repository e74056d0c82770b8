"""The command line does what a user typing it would expect: an ad hoc command without `--name`
still works, a failure names its real cause, and paths are printed the same way by every command."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.conftest import EXAMPLE_SERVER, write_config
from tests.regen_goldens import GOLDEN

PY = sys.executable


def test_ad_hoc_snapshot_without_name_takes_it_from_the_command(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot", "--", PY, EXAMPLE_SERVER)
    assert result.exit_code == 0, result.stderr
    assert "note: no --name given; calling the server 'weather_server' (from its command)" in result.stderr
    assert "weather_server: wrote weather_server.json (" in result.stderr
    assert json.loads((tmp_path / "weather_server.json").read_text())["server"] == "weather_server"


def test_ad_hoc_snapshot_asks_for_a_name_it_cannot_tell(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot", "--", "node", "build/index.js")
    assert result.exit_code == 2
    assert "cannot tell a server id from the command 'node'; pass --name NAME" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_command_that_is_not_executable_is_reported_as_such(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "server.py"
    script.write_text(EXAMPLE_SERVER.read_text())
    script.chmod(0o644)
    result = run_cli("snapshot", "--name", "weather", "--out", tmp_path / "weather.json", "--", script)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [
        f"error: server 'weather': command '{script}' ({script}) is not executable; make it so "
        f"(`chmod +x {script}`) or run it through its interpreter (e.g. command = python)"
    ]
    assert not (tmp_path / "weather.json").exists()


def test_generate_and_sync_print_paths_relative_to_the_working_directory(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n'
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(EXAMPLE_SERVER))}]\n",
    )
    (tmp_path / "snaps").mkdir()
    shutil.copy(GOLDEN / "weather" / "snapshot.json", tmp_path / "snaps" / "weather.json")
    monkeypatch.chdir(tmp_path)
    generated = run_cli("generate")
    assert generated.exit_code == 0, generated.stderr
    assert generated.stderr.startswith("generated clients/weather ("), generated.stderr
    synced = run_cli("sync")
    assert synced.exit_code == 0, synced.stderr
    assert "weather: up to date: clients/weather" in synced.stderr
    again = run_cli("generate")
    assert again.stderr == "clients/weather is up to date\n"
