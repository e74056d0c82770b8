"""End to end: snapshot a real stdio server, change its catalog, and let `drift` judge it live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import PYTHON, SERVERS, write_config

EXPECTED = [
    ("tool-removed", "breaking", "delete_station", None, ""),
    ("tool-renamed", "breaking", "find_stations", "search_stations", ""),
    ("in-required-added", "breaking", "add_note", None, "/inputSchema/properties/author"),
    ("out-property-removed", "breaking", "get_reading", None, "/outputSchema/properties/humidity"),
    ("annotation-readonly-withdrawn", "dangerous", "list_stations", None, "/annotations/readOnlyHint"),
    ("description-changed", "dangerous", "to_fahrenheit", None, "/description"),
    ("server-info-changed", "safe", "drifty", None, "/serverInfo/version"),
]


def test_live_drift_then_update(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    config = write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"

[tool.mcp-stubgen.servers.drifty]
command = {json.dumps(PYTHON)}
args = [{json.dumps(str(SERVERS / "drift_server.py"))}]
env = {{ DRIFT_CATALOG = "${{DRIFT_CATALOG}}" }}
""",
    )
    committed = tmp_path / "snapshots" / "drifty.json"
    monkeypatch.setenv("DRIFT_CATALOG", "v1")
    assert run_cli("snapshot", "--config", config).exit_code == 0
    v1 = committed.read_bytes()

    monkeypatch.setenv("DRIFT_CATALOG", "v2")
    result = run_cli("drift", "--config", config, "--format", "json")
    assert result.exit_code == 1, result.stderr
    assert committed.read_bytes() == v1  # live mode leaves the committed snapshot alone
    findings = json.loads(result.stdout)["findings"]
    got = [(f["rule"], f["severity"], f["name"], f["old_name"], f["path"]) for f in findings]
    assert sorted(got) == sorted(EXPECTED)
    assert {f["server"] for f in findings} == {"drifty"}

    result = run_cli("drift", "--config", config, "--update", "--fail-on", "never")
    assert result.exit_code == 0
    assert committed.read_bytes() != v1
    fresh = tmp_path / "v2.json"
    fresh.write_bytes(committed.read_bytes())
    committed_v1 = tmp_path / "v1.json"
    committed_v1.write_bytes(v1)
    for fail_on, code in (("breaking", 1), ("dangerous", 1), ("any", 1), ("never", 0)):
        assert run_cli("drift", committed_v1, fresh, "--fail-on", fail_on).exit_code == code
    assert run_cli("drift", fresh, fresh, "--fail-on", "any").exit_code == 0


def test_unreachable_server_is_exit_2(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"

[tool.mcp-stubgen.servers.broken]
command = {json.dumps(PYTHON)}
args = ["-c", "raise SystemExit(3)"]
""",
    )
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "broken.json").write_text(
        json.dumps({"format": 1, "server": "broken", "protocolVersion": "2025-11-25", "capabilities": {}}),
        encoding="utf-8",
    )
    result = run_cli("drift", "--config", config)
    assert result.exit_code == 2
    assert "broken" in result.stderr


def test_missing_committed_snapshot_is_exit_2(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    config = write_config(tmp_path, '[tool.mcp-stubgen.servers.absent]\ncommand = "true"\n')
    result = run_cli("drift", "--config", config)
    assert result.exit_code == 2
    assert "no such snapshot" in result.stderr
