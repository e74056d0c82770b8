"""Secrets and server text on their way to a terminal, a CI log or a committed snapshot: a secret is
scrubbed in every spelling before stderr is cut, from every log record, and refused in a catalog;
server text is one printable line in every message and report format, and cannot ping or link from
a Markdown drift report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from codegen.redact import Secrets, is_secret
from codegen.snapshot import write_snapshot
from tests.conftest import PYTHON, REPO, SERVERS, write_config
from tests.drift_helpers import obj, snap, tool

PY = PYTHON
RAW = str(SERVERS / "raw_server.py")
SECRET = 's3cr3t"pl\\anted-7f1e9c-\u00fc'
"""A secret whose JSON, `repr` and URL spellings all differ from it; every spelling keeps both ends."""
ENDS = ("s3cr3t", "7f1e9c")


PLANTED_ENV = '{ API_KEY = "${PLANTED_SECRET}", DEBUG = "1", MODE = "production" }'


def raw_project(tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch, env: str = PLANTED_ENV) -> Path:
    """A project whose one server is `raw_server.py` in `mode`, started with `env` (a TOML inline table)."""
    monkeypatch.setenv("PLANTED_SECRET", SECRET)
    monkeypatch.chdir(tmp_path)
    return write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
output = "clients"
[tool.mcp-stubgen.servers.raw]
command = {json.dumps(PY)}
args = [{json.dumps(RAW)}, "--mode", "{mode}"]
env = {env}
""",
    )


def assert_no_part_of_the_secret(output: str) -> None:
    for end in ENDS:
        assert end not in output, output


