"""What a generated client sends and raises on the wire: the handshake its snapshot recorded,
`Mcp-Param-*` headers from the first call (SEP-2243), JSON-RPC errors as the client's `ServerError`,
against real servers (a legacy stdio server, a Streamable HTTP server on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from mcp import StdioServerParameters

from tests.conftest import (
    PYTHON,
    REPO,
    SERVERS,
    forget_generated,
    free_port,
    import_generated,
    wait_for_port,
    write_config,
)
from tests.regen_goldens import OUTPUT

PY = PYTHON
RAW_SERVER = SERVERS / "raw_server.py"
HEADER_SERVER = SERVERS / "header_server.py"


def synced(tmp_path: Path, run_cli, monkeypatch, name: str, args: list[str]) -> Iterator[ModuleType]:  # type: ignore[no-untyped-def]
    """The package (`clients.NAME`, beside `clients.hub`) of the raw server run with `args`, synced
    into `clients/` and imported, for as long as the test holds it."""
    monkeypatch.chdir(tmp_path)
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"
output = "clients"
hub = true

[tool.mcp-stubgen.servers.{name}]
command = {json.dumps(PY)}
args = {json.dumps(args)}
""",
    )
    result = run_cli("sync")
    assert result.exit_code == 0, result.stderr
    yield import_generated(tmp_path / "clients", name)
    forget_generated(tmp_path / "clients")


@pytest.fixture
def legacy(tmp_path: Path, run_cli, monkeypatch) -> Iterator[ModuleType]:  # type: ignore[no-untyped-def]
    """The legacy raw server's package and hub, synced into `clients/`, imported."""
    yield from synced(tmp_path, run_cli, monkeypatch, "raw", [str(RAW_SERVER)])


def raw_server(log: Path) -> StdioServerParameters:
    return StdioServerParameters(command=PY, args=[str(RAW_SERVER), "--log", str(log)])


async def test_a_client_of_a_legacy_snapshot_connects_without_probing_server_discover(
    legacy: ModuleType, tmp_path: Path
) -> None:
    log = tmp_path / "methods.log"
    async with legacy.RawClient.connect(raw_server(log)) as client:
        assert client.mcp_client.protocol_version == "2025-06-18"
        assert (await client.bravo(value="x")).text == "bravo: x"
    assert log.read_text().split()[:2] == ["initialize", "notifications/initialized"]
    assert "server/discover" not in log.read_text()


async def test_a_client_reads_a_server_whose_stdout_starts_with_a_byte_order_mark(legacy: ModuleType) -> None:
    """A .NET server's console writes a UTF-8 BOM first: the initialize answer was not JSON-RPC."""
    server = StdioServerParameters(command=PY, args=[str(RAW_SERVER), "--mode", "byte-order-mark"])
    async with asyncio.timeout(10):
        async with legacy.RawClient.connect(server) as client:
            assert (await client.bravo(value="x")).text == "bravo: x"


async def test_a_json_rpc_error_answer_raises_the_clients_server_error(legacy: ModuleType, tmp_path: Path) -> None:
    async with legacy.RawClient.connect(raw_server(tmp_path / "log")) as client:
        with pytest.raises(legacy.ServerError) as raised:
            await client.alpha(value="x")
    error = raised.value
    assert isinstance(error, legacy.StubgenClientError)
    assert (error.code, error.message, error.data) == (-32603, "database unavailable", {"retry_after": 5})
    assert str(error) == "server 'raw': tool 'alpha' failed: database unavailable (code -32603)"

    hub = importlib.import_module("clients.hub")
    async with hub.Hub.connect(raw=raw_server(tmp_path / "hub.log")) as connected:
        with pytest.raises(hub.ServerError, match=r"tool 'alpha' failed: database unavailable") as from_hub:
            await connected.call("raw__alpha", {"value": "x"})
        assert from_hub.value.code == -32603


NEEDS_INITIALIZE = [str(RAW_SERVER), "--mode", "dual-era-calls-need-initialize"]


@pytest.fixture
def needs_initialize(tmp_path: Path, run_cli, monkeypatch) -> Iterator[ModuleType]:  # type: ignore[no-untyped-def]
    """The package of a server that lists in a 2026-07-28 session and refuses calls there, synced."""
    yield from synced(tmp_path, run_cli, monkeypatch, "kg", NEEDS_INITIALIZE)


