"""Stdio servers, started as early as a command knows them, and the transport that talks to them.

A stdio server's own start-up (an interpreter or Node.js loading its SDK) takes about as long as
importing the MCP SDK here, so `snapshot` and `sync` start their servers before that import
(`start_early`) and the two run side by side. This module therefore imports only the standard
library until a connection opens. The transport follows the SDK's `stdio_client`: newline-delimited
JSON-RPC, the server in its own process group, and the spec's shutdown (close stdin, wait, then
terminate and kill the group).

Discovery speaks to a stdio server through `StdioSession`, JSON-RPC without the SDK (whose import
would cost more than the rest of a `sync` with a warm cache); `stdio_transport` gives the SDK's
`Client` the same pipes, for the commands that hold a session open and call tools (`watch`, the hub).
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from codegen.config import ServerConfig, server_environment
from codegen.errors import StubgenError
from codegen.runtime._stdio import (
    GRACE_SECONDS,
    LOG_LINE_CHARACTERS,
    MAX_MESSAGE_CHARACTERS,
    Lines,
    answers_one_of,
    listening_url,
    pipe_transport,
    read_refused,
    shut_down,
    signal_group,
)
from codegen.snapshot.wire import (
    CLIENT_INFO,
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LATEST_MODERN_VERSION,
    MODERN_PROTOCOL_VERSIONS,
    client_capabilities,
)

if TYPE_CHECKING:
    from mcp.shared.message import SessionMessage

INHERITED_ENVIRONMENT = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
"""What a stdio server inherits besides its own `env`, as the SDK's `stdio_client` passes on POSIX."""
INHERITED_NAMES = ", ".join(INHERITED_ENVIRONMENT[:-1]) + " and " + INHERITED_ENVIRONMENT[-1]
"""The same names as the messages and the help say them ("HOME, ..., TERM and USER")."""
FIXED_HASH_SEED = {"PYTHONHASHSEED": "0"}
"""Set for every stdio server below its own `env`: a Python server that lists a set's items (mcp-atlassian
joins its default `fields` from one) lists them in one order on every start, so its snapshot is
byte-identical and live drift reports no change that is only a new hash seed."""

_sdk_log = logging.getLogger("mcp.client.stdio")
"""The SDK's transport logger: `-v` shows its records (scrubbed), quiet runs silence every `mcp` logger."""

STRAY_LINES = 5
"""How many of the last lines a server wrote to stdout that are not JSON-RPC a session keeps."""
STRAY_CHARACTERS = LOG_LINE_CHARACTERS
"""A longer such line is kept as its length alone: it is no message, and cutting it could cut a secret
that scrubbing then would not recognise."""


@dataclass
class StrayStdout:
    """What a stdio server wrote to stdout that is not JSON-RPC, kept the one way for discovery's
    session and for the SDK's (`watch`, a hub connected from the config): a server that prints its
    error there (a banner, "installation not complete") and exits says why only in it."""

    lines: deque[str] = field(default_factory=lambda: deque(maxlen=STRAY_LINES))
    """The last such lines."""
    listening: str = ""
    """The URL one of them says the server listens on: an HTTP server never answers on stdio, and its
    later log lines push that one out of `lines`."""

    def add(self, line: str) -> None:
        self.listening = listening_url(line[:STRAY_CHARACTERS], self.listening)
        self.lines.append(line.strip() if len(line) <= STRAY_CHARACTERS else f"({len(line):,} characters)")

    def add_length(self, length: int) -> None:
        """A line too long to keep (past the transport's limit), kept as its length."""
        self.lines.append(f"({length:,} characters)")


def listening_port(pid: int) -> str:
    """`TCP port 3000 (0.0.0.0)`: the lowest port the process `pid` or a process it started listens
    on, read from Linux's `/proc`; "" where none does, or where `/proc` cannot tell. A stdio server
    that never answers and listens is an HTTP server started without its stdio option, even one
    that says nothing (lucide-icons-mcp 0.1.67), and an npx wrapper's child is the one listening."""
    sockets = {
        target[len("socket:[") : -1]
        for member in _process_tree(pid)
        for target in _descriptor_targets(member)
        if target.startswith("socket:[")
    }
    listening = []
    for table in ("tcp", "tcp6"):
        try:
            rows = [line.split() for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]]
        except OSError:
            continue
        for row in rows:
            if len(row) > 9 and row[3] == _TCP_LISTEN and row[9] in sockets:
                address, _, port = row[1].partition(":")
                listening.append((int(port, 16), _ip_address(address)))
    return "TCP port {} ({})".format(*min(listening)) if listening else ""


