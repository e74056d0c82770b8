"""Start each scenario's client command as a fork of one process that has already imported it.

Importing the MCP SDK, pydantic's models and mcp-stubgen costs most of a scenario's CPU, and the
conformance runner starts one client command per scenario. So each test worker runs one server,

    python forkserver.py serve SOCKET

which imports `client.py` once, and gives the runner, as the client command,

    python -I -S forkserver.py run SOCKET ARGS...

which starts in milliseconds (standard library only), hands its arguments, environment, working
folder and standard streams to the server, and exits with the exit code of the fork that runs
`client.py ARGS...` with them: a fresh process as far as the scenario can tell, with its own
environment, streams and modules imported after the fork (the generated package). A fork whose
command goes away (the runner timed out) is killed with everything it started.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import socket
import struct
import sys
import traceback
from pathlib import Path

CLIENT = Path(__file__).with_name("client.py")
LENGTH = struct.Struct("!I")


def run(address: str, arguments: list[str]) -> int:
    """The client command: have the server fork `client.py arguments`, and return its exit code."""
    request = json.dumps({"argv": arguments, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(address)
        socket.send_fds(connection, [b"!"], [0, 1, 2])
        connection.sendall(LENGTH.pack(len(request)) + request)
        answer = connection.recv(LENGTH.size, socket.MSG_WAITALL)
    if len(answer) != LENGTH.size:
        print("forkserver: the server closed the connection without an exit code", file=sys.stderr)
        return 1
    return int(LENGTH.unpack(answer)[0])


def serve(address: str) -> None:
    """Fork one client per connection, one at a time; each test worker runs one scenario at a time."""
    sys.path.insert(0, str(CLIENT.parent.parent.parent))
    import tests.conformance.client as client  # imported once, before any fork

    # And what `snapshot` and `generate` import on first use.
    for module in (
        "black",
        "datamodel_code_generator",
        "codegen.snapshot.command",
        "codegen.snapshot.discovery",
        "codegen.generate.command",
        "codegen.generate.modelgen",
        "codegen.generate.render",
    ):
        importlib.import_module(module)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen()
    while True:
        connection, _ = listener.accept()
        with connection:
            _, streams, _, _ = socket.recv_fds(connection, 1, 3)
            (length,) = LENGTH.unpack(connection.recv(LENGTH.size, socket.MSG_WAITALL))
            request = json.loads(connection.recv(length, socket.MSG_WAITALL))
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                listener.close()
                connection.close()
                os._exit(_client(client.main, request, streams))
            for stream in streams:
                os.close(stream)
            code = _wait(pid, connection)
            if code is not None:
                connection.sendall(LENGTH.pack(code))


def _client(main: object, request: dict[str, object], streams: list[int]) -> int:
    """In the fork: become the client command the runner asked for, and run it."""
    os.setpgid(0, 0)
    for target, stream in enumerate(streams):
        os.dup2(stream, target)
        os.close(stream)
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update(request["env"])  # type: ignore[arg-type]
    sys.argv = [str(CLIENT), *request["argv"]]  # type: ignore[misc]
    code: object = 0
    try:
        main()  # type: ignore[operator]
    except SystemExit as exit_:
        code = exit_.code
    except BaseException:
        traceback.print_exc()
        code = 1
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return code if isinstance(code, int) else 0


def _wait(pid: int, connection: socket.socket) -> int | None:
    """The fork's exit code; None (and the fork's process group killed) if the command went away."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) % 256
        readable, _, _ = select.select([connection], [], [], 0.05)
        if readable and not connection.recv(1):
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        sys.exit(run(sys.argv[2], sys.argv[3:]))
