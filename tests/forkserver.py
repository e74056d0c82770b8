"""Start the tests' Python servers as forks of one process that has already imported the MCP SDK.

Importing the SDK costs a server about 1.5 s of CPU (pydantic builds several hundred models), and
the suite starts several hundred servers and clients that import it, each over its own stdio or
HTTP, as a user's tools would. So each test worker runs one server of forks,

    python forkserver.py serve SOCKET

which imports the SDK (and what `snapshot` and `generate` use) once, and the tests' commands name,
instead of `python`, a one-line shell script (`PYTHON` in tests/conftest.py) that runs

    python -I -S forkserver.py run SOCKET ARGS...

That command starts in milliseconds (standard library only) and behaves as `python ARGS...`: when
ARGS start with a script that imports the SDK, or with `-m codegen.cli` (mcp-stubgen's command
line), it hands its arguments, environment, working folder and standard streams to the server,
forwards the signals it gets, and exits as the fork that runs the script exits; anything else
(another `-m`, `-c`, a script without the SDK, no server to reach) it simply executes with
`python`. A fork is a fresh process as far as its script can tell: its own process group,
environment, streams, `sys.argv` and `sys.path`. A fork whose command goes away (killed) is killed
with everything it started.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import re
import runpy
import select
import signal
import socket
import struct
import sys
import traceback

STATUS = struct.Struct("!i")
LENGTH = struct.Struct("!I")
IMPORTS_MCP = re.compile(rb"^\s*(?:from|import)\s+mcp\b", re.MULTILINE)
FORKED_MODULES = ("codegen.cli",)
"""The modules `-m` runs as a fork: mcp-stubgen's command line, whose imports the server preloads."""
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
PRELOAD = (
    "mcp",
    "mcp.client.session",
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "mcp.server.mcpserver",
    "mcp.server.lowlevel",
    "mcp.server.stdio",
    "mcp.server.streamable_http_manager",
    "starlette.applications",
    "uvicorn",
    "black",
    "datamodel_code_generator",
    "codegen.cli",
    "codegen.snapshot.command",
    "codegen.snapshot.discovery",
    "codegen.generate.command",
    "codegen.generate.modelgen",
    "codegen.generate.render",
)
"""What the forks' scripts import, imported once: the SDK's client and server sides, and what the
conformance client's `snapshot` and `generate` import on first use."""


def run(address: str, arguments: list[str]) -> int:
    """Be `python arguments`: through a fork of the server when the script imports the SDK."""
    if not _imports_mcp(arguments):
        os.execv(sys.executable, [sys.executable, *arguments])
    request = json.dumps({"argv": arguments, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(address)
        socket.send_fds(connection, [LENGTH.pack(len(request)) + request], [0, 1, 2])
    except OSError:  # no server on this worker (yet, or any more): start the script as python would
        connection.close()
        os.execv(sys.executable, [sys.executable, *arguments])
    for signum in FORWARDED:
        signal.signal(signum, lambda number, _frame: connection.send(bytes([number])))
    # The fork holds the streams now; this process keeps only standard error, for its own words.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    answer = connection.recv(STATUS.size, socket.MSG_WAITALL)
    if len(answer) != STATUS.size:
        print("forkserver: the server went away without the fork's exit status", file=sys.stderr)
        return 1
    (code,) = STATUS.unpack(answer)
    if code < 0:  # killed by a signal: be killed by the same one, so the caller sees what it would
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


def _imports_mcp(arguments: list[str]) -> bool:
    if arguments[:1] == ["-m"]:
        return arguments[1:2] != [] and arguments[1] in FORKED_MODULES
    if not arguments or not arguments[0].endswith(".py"):
        return False
    try:
        with open(arguments[0], "rb") as script:
            return IMPORTS_MCP.search(script.read()) is not None
    except OSError:
        return False


def serve(address: str) -> None:
    """Fork one script per connection, any number at once, and answer each with its exit status."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)  # before the imports: a command that comes early waits, not falls back
    listener.listen(64)
    signal.signal(signal.SIGTERM, lambda _number, _frame: sys.exit(0))
    for module in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    forks: dict[int, socket.socket] = {}
    commands: dict[socket.socket, int] = {}
    try:
        while True:
            readable, _, _ = select.select([*commands, listener], [], [], 0.05)
            for ready in readable:  # the commands first: a killed one's fork is gone before a new one starts
                if ready is listener:
                    connection, _ = listener.accept()
                    pid = _fork(connection, listener, commands)
                    forks[pid], commands[connection] = connection, pid
                    continue
                pid = commands[ready]
                message = ready.recv(1)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, message[0] if message else signal.SIGKILL)
                if not message:  # the command was killed: so is its fork, at once (its port is free again)
                    del commands[ready], forks[pid]
                    ready.close()
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(pid, 0)
            _reap(forks, commands)
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(address)
        for pid in forks:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


def _fork(connection: socket.socket, listener: socket.socket, commands: dict[socket.socket, int]) -> int:
    message, streams, _, _ = socket.recv_fds(connection, 65536, 3)
    (length,) = LENGTH.unpack(message[: LENGTH.size])
    body = message[LENGTH.size :]
    while len(body) < length:
        body += connection.recv(length - len(body))
    request = json.loads(body)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        listener.close()
        for other in (connection, *commands):
            other.close()
        os._exit(_become(request, streams))
    for stream in streams:
        os.close(stream)
    return pid


def _reap(forks: dict[int, socket.socket], commands: dict[socket.socket, int]) -> None:
    while forks:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        connection = forks.pop(pid)
        del commands[connection]
        with contextlib.suppress(OSError):
            connection.sendall(STATUS.pack(os.waitstatus_to_exitcode(status)))
        connection.close()


def _become(request: dict[str, object], streams: list[int]) -> int:
    """In the fork: become `python ARGV` in the command's folder, environment and streams."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.setpgid(0, 0)
    for target, stream in enumerate(streams):
        os.dup2(stream, target)
        os.close(stream)
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update(request["env"])  # type: ignore[arg-type]
    argv: list[str] = request["argv"]  # type: ignore[assignment]
    sys.argv = list(argv)
    extra = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    module = argv[1] if argv[0] == "-m" else None
    sys.path[0:1] = [os.getcwd() if module else os.path.dirname(os.path.abspath(argv[0])), *extra]
    code: object = 0
    try:
        if module:  # as `python -m`: sys.argv[0] becomes the module's file
            sys.argv = argv[1:]
            sys.modules.pop(module, None)  # `python -m` runs a module not imported yet (runpy warns otherwise)
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code
    except BaseException:
        traceback.print_exc()
        code = 1
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    return code if isinstance(code, int) else (0 if code is None else 1)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        sys.exit(run(sys.argv[2], sys.argv[3:]))
