"""What `snapshot`, `sync` and `watch` do with whatever a live server answers while they list it.

`tests/servers/wire_fuzz_server.py` answers the handshake and the list methods as a plan file
(`--plans`) says, over stdio in both protocol eras, and over Streamable HTTP on 127.0.0.1 (each
planned line an event of the request's stream). The plain tests below pin what a message the MCP SDK
cannot read costs: one warning when it is a notification or a request of the server's, the whole
run when it answers the request being listed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.snapshot.format import load_snapshot
from tests.conftest import PYTHON, REPO, SERVERS, write_config
from tests.hostile.test_wire_fuzz import EXAMPLES, fuzzed
from tests.hostile.wire_strategies import listing_plans
from tests.servers.json_http import JsonHttpHandler
from tests.servers.wire_fuzz_server import LISTS, MODERN_FIELDS, logged, reply
from tests.test_watch import Watcher

SERVER = str(SERVERS / "wire_fuzz_server.py")
DEEP = "[" * 5000 + "]" * 5000


def planned(*lines: str, end: str = "stay") -> dict[str, Any]:
    return {"lines": list(lines), "end": end}


def answer(result: dict[str, Any], era: str) -> str:
    """The good answer line of a request, with the era's fields."""
    body = {**MODERN_FIELDS, **result} if era == "modern" else result
    return json.dumps({"jsonrpc": "2.0", "id": "__ID__", "result": body}).replace('"__ID__"', "__ID__")


