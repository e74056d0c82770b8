"""Shared fixtures: the command line run in-process, real servers over stdio and Streamable HTTP."""

from __future__ import annotations

import gc
import importlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from filelock import FileLock

from codegen import console
from codegen.cli import main
from tests.ports import free_port

REPO = Path(__file__).resolve().parent.parent

THIRD_PARTY_SERVERS = frozenset({"everything_server", "memory_server", "time_server", "sqlite_server", "duckdb_server"})
"""The fixtures that start a third-party server (npm or PyPI): a test using one is `real_server`."""
SLOW_FAMILIES = ("real_server", "generated_mypy", "conformance", "expensive")
"""The markers (registered in pyproject.toml) that make a test `slow`: `-m "not slow"` is the fast lane."""
EXPENSIVE = Path(__file__).with_name("expensive.txt")
"""The test functions marked `expensive`, one `path::function` a line."""


def pytest_configure(config: pytest.Config) -> None:
    """Import hypothesis as every process starts, not as it ends. Its pytest plugin imports it in each
    xdist worker's terminal summary, after the worker reported its last test; assertion rewriting,
    uncached under PYTHONDONTWRITEBYTECODE, makes that 1.7 s of CPU, past 5 s on a loaded 2-core
    machine, and execnet interrupts a worker still busy 5 s after it is told to stop: the
    `KeyboardInterrupt` in hypothesis' `gc_callback` warned of at the end of every CI run.

    Its per-example deadline (200 ms) is a timed assertion, which a loaded machine fails
    (`test_python_literal_round_trips_any_json` at load 7): no example here has one.

    Every property test draws the same examples on every run (derandomized), so a commit's result
    does not depend on chance: a drawn `namingRules: 13` once failed CI on a commit that changed
    nothing near it. `--hypothesis-profile explore` draws anew on each run, to search for what the
    fixed draws miss."""
    hypothesis = importlib.import_module("hypothesis")
    hypothesis.settings.register_profile("suite", deadline=None, derandomize=True)
    hypothesis.settings.register_profile("explore", deadline=None)
    hypothesis.settings.load_profile(config.getoption("--hypothesis-profile") or "suite")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish() -> None:
    """Collect the garbage once the last fixture is torn down, and freeze what survives. This runs
    before an xdist worker reports that it finished; pytest's own two full collections come after,
    and with millions of objects alive at the end of a worker (3.3 million on one) they took seconds,
    past the 5 s execnet waits before interrupting a worker it told to stop. What survives a full
    collection is alive, so freezing it hides nothing from them: they see only what is new."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    expensive = {
        line for line in EXPENSIVE.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")
    }
    found: set[str] = set()
    for item in items:
        if THIRD_PARTY_SERVERS & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.real_server)
        function = item.nodeid.split("[")[0]
        if function in expensive:
            item.add_marker(pytest.mark.expensive)
            found.add(function)
        if any(item.get_closest_marker(name) for name in SLOW_FAMILIES):
            item.add_marker(pytest.mark.slow)
    modules = {item.nodeid.split("::")[0]: getattr(item, "module", None) for item in items}
    stale = sorted(
        name
        for name in expensive - found
        if name.split("::")[0] in modules and not _defines(modules[name.split("::")[0]], name.split("::")[1:])
    )
    if stale:
        raise pytest.UsageError(f"{EXPENSIVE.name} names tests that do not exist (any more): {', '.join(stale)}")


def _defines(module: object, path: list[str]) -> bool:
    """Whether the test module defines the test function (or `Class::function`) named by `path`."""
    for name in path:
        module = getattr(module, name, None)
    return callable(module)


SERVERS = Path(__file__).resolve().parent / "servers"
EXAMPLE_SERVER = REPO / "examples" / "weather_server.py"
NPM_SERVERS = Path(__file__).resolve().parent / "npm"
TEST_DEPS = REPO / ".test-deps"
"""What the tests install on first use (git-ignored): servers that cannot share our environment, locks."""


FORKS = Path(tempfile.gettempdir()) / f"mcp-stubgen-forks-{os.getpid()}"
PYTHON = str(FORKS / "python")
"""`python` for the commands a test starts: a script that imports the MCP SDK runs as a fork of this
worker's server of forks (tests/forkserver.py), which imported the SDK once; anything else runs as is."""


