"""The stdio transport of generated clients and hubs, which mcp-stubgen's own sessions share.

It speaks as the SDK's `stdio_client` does: newline-delimited JSON-RPC, the server in a process
group of its own, the spec's shutdown (stdin closed, a grace period, then SIGTERM and SIGKILL to the
group). Three things differ where a user meets them: a message is read in time linear in its
length (the SDK joins the line read so far with every 64 KiB it reads: a 30 MiB answer took 3 s, here
half a second), a line that is not the server's encoding fails only the request it answers (the
SDK's ended the session), a line past 64 MiB is never held whole and fails only the request it
answers (the SDK's held it whatever its size), and a stdout line that is not JSON-RPC is one warning
naming the server rather than a logged traceback. On Windows, and under an event loop that is not asyncio's, the
SDK's own transport serves.

This file is copied verbatim into each output folder's runtime (`_mcp_runtime/`). It imports only
the standard library here; `anyio` and `mcp` load when a connection opens.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.message import SessionMessage

GRACE_SECONDS = 2.0
"""How long a server may take to exit once its stdin is closed, and again after SIGTERM."""
MAX_MESSAGE_CHARACTERS = 64 << 20
"""The longest line (one JSON-RPC message) a server may write, as a Streamable HTTP answer may hold
64 MiB (`_http.MAX_ANSWER_BYTES`): past it the line is not kept, and the request it answers fails."""
_CHUNK = 1 << 16
_EDGE = 4096
"""How much of an overlong line's start and end is kept: enough to tell an answer from a request and
to read the id an answer carries (first, as the Python SDK writes it; last, as the TypeScript one)."""
_PARSE_ERROR = -32700
_LAST_ID = re.compile(
    r'(?<!\\)"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*\Z'
)
"""An object's last member `"id"` (or the id then `"jsonrpc"`), closing the line: the line's own id."""
_UNDECODED = re.compile("[\udc80-\udcff]")
"""A byte `Lines` could not decode, as `surrogateescape` keeps it."""

LISTENING = re.compile(
    r"\b(?:listening on|running on|available at):?\s+(https?://[^\s,;'\"\x00-\x1f\x7f]+)",
    re.IGNORECASE,
)
"""What an HTTP server writes as it starts ("Now listening on: http://localhost:5000", ASP.NET's; "MCP
endpoint available at http://localhost:8080/mcp", financial-modeling-prep-mcp-server 2.5.3's): a
server started where a stdio one was expected (officeagent-mcp 1.2.0 without `--stdio`), or one that
serves HTTP alone. Read without the escapes a server colours its log with (Uvicorn's bold URL on a
terminal), and ending at any other control character."""
_TERMINAL_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?)")
"""A terminal's control sequence (CSI: colours, cursor moves) or operating system command (OSC:
a window title, a link)."""
MCP_PATHS = ("/mcp", "/sse")
"""The paths an MCP endpoint is served at by convention: a URL ending in one is the endpoint, where a
server names a health or home page first."""
HTTP_QUIET_SHARE = 1 / 3
"""The share of `connect_timeout` a stdio server that named a URL it listens on may then stay silent
on stdout before its handshake's wait ends (`http_quiet_ended`): 10 s of the default 30. Stdio
servers that also serve HTTP on the side (an OAuth callback, a metrics page) answer at once: the
tests' npm and PyPI servers answer 0.2-1.1 s after they start, their first stderr line at most 0.05 s
before their answer; one slower to start than that gets longer with a larger `connect_timeout`."""
HTTP_WATCH_TICK = 0.25
"""Seconds between two looks at what the server wrote; the quiet is counted in such ticks, so a loop
held by other work (`sync` rendering a package) does not count as silence."""
LOG_LINE_CHARACTERS = 1000
"""How much of a line a server wrote that is not JSON-RPC is read for a URL: a longer one is no log
line (and is kept by `snapshot` as its length alone)."""
_REDIRECT_URI = re.compile(r"[?&]redirect_uri=([^&\s\"'<>]+)")
_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})

_log = logging.getLogger(__name__)


def listening_url(line: str, known: str = "") -> str:
    """The URL a server's line says it listens on (`LISTENING`), else `known`: the first one named,
    unless a later one is the MCP endpoint (`MCP_PATHS`) where the first was not."""
    named = LISTENING.search(_TERMINAL_ESCAPE.sub("", line))
    url = named.group(1).rstrip("/") if named else ""
    if url and (not known or (url.endswith(MCP_PATHS) and not known.endswith(MCP_PATHS))):
        return url
    return known


def sign_in_redirect(text: str) -> str:
    """Where a sign-in URL in `text` returns to, when that is this machine: a server with no stored
    token that starts a browser sign-in (an OAuth `redirect_uri` on localhost) and answers nothing
    until the browser comes back, as @a-bonus/google-docs-mcp 1.11.3 does. It listens on that port,
    which alone would name it an HTTP server. "" when it printed none."""
    for found in _REDIRECT_URI.finditer(text):
        redirect = unquote(found.group(1))
        if urlsplit(redirect).hostname in _LOOPBACK_HOSTS:
            return redirect
    return ""


async def http_quiet_ended(look: Callable[[], tuple[bool, str]], quiet: float) -> bool:
    """Wait until a stdio server named a URL it listens on and then wrote nothing JSON-RPC on stdout
    for `quiet` seconds (True: it serves HTTP), or wrote JSON-RPC (False: a stdio server, answers or
    not). `look` says whether it has written JSON-RPC and the URL it named so far ("")."""
    import anyio

    url, quiet_ticks = "", 0
    while quiet_ticks * HTTP_WATCH_TICK < quiet:
        await anyio.sleep(HTTP_WATCH_TICK)
        heard, said = look()
        if heard:
            return False
        if url:
            quiet_ticks += 1
        url = url or said
    return True


def serves_http(server_name: str, waited: str, advice: str) -> str:
    """The line for a stdio server that never answered and serves HTTP: what it was `waited` for,
    and `advice` on connecting to it over HTTP, as `snapshot` and a generated client's `connect` say it."""
    return (
        f"server {server_name!r}: {waited}, so it serves HTTP, not stdio: start it in its stdio mode "
        f"(often a --stdio or --transport stdio option), or {advice}"
    )


