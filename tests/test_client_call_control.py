"""Generated clients' sync twin and per-call options (issue 16), against a real server over stdio
that reports progress, honours cancellation and shows the request's `_meta`."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import StdioServerParameters, types

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot import Snapshot
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, forget_generated, import_generated, mypy_against_goldens, write_config
from tests.regen_goldens import hub_case_snapshots
from tests.servers import progress_server

SERVER = Path(__file__).parent / "servers" / "progress_server.py"
EXAMPLES = Path(__file__).parent.parent / "examples"
PARAMETERS = StdioServerParameters(command=PYTHON, args=[str(SERVER)])


@pytest.fixture(scope="module")
def progress_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The output folder of the progress server's package and a hub over it, generated once for the module."""
    folder = tmp_path_factory.mktemp("call-control")
    config = ServerConfig(name="progress", command=PYTHON, args=(str(SERVER),))
    snapshot = asyncio.run(snapshot_server(config))
    generate_package(snapshot, folder)
    generate_hub([(snapshot, {})], folder)
    try:
        yield folder
    finally:
        forget_generated(folder)


@pytest.fixture(scope="module")
def progress(progress_folder: Path) -> ModuleType:
    """The generated package of the progress server."""
    return import_generated(progress_folder, "progress")


async def cancelled_labels(client: Any, label: str) -> list[str]:
    """The server's cancelled calls, once `label` is among them (its handler may lag the notification)."""
    for _ in range(100):
        labels: list[str] = await client.cancellations()
        if label in labels:
            return labels
        await asyncio.sleep(0.05)
    return labels


async def test_progress_and_meta_reach_the_caller_and_the_server(progress: ModuleType) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    async with progress.ProgressClient.connect(PARAMETERS) as client:
        assert await client.count(steps=3, call_options={"on_progress": on_progress}) == 3
        assert await client.count(steps=2, call_options={"on_progress": lambda *update: seen.append(update)}) == 2
        assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3"), (1, 2, "step 1"), (2, 2, "step 2")]

        meta = json.loads(await client.request_meta(call_options={"meta": {"trace": "abc-123", "tenant": 7}}))
        assert {"trace": "abc-123", "tenant": 7}.items() <= meta.items()
        # the tool's own `call_options` parameter is `call_options_` in Python, `call_options` on the wire
        assert await client.echo_options(call_options_="mine", call_options={"timeout": 5}) == "mine"

        # with `parse_text_json` a call goes through the session's `send_request`, and keeps its options
        client.parse_text_json = True
        seen.clear()
        assert await client.count(steps=2, call_options={"on_progress": on_progress, "timeout": 10}) == 2
        assert seen == [(1, 2, "step 1"), (2, 2, "step 2")]
        meta = json.loads(await client.request_meta(call_options={"meta": {"trace": "via-session"}}))
        assert meta["trace"] == "via-session"
        with pytest.raises(progress.RequestTimeoutError):
            await client.wait(label="session-timeout", call_options={"timeout": 0.3})


def broken_progress(update: float, total: float | None, message: str | None) -> None:
    """A progress callback with a bug: it raises on every update."""
    raise ValueError(f"cannot show {update}")