@pytest.fixture(scope="session", autouse=True)
def interruptible_commands() -> None:
    """Commands the tests start can be interrupted, as from a terminal, however pytest was started: a
    shell without job control starts a background job (`pytest ... &` in a script) with SIGINT
    ignored, every process it starts inherits that, and Python then leaves SIGINT ignored, so the
    Ctrl-C tests' commands would hang instead of stopping. A handled signal is reset in each child."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session", autouse=True)
def server_of_forks() -> Iterator[None]:
    """This worker's server of forks, and the `PYTHON` command that reaches it."""
    FORKS.mkdir(exist_ok=True)
    script = Path(__file__).with_name("forkserver.py")
    socket_path = FORKS / "socket"
    socket_path.unlink(missing_ok=True)
    command = [sys.executable, "-I", "-S", str(script), "run", str(socket_path)]
    launcher = Path(PYTHON)
    launcher.write_text(f'#!/bin/sh\nexec {" ".join(map(shlex.quote, command))} "$@"\n', encoding="utf-8")
    launcher.chmod(0o755)
    server = subprocess.Popen([sys.executable, str(script), "serve", str(socket_path)], stdout=subprocess.DEVNULL)
    try:
        yield
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(FORKS, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def shared_mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every `mypy` a test runs reads and writes one cache (one per xdist worker, so no two processes
    write it at once): the standard library, pydantic and mcp are analysed once, not in every run.
    Generated files are still checked afresh: mypy rechecks any module whose path or source changed,
    and a test that passes other options than `--strict --config-file /dev/null` would invalidate it."""
    cache = tmp_path_factory.mktemp("mypy-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MYPY_CACHE_DIR", str(cache))
        yield cache


@pytest.fixture(scope="module", autouse=True)
def seeded_mypy_cache(
    request: pytest.FixtureRequest, shared_mypy_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Under xdist, a worker's mypy cache starts as a copy of one the first worker to need it fills by
    checking the golden packages: analysing the standard library, pydantic and mcp cold costs about
    9 s of CPU, paid once a run instead of once a worker. It is filled before the first module with
    `generated_mypy` tests, not as the session starts, so no worker waits for it before its first test."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if (
        not run
        or request.session.stash.get(_MYPY_CACHE_SEEDED, False)
        or not any(
            item.path == request.path and item.get_closest_marker("generated_mypy") for item in request.session.items
        )
    ):
        return
    seed = tmp_path_factory.getbasetemp().parent / f"mypy-seed-{run}"
    with FileLock(f"{seed}.lock"):
        if not (seed / "filled").exists():
            seed.mkdir(exist_ok=True)
            subprocess.run(
                [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null",
                 "--cache-dir", str(seed / "cache"), "-p", "clients"],
                cwd=REPO / "golden", capture_output=True, timeout=600,
            )  # fmt: skip
            (seed / "filled").touch()
    shutil.copytree(seed / "cache", shared_mypy_cache, dirs_exist_ok=True)  # with the mtimes mypy checks
    request.session.stash[_MYPY_CACHE_SEEDED] = True


_MYPY_CACHE_SEEDED = pytest.StashKey[bool]()


@pytest.fixture(scope="session", autouse=True)
def session_generate_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A module or session fixture that generates runs before `isolated_generate_cache`: it gets a
    cache of the session's own, never the user's `~/.cache/mcp-stubgen` (which earlier runs and other
    checkouts fill, so what such a fixture found there, and how long it took, depended on them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_STUBGEN_CACHE_DIR", str(tmp_path_factory.mktemp("session-generate-cache")))
        yield


@pytest.fixture(autouse=True)
def isolated_generate_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own generate cache, so no test reads pieces another one (or a user) cached."""
    monkeypatch.setenv("MCP_STUBGEN_CACHE_DIR", str(tmp_path_factory.mktemp("generate-cache")))


@pytest.fixture(autouse=True)
def fresh_console() -> None:
    """Every test starts with the console settings of a new process: a command run in-process with
    `--quiet` or `--format json` (`run_cli`) left them set, and a later test's warning went unprinted."""
    console.begin()


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run `mcp-stubgen ARGS...` in this process; returns the exit code and what it printed."""

    def run(*args: str | os.PathLike[str]) -> CliResult:
        capsys.readouterr()
        try:
            main([str(arg) for arg in args])
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        else:  # pragma: no cover - main always exits
            code = 0
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def mypy_against_goldens(*callers: Path) -> tuple[dict[str, list[str]], str]:
    """`mypy --strict` of callers' files with the golden output folder importable as `clients`, in one
    run (each run loads the goldens' and their dependencies' cached analysis again): each file's
    errors (each after `error: `) by its name, and mypy's whole output, for a failing assertion to show."""
    from tests.regen_goldens import GOLDEN

    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null", *map(str, callers)],
        capture_output=True,
        text=True,
        cwd=GOLDEN.parent,
        env={"MYPYPATH": str(GOLDEN), "PATH": "", "MYPY_CACHE_DIR": os.environ["MYPY_CACHE_DIR"]},
        timeout=300,
    )
    errors: dict[str, list[str]] = {caller.name: [] for caller in callers}
    for line in checked.stdout.splitlines():
        where, found, error = line.partition(": error: ")
        if found:
            errors[Path(where.split(":", 1)[0]).name].append(error)
    return errors, checked.stdout + checked.stderr