def endpoint_advice(url: str, connect: str) -> str:
    """`connect` (how to reach the server at `url`, "" when it named none) as advice: as it is for a
    URL whose path MCP's conventions name an endpoint (`MCP_PATHS`), else only if it serves MCP
    there, which cannot be told from outside: a program that is no MCP server names URLs too
    (mcp-compressor 0.38.2's `--cli-mode`, a command bridge whose URL answers MCP with 404)."""
    if url.endswith(MCP_PATHS):
        return connect
    if url:
        return f"if that URL is its MCP endpoint (mcp-stubgen cannot tell: such URLs usually end in /mcp), {connect}"
    return f"if it serves MCP over HTTP, {connect}"


def quiet_after_url(quiet: float, url: str) -> str:
    """What a stdio server ended early by `http_quiet_ended` was waited for."""
    return f"no answer on stdout {quiet:.3g}s (a third of connect_timeout) after it said it listens on {url}"


@dataclass
class StartupWatch:
    """What a stdio server a generated client started has said that tells a stdio server from an
    HTTP one, while its handshake runs: whether it wrote JSON-RPC on stdout, the URL it said it
    listens on (stdout, or stderr where that is read on the side: `_start`), a sign-in it waits for."""

    heard: bool = False
    listening: str = ""
    signs_in: str = ""
    cut_short: bool = False
    """Whether the handshake was ended early for it (`http_quiet_ended`), not by `connect_timeout`."""
    exit_status: int | None = None
    """The server's exit status once its transport closed (`Popen.returncode`): 0 from one that ended by
    itself, a signal's from one stopped on the way out."""

    def read(self, line: str) -> None:
        """A line the server wrote that is not JSON-RPC (stdout) or its log (stderr)."""
        line = line[:LOG_LINE_CHARACTERS]
        self.listening = listening_url(line, self.listening)
        self.signs_in = self.signs_in or sign_in_redirect(line)