def progress_failures(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    """Each log record about a raising progress callback (the SDK's too): its logger and message, then
    forgotten; each of the runtime's carries the callback's exception."""
    found = [
        (record.name.rpartition(".")[2], record.getMessage())
        for record in caplog.records
        if "progress callback" in record.getMessage()
    ]
    for record in caplog.records:
        if "progress callback" in record.getMessage() and record.name.endswith("_runtime"):
            assert record.exc_info is not None and "cannot show 1" in str(record.exc_info[1])
    caplog.clear()
    return found


PROGRESS_FAILED = (
    "_runtime",
    "progress: the progress callback of a call of tool 'count' raised; the call goes on (later "
    "failures of this call's callback are not logged)",
)
"""The one record a call whose progress callback raises at every update leaves."""


async def test_a_progress_callback_that_raises_is_logged_once_per_call_and_the_call_goes_on(
    progress: ModuleType, progress_folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The SDK caught a raising callback and logged a bare traceback for each update ("progress
    callback raised", naming no server or tool). A call must go on (the tool is running on the server,
    and its result is what the caller waits for), and the mistake must not be lost: now the runtime
    logs the first exception of each call, with its traceback, naming the server and the tool, and
    nothing more, in the async client (both its paths), its sync twin and `hub.call`."""
    caplog.set_level("WARNING")
    async with progress.ProgressClient.connect(PARAMETERS) as client:
        assert await client.count(steps=3, call_options={"on_progress": broken_progress}) == 3
        assert progress_failures(caplog) == [PROGRESS_FAILED]
        client.parse_text_json = True  # the session's own `send_request`
        assert await client.count(steps=2, call_options={"on_progress": broken_progress}) == 2
        assert progress_failures(caplog) == [PROGRESS_FAILED]
    hub_module = import_generated(progress_folder, "hub")
    async with hub_module.Hub.connect(progress=PARAMETERS) as hub:
        result = await hub.call("progress__count", {"steps": 2}, call_options={"on_progress": broken_progress})
        assert result.structured_content == {"result": 2}
        assert progress_failures(caplog) == [PROGRESS_FAILED]
    with progress.ProgressClient.connect_sync(PARAMETERS) as sync_client:
        assert sync_client.count(steps=2, call_options={"on_progress": broken_progress}) == 2
        assert progress_failures(caplog) == [PROGRESS_FAILED]


async def test_cancelling_the_task_or_a_timeout_cancels_the_call_on_the_server(progress: ModuleType) -> None:
    async with progress.ProgressClient.connect(PARAMETERS) as client:
        started = asyncio.Event()
        call = asyncio.create_task(
            client.wait(label="cancelled-task", call_options={"on_progress": lambda *_: started.set()})
        )
        await asyncio.wait_for(started.wait(), 10)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert "cancelled-task" in await cancelled_labels(client, "cancelled-task")

        with pytest.raises(progress.RequestTimeoutError, match=r"tool 'wait' got no answer within 0.5 s") as raised:
            await client.wait(label="timed-out", call_options={"timeout": 0.5})
        assert raised.value.timeout == 0.5
        assert isinstance(raised.value, TimeoutError)
        assert "timed-out" in await cancelled_labels(client, "timed-out")
        with pytest.raises(progress.RequestTimeoutError, match=r"resource 'progress://slow' got no answer"):
            await client.read_slow(call_options={"timeout": 0.3})
        assert await client.count(steps=1, call_options={"timeout": 10}) == 1  # the session is still fine


@pytest.mark.parametrize("timeout", [float("nan"), "5", -1, pytest.param(10**400, id="past-any-float")])
async def test_a_timeout_that_is_no_number_of_seconds_is_refused_before_anything_is_sent(
    progress: ModuleType, timeout: Any
) -> None:
    """A NaN timeout (`deadline - now` with an infinite deadline) reached the SDK, which sent the
    request, then failed on anyio's `deadline must not be NaN` and left the server working on it."""
    async with progress.ProgressClient.connect(PARAMETERS) as client:
        sent: list[str] = []
        call_tool, read_resource = client.mcp_client.call_tool, client.mcp_client.read_resource

        async def record_call(name: str, *args: Any, **kwargs: Any) -> Any:
            sent.append(name)
            return await call_tool(name, *args, **kwargs)

        async def record_read(uri: str, *args: Any, **kwargs: Any) -> Any:
            sent.append(uri)
            return await read_resource(uri, *args, **kwargs)

        client.mcp_client.call_tool, client.mcp_client.read_resource = record_call, record_read
        refusal = r"call_options timeout must be a number of seconds, not .*; nothing was sent"
        with pytest.raises(ValueError, match=refusal):
            await client.wait(label="never", seconds=0.2, call_options={"timeout": timeout})
        with pytest.raises(ValueError, match=refusal):
            await client.read_slow(call_options={"timeout": timeout})
        assert sent == []
        assert await client.count(steps=1, call_options={"timeout": 10}) == 1


@pytest.fixture(scope="module")
def sync_client(progress: ModuleType) -> Iterator[Any]:
    """One sync client for the module's sync tests: it needs no event loop, so tests on any loop share it."""
    with progress.ProgressClient.connect_sync(PARAMETERS) as client:
        assert isinstance(client, progress.ProgressSyncClient)
        yield client
        loop_thread = client._loop.thread
    assert loop_thread is None or not loop_thread.is_alive()  # leaving the block stopped its loop's thread


def test_the_sync_client_has_the_same_methods_errors_and_options(progress: ModuleType, sync_client: Any) -> None:
    seen: list[tuple[float, float | None, str | None]] = []
    assert sync_client.count(steps=2, call_options={"on_progress": lambda *update: seen.append(update)}) == 2
    assert seen == [(1, 2, "step 1"), (2, 2, "step 2")]
    assert sync_client.echo_options(call_options_="sync") == "sync"
    with pytest.raises(progress.ToolArgumentsError, match="nothing was sent"):
        sync_client.count(steps="three")
    with pytest.raises(progress.RequestTimeoutError):
        sync_client.wait(label="sync-timeout", call_options={"timeout": 0.3})
    for _ in range(100):
        if "sync-timeout" in sync_client.cancellations():
            break
        time.sleep(0.05)
    assert "sync-timeout" in sync_client.cancellations()


async def test_the_sync_client_works_inside_a_running_event_loop(sync_client: Any) -> None:
    """Called on a thread whose event loop is running (a notebook, an async app): its loop moves to a
    thread of its own, so the call blocks this loop for its duration but never waits for itself."""
    asyncio.get_running_loop()
    assert sync_client.count(steps=2) == 2
    assert sync_client._loop.thread.is_alive()


def test_a_sync_client_in_a_forked_child_says_to_connect_again(progress: ModuleType) -> None:
    """A child forked once the loop had moved to its own thread waited for ever on a loop no thread
    ran (the thread stays behind in the parent), and one forked otherwise shared the parent's session
    and the server's pipes; leaving the block in the child must not close the parent's session."""
    with progress.ProgressClient.connect_sync(PARAMETERS) as client:

        async def from_a_running_loop() -> int:
            return int(client.count(steps=1))

        assert asyncio.run(from_a_running_loop()) == 1  # the loop moves to a thread of its own
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # the child: report what a call raises, leave the block as `with` does, exit
            try:
                client.count(steps=1)
                outcome = "the call returned"
            except RuntimeError as error:
                outcome = str(error)
            client._loop.close()
            os.write(write, outcome.encode())
            os._exit(0)
        os.close(write)
        deadline = time.monotonic() + 30
        while os.waitpid(child, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
                pytest.fail("the call in the forked child never returned")
            time.sleep(0.05)
        with os.fdopen(read, "rb") as reported:
            outcome = reported.read().decode()
        assert outcome == (
            f"progress: this sync client was opened in process {os.getpid()}, and this is a child forked from "
            f"it (process {child}): its session and the server connection stay the parent's; connect again in "
            "this process"
        )
        assert client.count(steps=2) == 2  # the parent's session is untouched


async def sampled(_context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    reply = f"answered on {threading.current_thread().name}"
    return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=reply), model="m")


def test_the_sync_client_runs_its_loop_in_the_calling_thread(progress: ModuleType) -> None:
    """With no event loop in the calling thread, each call runs the client's loop right there: progress
    callbacks and handlers run in the caller's thread, what the server sends between calls is read at
    the next call, and Ctrl-C cancels the call on the server before raising `KeyboardInterrupt`."""
    logged: list[object] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    caller = threading.current_thread()
    with progress.ProgressClient.connect_sync(
        PARAMETERS, mode="legacy", logging_callback=on_log, sampling_callback=sampled
    ) as client:
        threads: list[threading.Thread] = []
        assert client.count(steps=2, call_options={"on_progress": lambda *_: threads.append(threading.current_thread())}) == 2  # fmt: skip
        assert threads == [caller, caller]
        assert client.ask(question="ready?") == f"answered on {caller.name}"

        assert client.log_later(message="between calls", seconds=0.05) == "scheduled"
        time.sleep(0.5)  # the server has sent it, but nothing reads it while no call runs
        assert logged == []
        assert client.count(steps=1) == 1
        assert logged == ["between calls"]

        def interrupt(*_: object) -> None:  # as Ctrl-C does, once the server has the call
            signal.raise_signal(signal.SIGINT)

        with pytest.raises(KeyboardInterrupt):
            client.wait(label="interrupted", call_options={"on_progress": interrupt})
        for _ in range(100):
            if "interrupted" in client.cancellations():
                break
            time.sleep(0.05)
        assert "interrupted" in client.cancellations()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert client._loop.thread is None  # every call ran in this thread


def test_handlers_may_be_plain_functions(progress: ModuleType) -> None:
    """A sync client's user writes `def` handlers: the SDK awaited what one returned, so the server was
    answered "object CreateMessageResult can't be used in 'await' expression", and the call failed with
    that error (devmcp's `summarize_diff` as its `ToolError`); the log handler's messages were lost."""
    logged: list[object] = []

    def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    def sampled_plainly(_context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="plain"), model="m"
        )

    with progress.ProgressClient.connect_sync(
        PARAMETERS, mode="legacy", logging_callback=on_log, sampling_callback=sampled_plainly
    ) as client:
        assert client.ask(question="ready?") == "plain"
        assert client.log_later(message="heard", seconds=0) == "scheduled"
        assert client.count(steps=1) == 1
    assert logged == ["heard"]


async def test_connect_from_config_takes_the_handlers_the_config_declares(
    progress_folder: Path, tmp_path: Path
) -> None:
    """devmcp-server configured with `client_capabilities = ["roots", "sampling"]`: the hub connected
    from the config took no handlers, so `summarize_diff` failed with the server's relay of
    "mcp-stubgen only lists the catalog; it does not sample". It takes them now, and needs the
    configured ones, as a generated client's `connect` does."""
    hub_module = import_generated(progress_folder, "hub")
    config = write_config(
        tmp_path,
        "[tool.mcp-stubgen]\n[tool.mcp-stubgen.servers.progress]\n"
        f'command = {json.dumps(PYTHON)}\nargs = [{json.dumps(str(SERVER))}]\nprotocol = "legacy"\n'
        'client_capabilities = ["sampling"]\n',
    )
    with pytest.raises(hub_module.HubError) as missing:
        hub_module.Hub.connect_from_config(config)
    assert str(missing.value) == (
        "hub: server 'progress' was snapshotted declaring the client capability 'sampling', so this client has "
        "tools the server lists only to clients that declare it: pass sampling_callback= to "
        "Hub.connect_from_config()"
    )

    def sampled_plainly(_context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="plain"), model="m"
        )

    async with hub_module.Hub.connect_from_config(config, sampling_callback=sampled_plainly) as hub:
        answered = await hub.call("progress__ask", {"question": "ready?"})
        assert (answered.is_error, answered.structured_content) == (False, {"result": "plain"})
        assert await hub.progress.ask(question="again?") == "plain"