def read_terminal(leader: int) -> bytes:
    """All a pseudo-terminal's other end had written when every process holding it closed it (Linux
    then says EIO, not end of file); closes `leader`."""
    written = b""
    with os.fdopen(leader, "rb", buffering=0) as terminal:
        while True:
            try:
                chunk = terminal.read(65536)
            except OSError:
                return written
            if not chunk:
                return written
            written += chunk


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Wait until `process` listens on `port`: a server's start-up (its imports) can take 20 s on a loaded
    2-core machine, and it costs nothing to wait longer for one that comes up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before listening on {port}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listened on 127.0.0.1:{port} within {timeout}s")


@contextmanager
def example_server_over(transport: str, path: str) -> Iterator[str]:
    """The example server on a free loopback port, `--http` or `--sse`; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [PYTHON, str(EXAMPLE_SERVER), f"--{transport}", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def listening(script: str, *args: str, port_option: str | None = None) -> Iterator[int]:
    """tests/servers/`script` listening on a free port of 127.0.0.1, which it is given as its first
    argument (or after `port_option`); yields the port."""
    port = free_port()
    where = [port_option, str(port)] if port_option is not None else [str(port)]
    process = subprocess.Popen(
        [PYTHON, str(SERVERS / script), *where, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port, process)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def weather_http() -> Iterator[str]:
    """The example server over Streamable HTTP."""
    with example_server_over("http", "/mcp") as url:
        yield url


@pytest.fixture
def weather_sse() -> Iterator[str]:
    """The example server over the older SSE transport."""
    with example_server_over("sse", "/sse") as url:
        yield url


def recording_server(server: str, tool: str, input_schema: dict[str, Any]) -> tuple[Any, list[dict[str, Any] | None]]:
    """An in-process server of one tool with `input_schema`, answering "ok", and the arguments of every
    call it received: what a generated client sent past its own checks."""
    from mcp import types
    from mcp.server.lowlevel import Server

    received: list[dict[str, Any] | None] = []

    async def list_tools(_context: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name=tool, input_schema=input_schema)])

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        received.append(params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    return Server(server, on_list_tools=list_tools, on_call_tool=call_tool), received


@pytest.fixture
def plain_http_port() -> Iterator[int]:
    """The port of a plain HTTP server on 127.0.0.1 that speaks no TLS (nor MCP): an `https://` URL of
    it fails in the TLS handshake. Quiet: its log would be read as a command's stderr."""

    class Quiet(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            """Nothing: see the fixture."""

    plain = ThreadingHTTPServer(("127.0.0.1", free_port()), Quiet)
    threading.Thread(target=plain.serve_forever, daemon=True).start()
    try:
        yield plain.server_port
    finally:
        plain.shutdown()
        plain.server_close()


@pytest.fixture(scope="session")
def everything_server() -> Path:
    """`@modelcontextprotocol/server-everything`, from tests/npm/package-lock.json.

    The test command installs it (`npm ci --prefix tests/npm`); a bare `pytest` installs it here.
    """
    return npm_server("mcp-server-everything")


@pytest.fixture(scope="session")
def memory_server() -> Path:
    """`@modelcontextprotocol/server-memory`: every tool has an outputSchema, one property is `from`."""
    return npm_server("mcp-server-memory")


def npm_server(binary_name: str) -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip(f"node and npm are not installed; {binary_name} needs them")
    binary = NPM_SERVERS / "node_modules" / ".bin" / binary_name
    TEST_DEPS.mkdir(exist_ok=True)
    with FileLock(TEST_DEPS / "npm.lock"):  # parallel workers install once
        if not binary.exists():
            subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=NPM_SERVERS, check=True, timeout=600
            )
    return binary