@asynccontextmanager
async def stdio_transport(
    server: StdioServerParameters, server_name: str, watch: StartupWatch | None = None
) -> AsyncIterator[TransportStreams]:
    """Start `server` and yield the session's streams over its pipes (what the SDK's `stdio_client`
    yields); the server is stopped on the way out, however the session ended. `watch` is told what
    the server writes that tells an HTTP server from a stdio one (`StartupWatch`)."""
    from mcp.client.stdio import stdio_client
    from mcp.shared.message import SessionMessage
    from mcp.types import jsonrpc_message_adapter

    if not pipes_served():
        async with stdio_client(server) as streams:
            yield streams
        return
    process = _start(server, watch)
    encoding, errors = server.encoding, server.encoding_error_handler

    def parse(line: str | bytes) -> SessionMessage | Exception:
        try:
            message = SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
        except ValueError as error:
            warn_not_json_rpc(server_name, line, encoding)
            if watch is not None:
                watch.read(line if isinstance(line, str) else line.decode(encoding, "replace"))
            return error
        if watch is not None:
            watch.heard = True
        return message

    def overlong(length: int) -> None:
        _log.warning(
            "%s: the server wrote a message of %d characters, past the %s one may hold; it was "
            "left out (a call it answers waits for its timeout)",
            server_name,
            length,
            _size(MAX_MESSAGE_CHARACTERS),
        )

    try:
        async with pipe_transport(process, parse, encoding, errors, overlong) as streams:
            yield streams
    finally:
        if watch is not None:
            watch.exit_status = process.returncode


NODE_SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs")


def linked_node_script(command: str, path: str | None) -> str | None:
    """The Node script a server's command is a symbolic link to, as npm's node_modules/.bin/ entries
    are, found on `path` (None: this process's PATH) as the server's start finds it; else None."""
    found = shutil.which(command, path=path)
    if found is None or not os.path.islink(found):
        return None
    script = os.path.realpath(found)
    return script if script.endswith(NODE_SCRIPT_SUFFIXES) else None


def linked_node_script_advice(script: str, start: str) -> str:
    """What to say of a server whose command is a link to the Node `script` and that exited at once
    with status 0, saying nothing, and how to `start` it instead: responsible-vibe-mcp 0.1.10 serves
    only when `import.meta.url` is `file://` + `process.argv[1]`, which through a link names the link;
    started as `node <script>` it serves. `snapshot`, generated clients and hubs say it alike."""
    return (
        f"its command is a link to the Node script {script}, and a script that serves only when run as "
        f"its own file exits so when started through a link: try {start}"
    )


def pipes_served() -> bool:
    """Whether `stdio_transport` serves the pipes itself here: under asyncio, not on Windows (else the
    SDK's `stdio_client` does)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # another event loop (trio)
        return False
    return sys.platform != "win32"


def warn_not_json_rpc(server_name: str, line: str | bytes, encoding: str) -> None:
    """One warning naming the server, not the line (which may hold anything), for a stdout line
    that is not a JSON-RPC message, or (as bytes) not in the server's encoding."""
    _log.warning(
        "%s: a line of the server's stdout is not %s (%d %s); a server writes only "
        "JSON-RPC messages there (its logs go to stderr)",
        server_name,
        encoding if isinstance(line, bytes) else "a JSON-RPC message",
        len(line),
        "bytes" if isinstance(line, bytes) else "characters",
    )


def _start(
    server: StdioServerParameters, watch: StartupWatch | None = None
) -> subprocess.Popen[bytes]:
    """The server's process, in a session (so a process group) of its own, with the environment the
    SDK gives it; raises OSError, or ValueError (a NUL byte), as `stdio_client` does. Starting it
    takes a fork and an exec, not long enough to hand to a thread.

    Its stderr goes where this process's goes. With a `watch` it is read on the side
    (`_forward_stderr`) for a URL the server says it listens on, each byte passed on as written:
    through a pipe, or where this process's stderr is a terminal, through a pseudo-terminal of the
    same size, so the server still sees a terminal (and may colour its logs there)."""
    from mcp.client.stdio import get_default_environment

    target = sys.stderr.fileno() if _has_descriptor(sys.stderr) else 2
    side: int | None = None  # this end of a pseudo-terminal the server writes its stderr to
    stderr = target
    if watch is not None:
        side, stderr = _pseudo_terminal(target) if os.isatty(target) else (None, subprocess.PIPE)
    try:
        process = subprocess.Popen(
            [server.command, *server.args],
            bufsize=0,  # unbuffered: each message is on its way once written
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=get_default_environment() | (server.env or {}),
            cwd=server.cwd,
            start_new_session=True,
        )
    except BaseException:
        if side is not None:
            os.close(side)
        raise
    finally:
        if side is not None:
            os.close(stderr)  # the server's end: the server holds it now
    if watch is not None:
        reader = process.stderr if side is None else os.fdopen(side, "rb", buffering=0)
        assert reader is not None
        threading.Thread(target=_forward_stderr, args=(reader, target, watch), daemon=True).start()
    return process


