"""Nothing half-done: every server's snapshot and package are published together, a killed swap is
recovered on the next run, and two server ids never share one package or one snapshot file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import write_config

PY = sys.executable


def server_table(name: str) -> str:
    return f'[tool.mcp-stubgen.servers.{name}]\ncommand = {json.dumps(PY)}\nargs = ["-c", "pass"]\n'


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        ("a-b", "a_b", "the package 'a_b'"),
        ("Weather", "weather", "the package 'weather'"),
        ("fooBar", "foobar", "the snapshot file 'foobar.json' (ignoring case)"),
    ],
)
def test_two_server_ids_sharing_a_package_or_snapshot_are_a_config_error(
    tmp_path: Path, run_cli, first: str, second: str, shared: str
) -> None:  # type: ignore[no-untyped-def]
    config = write_config(
        tmp_path, '[tool.mcp-stubgen]\noutput = "clients"\n' + server_table(f'"{first}"') + server_table(f'"{second}"')
    )
    for command in (("generate", "--check"), ("snapshot",), ("sync",), ("drift",), ("watch",)):
        result = run_cli(*command, "--config", config)
        assert result.exit_code == 2, (command, result.stderr)
        assert result.stderr == (
            f"error: {config}: server ids {first!r} and {second!r} would both write {shared}; rename one of them\n"
        )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pyproject.toml"]


def test_a_servers_file_id_clashing_with_a_pyproject_id_is_a_config_error(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    servers_file = tmp_path / "mcp.json"
    servers_file.write_text(json.dumps({"mcpServers": {"a-b": {"command": PY, "args": ["-c", "pass"]}}}))
    config = write_config(tmp_path, '[tool.mcp-stubgen]\noutput = "clients"\n' + server_table('"a_b"'))
    result = run_cli("generate", "--config", config, "--servers-file", servers_file)
    assert result.exit_code == 2
    assert "server ids 'a-b' and 'a_b' would both write the package 'a_b'; rename one of them" in result.stderr
    # the same id in both places is an override, not a clash
    servers_file.write_text(json.dumps({"mcpServers": {"a_b": {"command": PY, "args": ["-c", "pass"]}}}))
    result = run_cli("generate", "--check", "--config", config, "--servers-file", servers_file)
    assert "would both write" not in result.stderr
