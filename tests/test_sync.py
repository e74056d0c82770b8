"""`mcp-stubgen sync`: snapshot then generate, with a failure leaving a server's files as they were."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import time
from contextlib import ExitStack
from pathlib import Path

from tests.conftest import EXAMPLE_SERVER, PYTHON, SERVERS, listening, write_config

PY = PYTHON
RAW = str(SERVERS / "raw_server.py")


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def project(folder: Path, servers: str) -> Path:
    return write_config(folder, f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n{servers}')


def server_table(name: str, *args: str) -> str:
    return f"[tool.mcp-stubgen.servers.{name}]\ncommand = {json.dumps(PY)}\nargs = {json.dumps(list(args))}\n"


def test_sync_writes_snapshot_and_an_importable_package(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    project(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    first = run_cli("sync")
    assert first.exit_code == 0, first.stderr
    assert "weather: wrote snaps/weather.json" in first.stderr
    assert "weather: generated clients/weather" in first.stderr
    # the folder's runtime is named as generate names it, when it is written
    assert "_mcp_runtime: generated clients/_mcp_runtime (8 file(s) written, 0 removed)" in first.stderr.splitlines()
    package = tmp_path / "clients" / "weather"
    assert {"__init__.py", "client.py", "models.py", "py.typed"} <= set(tree_digest(package))
    before = tree_digest(package)
    # sync renders through the same cache as generate, so the next sync or generate reuses its pieces
    assert any(path.is_file() for path in Path(os.environ["MCP_STUBGEN_CACHE_DIR"]).rglob("*"))

    again = run_cli("sync", "weather")
    assert again.exit_code == 0, again.stderr
    assert "weather: unchanged snaps/weather.json" in again.stderr
    assert "weather: unchanged clients/weather" in again.stderr
    assert "_mcp_runtime" not in again.stderr  # said only when it changed
    assert tree_digest(package) == before

    check = run_cli("generate", "--check")
    assert check.exit_code == 0, check.stdout + check.stderr

    imported = subprocess.run(
        [PY, "-c", "from clients.weather import WeatherClient; print(sorted(WeatherClient.tool_fingerprints))"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.strip() == "['celsius_to_fahrenheit', 'get_forecast', 'search', 'send_alert']"


def test_a_sync_with_a_hub_names_the_runtime_once_with_all_it_wrote(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Each server's package and then the hub add to the runtime folder; the run reports it once, at
    its end, as `generate` does (it said `_mcp_runtime` twice: the packages' files, then the hub's)."""
    monkeypatch.chdir(tmp_path)
    project(tmp_path, "hub = true\n" + server_table("weather", str(EXAMPLE_SERVER)))

    first = run_cli("sync")

    assert first.exit_code == 0, first.stderr
    runtime_lines = [line for line in first.stderr.splitlines() if line.startswith("_mcp_runtime")]
    assert runtime_lines == ["_mcp_runtime: generated clients/_mcp_runtime (15 file(s) written, 0 removed)"]
    assert first.stderr.splitlines()[-1] == runtime_lines[0]
    assert len(list((tmp_path / "clients" / "_mcp_runtime").iterdir())) == 15
    check = run_cli("generate", "--check")
    assert check.exit_code == 0, check.stdout + check.stderr