def _pseudo_terminal(like: int) -> tuple[int, int]:
    """A pseudo-terminal's two ends, this process's first: the server's end has the size of the
    terminal `like`, and passes bytes on as written (no carriage return put before each newline:
    the terminal they are passed on to adds its own)."""
    import fcntl
    import termios

    side, server_end = os.openpty()
    attributes = termios.tcgetattr(server_end)
    attributes[1] &= ~termios.OPOST
    termios.tcsetattr(server_end, termios.TCSANOW, attributes)
    with suppress(OSError):
        fcntl.ioctl(server_end, termios.TIOCSWINSZ, fcntl.ioctl(like, termios.TIOCGWINSZ, bytes(8)))
    return side, server_end


def _forward_stderr(stderr: IO[bytes], target: int, watch: StartupWatch) -> None:
    """Pass a server's stderr on to `target` as it comes, until the server and whatever it started
    close it, and tell `watch` its lines until the server has answered (a thread: the
    server may outlive the session's event loop by its grace period, or a child of it for longer)."""
    lines = Lines(errors="replace", limit=_CHUNK)
    with stderr:
        while chunk := _read_some(stderr.fileno()):
            with suppress(OSError):
                rest = memoryview(chunk)
                while rest:
                    rest = rest[os.write(target, rest) :]
            if not watch.heard:
                for line in lines.feed(chunk):
                    watch.read(line if isinstance(line, str) else line.decode("utf-8", "replace"))


def _read_some(descriptor: int) -> bytes:
    """Up to a chunk of what a server wrote; nothing at its end (a pseudo-terminal whose other end
    every process closed says so with an error, EIO on Linux, not an end of file)."""
    try:
        return os.read(descriptor, _CHUNK)
    except OSError:
        return b""


def _has_descriptor(stream: IO[str]) -> bool:
    """Whether a child can write to `stream` (a notebook's or a test's stderr has no file
    descriptor; the child then writes to this process's own)."""
    try:
        stream.fileno()
    except (OSError, ValueError, AttributeError):
        return False
    return True


@asynccontextmanager
async def pipe_transport(
    process: subprocess.Popen[bytes],
    parse: Callable[[str | bytes], SessionMessage | Exception],
    encoding: str = "utf-8",
    errors: str = "strict",
    overlong: Callable[[int], None] | None = None,
) -> AsyncIterator[Any]:
    """The session's streams over a started server's pipes, each stdout line read by `parse` (a
    blank one skipped without a word, as `snapshot` skips it), and the server stopped on the way out
    (`shut_down`).

    A line is decoded with `errors` on its own: with `"strict"`, a line that is not `encoding` is
    handed to `parse` as its bytes (the SDK's parser then refuses it, and the runtime fails the
    request it answers) and the session goes on; the SDK's transport ended the session instead."""
    import anyio
    from mcp.shared.message import SessionMessage

    assert process.stdin is not None and process.stdout is not None
    loop = asyncio.get_running_loop()
    stdout = asyncio.StreamReader()
    pipe, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(stdout), process.stdout
    )
    stdin_pipe, flow = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, process.stdin
    )
    stdin = asyncio.StreamWriter(stdin_pipe, flow, None, loop)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()

    async def stdout_reader() -> None:
        lines = Lines(encoding, errors, warn=overlong)
        try:
            async with read_writer:
                while chunk := await stdout.read(_CHUNK):
                    for line in lines.feed(chunk):
                        if line.strip():  # a blank line carries no message
                            await read_writer.send(parse(line))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the session is gone
        with anyio.CancelScope(shield=True), suppress(OSError):
            while await stdout.read(_CHUNK):  # a server still writing must not block on a full pipe
                pass

    async def stdin_writer() -> None:
        try:
            async with write_reader:
                async for message in write_reader:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    stdin.write(text.encode(encoding, errors))
                    await stdin.drain()  # waits only while the pipe is full
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError, ValueError):
            # the server stopped reading: the session sees the connection end
            await read_writer.aclose()
        finally:
            writer_done.set()

    async def stop() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(0.5):
            await writer_done.wait()
        # A server that is not reading (its stdin full) is not told by closing it: it is stopped.
        if writer_done.is_set():
            stdin_pipe.close()
        await shut_down(process, stdin_closed=writer_done.is_set())
        pipe.close()
        if not stdin_pipe.is_closing():
            stdin_pipe.abort()
        for stream in (read_stream, write_stream, read_writer, write_reader):
            await stream.aclose()

    async with anyio.create_task_group() as group:
        group.start_soon(stdout_reader)
        group.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await stop()
            group.cancel_scope.cancel()


