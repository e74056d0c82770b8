"""mcp-stubgen's own sessions (`snapshot`, `watch`) against the hostile Streamable HTTP server that
generated clients survive (tests/hostile/test_live_server.py): each HTTP-level fault of the handshake
or of `tools/list` is one line naming the server and what it did, at once, with exit code 2 and the
previous snapshot untouched; a watcher whose re-list meets one says so and goes on.

They share the generated clients' transport (`codegen/runtime/_http.py`). Before, a gzip body that
expands to 256 MiB was read whole (586 MB resident) and written as the snapshot, a 404 error page to
`tools/list` was recorded as a catalog without tools, an answer carrying another request's id waited
out the timeout, an event stream's stray answer was taken for the catalog, and an answer that is not
JSON-RPC printed pydantic's report of many lines."""

from __future__ import annotations

import json
import logging
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import PYTHON, SERVERS, free_port, wait_for_port, write_config
from tests.hostile.test_live_server import over_http
from tests.test_watch import Watcher

PREVIOUS = b'{"kept": true}\n'
UNREADABLE = (
    r"its answer is not JSON the MCP SDK reads \(Invalid JSON: expected value at line 1 column 1\) \(code -32700\)"
)
OTHER_ID = r"its answer carries id \d+, not this request's \d+ \(code -32700\)"
BOMB = r"its answer is larger than 64 MiB once decoded; not read \(code -32700\)"
HUGE_HEADER = r"the connection to URL broke \(RemoteProtocolError: Receive buffer too long\); check the server's logs"
RATE_LIMITED = r"handshake failed: HTTP 429 Too Many Requests; it asks to retry after 30 s"
UNAVAILABLE = r"handshake failed: HTTP 503 Service Unavailable; retry later"
STREAM_ENDED = r"the connection to URL broke \(SSE stream ended without a response\); check the server's logs"


SNAPSHOT_FAULTS = [
    ("tools/list", "status-502", r"tools/list failed: HTTP 502 Bad Gateway"),
    ("tools/list", "status-429", r"tools/list failed: HTTP 429 Too Many Requests; it asks to retry after 30 s"),
    ("tools/list", "status-404", r"tools/list failed: HTTP 404 Not Found"),
    (
        "tools/list",
        "status-401",
        r"URL refused access \(HTTP 401\) to a request that carried no credentials; send them with --header "
        r"'Name: value'",
    ),
    ("tools/list", "html-200", rf"tools/list failed: {UNREADABLE}"),
    ("tools/list", "not-jsonrpc", r"tools/list failed: its answer is JSON but not a JSON-RPC message \(code -32700\)"),
    ("tools/list", "sse-not-json", rf"tools/list failed: {UNREADABLE}"),
    ("tools/list", "sse-ends", rf"tools/list failed: {STREAM_ENDED}"),
    ("tools/list", "other-id", rf"tools/list failed: {OTHER_ID}"),
    ("tools/list", "gzip-bomb", rf"tools/list failed: {BOMB}"),
    ("tools/list", "huge-header", rf"tools/list failed: {HUGE_HEADER}"),
    ("server/discover", "status-429", RATE_LIMITED),
    ("server/discover", "status-503", UNAVAILABLE),
    ("server/discover", "status-502", r"URL answered HTTP 502; check the URL and that the server is healthy"),
    (
        "server/discover",
        "status-401",
        r"URL refused access \(HTTP 401\) to a request that carried no credentials; send them with --header "
        r"'Name: value'",
    ),
    (
        "server/discover",
        "insufficient-scope",
        r"URL refused access \(HTTP 403\) to a request that carried no credentials; send them with --header "
        r"'Name: value'",
    ),
    ("initialize", "status-429", RATE_LIMITED),
    ("initialize", "status-503", UNAVAILABLE),
    ("initialize", "html-200", rf"handshake failed: {UNREADABLE}"),
    ("initialize", "other-id", rf"handshake failed: {OTHER_ID}"),
    ("initialize", "gzip-bomb", rf"handshake failed: {BOMB}"),
    ("initialize", "huge-header", HUGE_HEADER),
    ("initialize", "sse-ends", STREAM_ENDED),
]
"""What `snapshot` says of each fault, at the handshake or of `tools/list` (the server's URL shown as URL).
A 429, 503 or 502 to `server/discover` was taken for a legacy server's refusal: `auto` fell back to
`initialize` and wrote a legacy snapshot (so was a 401 or a 403 `insufficient_scope`, a refusal of the
credentials that says nothing of the protocol) (or, to `initialize`, said `answered HTTP 429; check the URL
and that the server is healthy`, without when to retry)."""


