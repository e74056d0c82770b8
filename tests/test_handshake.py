"""The handshake discovery records: a pinned protocol is asked of the server, the recorded protocol
does not depend on how fast a server starts, and `connect_timeout` bounds the handshake."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import mcp.client.session
import pytest

from codegen.config import load_config
from codegen.snapshot.discovery import connect
from tests.conftest import EXAMPLE_SERVER, PYTHON, SERVERS, free_port, npm_server, wait_for_port, write_config
from tests.test_watch import Watcher

PY = PYTHON
RAW_SERVER = SERVERS / "raw_server.py"
MODERN_HTTP_SERVER = SERVERS / "modern_http_server.py"


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_a_pinned_modern_protocol_asks_the_server_and_records_its_catalog(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    auto = run_cli("snapshot", "--name", "weather", "--out", tmp_path / "auto.json", "--", PY, EXAMPLE_SERVER)
    assert auto.exit_code == 0, auto.stderr
    pinned = run_cli(
        "snapshot", "--name", "weather", "--protocol", "2026-07-28", "--out", tmp_path / "pinned.json",
        "--", PY, EXAMPLE_SERVER,
    )  # fmt: skip
    assert pinned.exit_code == 0, pinned.stderr
    assert "(4 tools, 1 resource, 1 template, 1 prompt; protocol 2026-07-28)" in pinned.stderr
    document = json.loads((tmp_path / "pinned.json").read_text())
    assert document["serverInfo"] == {"name": "weather", "version": "1.0.0"}
    assert document["capabilities"]["tools"] is not None
    assert (tmp_path / "pinned.json").read_bytes() == (tmp_path / "auto.json").read_bytes()


def test_a_pin_in_the_config_is_asked_too(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
[tool.mcp-stubgen.servers.weather]
command = {json.dumps(PY)}
args = [{json.dumps(str(EXAMPLE_SERVER))}]
protocol = "2026-07-28"
""",
    )
    result = run_cli("snapshot")
    assert result.exit_code == 0, result.stderr
    document = json.loads((tmp_path / "snaps" / "weather.json").read_text())
    assert len(document["tools"]) == 4 and document["protocolVersion"] == "2026-07-28"