class Lines:
    """A server's stdout cut into lines, in time linear in its length: the start of a line not
    yet ended is kept in pieces and joined once, when its end arrives (joining it again with every
    64 KiB read made a 30 MB answer take seconds, and a 50 MB one longer than any timeout).

    Each line is decoded on its own with `errors`, so a line that is not `encoding` spoils no other:
    with `"strict"` it is given as its bytes, for the SDK's parser to refuse (and the runtime to fail
    the request it answers); the SDK's transport ended the session on it. A UTF-8 byte order mark
    before the first line (a .NET server's console writes one) is dropped, as JSON's RFC 8259 lets a
    reader do: kept, it made the first answer a line that is not JSON-RPC, and the handshake timed out.

    A line longer than `limit` characters is not kept (a server writing without end would fill the
    memory): only its start and end are, and in its place comes the JSON-RPC error answer of the
    request it answers, so that call fails and the session goes on; a line that is not an answer, or
    whose id cannot be read, is left out, and `warn` is told its length."""

    def __init__(
        self,
        encoding: str = "utf-8",
        errors: str = "strict",
        limit: int = MAX_MESSAGE_CHARACTERS,
        warn: Callable[[int], None] | None = None,
    ) -> None:
        self._encoding, self._errors = encoding, errors
        codec = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
        self._decoder = codecs.getincrementaldecoder(codec)("surrogateescape")
        self._pieces: list[str] = []
        self._held = 0
        self._limit = limit
        self._warn = warn
        self._overlong: _Overlong | None = None

    def feed(self, chunk: bytes) -> list[str | bytes]:
        """The lines `chunk` ends, without their newlines."""
        text = self._decoder.decode(chunk)
        if self._overlong is not None or self._held + len(text) > self._limit:
            return self._feed_past_limit(text)
        self._pieces.append(text)
        self._held += len(text)
        if "\n" not in text:
            return []
        lines = "".join(self._pieces).split("\n")
        rest = lines.pop()
        self._pieces, self._held = [rest], len(rest)
        return [self._decoded(line) for line in lines]

    def _feed_past_limit(self, text: str) -> list[str | bytes]:
        """`feed` where a line may pass the limit: part by part, each line checked as it ends."""
        *ended, rest = text.split("\n")
        lines: list[str | bytes] = []
        for part in ended:
            self._hold(part)
            overlong, self._overlong = self._overlong, None
            if overlong is None:
                lines.append(self._decoded("".join(self._pieces)))
            elif (answer := overlong.error_answer(self._limit)) is not None:
                lines.append(answer)
            elif self._warn is not None:
                self._warn(overlong.length)
            self._pieces, self._held = [], 0
        self._hold(rest)
        return lines

    def _hold(self, part: str) -> None:
        if self._overlong is not None:
            self._overlong.add(part)
        elif self._held + len(part) > self._limit:
            self._overlong = _Overlong("".join([*self._pieces, part]))
            self._pieces, self._held = [], 0
        else:
            self._pieces.append(part)
            self._held += len(part)

    def _decoded(self, line: str) -> str | bytes:
        if line.isascii() or self._errors == "surrogateescape" or not _UNDECODED.search(line):
            return line
        raw = line.encode(self._encoding, "surrogateescape")
        return raw if self._errors == "strict" else raw.decode(self._encoding, self._errors)