_TCP_LISTEN = "0A"
"""The state of a listening socket in `/proc/net/tcp`."""


def _process_tree(pid: int) -> list[int]:
    """`pid` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            with suppress(OSError, IndexError, ValueError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                children.setdefault(int(stat.rpartition(")")[2].split()[1]), []).append(int(entry))
    tree, waiting = [], [pid]
    while waiting:
        member = waiting.pop()
        tree.append(member)
        waiting.extend(children.get(member, ()))
    return tree


def _descriptor_targets(pid: int) -> list[str]:
    targets = []
    with suppress(OSError):
        for descriptor in os.listdir(f"/proc/{pid}/fd"):
            with suppress(OSError):
                targets.append(os.readlink(f"/proc/{pid}/fd/{descriptor}"))
    return targets


def _ip_address(hexadecimal: str) -> str:
    """An address as `/proc/net/tcp` writes it: the bytes of each 32-bit word in the host's order."""
    raw = bytes.fromhex(hexadecimal)
    if sys.byteorder == "little":
        raw = b"".join(raw[start : start + 4][::-1] for start in range(0, len(raw), 4))
    return socket.inet_ntop(socket.AF_INET if len(raw) == 4 else socket.AF_INET6, raw)


@dataclass
class StdioProcess:
    """A started server: its process, with pipes on stdin and stdout, and the file its stderr goes to."""

    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: str | None
    process: subprocess.Popen[bytes]
    stderr_log: TextIO
    sent: bytes | None = None
    """The handshake's first request, written as the server started (`start_early`), until the
    session that would send it finds it sent."""


def search_path(env: dict[str, str]) -> str | None:
    return env.get("PATH", os.environ.get("PATH"))


def program_path(server: ServerConfig) -> str:
    """The server's command as its started process reads it: a relative path with a folder in it
    (`./run.sh`) from the server's `cwd`, not from where mcp-stubgen runs."""
    assert server.command is not None
    command = server.command
    if server.cwd is not None and os.path.dirname(command) and not os.path.isabs(command):
        return os.path.join(server.cwd, command)
    return command


def can_start(server: ServerConfig, env: dict[str, str]) -> bool:
    """Whether the server's command names a program; a `cwd` that is no folder is left for the start
    itself to report, naming the `cwd`."""
    if server.cwd is not None and not server.cwd.is_dir():
        return True
    return shutil.which(program_path(server), path=search_path(env)) is not None


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
        env=inherited | FIXED_HASH_SEED | env,
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
        if not can_start(server, env):
            continue
        stderr_log = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115 (the session closes it)
        try:
            started = start(server, env, stderr_log)
        except (OSError, ValueError):
            stderr_log.close()
            continue
        _started[server.name] = started
        first = first_request(server)
        with suppress(OSError):  # a server that is gone already is reported by its session
            assert started.process.stdin is not None
            started.process.stdin.write(first)
            started.sent = first


def first_request(server: ServerConfig) -> bytes:
    """The line discovery's handshake sends first, as `StdioSession` writes it: `initialize` for
    `protocol = "legacy"` or a dated pin, else `server/discover`. `start_early` writes it as the server
    starts, so a server that exits when no request comes soon after its start (biomcp's 5 s) is not
    kept waiting while the command loads the rest of itself."""
    capabilities = client_capabilities(server.client_capabilities)
    protocol = server.protocol
    message: dict[str, Any]
    if protocol == "legacy" or protocol in HANDSHAKE_PROTOCOL_VERSIONS:
        version = LATEST_HANDSHAKE_VERSION if protocol == "legacy" else protocol
        params = {"protocolVersion": version, "capabilities": capabilities, "clientInfo": CLIENT_INFO}
        message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
    else:
        version = protocol if protocol in MODERN_PROTOCOL_VERSIONS else LATEST_MODERN_VERSION
        meta = _modern_meta(version, CLIENT_INFO, capabilities)
        message = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}
    return _line(message, "replace")


def _modern_meta(version: str, client_info: dict[str, Any], capabilities: dict[str, Any]) -> dict[str, Any]:
    """The `_meta` envelope of every 2026-07-28 request, as the SDK stamps it."""
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": client_info,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }


def _line(message: dict[str, Any], errors: str) -> bytes:
    """One JSON-RPC message as the line written to a server's stdin."""
    import json

    text = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
    return text.encode("utf-8", errors)


