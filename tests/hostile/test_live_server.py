"""What a live server sends once it is past the handshake, against a generated client (async and
sync), a connected hub and `snapshot`: every failure is the runtime's own typed error (never the
SDK's raw pydantic, `RuntimeError` or `ExceptionGroup`), one bad answer never ends a hub's session,
and nothing waits out a timeout that an answer already decided.

Every case talks to `tests/servers/hostile_server.py` over stdio (and Streamable HTTP where the
transport reads the answer differently); the packages are generated from its well-behaved catalog,
and `looping` from the catalog with a `$ref` cycle."""

from __future__ import annotations

import base64
import contextlib
import importlib
import json
import logging
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig, load_config
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot import write_snapshot
from codegen.snapshot.discovery import connect, snapshot_server
from tests.conftest import PYTHON, REPO, SERVERS, free_port, listening, write_config
from tests.servers.json_http import JsonHttpHandler

PY = PYTHON
HOSTILE = str(SERVERS / "hostile_server.py")
CLOSED = r"Connection closed; the server exited or closed the connection before answering \(its stderr or log says why\): connect again \(code -32000\)"
"""A request the connection closed under: the server exited, and a new connection is what can work."""
TASKS = str(SERVERS / "task_server.py")
RAW = str(SERVERS / "raw_server.py")
NOT_MCP = r"failed: its answer is not valid MCP \(/content/0: \{'type': 'video', .*\} is none of the shapes MCP allows there\) \(code -32700\)"


def hostile(mode: str, *more: str) -> StdioServerParameters:
    return StdioServerParameters(command=PY, args=[HOSTILE, "--mode", mode, *more])


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """`live.hostile` (the well-behaved catalog), `live.looping` (with the `$ref` cycle), `live.hub`
    over `hostile`, `unlisted` and `dual`, `live.tasks` (tests/servers/task_server.py) and `live.unlisted`
    (`tools/list` declared but answered with -32601) and `live.dual` (raw_server.py's 2026-07-28 server
    without `subscriptions/listen`), generated from live snapshots; forgotten afterwards."""
    folder = tmp_path_factory.mktemp("live")
    plain = anyio.run(snapshot_server, ServerConfig(name="hostile", command=PY, args=(HOSTILE,)))
    looping = anyio.run(
        snapshot_server, ServerConfig(name="looping", command=PY, args=(HOSTILE, "--mode", "ref-cycle"))
    )
    tasks = anyio.run(snapshot_server, ServerConfig(name="tasks", command=PY, args=(TASKS,)))
    unlisted = anyio.run(
        snapshot_server, ServerConfig(name="unlisted", command=PY, args=(HOSTILE, "--mode", "tools-not-implemented"))
    )
    generate_package(unlisted, folder / "live")
    dual = anyio.run(snapshot_server, ServerConfig(name="dual", command=PY, args=(RAW, "--mode", "dual-era")))
    generate_package(dual, folder / "live")
    generate_package(plain, folder / "live")
    generate_package(looping, folder / "live")
    generate_package(tasks, folder / "live")
    generate_hub([(plain, {}), (unlisted, {}), (dual, {})], folder / "live")
    sys.path.insert(0, str(folder))
    try:
        yield tuple(
            importlib.import_module(f"live.{name}") for name in ("hostile", "looping", "hub", "tasks", "unlisted")
        )
    finally:
        sys.path.remove(str(folder))
        for module in [module for module in sys.modules if module.split(".")[0] == "live"]:
            del sys.modules[module]


@contextmanager
def over_http(mode: str, *more: str) -> Iterator[str]:
    """The hostile server in `mode` (and with the options `more`) over Streamable HTTP on 127.0.0.1: its URL."""
    process = subprocess.Popen([PY, HOSTILE, "--mode", mode, "--http", "0", *more], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline().split()[-1])
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture
def hostile_http() -> Iterator[str]:
    """The `unknown-block` server over Streamable HTTP on 127.0.0.1."""
    with over_http("unknown-block") as url:
        yield url


async def test_a_result_that_is_not_valid_mcp_is_a_server_error(packages: Any, hostile_http: str) -> None:
    """A content block of a type MCP does not have: the SDK's models refuse the result with a raw
    pydantic `ValidationError`; the client, its sync twin and the hub raise `ServerError` naming
    where, over stdio and Streamable HTTP."""
    client_package, _looping, hub_package, *_others = packages
    with anyio.fail_after(30):
        for server in (hostile("unknown-block"), hostile_http):
            async with client_package.HostileClient.connect(server) as client:
                with pytest.raises(client_package.ServerError, match=NOT_MCP) as refused:
                    await client.echo(text="hi")
                assert refused.value.code == -32700 and refused.value.server == "hostile"
            async with hub_package.Hub.connect(hostile=server) as hub:
                with pytest.raises(hub_package.ServerError, match=NOT_MCP):
                    await hub.call("hostile__echo", {"text": "hi"})
        with (
            client_package.HostileClient.connect_sync(hostile("unknown-block")) as sync_client,
            pytest.raises(client_package.ServerError, match=NOT_MCP),
        ):
            sync_client.echo(text="hi")


async def test_a_result_the_live_output_schema_refuses_is_a_typed_error_from_the_hub(packages: Any) -> None:
    """Once the hub has listed a tool, the SDK checks its results against the live output schema and
    raises a bare `RuntimeError`; the hub raises the clients' `ToolResultError` (and
    `NoStructuredContentError`), as a generated client does, also for a live schema that cannot be
    applied (a `$ref` to nothing), which the client meets once `verify()` listed the tools."""
    client_package, _looping, hub_package, *_others = packages
    with anyio.fail_after(30):
        for mode, error, message in (
            ("off-schema", client_package.ToolResultError, r"the output schema the server lists rejects: "),
            ("no-structured", client_package.NoStructuredContentError, r"has no structuredContent"),
            (
                "dangling-output",
                client_package.ToolResultError,
                r"the output schema the server lists cannot be applied to \(",
            ),
        ):
            async with hub_package.Hub.connect(hostile=hostile(mode)) as hub:
                with pytest.raises(error, match=message) as refused:
                    await hub.call("hostile__count", {})
                assert (refused.value.server, refused.value.tool) == ("hostile", "count")
        async with client_package.HostileClient.connect(hostile("dangling-output")) as client:
            assert (await client.count()).n == 3  # checked against the snapshot's schema
            with pytest.raises(client_package.CatalogDriftError):
                await client.verify()
            with pytest.raises(client_package.ToolResultError, match=r"cannot be applied to \(PointerToNowhere"):
                await client.count()


async def test_a_live_schema_past_the_work_budget_is_refused_not_applied(packages: Any) -> None:
    """A server whose live schemas reach what they mean through a fan-out of references (13
    definitions each naming the next one twice: 8,192 subschemas). Checking a value against one
    visits them all, in the MCP SDK's check of each result against the live output schema (once a
    hub or `verify()` has listed the tools) and in `hub.call`'s check of a tool added live: 17
    definitions held the event loop for 20 s, each one more doubles it, and no timeout can end work
    that never awaits. `generate` refuses such a schema (its work budget), and now the runtime refuses a live
    one the same way, at once: `ToolResultError` saying the listed schema cannot be applied, and
    `ArgumentsError` with nothing sent."""
    client_package, _looping, hub_package, *_others = packages
    past = "the schema stands for more than 10,000 schema objects once its references are followed"
    with anyio.fail_after(30):
        async with hub_package.Hub.connect(hostile=hostile("fan-out"), live_tools="callable") as hub:
            with pytest.raises(client_package.ToolResultError) as refused:
                await hub.call("hostile__count", {})
            assert str(refused.value) == (
                "server 'hostile': tool 'count' returned a result that the output schema the server lists "
                "cannot be applied to "
                f"({past}); the fault is in the server's own listing, which `mcp-stubgen sync` cannot mend: "
                "tell the server's maintainers"
            )
            with pytest.raises(hub_package.ArgumentsError) as refused_arguments:
                await hub.call("hostile__fanned", {"text": "hi"})
            assert str(refused_arguments.value) == (
                f"hostile__fanned: its input schema cannot be applied ({past}); nothing was sent"
            )
            assert (await hub.call("hostile__echo", {"text": "hi"})).content[0].text == "hi"
        async with client_package.HostileClient.connect(hostile("fan-out")) as client:
            assert (await client.count()).n == 3  # checked against the snapshot's schema
            with pytest.raises(client_package.CatalogDriftError):
                await client.verify()
            with pytest.raises(client_package.ToolResultError, match=re.escape(f"cannot be applied to ({past})")):
                await client.count()


async def test_a_snapshots_schema_past_the_work_budget_is_left_to_the_server_through_the_hub(tmp_path: Path) -> None:
    """A catalog whose own schemas are past the work budget (the fan-out server snapshotted as it is):
    `generate` leaves them to the server, so its tools are untyped (`count`, whose output schema alone
    is past it, keeps its typed arguments by naming rules 13 and returns the untyped result) and
    callable, through the package and the hub, also once a listing gave the MCP SDK the output
    schema. Red before: `generate`
    refused the package; with the tools untyped but the hub unchanged, `hub.call("hostile__count")`
    after the hub listed the tools raised `ToolResultError` ("the output schema the server lists
    cannot be applied"): the SDK's check of the result against that schema, which the package skips."""
    fanned = await snapshot_server(ServerConfig(name="hostile", command=PY, args=(HOSTILE, "--mode", "fan-out")))
    generate_package(fanned, tmp_path / "budget")
    generate_hub([(fanned, {})], tmp_path / "budget")
    sys.path.insert(0, str(tmp_path))
    try:
        client_package = importlib.import_module("budget.hostile")
        hub_package = importlib.import_module("budget.hub")
        with anyio.fail_after(30):
            async with client_package.HostileClient.connect(hostile("fan-out")) as client:
                await client.verify()  # the SDK now holds the listed output schema
                assert (await client.count()).json() == {"n": 3}
            async with hub_package.Hub.connect(hostile=hostile("fan-out"), live_tools="callable") as hub:
                assert (await hub.call("hostile__count", {})).structured_content == {"n": 3}
                assert (await hub.call("hostile__fanned", {"text": "hi"})).content[0].text == "hi"
    finally:
        sys.path.remove(str(tmp_path))
        for module in [module for module in sys.modules if module.split(".")[0] == "budget"]:
            del sys.modules[module]


async def test_an_error_leaving_the_hub_block_is_itself(packages: Any) -> None:
    """A server that exits mid-call: `hub.call`'s `ServerError` reaches an `except` around the
    `async with Hub.connect(...)` block as itself, as a generated client's does, not in the hub's
    `ExceptionGroup`; it says the server went away and to connect again (it said only "Connection
    closed")."""
    client_package, _looping, hub_package, *_others = packages
    with anyio.fail_after(30):
        with pytest.raises(hub_package.ServerError, match=rf"tool 'echo' failed: {CLOSED}$"):
            async with hub_package.Hub.connect(hostile=hostile("exit-mid-call")) as hub:
                await hub.call("hostile__echo", {"text": "hi"})
        with pytest.raises(client_package.ServerError, match=rf"tool 'echo' failed: {CLOSED}$"):
            async with client_package.HostileClient.connect(hostile("exit-mid-call")) as client:
                await client.echo(text="hi")