class FuzzHttp:
    """The fuzz server's answers over Streamable HTTP on 127.0.0.1: each line the stdio server would
    write is an event of the request's stream (cut short when the plan says so). The era is the URL's last part;
    `plans` is what `--plans` would give the stdio server, consumed as requests come; `requests` is
    what `--log` would write."""

    def __init__(self) -> None:
        self.plans: dict[str, Any] = {}
        self.requests: list[str] = []
        fuzz = self

        class Handler(JsonHttpHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if isinstance(message, dict) and "id" in message and "method" in message:
                    fuzz.requests.append(logged(message))
                lines, end = reply(self.path.rsplit("/", 1)[-1], message, fuzz.plans)
                if not lines:
                    self.send_response(202)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                events = b"".join(  # a line of the stdio server's, one event each (a storm is many)
                    b"data: " + part + b"\n\n"
                    for line in lines
                    for part in line.encode("utf-8", "surrogateescape").split(b"\n")
                )
                if end == "cut":
                    events = events[: len(events) - len(lines[-1]) // 2 - 2]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(events)))
                self.end_headers()
                self.wfile.write(events)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that went away is no news
                    super().handle_error(request, client_address)

        self.server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, era: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/mcp/{era}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fuzz_http() -> Iterator[FuzzHttp]:
    server = FuzzHttp()
    try:
        yield server
    finally:
        server.close()


def project(
    folder: Path,
    transport: str,
    era: str,
    plans: dict[str, Any],
    http: FuzzHttp | None,
    timeout: float = 10,
    log: Path | None = None,
    name: str = "fuzz",
) -> Path:
    """A project whose one server `name` answers as `plans` say, over stdio or `http`, within `timeout`
    seconds a request (and twice that for the handshake); with `log`, a stdio server runs `--live`,
    logging its requests there."""
    if transport == "http":
        assert http is not None
        http.plans = json.loads(json.dumps(plans))
        where = f"url = {json.dumps(http.url(era))}\n"
    else:
        plan_file = folder / "plans.json"
        plan_file.write_text(json.dumps(plans), encoding="utf-8")
        arguments = ["-I", SERVER, "--era", era, "--plans", str(plan_file)]
        arguments += [] if log is None else ["--live", "--log", str(log)]
        where = f"command = {json.dumps(sys.executable)}\nargs = {json.dumps(arguments)}\n"
    return write_config(
        folder,
        '[tool.mcp-stubgen]\nsnapshots = "snapshots"\noutput = "clients"\n\n'
        f"[tool.mcp-stubgen.servers.{name}]\n{where}request_timeout = {timeout:g}\nconnect_timeout = {2 * timeout:g}\n",
    )


def log_line(data: str) -> str:
    """A log message notification whose data is `data` (JSON text, put in as it is)."""
    return '{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": ' + data + "}}"


def cli(folder: Path, *args: str, timeout: float = 60) -> tuple[int, str, float]:
    """`mcp-stubgen ARGS...` run in `folder` as a user runs it (a fork, docs/development.md): its exit
    code, its stderr, and how long it took."""
    started = time.monotonic()
    done = subprocess.run(
        [PYTHON, "-m", "codegen.cli", *args],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done.returncode, done.stderr, time.monotonic() - started


UNREADABLE = {
    "lone-surrogate": (log_line('"\\ud800"'), "a string holds a lone UTF-16 surrogate"),
    "deep": (log_line(DEEP), "nested deeper than"),
    "long-number": (log_line("9" * 5000), "an integer of 5,000 digits"),
    "not-utf-8": (log_line('"caf\udce9"'), "it is not UTF-8 (byte 0xe9)"),
    "server-request": (
        '{"jsonrpc": "2.0", "id": "s-1", "method": "sampling/createMessage", "params": {"x": "\\ud800"}}',
        "a string holds a lone UTF-16 surrogate",
    ),
    "stray-answer": (
        '{"jsonrpc": "2.0", "id": 987654, "result": {"x": "\\ud800"}}',
        "a lone UTF-16 surrogate",
    ),
}
"""Lines the MCP SDK cannot read that answer no request in flight, and what the warning says is
wrong over stdio (over Streamable HTTP the transport the generated clients use warns in the SDK
parser's words: `OVER_HTTP`)."""
OVER_HTTP = "is left out: it is not JSON the MCP SDK reads"


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("kind", sorted(UNREADABLE))
def test_a_message_the_sdk_cannot_read_that_answers_nothing_costs_snapshot_one_warning(
    tmp_path: Path, fuzz_http: FuzzHttp, transport: str, kind: str
) -> None:
    """A log message holding a lone surrogate, nested 5,000 deep, with a number of 5,000 digits or not
    UTF-8, a request of the server's or an answer to no request, sent before `tools/list`'s answer:
    the snapshot is written as if the line was never sent, with one warning naming the server and
    what was wrong. Before, the run failed on it (over HTTP and, nested or with the long number, over
    stdio) or said nothing of it."""
    line, problem = UNREADABLE[kind]
    era = "legacy"
    plans = {"tools/list": [planned(line, answer(LISTS["tools/list"], era))]}
    project(tmp_path, transport, era, plans, fuzz_http)
    code, stderr, _seconds = cli(tmp_path, "snapshot")
    assert code == 0, stderr
    said = problem if transport == "stdio" else OVER_HTTP
    warnings = [text for text in stderr.splitlines() if said in text]
    assert len(warnings) == 1 and warnings[0].startswith("warning: "), stderr
    assert ("'fuzz'" in warnings[0] or "fuzz:" in warnings[0]) and "left out" in warnings[0], warnings
    tools = json.loads((tmp_path / "snapshots" / "fuzz.json").read_text(encoding="utf-8"))["tools"]
    assert [tool["name"] for tool in tools] == ["answer", "answer_typed"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_watch_goes_on_after_a_notification_the_sdk_cannot_read(
    tmp_path: Path, fuzz_http: FuzzHttp, transport: str
) -> None:
    """A log message holding a lone surrogate before the first listing's answer: the session goes on,
    so the `list_changed` after it is heard and the changed catalog published. Before, the session
    ended on it, and watch reconnected to the same line for ever."""
    era = "legacy"
    project(tmp_path, transport, era, {}, fuzz_http)
    assert cli(tmp_path, "snapshot")[0] == 0
    more = {"tools": [*LISTS["tools/list"]["tools"], {"name": "added", "inputSchema": {"type": "object"}}]}
    changed = '{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}'
    first = planned(UNREADABLE["lone-surrogate"][0], changed, answer(LISTS["tools/list"], era))
    project(tmp_path, transport, era, {"tools/list": [first, planned(answer(more, era))]}, fuzz_http)
    watcher = Watcher(tmp_path, "--max-changes", "1", "--interval", "60", python=PYTHON)
    code, _stdout, stderr = watcher.finish()
    assert code == 0, stderr
    assert "error" not in stderr and "reconnecting" not in stderr, stderr
    said = "lone UTF-16 surrogate" if transport == "stdio" else OVER_HTTP
    warnings = [line for line in stderr.splitlines() if said in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: "), stderr
    tools = json.loads((tmp_path / "snapshots" / "fuzz.json").read_text(encoding="utf-8"))["tools"]
    assert [tool["name"] for tool in tools] == ["added", "answer", "answer_typed"]


LISTED = tuple(LISTS)
"""The list methods a plan may answer, besides the handshake."""
SYNCED = ("tools/list",)
"""The methods `sync`'s smaller sweep plans: its listing is `snapshot`'s, what it adds is the package."""
RUN_LIMIT = 90.0
"""How long one command may take: a listing whose every answer waits out `request_timeout` (1 s)
takes seconds, so this is a hang on a loaded machine, not a slow server."""


def tree(folder: Path) -> dict[str, bytes]:
    """Every file of a project's snapshots and packages, by its path."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for top in ("snapshots", "clients")
        for path in sorted((folder / top).rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def clear_run(code: int, stderr: str, seconds: float) -> None:
    """A command's run as the user sees it: no traceback, in time, and when it failed, the documented
    exit code with one `error:` line naming the server."""
    assert "Traceback" not in stderr, stderr
    assert seconds < RUN_LIMIT, f"took {seconds:.1f} s: {stderr}"
    if code != 0:
        errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
        assert code == 2, stderr
        assert len(errors) == 1 and "'fuzz'" in errors[0], stderr
        assert all(line.startswith(("error: ", "warning: ", "  ")) for line in stderr.splitlines()), stderr


def list_once(folder: Path, command: str, transport: str, era: str, plans: dict[str, Any], http: FuzzHttp) -> None:
    """One `snapshot` (then `generate`) or `sync` of the server answering as `plans` say: a valid
    snapshot and a package that passes `generate --check`, or a documented failure that left the
    snapshot and the package as they were."""
    project(folder, transport, era, plans, http, timeout=1)
    before = tree(folder)
    code, stderr, seconds = cli(folder, command, timeout=RUN_LIMIT + 30)
    clear_run(code, stderr, seconds)
    if code != 0:
        assert tree(folder) == before, f"a failed {command} changed files: {stderr}"
        return
    load_snapshot(folder / "snapshots" / "fuzz.json")
    if command == "snapshot":
        code, stderr, seconds = cli(folder, "generate", timeout=RUN_LIMIT + 30)
        assert code == 0, f"generate of a snapshot `snapshot` wrote failed: {stderr}"
    assert cli(folder, "generate", "--check")[0] == 0, "the package is not what generate writes"


def listings(methods: tuple[str, ...]) -> st.SearchStrategy[tuple[str, str, dict[str, Any]]]:
    return st.tuples(st.sampled_from(("stdio", "http")), st.sampled_from(("legacy", "modern"))).flatmap(
        lambda picked: st.tuples(st.just(picked[0]), st.just(picked[1]), listing_plans(picked[1], methods))
    )


@pytest.fixture(scope="module")
def fuzz_http_shared() -> Iterator[FuzzHttp]:
    server = FuzzHttp()
    try:
        yield server
    finally:
        server.close()


@pytest.mark.parametrize(("command", "methods", "share"), [("snapshot", LISTED, 5), ("sync", SYNCED, 20)])
def test_any_listing_is_a_snapshot_or_one_clear_error_that_keeps_the_files(
    tmp_path: Path, fuzz_http_shared: FuzzHttp, command: str, methods: tuple[str, ...], share: int
) -> None:
    """`snapshot` (and `generate` from what it wrote) or `sync` of a server whose handshake and list
    answers are drawn by hypothesis (`wire_strategies.listing_plans`), over stdio and Streamable HTTP,
    in both eras: one `MCP_STUBGEN_WIRE_FUZZ_EXAMPLES` in `share` runs (CI: 8 and 2)."""
    project(tmp_path, "stdio", "legacy", {}, fuzz_http_shared)
    assert cli(tmp_path, "sync")[0] == 0

    @fuzzed(max(EXAMPLES // share, 2))
    @given(listings(methods))
    def run(picked: tuple[str, str, dict[str, Any]]) -> None:
        transport, era, plans = picked
        list_once(tmp_path, command, transport, era, plans, fuzz_http_shared)

    run()


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_initialize_result_that_is_not_valid_mcp_is_named_with_its_pointer(
    tmp_path: Path, fuzz_http: FuzzHttp, transport: str
) -> None:
    """An `initialize` answer whose `capabilities` is a number: the line said only "ValidationError:
    1 validation error for InitializeResult" (after "the server exited or broke the protocol during
    start-up" over stdio), naming nothing the server has to fix (the sweep found it). Now it names the
    JSON pointer, as a list result that is not valid MCP does; the committed snapshot is kept."""
    project(tmp_path, transport, "legacy", {}, fuzz_http)
    assert cli(tmp_path, "sync")[0] == 0
    before = tree(tmp_path)
    result = {"protocolVersion": "2025-11-25", "capabilities": 5, "serverInfo": {"name": "wirefuzz", "version": "1"}}
    project(tmp_path, transport, "legacy", {"initialize": [planned(answer(result, "legacy"))]}, fuzz_http)
    code, stderr, _seconds = cli(tmp_path, "snapshot")
    assert (code, stderr) == (
        2,
        "error: server 'fuzz': its initialize result is not valid MCP (/capabilities: Input should be a valid "
        "dictionary or instance of ServerCapabilities); the server has to fix it\n",
    )
    assert tree(tmp_path) == before


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_list_entry_that_is_no_object_holding_a_lone_surrogate_is_one_clear_error(
    tmp_path: Path, fuzz_http: FuzzHttp, transport: str
) -> None:
    """A `tools/list` entry that is an array holding a lone surrogate: naming the entry read it as an
    object, and the run ended in "internal error: ExceptionGroup" (the sweep found it). Now the line
    gives the JSON pointer into the answer."""
    line = '{"jsonrpc": "2.0", "id": __ID__, "result": {"tools": [["\\ud800"]]}}'
    project(tmp_path, transport, "legacy", {"tools/list": [planned(line)]}, fuzz_http)
    code, stderr, _seconds = cli(tmp_path, "snapshot")
    assert (code, stderr) == (
        2,
        "error: server 'fuzz': /result/tools/0/0: a string holds a lone UTF-16 surrogate (half of a character, "
        "such as an emoji cut in two), which the MCP SDK cannot read; the server has to send whole characters\n",
    )
