"""`mcp-stubgen watch` as a user runs it: a subprocess watching real servers, changed from outside.

The changing server runs over Streamable HTTP so the test can call its `add_tools` tool from its
own client while the watcher holds another session; the server fans the change out to the watcher
as `notifications/tools/list_changed` (legacy) or a `subscriptions/listen` event (2026-07-28).
Every watcher runs with `--max-changes` and a hard timeout, so no test can hang.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.conftest import PYTHON, REPO, SERVERS, free_port, wait_for_port, write_config

CHANGING_SERVER = SERVERS / "changing_server.py"
PAGING_SERVER = SERVERS / "paging_server.py"
TIMEOUT = 60.0
"""Seconds any one wait may take before the test fails instead of hanging: a guard, not a figure (at
load 14 a `watch` that builds a package as it starts took over 20 s to say it was watching)."""


class ChangingServer:
    """The changing server on a fixed loopback port, so it can be killed and started again there. It
    runs as a fork (`PYTHON`, docs/development.md), which outlives its killed command by a few
    milliseconds: `kill` returns once the port is closed."""

    def __init__(self, *flags: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.flags = flags
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [PYTHON, str(CHANGING_SERVER), str(self.port), *self.flags],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
            deadline = time.monotonic() + TIMEOUT
            while self.listening():
                assert time.monotonic() < deadline, f"the killed server still listens on {self.port}"
                time.sleep(0.01)

    def listening(self) -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", self.port)) == 0

    def add_tools(self, *names: str) -> None:
        async def call() -> None:
            async with Client(self.url) as client:
                result = await client.call_tool("add_tools", {"names": list(names)})
                assert not result.is_error

        anyio.run(call)


class Watcher:
    """`mcp-stubgen watch ...` in a subprocess; its stderr is read line by line as it arrives. A test
    that sends it no signal passes `python=PYTHON` (a fork, docs/development.md); Ctrl-C goes to
    `watch` alone only when it is started with `sys.executable`."""

    def __init__(self, cwd: Path, *args: str, env: dict[str, str] | None = None, python: str = sys.executable) -> None:
        environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
        self.process = subprocess.Popen(
            [python, "-m", "codegen.cli", "watch", *args],
            cwd=cwd,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        assert self.process.stderr is not None
        stderr = self.process.stderr
        self._reader = threading.Thread(target=lambda: [self.lines.put(line) for line in stderr], daemon=True)
        self._reader.start()

    def wait_for(self, text: str) -> str:
        """The next stderr line containing `text`; earlier lines are kept in `stderr`."""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.stderr.append(line)
            if text in line:
                return line
        self.process.kill()
        raise AssertionError(f"watch never printed {text!r}; stderr so far:\n{''.join(self.stderr)}")

    def finish(self) -> tuple[int, str, str]:
        """Exit code, stdout and the whole stderr, once the watcher has exited by itself."""
        assert self.process.stdout is not None
        try:
            code = self.process.wait(timeout=TIMEOUT)
        finally:
            self.process.kill()
        stdout = self.process.stdout.read()
        self._reader.join(TIMEOUT)  # it ends at the end of stderr, once it has handed over the last lines
        while not self.lines.empty():
            self.stderr.append(self.lines.get())
        return code, stdout, "".join(self.stderr)


@pytest.fixture
def changing() -> Iterator[ChangingServer]:
    server = ChangingServer()
    server.start()
    yield server
    server.kill()


@pytest.fixture
def polled() -> Iterator[ChangingServer]:
    server = ChangingServer("--no-list-changed")
    server.start()
    yield server
    server.kill()


def project(folder: Path, url: str, protocol: str = "auto", extra: str = "", hub: bool = False) -> Path:
    write_config(
        folder,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"
output = "clients"
hub = {str(hub).lower()}

[tool.mcp-stubgen.servers.changing]
url = "{url}"
protocol = "{protocol}"
{extra}""",
    )
    return folder / "snapshots" / "changing.json"


def let_notifications_reach_the_watcher(protocol: str) -> None:
    """A legacy client over Streamable HTTP opens its GET stream for server notifications in the
    background after the handshake; a notification sent before that stream is open has nowhere to go."""
    if protocol == "legacy":
        time.sleep(1.0)


def tool_names(snapshot: Path) -> list[str]:
    return [tool["name"] for tool in json.loads(snapshot.read_text(encoding="utf-8"))["tools"]]