def test_hub_connect_needs_the_handlers_before_any_server_starts(tmp_path: Path) -> None:
    """`Hub.connect` of a server snapshotted declaring sampling, given no `sampling_callback=`, started
    every server, failed as that server's client started ("could not connect (...: pass
    sampling_callback= to connect()); none of the servers stays open") and closed them again. It is
    refused before any server starts now, naming `Hub.connect()`, as `connect_from_config` is."""
    snapshot = Snapshot(
        server="devmcp",
        protocol_version="2026-07-28",
        capabilities={"tools": {}},
        tools=({"name": "summarize", "inputSchema": {"type": "object"}},),
        client_capabilities=("sampling",),
    )
    folder = tmp_path / "declared"
    generate_package(snapshot, folder)
    generate_hub([(snapshot, {})], folder)
    try:
        hub_module = import_generated(folder, "hub")
        started = tmp_path / "started"
        server = StdioServerParameters(command=PYTHON, args=["-c", f"open({str(started)!r}, 'w')"])
        with pytest.raises(hub_module.HubError) as missing:
            hub_module.Hub.connect(devmcp=server)
        assert str(missing.value) == (
            "hub: server 'devmcp' was snapshotted declaring the client capability 'sampling', so this client "
            "has tools the server lists only to clients that declare it: pass sampling_callback= to Hub.connect()"
        )
        assert not started.exists()
    finally:
        forget_generated(folder)