async def test_a_call_refused_for_want_of_initialize_in_a_modern_session_says_to_pin_legacy(
    needs_initialize: ModuleType,
) -> None:
    """kglite 0.21.2 (rmcp 3.5) answers `server/discover` and lists its tools in a 2026-07-28 session,
    but refuses every `tools/call` there with -32600 "initialize is required": the error said no more,
    and the way out, the older handshake, was the user's to guess. Client and hub now name it."""
    advice = (
        "initialize is required; the server wants the handshake of the versions before 2026-07-28: "
        'set protocol = "legacy" in its server table and run mcp-stubgen sync (code -32600)'
    )
    server = StdioServerParameters(command=PY, args=NEEDS_INITIALIZE)
    async with needs_initialize.KgClient.connect(server) as client:
        assert client.mcp_client.protocol_version == "2026-07-28"
        with pytest.raises(needs_initialize.ServerError) as raised:
            await client.bravo(value="x")
    assert str(raised.value) == f"server 'kg': tool 'bravo' failed: {advice}"
    hub = importlib.import_module("clients.hub")
    async with hub.Hub.connect(kg=server) as connected:
        with pytest.raises(hub.ServerError) as from_hub:
            await connected.call("kg__bravo", {"value": "x"})
    assert str(from_hub.value) == f"server 'kg': tool 'bravo' failed: {advice}"


def test_the_sync_client_raises_the_same_error_and_verifies(legacy: ModuleType, tmp_path: Path) -> None:
    with legacy.RawClient.connect_sync(raw_server(tmp_path / "log")) as client:
        with pytest.raises(legacy.ServerError) as raised:
            client.alpha(value="x")
        assert raised.value.data == {"retry_after": 5}
        client.verify()  # the live tools are the snapshot's
        type(client.async_client).tool_fingerprints = {**client.async_client.tool_fingerprints, "zulu": "0" * 16}
        with pytest.raises(legacy.CatalogDriftError, match=r"missing tools: 'zulu'"):
            client.verify()


@pytest.fixture
def header_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The header server on a free loopback port; yields its URL and its request log."""
    port, log = free_port(), tmp_path / "requests.log"
    process = subprocess.Popen(
        [PY, str(HEADER_SERVER), str(port), "--log", str(log)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def header_project(tmp_path: Path, run_cli, monkeypatch, header_server: tuple[str, Path]) -> Iterator[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """The header server synced with `parse_text_json`; yields its URL and what `sync` printed."""
    url, _log = header_server
    monkeypatch.chdir(tmp_path)
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"
output = "clients"

[tool.mcp-stubgen.servers.headers]
url = "{url}"
parse_text_json = true
""",
    )
    result = run_cli("sync")
    assert result.exit_code == 0, result.stderr
    yield url, result.stderr


def test_a_tool_with_invalid_header_annotations_is_left_out_with_a_warning(
    tmp_path: Path, header_project: tuple[str, str]
) -> None:
    _url, stderr = header_project
    assert (
        "warning: server 'headers': tool 'broken' left out: its x-mcp-header annotations are invalid (property "
        "'limit': x-mcp-header is only permitted on integer/string/boolean properties (got 'number')), and protocol "
        "2026-07-28 has clients drop such a tool"
    ) in stderr
    snapshot = json.loads((tmp_path / "snapshots" / "headers.json").read_text())
    assert [tool["name"] for tool in snapshot["tools"]] == ["confirm", "count", "query"]


def test_mirrored_parameters_are_sent_as_headers_from_the_first_call(
    tmp_path: Path, header_server: tuple[str, Path], header_project: tuple[str, str]
) -> None:
    """Right after `connect`, on the SDK's call path and on the session's own (`parse_text_json`),
    async and sync: no call is refused for a missing `Mcp-Param-Region`, and no tools are listed."""
    url, log = header_server
    package = import_generated(tmp_path / "clients", "headers")
    try:

        async def calls() -> None:
            async with package.HeadersClient.connect(url) as client:
                log.write_text("")
                assert (await client.query(region="eu-west", sql="select 1")).text == "query in eu-west"
                assert (await client.count(region="eu")).rows == 2

        asyncio.run(calls())
        with package.HeadersClient.connect_sync(url) as sync_client:
            assert sync_client.count(region="us").rows == 2
    finally:
        forget_generated(tmp_path / "clients")
    requests = log.read_text().splitlines()
    assert [line for line in requests if line.startswith("tools/")] == ["tools/call 200"] * 3, requests
    assert not [line for line in requests if not line.endswith((" 200", " 202"))], requests