def claim(server: ServerConfig, env: dict[str, str], *, by_session: bool = True) -> StdioProcess | None:
    """The process `start_early` started for `server`, if it was started as `server` now asks and
    was sent the first request the claimant would send: a `StdioSession`'s (`first_request`); the
    SDK's `Client` (`by_session=False`) sends its own, so it takes only a server sent nothing."""
    started = _started.pop(server.name, None)
    if started is None:
        return None
    cwd = str(server.cwd) if server.cwd is not None else None
    expected = first_request(server) if by_session else None
    if (started.argv, started.env, started.cwd) == ((server.command, *server.args), env, cwd) and started.sent in (
        None,
        expected,
    ):
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
    signal_group(started.process, signal.SIGKILL if sys.platform != "win32" else signal.SIGTERM)
    with suppress(OSError, subprocess.TimeoutExpired):
        started.process.wait(GRACE_SECONDS)
    for pipe in (started.process.stdout, started.stderr_log):
        with suppress(OSError):
            if pipe is not None:
                pipe.close()


@asynccontextmanager
async def stdio_transport(
    started: StdioProcess,
    unparsed: Callable[[str | bytes, ValueError], None],
    errors: str = "replace",
    heard: Callable[[], None] = lambda: None,
) -> AsyncIterator[Any]:
    """The session's streams over a started server's pipes (what the SDK's `stdio_client` yields),
    and the server stopped on the way out, however the session ended (`_stdio.pipe_transport`, the
    transport generated clients use). A line that is not JSON-RPC is told to `unparsed` and reaches
    the session as the exception it raised; `heard` is told of each line that is one."""
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    def parse(line: str | bytes) -> SessionMessage | Exception:
        try:
            message = SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
        except ValueError as error:
            unparsed(line, error)
            return error
        heard()
        return message

    def overlong(length: int) -> None:
        _sdk_log.error(
            "A message from the server of %d characters is past the %d one may hold; left out",
            length,
            MAX_MESSAGE_CHARACTERS,
        )

    try:
        async with pipe_transport(started.process, parse, errors=errors, overlong=overlong) as streams:
            yield streams
    finally:
        started.stderr_log.flush()