def test_every_missing_handler_is_named_at_once() -> None:
    """A client snapshotted declaring roots and sampling, connected with neither handler, named only
    `list_roots_callback=`; given that, the next attempt failed again for `sampling_callback=`."""
    from codegen.runtime._runtime import GeneratedClient, MissingHandlerError

    class Declared(GeneratedClient):
        server_name = "devmcp"
        client_capabilities = ("roots", "sampling")

    with pytest.raises(MissingHandlerError) as error:
        Declared.connect(PARAMETERS)
    assert str(error.value) == (
        "server 'devmcp' was snapshotted declaring the client capabilities 'roots' and 'sampling', so this "
        "client has tools the server lists only to clients that declare them: pass list_roots_callback= and "
        "sampling_callback= to connect()"
    )


def test_a_second_thread_calling_meanwhile_moves_the_loop_to_its_own_thread(progress: ModuleType) -> None:
    """Two threads calling one sync client of an in-process server at once: the second call does not
    wait for the first (the loop moves to a thread of its own), and both get their answers."""
    with progress.ProgressClient.connect_sync(progress_server.server) as client:
        assert client.count(steps=1) == 1
        assert client._loop.thread is None
        started, answers = threading.Event(), []
        first = threading.Thread(
            target=lambda: answers.append(
                client.wait(label="first", seconds=1.5, call_options={"on_progress": lambda *_: started.set()})
            )
        )
        first.start()
        assert started.wait(10)
        assert client.count(steps=3) == 3
        assert answers == []  # the first call is still running
        first.join(10)
        assert answers == ["done"]
        loop_thread = client._loop.thread
        assert loop_thread.is_alive()
        assert client.echo_options(call_options_="after") == "after"
    assert not loop_thread.is_alive()


