"""A generated client's `connect` (and `connect_sync`) gives up on a server that does not complete the
handshake within `connect_timeout`, over real stdio and Streamable HTTP on 127.0.0.1: before, it waited
without end (still waiting after 60 s for an HTTP server started as a stdio one, found by the
`founddefects3` round). A stdio server that said it listens on an HTTP URL is named by that URL."""

from __future__ import annotations

import fcntl
import importlib
import os
import pty
import re
import socket
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from mcp import StdioServerParameters

from tests.conftest import EXAMPLE_SERVER, PYTHON, SERVERS, forget_generated, import_generated, read_terminal
from tests.ports import free_port
from tests.regen_goldens import OUTPUT

TIMEOUT = 1.5
"""The tests' `connect_timeout`: a third of it (the quiet after a URL) is 0.5 s."""
SLACK = 2.5
"""Seconds past the bound a failure may take: the tick of the watch, the server's shutdown."""


@pytest.fixture
def weather(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The golden weather package, imported afresh, its runtime stopping a server that does not exit
    on its closed stdin after 0.2 s instead of 2 (the shutdown's grace is not what is tested)."""
    forget_generated(OUTPUT)
    try:
        package = import_generated(OUTPUT, "weather")
        monkeypatch.setattr(importlib.import_module("clients._mcp_runtime._stdio"), "GRACE_SECONDS", 0.2)
        yield package
    finally:
        forget_generated(OUTPUT)


def http_server_started_as_stdio(tmp_path: Path) -> tuple[StdioServerParameters, str]:
    """An HTTP-only server started as a stdio one: it says on stderr "Server listening on URL" and
    reads nothing on stdin."""
    port = free_port()
    args = [str(SERVERS / "modern_http_server.py"), str(port), "--log", str(tmp_path / "requests.log"), "--announce"]
    return StdioServerParameters(command=PYTHON, args=args), f"http://127.0.0.1:{port}/mcp"


def serves_http_error(url: str) -> str:
    return (
        rf"^server 'weather': no answer on stdout 0\.5s \(a third of connect_timeout\) after it said it listens "
        rf"on {re.escape(url)}, so it serves HTTP, not stdio: start it in its stdio mode \(often a --stdio or "
        rf'--transport stdio option\), or connect to that URL instead: connect\("{re.escape(url)}"\)$'
    )


async def test_a_stdio_server_that_serves_http_fails_the_async_connect_naming_its_url(
    weather: ModuleType, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    server, url = http_server_started_as_stdio(tmp_path)
    started = time.monotonic()
    with pytest.raises(weather.ServerError) as raised:
        async with weather.WeatherClient.connect(server, connect_timeout=TIMEOUT):
            pytest.fail("connected to a server that never answered")
    elapsed = time.monotonic() - started
    assert isinstance(raised.value, TimeoutError)
    assert re.match(serves_http_error(url), str(raised.value)), str(raised.value)
    assert (raised.value.code, raised.value.listening, raised.value.timeout) == (-32001, url, TIMEOUT)
    assert elapsed < TIMEOUT + SLACK, f"{elapsed:.1f}s"
    # its stderr, read on the side for the URL, still reached this process's stderr
    assert f"Server listening on {url}\n" in capfd.readouterr().err


def test_a_stdio_server_that_serves_http_fails_the_sync_connect_naming_its_url(
    weather: ModuleType, tmp_path: Path
) -> None:
    server, url = http_server_started_as_stdio(tmp_path)
    started = time.monotonic()
    with (
        pytest.raises(weather.ServerError, match=serves_http_error(url)),
        weather.WeatherClient.connect_sync(server, connect_timeout=TIMEOUT),
    ):
        pytest.fail("connected to a server that never answered")
    assert time.monotonic() - started < TIMEOUT + SLACK


async def test_a_url_that_is_no_mcp_endpoint_is_offered_only_if_it_is_one(weather: ModuleType) -> None:
    """mcp-compressor 0.38.2 in `--cli-mode` is no MCP server: it names the URL of a command bridge
    that answers 404, and `connect` said to connect to it, as `snapshot` said to snapshot it."""
    server = StdioServerParameters(command=PYTHON, args=[str(SERVERS / "raw_server.py"), "--mode", "command-bridge"])
    with pytest.raises(weather.ServerError) as raised:
        async with weather.WeatherClient.connect(server, connect_timeout=TIMEOUT):
            pytest.fail("connected to a program that is no MCP server")
    url = raised.value.listening
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url), str(raised.value)
    assert str(raised.value).endswith(
        f"so it serves HTTP, not stdio: start it in its stdio mode (often a --stdio or --transport stdio option), "
        f"or if that URL is its MCP endpoint (mcp-stubgen cannot tell: such URLs usually end in /mcp), connect to "
        f'that URL instead: connect("{url}")'
    ), str(raised.value)


async def test_a_url_said_on_stdout_names_the_server_too_and_its_stderr_passes_byte_for_byte(
    weather: ModuleType, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    """The URL may come on stdout, as a line that is not JSON-RPC (ASP.NET's "Now listening on:"); the
    server's stderr, read on the side, reaches this process's as the bytes it wrote, not UTF-8 ones too."""
    said = (
        "import sys, time; sys.stderr.buffer.write(b'caf\\xe9 \\x1b[31mred\\x1b[0m\\n'); sys.stderr.flush(); "
        "print('Now listening on: http://localhost:5000', flush=True); time.sleep(60)"
    )
    server = StdioServerParameters(command=sys.executable, args=["-c", said])
    with pytest.raises(weather.ServerError) as raised:
        async with weather.WeatherClient.connect(server, connect_timeout=TIMEOUT):
            pytest.fail("connected to a server that never answered")
    assert raised.value.listening == "http://localhost:5000"
    assert str(raised.value).endswith('connect to that URL instead: connect("http://localhost:5000")')
    assert b"caf\xe9 \x1b[31mred\x1b[0m\n" in capfdbinary.readouterr().err


async def test_a_silent_stdio_command_fails_at_connect_timeout(weather: ModuleType) -> None:
    server = StdioServerParameters(command=sys.executable, args=["-c", "import time; time.sleep(60)"])
    started = time.monotonic()
    with pytest.raises(TimeoutError) as raised:
        async with weather.WeatherClient.connect(server, connect_timeout=TIMEOUT):
            pytest.fail("connected to a server that never answered")
    elapsed = time.monotonic() - started
    assert str(raised.value) == (
        "server 'weather': no answer to the handshake within 1.5s (connect_timeout); check that the command "
        "starts an MCP server that speaks stdio (its stderr may say why not), or pass a larger connect_timeout= "
        "if it only starts slowly"
    )
    assert TIMEOUT <= elapsed < TIMEOUT + SLACK, f"{elapsed:.1f}s"


@pytest.fixture
def mute_http_url() -> Iterator[str]:
    """A URL on 127.0.0.1 whose server takes every connection and reads the request, and never answers."""
    listener = socket.create_server(("127.0.0.1", free_port()))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # closed: the test is over
                return
            held.append(connection)

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    finally:
        listener.close()
        for connection in held:
            connection.close()


async def test_an_http_server_that_never_answers_fails_the_async_and_sync_connect(
    weather: ModuleType, mute_http_url: str
) -> None:
    quick = 0.75  # no URL to watch for: the whole wait, twice
    expected = (
        f"server 'weather': no answer to the handshake within 0.75s (connect_timeout); check that {mute_http_url} "
        "is the server's MCP endpoint and that the server is up, or pass a larger connect_timeout= if it only "
        "starts slowly"
    )
    started = time.monotonic()
    with pytest.raises(weather.ServerError) as raised:
        async with weather.WeatherClient.connect(mute_http_url, connect_timeout=quick):
            pytest.fail("connected to a server that never answered")
    assert str(raised.value) == expected
    assert time.monotonic() - started < quick + SLACK
    started = time.monotonic()
    with (
        pytest.raises(TimeoutError, match=re.escape(expected)),
        weather.WeatherClient.connect_sync(mute_http_url, connect_timeout=quick),
    ):
        pytest.fail("connected to a server that never answered")
    assert time.monotonic() - started < quick + SLACK


async def test_a_server_that_starts_slowly_within_connect_timeout_connects(weather: ModuleType) -> None:
    """A second of start-up, then the weather server; and it says on stderr that it listens on a URL
    (as a stdio server with an OAuth callback does), which does not end its handshake early: it
    answers within the quiet a URL allows. A server connects with no deadline too (`None`)."""
    slow_start = (
        "import runpy, sys, time; time.sleep(1); "
        "print('callback listening on http://127.0.0.1:9/cb', file=sys.stderr, flush=True); "
        f"sys.argv = [{str(EXAMPLE_SERVER)!r}]; runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    server = StdioServerParameters(command=PYTHON, args=["-c", slow_start])
    async with weather.WeatherClient.connect(server, connect_timeout=20) as client:
        assert await client.celsius_to_fahrenheit(celsius=100) == 212
    plain = StdioServerParameters(command=PYTHON, args=[str(EXAMPLE_SERVER)])
    with weather.WeatherClient.connect_sync(plain, connect_timeout=None) as sync_client:
        assert sync_client.celsius_to_fahrenheit(celsius=0) == 32


@pytest.mark.parametrize("value", [0, -1, "30", True, float("nan")])
def test_a_connect_timeout_that_is_no_positive_number_is_refused_before_anything_starts(
    weather: ModuleType, value: object
) -> None:
    server = StdioServerParameters(command=sys.executable, args=["-c", "raise SystemExit('started')"])
    with pytest.raises(ValueError, match=r"^weather: connect_timeout is a number of seconds above 0, or None"):
        weather.WeatherClient.connect(server, connect_timeout=value)


def test_on_a_terminal_the_server_still_gets_a_terminal_and_its_url_is_read(tmp_path: Path) -> None:
    """A client whose stderr is a terminal: the server's stderr is a terminal too (of the same size),
    its bytes reach the client's terminal as written, and the URL it names there is read, so the wait
    ends a third of `connect_timeout` after it (before, a terminal was left to the server unread and
    the wait was the whole `connect_timeout`, 6 s here)."""
    said = (
        "import os, sys, time; "
        "size = os.get_terminal_size(2); "
        "os.write(2, f'tty={os.isatty(2)} size={size.columns}x{size.lines}\\n'.encode()); "
        "os.write(2, b'\\x1b[32mServer listening on http://127.0.0.1:9/mcp\\x1b[0m\\n'); time.sleep(60)"
    )
    client = (
        "import asyncio, sys, time\n"
        "from mcp import StdioServerParameters\n"
        "from clients.weather import WeatherClient, ServerError\n"
        f"server = StdioServerParameters(command=sys.executable, args=['-c', {said!r}])\n"
        "async def main() -> None:\n"
        "    started = time.monotonic()\n"
        "    try:\n"
        "        async with WeatherClient.connect(server, connect_timeout=6):\n"
        "            print('connected')\n"
        "    except ServerError as error:\n"
        "        print(f'listening={error.listening} after={time.monotonic() - started:.1f}')\n"
        "asyncio.run(main())\n"
    )
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 111, 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-c", client],
        stdout=subprocess.PIPE,
        stderr=follower,
        env={**os.environ, "PYTHONPATH": str(OUTPUT.parent)},
        cwd=tmp_path,
    )
    os.close(follower)
    terminal = read_terminal(leader)  # until the client and its server exited
    out, _ = process.communicate(timeout=30)
    listening, after = out.decode().strip().removeprefix("listening=").split(" after=")
    assert listening == "http://127.0.0.1:9/mcp"
    assert float(after) < 6, f"waited {after}s, the whole connect_timeout"
    # written through the terminal's line discipline once: each newline made "\r\n" by the client's terminal alone
    assert b"tty=True size=111x33\r\n" in terminal, terminal
    assert b"\x1b[32mServer listening on http://127.0.0.1:9/mcp\x1b[0m\r\n" in terminal, terminal


@pytest.mark.parametrize(
    "line",
    [
        "\x1b[32mServer listening on http://127.0.0.1:3000/mcp\x1b[0m",  # coloured, as on a terminal
        "INFO: Uvicorn running on \x1b[1mhttp://127.0.0.1:3000/mcp\x1b[0m (Press CTRL+C to quit)",
        "listening on http://127.0.0.1:3000/mcp\x07",
        "listening on \x1b]8;;http://127.0.0.1:3000/mcp\x1b\\http://127.0.0.1:3000/mcp\x1b]8;;\x1b\\",  # a link
    ],
)
def test_a_url_in_a_coloured_log_line_ends_before_the_escape(line: str) -> None:
    """A URL ended at whitespace or punctuation only: a coloured line's `\\x1b[0m` was read as part of
    it, and one coloured from its start (Uvicorn's, on a terminal) was not read at all."""
    from codegen.runtime._stdio import listening_url

    assert listening_url(line) == "http://127.0.0.1:3000/mcp"
