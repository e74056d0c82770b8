"""A list method a server declares but does not implement (-32601) is recorded as missing, warned
about and reported as safe drift once it appears; the stderr shown with a failure is what the server
wrote after the failing request. `mcp-server-sqlite` (mcp 1.x, from PyPI in its own venv) is the real
server that does this: snapshotted, generated, imported and called end to end."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import PYTHON, SERVERS, write_config

PY = PYTHON
RAW = str(SERVERS / "raw_server.py")
TEMPLATES_WARNING = (
    "warning: server 'sqlite': resources/templates/list is declared but not implemented "
    "(-32601 Method not found); recorded as empty"
)

CALLS = """
import asyncio, json, sys
from mcp import StdioServerParameters
from clients.sqlite import SqliteClient

async def main() -> None:
    server = StdioServerParameters(command=sys.argv[1], args=["--db-path", sys.argv[2]])
    async with SqliteClient.connect(server) as db:
        await db.create_table(query="CREATE TABLE city (name TEXT)")
        await db.write_query(query="INSERT INTO city VALUES ('Oslo')")
        rows = await db.read_query(query="SELECT name FROM city")
        await db.verify()
    print(json.dumps({"error": rows.raw.is_error, "text": rows.text}))

asyncio.run(main())
"""


def test_sqlite_server_snapshots_generates_and_is_called(
    tmp_path: Path, run_cli, sqlite_server: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    database = tmp_path / "test.db"
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
output = "clients"
[tool.mcp-stubgen.servers.sqlite]
command = {json.dumps(str(sqlite_server))}
args = ["--db-path", {json.dumps(str(database))}]
""",
    )
    result = run_cli("snapshot")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == TEMPLATES_WARNING
    snapshot = json.loads((tmp_path / "snaps" / "sqlite.json").read_text())
    assert snapshot["missingMethods"] == ["resources/templates/list"]
    assert "resources" in snapshot["capabilities"] and snapshot["resourceTemplates"] == []
    assert [tool["name"] for tool in snapshot["tools"]] == [
        "append_insight", "create_table", "describe_table", "list_tables", "read_query", "write_query",
    ]  # fmt: skip
    assert [resource["uri"] for resource in snapshot["resources"]] == ["memo://insights"]

    result = run_cli("generate")
    assert result.exit_code == 0, result.stderr
    assert run_cli("generate", "--check").exit_code == 0
    called = subprocess.run(
        [PY, "-c", CALLS, str(sqlite_server), str(database)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == {"error": False, "text": "[{'name': 'Oslo'}]"}


def raw_config(tmp_path: Path, mode: str) -> None:
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
[tool.mcp-stubgen.servers.raw]
command = {json.dumps(PY)}
args = [{json.dumps(RAW)}, "--mode", "{mode}"]
""",
    )


def test_missing_method_is_recorded_then_reported_as_safe_when_it_appears(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`tools/list` answers -32601: the snapshot keeps the prompts and notes the missing method; once
    the server implements it, live `drift` reports `list-method-appeared` (safe), and the new unannotated tools as `tool-added-destructive`."""
    monkeypatch.chdir(tmp_path)
    raw_config(tmp_path, "tools-not-implemented")
    result = run_cli("snapshot")
    assert result.exit_code == 0, result.stderr
    assert "warning: server 'raw': tools/list is declared but not implemented" in result.stderr
    snapshot = json.loads((tmp_path / "snaps" / "raw.json").read_text())
    assert (snapshot["missingMethods"], snapshot["tools"]) == (["tools/list"], [])
    assert [prompt["name"] for prompt in snapshot["prompts"]] == ["summarize"]

    raw_config(tmp_path, "legacy")
    result = run_cli("drift", "--format", "json", "--fail-on", "breaking")
    assert result.exit_code == 0, result.stderr
    findings = json.loads(result.stdout)["findings"]
    appeared = [finding for finding in findings if finding["rule"] == "list-method-appeared"]
    assert [(finding["severity"], finding["path"]) for finding in appeared] == [("safe", "/missingMethods")]
    assert sorted({finding["rule"] for finding in findings}) == ["list-method-appeared", "tool-added-destructive"]


def test_other_list_errors_still_fail(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("snapshot", "--name", "raw", "--out", tmp_path / "raw.json", "--", PY, RAW, "--mode", "list-error")
    assert result.exit_code == 2
    assert "tools/list failed: database unavailable (code -32603)" in result.stderr
    assert not (tmp_path / "raw.json").exists()


def test_stderr_tail_is_what_the_server_wrote_after_the_failing_request(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """The `server/discover` probe's noise comes before the failing `tools/list`, so it is not shown."""
    result = run_cli(
        "snapshot", "--name", "raw", "--out", tmp_path / "raw.json", "--", PY, RAW, "--mode", "noisy-probe"
    )
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert line.endswith(
        "tools/list failed: database unavailable (code -32603); its last stderr lines: error: table 'tools' is locked"
    ), line
    assert "unrelated noise" not in line


def test_a_server_that_exits_without_a_word_shows_what_it_said_before(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """biomcp 0.9.3 says why it will exit (no `initialize` within 5 s) and exits silently at the next
    request: `watch` polling it said only "closed the connection during tools/list", its stderr
    since that request being empty."""
    result = run_cli(
        "snapshot", "--name", "raw", "--out", tmp_path / "raw.json", "--", PY, RAW, "--mode", "dies-quietly"
    )
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert line.endswith(
        "the server closed the connection during tools/list; its last stderr lines before tools/list: "
        "Error: This command expects an MCP client on stdin (initialize handshake)."
    ), line


def test_a_failing_list_method_can_be_skipped_and_the_snapshot_says_so(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """terraform-mcp-server 0.13.0 declares resources and fails `resources/list` (-32603): the error line
    says how to snapshot the rest; with `skip_lists` the rest is snapshotted, the method is recorded
    in `skippedLists` (format 6) with a warning every time, and the package is generated without it."""
    monkeypatch.chdir(tmp_path)
    config = """[tool.mcp-stubgen]
snapshots = "snaps"
output = "clients"
[tool.mcp-stubgen.servers.raw]
command = {command}
args = [{raw}, "--mode", "prompts-list-error"]
"""
    write_config(tmp_path, config.format(command=json.dumps(PY), raw=json.dumps(RAW)))
    failed = run_cli("snapshot")
    assert failed.exit_code == 2
    assert failed.stderr == (
        "error: server 'raw': prompts/list failed: Missing or invalid 'uri' parameter in prompts/list request "
        '(code -32603); to snapshot the rest without it, set skip_lists = ["prompts/list"] in its server table\n'
    ), failed.stderr
    assert not (tmp_path / "snaps").exists()

    write_config(
        tmp_path, config.format(command=json.dumps(PY), raw=json.dumps(RAW)) + 'skip_lists = ["prompts/list"]\n'
    )
    warning = (
        "warning: server 'raw': prompts/list was not called (skip_lists in its config); "
        "what it lists is not in the snapshot or the package"
    )
    for _ in range(2):
        taken = run_cli("sync")
        assert taken.exit_code == 0, taken.stderr
        assert warning in taken.stderr.splitlines()
    written = (tmp_path / "snaps" / "raw.json").read_bytes()
    snapshot = json.loads(written)
    assert (snapshot["format"], snapshot["skippedLists"], snapshot["prompts"]) == (6, ["prompts/list"], [])
    assert "prompts" in snapshot["capabilities"] and len(snapshot["tools"]) == 5
    client = (tmp_path / "clients" / "raw" / "client.py").read_text()
    assert "async def bravo(" in client and "summarize" not in client
    assert run_cli("generate", "--check").exit_code == 0


def test_an_ad_hoc_snapshot_skips_a_failing_list_method_with_skip_list(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An ad hoc server has no config table to set `skip_lists` in: its error line names the option
    that does the same, and the snapshot it takes records the method as skipped."""
    monkeypatch.chdir(tmp_path)
    command = ("--", PY, RAW, "--mode", "prompts-list-error")
    failed = run_cli("snapshot", "--name", "raw", *command)
    assert failed.exit_code == 2
    assert failed.stderr.splitlines()[-1].endswith("; to snapshot the rest without it, add --skip-list prompts/list")
    assert not (tmp_path / "raw.json").exists()
    taken = run_cli("snapshot", "--name", "raw", "--skip-list", "prompts/list", *command)
    assert taken.exit_code == 0, taken.stderr
    # it named `skip_lists in its config`, of a server with no config (the twenty-first round)
    assert (
        "warning: server 'raw': prompts/list was not called (--skip-list); what it lists is not in the snapshot"
    ) in taken.stderr, taken.stderr
    snapshot = json.loads((tmp_path / "raw.json").read_bytes())
    assert (snapshot["skippedLists"], snapshot["prompts"], len(snapshot["tools"])) == (["prompts/list"], [], 5)
    misspelt = run_cli("snapshot", "--name", "raw", "--skip-list", "prompt/list", *command)
    assert misspelt.exit_code == 2 and "'prompt/list' is not one of" in misspelt.stderr, misspelt.stderr
    configured = run_cli("snapshot", "--skip-list", "prompts/list")
    assert (
        configured.exit_code == 2
        and "--skip-list and --client-capability need --name (ad hoc mode)" in configured.stderr
    )


def test_skip_lists_names_list_methods_only(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
[tool.mcp-stubgen.servers.raw]
command = {json.dumps(PY)}
skip_lists = ["resource/list"]
""",
    )
    result = run_cli("snapshot", "--config", tmp_path / "pyproject.toml")
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "[tool.mcp-stubgen.servers.raw]: skip_lists: 'resource/list' is not a list method; did you mean 'resources/list'?\n"
    ), result.stderr


@pytest.mark.parametrize(
    ("mode", "failure"),
    [
        (
            "prompts-list-hang",
            "prompts/list did not answer within 1s; raise request_timeout in the config or --request-timeout",
        ),
        (
            "prompts-list-invalid",
            "prompts/list returned a result that is not valid MCP (/prompts: Input should be a valid list)",
        ),
    ],
)
def test_every_way_a_list_method_fails_offers_skip_lists(tmp_path: Path, run_cli, mode: str, failure: str) -> None:  # type: ignore[no-untyped-def]
    """A prompts/list that hangs or answers a page MCP does not allow is as fatal as one that errs; each
    line ends with the same way to snapshot the rest, and nothing is written."""
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
[tool.mcp-stubgen.servers.raw]
command = {json.dumps(PY)}
args = [{json.dumps(RAW)}, "--mode", "{mode}"]
request_timeout = 1
""",
    )
    result = run_cli("snapshot", "--config", tmp_path / "pyproject.toml")
    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith(f"error: server 'raw': {failure}"), result.stderr
    assert result.stderr.endswith(
        '; to snapshot the rest without it, set skip_lists = ["prompts/list"] in its server table\n'
    ), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "snaps").exists()