@pytest.mark.parametrize(
    ("protocol", "channel", "era"),
    [
        ("auto", "tools changes via subscriptions/listen", "2026-07-28"),
        ("legacy", "tools changes via list_changed notifications", "2025-11-25"),
    ],
)
def test_a_notified_burst_is_published_once_with_the_whole_catalog(
    tmp_path: Path, changing: ChangingServer, run_cli, protocol: str, channel: str, era: str
) -> None:
    snapshot = project(tmp_path, changing.url, protocol)
    assert run_cli("snapshot", "--config", tmp_path / "pyproject.toml").exit_code == 0
    committed = snapshot.read_bytes()

    watcher = Watcher(tmp_path, "--max-changes", "1", "--interval", "60", python=PYTHON)
    watcher.wait_for("catalog matches snapshots/changing.json")
    assert channel in watcher.wait_for("changing: watching")
    assert snapshot.read_bytes() == committed
    let_notifications_reach_the_watcher(protocol)
    changing.add_tools("beta", "gamma")  # two notifications, one change
    code, stdout, stderr = watcher.finish()

    assert code == 0, stderr
    assert stderr.count("changing: catalog changed") == 1
    assert "changing: wrote snapshots/changing.json and regenerated clients/changing" in stderr
    assert stderr.rstrip().endswith("stopped after 1 published change")
    assert "tool-added-destructive  changing: tool beta" in stdout  # no hints: the cautious defaults
    assert "tool-added-destructive  changing: tool gamma" in stdout
    assert "0 breaking, 2 dangerous, 0 safe" in stdout
    assert tool_names(snapshot) == ["add_tools", "beta", "gamma"]
    assert json.loads(snapshot.read_text(encoding="utf-8"))["protocolVersion"] == era
    client = (tmp_path / "clients" / "changing" / "client.py").read_text(encoding="utf-8")
    assert "    async def beta(\n        self,\n        *,\n        text: str,\n" in client
    assert "    async def gamma(\n        self,\n        *,\n        text: str,\n" in client


def test_a_server_without_list_changed_is_polled_and_compared_with_the_committed_snapshot(
    tmp_path: Path, polled: ChangingServer, run_cli
) -> None:
    severity = '[tool.mcp-stubgen.drift.severity]\ntool-added-destructive = "safe"\n'  # reported as drift reports it
    snapshot = project(tmp_path, polled.url, extra=severity, hub=True)
    assert run_cli("snapshot", "--config", tmp_path / "pyproject.toml").exit_code == 0
    polled.add_tools("alpha")  # while nobody watches: found on start, against the committed snapshot

    watcher = Watcher(tmp_path, "--max-changes", "2", "--interval", "0.5", python=PYTHON)
    watcher.wait_for("changing: catalog changed")
    assert "polling every 0.5s" in watcher.wait_for("changing: watching")
    assert tool_names(snapshot) == ["add_tools", "alpha"]
    added = time.monotonic()
    polled.add_tools("beta")
    watcher.wait_for("changing: catalog changed")
    found = time.monotonic() - added
    code, stdout, stderr = watcher.finish()

    assert code == 0, stderr
    assert found < 5, "the poll every 0.5s should have found beta within a few seconds"
    assert stdout.count("tool-added") == 2
    assert stdout.index("tool alpha") < stdout.index("tool beta")
    assert (
        "tool-added-destructive  changing: tool alpha (severity set in config; the rule's own is dangerous)" in stdout
    )
    assert tool_names(snapshot) == ["add_tools", "alpha", "beta"]
    assert "async def beta(" in (tmp_path / "clients" / "changing" / "client.py").read_text(encoding="utf-8")
    # The package missing beside the committed snapshot is built from it first, the hub with it.
    assert stderr.startswith(
        "changing: built clients/changing from snapshots/changing.json\n"
        "hub: generated clients/hub (4 file(s) written, 0 removed)\n"
        "_mcp_runtime: generated clients/_mcp_runtime (7 file(s) written, 0 removed)\n"  # the hub's modules, its names' table
    )
    assert stderr.count("hub: generated clients/hub") == 3, "the hub follows every published change"
    assert '"changing__beta"' in (tmp_path / "clients" / "hub" / "catalog.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_restarted_server_is_reconnected_and_its_later_change_published(
    tmp_path: Path, changing: ChangingServer, protocol: str
) -> None:
    snapshot = project(tmp_path, changing.url, protocol, 'headers = { Authorization = "Bearer ${WATCH_TOKEN}" }\n')
    token = "s3cret-watch-token"
    watcher = Watcher(tmp_path, "--max-changes", "2", "--interval", "0.5", env={"WATCH_TOKEN": token}, python=PYTHON)
    watcher.wait_for("no committed snapshot at snapshots/changing.json; writing the first one")
    watcher.wait_for("changing: watching")

    changing.kill()
    error = watcher.wait_for("error: server 'changing'")
    watcher.wait_for("changing: reconnecting in 1s")
    changing.start()
    watcher.wait_for("changing: watching")
    let_notifications_reach_the_watcher(protocol)
    changing.add_tools("delta")
    code, stdout, stderr = watcher.finish()

    assert code == 0, stderr
    assert error.count("\n") == 1, "one line per event"
    assert "tool-added-destructive  changing: tool delta" in stdout
    assert tool_names(snapshot) == ["add_tools", "delta"]
    assert token not in stdout + stderr
    assert "Traceback" not in stderr