async def test_lines_that_are_not_json_rpc_before_the_handshake_are_skipped(
    packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A server that prints a banner, a broken object and a JSON array to stdout before it speaks
    JSON-RPC: the client and the hub skip them, each with one warning naming the server and not the
    line (which may hold anything), and connect. The SDK's transport logged a traceback for each
    line into the user's application log. The blank lines between them are skipped without a word,
    as `snapshot` skips them: @ccusage/mcp 18.0.11 writes one on each call, which was a warning of a
    line "(0 characters)" that is not JSON-RPC."""
    client_package, _looping, hub_package, *_others = packages
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with client_package.HostileClient.connect(hostile("garbage-first")) as client:
            assert (await client.echo(text="hi")).text == "hi"
        async with hub_package.Hub.connect(hostile=hostile("garbage-first")) as hub:
            assert (await hub.call("hostile__echo", {"text": "hi"})).content[0].text == "hi"
    skipped = [record for record in caplog.records if "is not a JSON-RPC message" in record.getMessage()]
    assert len(skipped) == 6  # three lines, the client's and the hub's connection
    assert all(record.getMessage().startswith("hostile: a line of the server's stdout") for record in skipped)
    assert not any(record.exc_info for record in caplog.records)
    assert not any("Starting hostile server" in record.getMessage() for record in caplog.records)


async def test_a_hub_connected_from_config_skips_stdout_lines_that_are_not_json_rpc_with_one_warning(
    packages: Any, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """`Hub.connect_from_config` over stdio (mcp-stubgen's own transport): mcp-hello-world 1.1.2
    prints `[Mock SDK Server] Executing add tool ...` to stdout on each call, and each such line
    was a logged traceback of pydantic's JSON report in the user's application; now it is the one
    warning naming the server that `Hub.connect` gives."""
    hub_package = packages[2]
    config = tmp_path / "pyproject.toml"
    config.write_text(
        f"[tool.mcp-stubgen.servers.hostile]\ncommand = {json.dumps(PY)}\n"
        f"args = {json.dumps([str(HOSTILE), '--mode', 'garbage-first'])}\n"
    )
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with hub_package.Hub.connect_from_config(config, servers=["hostile"]) as hub:
            assert (await hub.call("hostile__echo", {"text": "hi"})).content[0].text == "hi"
    skipped = [record.getMessage() for record in caplog.records if "JSON" in record.getMessage()]
    assert len(skipped) == 3 and all(
        message.startswith("hostile: a line of the server's stdout is not a JSON-RPC message (") for message in skipped
    ), skipped
    assert not any(record.exc_info for record in caplog.records)


async def test_an_answer_that_is_not_utf8_fails_its_call_and_the_session_goes_on(
    packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A byte that is not UTF-8 in one answer: that call is the client's `ServerError` (-32700) and
    the next call is answered, with one warning naming the server. The SDK's transport ended the
    whole connection with a raw `UnicodeDecodeError` inside an `ExceptionGroup`."""
    client_package, *_others = packages
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with client_package.HostileClient.connect(hostile("not-utf8")) as client:
            with pytest.raises(client_package.ServerError, match=r"invalid unicode code point") as refused:
                await client.echo(text="hi")
            assert refused.value.code == -32700 and refused.value.server == "hostile"
            assert (await client.count()).n == 3
    warned = [record.getMessage() for record in caplog.records if "is not utf-8" in record.getMessage()]
    assert len(warned) == 1 and warned[0].startswith("hostile: a line of the server's stdout is not utf-8 (")


async def test_a_long_answer_over_stdio_arrives_whole(packages: Any) -> None:
    """An answer of many megabytes (a file read, a screenshot) arrives whole through the client's
    stdio transport, which reads it in time linear in its length (`benchmarks/stdio_transport.py`: the
    SDK's transport took seconds for 30 MB)."""
    client_package, *_others = packages
    text = "0123456789abcdef" * (1 << 19)  # 8 MiB, sent and echoed back
    with anyio.fail_after(60):
        async with client_package.HostileClient.connect(hostile("plain")) as client:
            assert (await client.echo(text=text)).text == text


async def test_an_answer_past_the_size_limit_fails_its_call_and_the_session_goes_on(packages: Any) -> None:
    """An answer of 65 MiB, its id written last (as the TypeScript SDK writes an answer): that call
    is `ServerError` -32700 naming the limit, and the next call is answered. The transport held the
    line whole however long it grew (a server writing without end filled the memory)."""
    client_package, *_others = packages
    with anyio.fail_after(60):
        async with client_package.HostileClient.connect(hostile("huge-answer")) as client:
            with pytest.raises(
                client_package.ServerError, match=r"longer than 64 MiB \(68,157,\d{3} characters\)"
            ) as refused:
                await client.echo(text="hi")
            assert refused.value.code == -32700 and refused.value.server == "hostile"
            assert (await client.count()).n == 3


async def test_an_http_server_gone_mid_call_or_not_there_is_a_server_error(packages: Any) -> None:
    """Over Streamable HTTP the transport's own failure ended the client's block with httpx's raw
    `RemoteProtocolError` (a server that exits mid-call) or `ConnectError` (nothing listening); now
    the client's `ServerError` with -32000, as over stdio."""
    client_package, *_others = packages
    with anyio.fail_after(30):
        with over_http("exit-mid-call") as url, pytest.raises(client_package.ServerError) as closed:
            async with client_package.HostileClient.connect(url) as client:
                await client.echo(text="hi")
        assert closed.value.code == -32000 and closed.value.server == "hostile"
        with pytest.raises(client_package.ServerError, match=r"^server 'hostile': the handshake failed: ConnectError"):
            async with client_package.HostileClient.connect(f"http://127.0.0.1:{free_port()}/mcp"):
                pass


class Recorder(ThreadingHTTPServer):
    """An HTTP server on another port of 127.0.0.1 that records the headers of every request it gets."""

    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        recorder = self

        class Handler(JsonHttpHandler):
            def do_POST(self) -> None:
                recorder.requests.append(dict(self.headers))
                self.send_json({})

            do_GET = do_POST

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def faulty_http() -> Iterator[tuple[str, Recorder]]:
    """One hostile server over Streamable HTTP whose `echo` answers with the HTTP fault its text names
    (`--http-fault by-text`, in a session), redirecting to a `Recorder` on another port; `count`
    answers as it should."""
    recorder = Recorder()
    try:
        elsewhere = f"http://127.0.0.1:{recorder.server_address[1]}/mcp"
        with over_http("plain", "--http-fault", "by-text", "--redirect-to", elsewhere) as url:
            yield url, recorder
    finally:
        recorder.shutdown()
        recorder.server_close()


async def fails_and_the_session_goes_on(packages: Any, url: str, fault: str, expected: str) -> None:
    """`echo` answered with `fault` raises `ServerError` matching `expected` (one line, naming the
    server) from a generated client and from a hub, and the next call over the same session is
    answered."""
    client_package, _looping, hub_package, *_others = packages
    async with client_package.HostileClient.connect(url) as client:
        with pytest.raises(client_package.ServerError, match=rf"^server 'hostile': tool 'echo' failed: {expected}$"):
            await client.echo(text=fault)
        assert (await client.count()).n == 3
    async with hub_package.Hub.connect(hostile=url) as hub:
        with pytest.raises(hub_package.ServerError, match=rf"^server 'hostile': tool 'echo' failed: {expected}$"):
            await hub.call("hostile__echo", {"text": fault})
        assert (await hub.call("hostile__count", {})).structured_content == {"n": 3}


async def test_an_http_error_page_names_its_status(packages: Any, faulty_http: tuple[str, Any]) -> None:
    """An HTTP error with a proxy's HTML page: the client and the hub said "Server returned an error
    response" whatever the status; now the status, a 429's `Retry-After` (also in `data`, for a
    program that retries) and, for a 404 in a session, that the session ended. The session goes on."""
    client_package = packages[0]
    url, _recorder = faulty_http
    with anyio.fail_after(30):
        await fails_and_the_session_goes_on(packages, url, "status-502", r"HTTP 502 Bad Gateway \(code -32603\)")
        retry = r"HTTP 429 Too Many Requests; it asks to retry after 30 s \(code -32603\)"
        await fails_and_the_session_goes_on(packages, url, "status-429", retry)
        ended = r"HTTP 404 Not Found: the server no longer knows this session \(it ended, or the server restarted\); connect again \(code -32600\)"
        await fails_and_the_session_goes_on(packages, url, "status-404", ended)
        async with client_package.HostileClient.connect(url) as client:
            with pytest.raises(client_package.ServerError) as refused:
                await client.echo(text="status-429")
            assert refused.value.data == {"httpStatus": 429, "retryAfter": "30"}
    with client_package.HostileClient.connect_sync(url) as sync_client:
        with pytest.raises(client_package.ServerError, match=r"HTTP 502 Bad Gateway \(code -32603\)$"):
            sync_client.echo(text="status-502")
        assert sync_client.count().n == 3


async def test_an_http_error_at_the_handshake_names_its_status(packages: Any) -> None:
    """A 401 without `WWW-Authenticate` to `initialize`: the client, its sync twin and the hub say
    what the server wants and how to give it, not "Server returned an error response"; the error is
    an `AuthError` and still the `ServerError` it was."""
    client_package, _looping, hub_package, *_others = packages
    expected = (
        r"^server 'hostile': the handshake failed: HTTP 401 Unauthorized: the server wants credentials and "
        r"names no way to get them \(no WWW-Authenticate\); connect with auth= \(code -32603\)$"
    )
    with over_http("plain", "--http-fault", "status-401", "--fault-on", "initialize") as url, anyio.fail_after(30):
        with pytest.raises(client_package.ServerError, match=expected) as refused:
            async with client_package.HostileClient.connect(url):
                pass
        assert isinstance(refused.value, client_package.AuthError) and refused.value.step == "authorization"
        with pytest.raises(
            hub_package.HubError,
            match=r"could not connect \(UnauthorizedError: server 'hostile': the handshake failed: HTTP 401",
        ):
            async with hub_package.Hub.connect(hostile=url):
                pass
        with pytest.raises(client_package.ServerError, match=expected), client_package.HostileClient.connect_sync(url):
            pass


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "/sse",
            r"HTTP 405 Method Not Allowed; if the server speaks the older SSE transport, connect with "
            r"sse_client\(url\) from mcp\.client\.sse \(code -32603\)",
        ),
        ("/wrong", r"HTTP 404 Not Found; check the URL: nothing answers MCP at its path \(code -32601\)"),
    ],
    ids=["sse-url", "mistyped-path"],
)
async def test_a_url_that_is_no_mcp_endpoint_says_what_to_connect_to(packages: Any, path: str, message: str) -> None:
    """An SSE server's event-stream URL (tests/servers/sse_server.py's `/sse`, fastapi-mcp 0.4's `/mcp`)
    takes only GET, so `connect(url)` got a 405 to its POST and said only "HTTP 405 Method Not
    Allowed"; a mistyped path (the nineteenth round, FastMCP's `/wrong` for `/mcp`) answers both
    handshakes with a 404 page and said only "HTTP 404 Not Found", where `snapshot` says to check the
    URL. The client, its sync twin and the hub now say which transport to connect with, or to check
    the URL."""
    client_package, _looping, hub_package, *_others = packages
    message = rf"server 'hostile': the handshake failed: {message}"
    with listening("sse_server.py") as port, anyio.fail_after(30):
        url = f"http://127.0.0.1:{port}{path}"
        with pytest.raises(client_package.ServerError, match=rf"^{message}$"):
            async with client_package.HostileClient.connect(url):
                pass
        with (
            pytest.raises(client_package.ServerError, match=rf"^{message}$"),
            client_package.HostileClient.connect_sync(url),
        ):
            pass
        with pytest.raises(hub_package.HubError, match=rf"could not connect \(ServerError: {message}\)"):
            async with hub_package.Hub.connect(hostile=url):
                pass


async def test_a_server_that_takes_one_session_per_start_says_to_restart_it(packages: Any) -> None:
    """A TypeScript SDK server that made one transport (hostinger-api-mcp's `--http`) answers a second
    session's `initialize` with a 400 "Server already initialized": the client, its sync twin and
    the hub say to restart the server, where they quoted the server alone."""
    client_package, _looping, hub_package, *_others = packages
    message = (
        r"server 'hostile': the handshake failed: Invalid Request: Server already initialized; the server takes "
        r"one session per start and another client had it: restart it before connecting again \(code -32600\)"
    )
    with over_http("plain", "--http-fault", "already-initialized", "--fault-on", "initialize") as url:
        with anyio.fail_after(30), pytest.raises(client_package.ServerError, match=rf"^{message}$"):
            async with client_package.HostileClient.connect(url, mode="legacy"):
                pass
        with (
            pytest.raises(client_package.ServerError, match=rf"^{message}$"),
            client_package.HostileClient.connect_sync(url, mode="legacy"),
        ):
            pass
        with pytest.raises(hub_package.HubError, match=rf"could not connect \(ServerError: {message}\)"):
            async with hub_package.Hub.connect(hostile=url):
                pass


async def test_a_rate_limited_handshake_says_when_to_retry(packages: Any) -> None:
    """A 429 with `Retry-After` to `initialize`: the client raises `ServerError` naming the status
    and the wait, with both in `.data`. (For one to `auto`'s `server/discover` probe, see below.)"""
    client_package, *_others = packages
    expected = r"^server 'hostile': the handshake failed: HTTP 429 Too Many Requests; it asks to retry after 30 s \(code -32603\)$"
    with (
        over_http("plain", "--http-fault", "status-429", "--fault-on", "initialize") as url,
        anyio.fail_after(30),
        pytest.raises(client_package.ServerError, match=expected) as refused,
    ):
        async with client_package.HostileClient.connect(url):
            pass
    assert refused.value.data == {"httpStatus": 429, "retryAfter": "30"}


@contextmanager
def probed_over_http(fault: str, log: Path) -> Iterator[str]:
    """The legacy hostile server over Streamable HTTP answering `server/discover` with `fault`, and
    writing the method of each request it receives to `log`."""
    with over_http("plain", "--http-fault", fault, "--fault-on", "server/discover", "--log-requests", str(log)) as url:
        yield url