async def test_input_required_is_answered_on_the_sessions_own_path(
    tmp_path: Path, header_server: tuple[str, Path], header_project: tuple[str, str]
) -> None:
    """`parse_text_json` calls go through the session's `send_request`, not `mcp.Client.call_tool`:
    a server that needs input first (SEP-2322) still gets it from the `connect` handler."""
    from mcp import types

    url, _log = header_server
    asked: list[str] = []

    async def answer(_context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"yes": True})

    package = import_generated(tmp_path / "clients", "headers")
    try:
        async with package.HeadersClient.connect(url, elicitation_callback=answer) as client:
            assert (await client.confirm(action="deploy")).confirmed is True
    finally:
        forget_generated(tmp_path / "clients")
    assert asked == ["Go on with deploy?"]


def test_a_tools_call_result_without_result_type_is_read_as_complete(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """SEP-2322: a 2026-07-28 `tools/call` result that omits `resultType` is complete; the SDK's own
    `call_tool` refuses it, and the generated client (on that path, async and sync) returns it."""
    port, log = free_port(), tmp_path / "requests.log"
    process = subprocess.Popen(
        [PY, str(SERVERS / "modern_http_server.py"), str(port), "--log", str(log)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        monkeypatch.chdir(tmp_path)
        write_config(
            tmp_path, f'[tool.mcp-stubgen]\noutput = "clients"\n[tool.mcp-stubgen.servers.modern]\nurl = "{url}"\n'
        )
        result = run_cli("sync")
        assert result.exit_code == 0, result.stderr
        package = import_generated(tmp_path / "clients", "modern")
        try:

            async def call() -> None:
                async with package.ModernClient.connect(url) as client:
                    assert client.mcp_client.protocol_version == "2026-07-28"
                    assert (await client.add(a=2, b=3)).text == "5"

            asyncio.run(call())
            with package.ModernClient.connect_sync(url) as sync_client:
                assert sync_client.add(a=4, b=5).text == "9"
        finally:
            forget_generated(tmp_path / "clients")
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert log.read_text().count("tools/call 2026-07-28") == 2


async def test_wrapping_one_connected_client_again_and_again_leaves_its_calls_as_they_were() -> None:
    """A generated client adjusts the SDK session it wraps (linear-time output checks, SEP-2322's
    `resultType`) once: an application that wraps one connection per request, thousands of times,
    calls as cheaply as the first wrapper did, where each wrapper used to nest the session's hooks
    one level deeper until a call died of recursion."""
    weather = import_generated(OUTPUT, "weather")
    try:
        server = StdioServerParameters(command=PY, args=[str(REPO / "examples" / "weather_server.py")])
        async with weather.WeatherClient.connect(server) as client:
            wrappers = [weather.WeatherClient(client.mcp_client) for _ in range(3000)]
            forecast = await wrappers[-1].get_forecast(city="Oslo", days=1)
            assert (forecast.city, forecast.units) == ("Oslo", "metric")
            assert (await client.get_forecast(city="Rome", days=2)).city == "Rome"
    finally:
        forget_generated(OUTPUT)


async def test_a_client_given_https_for_a_plain_http_server_names_the_tls_handshake(plain_http_port: int) -> None:
    """An `https://` URL of a server that speaks plain HTTP: a generated client said "ConnectError:
    [SSL: WRONG_VERSION_NUMBER] ...; is the server running?" of a server that was (the twenty-third
    round found it in `snapshot`, which now says it alike)."""
    weather = import_generated(OUTPUT, "weather")
    try:
        with pytest.raises(weather.StubgenClientError) as refused:
            async with weather.WeatherClient.connect(f"https://127.0.0.1:{plain_http_port}/mcp"):
                pass
    finally:
        forget_generated(OUTPUT)
    message = str(refused.value)
    assert "the TLS handshake failed ([SSL: " in message, message
    assert "if the server speaks plain HTTP, use its http:// URL" in message, message
    assert "is the server running" not in message, message