def test_a_quiet_listen_stream_stays_open_past_request_timeout(
    tmp_path: Path, changing: ChangingServer, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """httpx's read timeout was `request_timeout`, and it cut the `subscriptions/listen` stream after
    that many seconds without an event: the watcher reported the stream lost and reconnected every
    second here while nothing changed. The stream now stays open until the server ends it."""
    project(tmp_path, changing.url, extra="request_timeout = 1\n")
    assert run_cli("snapshot", "--config", tmp_path / "pyproject.toml").exit_code == 0
    watcher = Watcher(tmp_path, "--max-changes", "1", "--interval", "60", python=PYTHON)
    assert "via subscriptions/listen" in watcher.wait_for("changing: watching")
    time.sleep(3)  # three times request_timeout without an event
    changing.add_tools("beta")
    code, _stdout, stderr = watcher.finish()

    assert code == 0, stderr
    assert "reconnecting" not in stderr and "error:" not in stderr, stderr
    assert stderr.count("changing: watching") == 1


async def test_a_listen_stream_that_sends_no_byte_for_the_idle_bound_is_taken_for_lost(
    changing: ChangingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quiet listen stream stays open past `request_timeout` (above), but not for ever: one that sends
    no byte for `STREAM_IDLE_SECONDS` (300 s, the generated clients' bound), as a connection a NAT
    dropped without a word does, ends, so `watch` reconnects instead of waiting on it for good."""
    from codegen.config import ServerConfig, Timeouts
    from codegen.errors import StubgenError
    from codegen.snapshot import discovery

    monkeypatch.setattr(discovery, "STREAM_IDLE_SECONDS", 1.5)
    server = ServerConfig(name="changing", url=changing.url, transport="http", timeouts=Timeouts(1.0, 0.5))
    began = time.monotonic()
    with anyio.fail_after(TIMEOUT), pytest.raises(StubgenError, match="SubscriptionLost"):
        async with discovery.connect(server) as client, client.listen(tools_list_changed=True) as subscription:
            began = time.monotonic()
            async for _event in subscription:
                pytest.fail("nothing changed, so no event")
    assert 1.0 < time.monotonic() - began < 20  # ends by the idle bound, not by the guard


def test_ctrl_c_stops_cleanly_over_stdio(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"

[tool.mcp-stubgen.servers.paging]
command = "{Path(PYTHON).as_posix()}"
args = ["{PAGING_SERVER.as_posix()}", "8", "{(tmp_path / "lists.log").as_posix()}"]
""",
    )
    watcher = Watcher(tmp_path, "--interval", "0.3")
    watcher.wait_for("paging: wrote snapshots/paging.json")  # no `output`: the snapshot alone
    watcher.wait_for("paging: watching (polling every 0.3s)")
    listed = len((tmp_path / "lists.log").read_text().splitlines())
    deadline = time.monotonic() + TIMEOUT
    while len((tmp_path / "lists.log").read_text().splitlines()) < listed + 2:  # two polls, unchanged
        assert time.monotonic() < deadline, "watch never polled the server"
        time.sleep(0.05)
    watcher.process.send_signal(signal.SIGINT)
    code, stdout, stderr = watcher.finish()

    assert code == 0, stderr
    assert stderr.rstrip().splitlines()[-1] == "stopped after 1 published change"
    assert "Traceback" not in stderr
    assert stdout == ""
    snapshot = json.loads((tmp_path / "snapshots" / "paging.json").read_text(encoding="utf-8"))
    assert [tool["name"] for tool in snapshot["tools"]][:2] == ["tool-000", "tool-001"]
    assert sorted(path.name for path in (tmp_path / "snapshots").iterdir()) == ["paging.json"]
    assert not (tmp_path / "clients").exists()


def test_a_stdio_server_that_serves_http_is_named_so_without_a_second_wait(tmp_path: Path) -> None:
    """officeagent-mcp 1.2.0 without `--stdio` serves HTTP and logs "Now listening on:
    http://localhost:5000" to stdout: `snapshot` named it so, but `watch` read stdout through the SDK,
    waited again for the legacy handshake and said to check that it is an MCP server (found in the
    seventeenth round)."""
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"

[tool.mcp-stubgen.servers.office]
command = "{Path(PYTHON).as_posix()}"
args = ["{(SERVERS / "raw_server.py").as_posix()}", "--mode", "serves-http"]
connect_timeout = 1
""",
    )
    watcher = Watcher(tmp_path, "--interval", "60", python=PYTHON)
    error = watcher.wait_for("error: ")
    watcher.wait_for("office: reconnecting in ")
    watcher.process.kill()
    assert error.startswith(
        "error: server 'office': no answer on stdout 0.333s (a third of connect_timeout) after it said it listens on "
        "http://localhost:5000, "
        "so it serves HTTP, not stdio: start it in its stdio mode (often a --stdio or --transport stdio option), or "
        "if that URL is its MCP endpoint (mcp-stubgen cannot tell: such URLs usually end in /mcp), "
        'give that URL as the server\'s `url` (url = "http://localhost:5000"); its stdout lines that are not JSON-RPC: '
    ), error
    assert not [line for line in watcher.stderr if "started it again" in line], watcher.stderr


def test_a_stdio_server_that_serves_http_alone_is_named_with_its_url_a_third_of_connect_timeout_in(
    tmp_path: Path,
) -> None:
    """An HTTP server started as a stdio one that says on stderr "Server listening on
    http://127.0.0.1:PORT/mcp" and never answers on stdout: `snapshot` names it with its URL a third
    of `connect_timeout` after it said so, but `watch` waited all of `connect_timeout` and named it
    by that port alone, with "give its URL" and no URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    args = [str(SERVERS / "modern_http_server.py"), str(port), "--log", str(tmp_path / "requests.log"), "--announce"]
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"

[tool.mcp-stubgen.servers.raw]
command = {json.dumps(PYTHON)}
args = {json.dumps(args)}
connect_timeout = 6
""",
    )
    watcher = Watcher(tmp_path, "--interval", "60", python=PYTHON)
    error = watcher.wait_for("error: ")
    watcher.process.kill()
    assert error.startswith(
        f"error: server 'raw': no answer on stdout 2s (a third of connect_timeout) after it said it listens on {url}, "
        "so it serves HTTP, not stdio: start it in its stdio mode (often a --stdio or --transport stdio option), or "
        f'give that URL as the server\'s `url` (url = "{url}"); its last stderr lines: '
    ), error


def test_a_package_that_cannot_be_published_leaves_the_committed_snapshot_alone(
    tmp_path: Path, changing: ChangingServer, run_cli
) -> None:
    snapshot = project(tmp_path, changing.url)
    assert run_cli("snapshot", "--config", tmp_path / "pyproject.toml").exit_code == 0
    committed = snapshot.read_bytes()
    hand_written = tmp_path / "clients" / "changing" / "client.py"
    hand_written.parent.mkdir(parents=True)
    hand_written.write_text("# someone's own code, not ours to replace\n", encoding="utf-8")

    watcher = Watcher(tmp_path, "--interval", "60")
    watcher.wait_for("changing: watching")
    changing.add_tools("beta")
    error = watcher.wait_for("error: ")
    watcher.process.send_signal(signal.SIGINT)
    code, _stdout, stderr = watcher.finish()

    assert code == 0, stderr
    assert "clients/changing" in error
    assert snapshot.read_bytes() == committed
    assert hand_written.read_text(encoding="utf-8") == "# someone's own code, not ours to replace\n"
    assert stderr.rstrip().splitlines()[-1] == "stopped after 0 published changes"
    assert sorted(path.name for path in snapshot.parent.iterdir()) == ["changing.json"]


@pytest.mark.parametrize(("kind", "how"), [("polled", "polling every"), ("changing", "subscriptions/listen")])
def test_a_publication_a_folder_refused_is_tried_again_once_the_folder_is_moved_away(
    tmp_path: Path, run_cli, request: pytest.FixtureRequest, kind: str, how: str
) -> None:
    """The error says to move the folder away; once that is done, the same catalog is published at the
    next poll (it was remembered as unpublishable, so nothing happened until the server changed again).
    A server that notifies is listed only when it says it changed, so its refused publication waited
    for its next change; it is tried again every interval too."""
    server: ChangingServer = request.getfixturevalue(kind)
    snapshot = project(tmp_path, server.url)
    assert run_cli("snapshot", "--config", tmp_path / "pyproject.toml").exit_code == 0
    package = tmp_path / "clients" / "changing"
    package.mkdir(parents=True)
    (package / "client.py").write_text("# someone's own code, not ours to replace\n", encoding="utf-8")

    watcher = Watcher(tmp_path, "--max-changes", "1", "--interval", "0.5", python=PYTHON)
    assert how in watcher.wait_for("changing: watching")
    server.add_tools("beta")
    assert "not a package generated by mcp-stubgen" in watcher.wait_for("error: ")
    package.rename(tmp_path / "moved_away")
    code, _stdout, stderr = watcher.finish()

    assert code == 0, stderr
    assert "changing: wrote snapshots/changing.json and regenerated clients/changing" in stderr
    assert tool_names(snapshot) == ["add_tools", "beta"]
    assert "async def beta(" in (package / "client.py").read_text(encoding="utf-8")


def test_a_missing_or_stale_package_is_built_when_watching_starts(
    tmp_path: Path, changing: ChangingServer, run_cli
) -> None:
    """A checkout with a snapshot but not its package, or with a package edited since, gets it built
    from the committed snapshot, although the catalog did not change."""
    project(tmp_path, changing.url, hub=True, extra=f'[tool.mcp-stubgen.servers.other]\nurl = "{changing.url}"\n')
    config = tmp_path / "pyproject.toml"
    assert run_cli("snapshot", "--config", config).exit_code == 0  # snapshots, and no packages
    assert run_cli("generate", "other", "--config", config).exit_code == 0
    (tmp_path / "clients" / "other" / "models.py").write_text("# edited by hand\n", encoding="utf-8")

    watcher = Watcher(tmp_path, "--interval", "60")
    built = {watcher.wait_for(": built clients/").strip() for _ in range(2)}  # in either order
    assert built == {f"{name}: built clients/{name} from snapshots/{name}.json" for name in ("changing", "other")}
    watcher.process.send_signal(signal.SIGINT)
    code, _stdout, stderr = watcher.finish()
    assert code == 0, stderr
    assert stderr.rstrip().splitlines()[-1] == "stopped after 0 published changes"
    assert run_cli("generate", "--check", "--config", config).exit_code == 0


def test_an_unreachable_server_still_gets_its_package_and_a_stale_hub_refreshed_at_start(
    tmp_path: Path, changing: ChangingServer, run_cli
) -> None:
    """Red before: the package was built only once the server answered, and a stale hub never."""
    project(tmp_path, changing.url, hub=True)
    config = tmp_path / "pyproject.toml"
    assert run_cli("sync", "--config", config).exit_code == 0
    changing.kill()
    for removed in ("changing", "hub"):
        shutil.rmtree(tmp_path / "clients" / removed)
        watcher = Watcher(tmp_path, "--interval", "60")
        expected = {"changing": "changing: built clients/changing from snapshots/changing.json"}
        expected["hub"] = "hub: generated clients/hub (4 file(s) written, 0 removed)"
        assert watcher.wait_for(expected[removed]).strip() == expected[removed]
        watcher.wait_for("changing: reconnecting in ")
        watcher.process.send_signal(signal.SIGINT)
        code, _stdout, stderr = watcher.finish()
        assert code == 0, stderr
        assert not [line for line in stderr.splitlines() if line in expected.values() and line != expected[removed]]
        assert run_cli("generate", "--check", "--config", config).exit_code == 0


def test_a_current_package_and_hub_are_left_alone_at_start(tmp_path: Path, changing: ChangingServer, run_cli) -> None:
    project(tmp_path, changing.url, hub=True)
    config = tmp_path / "pyproject.toml"
    assert run_cli("sync", "--config", config).exit_code == 0
    before = {path: path.stat().st_mtime_ns for path in (tmp_path / "clients").rglob("*.py")}

    watcher = Watcher(tmp_path, "--interval", "60")
    watcher.wait_for("changing: watching")
    watcher.process.send_signal(signal.SIGINT)
    code, _stdout, stderr = watcher.finish()
    assert code == 0, stderr
    assert "built" not in stderr and "hub:" not in stderr
    assert {path: path.stat().st_mtime_ns for path in (tmp_path / "clients").rglob("*.py")} == before