def received(log: Path) -> list[str]:
    """The methods the server behind `probed_over_http` received, in order."""
    return log.read_text().split() if log.exists() else []


NOT_NOW = [
    ("status-429", r"HTTP 429 Too Many Requests; it asks to retry after 30 s", {"httpStatus": 429, "retryAfter": "30"}),
    ("status-503", r"HTTP 503 Service Unavailable; retry later", {"httpStatus": 503}),
    ("status-502", r"HTTP 502 Bad Gateway", {"httpStatus": 502}),
    ("status-504", r"HTTP 504 Gateway Timeout", {"httpStatus": 504}),
]
"""HTTP errors to the `server/discover` probe that say nothing of which protocol the server speaks:
what the client's `ServerError` says after `the handshake failed: `, and its `.data`."""
FROM_CONFIG = {
    "status-429": r"handshake failed: HTTP 429 Too Many Requests; it asks to retry after 30 s",
    "status-503": r"handshake failed: HTTP 503 Service Unavailable; retry later",
    "status-502": r"URL answered HTTP 502; check the URL and that the server is healthy",
    "status-504": r"URL answered HTTP 504; check the URL and that the server is healthy",
}
"""What mcp-stubgen's own session (`Hub.connect_from_config`, as `snapshot`) says of each, after the server's name."""


@pytest.mark.parametrize(("fault", "expected", "data"), NOT_NOW, ids=[fault for fault, _, _ in NOT_NOW])
async def test_a_probe_answered_not_now_is_not_taken_for_a_legacy_server(
    packages: Any, fault: str, expected: str, data: dict[str, Any], tmp_path: Path
) -> None:
    """A 429 (with `Retry-After`), a 503 or another 5xx error page to `auto`'s `server/discover`: the
    SDK takes any error answer to the probe for a legacy server's refusal and sends `initialize`, so
    a rate-limited (or briefly failing) modern server was connected as a legacy one, or failed only
    on `initialize`. Now the client, its sync twin, the hub and a hub from the config fail at once
    naming the server, the status and the wait, and the server never receives `initialize`."""
    client_package, _looping, hub_package, *_others = packages
    log = tmp_path / "requests.log"
    message = rf"server 'hostile': the handshake failed: {expected} \(code -32603\)"
    config = tmp_path / "pyproject.toml"
    with probed_over_http(fault, log) as url, anyio.fail_after(60):
        with pytest.raises(client_package.ServerError, match=rf"^{message}$") as refused:
            async with client_package.HostileClient.connect(url, mode="auto"):
                pass
        assert refused.value.data == data and refused.value.server == "hostile"
        with (
            pytest.raises(client_package.ServerError, match=rf"^{message}$"),
            client_package.HostileClient.connect_sync(url, mode="auto"),
        ):
            pass
        with pytest.raises(
            hub_package.HubError, match=rf"could not connect \(ServerError: {message}\);"
        ) as hub_refused:
            async with hub_package.Hub.connect(hostile=url, mode="auto"):
                pass
        cause = hub_refused.value.__cause__  # a program that retries reads the wait from the server's own error
        assert isinstance(cause, client_package.ServerError) and cause.data == data, cause
        config.write_text(f'[tool.mcp-stubgen.servers.hostile]\nurl = "{url}"\nprotocol = "auto"\n')
        with pytest.raises(hub_package.HubError) as from_config:
            async with hub_package.Hub.connect_from_config(config, servers=["hostile"]):
                pass
        said = str(from_config.value).replace(url, "URL")
    assert re.fullmatch(
        rf"hub: server 'hostile' could not connect \(StubgenError: server 'hostile': {FROM_CONFIG[fault]}\); "
        r"none of the servers stays open",
        said,
    ), said
    assert received(log) == ["server/discover"] * 4


@pytest.mark.parametrize("fault", ["status-400", "status-404", "status-405"])
async def test_a_probe_refused_as_a_legacy_server_refuses_it_falls_back_to_initialize(
    packages: Any, fault: str, tmp_path: Path
) -> None:
    """A 400, 404 or 405 error page to `auto`'s `server/discover` is how a legacy Streamable HTTP
    server refuses a method it does not know (the spec's backward-compatibility rule): the client,
    the hub and a hub from the config fall back to `initialize` and work."""
    client_package, _looping, hub_package, *_others = packages
    log = tmp_path / "requests.log"
    config = tmp_path / "pyproject.toml"
    with probed_over_http(fault, log) as url, anyio.fail_after(60):
        async with client_package.HostileClient.connect(url, mode="auto") as client:
            assert client.mcp_client.session.initialize_result is not None
            assert (await client.count()).n == 3
        async with hub_package.Hub.connect(hostile=url, mode="auto") as hub:
            assert (await hub.call("hostile__count", {})).structured_content == {"n": 3}
        config.write_text(f'[tool.mcp-stubgen.servers.hostile]\nurl = "{url}"\nprotocol = "auto"\n')
        async with hub_package.Hub.connect_from_config(config, servers=["hostile"]) as hub:
            assert (await hub.call("hostile__count", {})).structured_content == {"n": 3}
    handshakes = [method for method in received(log) if method in ("server/discover", "initialize")]
    assert handshakes == ["server/discover", "initialize"] * 3


REFUSED_PROBE = [
    (
        "status-401",
        "authorization",
        r"HTTP 401 Unauthorized: the server wants credentials and names no way to get them \(no WWW-Authenticate\); "
        r"connect with auth=",
    ),
    (
        "insufficient-scope",
        "insufficient scope",
        r"HTTP 403 Forbidden: the server wants a token with more scopes; connect with auth=",
    ),
]
"""A refusal of the credentials to the `server/discover` probe: the step the client's `AuthError`
names, and what it says after `the handshake failed: `."""


@pytest.mark.parametrize(("fault", "step", "expected"), REFUSED_PROBE, ids=[fault for fault, _, _ in REFUSED_PROBE])
async def test_a_probe_refusing_the_credentials_is_not_taken_for_a_legacy_server(
    packages: Any, fault: str, step: str, expected: str, tmp_path: Path
) -> None:
    """A 401 or a 403 `insufficient_scope` to `auto`'s `server/discover` comes from an authorization
    layer that read no method: `auto` took it for a legacy server's refusal and sent `initialize`
    (which a server that lets `initialize` through unauthorized answers, so the refusal surfaced
    later as whatever the next request met, and a re-authorization was spent on it). Now the client
    fails at once with the `AuthError` naming the step, and the server never receives `initialize`."""
    client_package, *_others = packages
    log = tmp_path / "requests.log"
    with (
        probed_over_http(fault, log) as url,
        anyio.fail_after(60),
        pytest.raises(client_package.AuthError) as refused,
    ):
        async with client_package.HostileClient.connect(url, mode="auto"):
            pass
    assert re.fullmatch(rf"server 'hostile': the handshake failed: {expected} \(code -32603\)", str(refused.value))
    assert refused.value.step == step
    assert received(log) == ["server/discover"]