class _Overlong:
    """A line past `Lines`' limit, of which only the start, the end and the length are kept."""

    def __init__(self, start: str) -> None:
        self.head, self.tail, self.length = start[:_EDGE], start[-_EDGE:], len(start)

    def add(self, part: str) -> None:
        self.tail = (self.tail + part)[-_EDGE:]
        self.length += len(part)

    def error_answer(self, limit: int) -> str | None:
        """The error answer of the request this line answers, or None: the line is not an answer
        (a request or notification of the server's), or its id is not where an answer puts it."""
        request_id = answered_id(self.head, self.tail)
        if request_id is None:
            return None
        message = f"its answer is longer than {_size(limit)} ({self.length:,} characters); not read"
        error = {"code": _PARSE_ERROR, "message": message}
        return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error})


def answered_id(head: str, tail: str) -> int | str | None:
    """The id of the request a line answers, read from its first and last few thousand characters
    alone (a line too long, or nested too deep, to parse): from its first members, as the Python
    SDK orders an answer's, or its last, as the TypeScript one; None for a line that is not an
    answer (a request or notification of the server's) or whose id is not where an answer puts it."""
    members = _leading_members(head[:_EDGE])
    if "result" not in members and "error" not in members:
        return None
    request_id = members.get("id")
    if request_id is None and (last := _LAST_ID.search(tail[-_EDGE:])) is not None:
        request_id = json.loads(last[1])
    return request_id if type(request_id) in (int, str) else None


def read_refused(line: str | bytes) -> Any:
    """A line the MCP SDK's parser refuses, as Python's parser reads it (an integer past its digit
    limit as 0, a byte that is not UTF-8 as U+FFFD), to tell an answer from a message of the
    server's own. A line nested past Python's depth, or cut short, is read by its top-level members
    alone (`_top_level_members`): `{"method": None}` for a request or notification (a `method` or
    `params`), `{"id": ID, "result": None}` for an answer to request ID, None when they do not say."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    try:
        return json.loads(text, parse_int=_bounded_int)
    except (ValueError, RecursionError):
        members = _top_level_members(text)
        if "method" in members or "params" in members:
            return {"method": None}
        request_id = members.get("id")
        return {"id": request_id, "result": None} if type(request_id) in (int, str) else None


NOT_JSON = "its answer is not JSON the MCP SDK reads"
_TOO_DEEP = "recursion limit exceeded"
"""What the SDK's JSON parser (pydantic-core's) says of a text nested over 200 levels."""
NESTED_TOO_DEEP = (
    f"{NOT_JSON}: it is nested deeper than 200 levels; the server has to send a flatter answer"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
"""Half of a UTF-16 pair: Python's parser reads one from its JSON escape, UTF-8 cannot hold it."""


def unreadable_answer(line: str | bytes, parser_said: str) -> str:
    """Why the MCP SDK cannot read an answer, for its request's error: nesting past the SDK's
    parser's depth and a string holding a lone UTF-16 surrogate (with its JSON pointer) in our words,
    as `snapshot` names them; anything else in the parser's (`parser_said`), clipped as the client
    runtime clips server text."""
    if _TOO_DEEP in parser_said:
        return NESTED_TOO_DEEP
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    try:
        pointer = _lone_surrogate_at(json.loads(text))
    except (ValueError, RecursionError):
        pointer = None
    if pointer is not None:
        shown = pointer if pointer.isprintable() and len(pointer) <= 200 else repr(pointer[:200])
        return (
            f"{NOT_JSON}: {shown} holds a lone UTF-16 surrogate (half of a character, such as an "
            "emoji cut in two); the server has to send whole characters"
        )
    from ._runtime import _clip

    return f"{NOT_JSON} ({_clip(parser_said, 200)})"


