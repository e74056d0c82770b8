"""Configuration a user writes by hand, or copies from another MCP client, is read as they meant it:
a wrong type or a misspelt key is one clear error, and keys other clients write are understood or
set aside with a notice."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import write_config


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ") and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.mark.parametrize(
    ("body", "pattern"),
    [
        ('[tool.mcp-stubgen]\nhub = "no"\n', r"pyproject.toml: hub: expected true or false"),
        ("[tool.mcp-stubgen]\nservers_file = 1\n", r"servers_file: expected a string"),
        ("[tool.mcp-stubgen]\nmax_pages = 2.5\n", r"max_pages: expected a positive whole number"),
        ('[tool.mcp-stubgen]\nmethod_names = "x"\n', r"\[tool.mcp-stubgen.method_names\] must be a table"),
        (
            '[tool.mcp-stubgen]\nsnapshot = "snaps"\n',
            r"\[tool.mcp-stubgen\]: unknown key 'snapshot'; did you mean 'snapshots'\?",
        ),
        ("[tool.mcp-stubgen]\nhubb = true\n", r"unknown key 'hubb'; did you mean 'hub'\?"),
        ("[tool.mcp-stubgen]\nzzz = 1\n", r"unknown key 'zzz'; known keys: connect_timeout, drift, hub, "),
        (
            '[tool.mcp-stubgen.servers.a]\ncomand = "x"\n',
            r"servers.a\]: unknown key 'comand'; did you mean 'command'\?",
        ),
        ('[tool.mcp-stubgen.servers.a]\nurl = "http://h"\ntype = ["http"]\n', r"servers.a\]: type: expected a string"),
    ],
)
def test_config_values_are_type_checked_and_keys_spelt_right(body: str, pattern: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("generate", "--config", write_config(tmp_path, body))
    assert result.exit_code == 2
    assert re.search(pattern, one_error_line(result.stderr)), result.stderr
    assert not (tmp_path / "hub").exists()