async def test_an_answer_that_is_not_json_rpc_fails_its_call_in_one_line_without_a_traceback(
    packages: Any, faulty_http: tuple[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """A 200 whose JSON body is an HTML page or JSON but not JSON-RPC, or whose event stream's data is
    not JSON: the SDK logged a traceback into the application's log for each, and the error carried
    pydantic's report of many lines; a body of another type logged an error. Now one line, nothing
    logged, and the session goes on."""
    url, _recorder = faulty_http
    unreadable = (
        r"its answer is not JSON the MCP SDK reads \(Invalid JSON: expected value at line 1 column 1\) \(code -32700\)"
    )
    with anyio.fail_after(60), caplog.at_level(logging.WARNING):
        await fails_and_the_session_goes_on(packages, url, "html-200", unreadable)
        await fails_and_the_session_goes_on(packages, url, "sse-not-json", unreadable)
        not_json_rpc = r"its answer is JSON but not a JSON-RPC message \(code -32700\)"
        await fails_and_the_session_goes_on(packages, url, "not-jsonrpc", not_json_rpc)
        plain = r"its answer has Content-Type text/plain, not application/json or text/event-stream \(code -32600\)"
        await fails_and_the_session_goes_on(packages, url, "wrong-type", plain)
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == []


async def test_an_answer_with_another_requests_id_is_not_taken_for_this_ones(
    packages: Any, faulty_http: tuple[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """A JSON answer carrying another request's id: the call waited for ever (no timeout was given);
    now it fails at once. An event stream whose first answer is to a request never sent: the SDK
    took it as this request's and the hub returned its text; now it is left out with a warning
    naming the server, and the right answer, which follows, is returned."""
    client_package, _looping, hub_package, *_others = packages
    url, _recorder = faulty_http
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        await fails_and_the_session_goes_on(
            packages, url, "other-id", r"its answer carries id \d+, not this request's \d+ \(code -32700\)"
        )
        async with client_package.HostileClient.connect(url) as client:
            assert (await client.echo(text="sse-other-id")).text == "sse-other-id"
        async with hub_package.Hub.connect(hostile=url) as hub:
            assert (await hub.call("hostile__echo", {"text": "sse-other-id"})).content[0].text == "sse-other-id"
    left_out = [record.getMessage() for record in caplog.records if "is left out" in record.getMessage()]
    assert len(left_out) == 2 and all(
        re.fullmatch(
            r"hostile: an event on the stream of request \d+ is left out: it carries id \d+, not this request's \d+",
            line,
        )
        for line in left_out
    )


async def test_an_event_on_the_servers_own_stream_that_is_not_json_is_left_out(
    packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The GET stream a server opens for messages of its own: an event whose data is not JSON made the
    SDK log a traceback into the application's log (for the client and the hub alike). Now one
    warning naming the server, and the session goes on."""
    client_package, _looping, hub_package, *_others = packages
    left_out = "hostile: an event on its own stream is left out: it is not JSON the MCP SDK reads"

    async def warned(times: int) -> None:
        while sum(left_out in record.getMessage() for record in caplog.records) < times:
            await anyio.sleep(0.05)

    with (
        over_http("plain", "--http-fault", "get-not-json") as url,
        anyio.fail_after(30),
        caplog.at_level(logging.WARNING),
    ):
        async with client_package.HostileClient.connect(url) as client:
            await warned(1)
            assert (await client.echo(text="hi")).text == "hi"
        async with hub_package.Hub.connect(hostile=url) as hub:
            await warned(2)
            assert (await hub.call("hostile__echo", {"text": "hi"})).content[0].text == "hi"
    assert not any(record.exc_info for record in caplog.records)
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == [
        f"{left_out} (Invalid JSON: expected value at line 1 column 1)"
    ] * 2


async def test_a_servers_warnings_through_authorized_transport_never_show_the_urls_credentials(
    packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """`authorized_transport(url, auth)` has no server name, so its warnings name the URL: without
    the `user:password@` a URL may carry (it named the URL whole)."""
    client_package, *_others = packages
    with (
        over_http("plain", "--http-fault", "get-not-json") as url,
        anyio.fail_after(30),
        caplog.at_level(logging.WARNING),
    ):
        with_userinfo = url.replace("http://", "http://agent:hunter2-secret@")
        transport = client_package.authorized_transport(with_userinfo, httpx2.BasicAuth("a", "b"))
        async with client_package.HostileClient.connect(transport) as client:
            while not any("left out" in record.getMessage() for record in caplog.records):
                await anyio.sleep(0.05)
            assert (await client.echo(text="hi")).text == "hi"
    warned = [record.getMessage() for record in caplog.records if "left out" in record.getMessage()]
    assert warned and all(line.startswith(f"{url}: an event on its own stream") for line in warned), warned
    assert not any("hunter2" in record.getMessage() for record in caplog.records)


def test_an_event_stream_is_checked_alike_however_it_is_cut(packages: Any) -> None:
    """The runtime reads an event stream line by line as it arrives: however the bytes are cut (a CR
    LF split in two, one byte at a time), a priming event (an id, no data), a comment and a
    notification pass, another request's answer is left out and data that is not JSON becomes the
    request's error answer, with lines ended by CR, LF or both."""
    event_check = importlib.import_module("live._mcp_runtime._http")._EventCheck
    stream = (
        b"id: 1\ndata: \n\n: kept open\r\n\r\n"
        b'event: message\r\ndata: {"jsonrpc":"2.0","id":9,"result":{}}\r\n\r\n'
        b'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\r\r'
        b"data: <html>\r\r"
    )
    readings = set()
    for size in (1, 2, 3, 7, len(stream)):
        check = event_check(5, "hostile")
        read = b"".join(check.feed(stream[start : start + size]) for start in range(0, len(stream), size))
        readings.add(read + check.end())
    assert readings == {
        b"id: 1\ndata: \n\n: kept open\n\n"
        b'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n'
        b'data: {"jsonrpc": "2.0", "id": 5, "error": {"code": -32700, "message": "its answer is not JSON the MCP SDK '
        b'reads (Invalid JSON: expected value at line 1 column 1)"}}\n\n'
    }


async def test_a_failure_below_http_or_a_gzip_bomb_fails_one_call_not_the_session(
    packages: Any, faulty_http: tuple[str, Any]
) -> None:
    """A response header of 1 MB (httpx refuses it): the SDK's transport ended the whole session, so a
    client's block ended and a hub lost every server. A gzip body of 256 KiB that expands to 256 MiB:
    the SDK read it all into memory (2 GB for a GiB). Now each fails its own call, and the session goes on."""
    url, _recorder = faulty_http
    with anyio.fail_after(60):
        closed = r"RemoteProtocolError: Receive buffer too long \(code -32000\)"
        await fails_and_the_session_goes_on(packages, url, "huge-header", closed)
        bomb = r"its answer is larger than 64 MiB once decoded; not read \(code -32700\)"
        await fails_and_the_session_goes_on(packages, url, "gzip-bomb", bomb)


async def test_an_event_stream_that_stalls_ends_with_the_call_timeout(
    packages: Any, faulty_http: tuple[str, Any]
) -> None:
    """An event stream that stays open and silent: `call_options={"timeout": ...}` ends the call with
    `RequestTimeoutError` (the client's and the hub's), and the session goes on; one that ends
    before the answer fails its call at once."""
    client_package, _looping, hub_package, *_others = packages
    url, _recorder = faulty_http
    with anyio.fail_after(30):
        async with client_package.HostileClient.connect(url) as client:
            with pytest.raises(client_package.RequestTimeoutError, match=r"tool 'echo' got no answer within 0.5 s"):
                await client.echo(text="sse-stalls", call_options={"timeout": 0.5})
            assert (await client.count()).n == 3
        async with hub_package.Hub.connect(hostile=url) as hub:
            with pytest.raises(hub_package.RequestTimeoutError):
                await hub.call("hostile__echo", {"text": "sse-stalls"}, call_options={"timeout": 0.5})
            assert (await hub.call("hostile__count", {})).structured_content == {"n": 3}
        ended = r"SSE stream ended without a response \(code -32000\)"
        await fails_and_the_session_goes_on(packages, url, "sse-ends", ended)


async def test_a_shared_response_cache_is_keyed_by_the_url(packages: Any, faulty_http: tuple[str, Any]) -> None:
    """`connect(url, cache=CacheConfig(store=...))`: the SDK keys a shared store's entries by the URL,
    and refuses a store for a transport it cannot name; the runtime's HTTP transport is one, so it
    names the URL for the SDK (without the credentials a URL may hold)."""
    from mcp.client import CacheConfig, InMemoryResponseCacheStore

    client_package = packages[0]
    url, _recorder = faulty_http
    cache = CacheConfig(store=InMemoryResponseCacheStore(), partition="team")
    with anyio.fail_after(30):
        async with client_package.HostileClient.connect(url.replace("//", "//user:secret@"), cache=cache) as client:
            assert (await client.count()).n == 3


async def test_a_redirect_to_another_origin_is_not_followed_and_no_credentials_go_there(
    packages: Any, faulty_http: tuple[str, Any]
) -> None:
    """A 307 to another port of the same host: the client (given `auth=`) and the hub (given
    `authorized_transport`) do not follow it, so the `Authorization` header never reaches the other
    origin; the call fails naming where it was sent, and the session goes on."""
    client_package, _looping, hub_package, *_others = packages
    url, recorder = faulty_http
    elsewhere = f"http://127.0.0.1:{recorder.server_address[1]}/mcp"

    class Bearer(httpx2.Auth):
        def auth_flow(self, request: httpx2.Request) -> Iterator[httpx2.Request]:
            request.headers["Authorization"] = "Bearer not-for-strangers"
            yield request

    expected = (
        rf"Redirect to {re.escape(elsewhere)} not followed; use that URL as the endpoint if it is the intended server"
    )
    with anyio.fail_after(30):
        async with client_package.HostileClient.connect(url, auth=Bearer()) as client:
            with pytest.raises(client_package.ServerError, match=expected):
                await client.echo(text="redirect")
            assert (await client.count()).n == 3
        async with hub_package.Hub.connect(hostile=client_package.authorized_transport(url, Bearer())) as hub:
            with pytest.raises(hub_package.ServerError, match=expected):
                await hub.call("hostile__echo", {"text": "redirect"})
    assert recorder.requests == []


async def test_a_refused_credential_or_a_failing_auth_flow_fails_only_its_call_as_an_auth_error(
    packages: Any, faulty_http: tuple[str, Any]
) -> None:
    """A call of a client given `auth=` answered 401 (the token revoked mid-session) raised
    `ServerError` saying "connect with auth=", and an `auth=` flow that raised ended the whole
    session (the block died with it, a hub lost every server). Now each is that call's
    `UnauthorizedError`: an `AuthError` naming the step and what to do, and the `ServerError` it was,
    from a client, its sync twin and a hub; the next call is answered. A 403 `insufficient_scope`
    is one whatever its body holds, and so is a 401 to a client given no `auth=`. A 401 asking for a
    DPoP-bound token alone says DPoP is not supported (it said to renew the credentials, which no
    bearer token would satisfy)."""
    client_package, _looping, hub_package, *_others = packages
    url, _recorder = faulty_http

    class Vault(httpx2.Auth):
        """A bearer token from a vault that may be offline."""

        offline = False

        def auth_flow(self, request: httpx2.Request) -> Iterator[httpx2.Request]:
            if self.offline:
                raise RuntimeError("the token vault is offline")
            request.headers["Authorization"] = "Bearer from-the-vault"
            yield request

    failed = r"^server 'hostile': tool 'echo' failed: "
    revoked = r"HTTP 401 Unauthorized: the server refused the credentials auth= sent \(revoked, or expired\); renew them and retry"
    dpop = (
        r"HTTP 401 Unauthorized: the server asks for a DPoP-bound token \(WWW-Authenticate: DPoP\), and mcp-stubgen "
        r"sends bearer tokens only: DPoP is not supported \(docs/authentication.md\)"
    )
    scope = r"HTTP 403 Forbidden: the token auth= sent lacks a scope the server asks for \(insufficient_scope\); authorize again with it and retry"
    offline = r"OAuth authorization failed: auth= could not authorize the request \(RuntimeError: the token vault is offline\)"
    vault = Vault()
    with anyio.fail_after(30):
        async with client_package.HostileClient.connect(url, auth=vault) as client:
            for fault, step, expected in (
                ("status-401", "authorization", revoked),
                ("insufficient-scope", "insufficient scope", scope),
                ("dpop-401", "authorization", dpop),
            ):
                with pytest.raises(client_package.AuthError, match=rf"{failed}{expected} \(code -32603\)$") as refused:
                    await client.echo(text=fault)
                assert isinstance(refused.value, client_package.ServerError)
                assert (refused.value.step, refused.value.data["authStep"]) == (step, step)
            vault.offline = True
            with pytest.raises(client_package.UnauthorizedError, match=rf"{failed}{offline} \(code -32603\)$"):
                await client.echo(text="hi")
            vault.offline = False
            assert (await client.count()).n == 3
        async with hub_package.Hub.connect(hostile=client_package.authorized_transport(url, vault)) as hub:
            with pytest.raises(client_package.AuthError, match=rf"{failed}{revoked}"):
                await hub.call("hostile__echo", {"text": "status-401"})
            vault.offline = True
            with pytest.raises(client_package.AuthError, match=rf"{failed}{offline}"):
                await hub.call("hostile__echo", {"text": "hi"})
            vault.offline = False
            assert (await hub.call("hostile__count", {})).structured_content == {"n": 3}
        async with client_package.HostileClient.connect(url) as client:
            with pytest.raises(client_package.AuthError, match=r"the server wants credentials .*; connect with auth="):
                await client.echo(text="status-401")
    with client_package.HostileClient.connect_sync(url, auth=vault) as sync_client:
        with pytest.raises(client_package.AuthError, match=rf"{failed}{revoked}"):
            sync_client.echo(text="status-401")
        vault.offline = True
        with pytest.raises(client_package.AuthError, match=rf"{failed}{offline}"):
            sync_client.echo(text="hi")
        vault.offline = False
        assert sync_client.count().n == 3


async def test_a_notification_whose_auth_flow_fails_is_lost_with_a_warning_not_the_session(
    packages: Any, faulty_http: tuple[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """An `auth=` flow that raised for a notification (`notifications/initialized`) ended the SDK's
    writer, so every later call failed with "Connection closed"; now the notification is lost with
    one warning naming the server, and the calls are answered."""
    client_package, *_others = packages
    url, _recorder = faulty_http

    class FailsOnInitialized(httpx2.Auth):
        requires_request_body = True

        def auth_flow(self, request: httpx2.Request) -> Iterator[httpx2.Request]:
            if b"notifications/initialized" in request.content:
                raise RuntimeError("the token vault is offline")
            request.headers["Authorization"] = "Bearer from-the-vault"
            yield request

    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with client_package.HostileClient.connect(url, auth=FailsOnInitialized()) as client:
            assert (await client.count()).n == 3
    assert [record.getMessage() for record in caplog.records] == [
        "hostile: a message to the server was lost (OAuth authorization failed: auth= could not authorize "
        "the request (RuntimeError: the token vault is offline))"
    ]


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("initialize-error", r"license expired \(code -32603\)"),
        ("exit-at-start", CLOSED),
        ("unknown-version", r"Unsupported protocol version from the server: 2099-01-01 \(code -32022\)"),
    ],
    ids=["error-answer", "exit", "unknown-version"],
)
async def test_a_handshake_the_server_fails_is_a_server_error(packages: Any, mode: str, reason: str) -> None:
    """A server that answers `initialize` with an error, exits before answering, or answers with a
    protocol version nobody knows: the client's `connect` raised the SDK's raw `MCPError` or
    `RuntimeError`; now the client's `ServerError` (sync twin too), and the hub's `HubError` names it."""
    client_package, _looping, hub_package, *_others = packages
    expected = rf"^server 'hostile': the handshake failed: {reason}$"
    with anyio.fail_after(30):
        with pytest.raises(client_package.ServerError, match=expected):
            async with client_package.HostileClient.connect(hostile(mode)):
                pass
        with pytest.raises(
            hub_package.HubError, match=r"could not connect \(ServerError: server 'hostile': the handshake"
        ):
            async with hub_package.Hub.connect(hostile=hostile(mode)):
                pass
    with (
        pytest.raises(client_package.ServerError, match=expected),
        client_package.HostileClient.connect_sync(hostile(mode)),
    ):
        pass


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("relist-fails", r"catalog backend unavailable \(code -32603\)"),
        ("relist-invalid", r"its answer is not valid MCP \(/tools: Input should be a valid list\) \(code -32700\)"),
    ],
    ids=["error-answer", "not-mcp"],
)
async def test_a_relist_that_fails_keeps_the_hub_connected(
    packages: Any, mode: str, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A server says its tools changed, then answers `tools/list` with an error or a result that is
    not valid MCP: the hub keeps the server's last listing and goes on calling (a background re-list
    used to end the whole hub session with a raw `MCPError` or `ValidationError`); `verify()` of the
    hub and of a client raise `ServerError`."""
    client_package, _looping, hub_package, *_others = packages
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with hub_package.Hub.connect(hostile=hostile(mode)) as hub:
            await hub.call("hostile__echo", {"text": "a"})  # the server says its tools changed
            await anyio.sleep(1.5)  # past the hub's settling and re-list interval
            again = await hub.call("hostile__echo", {"text": "b"})
            assert again.content[0].text == "b"
            assert "hostile__echo" in hub.live_tools
            with pytest.raises(hub_package.ServerError, match=rf"server 'hostile': tools/list failed: {reason}"):
                await hub.verify()
        assert any("keeping the tools it listed before" in record.getMessage() for record in caplog.records)
        async with client_package.HostileClient.connect(hostile(mode)) as client:
            await client.verify()
            with pytest.raises(client_package.ServerError, match=rf"tools/list failed: {reason}"):
                await client.verify()


async def test_a_ref_cycle_is_refused_with_a_typed_error_not_a_recursion_error(packages: Any) -> None:
    """A schema whose `$ref`s only lead to each other (`a` to `b` to `a`) never reaches a type: the
    runtime's compiled check (and `jsonschema`) recursed until a raw `RecursionError`. The client
    (for a snapshot tool) and the hub (for a tool added live) refuse the call, naming the tool;
    nothing is sent."""
    _hostile, looping, hub_package, *_others = packages
    with anyio.fail_after(30):
        async with looping.LoopingClient.connect(hostile("ref-cycle")) as client:
            with pytest.raises(looping.ToolArgumentsError, match=r"tool 'loop': its input schema cannot be applied"):
                await client.loop(arguments={"text": "x"})
        async with hub_package.Hub.connect(hostile=hostile("ref-cycle"), live_tools="callable") as hub:
            assert "hostile__loop" in hub.difference().added
            with pytest.raises(hub_package.ArgumentsError, match=r"hostile__loop: its input schema cannot be applied"):
                await hub.call("hostile__loop", {"text": "x"})


async def test_an_answer_the_sdk_cannot_read_fails_its_call_at_once(packages: Any) -> None:
    """A result holding half an emoji (a lone UTF-16 surrogate) or an integer of 5,001 digits, or an
    answer with `"result": null`: the SDK's stdio transport drops the line, and the call waited for
    ever (a hub's first listing until its connect timeout). Now the call fails at once with `ServerError` -32700, in the async and the
    sync client, and a hub's listing likewise; over Streamable HTTP (a JSON body or an event stream)
    the same words, and the session goes on."""
    client_package, _looping, hub_package, *_others = packages
    unreadable = r"its answer is not JSON the MCP SDK reads \(Invalid JSON: .*\) \(code -32700\)$"
    surrogate = (
        r"its answer is not JSON the MCP SDK reads: /\S+ holds a lone UTF-16 surrogate \(half of a character, "
        r"such as an emoji cut in two\); the server has to send whole characters \(code -32700\)$"
    )
    with anyio.fail_after(30):
        async with client_package.HostileClient.connect(hostile("lone-surrogate")) as client:
            with pytest.raises(client_package.ServerError, match=rf"tool 'echo' failed: {surrogate}"):
                await client.echo(text="hi")
        async with client_package.HostileClient.connect(hostile("long-integer")) as client:
            with pytest.raises(client_package.ServerError, match=rf"tool 'count' failed: {unreadable}"):
                await client.count()
        async with client_package.HostileClient.connect(hostile("null-call")) as client:
            neither = r"its answer holds neither a result object nor an error \(code -32700\)"
            with pytest.raises(client_package.ServerError, match=rf"tool 'echo' failed: {neither}"):
                await client.echo(text="hi")
        with pytest.raises(client_package.ServerError, match=rf"tools/list failed: {surrogate}"):
            async with hub_package.Hub.connect(hostile=hostile("lone-surrogate"), timeout=20):
                pass
        for answer in ([], ["--http-fault", "sse", "--fault-on", "echo"]):  # a JSON body, an event stream
            with over_http("lone-surrogate", *answer) as url:
                async with client_package.HostileClient.connect(url) as client:
                    with pytest.raises(client_package.ServerError, match=rf"tool 'echo' failed: {surrogate}"):
                        await client.echo(text="hi")
                    assert (await client.count()).n == 3
        with (
            over_http("lone-surrogate") as url,
            pytest.raises(hub_package.ServerError, match=rf"tools/list failed: {surrogate}"),
        ):
            async with hub_package.Hub.connect(hostile=url, timeout=20):
                pass
    with (
        client_package.HostileClient.connect_sync(hostile("lone-surrogate")) as sync_client,
        pytest.raises(client_package.ServerError, match=surrogate),
    ):
        sync_client.echo(text="hi")


@pytest.mark.parametrize("transport", ["stdio", "http-json", "http-event-stream"])
def test_a_lone_surrogate_in_a_catalog_is_named_not_a_timeout(transport: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A JavaScript server that cut an emoji in half sends a lone UTF-16 surrogate (`\\ud83d`), which
    the SDK's JSON parser refuses: over stdio the listing waited out `request_timeout` and then
    advised raising it; over Streamable HTTP (a JSON answer, or an event stream's) it said the
    transport's `tools/list failed: its answer is not JSON the MCP SDK reads (Invalid JSON: unexpected
    end of hex escape ...)`. Now one line names the tool and the JSON pointer at once, whichever the
    transport, and the previous file is kept."""
    previous = tmp_path / "lone.json"
    previous.write_bytes(b"{}\n")
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        if transport == "stdio":
            server = ["--", PY, HOSTILE, "--mode", "lone-surrogate"]
        else:
            sse = ["--http-fault", "sse", "--fault-on", "tools/list"] if transport == "http-event-stream" else []
            server = ["--url", stack.enter_context(over_http("lone-surrogate", *sse))]
        result = run_cli("snapshot", "--name", "lone", "--out", previous, "--request-timeout", "20", *server)
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [
        "error: server 'lone': tool 'echo' /description: a string holds a lone UTF-16 surrogate (half of a "
        "character, such as an emoji cut in two), which the MCP SDK cannot read; the server has to send whole "
        "characters"
    ], result.stderr
    assert time.monotonic() - started < 10
    assert previous.read_bytes() == b"{}\n"


def test_a_listing_past_the_size_limit_fails_the_snapshot_in_one_line(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A `tools/list` answer of 65 MiB: `snapshot` names the server, the request and the limit in one
    line, and the previous file is kept."""
    previous = tmp_path / "huge.json"
    previous.write_bytes(b"{}\n")
    result = run_cli("snapshot", "--name", "huge", "--out", previous, "--", PY, HOSTILE, "--mode", "huge-listing")
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: server 'huge': tools/list"), result.stderr
    assert "its answer is longer than 64 MiB (68,157," in lines[0], result.stderr
    assert previous.read_bytes() == b"{}\n"


@pytest.mark.parametrize(
    ("flag", "reason"),
    [
        ("--forget-tasks", r"tasks/get of task 'task-1' failed: no task 'task-1' \(code -32602\)"),
        (
            "--bad-status",
            r"tasks/get of task 'task-1' failed: its answer is not valid MCP \(/status: .*\) \(code -32700\)",
        ),
    ],
    ids=["error-answer", "not-mcp"],
)
async def test_a_task_the_server_answers_badly_about_is_a_server_error(packages: Any, flag: str, reason: str) -> None:
    """A server that forgets a running task, or reports a status MCP does not have: waiting on the
    task's handle raised the SDK's raw `MCPError` or pydantic's `ValidationError`; now `ServerError`,
    as the method of a tool that only runs as a task raises."""
    tasks = packages[3]
    with anyio.fail_after(30):
        async with tasks.TasksClient.connect(StdioServerParameters(command=PY, args=[TASKS, flag])) as client:
            handle = await client.start_forecast(city="Oslo", days=2)
            with pytest.raises(tasks.ServerError, match=rf"^server 'tasks': {reason}$"):
                await handle.result(timeout=20)
            with pytest.raises(tasks.ServerError, match=r"tasks/get of task 'task-2' failed"):
                await client.multiply(a=2, b=3)


async def test_base64_that_is_not_standard_in_a_tasks_result_fails_its_wait(packages: Any) -> None:
    """A task's result holding an image whose base64 lacks its padding: `result()` of the task's
    handle returned it as sent; now it raises `ServerError` naming the tool and where, as the
    tool's plain call does."""
    tasks = packages[3]
    unpadded = (
        r"^server 'tasks': tool 'forecast' failed: its answer is not valid MCP \(/content/1/data is not standard "
        r"base64: Incorrect padding\); .* \(code -32700\)$"
    )
    with anyio.fail_after(30):
        async with tasks.TasksClient.connect(StdioServerParameters(command=PY, args=[TASKS])) as client:
            handle = await client.start_forecast(city="Pixelville", days=1)
            with pytest.raises(tasks.ServerError, match=unpadded):
                await handle.result(timeout=20)
            with pytest.raises(tasks.ServerError, match=unpadded):
                await client.forecast(city="Pixelville", days=1)
            assert (await client.forecast(city="Oslo", days=1)).highs == [20.5]


def test_an_answer_neither_result_nor_error_fails_the_snapshot_at_once(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """`tools/list` answered with `"result": null`: discovery, like the SDK, dropped the answer, and
    the listing waited out `request_timeout` to advise raising it. Now one line at once."""
    result = run_cli(
        "snapshot", "--name", "n", "--out", tmp_path / "n.json", "--request-timeout", "20",
        "--", PY, HOSTILE, "--mode", "null-list",
    )  # fmt: skip
    assert result.exit_code == 2 and not (tmp_path / "n.json").exists()
    assert result.stderr == (
        "error: server 'n': tools/list failed: its answer holds neither a result object nor an error (code -32700)\n"
    )


async def test_a_lone_surrogate_in_a_watched_catalog_is_named_not_a_timeout() -> None:
    """The same catalog (and an answer with `"result": null`) through the session `watch` and
    `Hub.connect_from_config` hold open (the SDK's `Client` over mcp-stubgen's stdio transport, and
    over Streamable HTTP): one line at once, naming the tool, not `tools/list did not answer within
    30s` (over HTTP: the transport's `its answer is not JSON the MCP SDK reads`)."""
    from codegen.errors import StubgenError
    from codegen.snapshot.discovery import connect, list_catalog

    server = ServerConfig(name="lone", command=PY, args=(HOSTILE, "--mode", "lone-surrogate"))
    with anyio.fail_after(20), pytest.raises(StubgenError) as refused:
        async with connect(server) as client:
            await list_catalog(client, server)
    assert str(refused.value).startswith("server 'lone': tool 'echo' /description: a string holds a lone UTF-16")
    with over_http("lone-surrogate") as url, anyio.fail_after(20), pytest.raises(StubgenError) as refused:
        server = ServerConfig(name="lone", url=url)
        async with connect(server) as client:
            await list_catalog(client, server)
    assert str(refused.value).startswith("server 'lone': tool 'echo' /description: a string holds a lone UTF-16")
    server = ServerConfig(name="n", command=PY, args=(HOSTILE, "--mode", "null-list"))
    with anyio.fail_after(20), pytest.raises(StubgenError) as refused:
        async with connect(server) as client:
            await list_catalog(client, server)
    assert (
        str(refused.value)
        == "server 'n': its answer holds neither a result object nor an error; the server has to fix it"
    )


async def test_a_declared_tools_list_the_server_does_not_implement_lists_no_tools(packages: Any) -> None:
    """`snapshot` records a declared `tools/list` answered with -32601 as empty (`missingMethods`);
    the client's `verify()` and a hub connecting to that server failed on the same answer (the hub
    could not connect at all). Both read it as no tools now, as `snapshot` does."""
    _hostile, _looping, hub_package, _tasks, unlisted = packages
    server = hostile("tools-not-implemented")
    with anyio.fail_after(30):
        async with unlisted.UnlistedClient.connect(server) as client:
            await client.verify()
        async with hub_package.Hub.connect(unlisted=server, hostile=hostile("plain")) as hub:
            assert not [name for name in hub.live_tools if name.startswith("unlisted__")]
            assert (await hub.call("hostile__echo", {"text": "hi"})).content[0].text == "hi"
            assert (await hub.verify()).removed == ()


async def test_a_second_answer_a_flood_mid_call_and_is_error_with_structured_content(packages: Any) -> None:
    """What was right already, kept so: a call answered twice returns the first answer; 500
    `list_changed` notifications before an answer delay nothing; `isError` with `structuredContent`
    the schema refuses is the tool's failure (`ToolError`), and the hub returns it as it came."""
    client_package, _looping, hub_package, *_others = packages
    with anyio.fail_after(30):
        for mode in ("answer-twice", "flood-mid-call"):
            async with client_package.HostileClient.connect(hostile(mode)) as client:
                assert [(await client.echo(text=text)).text for text in ("a", "b")] == ["a", "b"]
            async with hub_package.Hub.connect(hostile=hostile(mode)) as hub:
                assert (await hub.call("hostile__echo", {"text": "a"})).content[0].text == "a"
        async with client_package.HostileClient.connect(hostile("error-with-structured")) as client:
            with pytest.raises(client_package.ToolError, match=r"tool 'count' failed: no count today"):
                await client.count()
        async with hub_package.Hub.connect(hostile=hostile("error-with-structured")) as hub:
            failed = await hub.call("hostile__count", {})
            assert failed.is_error and failed.structured_content == {"n": "not a number"}


@pytest.mark.parametrize("mode", ["bad-discover", "discover-unknown", "discover-null"])
def test_a_malformed_server_discover_answer_falls_back_or_fails_a_pin_in_one_line(
    mode: str, tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """`server/discover` answered with a string for `supportedVersions`, only an unknown version, or
    `null` capabilities: `auto` falls back to `initialize`, and a 2026-07-28 pin fails in one line."""
    out = tmp_path / "d.json"
    command = ("--", PY, HOSTILE, "--mode", mode)
    assert run_cli("snapshot", "--name", "d", "--out", out, *command).exit_code == 0
    assert json.loads(out.read_text())["protocolVersion"] == "2025-06-18"
    pinned = run_cli("snapshot", "--name", "d", "--out", tmp_path / "pinned.json", "--protocol", "2026-07-28", *command)
    assert pinned.exit_code == 2 and not (tmp_path / "pinned.json").exists()
    assert re.fullmatch(
        r"error: server 'd': does not speak the pinned protocol 2026-07-28 \((its server/discover result is not "
        r"valid MCP|server/discover offers only 2099-01-01)\); pin a version it speaks, or set protocol = \"auto\" "
        r"in the config or --protocol auto\n",
        pinned.stderr,
    ), pinned.stderr


@pytest.mark.parametrize(
    ("mode", "why"),
    [
        ("bad-discover-only", "its server/discover result is not valid MCP"),
        ("discover-error-only", "server/discover: database not ready (code -32603)"),
    ],
)
def test_a_server_discover_failure_of_a_server_that_refuses_initialize_is_named(
    tmp_path: Path, run_cli, mode: str, why: str
) -> None:  # type: ignore[no-untyped-def]
    """A 2026-07-28 server alone whose `server/discover` result is not valid MCP, or which answers it
    with an error of its own: `auto` falls back to `initialize`, which it refuses or does not know,
    and the line said only that ("handshake failed: Method not found"), the fallback's answer,
    hiding what the server has to fix (the second found by the CLI sweep)."""
    out = tmp_path / "d.json"
    result = run_cli("snapshot", "--name", "d", "--out", out, "--", PY, HOSTILE, "--mode", mode)
    fix = "fix its server/discover result" if mode == "bad-discover-only" else "answer server/discover"
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: server 'd': {why}, and it refused initialize (Method not found, code -32601); the server "
        f"has to {fix}\n",
    )
    assert not out.exists()


@pytest.mark.parametrize("code", ["32000", "32001"])
def test_a_server_discover_refused_with_a_code_of_the_sdks_own_falls_back_to_initialize(
    code: str, tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """`server/discover` refused with -32000 or -32001 (the SDK's codes for a closed connection and a
    timeout, which some servers answer an unknown method with) is the server's answer, over stdio and
    HTTP, as the SDK's `auto` reads it: it said the server closed the connection during start-up, or
    that nothing answered the handshake within connect_timeout, and recorded nothing."""
    mode = f"discover-refused-{code}"
    stdio_out, http_out = tmp_path / "stdio.json", tmp_path / "http.json"
    stdio = run_cli("snapshot", "--name", "d", "--out", stdio_out, "--", PY, HOSTILE, "--mode", mode)
    with over_http(mode) as url:
        http = run_cli("snapshot", "--name", "d", "--url", url, "--out", http_out)
    for result, out in ((stdio, stdio_out), (http, http_out)):
        assert result.exit_code == 0, result.stderr
        assert json.loads(out.read_text())["protocolVersion"] == "2025-06-18"


def test_a_list_refused_with_minus_32000_is_the_servers_answer(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A stdio server's own -32000 answer to `tools/list` was said to be the connection closing."""
    result = run_cli(
        "snapshot", "--name", "d", "--out", tmp_path / "d.json", "--", PY, HOSTILE, "--mode", "list-refused-32000"
    )
    assert result.exit_code == 2
    assert result.stderr == "error: server 'd': tools/list failed: catalog backend down (code -32000)\n"


async def test_a_server_discover_refused_with_minus_32000_is_connected_with_the_legacy_handshake(
    tmp_path: Path,
) -> None:
    """The same refusal under `connect` (`watch`, a hub from the config), whose stdio session the SDK holds."""
    write_config(
        tmp_path,
        f"[tool.mcp-stubgen.servers.d]\ncommand = {json.dumps(PY)}\n"
        f'args = [{json.dumps(HOSTILE)}, "--mode", "discover-refused-32000"]\n',
    )
    server = load_config(tmp_path / "pyproject.toml").servers["d"]
    with anyio.fail_after(30):
        async with connect(server) as client:
            assert client.protocol_version == "2025-06-18"


async def test_a_hub_follows_a_server_that_refuses_subscriptions_listen_by_its_notifications(
    packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A 2026-07-28 server that declares `tools.listChanged` but answers `subscriptions/listen` with
    -32601: the hub could not connect at all (the SDK's raw `MCPError`). Now it connects, logs why,
    and follows the server's `list_changed` notifications instead."""
    hub_package = packages[2]
    server = StdioServerParameters(command=PY, args=[RAW, "--mode", "dual-era"])
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with hub_package.Hub.connect(dual=server) as hub:
            assert (await hub.call("dual__bravo", {"value": "x"})).content[0].text == "bravo: x"
    assert any("subscriptions/listen was refused" in record.getMessage() for record in caplog.records)


def test_watch_polls_a_server_that_refuses_subscriptions_listen(tmp_path: Path) -> None:
    """The same server under `watch`: every session failed on the refused stream and reconnected, so
    the catalog was never listed, compared or published. Now it is polled, with one warning line."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\n[tool.mcp-stubgen.servers.dual]\n'
        f'command = {json.dumps(PY)}\nargs = [{json.dumps(RAW)}, "--mode", "dual-era"]\n'
    )
    watched = subprocess.run(
        [PY, "-m", "codegen", "watch", "--max-changes", "1", "--interval", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert watched.returncode == 0, watched.stderr
    assert "warning: server 'dual': declares listChanged but does not implement subscriptions/listen" in watched.stderr
    assert "dual: watching (polling every 1s)" in watched.stderr
    assert json.loads((tmp_path / "snaps" / "dual.json").read_text())["protocolVersion"] == "2026-07-28"


@pytest.mark.parametrize("ttl_ms", [10**15, 10**400], ids=["millennia", "400-digits"])
def test_a_servers_ttl_keeps_a_listing_fresh_for_a_day_at_most(
    ttl_ms: int, tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A 2026-07-28 server may say how long its listing stays fresh (`ttlMs`): 10**15 ms kept `sync`
    from listing it for 31,700 years, and 10**400 ended `sync` in an internal error (a float
    overflow). Now at most a day, as the SDK's own response cache caps it."""
    monkeypatch.chdir(tmp_path)
    table = f"command = {json.dumps(PY)}\nargs = {json.dumps([str(SERVERS / 'ttl_server.py'), 'requests.txt', str(ttl_ms)])}\n"
    write_config(
        tmp_path,
        f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n[tool.mcp-stubgen.servers.ttl]\n{table}',
    )
    first = run_cli("sync")
    assert first.exit_code == 0, first.stderr
    again = run_cli("sync")
    assert again.exit_code == 0, again.stderr
    fresh = re.search(
        r"ttl: the server's listing is fresh for (\d+)s more \(its ttlMs\); not listed again", again.stderr
    )
    assert fresh is not None, again.stderr
    assert 86_000 < int(fresh[1]) <= 86_400


async def test_a_hub_connected_from_config_survives_http_faults(
    packages: Any, faulty_http: tuple[str, Any], tmp_path: Path
) -> None:
    """`Hub.connect_from_config` reaches a server through mcp-stubgen's own session (its config's
    headers and timeouts): a 1 MB response header ended the whole session, a gzip body that expands
    to 256 MiB was read into memory and returned, and an answer with another request's id waited out
    `request_timeout`. Now each fails its own call as `Hub.connect(url)` does, and the session goes on."""
    hub_package = packages[2]
    url, _recorder = faulty_http
    config = tmp_path / "pyproject.toml"
    config.write_text(f'[tool.mcp-stubgen.servers.hostile]\nurl = "{url}"\nrequest_timeout = 20\n')
    with anyio.fail_after(30):
        async with hub_package.Hub.connect_from_config(config, servers=["hostile"]) as hub:
            for fault, expected in (
                ("huge-header", r"RemoteProtocolError: Receive buffer too long \(code -32000\)"),
                ("gzip-bomb", r"its answer is larger than 64 MiB once decoded; not read \(code -32700\)"),
                ("other-id", r"its answer carries id \d+, not this request's \d+ \(code -32700\)"),
            ):
                with pytest.raises(
                    hub_package.ServerError, match=rf"^server 'hostile': tool 'echo' failed: {expected}$"
                ):
                    await hub.call("hostile__echo", {"text": fault})
                assert (await hub.call("hostile__count", {})).structured_content == {"n": 3}


@pytest.fixture(scope="module")
def odd_packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """`odd.odd`, `odd.hub` over it and `odd.code_mode`, generated by `generate --hub --code-mode`
    from the hostile server's `odd` catalog (its `echo` answered as its text says); forgotten afterwards."""
    folder = tmp_path_factory.mktemp("odd")
    snapshot = folder / "odd.json"
    write_snapshot(
        snapshot, anyio.run(snapshot_server, ServerConfig(name="odd", command=PY, args=(HOSTILE, "--mode", "odd")))
    )
    command = [PY, "-m", "codegen", "generate", "--hub", "--code-mode", "--out", str(folder / "odd"), str(snapshot)]
    subprocess.run(command, check=True, capture_output=True, cwd=REPO)
    sys.path.insert(0, str(folder))
    try:
        yield tuple(importlib.import_module(f"odd.{name}") for name in ("odd", "hub", "code_mode"))
    finally:
        sys.path.remove(str(folder))
        for module in [module for module in sys.modules if module.split(".")[0] == "odd"]:
            del sys.modules[module]


def odd_config(folder: Path) -> Path:
    """A project config with the hostile server in `odd` mode as server `odd`, for `Hub.connect_from_config`."""
    config = folder / "pyproject.toml"
    config.write_text(
        f"[tool.mcp-stubgen.servers.odd]\ncommand = {json.dumps(PY)}\n"
        f"args = {json.dumps([HOSTILE, '--mode', 'odd'])}\nrequest_timeout = 20\n"
    )
    return config


ANSI = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\x1b[0m\r\nINFO all good"
"""The hostile server's `ANSI`: a window title, clear screen, colour and a forged log line."""
ANSI_SHOWN = r"\x1b]0;owned\x07\x1b[2J\x1b[31mred\x1b[0m\r\nINFO all good"
"""The hostile server's `ANSI` text as a one-line error message shows it: every control character escaped."""
ANSI_LINES_SHOWN = r"\x1b]0;owned\x07\x1b[2J\x1b[31mred\x1b[0m" + "\n  | INFO all good"
"""The hostile server's `ANSI` text as a failed tool's message shows it: its CRLF a line break, the
line after it behind the gutter, every other control character escaped."""
MULTI_LINE_SHOWN = "Query failed:\n  |   SELECT * FRM users\n  |            ^\n  | \tsyntax error near 'FRM'\n  |\n  | Did you mean FROM?"
"""The hostile server's multi-line failure as a message shows it: each line as written, behind the
gutter; the first block's last line break and the break between the blocks leave a blank line."""


async def test_terminal_control_in_a_servers_text_never_reaches_an_error_message(odd_packages: Any) -> None:
    """A failed tool's text and a JSON-RPC error's message went into `ToolError` and `ServerError`
    verbatim: printed or logged, the server set the terminal's title, cleared the screen and forged
    a log line (`\\r\\nINFO all good`). Now control characters are escaped in the async and the sync
    client and from `hub.call`: a JSON-RPC error's message is one printable line, a failed tool's
    text keeps its line breaks with the lines after the first behind a `  | ` gutter, so none passes
    for a log line; the attributes keep the text as sent."""
    odd, hub_package, _code_mode = odd_packages
    with anyio.fail_after(30):
        async with odd.OddClient.connect(hostile("odd")) as client:
            with pytest.raises(odd.ToolError) as failed:
                await client.echo(text="ansi-is-error")
            assert str(failed.value) == f"server 'odd': tool 'echo' failed: {ANSI_LINES_SHOWN}"
            assert failed.value.content[0].text == ANSI
            with pytest.raises(odd.ServerError) as refused:
                await client.echo(text="ansi-rpc-error")
            assert str(refused.value) == f"server 'odd': tool 'echo' failed: {ANSI_SHOWN} (code -32603)"
            assert (refused.value.message, refused.value.data) == (ANSI, ANSI)
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            with pytest.raises(hub_package.ServerError) as refused:
                await hub.call("odd__echo", {"text": "ansi-rpc-error"})
            assert str(refused.value) == f"server 'odd': tool 'echo' failed: {ANSI_SHOWN} (code -32603)"
    with odd.OddClient.connect_sync(hostile("odd")) as sync_client, pytest.raises(odd.ToolError) as failed:
        sync_client.echo(text="ansi-is-error")
    assert str(failed.value) == f"server 'odd': tool 'echo' failed: {ANSI_LINES_SHOWN}"


async def test_a_failed_tools_multi_line_text_reads_as_the_server_wrote_it(odd_packages: Any) -> None:
    """A failed tool's text of several lines (a query and a caret under the error) was one line in
    `ToolError`'s and code mode's `ToolCallError`'s messages, each newline a literal `\\n` and each
    block run into the last. Now each line is on its own line, indentation and tabs kept, CRLF read
    as a line break and the blocks one under another; the lines after the first sit behind the
    gutter, so a printed traceback still shows where the server's text ends."""
    odd, hub_package, code_mode = odd_packages
    with anyio.fail_after(30):
        async with odd.OddClient.connect(hostile("odd")) as client:
            with pytest.raises(odd.ToolError) as failed:
                await client.echo(text="multi-line-is-error")
            assert str(failed.value) == f"server 'odd': tool 'echo' failed: {MULTI_LINE_SHOWN}"
            assert failed.value.content[0].text.startswith("Query failed:\r\n")
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            functions = importlib.import_module("odd.code_mode.odd")
            with code_mode.use_hub(hub), pytest.raises(code_mode.ToolCallError) as called:
                await functions.echo(text="multi-line-is-error")
            assert str(called.value) == f"odd.echo: the tool reported an error: {MULTI_LINE_SHOWN}"


async def test_terminal_control_in_a_tools_error_text_never_reaches_code_modes_error(odd_packages: Any) -> None:
    """Code mode's `ToolCallError` (in process, and as the sandbox reports the call in its
    `CallRecord.detail`, which a host prints or logs) carried a failed tool's text verbatim. Now its
    message escapes every control character but its line breaks, each line after the first behind
    the gutter; `text` keeps what the server sent."""
    _odd, hub_package, code_mode = odd_packages
    with anyio.fail_after(30):
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            functions = importlib.import_module("odd.code_mode.odd")
            with code_mode.use_hub(hub), pytest.raises(code_mode.ToolCallError) as failed:
                await functions.echo(text="ansi-is-error")
            assert str(failed.value) == f"odd.echo: the tool reported an error: {ANSI_LINES_SHOWN}"
            assert failed.value.text == ANSI
            script = (
                'import odd\ntry:\n    await odd.echo(text="ansi-is-error")\nexcept RuntimeError as e:\n    str(e)\n'
            )
            run = await code_mode.run_code(script, hub=hub, approve="allow")
            assert [call.detail for call in run.calls] == [f"odd.echo: the tool reported an error: {ANSI_LINES_SHOWN}"]


BAD_BLOBS = {
    "unpadded": "Incorrect padding",
    "newline": "Only base64 data is allowed",
    "urlsafe": "Only base64 data is allowed",
    "garbage": "Only base64 data is allowed",
    "not-ascii": "string argument should contain only ASCII characters",
}
"""The hostile server's `odd://blobs/{kind}` whose `blob` is not standard base64, and what decoding it says."""
LARGE_BLOB = bytes(range(256)) * 16384
"""The bytes of the hostile server's `odd://blobs/large`, 4 MiB."""


def bad_blob(kind: str) -> str:
    """The one line a read of `odd://blobs/<kind>` fails with."""
    return (
        rf"^server 'odd': resource 'odd://blobs/{kind}' failed: its answer is not valid MCP \(/contents/1/blob is "
        rf"not standard base64: {BAD_BLOBS[kind]}\); the server must send its bytes base64-encoded with padding "
        r"\(RFC 4648\), so tell its maintainers \(code -32700\)$"
    )


async def test_a_resource_blob_that_is_not_base64_fails_its_read_and_a_good_one_decodes_as_promised(
    odd_packages: Any,
) -> None:
    """The SDK does not check that a `blob` is base64, and the readers returned it as sent: garbage, a
    stray newline or URL-safe base64 failed later, wherever the application decoded it. Now the read
    fails with `ServerError` naming the server and the URI (async, sync and through a hub), and a good
    blob is returned as sent, so `base64.b64decode(blob, validate=True)` gives its bytes."""
    from mcp.types import BlobResourceContents

    def decoded(blob: Any) -> bytes:
        assert isinstance(blob, BlobResourceContents)
        return base64.b64decode(blob.blob, validate=True)

    odd, hub_package, _code_mode = odd_packages
    large = base64.b64encode(LARGE_BLOB).decode()
    with anyio.fail_after(60):
        async with odd.OddClient.connect(hostile("odd")) as client:
            for kind in BAD_BLOBS:
                with pytest.raises(odd.ServerError, match=bad_blob(kind)):
                    await client.read_blobs(kind=kind)
            with pytest.raises(odd.ServerError, match="resource 'odd://blob' failed: its answer is not valid MCP"):
                await client.read_blob()
            text, blob = (await client.read_blobs(kind="good")).contents
            assert isinstance(blob, BlobResourceContents) and blob.blob == "aGVsbG8gd29ybGQ="
            assert (text.text, decoded(blob)) == ("a text part beside the blob", b"hello world")
            assert decoded((await client.read_blobs(kind="empty")).contents[1]) == b""
            blob = (await client.read_blobs(kind="large")).contents[1]
            assert blob.blob == large and decoded(blob) == LARGE_BLOB
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            with pytest.raises(hub_package.ServerError, match=bad_blob("newline")):
                await hub.odd.read_blobs(kind="newline")
            assert decoded((await hub.odd.read_blobs(kind="good")).contents[1]) == b"hello world"
    with odd.OddClient.connect_sync(hostile("odd")) as sync_client:
        with pytest.raises(odd.ServerError, match=bad_blob("urlsafe")):
            sync_client.read_blobs(kind="urlsafe")
        assert decoded(sync_client.read_blobs(kind="good").contents[1]) == b"hello world"


BLOBS_GOOD = "aGVsbG8gd29ybGQ="
"""The hostile server's good base64: "hello world"."""


BAD_MEDIA = {
    "image-unpadded": ("data", BAD_BLOBS["unpadded"]),
    "audio-newline": ("data", BAD_BLOBS["newline"]),
    "embedded-urlsafe": ("resource/blob", BAD_BLOBS["urlsafe"]),
    "image-not-ascii": ("data", BAD_BLOBS["not-ascii"]),
}
"""The hostile server's `MEDIA` blocks whose base64 is not standard: where in the block, and what decoding it says."""


def bad_media(request: str, pointer: str, kind: str) -> str:
    """The one line a tool call or a prompt fails with when the `MEDIA` block `kind` sits at `pointer`."""
    field, reason = BAD_MEDIA[kind]
    return (
        rf"^server 'odd': {request} failed: its answer is not valid MCP \({pointer}/{field} is not standard "
        rf"base64: {reason}\); the server must send its bytes base64-encoded with padding \(RFC 4648\), so "
        r"tell its maintainers \(code -32700\)$"
    )


async def test_base64_in_a_tool_result_or_a_prompt_that_is_not_standard_fails_its_call(odd_packages: Any) -> None:
    """An image's or audio's `data`, or an embedded resource's `blob`, in a tool result or a prompt
    message: the SDK does not check that it is base64, and the client, its sync twin and `hub.call`
    returned it as sent (an `isError` result raised `ToolError` with it), to fail wherever it was
    decoded, or in the model provider a hub's agent sent it to. Now the call fails with
    `ServerError` -32700 naming the server, the tool or prompt and where, as a resource read
    does, over stdio and Streamable HTTP; good base64 comes back as sent and decodes."""
    odd, hub_package, _code_mode = odd_packages
    with anyio.fail_after(60):
        async with odd.OddClient.connect(hostile("odd")) as client:
            for kind in BAD_MEDIA:
                for call in ("media", "media-error"):
                    with pytest.raises(odd.ServerError, match=bad_media("tool 'echo'", "/content/1", kind)):
                        await client.echo(text=f"{call}:{kind}")
                with pytest.raises(odd.ServerError, match=bad_media("prompt 'greet'", "/messages/1/content", kind)):
                    await client.prompt_greet(who=kind)
            result = await client.echo(text="media:image-good")
            assert base64.b64decode(result.images[0].data, validate=True) == b"hello world"
            assert (await client.echo(text="media:audio-empty")).audio[0].data == ""
            assert (await client.echo(text="media:embedded-good")).resources[0].resource.blob == BLOBS_GOOD
            assert (await client.echo(text="media:embedded-text")).resources[0].resource.text == "not base64 at all!"
            with pytest.raises(odd.ToolError, match=r"^server 'odd': tool 'echo' failed: here is image-good$"):
                await client.echo(text="media-error:image-good")
            assert (await client.prompt_greet(who="embedded-good")).messages[1].content.resource.blob == BLOBS_GOOD
        with over_http("odd") as url:
            for server in (hostile("odd"), url):
                async with hub_package.Hub.connect(odd=server) as hub:
                    for call in ("media", "media-error"):
                        with pytest.raises(
                            hub_package.ServerError, match=bad_media("tool 'echo'", "/content/1", "embedded-urlsafe")
                        ):
                            await hub.call("odd__echo", {"text": f"{call}:embedded-urlsafe"})
                    good = await hub.call("odd__echo", {"text": "media:image-good"})
                    assert good.content[1].data == BLOBS_GOOD
            async with odd.OddClient.connect(url) as client:
                with pytest.raises(odd.ServerError, match=bad_media("tool 'echo'", "/content/1", "audio-newline")):
                    await client.echo(text="media:audio-newline")
    with odd.OddClient.connect_sync(hostile("odd")) as sync_client:
        with pytest.raises(odd.ServerError, match=bad_media("tool 'echo'", "/content/1", "image-unpadded")):
            sync_client.echo(text="media:image-unpadded")
        with pytest.raises(odd.ServerError, match=bad_media("prompt 'greet'", "/messages/1/content", "audio-newline")):
            sync_client.prompt_greet(who="audio-newline")
        assert sync_client.echo(text="media:image-good").images[0].data == BLOBS_GOOD


def not_a_boolean(shown: str) -> str:
    """The one line a call of `echo` fails with when its result's `isError` is `shown`, not a boolean."""
    return (
        f"server 'odd': tool 'echo' failed: its answer is not valid MCP (isError is {shown}, not a JSON boolean, "
        "so whether the tool failed is unknown); tell the server's maintainers (code -32700)"
    )


async def test_a_result_whose_is_error_is_not_a_boolean_fails_its_call(odd_packages: Any) -> None:
    """`isError: "yes"` (or `0`): the SDK's lax parse read the string as true and the number as false,
    so the client raised `ToolError` for one and returned the other as a success, and `hub.call`
    returned both with a guessed `is_error`. Whether the tool failed is unknown: now the call fails
    with `ServerError` -32700 naming the server and the tool, in the async client, its sync twin and
    `hub.call`, as a result whose base64 is not standard does."""
    odd, hub_package, _code_mode = odd_packages
    answers = {"is-error-yes": '"yes"', "is-error-zero": "0"}
    with anyio.fail_after(60):
        async with odd.OddClient.connect(hostile("odd")) as client:
            for text, shown in answers.items():
                with pytest.raises(odd.ServerError) as refused:
                    await client.echo(text=text)
                assert (str(refused.value), refused.value.code) == (not_a_boolean(shown), -32700)
            assert (await client.echo(text="hi")).text == "hi"  # the session goes on
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            for text, shown in answers.items():
                with pytest.raises(hub_package.ServerError) as refused:
                    await hub.call("odd__echo", {"text": text})
                assert str(refused.value) == not_a_boolean(shown)
    with odd.OddClient.connect_sync(hostile("odd")) as sync_client:
        for text, shown in answers.items():
            with pytest.raises(odd.ServerError) as refused:
                sync_client.echo(text=text)
            assert str(refused.value) == not_a_boolean(shown)


async def test_a_sampling_request_whose_base64_is_not_standard_is_refused_before_the_handler(
    odd_packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A server asking the client for a sampling of a message whose image's base64 lacks its padding:
    the handler given to `connect` got it as sent, to pass to a model provider that refuses the
    request. Now the client answers the server -32602 naming where, with one warning naming the
    server, and the handler sees only requests whose base64 is standard (through a hub too)."""
    from mcp.types import CreateMessageResult, TextContent

    odd, hub_package, _code_mode = odd_packages
    seen: list[Any] = []

    async def answer(context: Any, params: Any) -> CreateMessageResult:
        seen.append(params.messages[0].content.data)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text="ok"), model="m")

    refused = {
        "code": -32602,
        "message": "not valid MCP: /params/messages/0/content/data is not standard base64: Incorrect padding",
    }
    warning = (
        "odd: the server sent a sampling/createMessage that is not valid MCP (/params/messages/0/content/data "
        "is not standard base64: Incorrect padding); it was refused"
    )
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with odd.OddClient.connect(hostile("odd"), sampling_callback=answer) as client:
            assert json.loads((await client.echo(text="sampling:image-unpadded")).text) == refused
            assert json.loads((await client.echo(text="sampling:image-good")).text)["model"] == "m"
        async with hub_package.Hub.connect(odd=hostile("odd"), sampling_callback=answer) as hub:
            result = await hub.call("odd__echo", {"text": "sampling:image-unpadded"})
            assert json.loads(result.content[0].text) == refused
    assert seen == [BLOBS_GOOD]
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == [warning] * 2


async def test_a_server_asking_for_input_round_after_round_is_a_server_error(odd_packages: Any) -> None:
    """A 2026-07-28 server that answers every round of a call, or of a prompt, with `input_required`:
    past `input_required_max_rounds` the MCP SDK raised its own `RuntimeError`, naming neither the
    server nor the call, from the client, its sync twin and `hub.call`. Now `ServerError` says so,
    and what to do."""
    odd, hub_package, _code_mode = odd_packages
    modern = hostile("odd", "--modern")

    def endless(request: str) -> str:
        return (
            f"server 'odd': {request} failed: the server still asked for input (input_required) after 2 rounds "
            "of answers; pass connect(..., input_required_max_rounds=N) if it needs more, else it loops: tell "
            "its maintainers (code -32603)"
        )

    with anyio.fail_after(30):
        async with odd.OddClient.connect(modern, mode="auto", input_required_max_rounds=2) as client:
            assert client.mcp_client.protocol_version == "2026-07-28"
            with pytest.raises(odd.ServerError) as refused:
                await client.echo(text="input-forever")
            assert str(refused.value) == endless("tool 'echo'")
            with pytest.raises(odd.ServerError) as refused:
                await client.prompt_greet(who="input-forever")
            assert str(refused.value) == endless("prompt 'greet'")
            assert (await client.echo(text="after")).text == "after"
        async with hub_package.Hub.connect(odd=modern, mode="auto", input_required_max_rounds=2) as hub:
            with pytest.raises(hub_package.ServerError) as refused:
                await hub.call("odd__echo", {"text": "input-forever"})
            assert str(refused.value) == endless("tool 'echo'")
    with (
        odd.OddClient.connect_sync(modern, mode="auto", input_required_max_rounds=2) as sync_client,
        pytest.raises(odd.ServerError) as refused,
    ):
        sync_client.echo(text="input-forever")
    assert str(refused.value) == endless("tool 'echo'")


async def test_an_answer_in_a_json_rpc_batch_fails_its_call_at_once_over_stdio_as_over_http(odd_packages: Any) -> None:
    """An answer sent as a JSON-RPC batch of one (which MCP allowed only in 2025-03-26): over
    Streamable HTTP the call failed at once saying the answer is not a JSON-RPC message, while over
    stdio the line was left out with a warning and the call waited for its timeout, or for ever.
    Now both fail at once with the same line naming the batch, from the client and the hub, and
    the session goes on."""
    odd, hub_package, _code_mode = odd_packages
    batch = (
        "server 'odd': tool 'echo' failed: its answer is a JSON-RPC batch (a JSON array), which MCP has not "
        "allowed since 2025-06-18 and the MCP SDK does not read (code -32700)"
    )
    with anyio.fail_after(60), over_http("odd", "--http-fault", "by-text") as url:
        for server in (hostile("odd"), url):
            async with odd.OddClient.connect(server) as client:
                with pytest.raises(odd.ServerError) as refused:
                    await client.echo(text="batch")
                assert str(refused.value) == batch
                assert (await client.echo(text="after")).text == "after"
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            with pytest.raises(hub_package.ServerError) as refused:
                await hub.call("odd__echo", {"text": "batch"})
            assert str(refused.value) == batch


async def test_an_answer_nested_past_pythons_depth_fails_its_call_at_once(odd_packages: Any) -> None:
    """An answer nested 100,000 levels deep: the SDK's parser refuses it, and Python's, which read
    the id of every other unreadable answer, ran out of recursion, so the call waited for ever (a
    hub's too). Now its id is read from the line's first members, the call fails at once with
    `ServerError` -32700, and the session goes on."""
    odd, hub_package, _code_mode = odd_packages
    deep = (
        r"^server 'odd': tool 'echo' failed: its answer is not JSON the MCP SDK reads: it is nested deeper than 200 "
        r"levels; the server has to send a flatter answer \(code -32700\)$"
    )
    with anyio.fail_after(30):
        async with odd.OddClient.connect(hostile("odd")) as client:
            with pytest.raises(odd.ServerError, match=deep):
                await client.echo(text="deep")
            assert (await client.echo(text="after")).text == "after"
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            with pytest.raises(hub_package.ServerError, match=deep):
                await hub.call("odd__echo", {"text": "deep"})
            assert (await hub.call("odd__echo", {"text": "after"})).content[0].text == "after"


async def test_an_unreadable_answer_fails_one_call_of_a_hub_connected_from_config_not_its_session(
    odd_packages: Any, tmp_path: Path
) -> None:
    """`Hub.connect_from_config` holds mcp-stubgen's own session, which ends when it hears of a line
    the SDK cannot read (so that discovery's listing fails at once, naming why). An answer to one
    `hub.call` nested too deep was failed by the runtime and then ended that session too: every
    later call failed with "Connection closed", and leaving the block raised "could not connect".
    Now that call alone fails, and the session goes on."""
    _odd, hub_package, _code_mode = odd_packages
    config = odd_config(tmp_path)
    deep = (
        r"^server 'odd': tool 'echo' failed: its answer is not JSON the MCP SDK reads: it is nested deeper than 200 "
        r"levels; the server has to send a flatter answer \(code -32700\)$"
    )
    with anyio.fail_after(30):
        async with hub_package.Hub.connect_from_config(config, servers=["odd"]) as hub:
            with pytest.raises(hub_package.ServerError, match=deep):
                await hub.call("odd__echo", {"text": "deep"})
            assert (await hub.call("odd__echo", {"text": "after"})).content[0].text == "after"


async def test_a_call_refused_as_invalid_params_says_the_tool_changed_or_refused_the_values(odd_packages: Any) -> None:
    """A tool whose schema changed on the server since the snapshot (a parameter added): arguments
    that fit the snapshot's schema are refused with -32602, and the error said only the server's
    words. The client checked them against its schema before sending, so the server's schema is
    no longer that one, or the server holds the values to rules its schema does not state: then
    "the server's has probably changed: run `mcp-stubgen sync`" sent the user of grok-search-rs 0.4.0
    (rmcp 2.2: "security policy rejected request: url must resolve to a public http or https
    address", -32602) to a sync that changes nothing. The error names both, and `drift` to tell
    which; from `hub.call` too."""
    odd, hub_package, _code_mode = odd_packages
    stale = (
        "server 'odd': tool 'echo' failed: Invalid arguments for tool echo: 'size' is a required property; "
        "the arguments fit the tool's input schema as this client has it: the server refused their values "
        "by rules of its own, or its schema has changed since the snapshot (`mcp-stubgen drift` tells which; "
        "`mcp-stubgen sync` takes a change in) (code -32602)"
    )
    with anyio.fail_after(30):
        async with odd.OddClient.connect(hostile("odd")) as client:
            with pytest.raises(odd.ServerError) as refused:
                await client.echo(text="invalid-params")
            assert (str(refused.value), refused.value.code) == (stale, -32602)
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            with pytest.raises(hub_package.ServerError) as refused:
                await hub.call("odd__echo", {"text": "invalid-params"})
            assert str(refused.value) == stale


async def test_an_error_answer_that_is_not_a_json_rpc_error_says_so(odd_packages: Any) -> None:
    """An error answer whose `code` is a string, or whose `message` is a number: the call failed
    saying the answer "holds neither a result object nor an error", though it holds one. Now the
    error says what is wrong with it, and shows it; the session goes on."""
    odd, _hub_package, _code_mode = odd_packages
    with anyio.fail_after(30):
        async with odd.OddClient.connect(hostile("odd")) as client:
            for text, shown in (
                ("code-not-int", "{'code': 'oops', 'message': 'bad'}"),
                ("message-not-str", "{'code': -32603, 'message': 42}"),
            ):
                with pytest.raises(odd.ServerError) as refused:
                    await client.echo(text=text)
                assert str(refused.value) == (
                    "server 'odd': tool 'echo' failed: its error is not a JSON-RPC error object (an integer "
                    f"code, a string message): {shown} (code -32700)"
                )
            assert (await client.echo(text="after")).text == "after"


async def test_a_notification_that_is_not_valid_mcp_is_one_warning_not_a_traceback(
    odd_packages: Any, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """A progress notification whose progress is "half" and a log message at level "bogus", mid-call:
    the SDK logged each with a traceback into the application's log, under a logger named `client`.
    Now each is left out with one warning naming the server, the method and what is wrong, from
    the client, the hub and the hub connected from a config (mcp-stubgen's own session, as
    `watch` holds); the call returns its answer."""
    odd, hub_package, _code_mode = odd_packages
    warnings = [
        "odd: the server sent a notifications/progress that is not valid MCP (/params/progress: Input should be "
        "a valid number, unable to parse string as a number); it was left out",
        "odd: the server sent a notifications/message that is not valid MCP (/params/level: Input should be "
        "'alert', 'critical', 'debug', 'emergency', 'error', 'info', 'notice' or 'warning'); it was left out",
    ]
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with odd.OddClient.connect(hostile("odd")) as client:
            assert (await client.echo(text="bad-notifications")).text == "bad-notifications"
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            assert (await hub.call("odd__echo", {"text": "bad-notifications"})).content[0].text == "bad-notifications"
        async with hub_package.Hub.connect_from_config(odd_config(tmp_path), servers=["odd"]) as hub:
            assert (await hub.call("odd__echo", {"text": "bad-notifications"})).content[0].text == "bad-notifications"
    records = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert [record.getMessage() for record in records] == warnings * 3
    assert not [record for record in records if record.exc_info]


async def test_a_call_that_needs_a_url_opened_first_names_the_url(odd_packages: Any) -> None:
    """server-everything's `trigger-url-elicitation` with `errorPath` answers -32042 "This request requires
    browser-based authorization.", the URL to open only in the error's `data`: the one line a user saw
    did not say what to open. Its text is the server's, so its control characters are escaped."""
    odd, hub_package, _code_mode = odd_packages
    advice = (
        "This request requires browser-based authorization.; the server asks the user to open "
        "https://example.com/consent\\x1b[2J in a browser first, then to call again (the error's `.data` has "
        "each elicitation) (code -32042)"
    )
    async with odd.OddClient.connect(hostile("odd")) as client:
        with pytest.raises(odd.ServerError) as refused:
            await client.echo(text="url-elicitation")
    assert str(refused.value) == f"server 'odd': tool 'echo' failed: {advice}"
    assert refused.value.data["elicitations"][0]["elicitationId"] == "e1"
    async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
        with pytest.raises(hub_package.ServerError) as through_hub:
            await hub.call("odd__echo", {"text": "url-elicitation"})
    assert str(through_hub.value) == f"server 'odd': tool 'echo' failed: {advice}"


async def test_an_answer_to_a_call_the_client_cancelled_is_dropped_without_a_warning(
    odd_packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """mcp 1.x servers (the twenty-sixth round's sampling demo, and mcp-elicitation-proxy) answer a call
    the client cancelled on its timeout, an answer MCP says the client should ignore: each timeout
    was followed by a warning that the server sent an answer no request waits for."""
    odd, hub_package, _code_mode = odd_packages
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with odd.OddClient.connect(hostile("odd")) as client:
            with pytest.raises(odd.RequestTimeoutError):
                await client.echo(text="answer-when-cancelled", call_options={"timeout": 0.5})
            assert (await client.echo(text="after")).text == "after"
        async with hub_package.Hub.connect(odd=hostile("odd")) as hub:
            with pytest.raises(odd.RequestTimeoutError):
                await hub.call("odd__echo", {"text": "answer-when-cancelled"}, call_options={"timeout": 0.5})
            assert (await hub.call("odd__echo", {"text": "after"})).content[0].text == "after"
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == []


async def test_an_answer_no_request_waits_for_is_one_warning(
    odd_packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """An answer that carries an id never sent: the SDK dropped it with a debug line, so the call
    waited until its timeout without a word of why. Now it is left out with one warning naming the
    server and the id; the call ends with its timeout, and the session goes on."""
    odd, _hub_package, _code_mode = odd_packages
    with anyio.fail_after(30), caplog.at_level(logging.WARNING):
        async with odd.OddClient.connect(hostile("odd")) as client:
            with pytest.raises(odd.RequestTimeoutError):
                await client.echo(text="other-id", call_options={"timeout": 1})
            assert (await client.echo(text="after")).text == "after"
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING] == [
        "odd: the server sent an answer to request 1000000000, which no request waits for (never sent, "
        "answered already, or given up on); it was left out"
    ]
