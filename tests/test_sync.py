"""`mcp-stubgen sync`: snapshot then generate, with a failure leaving a server's files as they were."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLE_SERVER, SERVERS, write_config

PY = sys.executable
RAW = str(SERVERS / "raw_server.py")


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def project(folder: Path, servers: str) -> Path:
    return write_config(folder, f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n{servers}')


def server_table(name: str, *args: str) -> str:
    return f"[tool.mcp-stubgen.servers.{name}]\ncommand = {json.dumps(PY)}\nargs = {json.dumps(list(args))}\n"


def test_sync_writes_snapshot_and_an_importable_package(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    project(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    first = run_cli("sync")
    assert first.exit_code == 0, first.stderr
    assert "weather: wrote snaps/weather.json" in first.stderr
    assert "weather: generated clients/weather" in first.stderr
    # the folder's runtime is named as generate names it, when it is written
    assert "_mcp_runtime: generated clients/_mcp_runtime (5 file(s) written, 0 removed)" in first.stderr.splitlines()
    package = tmp_path / "clients" / "weather"
    assert {"__init__.py", "client.py", "models.py", "py.typed"} <= set(tree_digest(package))
    before = tree_digest(package)
    # sync renders through the same cache as generate, so the next sync or generate reuses its pieces
    assert any(path.is_file() for path in Path(os.environ["MCP_STUBGEN_CACHE_DIR"]).rglob("*"))

    again = run_cli("sync", "weather")
    assert again.exit_code == 0, again.stderr
    assert "weather: unchanged snaps/weather.json" in again.stderr
    assert "weather: unchanged clients/weather" in again.stderr
    assert "_mcp_runtime" not in again.stderr  # said only when it changed
    assert tree_digest(package) == before

    check = run_cli("generate", "--check")
    assert check.exit_code == 0, check.stdout + check.stderr

    imported = subprocess.run(
        [PY, "-c", "from clients.weather import WeatherClient; print(sorted(WeatherClient.tool_fingerprints))"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.strip() == "['celsius_to_fahrenheit', 'get_forecast', 'search', 'send_alert']"


def test_sync_no_cache_neither_reads_nor_writes_the_cache(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCP_STUBGEN_CACHE_DIR", str(tmp_path / "cache"))
    project(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    result = run_cli("sync", "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert "weather: generated clients/weather" in result.stderr
    assert not (tmp_path / "cache").exists()
    check = run_cli("generate", "--check", "--no-cache")
    assert check.exit_code == 0, check.stdout + check.stderr


def test_a_failing_server_leaves_its_files_and_the_others_sync(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    project(tmp_path, server_table("legacy", RAW) + server_table("weather", str(EXAMPLE_SERVER)))
    assert run_cli("sync").exit_code == 0
    legacy_files = tree_digest(tmp_path / "clients" / "legacy")
    legacy_snapshot = (tmp_path / "snaps" / "legacy.json").read_bytes()

    # the legacy server now crashes at start-up: its snapshot and package stay exactly as they were
    project(
        tmp_path, server_table("legacy", RAW, "--mode", "crash-start") + server_table("weather", str(EXAMPLE_SERVER))
    )
    result = run_cli("sync")
    assert result.exit_code == 2
    assert "error: server 'legacy': the server closed the connection during start-up" in result.stderr
    assert "weather: unchanged snaps/weather.json" in result.stderr
    assert (tmp_path / "snaps" / "legacy.json").read_bytes() == legacy_snapshot
    assert tree_digest(tmp_path / "clients" / "legacy") == legacy_files


def test_a_catalog_that_cannot_be_generated_does_not_update_the_snapshot(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    project(tmp_path, server_table("legacy", RAW))
    assert run_cli("sync").exit_code == 0
    snapshot = (tmp_path / "snaps" / "legacy.json").read_bytes()
    package = tree_digest(tmp_path / "clients" / "legacy")

    project(tmp_path, server_table("legacy", RAW, "--mode", "bad-properties"))
    result = run_cli("sync")
    assert result.exit_code == 2
    assert "error: server 'legacy': tool 'broken': /inputSchema" in result.stderr
    assert (tmp_path / "snaps" / "legacy.json").read_bytes() == snapshot
    assert tree_digest(tmp_path / "clients" / "legacy") == package


def test_sync_needs_an_output_folder(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    config = write_config(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    result = run_cli("sync", "--config", config)
    assert result.exit_code == 2
    assert "set `output` under [tool.mcp-stubgen] to sync" in result.stderr
