"""What a live server sends once it is past the handshake, against a generated client (async and
sync), a connected hub and `snapshot`: every failure is the runtime's own typed error (never the
SDK's raw pydantic, `RuntimeError` or `ExceptionGroup`), one bad answer never ends a hub's session,
and nothing waits out a timeout that an answer already decided.

Every case talks to `tests/servers/hostile_server.py` over stdio (and Streamable HTTP where the
transport reads the answer differently); the packages are generated from its well-behaved catalog,
and `looping` from the catalog with a `$ref` cycle."""

from __future__ import annotations

import importlib
import json
import logging
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import SERVERS, free_port, write_config

PY = sys.executable
HOSTILE = str(SERVERS / "hostile_server.py")
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
def over_http(mode: str) -> Iterator[str]:
    """The hostile server in `mode` over Streamable HTTP on 127.0.0.1: its URL."""
    process = subprocess.Popen([PY, HOSTILE, "--mode", mode, "--http", "0"], stdout=subprocess.PIPE, text=True)
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
            ("off-schema", client_package.ToolResultError, r"the output schema the server lists rejects it"),
            ("no-structured", client_package.NoStructuredContentError, r"has no structuredContent"),
            (
                "dangling-output",
                client_package.ToolResultError,
                r"the output schema the server lists cannot be applied",
            ),
        ):
            async with hub_package.Hub.connect(hostile=hostile(mode)) as hub:
                with pytest.raises(error, match=message) as refused:
                    await hub.call("hostile__count", {})
                assert refused.value.tool == "count"
        async with client_package.HostileClient.connect(hostile("dangling-output")) as client:
            assert (await client.count()).n == 3  # checked against the snapshot's schema
            with pytest.raises(client_package.CatalogDriftError):
                await client.verify()
            with pytest.raises(client_package.ToolResultError, match=r"cannot be applied \(PointerToNowhere"):
                await client.count()


async def test_an_error_leaving_the_hub_block_is_itself(packages: Any) -> None:
    """A server that exits mid-call: `hub.call`'s `ServerError` reaches an `except` around the
    `async with Hub.connect(...)` block as itself, as a generated client's does, not in the hub's
    `ExceptionGroup`."""
    client_package, _looping, hub_package, *_others = packages
    with anyio.fail_after(30):
        with pytest.raises(hub_package.ServerError, match=r"tool 'echo' failed: Connection closed \(code -32000\)"):
            async with hub_package.Hub.connect(hostile=hostile("exit-mid-call")) as hub:
                await hub.call("hostile__echo", {"text": "hi"})
        with pytest.raises(client_package.ServerError, match=r"Connection closed"):
            async with client_package.HostileClient.connect(hostile("exit-mid-call")) as client:
                await client.echo(text="hi")


async def test_lines_that_are_not_json_rpc_before_the_handshake_are_skipped(
    packages: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A server that prints a banner, a broken object and a JSON array to stdout before it speaks
    JSON-RPC: the client and the hub skip them, each with one warning naming the server and not the
    line (which may hold anything), and connect. The SDK's transport logged a traceback for each
    line into the user's application log."""
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


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("initialize-error", r"license expired \(code -32603\)"),
        ("exit-at-start", r"Connection closed \(code -32000\)"),
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
        ("relist-invalid", r"its answer is not valid MCP \(/tools/0/inputSchema/properties: .*\) \(code -32700\)"),
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
    sync client, and a hub's listing likewise."""
    client_package, _looping, hub_package, *_others = packages
    unreadable = r"its answer is not JSON the MCP SDK reads \(Invalid JSON: .*\) \(code -32700\)$"
    with anyio.fail_after(30):
        async with client_package.HostileClient.connect(hostile("lone-surrogate")) as client:
            with pytest.raises(client_package.ServerError, match=rf"tool 'echo' failed: {unreadable}"):
                await client.echo(text="hi")
        async with client_package.HostileClient.connect(hostile("long-integer")) as client:
            with pytest.raises(client_package.ServerError, match=rf"tool 'count' failed: {unreadable}"):
                await client.count()
        async with client_package.HostileClient.connect(hostile("null-call")) as client:
            neither = r"its answer holds neither a result object nor an error \(code -32700\)"
            with pytest.raises(client_package.ServerError, match=rf"tool 'echo' failed: {neither}"):
                await client.echo(text="hi")
        with pytest.raises(client_package.ServerError, match=rf"tools/list failed: {unreadable}"):
            async with hub_package.Hub.connect(hostile=hostile("lone-surrogate"), timeout=20):
                pass
    with (
        client_package.HostileClient.connect_sync(hostile("lone-surrogate")) as sync_client,
        pytest.raises(client_package.ServerError, match=unreadable),
    ):
        sync_client.echo(text="hi")


def test_a_lone_surrogate_in_a_catalog_is_named_not_a_timeout(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A JavaScript server that cut an emoji in half sends a lone UTF-16 surrogate (`\\ud83d`), which
    the SDK's JSON parser refuses: the listing waited out `request_timeout` and then advised raising
    it. Now one line names the tool and the JSON pointer at once, and the previous file is kept."""
    previous = tmp_path / "lone.json"
    previous.write_bytes(b"{}\n")
    started = time.monotonic()
    result = run_cli(
        "snapshot", "--name", "lone", "--out", previous, "--request-timeout", "20",
        "--", PY, HOSTILE, "--mode", "lone-surrogate",
    )  # fmt: skip
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [
        "error: server 'lone': tool 'echo' /description: a string holds a lone UTF-16 surrogate (half of a "
        "character, such as an emoji cut in two), which the MCP SDK cannot read; the server has to send whole "
        "characters"
    ], result.stderr
    assert time.monotonic() - started < 10
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
    `Hub.connect_from_config` hold open (the SDK's `Client` over mcp-stubgen's stdio transport): one
    line at once, naming the tool, not `tools/list did not answer within 30s`."""
    from codegen.errors import StubgenError
    from codegen.snapshot.discovery import connect, list_catalog

    server = ServerConfig(name="lone", command=PY, args=(HOSTILE, "--mode", "lone-surrogate"))
    with anyio.fail_after(20), pytest.raises(StubgenError) as refused:
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
        r"valid MCP|server/discover offers only 2099-01-01)\); pin a version it speaks, or set protocol = \"auto\"\n",
        pinned.stderr,
    ), pinned.stderr


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
