"""Stdio servers, started as early as a command knows them, and the transport that talks to them.

A stdio server's own start-up (an interpreter or Node.js loading its SDK) takes about as long as
importing the MCP SDK here, so `snapshot` and `sync` start their servers before that import
(`start_early`) and the two run side by side. This module therefore imports only the standard
library until a connection opens. The transport follows the SDK's `stdio_client`: newline-delimited
JSON-RPC, the server in its own process group, and the spec's shutdown (close stdin, wait, then
terminate and kill the group).
"""

from __future__ import annotations

import atexit
import codecs
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, TextIO

from codegen.config import ServerConfig, server_environment
from codegen.errors import StubgenError

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

INHERITED_ENVIRONMENT = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
"""What a stdio server inherits besides its own `env`, as the SDK's `stdio_client` passes on POSIX."""

_sdk_log = logging.getLogger("mcp.client.stdio")
"""The SDK's transport logger: `-v` shows its records (scrubbed), quiet runs silence every `mcp` logger."""

GRACE_SECONDS = 2.0
"""How long a server may take to exit once its stdin is closed, and again after SIGTERM."""


@dataclass
class StdioProcess:
    """A started server: its process, with pipes on stdin and stdout, and the file its stderr goes to."""

    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: str | None
    process: subprocess.Popen[bytes]
    stderr_log: TextIO


def search_path(env: dict[str, str]) -> str | None:
    return env.get("PATH", os.environ.get("PATH"))


def start(server: ServerConfig, env: dict[str, str], stderr_log: TextIO) -> StdioProcess:
    """Start `server` (a stdio one) with `env` over the inherited variables; raises `OSError` or
    `ValueError` (a NUL in an argument) when it cannot be started."""
    assert server.command is not None
    inherited = {key: value for key in INHERITED_ENVIRONMENT if (value := os.environ.get(key)) is not None}
    inherited = {key: value for key, value in inherited.items() if not value.startswith("()")}  # shell functions
    argv = (server.command, *server.args)
    cwd = str(server.cwd) if server.cwd is not None else None
    process = subprocess.Popen(
        argv,
        bufsize=0,  # unbuffered: closing stdin never waits on a lock a blocked write holds
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr_log,
        env=inherited | env,
        cwd=cwd,
        start_new_session=sys.platform != "win32",
    )
    return StdioProcess(argv, env, cwd, process, stderr_log)


_started: dict[str, StdioProcess] = {}
"""Servers `start_early` started that no connection has claimed yet, by server name."""


def start_early(servers: list[ServerConfig]) -> None:
    """Start the stdio servers now, for `connect` to claim once the SDK is imported. Best effort: a
    server that cannot be started here (a missing program, an unset variable) is left for `connect`,
    which reports why; one never claimed is stopped when the command exits. Not on Windows, where
    `connect` starts each server through the SDK."""
    if sys.platform == "win32":
        return
    if not _started:
        atexit.register(_stop_unclaimed)
    for server in servers:
        if server.command is None or server.name in _started:
            continue
        try:
            env = server_environment(server)
        except StubgenError:
            continue
        if shutil.which(server.command, path=search_path(env)) is None:
            continue
        stderr_log = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115 (the session closes it)
        try:
            _started[server.name] = start(server, env, stderr_log)
        except (OSError, ValueError):
            stderr_log.close()


def claim(server: ServerConfig, env: dict[str, str]) -> StdioProcess | None:
    """The process `start_early` started for `server`, if it was started as `server` now asks."""
    started = _started.pop(server.name, None)
    if started is None:
        return None
    cwd = str(server.cwd) if server.cwd is not None else None
    if (started.argv, started.env, started.cwd) == ((server.command, *server.args), env, cwd):
        return started
    _stop_now(started)
    return None


def _stop_unclaimed() -> None:
    while _started:
        _stop_now(_started.popitem()[1])


def _stop_now(started: StdioProcess) -> None:
    """Stop a server no session uses: it is told by its stdin closing, and its group is killed."""
    with suppress(OSError):
        if started.process.stdin is not None:
            started.process.stdin.close()
    _signal_group(started.process, signal.SIGKILL if sys.platform != "win32" else signal.SIGTERM)
    with suppress(OSError, subprocess.TimeoutExpired):
        started.process.wait(GRACE_SECONDS)
    for pipe in (started.process.stdout, started.stderr_log):
        with suppress(OSError):
            if pipe is not None:
                pipe.close()


def _signal_group(process: subprocess.Popen[bytes], signal_number: int) -> None:
    with suppress(OSError):
        if sys.platform == "win32":
            process.kill()
        else:
            os.killpg(process.pid, signal_number)


@asynccontextmanager
async def stdio_transport(started: StdioProcess, errors: str = "replace") -> AsyncIterator[Any]:
    """The session's streams over a started server's pipes (what the SDK's `stdio_client` yields),
    and the server stopped on the way out, however the session ended."""
    import asyncio

    import anyio
    import anyio.to_thread
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    process = started.process
    assert process.stdin is not None and process.stdout is not None
    stdin: IO[bytes] = process.stdin
    stdout = asyncio.StreamReader()
    pipe, _ = await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(stdout), process.stdout
    )
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()

    def parse(line: str) -> SessionMessage | Exception:
        try:
            return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
        except ValueError as error:
            _sdk_log.exception("Failed to parse JSONRPC message from server")  # as the SDK's own transport logs it
            return error

    async def stdout_reader() -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors)
        buffer = ""
        try:
            async with read_writer:
                while chunk := await stdout.read(1 << 16):
                    lines = (buffer + decoder.decode(chunk)).split("\n")
                    buffer = lines.pop()
                    for line in lines:
                        await read_writer.send(parse(line))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the session is gone
        with anyio.CancelScope(shield=True), suppress(OSError):
            while await stdout.read(1 << 16):  # a server still writing must not block on a full pipe
                pass

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[stdin.write(view) or 0 :]

    async def stdin_writer() -> None:
        try:
            async with write_reader:
                async for message in write_reader:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await anyio.to_thread.run_sync(write, text.encode("utf-8", errors), abandon_on_cancel=True)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError, ValueError):
            await read_writer.aclose()  # the server stopped reading: the session sees the connection end
        finally:
            writer_done.set()

    async def stop() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(0.5):
            await writer_done.wait()
        if writer_done.is_set():  # else the server is not reading: closing its stdin tells it nothing
            with suppress(OSError, ValueError):
                stdin.close()
        if not writer_done.is_set() or not await exited(GRACE_SECONDS):
            _signal_group(process, signal.SIGTERM)
            if not await exited(GRACE_SECONDS):
                _signal_group(process, signal.SIGKILL)
                await exited(GRACE_SECONDS)
        pipe.close()
        with suppress(OSError, ValueError):
            stdin.close()
        for stream in (read_stream, write_stream, read_writer, write_reader):
            await stream.aclose()
        started.stderr_log.flush()

    async def exited(seconds: float) -> bool:
        with anyio.move_on_after(seconds):
            while process.poll() is None:
                await anyio.sleep(0.01)
            return True
        return False

    async with anyio.create_task_group() as group:
        group.start_soon(stdout_reader)
        group.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await stop()
            group.cancel_scope.cancel()