@pytest.fixture(scope="session")
def time_server() -> str:
    """`mcp-server-time` from PyPI, a test extra; its console script sits beside this interpreter."""
    script = Path(sys.executable).parent / "mcp-server-time"
    if not script.exists():
        pytest.fail("mcp-server-time is missing: install the test extras (pip install -e '.[test]')")
    return str(script)


MCP1_SERVERS = TEST_DEPS / "mcp1-servers"
MCP1_REQUIREMENTS = ("mcp-server-sqlite==2025.4.25", "mcp-server-duckdb==1.1.0", "mcp==1.30.0", "duckdb==2.0.1")
"""Both servers need mcp 1.x, which conflicts with our mcp 2.x, and agree on everything else: one venv
and one install serve both."""


MCP1_FIXTURES = frozenset({"sqlite_server", "duckdb_server"})


@pytest.fixture(scope="session", autouse=True)
def mcp1_servers_installed_early(request: pytest.FixtureRequest) -> Iterator[None]:
    """Installing `MCP1_REQUIREMENTS` is mostly waiting on the package index (20-140 s wall, about
    17 s of CPU): when this session's tests need the venv, a thread installs it as the session starts,
    so the worker runs other tests meanwhile instead of waiting in the first fixture that asks for it."""
    if not any(MCP1_FIXTURES & set(item.fixturenames) for item in request.session.items):
        yield
        return
    installing = threading.Thread(target=install_mcp1_servers, name="mcp1-servers", daemon=True)
    installing.start()
    yield
    installing.join()  # never leave an install half done behind a finished session


@pytest.fixture(scope="session")
def sqlite_server() -> Path:
    """`mcp-server-sqlite` from PyPI: it needs mcp 1.x, which conflicts with our mcp 2.x."""
    return mcp1_console_script("mcp-server-sqlite")


@pytest.fixture(scope="session")
def duckdb_server() -> Path:
    """`mcp-server-duckdb` from PyPI, on mcp 1.x like sqlite; it too declares resources without templates."""
    return mcp1_console_script("mcp-server-duckdb")


def mcp1_console_script(name: str) -> Path:
    """A console script from the venv of `MCP1_REQUIREMENTS`; the test fails with pip's error if pip failed."""
    error = install_mcp1_servers()
    if error is not None:
        pytest.fail(error)
    return MCP1_SERVERS / ("Scripts" if os.name == "nt" else "bin") / name