def test_calling_the_sync_client_on_its_own_loop_raises_instead_of_deadlocking(progress: ModuleType) -> None:
    """A progress callback runs on the client's loop (in the calling thread, or on the loop's own
    thread once it moved there); calling the client again from it raises instead of waiting forever."""
    errors: list[BaseException] = []

    def call_again(*_: object) -> None:
        try:
            client.count(steps=1)
        except RuntimeError as error:
            errors.append(error)

    async def from_a_running_loop() -> int:
        count: int = client.count(steps=1, call_options={"on_progress": call_again})
        return count

    with progress.ProgressClient.connect_sync(progress_server.server) as client:
        assert client.count(steps=1, call_options={"on_progress": call_again}) == 1
        assert client._loop.thread is None
        assert asyncio.run(from_a_running_loop()) == 1
        assert client._loop.thread is not None
    assert len(errors) == 2
    assert all("a sync client was called on its own event loop" in str(error) for error in errors)


def test_the_sync_hub_calls_by_qualified_name_and_through_each_servers_sync_client(tmp_path: Path) -> None:
    for snapshot in hub_case_snapshots():
        generate_package(snapshot, tmp_path / "synchub")
    generate_hub([(snapshot, {}) for snapshot in hub_case_snapshots()], tmp_path / "synchub")
    try:
        hub_module = import_generated(tmp_path / "synchub", "hub")
        weather, notes = (StdioServerParameters(command=PYTHON, args=[str(EXAMPLES / name)]) for name in ("weather_server.py", "notes_server.py"))  # fmt: skip
        with hub_module.Hub.connect_sync(weather=weather, notes=notes) as hub:
            assert isinstance(hub, hub_module.SyncHub)
            assert hub.call("weather__search", {"query": "OS"}).structured_content == {"result": ["Oslo"]}
            assert type(hub.weather).__name__ == "WeatherSyncClient"
            assert hub.weather.search(query="ber", call_options={"timeout": 10}) == ["Berlin"]
            assert [note.id for note in hub.notes.search(text="coffee").notes] == [2]
            assert hub.verify().removed == ()
            assert "weather__get_forecast" in hub.hub.live_tools
            loop_thread = hub._loop.thread
        assert not loop_thread.is_alive()
    finally:
        forget_generated(tmp_path / "synchub")