@pytest.mark.parametrize(
    ("fault_on", "fault", "expected"),
    SNAPSHOT_FAULTS,
    ids=[f"{fault_on.split('/')[0]}-{fault}" for fault_on, fault, _ in SNAPSHOT_FAULTS],
)
def test_an_http_fault_fails_the_snapshot_in_one_line_at_once(
    fault_on: str, fault: str, expected: str, tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """Exit 2 with the one line `SNAPSHOT_FAULTS` gives, well within the 20 s timeouts, and the
    snapshot written before left as it was."""
    previous = tmp_path / "h.json"
    previous.write_bytes(PREVIOUS)
    with over_http("plain", "--http-fault", fault, "--fault-on", fault_on) as url:
        started = time.monotonic()
        result = run_cli(
            "snapshot", "--name", "h", "--url", url, "--out", previous,
            "--connect-timeout", "20", "--request-timeout", "20",
        )  # fmt: skip
        took = time.monotonic() - started
    assert result.exit_code == 2, result.stderr
    assert re.fullmatch(rf"error: server 'h': {expected}\n", result.stderr.replace(url, "URL")), result.stderr
    assert took < 10
    assert previous.read_bytes() == PREVIOUS


def test_a_server_asking_for_dpop_says_it_is_not_supported(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A bearer token refused with a 401 that asks for a DPoP-bound token alone: the line said the
    server refused the token, to check the credentials, which no bearer token would satisfy."""
    with over_http("plain", "--http-fault", "dpop-401", "--fault-on", "tools/list") as url:
        result = run_cli(
            "snapshot",
            "--name",
            "h",
            "--url",
            url,
            "--header",
            "Authorization: Bearer t0k3n",
            "--out",
            tmp_path / "h.json",
        )
    assert result.exit_code == 2 and not (tmp_path / "h.json").exists()
    assert result.stderr == (
        "error: server 'h': the server asks for a DPoP-bound token (WWW-Authenticate: DPoP), and mcp-stubgen "
        "sends bearer tokens only: DPoP is not supported (docs/authentication.md)\n"
    )


def test_a_rate_limit_to_a_pinned_modern_handshake_says_when_to_retry(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A 429 to `server/discover` with protocol 2026-07-28 pinned: it said the server `does not speak
    the pinned protocol`, advising another pin; now the status and when to retry."""
    with over_http("plain", "--http-fault", "status-429", "--fault-on", "server/discover") as url:
        result = run_cli(
            "snapshot", "--name", "h", "--url", url, "--protocol", "2026-07-28", "--out", tmp_path / "h.json"
        )
    assert result.exit_code == 2 and not (tmp_path / "h.json").exists()
    assert result.stderr == f"error: server 'h': {RATE_LIMITED}\n"


def test_a_stray_answer_on_the_listings_event_stream_is_left_out(
    tmp_path: Path, run_cli, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    """An event stream whose first event answers a request never sent, then the catalog: the stray
    answer was taken for the catalog (`tools/list returned a result that is not valid MCP`); now it is
    left out with one warning naming the server, and the catalog is written."""
    out = tmp_path / "h.json"
    with over_http("plain", "--http-fault", "sse-other-id", "--fault-on", "tools/list") as url:
        result = run_cli("snapshot", "--name", "h", "--url", url, "--out", out)
    assert result.exit_code == 0, result.stderr
    assert [tool["name"] for tool in json.loads(out.read_text())["tools"]] == ["count", "echo"]
    warned = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(warned) == 1 and re.fullmatch(
        r"h: an event on the stream of request \d+ is left out: it carries id \d+, not this request's \d+", warned[0]
    ), warned


def test_a_transport_warning_reads_as_the_commands_other_warnings(tmp_path: Path) -> None:
    """The same stray answer, from the command line: the transport's warning was printed with its
    logger's name (`codegen.runtime._http: h: an event ...`); it is a `warning:` line like the others."""
    with over_http("plain", "--http-fault", "sse-other-id", "--fault-on", "tools/list") as url:
        result = subprocess.run(
            [PYTHON, "-m", "codegen.cli", "snapshot", "--name", "h", "--url", url, "--out", tmp_path / "h.json"],
            capture_output=True, text=True, timeout=60, cwd=tmp_path,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    warning, wrote = result.stderr.splitlines()
    assert re.fullmatch(
        r"warning: h: an event on the stream of request \d+ is left out: it carries id \d+, not this request's \d+",
        warning,
    ), result.stderr
    assert wrote.startswith("h: wrote h.json (2 tools"), result.stderr


def test_the_credentials_of_a_url_are_never_in_the_error(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A URL may carry `user:password@` (httpx sends it as Basic auth): the error named the URL whole."""
    with over_http("plain", "--http-fault", "status-502", "--fault-on", "initialize") as url:
        with_password = url.replace("http://", "http://agent:hunter2-secret@")
        result = run_cli("snapshot", "--name", "h", "--url", with_password, "--out", tmp_path / "h.json")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: server 'h': {url.replace('http://', 'http://agent:***@')} answered HTTP 502; "
        "check the URL and that the server is healthy\n"
    )


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ("gzip-bomb", rf"tools/list failed: {BOMB}"),
        ("status-404", r"tools/list failed: HTTP 404 Not Found"),
        ("other-id", rf"tools/list failed: {OTHER_ID}"),
    ],
    ids=["gzip-bomb", "status-404", "other-id"],
)
def test_a_watched_servers_relist_that_meets_an_http_fault_is_one_line_and_watching_goes_on(
    fault: str, expected: str, tmp_path: Path
) -> None:
    """A polled server whose every `tools/list` after the first meets `fault`: the watcher reported a
    gzip bomb as `BrokenResourceError` after reading 256 MiB, a 404 page as a catalog emptied of its
    tools, and waited out `request_timeout` for an answer carrying another request's id. Now one
    line each, the watcher reconnects as for any failed re-list, the snapshot it wrote stays, and
    Ctrl-C ends it with 0."""
    with over_http("no-list-changed", "--http-fault", fault, "--fault-on", "relist") as url:
        write_config(
            tmp_path,
            f'[tool.mcp-stubgen]\nsnapshots = "snaps"\n[tool.mcp-stubgen.servers.h]\nurl = "{url}"\n'
            "request_timeout = 20\n",
        )
        watcher = Watcher(tmp_path, "--interval", "0.5")
        watcher.wait_for("h: wrote snaps/h.json")
        written = (tmp_path / "snaps" / "h.json").read_bytes()
        started = time.monotonic()
        failed = watcher.wait_for("error:")
        took = time.monotonic() - started
        watcher.wait_for("h: reconnecting in 1s")
        assert watcher.process.poll() is None
        watcher.process.send_signal(signal.SIGINT)
        code, _stdout, stderr = watcher.finish()
    assert re.fullmatch(rf"error: server 'h': {expected}\n", failed.replace(url, "URL")), stderr
    assert took < 10, stderr
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert (tmp_path / "snaps" / "h.json").read_bytes() == written


async def test_snapshot_reads_the_error_data_the_transport_writes() -> None:
    """`snapshot` tells an HTTP error page (`httpStatus`, `retryAfter`) and a failed `auth` flow
    (`authStep`) apart by the keys of the error answers the runtime's transport writes; both take
    the names from `_http.py`. This ties what the transport writes to what discovery reads."""
    import httpx2

    from codegen.config import ServerConfig
    from codegen.runtime._http import _guarded_client_class
    from codegen.runtime._runtime import AuthError
    from codegen.snapshot.discovery import _auth_flow_failed, _http_status, _try_later
    from codegen.snapshot.wire import RemoteError

    class Refused(httpx2.Auth):
        def auth_flow(self, request: httpx2.Request):  # type: ignore[no-untyped-def]
            raise AuthError("h", "refresh", "the token endpoint refused")
            yield request

    def rate_limited(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(429, headers={"Retry-After": "30"}, content=b"<html>slow down</html>")

    async def answer(auth: httpx2.Auth | None) -> RemoteError:
        client_class = _guarded_client_class()
        async with client_class("h", auth=auth, transport=httpx2.MockTransport(rate_limited)) as client:
            message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            response = await client.post("http://127.0.0.1/mcp", json=message)
        error = json.loads(response.content)["error"]
        return RemoteError(error["code"], error["message"], error.get("data"))

    page = await answer(None)
    assert _http_status(page) == 429 and not _auth_flow_failed(page.data)
    assert _try_later(ServerConfig(name="h", url="http://127.0.0.1/mcp"), page) == (
        "server 'h': handshake failed: HTTP 429 Too Many Requests; it asks to retry after 30 s"
    )
    refused = await answer(Refused())
    assert _http_status(refused) is None and _auth_flow_failed(refused.data)


@contextmanager
def over_sse(*fault: str) -> Iterator[str]:
    """tests/servers/sse_server.py (with `--fault F --fault-on WHERE`) on 127.0.0.1: its event stream's URL."""
    port = free_port()
    server = [PYTHON, str(SERVERS / "sse_server.py"), str(port), *fault]
    process = subprocess.Popen(server, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/sse"
    finally:
        process.terminate()
        process.wait(10)


SSE_FAULTS = [
    ("sse", "status-404", r"URL answered HTTP 404; check the URL and that the server is healthy"),
    ("sse", "status-503", r"handshake failed: HTTP 503 Service Unavailable; it asks to retry after 30 s"),
    (
        "sse",
        "gzip-bomb",
        r"the event stream of URL broke \(SSEError: Server-sent event exceeded the 1048576 byte limit\.\); "
        r"check the server's logs",
    ),
    ("tools/list", "status-500", r"tools/list failed: HTTP 500 Internal Server Error"),
    ("tools/list", "status-503", r"tools/list failed: HTTP 503 Service Unavailable; it asks to retry after 30 s"),
    (
        "tools/list",
        "gzip-bomb",
        r"tools/list failed: its reply to the message is larger than 64 KiB once decoded; not read \(code -32700\)",
    ),
]
"""What `snapshot` says of each fault of an SSE server (`transport = "sse"`), of its event stream's
GET or of the POST of `tools/list` (the URL, its credentials shown as `***`, as URL)."""


@pytest.mark.parametrize(
    ("fault_on", "fault", "expected"), SSE_FAULTS, ids=[f"{on.split('/')[0]}-{fault}" for on, fault, _ in SSE_FAULTS]
)
def test_an_http_fault_over_the_sse_transport_fails_the_snapshot_in_one_line_at_once(
    fault_on: str, fault: str, expected: str, tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """The legacy SSE transport ran on a plain HTTP client: a 500 to a message's POST ended the SDK's
    writer with a logged traceback and the listing waited out `request_timeout` to report the status
    as the event stream's URL's; a POST's gzip reply that expands to 256 MiB was read whole (600 MB
    resident); a 503 lost its `Retry-After`, and an event past the SDK's 1 MiB said `(SSEError); is the
    server running?`. Now the runtime's guarded client: one line at once, exit 2, the previous
    snapshot kept, the URL's password never shown."""
    previous = tmp_path / "s" / "h.json"
    previous.parent.mkdir()
    previous.write_bytes(PREVIOUS)
    with over_sse("--fault", fault, "--fault-on", fault_on) as url:
        with_password = url.replace("http://", "http://agent:hunter2-secret@")
        config = write_config(
            tmp_path,
            f'[tool.mcp-stubgen]\nsnapshots = "s"\n[tool.mcp-stubgen.servers.h]\nurl = "{with_password}"\n'
            'type = "sse"\nrequest_timeout = 40\n',
        )
        started = time.monotonic()
        result = run_cli("snapshot", "--config", config)
        took = time.monotonic() - started  # "at once": well before request_timeout, with room for a loaded machine
    shown = url.replace("http://", "http://agent:***@")
    assert result.exit_code == 2, result.stderr
    assert re.fullmatch(rf"error: server 'h': {expected}\n", result.stderr.replace(shown, "URL")), result.stderr
    assert took < 20
    assert previous.read_bytes() == PREVIOUS


def test_a_healthy_sse_server_is_listed_over_the_guarded_client(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """The same SSE server without a fault: its catalog is written, the answers on its event stream read."""
    with over_sse() as url:
        config = write_config(
            tmp_path,
            f'[tool.mcp-stubgen]\nsnapshots = "s"\n[tool.mcp-stubgen.servers.h]\nurl = "{url}"\ntype = "sse"\n',
        )
        result = run_cli("snapshot", "--config", config)
    assert result.exit_code == 0, result.stderr
    assert [tool["name"] for tool in json.loads((tmp_path / "s" / "h.json").read_text())["tools"]] == ["echo"]