class Unreadable(Exception):
    """The server sent a line the SDK's JSON parser refuses for a reason worth naming (nested too
    deeply, an integer too long); the session ends, as the SDK's would."""

    def __init__(self, reason: str, line: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


_UNREADABLE_REASONS = ("recursion limit exceeded", "number out of range")
"""What pydantic-core's JSON parser (the SDK's) says of the lines that end a session."""

NOT_UTF_8 = "not UTF-8"
"""An `Unreadable` answer's reason when its line is not UTF-8 (its `line` then decoded with
surrogateescape, each stray byte a character U+DC80-U+DCFF)."""


class StdioSession:
    """JSON-RPC 2.0 over a started server's pipes, for discovery: requests matched to answers by id,
    the server's own requests answered as the SDK's `Client` answers them (given discovery's
    handlers), its notifications and unreadable lines skipped. After `use_modern(version)` every
    request carries the 2026-07-28 `_meta` envelope, as the SDK stamps it.

    Lines are parsed by pydantic-core, the SDK's parser, so a line fails here exactly when it fails
    there. Only the standard library, anyio and pydantic-core are imported."""

    def __init__(
        self,
        started: StdioProcess,
        capabilities: dict[str, Any],
        errors: str = "replace",
        left_out: Callable[[str | bytes, str], None] | None = None,
    ) -> None:
        self.started = started
        self.left_out = left_out
        """Told each line the SDK's parser refuses (and why) that answers no request in flight, and
        so is skipped."""
        self.capabilities = capabilities
        self._errors = errors
        self._pending: dict[int, Any] = {}
        self._next_id = 1
        self._ended: BaseException | None = None
        self._meta: dict[str, Any] | None = None
        self._stdin: Any = None
        self._stdout_pipe: Any = None
        self.answered = False
        """Whether the server has answered a request it was sent (a server that never answers
        `server/discover` is started again for the legacy handshake; an answer carrying an id no
        request had is no answer: effect-mcp 0.1.16 answers the probe with its error code as the id)."""
        self.heard = False
        """Whether the server has written any JSON-RPC message to stdout: one that has is a stdio
        server, whatever HTTP URL it names on the side."""
        self.stray = StrayStdout()

    def use_modern(self, version: str, client_info: dict[str, Any]) -> None:
        self._meta = _modern_meta(version, client_info, self.capabilities)

    def use_legacy(self) -> None:
        self._meta = None

    async def request(self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None) -> Any:
        """The result of `method`; raises `RemoteError` for an error answer or the connection ending,
        `TimeoutError` after `timeout` seconds, `Unreadable` when the session ended on such a line."""
        import asyncio

        from codegen.snapshot.deadlines import deadline
        from codegen.snapshot.wire import ConnectionClosed

        if self._meta is not None and method not in ("initialize",):
            params = {**(params or {}), "_meta": self._meta}
        request_id = self._next_id
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params:
            message["params"] = params
        if self._ended is not None:
            raise self._ended
        answer = asyncio.get_running_loop().create_future()
        self._pending[request_id] = answer
        try:
            if not self._write(message):
                raise ConnectionClosed()
            with deadline(timeout):
                return await answer
        finally:
            self._pending.pop(request_id, None)

    def notify(self, method: str) -> None:
        self._write({"jsonrpc": "2.0", "method": method})

    def _write(self, message: dict[str, Any]) -> bool:
        """Queue a line for the server; False once its stdin is gone. The pipe's transport buffers
        what the server has not read yet, so a server that stops reading never blocks the loop."""
        if self._stdin is None or self._stdin.is_closing():
            return False
        line = _line(message, self._errors)
        if self.started.sent is not None and message.get("id") == 1 and "method" in message:
            # the handshake's first request: written as the server started, or now
            sent, self.started.sent = self.started.sent, None
            if line == sent:
                return True
        try:
            self._stdin.write(line)
        except (OSError, RuntimeError):
            return False
        return True

    def _end(self, error: BaseException) -> None:
        """No answer will come: every waiting request fails with `error`, as will every later one."""
        if self._ended is None:
            self._ended = error
        for answer in self._pending.values():
            if not answer.done():
                answer.set_exception(error)

    def _received(self, line: str | bytes) -> None:
        from pydantic_core import from_json

        if isinstance(line, bytes):
            self._refuse_undecodable(line)
            return
        if not line.strip():
            return
        try:
            message = from_json(line)
        except ValueError as unparsed:
            reason = next((reason for reason in _UNREADABLE_REASONS if reason in str(unparsed)), None)
            if reason is not None and answers_one_of(read_refused(line), self._pending):
                self._end(Unreadable(reason, line))  # the answer listed, or may be: the SDK's session ends
            elif reason is not None or not self._refuse_unreadable_answer(line, unparsed):
                if reason is None:
                    shown = line if len(line) <= 200 else line[:200] + "..."
                    self.stray.add(line)
                    _sdk_log.error("Failed to parse JSONRPC message from server: %s: %r", unparsed, shown)
                if self.left_out is not None:
                    self.left_out(line, str(unparsed).splitlines()[0])
            return
        if type(message) is list:
            self._refuse_batch(message)
            return
        if type(message) is not dict or message.get("jsonrpc") != "2.0":
            return
        self.heard = True
        if "method" in message:
            if type(message["method"]) is str and type(message.get("id")) in (int, str):
                self._answer(message["id"], message["method"])
            return  # a notification: discovery has no use for any
        request_id = message.get("id")
        answer = self._pending.get(request_id) if type(request_id) is int else None
        if answer is None or answer.done():
            return
        self.answered = True
        from codegen.snapshot.wire import NEITHER_RESULT_NOR_ERROR, NOT_AN_ANSWER, RemoteError

        result, refusal = message.get("result"), message.get("error")
        if type(result) is dict and "error" not in message:
            answer.set_result(result)
        elif type(refusal) is dict and type(refusal.get("code")) is int and type(refusal.get("message")) is str:
            answer.set_exception(RemoteError(refusal["code"], refusal["message"], refusal.get("data")))
        else:  # the SDK drops such an answer, and its request would wait out its timeout
            answer.set_exception(RemoteError(NOT_AN_ANSWER, NEITHER_RESULT_NOR_ERROR))

    def _refuse_batch(self, batch: list[Any]) -> None:
        """Fail each request a JSON-RPC batch answers (MCP has not allowed batches since 2025-06-18,
        and the SDK drops them): its request would wait out its timeout, as if the server were slow."""
        from codegen.runtime._http import BATCH
        from codegen.snapshot.wire import NOT_AN_ANSWER, RemoteError

        for item in batch:
            request_id = item.get("id") if type(item) is dict else None
            answer = self._pending.get(request_id) if type(request_id) is int else None
            if answer is not None and not answer.done():
                self.answered = True
                answer.set_exception(RemoteError(NOT_AN_ANSWER, BATCH))

    def _refuse_undecodable(self, line: bytes) -> None:
        """Fail the request a line that is not UTF-8 answers, as the generated clients' transport does:
        read with U+FFFD in place of its bytes, a snapshot recorded a catalog those clients cannot list."""
        import json

        text = line.decode("utf-8", "surrogateescape")
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):
            message = None
        request_id = message.get("id") if type(message) is dict else None
        answer = self._pending.get(request_id) if type(request_id) is int else None
        if answer is not None and not answer.done():
            answer.set_exception(Unreadable(NOT_UTF_8, text))
            return
        self.stray.add(line.decode("utf-8", "replace"))
        if self.left_out is not None:
            self.left_out(line, NOT_UTF_8)

    def _refuse_unreadable_answer(self, line: str, unparsed: ValueError) -> bool:
        """Fail the request a line answers when the SDK's parser refuses it but Python's reads it (a
        string holding a lone UTF-16 surrogate, half an emoji a JavaScript server cut in two): the SDK
        drops such a line, and its request would wait out its timeout, as if the server were slow."""
        import json

        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return False
        request_id = message.get("id") if type(message) is dict else None
        answer = self._pending.get(request_id) if type(request_id) is int else None
        if answer is None or answer.done():
            return False
        answer.set_exception(Unreadable(str(unparsed).splitlines()[0], line))
        return True

    def _answer(self, request_id: Any, method: str) -> None:
        """What the SDK's `Client` answers, with discovery's handlers for the declared capabilities
        (`discovery._declared_capabilities`) and its defaults for the rest."""
        from codegen.snapshot.wire import INVALID_REQUEST, METHOD_NOT_FOUND

        declared = self.capabilities
        result: dict[str, Any] | None = None
        if method == "ping":
            result = {}
        elif method == "roots/list" and "roots" in declared:
            result = {"roots": []}
        elif method == "roots/list":
            refusal = (INVALID_REQUEST, "List roots not supported")
        elif method == "sampling/createMessage":
            sampling = "mcp-stubgen only lists the catalog; it does not sample"
            refusal = (INVALID_REQUEST, sampling if "sampling" in declared else "Sampling not supported")
        elif method == "elicitation/create":
            elicitation = "mcp-stubgen only lists the catalog; it asks no user"
            refusal = (INVALID_REQUEST, elicitation if "elicitation" in declared else "Elicitation not supported")
        else:
            refusal = (METHOD_NOT_FOUND, "Method not found")
        if result is not None:
            self._write({"jsonrpc": "2.0", "id": request_id, "result": result})
        else:
            self._write({"jsonrpc": "2.0", "id": request_id, "error": {"code": refusal[0], "message": refusal[1]}})

    async def _read(self, stdout: Any) -> None:
        from codegen.snapshot.wire import ConnectionClosed

        lines = Lines(warn=self.stray.add_length)
        with suppress(OSError):
            while chunk := await stdout.read(1 << 16):
                for line in lines.feed(chunk):
                    self._received(line)
        self._end(ConnectionClosed())

    async def close_input(self) -> None:
        """Begin the spec's shutdown: close the server's stdin, so it exits while the caller goes on
        (the pipe closes on the loop's next turn, which this waits for: the caller may not yield)."""
        import anyio

        if self._stdin is not None and self._stdin.get_write_buffer_size() == 0:
            self._stdin.close()
            await anyio.sleep(0)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[StdioSession]:
        """The session over the server's pipes; on the way out, however the session ended, the
        server is stopped (stdin closed, then terminated and killed if it lingers)."""
        import asyncio

        import anyio

        process = self.started.process
        assert process.stdin is not None and process.stdout is not None
        loop = asyncio.get_running_loop()
        stdout = asyncio.StreamReader()
        self._stdout_pipe, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stdout), process.stdout
        )
        self._stdin, _ = await loop.connect_write_pipe(asyncio.Protocol, process.stdin)
        reader = asyncio.ensure_future(self._read(stdout))
        try:
            yield self
        finally:
            with anyio.CancelScope(shield=True):
                await self.close_input()
                stdin_closed = self._stdin.is_closing()
                if not stdin_closed:  # the server is not reading: closing its stdin tells it nothing
                    self._stdin.abort()
                await shut_down(process, stdin_closed)
                reader.cancel()
                with suppress(BaseException):
                    await reader
                self._stdout_pipe.close()
                self.started.stderr_log.flush()