def _lone_surrogate_at(message: Any) -> str | None:
    """The JSON pointer of the first string (a value or a member's name) holding a lone surrogate."""
    stack: list[tuple[str, Any]] = [("", message)]
    while stack:
        pointer, value = stack.pop()
        if isinstance(value, str) and _SURROGATE.search(value):
            return pointer or "/"
        items = (
            value.items()
            if isinstance(value, dict)
            else enumerate(value)
            if isinstance(value, list)
            else ()
        )
        for key, item in reversed(list(items)):
            step = f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if isinstance(key, str) and _SURROGATE.search(key):
                return step
            stack.append((step, item))
    return None


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]|[^\s\[\]{}:,"]+')
"""A JSON string, a structural character, or a bare literal (a number, `true`, ...): what
`_top_level_members` steps through."""


def _bounded_int(digits: str) -> int:
    """An integer as Python reads it, or 0 past its digit limit (the SDK refuses the line anyway)."""
    return int(digits) if len(digits) < 4000 else 0


def _top_level_members(text: str) -> dict[str, Any]:
    """The members of the object a line holds, by a scan of its tokens that keeps count of depth
    instead of recursing: a scalar member's value (a string, number, `true`, ...), None for an object
    or array however deep, and whatever a line cut short holds up to its cut. Python's parser gives
    up on a line nested past its depth wherever the nesting is, even after the `id` or before it."""
    members: dict[str, Any] = {}
    depth, key, pending = 0, None, None
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in ("{", "["):
            if depth == 1 and key is not None:
                members[key], key = None, None
            depth += 1
        elif token in ("}", "]"):
            depth -= 1
            if depth <= 0:
                break
        elif depth != 1 or token == ",":
            continue
        elif token == ":":
            key, pending = pending, None
        elif key is not None:
            with contextlib.suppress(ValueError, RecursionError):
                members[key] = json.loads(token, parse_int=_bounded_int)
            key = None
        elif token.startswith('"'):
            with contextlib.suppress(ValueError):
                pending = json.loads(token)
    return members


def answers_one_of(message: Any, waiting: Collection[Any]) -> bool:
    """Whether a message (as `read_refused` reads it) answers one of the requests `waiting` holds
    the ids of (its id, or a batch member's; "7" is 7, as the MCP SDK matches them), or may (None:
    nothing in it says, and a request waits). A request or notification of the server's (it has a
    `method`), or an answer to another id, answers none of them: it can be left out and the session
    go on."""
    if message is None:
        return len(waiting) > 0
    for item in message if isinstance(message, list) else [message]:
        request_id = item.get("id") if isinstance(item, dict) and "method" not in item else None
        if isinstance(request_id, str) and request_id.isdigit():
            request_id = int(request_id)
        if type(request_id) in (int, str) and request_id in waiting:
            return True
    return False


def _leading_members(head: str) -> dict[str, Any]:
    """The members an object cut short starts with, up to the first of `result`, `error`, `method`
    or `params` (whose value is the long one; it is there, as None) or the first cut off or nested
    too deep to read."""
    decoder = json.JSONDecoder()
    members: dict[str, Any] = {}
    index = _after_space(head, 0)
    if not head.startswith("{", index):
        return members
    index += 1
    while True:
        try:
            key, index = decoder.raw_decode(head, _after_space(head, index))
            index = _after_space(head, index)
            if not isinstance(key, str) or not head.startswith(":", index):
                return members
            if key in ("result", "error", "method", "params"):
                members[key] = None
                return members
            members[key], index = decoder.raw_decode(head, _after_space(head, index + 1))
        except (ValueError, RecursionError):  # cut short, or nested past Python's depth
            return members
        index = _after_space(head, index)
        if not head.startswith(",", index):
            return members
        index += 1


def _size(characters: int) -> str:
    return f"{characters >> 20} MiB" if characters >= 1 << 20 else f"{characters:,} characters"


def _after_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r":
        index += 1
    return index


async def shut_down(process: subprocess.Popen[bytes], stdin_closed: bool) -> None:
    """The rest of the spec's shutdown once stdin is closed (or cannot be): wait, then terminate and
    kill the server's group."""
    if not stdin_closed or not await exited(process, GRACE_SECONDS):
        signal_group(process, signal.SIGTERM)
        if not await exited(process, GRACE_SECONDS):
            signal_group(process, signal.SIGKILL if sys.platform != "win32" else signal.SIGTERM)
            await exited(process, GRACE_SECONDS)


async def exited(process: subprocess.Popen[bytes], seconds: float) -> bool:
    """Whether the process ended within `seconds` (polled: waiting for it would also wait for its
    pipes to close, which a child it started may hold open)."""
    deadline = time.monotonic() + seconds
    while process.poll() is None:
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.01)
    return True


def signal_group(process: subprocess.Popen[bytes], signal_number: int) -> None:
    """Signal the server's process group (a server started through `npx` or a shell is a tree);
    on Windows, kill the process."""
    with suppress(OSError):
        if sys.platform == "win32":
            process.kill()
        else:
            os.killpg(process.pid, signal_number)