def test_a_legacy_server_does_not_speak_a_pinned_modern_protocol(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "legacy.json"
    result = run_cli("snapshot", "--name", "legacy", "--protocol", "2026-07-28", "--out", out, "--", PY, RAW_SERVER)
    assert result.exit_code == 2
    line = one_line(result.stderr)
    assert line.startswith("error: server 'legacy': does not speak the pinned protocol 2026-07-28 (server/discover:")
    assert "-32601" in line and 'set protocol = "auto"' in line
    assert not out.exists()


def test_a_dated_pin_sends_initialize_with_that_version(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    spoken = run_cli(
        "snapshot", "--name", "legacy", "--protocol", "2025-06-18", "--out", tmp_path / "a.json", "--", PY, RAW_SERVER
    )
    assert spoken.exit_code == 0, spoken.stderr
    assert json.loads((tmp_path / "a.json").read_text())["protocolVersion"] == "2025-06-18"
    other = run_cli(
        "snapshot", "--name", "legacy", "--protocol", "2025-11-25", "--out", tmp_path / "b.json", "--", PY, RAW_SERVER
    )
    assert other.exit_code == 2
    assert "does not speak the pinned protocol 2025-11-25 (it answered initialize with 2025-06-18)" in one_line(
        other.stderr
    )


def test_a_fallback_sends_initialize_once(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "methods.log"
    result = run_cli(
        "snapshot", "--name", "legacy", "--out", tmp_path / "l.json", "--", PY, RAW_SERVER, "--log", log
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    methods = log.read_text().split()
    assert methods[:3] == ["server/discover", "initialize", "notifications/initialized"]
    assert methods.count("initialize") == 1 and methods.count("server/discover") == 1


def test_connect_timeout_above_request_timeout_bounds_the_handshake(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """The handshake waits `connect_timeout`, not `request_timeout`; a later list call still waits the latter."""
    out = tmp_path / "slow.json"
    command = ("--", PY, RAW_SERVER, "--mode", "slow-handshake", "--delay", "2")
    timeouts = ("--connect-timeout", "20", "--request-timeout", "0.5")
    result = run_cli("snapshot", "--name", "slow", *timeouts, "--out", out, *command)
    assert result.exit_code == 0, result.stderr
    assert json.loads(out.read_text())["protocolVersion"] == "2025-06-18"

    too_short = run_cli("snapshot", "--name", "slow", "--connect-timeout", "1", "--out", out, *command)
    assert too_short.exit_code == 2
    assert "no answer to the handshake within 1s" in one_line(too_short.stderr.split("; its last stderr")[0])


def test_a_server_that_never_answers_the_probe_is_started_again_for_the_legacy_handshake(
    tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """A Python SDK 1.6 server (chroma-mcp) never answers `server/discover`, and stops reading: `auto`
    failed after `connect_timeout`, telling the user to pin `legacy`. The spec reads no answer as a
    legacy server: it is started again for `initialize` alone (never sent after the probe on one
    connection), with one warning, and recorded byte for byte as the pinned `legacy` records it."""
    log = tmp_path / "methods.log"
    server = ("--", PY, RAW_SERVER, "--mode", "probe-kills-reader", "--log", log)
    auto = run_cli("snapshot", "--name", "old", "--connect-timeout", "2", "--out", tmp_path / "auto.json", *server)
    assert auto.exit_code == 0, auto.stderr
    warning, wrote = [line for line in auto.stderr.splitlines() if line.strip()]
    assert warning == (
        "warning: server 'old': no answer to server/discover within 2s; started it again for the legacy handshake "
        '(set protocol = "legacy" in the config or --protocol legacy to skip the wait, or raise connect_timeout or '
        "--connect-timeout if it only starts slowly)"
    )
    assert wrote.startswith("old: wrote ") and wrote.endswith(
        "(5 tools, 0 resources, 0 templates, 1 prompt; protocol 2025-06-18)"
    )
    methods = log.read_text().split()
    assert methods[:3] == ["server/discover", "initialize", "notifications/initialized"]
    assert methods.count("server/discover") == 1 and methods.count("initialize") == 1
    pinned = run_cli("snapshot", "--name", "old", "--protocol", "legacy", "--out", tmp_path / "pinned.json", *server)
    assert pinned.exit_code == 0, pinned.stderr
    assert (tmp_path / "auto.json").read_bytes() == (tmp_path / "pinned.json").read_bytes()


def test_a_server_that_answers_the_probe_under_another_id_is_started_again_for_the_legacy_handshake(
    tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """effect-mcp 0.1.16 (Effect's `McpServer`) refuses `server/discover` with an error whose `id` is
    its error code: that line counted as an answer, so the server was not started again for the
    legacy handshake, and `snapshot` failed after `connect_timeout` advising to check that it is an
    MCP server. An answer to no request it was sent is no answer: it is started again, as chroma-mcp is."""
    log = tmp_path / "methods.log"
    server = ("--", PY, RAW_SERVER, "--mode", "probe-answered-with-another-id", "--log", log)
    auto = run_cli("snapshot", "--name", "effect", "--connect-timeout", "2", "--out", tmp_path / "auto.json", *server)
    assert auto.exit_code == 0, auto.stderr
    warning, wrote = [line for line in auto.stderr.splitlines() if line.strip()]
    assert warning.startswith("warning: server 'effect': no answer to server/discover within 2s; started it again")
    assert wrote.endswith("(5 tools, 0 resources, 0 templates, 1 prompt; protocol 2025-06-18)")
    assert log.read_text().split()[:3] == ["server/discover", "initialize", "notifications/initialized"]


def test_a_server_that_exits_on_the_probe_is_started_again_for_the_legacy_handshake(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """An rmcp 1.x server (cortex-mcp 0.9.1) exits when `server/discover` comes before `initialize`,
    saying so on stderr: `auto` failed with "the server closed the connection during start-up" on
    every such server. It is started again for `initialize` alone, with one warning, and recorded as
    the pinned `legacy` records it; a server that crashes for its own reasons is started once."""
    log = tmp_path / "methods.log"
    server = ("--", PY, RAW_SERVER, "--mode", "probe-exits", "--log", log)
    auto = run_cli("snapshot", "--name", "rmcp", "--out", tmp_path / "auto.json", *server)
    assert auto.exit_code == 0, auto.stderr
    warning, wrote = [line for line in auto.stderr.splitlines() if line.strip()]
    assert warning == (
        "warning: server 'rmcp': it closed the connection on server/discover, which it does not know; "
        'started it again for the legacy handshake (set protocol = "legacy" in the config or --protocol legacy '
        "to skip the probe)"
    )
    assert wrote.startswith("rmcp: wrote ")
    methods = log.read_text().split()
    assert methods[:3] == ["server/discover", "initialize", "notifications/initialized"]
    pinned = run_cli("snapshot", "--name", "rmcp", "--protocol", "legacy", "--out", tmp_path / "pinned.json", *server)
    assert pinned.exit_code == 0, pinned.stderr
    assert (tmp_path / "auto.json").read_bytes() == (tmp_path / "pinned.json").read_bytes()
    crashed = run_cli(
        "snapshot", "--name", "crash", "--out", tmp_path / "c.json", "--", PY, RAW_SERVER, "--mode", "crash-start"
    )
    assert crashed.exit_code == 2 and "warning" not in crashed.stderr, crashed.stderr


def test_an_rmcp_0_server_that_cannot_read_the_probe_is_started_again_as_legacy(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Elastic's elasticsearch-core-mcp-server (rmcp 0.x, in es-mcp 0.2.2) exits on `server/discover`
    saying "did not match any variant of untagged enum JsonRpcMessage", never naming the method:
    `auto` failed with "check that `command` starts an MCP server" of a server that `--protocol
    legacy` lists. It is started again for `initialize` alone, with the warning rmcp 1.x gets."""
    log = tmp_path / "methods.log"
    server = ("--", PY, RAW_SERVER, "--mode", "probe-unparsed", "--log", log)
    auto = run_cli("snapshot", "--name", "es", "--out", tmp_path / "auto.json", *server)
    assert auto.exit_code == 0, auto.stderr
    warning, wrote = [line for line in auto.stderr.splitlines() if line.strip()]
    assert warning.startswith(
        "warning: server 'es': it closed the connection on server/discover, which it does not know; "
    )
    assert wrote.startswith("es: wrote ") and wrote.endswith("protocol 2025-06-18)")
    assert log.read_text().split()[:3] == ["server/discover", "initialize", "notifications/initialized"]


@pytest.mark.parametrize("mode", ["probe-exits", "probe-unparsed"])
def test_a_server_that_exits_on_the_probe_is_connected_with_the_legacy_handshake(tmp_path: Path, mode: str) -> None:
    """`connect` (what `watch` and `Hub.connect_from_config` open) starts it again too: the hub over
    cortex-mcp 0.9.1 (rmcp 1.x) failed with "could not connect" where `snapshot` had just worked, and
    so did one over es-mcp 0.2.2 (rmcp 0.x)."""
    write_config(
        tmp_path,
        f"[tool.mcp-stubgen.servers.rmcp]\ncommand = {json.dumps(PY)}\n"
        f'args = [{json.dumps(str(RAW_SERVER))}, "--mode", "{mode}", "--log", {json.dumps(str(tmp_path / "m.log"))}]\n',
    )
    server = load_config(tmp_path / "pyproject.toml").servers["rmcp"]

    async def tools() -> list[str]:
        async with connect(server, warn=warnings.append) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    warnings: list[str] = []
    assert anyio.run(tools) == ["alpha", "bravo"]  # its first page
    assert (tmp_path / "m.log").read_text().split()[:2] == ["server/discover", "initialize"]
    assert warnings == [
        "server 'rmcp': it closed the connection on server/discover, which it does not know; "
        'started it again for the legacy handshake (set protocol = "legacy" in the config or --protocol legacy '
        "to skip the probe)"
    ]


def test_a_server_that_never_answers_the_probe_is_connected_with_the_legacy_handshake(tmp_path: Path) -> None:
    """`connect` (what `watch`, `Hub.connect_from_config` and, on Windows, `snapshot` open) waited
    `connect_timeout` for chroma-mcp's answer to `server/discover` and failed, where `snapshot` on
    Linux starts it again for `initialize` alone; now it does too, with the same warning."""
    log = tmp_path / "m.log"
    write_config(
        tmp_path,
        f"[tool.mcp-stubgen.servers.old]\ncommand = {json.dumps(PY)}\nconnect_timeout = 2\n"
        f'args = [{json.dumps(str(RAW_SERVER))}, "--mode", "probe-kills-reader", "--log", {json.dumps(str(log))}]\n',
    )
    server = load_config(tmp_path / "pyproject.toml").servers["old"]
    warnings: list[str] = []

    async def tools() -> list[str]:
        async with connect(server, warn=warnings.append) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    assert anyio.run(tools)[:2] == ["alpha", "bravo"]
    methods = log.read_text().split()
    assert methods[:2] == ["server/discover", "initialize"] and methods.count("initialize") == 1
    assert warnings == [
        "server 'old': no answer to server/discover within 2s; started it again for the legacy handshake "
        '(set protocol = "legacy" in the config or --protocol legacy to skip the wait, or raise connect_timeout or '
        "--connect-timeout if it only starts slowly)"
    ]


@pytest.mark.slow
def test_a_server_that_starts_after_the_sdks_probe_deadline_records_the_same_bytes(
    tmp_path: Path,
    run_cli,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The SDK gives up on `server/discover` after 10 s and sends `initialize`, which a server that
    speaks both eras answers as a legacy one: one that reads stdin only after that deadline must still
    be recorded as speaking 2026-07-28, byte for byte as when it starts at once, with one handshake.
    The SDK's deadline is cut to 1 s here (it reads it at each probe), so the server waits 2 s, not 11."""
    monkeypatch.setattr(mcp.client.session, "DISCOVER_TIMEOUT_SECONDS", 1.0)
    server = ("--", PY, RAW_SERVER, "--mode", "dual-era")
    fast = run_cli("snapshot", "--name", "dual", "--out", tmp_path / "fast.json", *server)
    assert fast.exit_code == 0, fast.stderr
    log = tmp_path / "methods.log"
    slow = run_cli(
        "snapshot", "--name", "dual", "--connect-timeout", "60", "--out", tmp_path / "slow.json",
        *server, "--start-delay", "2", "--log", log,
    )  # fmt: skip
    assert slow.exit_code == 0, slow.stderr
    assert json.loads((tmp_path / "slow.json").read_text())["protocolVersion"] == "2026-07-28"
    assert (tmp_path / "slow.json").read_bytes() == (tmp_path / "fast.json").read_bytes()
    assert "initialize" not in log.read_text().split()


def raw_project(folder: Path, mode: str) -> Path:
    """A project of the legacy raw server in `mode`, with packages; returns its config."""
    return write_config(
        folder,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"
output = "clients"

[tool.mcp-stubgen.servers.raw]
command = {json.dumps(PY)}
args = [{json.dumps(str(RAW_SERVER))}, "--mode", "{mode}"]
""",
    )


def test_an_empty_listing_never_replaces_a_committed_catalog_unasked(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    raw_project(tmp_path, "legacy")
    assert run_cli("sync").exit_code == 0
    snapshot, package = tmp_path / "snapshots" / "raw.json", tmp_path / "clients" / "raw"
    committed, client = snapshot.read_bytes(), (package / "client.py").read_bytes()

    raw_project(tmp_path, "empty")
    for command in ("sync", "snapshot"):
        result = run_cli(command)
        assert result.exit_code == 2, result.stderr
        assert one_line(result.stderr) == (
            "error: server 'raw': the server listed no tools, resources, templates or prompts, where the committed "
            "snapshot has 5 tools, 0 resources, 0 templates, 1 prompt (snapshots/raw.json); nothing was written, so "
            "the committed files are kept (pass --allow-empty to write it anyway)"
        )
        assert snapshot.read_bytes() == committed and (package / "client.py").read_bytes() == client

    watcher = Watcher(tmp_path, "--interval", "60")
    refused = watcher.wait_for("error: ")
    watcher.process.send_signal(signal.SIGINT)
    code, _stdout, stderr = watcher.finish()
    assert code == 0, stderr
    assert "the server listed no tools" in refused and refused.rstrip().endswith("not published, still watching")
    assert snapshot.read_bytes() == committed and (package / "client.py").read_bytes() == client

    allowed = run_cli("snapshot", "--allow-empty")
    assert allowed.exit_code == 0, allowed.stderr
    assert json.loads(snapshot.read_text())["tools"] == []


def test_watch_names_an_answer_that_is_not_utf_8_as_snapshot_does(tmp_path: Path) -> None:
    """watch's session read a Latin-1 description with U+FFFD in place of its byte and published
    that catalog, which `snapshot` refuses and the generated clients cannot list."""
    raw_project(tmp_path, "latin-1")
    watcher = Watcher(tmp_path, "--interval", "60")
    refused = watcher.wait_for("error: ")
    watcher.process.send_signal(signal.SIGINT)
    code, _stdout, stderr = watcher.finish()
    assert code == 0, stderr
    assert refused.strip() == (
        "error: server 'raw': tool 'latin' /description: its answer is not UTF-8 (byte 0xe9), which the MCP SDK "
        "and the generated clients cannot read; the server has to write UTF-8"
    )
    assert not (tmp_path / "snapshots" / "raw.json").exists()


def test_drift_update_never_writes_an_empty_listing_over_a_committed_catalog_unasked(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch
) -> None:
    """`drift --update` is a snapshot writer too: it reports the emptied catalog, then keeps the
    committed file unless `--allow-empty` says the server really is empty now."""
    monkeypatch.chdir(tmp_path)
    raw_project(tmp_path, "legacy")
    assert run_cli("snapshot").exit_code == 0
    snapshot = tmp_path / "snapshots" / "raw.json"
    committed = snapshot.read_bytes()

    raw_project(tmp_path, "empty")
    refused = run_cli("drift", "--update", "--fail-on", "never")
    assert refused.exit_code == 2, refused.stderr
    assert "tool-removed" in refused.stdout
    assert (
        "error: server 'raw': the server listed no tools, resources, templates or prompts, where the committed "
        "snapshot has 5 tools, 0 resources, 0 templates, 1 prompt (snapshots/raw.json); nothing was written, so "
        "the committed files are kept (pass --allow-empty to write it anyway)"
    ) in one_line(refused.stderr)
    assert snapshot.read_bytes() == committed

    allowed = run_cli("drift", "--update", "--fail-on", "never", "--allow-empty")
    assert allowed.exit_code == 0, allowed.stderr
    assert json.loads(snapshot.read_text())["tools"] == []


def test_a_snapshot_that_loses_server_info_is_refused_unasked(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "dual.json"
    server = ("--", PY, RAW_SERVER, "--mode")
    assert run_cli("snapshot", "--name", "dual", "--out", out, *server, "dual-era").exit_code == 0
    committed = out.read_bytes()
    anonymous = run_cli("snapshot", "--name", "dual", "--out", out, *server, "dual-era-anonymous")
    assert anonymous.exit_code == 2
    assert "the server sent no serverInfo, which the committed snapshot records" in one_line(anonymous.stderr)
    assert out.read_bytes() == committed
    allowed = run_cli("snapshot", "--name", "dual", "--out", out, "--allow-empty", *server, "dual-era-anonymous")
    assert allowed.exit_code == 0, allowed.stderr
    assert "serverInfo" not in json.loads(out.read_text())


@contextmanager
def http_server(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[str]:
    """`command` listening on 127.0.0.1:`port`; yields its `/mcp` URL."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_auto_falls_back_to_initialize_when_server_discover_is_answered_with_http_400(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """TypeScript SDK servers answer a request before `initialize` with HTTP 400 and -32000 (the
    code the SDK also uses for a closed connection): that is the server's answer, so `auto` falls back."""
    port = free_port()
    everything = [str(npm_server("mcp-server-everything")), "streamableHttp"]
    with http_server(everything, port, {**os.environ, "PORT": str(port)}) as url:
        result = run_cli("snapshot", "--name", "everything", "--url", url, "--out", tmp_path / "e.json")
        assert result.exit_code == 0, result.stderr
    document = json.loads((tmp_path / "e.json").read_text())
    assert document["protocolVersion"] == "2025-11-25"
    assert document["serverInfo"]["name"] and any(tool["name"] == "echo" for tool in document["tools"])


@pytest.mark.parametrize("pin", [(), ("--protocol", "2026-07-28")], ids=["auto", "pinned"])
def test_a_discover_refused_as_unsupported_is_retried_with_a_version_the_server_lists(
    tmp_path: Path,
    run_cli,  # type: ignore[no-untyped-def]
    pin: tuple[str, ...],
) -> None:
    port, log = free_port(), tmp_path / "requests.log"
    server = [PY, str(MODERN_HTTP_SERVER), str(port), "--log", str(log), "--refuse-first", "2026-07-28"]
    with http_server(server, port) as url:
        result = run_cli("snapshot", "--name", "modern", "--url", url, *pin, "--out", tmp_path / "m.json")
    assert result.exit_code == 0, result.stderr
    document = json.loads((tmp_path / "m.json").read_text())
    assert document["protocolVersion"] == "2026-07-28" and [tool["name"] for tool in document["tools"]] == ["add"]
    assert log.read_text().splitlines()[:3] == [
        "server/discover 2026-07-28",
        "server/discover 2026-07-28",
        "tools/list 2026-07-28",
    ]


def test_a_pin_the_server_does_not_list_as_supported_fails_in_one_line(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Pinned ad hoc (--protocol), where no config holds `protocol`: the line names --protocol auto too."""
    port, log = free_port(), tmp_path / "requests.log"
    server = [PY, str(MODERN_HTTP_SERVER), str(port), "--log", str(log), "--refuse-first", "2025-11-25"]
    with http_server(server, port) as url:
        result = run_cli(
            "snapshot", "--name", "modern", "--url", url, "--protocol", "2026-07-28", "--out", tmp_path / "m.json"
        )
    assert result.exit_code == 2
    assert one_line(result.stderr) == (
        "error: server 'modern': does not speak the pinned protocol 2026-07-28 (server/discover: Unsupported "
        'protocol version (code -32022)); pin a version it speaks, or set protocol = "auto" in the config or '
        "--protocol auto"
    )
    assert log.read_text().split() == ["server/discover", "2026-07-28"]


@pytest.mark.parametrize("protocol", ["auto", "legacy", "2025-06-18", "2026-07-28"])
def test_the_request_written_as_a_server_starts_is_the_one_its_session_would_send(
    tmp_path: Path, protocol: str
) -> None:
    """`start_early` writes the handshake's first request (`stdio.first_request`), built apart from the
    session that would otherwise send it; the session sends it again unless the two are the same bytes,
    so a difference would reach the server as a second request with the same id."""
    from codegen.config import parse_server
    from codegen.snapshot import Snapshot
    from codegen.snapshot.discovery import snapshot_servers
    from codegen.snapshot.stdio import start_early

    log = tmp_path / "methods.log"
    raw = {
        "command": PY,
        "args": [str(RAW_SERVER), "--mode", "dual-era", "--log", str(log)],
        "protocol": protocol,
        "client_capabilities": ["roots", "sampling"],
    }
    server = parse_server("early", raw, "test", tmp_path)
    start_early([server])
    result = snapshot_servers([server])["early"]
    assert isinstance(result, Snapshot), result
    first = "initialize" if protocol in ("legacy", "2025-06-18") else "server/discover"
    methods = log.read_text().split()
    assert methods[0] == first and methods.count(first) == 1, methods


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_a_server_started_early_has_its_first_request_at_once(tmp_path: Path, protocol: str) -> None:
    """`sync` starts its stdio servers, then loads the generator (seconds under load), and only then
    spoke to them: biomcp 0.9.3, which exits when no request came within 5 s of its start, died in a
    `sync --no-cache` of sixteen servers ("the server closed the connection during start-up"). The
    handshake's first request is now written as the server starts."""
    from codegen.config import parse_server
    from codegen.snapshot import Snapshot
    from codegen.snapshot.discovery import snapshot_servers
    from codegen.snapshot.stdio import start_early

    raw = {"command": PY, "args": [str(RAW_SERVER), "--mode", "init-watchdog", "--delay", "1"], "protocol": protocol}
    server = parse_server("watchful", raw, "test", tmp_path)
    start_early([server])
    time.sleep(2.5)  # the generator loading while the server starts
    result = snapshot_servers([server])["watchful"]
    assert isinstance(result, Snapshot), result
    assert result.protocol_version == "2025-06-18"  # the raw server's