TYPED_CALLER = """
from clients.weather import GetForecastOutput, WeatherClient


def forecast(server: str) -> GetForecastOutput:
    with WeatherClient.connect_sync(server) as weather:
        weather.read_stations(call_options={"timeout": 1.0, "meta": {"trace": "t"}})
        return weather.get_forecast(
            city="Oslo", call_options={"timeout": 5.0, "on_progress": lambda done, total, message: None}
        )


def wrong(server: str) -> None:
    with WeatherClient.connect_sync(server) as weather:
        weather.read_stations(call_options={"on_progress": print})
        weather.get_forecast(city="Oslo", call_options={"timeout": "soon"})
        weather.get_forecast(city="Oslo", days=2, call_options=None).missing
"""


@pytest.mark.generated_mypy
def test_the_sync_client_and_call_options_are_typed_for_mypy_strict(tmp_path: Path) -> None:
    caller = tmp_path / "caller.py"
    caller.write_text(TYPED_CALLER, encoding="utf-8")
    found, output = mypy_against_goldens(caller)
    errors = found[caller.name]
    assert len(errors) == 3, output
    assert '"read_stations"' in errors[0] and 'expected "RequestOptions | None"' in errors[0]  # no on_progress
    assert '"get_forecast"' in errors[1] and 'expected "CallOptions | None"' in errors[1]  # a timeout is a float
    assert '"GetForecastOutput" has no attribute "missing"' in errors[2]


async def test_hub_call_takes_the_generated_methods_call_options(tmp_path: Path) -> None:
    """`hub.call` (and its sync twin) carries progress, `_meta` and a timeout to the owning server,
    and a timeout raises the same `RequestTimeoutError` and cancels the call there."""
    snapshot = await snapshot_server(ServerConfig(name="progress", command=PYTHON, args=(str(SERVER),)))
    generate_package(snapshot, tmp_path / "optionshub")
    generate_hub([(snapshot, {})], tmp_path / "optionshub")
    try:
        hub_module = import_generated(tmp_path / "optionshub", "hub")
        seen: list[tuple[float, float | None, str | None]] = []
        async with hub_module.Hub.connect(progress=PARAMETERS) as hub:
            counted = await hub.call(
                "progress__count", {"steps": 2}, call_options={"on_progress": lambda *u: seen.append(u)}
            )
            assert counted.structured_content == {"result": 2}
            assert seen == [(1, 2, "step 1"), (2, 2, "step 2")]
            echoed = await hub.call("progress__request_meta", {}, call_options={"meta": {"trace": "via-hub"}})
            assert json.loads(echoed.structured_content["result"])["trace"] == "via-hub"
            with pytest.raises(
                hub_module.RequestTimeoutError, match=r"'progress': tool 'wait' got no answer within 0.3 s"
            ):
                await hub.call("progress__wait", {"label": "hub-timeout"}, call_options={"timeout": 0.3})
            assert "hub-timeout" in await cancelled_labels(hub.progress, "hub-timeout")

        def sync_side() -> None:
            with hub_module.Hub.connect_sync(progress=PARAMETERS) as sync_hub:
                with pytest.raises(hub_module.RequestTimeoutError):
                    sync_hub.call("progress__wait", {"label": "sync-hub-timeout"}, call_options={"timeout": 0.3})
                assert sync_hub.call(
                    "progress__count", {"steps": 1}, call_options={"timeout": 10}
                ).structured_content == {"result": 1}

        await asyncio.to_thread(sync_side)
    finally:
        forget_generated(tmp_path / "optionshub")