def install_mcp1_servers() -> str | None:
    """Build the venv of `MCP1_REQUIREMENTS` on first use and reuse it while they stay the same; an
    interrupted or failed install is redone. A file lock makes parallel workers (and the early
    install's thread) build it once. The error, if pip failed."""
    bin_folder = MCP1_SERVERS / ("Scripts" if os.name == "nt" else "bin")
    stamp = MCP1_SERVERS / "installed.txt"
    wanted = "\n".join(MCP1_REQUIREMENTS) + "\n"
    TEST_DEPS.mkdir(exist_ok=True)
    with FileLock(TEST_DEPS / "mcp1-servers.lock"):
        if stamp.exists() and stamp.read_text(encoding="utf-8") == wanted:
            return None
        shutil.rmtree(MCP1_SERVERS, ignore_errors=True)
        # No pip of its own: our pip installs into it (`--python`), which saves seeding one.
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(MCP1_SERVERS)], check=True, timeout=300)
        install = subprocess.run(
            [sys.executable, "-m", "pip", "--python", str(bin_folder / "python"), "install", "-q",
             "--disable-pip-version-check", *MCP1_REQUIREMENTS],
            capture_output=True,
            text=True,
            timeout=900,
        )  # fmt: skip
        if install.returncode != 0:
            return f"cannot install {' '.join(MCP1_REQUIREMENTS)} into {MCP1_SERVERS}: {install.stderr[-2000:]}"
        stamp.write_text(wanted, encoding="utf-8")
    return None


def write_config(folder: Path, body: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text('[project]\nname = "demo"\n\n' + body, encoding="utf-8")
    return path


def interrupt_cli(
    *args: str,
    cwd: Path,
    until: Callable[[], bool],
    stop: signal.Signals = signal.SIGINT,
    sigint_ignored: bool = False,
) -> None:
    """Run `mcp-stubgen ARGS...` as a real process, send it `stop` (Ctrl-C's SIGINT, or SIGTERM) as soon
    as `until()` holds (within a minute), and check it stops the way docs/exit-codes.md says: exit 130
    (143 for SIGTERM), one "interrupted" line, no traceback.

    `sigint_ignored` starts it as a shell starts a background job (`cmd &`): SIGINT ignored, so
    neither Python nor asyncio installs a handler for it."""
    command = [sys.executable, "-m", "codegen.cli", *args]
    if sigint_ignored:
        ignoring = (
            "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])"
        )
        command = [sys.executable, "-c", ignoring, *command]
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    deadline = time.monotonic() + 60
    while not until():
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise AssertionError(f"the condition to interrupt at never held: {process.communicate()[1]!r}")
        time.sleep(0.05)
    process.send_signal(stop)
    _out, err = process.communicate(timeout=30)
    assert process.returncode == (143 if stop == signal.SIGTERM else 130), err
    assert b"interrupted" in err and b"Traceback" not in err


def import_generated(out: Path, module: str) -> ModuleType:
    """Import `module` (`weather`, `weather.models`) of a package generated into the output folder `out`.

    A generated package imports its folder's runtime relatively (`.._mcp_runtime`), so it is imported
    as a subpackage of the folder, `<out.name>.<module>`, with the folder's parent on the path."""
    if str(out.parent) not in sys.path:
        sys.path.insert(0, str(out.parent))
    return importlib.import_module(f"{out.name}.{module}")


def forget_generated(out: Path) -> None:
    """Undo `import_generated`: the folder's parent leaves the path and its modules are forgotten."""
    if str(out.parent) in sys.path:
        sys.path.remove(str(out.parent))
    for name in [name for name in sys.modules if name.split(".")[0] == out.name]:
        del sys.modules[name]


def interrupt_after_line(process: subprocess.Popen[str], prefix: str) -> str:
    """Read `process`'s stderr until a line starts with `prefix`, press Ctrl-C, and return everything
    it printed; the process is killed after two minutes whatever happens, so a hang fails the test."""
    timer = threading.Timer(120, process.kill)
    timer.start()
    try:
        assert process.stderr is not None
        lines = []
        for line in process.stderr:
            lines.append(line)
            if line.startswith(prefix):
                break
        process.send_signal(signal.SIGINT)
        lines.append(process.communicate(timeout=30)[1])
    finally:
        timer.cancel()
        process.kill()
    return "".join(lines)