def test_sync_no_cache_neither_reads_nor_writes_the_cache(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCP_STUBGEN_CACHE_DIR", str(tmp_path / "cache"))
    project(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    result = run_cli("sync", "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert "weather: generated clients/weather" in result.stderr
    assert not (tmp_path / "cache").exists()
    check = run_cli("generate", "--check", "--no-cache")
    assert check.exit_code == 0, check.stdout + check.stderr


def test_a_failing_server_leaves_its_files_and_the_others_sync(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    project(tmp_path, server_table("legacy", RAW) + server_table("weather", str(EXAMPLE_SERVER)))
    assert run_cli("sync").exit_code == 0
    legacy_files = tree_digest(tmp_path / "clients" / "legacy")
    legacy_snapshot = (tmp_path / "snaps" / "legacy.json").read_bytes()

    # the legacy server now crashes at start-up: its snapshot and package stay exactly as they were
    project(
        tmp_path, server_table("legacy", RAW, "--mode", "crash-start") + server_table("weather", str(EXAMPLE_SERVER))
    )
    result = run_cli("sync")
    assert result.exit_code == 2
    assert "error: server 'legacy': the server closed the connection during start-up" in result.stderr
    assert "weather: unchanged snaps/weather.json" in result.stderr
    assert (tmp_path / "snaps" / "legacy.json").read_bytes() == legacy_snapshot
    assert tree_digest(tmp_path / "clients" / "legacy") == legacy_files


def test_a_catalog_that_cannot_be_generated_does_not_update_the_snapshot(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    project(tmp_path, server_table("legacy", RAW))
    assert run_cli("sync").exit_code == 0
    snapshot = (tmp_path / "snaps" / "legacy.json").read_bytes()
    package = tree_digest(tmp_path / "clients" / "legacy")

    project(tmp_path, server_table("legacy", RAW, "--mode", "ref-into-data"))
    result = run_cli("sync")
    assert result.exit_code == 2
    assert "error: server 'legacy': tool 'broken': /inputSchema/properties/x/$ref: " in result.stderr
    assert (tmp_path / "snaps" / "legacy.json").read_bytes() == snapshot
    assert tree_digest(tmp_path / "clients" / "legacy") == package


def test_a_full_disk_keeps_the_snapshot_and_package_and_says_to_free_space(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch
) -> None:
    """The disk fills while the new package is written: both files stay as they were, and the line
    says to free space where it said to check the folders' permissions."""
    monkeypatch.chdir(tmp_path)
    project(tmp_path, server_table("legacy", RAW))
    assert run_cli("sync").exit_code == 0
    snapshot = (tmp_path / "snaps" / "legacy.json").read_bytes()
    package = tree_digest(tmp_path / "clients" / "legacy")

    def full(file: tuple[Path, bytes]) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("codegen.generate.publish._write_durably", full)
    project(tmp_path, server_table("legacy", str(EXAMPLE_SERVER)))  # another catalog: a new package
    result = run_cli("sync")
    assert result.exit_code == 2
    assert (
        "error: server 'legacy': cannot write clients/legacy and snaps/legacy.json (No space left on device); "
        "free some space there (or raise the quota) and run again"
    ) in result.stderr.splitlines(), result.stderr
    assert (tmp_path / "snaps" / "legacy.json").read_bytes() == snapshot
    assert tree_digest(tmp_path / "clients" / "legacy") == package


def test_sync_needs_an_output_folder(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    config = write_config(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    result = run_cli("sync", "--config", config)
    assert result.exit_code == 2
    assert "set `output` under [tool.mcp-stubgen] to sync" in result.stderr


def test_a_sync_within_the_servers_ttl_sends_no_list_request(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A server that says its listing stays fresh for a minute (2026-07-28 `ttlMs`) is not listed again
    by a sync within that minute, the snapshot stays byte-identical and free of times, and `--refresh`
    lists it again."""
    monkeypatch.chdir(tmp_path)
    requests = tmp_path / "requests.txt"
    project(tmp_path, server_table("ttl", str(SERVERS / "ttl_server.py"), str(requests), "60000"))
    first = run_cli("sync")
    assert first.exit_code == 0, first.stderr
    assert requests.read_text().splitlines().count("tools/list") == 1
    snapshot = (tmp_path / "snaps" / "ttl.json").read_bytes()
    assert b"ttl" not in snapshot.replace(b'"ttl"', b"") and b"fresh" not in snapshot

    requests.write_text("")
    again = run_cli("sync")
    assert again.exit_code == 0, again.stderr
    assert requests.read_text() == ""  # not started, not listed
    assert "ttl: the server's listing is fresh for" in again.stderr
    assert "ttl: unchanged snaps/ttl.json" in again.stderr
    assert "ttl: unchanged clients/ttl" in again.stderr
    assert (tmp_path / "snaps" / "ttl.json").read_bytes() == snapshot

    refreshed = run_cli("sync", "--refresh")
    assert refreshed.exit_code == 0, refreshed.stderr
    assert requests.read_text().splitlines().count("tools/list") == 1
    assert "fresh for" not in refreshed.stderr


def test_a_listing_is_reused_only_while_fresh_and_unedited(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """No TTL (0) means every sync lists; an edited snapshot or a damaged record is listed again, never an error."""
    monkeypatch.chdir(tmp_path)
    requests = tmp_path / "requests.txt"
    project(
        tmp_path,
        server_table("stale", str(SERVERS / "ttl_server.py"), str(requests), "0")
        + server_table("fresh", str(SERVERS / "ttl_server.py"), str(requests), "60000"),
    )
    assert run_cli("sync").exit_code == 0
    requests.write_text("")
    again = run_cli("sync")
    assert again.exit_code == 0, again.stderr
    assert requests.read_text().splitlines().count("tools/list") == 1  # the server with no TTL only

    records = list(Path(os.environ["MCP_STUBGEN_CACHE_DIR"]).glob("listings-*/*.json"))
    assert len(records) == 1  # the server with no TTL has none
    records[0].write_text("{not json")
    requests.write_text("")
    damaged = run_cli("sync")
    assert damaged.exit_code == 0, damaged.stderr
    assert requests.read_text().splitlines().count("tools/list") == 2

    snapshot = tmp_path / "snaps" / "fresh.json"
    snapshot.write_bytes(snapshot.read_bytes().replace(b"Echo the text.", b"Edited."))
    requests.write_text("")
    edited = run_cli("sync")
    assert edited.exit_code == 0, edited.stderr
    assert requests.read_text().splitlines().count("tools/list") == 2
    assert b"Echo the text." in snapshot.read_bytes()


_OBSERVED_SYNC = """
import sys
from codegen.snapshot import stdio

start = stdio.start

def observed(*args, **kwargs):
    print("at start:", *sorted(name for name in ("mcp", "codegen.generate") if name in sys.modules))
    return start(*args, **kwargs)

stdio.start = observed
from codegen.cli import main
try:
    main(["sync"])
finally:
    print("loaded:", *sorted(name for name in ("black", "datamodel_code_generator") if name in sys.modules))
"""


def test_servers_start_before_the_sdk_loads_and_an_unchanged_sync_renders_nothing(tmp_path: Path) -> None:
    """The server is started before the MCP SDK and the generator are imported, so its start-up runs
    beside theirs; a sync whose package is proven unchanged loads neither black nor datamodel-code-generator."""
    project(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    runs = [
        subprocess.run([PY, "-c", _OBSERVED_SYNC], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert "at start:\n" in run.stdout, run.stdout
    assert "weather: unchanged clients/weather" in runs[1].stderr
    assert "loaded:\n" in runs[1].stdout, runs[1].stdout


def test_sync_starts_a_stdio_server_before_loading_pydantic(tmp_path: Path) -> None:
    """The server's start-up (about a second for a Python or Node server) runs beside everything sync
    loads after starting it; pydantic (snapshot validation) and `importlib.metadata` cost about 0.15 s
    before the first server could start."""
    project(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    report = (
        "import subprocess, sys\n"
        "start = subprocess.Popen.__init__\n"
        "def first(self, *args, **kwargs):\n"
        "    subprocess.Popen.__init__ = start\n"
        "    loaded = [name for name in ('pydantic', 'pydantic_core', 'importlib.metadata') if name in sys.modules]\n"
        "    print('loaded at the first start:', loaded, file=sys.stderr)\n"
        "    start(self, *args, **kwargs)\n"
        "subprocess.Popen.__init__ = first\n"
        "from codegen.cli import main\n"
        "main(['sync'])\n"
    )
    env = {**os.environ, "MCP_STUBGEN_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([PY, "-c", report], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "loaded at the first start: []" in result.stderr.splitlines(), result.stderr
    assert (tmp_path / "clients" / "weather" / "client.py").exists()


def test_sync_of_a_stdio_server_does_not_import_the_mcp_sdk(tmp_path: Path) -> None:
    """Listing a stdio server needs no SDK (`snapshot/stdio.py` speaks JSON-RPC, `snapshot/wire.py` reads
    the results as the SDK would); the SDK's import was most of a warm sync's CPU. A cold sync (the
    example's resource template is parsed) does not import it either; a warm one loads no generator,
    renderer or formatter, since its package is proven current."""
    project(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    heavy = ("mcp", "mcp_types", "httpx2", "jinja2", "black", "datamodel_code_generator")
    report = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print('imported:', [name for name in {heavy!r} if name in sys.modules], file=sys.stderr))\n"
        "from codegen.cli import main\n"
        "main(['sync'])\n"
    )
    env = {**os.environ, "MCP_STUBGEN_CACHE_DIR": str(tmp_path / "cache")}

    def imported() -> list[str]:
        result = subprocess.run([PY, "-c", report], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
        assert result.returncode == 0, result.stderr
        line = next(line for line in result.stderr.splitlines() if line.startswith("imported: "))
        return list(json.loads(line.removeprefix("imported: ").replace("'", '"')))

    cold = imported()
    assert "mcp" not in cold and "mcp_types" not in cold and "httpx2" not in cold, cold
    assert (tmp_path / "clients" / "weather" / "client.py").exists()
    assert imported() == []


_RUN_AS_THE_COMMAND = """
import atexit, os, sys, time
from codegen import cli
from codegen.generate import pipeline

class TornDown:
    def __del__(self):
        print("torn down", file=sys.stderr, flush=True)

kept = TornDown()  # a global of __main__: only the interpreter's teardown deletes it
atexit.register(print, "exit handlers ran", file=sys.stderr, flush=True)
started = os.environ.get("STARTED")
if started:
    def cannot_load():
        while not os.path.exists(started):  # the server has started and said so
            time.sleep(0.01)
        raise RuntimeError("the renderer cannot load")

    pipeline.load_renderer = cannot_load
sys.argv = ["mcp-stubgen", *sys.argv[1:]]
cli.run()
"""

_SLEEPER = "import os, sys, time; open(sys.argv[1] + '.tmp', 'w').write(str(os.getpid())); os.rename(sys.argv[1] + '.tmp', sys.argv[1]); time.sleep(600)"
"""A server that never answers and never exits by itself: it ends only when it is killed."""


def test_the_command_ends_without_the_interpreters_teardown_after_its_exit_handlers(tmp_path: Path) -> None:
    """`mcp-stubgen` (`cli.run`) ends its process once its exit handlers have run and its output is
    flushed: the interpreter's teardown of every object was 0.15-0.4 s of a cold sync. The handlers
    still run (they stop a server no session claimed: nothing is left running), the output is all
    there and the exit code is the command's."""
    project(tmp_path, server_table("weather", str(EXAMPLE_SERVER)))
    env = {**os.environ, "MCP_STUBGEN_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [PY, "-c", _RUN_AS_THE_COMMAND, "sync", "--format", "json"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["status"] for line in done.stdout.splitlines()] == ["generated", "generated"]
    assert done.stderr.splitlines()[-1] == "exit handlers ran"
    assert "torn down" not in done.stderr

    started = tmp_path / "sleeper.pid"
    (tmp_path / "failing").mkdir()
    project(tmp_path / "failing", server_table("sleeper", "-c", _SLEEPER, str(started)))
    failed = subprocess.run(
        [PY, "-c", _RUN_AS_THE_COMMAND, "sync"],
        cwd=tmp_path / "failing", capture_output=True, text=True, env={**env, "STARTED": str(started)}, timeout=120,
    )  # fmt: skip
    assert failed.returncode == 2, failed.stderr
    assert "internal error: RuntimeError: the renderer cannot load" in failed.stderr
    assert "torn down" not in failed.stderr
    server = int(started.read_text())
    assert not Path(f"/proc/{server}").exists() or "State:\tZ" in Path(f"/proc/{server}/status").read_text()


def render_first_for_five_seconds(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Make the render of server `first`'s package hold the event loop for 5 s, as a long render does:
    nothing else on the loop runs meanwhile."""
    from codegen.sync import publish

    rendered = publish.publish_with_snapshot

    def slowly(snapshot, *args, **kwargs):  # type: ignore[no-untyped-def]
        if snapshot.server == "first":
            time.sleep(5)
        return rendered(snapshot, *args, **kwargs)

    monkeypatch.setattr(publish, "publish_with_snapshot", slowly)


def test_a_package_rendered_while_another_server_answers_does_not_time_that_server_out(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch
) -> None:
    """`sync` renders a server's package on the event loop as soon as it is listed; a render that
    held the loop for 5 s failed another server's `tools/list`, answered after 1.5 s, as not
    answered within its 3 s (a cold package of a thousand tools holds it for fifteen)."""
    render_first_for_five_seconds(monkeypatch)
    monkeypatch.chdir(tmp_path)
    tables = server_table("first", RAW, "--mode", "slow-list", "--delay", "0.5")
    tables += server_table("second", RAW, "--mode", "slow-list", "--delay", "1.5")
    write_config(
        tmp_path,
        f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nrequest_timeout = 3\n{tables}',
    )
    result = run_cli("sync")
    assert result.exit_code == 0, result.stderr
    assert sorted(path.name for path in (tmp_path / "snaps").iterdir()) == ["first.json", "second.json"]


def test_a_package_rendered_while_http_servers_answer_does_not_time_them_out(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch
) -> None:
    """The HTTP twin of the test above: a render that held the loop for 5 s failed the Streamable HTTP
    and SSE servers that answered it after 1.5 s, in the handshake (`server/discover`, `initialize`)
    or in `tools/list`, as not answered within their 3 s: httpx's read timeout and the SDK's own
    request timeouts ran on while the loop was held, and `held` did not move them."""
    render_first_for_five_seconds(monkeypatch)
    monkeypatch.chdir(tmp_path)
    log = str(tmp_path / "requests.log")
    modern = "modern_http_server.py", "--log", log
    servers = {
        "first": (*modern, "--slow", "tools/list=0.5"),  # listed, then rendered, while the others wait
        "listing": (*modern, "--slow", "tools/list=1.5"),
        "handshake": (*modern, "--slow", "server/discover=1.5"),
        "sse_listing": ("sse_server.py", "--slow", "tools/list=1.5"),
        "sse_handshake": ("sse_server.py", "--slow", "initialize=1.5"),  # the legacy handshake, below
    }
    with ExitStack() as stack:
        tables = ""
        for name, (script, *args) in servers.items():
            port = stack.enter_context(listening(script, *args))
            sse = name.startswith("sse")
            url = f"http://127.0.0.1:{port}/{'sse' if sse else 'mcp'}"
            tables += f'[tool.mcp-stubgen.servers.{name}]\nurl = "{url}"\n' + ('type = "sse"\n' if sse else "")
            tables += 'protocol = "legacy"\n' if name == "sse_handshake" else ""
        write_config(
            tmp_path,
            '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n'
            f"connect_timeout = 3\nrequest_timeout = 3\n{tables}",
        )
        result = run_cli("sync")
    assert result.exit_code == 0, result.stderr
    assert sorted(path.stem for path in (tmp_path / "snaps").iterdir()) == sorted(servers)