@pytest.mark.parametrize("given", ["python server.py", "ftp://127.0.0.1/mcp", "localhost:8000/mcp"])
async def test_a_string_that_is_not_an_http_url_is_refused_before_anything_starts(
    progress: ModuleType, given: str
) -> None:
    """A command line passed as a string was taken for a URL: the handshake failed with httpx's
    "Request URL is missing an 'http://' or 'https://' protocol", after `auto` had tried `initialize`."""
    refusal = (
        r"^progress: connect takes an http:// or https:// URL, a transport, or for a command StdioServerParameters"
    )
    with pytest.raises(ValueError, match=refusal):
        async with progress.ProgressClient.connect(given):
            pass
    with pytest.raises(ValueError, match=refusal), progress.ProgressClient.connect_sync(given):
        pass


async def test_a_client_used_after_its_block_ended_says_so_by_the_servers_name(
    progress: ModuleType, tmp_path: Path
) -> None:
    """After `async with ... connect(...)` ended, a call raised the SDK's "Client must be used within an
    async context manager", which names neither the block that ended nor the server; the sync client's
    error named no server."""
    async with progress.ProgressClient.connect(progress_server.server) as client:
        assert await client.count(steps=1) == 1
    with pytest.raises(RuntimeError, match=r"^progress: this client is closed: its `async with` block has ended;"):
        await client.count(steps=1)
    with pytest.raises(RuntimeError, match=r"^progress: this client is closed"):
        await client.verify()
    with progress.ProgressClient.connect_sync(progress_server.server) as sync:
        assert sync.count(steps=1) == 1
    with pytest.raises(RuntimeError, match=r"^progress: this sync client is closed: its `with` block has ended;"):
        sync.count(steps=1)

    for snapshot in hub_case_snapshots():
        generate_package(snapshot, tmp_path / "closedhub")
    generate_hub([(snapshot, {}) for snapshot in hub_case_snapshots()], tmp_path / "closedhub")
    try:
        hub_module = import_generated(tmp_path / "closedhub", "hub")
        weather, notes = (StdioServerParameters(command=PYTHON, args=[str(EXAMPLES / name)]) for name in ("weather_server.py", "notes_server.py"))  # fmt: skip
        async with hub_module.Hub.connect(weather=weather, notes=notes) as hub:
            assert (await hub.call("weather__search", {"query": "OS"})).structured_content == {"result": ["Oslo"]}
        with pytest.raises(RuntimeError, match=r"^weather: this client is closed"):
            await hub.call("weather__search", {"query": "OS"})
        with pytest.raises(RuntimeError, match=r"^notes: this client is closed"):
            await hub.notes.search(text="coffee")
        with hub_module.Hub.connect_sync(weather=weather, notes=notes) as sync_hub:
            assert sync_hub.weather.search(query="ber") == ["Berlin"]
        with pytest.raises(RuntimeError, match=r"^this sync hub is closed: its `with` block has ended;"):
            sync_hub.call("weather__search", {"query": "OS"})
    finally:
        forget_generated(tmp_path / "closedhub")