@pytest.mark.parametrize("mode", ["leak-secret-spellings", "leak-secret-at-cut"])
def test_stderr_tail_is_scrubbed_of_every_spelling_before_it_is_cut(
    mode: str,
    tmp_path: Path,
    run_cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """JSON-escaped, `repr`, URL-encoded, split over two lines, or cut in half by the 600-character
    limit: no piece of the secret is shown, and the rest of the server's last words still are."""
    raw_project(tmp_path, mode, monkeypatch)
    result = run_cli("snapshot")
    assert result.exit_code == 2
    assert "its last stderr lines:" in result.stderr and "***" in result.stderr, result.stderr
    assert_no_part_of_the_secret(result.stdout + result.stderr)
    if mode == "leak-secret-spellings":
        assert "GET /login?key=***" in result.stderr and "was rejected" in result.stderr


def test_verbose_log_records_of_the_sdk_are_scrubbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that prints its key on stdout: the SDK logs the line (in a traceback) under `-v`.
    Run as a real process, so the command line's own log handler is the one writing."""
    raw_project(tmp_path, "echo-secret-stdout", monkeypatch)
    result = subprocess.run(
        [PY, "-m", "codegen.cli", "-v", "snapshot"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stderr
    assert "Failed to parse JSONRPC message" in result.stderr  # the record is there, scrubbed
    assert "logged in as ***" in result.stderr
    assert_no_part_of_the_secret(result.stdout + result.stderr)


def test_a_catalog_that_echoes_a_secret_is_not_written(
    tmp_path: Path,
    run_cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server puts its own key into its instructions: one line naming the server and the field,
    never the value, exit 2, no snapshot; `sync` and live `drift` refuse it the same way."""
    raw_project(tmp_path, "echo-secret-catalog", monkeypatch)
    for command in (("snapshot",), ("sync",)):
        result = run_cli(*command)
        assert result.exit_code == 2
        lines = result.stderr.strip().splitlines()
        assert lines == [
            "error: server 'raw': the catalog contains the value of one of its secrets (`env`, `headers`, `auth` "
            "or an OAuth token) at /instructions; the snapshot was not written. Have the server stop echoing it, and rotate the "
            "secret if it was shared"
        ], result.stderr
        assert not (tmp_path / "snaps").exists()
    committed = snap(instructions="A legacy server for tests.")
    write_snapshot(tmp_path / "snaps" / "raw.json", committed)
    result = run_cli("drift")
    assert result.exit_code == 2
    assert "server 'raw': the catalog contains the value" in result.stderr
    assert_no_part_of_the_secret(result.stdout + result.stderr)


@pytest.mark.parametrize(
    "mode",
    [
        "echo-secret-base64",
        "echo-secret-in-base64",
        "echo-secret-hex",
        "echo-secret-reversed",
        "echo-secret-zero-width",
    ],
)
def test_a_secret_echoed_encoded_is_refused_too(
    mode: str,
    tmp_path: Path,
    run_cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Base64 (whole, or inside a longer URL-safe base64 text), hex, reversed, or with a zero-width
    space between every character: the catalog is refused as when the key is echoed as is."""
    raw_project(tmp_path, mode, monkeypatch)
    result = run_cli("snapshot")
    assert result.exit_code == 2, result.stderr
    assert (
        "server 'raw': the catalog contains the value of one of its secrets (`env`, `headers`, `auth` or an OAuth "
        "token) at /instructions" in result.stderr
    )
    assert not (tmp_path / "snaps").exists()


def test_a_catalog_that_echoes_a_region_from_env_is_written(
    tmp_path: Path,
    run_cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """awslabs' servers take `AWS_REGION` in `env` and name it in their instructions and schemas;
    a region is a setting, not a secret, so the snapshot is written."""
    raw_project(tmp_path, "echo-secret-catalog", monkeypatch, env='{ API_KEY = "eu-central-1" }')
    result = run_cli("snapshot")
    assert result.exit_code == 0, result.stderr
    assert "Your key is eu-central-1." in (tmp_path / "snaps" / "raw.json").read_text(encoding="utf-8")


def test_watch_refuses_a_catalog_that_echoes_a_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    raw_project(tmp_path, "echo-secret-catalog", monkeypatch)
    watcher = subprocess.Popen(
        [PY, "-m", "codegen.cli", "watch", "--interval", "60"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert watcher.stderr is not None
    try:
        first = watcher.stderr.readline()
    finally:
        watcher.send_signal(signal.SIGINT)
        _stdout, rest = watcher.communicate(timeout=30)
    assert first.startswith("error: server 'raw': the catalog contains the value of one of its secrets (`env`")
    assert "at /instructions" in first
    assert_no_part_of_the_secret(first + rest)
    assert not (tmp_path / "snaps").exists() and not (tmp_path / "clients").exists()


def test_plain_settings_in_env_are_not_secrets() -> None:
    """The documented rule: at least 8 characters with a letter and a digit; a header value's words
    are judged one by one, so `Bearer <token>` refuses the token."""
    assert [value for value in ("1", "true", "8080", "production", "application/json") if is_secret(value)] == []
    assert is_secret("sk-live-4f9a2c7e") and is_secret(SECRET)
    # words joined with small numbers are a setting (a cloud region), a word of both or a long number is not
    assert [value for value in ("us-east-1", "eu-central-2", "us-gov-west-1") if is_secret(value)] == []
    assert is_secret("Password-2024") and is_secret("tok3n-abcdef12") and is_secret("AKIA1234567890")
    secrets = Secrets(["Bearer tok3n-abcdef12", "true", "production"])
    secrets.refuse_in_catalog("demo", {"description": "production; true; Bearer scheme"})  # no error
    with pytest.raises(Exception, match=r"server 'demo': .* at /tools/0/inputSchema/properties/tok~1en"):
        secrets.refuse_in_catalog("demo", {"tools": [{"inputSchema": {"properties": {"tok/en": "x tok3n-abcdef12"}}}]})


def test_an_existing_folder_in_env_is_a_setting_the_catalog_may_name(tmp_path: Path) -> None:
    """excel-mcp-server 2.2.2 names its `EXCEL_FILES_PATH` folder in its instructions; a folder whose
    path holds a digit (`/home/ann/project2/sheets`) stopped the snapshot as an echoed secret, telling
    the user to rotate it. A path that names nothing on disk is judged as any other value."""
    folder = tmp_path / "project2" / "sheets"
    folder.mkdir(parents=True)
    instructions = f"Work with Excel workbooks (.xlsx, .xlsm). Workbooks live in {folder}; use paths relative to it."
    Secrets([str(folder)]).refuse_in_catalog("excel", {"instructions": instructions})  # no error
    assert not is_secret(str(folder)) and not is_secret(str(folder / ".."))
    assert is_secret(str(tmp_path / "tok3n-abcdef12")) and is_secret("/tok3n-abcdef12")


HOSTILE = (
    "ok\n::notice title=pwned::owned \x1b]8;;https://evil.example\x07link\x1b]8;;\x07"
    " \u2028 \u202e \x9b @octocat https://evil.example"
)


def assert_printable_lines(text: str) -> None:
    """No line starts a workflow command, and no terminal escape survives."""
    assert not {"\x1b", "\x07", "\r", "\x9b"} & set(text)
    assert not any(line.startswith("::notice title=pwned") for line in text.splitlines()), text


def test_a_server_error_message_is_one_printable_line(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(
        "snapshot", "--name", "raw", "--out", tmp_path / "raw.json", "--", PY, RAW, "--mode", "hostile-error"
    )
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "tools/list failed: failed\\n::notice title=pwned::owned\\x1b]8;;https://evil.example\\x07link" in lines[0]
    assert_printable_lines(result.stderr)


def test_a_generate_error_quoting_server_text_is_one_printable_line(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    schema = obj({HOSTILE: {"$ref": "#/$defs/Missing"}})
    write_snapshot(tmp_path / "demo.json", snap((tool("t", schema),)))
    result = run_cli("generate", tmp_path / "demo.json", "--out", tmp_path / "out", "--strict")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert_printable_lines(result.stderr)
    # without --strict the tool is generated untyped, and the warning quoting it is one line too
    result = run_cli("generate", tmp_path / "demo.json", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    # the warning, then the package and the output folder's runtime
    assert [line.startswith("warning: ") for line in result.stderr.splitlines()] == [True, False, False], result.stderr
    assert_printable_lines(result.stderr)


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "github"])
def test_drift_reports_keep_server_text_on_one_printable_line(fmt: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    old = snap((tool("t", description="Adds."), tool("gone")))
    new = snap((tool("t", description=HOSTILE), tool(HOSTILE)))
    write_snapshot(tmp_path / "old.json", old)
    write_snapshot(tmp_path / "new.json", new)
    result = run_cli("drift", tmp_path / "old.json", tmp_path / "new.json", "--format", fmt, "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    assert_printable_lines(result.stdout)
    assert not {"\u2028", "\u202e", "\x9b"} & set(result.stdout)
    if fmt == "github":
        # one annotation per finding, none injected: three changes, and the audit's two invisible characters
        assert len(result.stdout.splitlines()) == 5
    if fmt == "json":
        assert HOSTILE in [finding["new"] for finding in json.loads(result.stdout)["findings"]]


def test_markdown_report_cannot_mention_or_link(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Every piece of server text sits inside a code span, where GitHub neither pings nor links."""
    old = snap((tool("gone"),))
    new = snap((tool("@octocat https://evil.example `` ` x"),))
    write_snapshot(tmp_path / "old.json", old)
    write_snapshot(tmp_path / "new.json", new)
    out = run_cli("drift", tmp_path / "old.json", tmp_path / "new.json", "--format", "markdown").stdout
    row = next(line for line in out.splitlines() if "tool-added" in line)
    cells = [cell.strip() for cell in row.strip("| ").split(" | ")]
    assert cells[1] == "``` demo: tool @octocat https://evil.example `` ` x ```"
    assert cells[3] == (
        "``` tool '@octocat https://evil.example `` ` x' was added; its hints (or their absence) say it may destroy data ```"
    )
