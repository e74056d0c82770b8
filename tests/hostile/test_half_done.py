"""Nothing half-done: every server's snapshot and package are published together, a killed swap is
recovered on the next run, and two server ids never share one package or one snapshot file."""

from __future__ import annotations

import errno
import hashlib
import importlib
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from codegen.snapshot import Snapshot, write_snapshot
from tests.conftest import PYTHON, REPO, SERVERS, interrupt_after_line, interrupt_cli, write_config

PY = PYTHON
RAW = str(SERVERS / "raw_server.py")
PAGING = str(SERVERS / "paging_server.py")
publish_module = importlib.import_module("codegen.generate.publish")  # `codegen.generate.publish` is also a function


def server_table(name: str) -> str:
    return f'[tool.mcp-stubgen.servers.{name}]\ncommand = {json.dumps(PY)}\nargs = ["-c", "pass"]\n'


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        ("a-b", "a_b", "the package 'a_b'"),
        ("Weather", "weather", "the package 'weather'"),
        ("fooBar", "foobar", "the snapshot file 'foobar.json' (ignoring case)"),
    ],
)
def test_two_server_ids_sharing_a_package_or_snapshot_are_a_config_error(
    tmp_path: Path, run_cli, first: str, second: str, shared: str
) -> None:  # type: ignore[no-untyped-def]
    config = write_config(
        tmp_path, '[tool.mcp-stubgen]\noutput = "clients"\n' + server_table(f'"{first}"') + server_table(f'"{second}"')
    )
    for command in (("generate", "--check"), ("snapshot",), ("sync",), ("drift",), ("watch",)):
        result = run_cli(*command, "--config", config)
        assert result.exit_code == 2, (command, result.stderr)
        assert result.stderr == (
            f"error: {config}: server ids {first!r} and {second!r} would both write {shared}; rename one of them\n"
        )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pyproject.toml"]


@pytest.mark.parametrize(
    ("settings", "server", "owner"),
    [("hub = true", "Hub", "the hub's"), ("hub = true\ncode_mode = true", "code_mode", "code mode's")],
)
def test_a_server_id_taking_the_hubs_or_code_modes_folder_is_a_config_error(
    tmp_path: Path, run_cli, settings: str, server: str, owner: str
) -> None:  # type: ignore[no-untyped-def]
    """`sync` and `watch` publish a server's package before the hub's, so a server whose package is the
    hub's own folder replaced the hub there before the hub's check refused it."""
    config = write_config(tmp_path, f'[tool.mcp-stubgen]\noutput = "clients"\n{settings}\n' + server_table(server))
    package = "hub" if server == "Hub" else server
    for command in (("sync",), ("watch",), ("generate",), ("snapshot",)):
        result = run_cli(*command, "--config", config)
        assert result.exit_code == 2, (command, result.stderr)
        assert result.stderr == (
            f"error: {config}: server id {server!r} would write the package {package!r}, which is {owner} own "
            "folder; rename the server id\n"
        )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pyproject.toml"]


def test_a_servers_file_id_clashing_with_a_pyproject_id_is_a_config_error(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    servers_file = tmp_path / "mcp.json"
    servers_file.write_text(json.dumps({"mcpServers": {"a-b": {"command": PY, "args": ["-c", "pass"]}}}))
    config = write_config(tmp_path, '[tool.mcp-stubgen]\noutput = "clients"\n' + server_table('"a_b"'))
    result = run_cli("generate", "--config", config, "--servers-file", servers_file)
    assert result.exit_code == 2
    assert "server ids 'a-b' and 'a_b' would both write the package 'a_b'; rename one of them" in result.stderr
    # the same id in both places is an override, not a clash
    servers_file.write_text(json.dumps({"mcpServers": {"a_b": {"command": PY, "args": ["-c", "pass"]}}}))
    result = run_cli("generate", "--check", "--config", config, "--servers-file", servers_file)
    assert "would both write" not in result.stderr


# --- the package swap: a kill between its steps is repaired by the next run, success leaves nothing ---


def demo_snapshot(*tools: str) -> Snapshot:
    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    return Snapshot(
        server="demo",
        protocol_version="2025-06-18",
        capabilities={"tools": {}},
        tools=tuple({"name": name, "inputSchema": schema} for name in tools),
    )


def tree(folder: Path) -> dict[str, str]:
    """Every file under `folder` by relative path and SHA-256 (bytecode caches left out)."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def leftovers(*folders: Path) -> list[str]:
    """What a publish may leave beside a package or a snapshot: hidden entries."""
    return sorted(
        path.name for folder in folders if folder.is_dir() for path in folder.iterdir() if path.name[0] == "."
    )


def with_fault(fault: str, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`mcp-stubgen ARGS...` in a real process with `fault` planted (tests/publish_faults.py)."""
    return subprocess.run(
        [PY, "-m", "tests.publish_faults", fault, *map(str, args)],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("fault", "left_behind"),
    [
        # no renameat2: the old package renamed away, the new one not yet in: no package at all
        ("kill-between-renames", {"retired", "staging"}),
        # renameat2 swapped them in one step: the new package is in, the old one waits at the staging name
        ("kill-after-exchange", {"staging"}),
    ],
)
def test_a_kill_inside_the_package_swap_is_repaired_by_the_next_run(
    tmp_path: Path, run_cli, fault: str, left_behind: set[str]
) -> None:  # type: ignore[no-untyped-def]
    snapshot, out = tmp_path / "demo.json", tmp_path / "clients"
    write_snapshot(snapshot, demo_snapshot("alpha"))
    assert run_cli("generate", snapshot, "--out", out).exit_code == 0
    old = tree(out / "demo")

    write_snapshot(snapshot, demo_snapshot("alpha", "beta"))
    killed = with_fault(fault, "generate", snapshot, "--out", out, cwd=tmp_path)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert {name.split(".")[2].split("-")[0] for name in leftovers(out)} == left_behind
    assert (out / "demo").exists() == (fault == "kill-after-exchange")

    # The next run finds the package whole before anything else: the old one put back (so the old
    # snapshot is "up to date", nothing rewritten) or the new one kept, and every leftover deleted.
    expected = old if fault == "kill-between-renames" else None
    if expected is not None:
        write_snapshot(snapshot, demo_snapshot("alpha"))
    again = run_cli("generate", snapshot, "--out", out)
    assert again.exit_code == 0, again.stderr
    assert again.stderr == f"demo: unchanged {out / 'demo'}\n"
    assert leftovers(out) == []
    if expected is not None:
        assert tree(out / "demo") == expected
    assert run_cli("generate", "--check", snapshot, "--out", out).exit_code == 0


def dead_pid() -> int:
    """The id of a process that has exited."""
    process = subprocess.run([PY, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    return int(process.stdout)


def test_a_leftover_of_a_publish_still_running_elsewhere_is_left_alone(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    snapshot, out = tmp_path / "demo.json", tmp_path / "clients"
    write_snapshot(snapshot, demo_snapshot("alpha"))
    other = subprocess.Popen([PY, "-c", "import time; time.sleep(60)"])
    try:
        busy = out / f".demo.staging-{other.pid}-abcdefgh"
        busy.mkdir(parents=True)
        stale = out / f".demo.staging-{dead_pid()}-abcdefgh"
        stale.mkdir()
        assert run_cli("generate", snapshot, "--out", out).exit_code == 0
        assert leftovers(out) == [busy.name]
    finally:
        other.kill()
        other.wait()


def test_publishing_leaves_nothing_behind(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    snapshot, out = tmp_path / "demo.json", tmp_path / "clients"
    for tools in (("alpha",), ("alpha", "beta"), ("beta",), ("beta",)):
        write_snapshot(snapshot, demo_snapshot(*tools))
        assert run_cli("generate", snapshot, "--out", out).exit_code == 0
        assert leftovers(out, tmp_path) == []
    assert sorted(path.name for path in out.iterdir()) == ["_mcp_runtime", "demo"]


# --- sync and watch publish each server's snapshot and package together ---


def sync_project(folder: Path, *servers: tuple[str, str, tuple[str, ...]]) -> None:
    tables = "".join(
        f"[tool.mcp-stubgen.servers.{name}]\ncommand = {json.dumps(PY)}\nargs = {json.dumps([script, *args])}\n"
        for name, script, args in servers
    )
    write_config(folder, f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n{tables}')


def paging(tools: int) -> tuple[str, str, tuple[str, ...]]:
    return ("paging", PAGING, (str(tools),))


def tool_names(snapshot: Path) -> list[str]:
    return [tool["name"] for tool in json.loads(snapshot.read_text(encoding="utf-8"))["tools"]]


@pytest.fixture
def synced(tmp_path: Path, run_cli, monkeypatch) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """A project whose paging server (8 tools) is synced; now it lists 9. The committed files' hashes."""
    monkeypatch.chdir(tmp_path)
    sync_project(tmp_path, paging(8))
    assert run_cli("sync").exit_code == 0
    sync_project(tmp_path, paging(9))
    return tree(tmp_path)


def assert_fully_old(folder: Path, committed: dict[str, str], run_cli) -> None:  # type: ignore[no-untyped-def]
    assert tree(folder) == committed
    assert leftovers(folder / "snaps", folder / "clients") == []
    assert run_cli("generate", "--check", "--config", folder / "pyproject.toml").exit_code == 0


@pytest.mark.parametrize(
    ("fault", "exit_code", "message"),
    [
        ("disk-error-staging", 2, "error: server 'paging': cannot write {package} and {snapshot} (Input/output error)"),
        (
            "disk-error-after-swap",
            2,
            "error: server 'paging': cannot write {package} and {snapshot} (Input/output error)",
        ),
        ("ctrl-c-after-swap", 130, "interrupted; files already written are left as they were"),
    ],
)
def test_a_failed_or_interrupted_sync_leaves_snapshot_and_package_both_old(
    tmp_path: Path, run_cli, synced: dict[str, str], fault: str, exit_code: int, message: str
) -> None:  # type: ignore[no-untyped-def]
    """Before, the snapshot was written first: a publish that then failed (here: the disk fails while
    the package is staged) left the new snapshot beside the old package, and `generate --check`
    rejected the pair. A failure or a Ctrl-C after the package is in, before the snapshot is, puts
    the old package back."""

    def failing_write(file: tuple[Path, bytes]) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    with pytest.MonkeyPatch.context() as patch:
        if fault == "disk-error-staging":
            patch.setattr(publish_module, "_write_durably", failing_write)
        else:
            real_swap = publish_module._swap

            def swap_then_fail(staging: Path, target: Path) -> None:
                real_swap(staging, target)
                if fault == "ctrl-c-after-swap":
                    raise KeyboardInterrupt
                raise OSError(errno.EIO, os.strerror(errno.EIO))

            patch.setattr(publish_module, "_swap", swap_then_fail)
        result = run_cli("sync")
    assert result.exit_code == exit_code
    package, snapshot = "clients/paging", "snaps/paging.json"  # relative to the working directory
    assert message.format(package=package, snapshot=snapshot) in result.stderr
    assert_fully_old(tmp_path, synced, run_cli)


def test_a_sync_killed_between_package_and_snapshot_is_undone_by_the_next_run(
    tmp_path: Path, run_cli, synced: dict[str, str]
) -> None:  # type: ignore[no-untyped-def]
    killed = with_fault("kill-after-swap", "sync", cwd=tmp_path)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert "async def tool_008(" in (tmp_path / "clients" / "paging" / "client.py").read_text(encoding="utf-8")
    assert len(tool_names(tmp_path / "snaps" / "paging.json")) == 8  # the new package beside the old snapshot

    # The next sync repairs it first, even though this time the server cannot be reached at all.
    sync_project(tmp_path, ("paging", RAW, ("--mode", "crash-start")))
    assert run_cli("sync").exit_code == 2
    sync_project(tmp_path, paging(9))
    assert_fully_old(tmp_path, synced, run_cli)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_during_sync_keeps_each_server_whole(
    tmp_path: Path, run_cli, synced: dict[str, str], stop: signal.Signals
) -> None:  # type: ignore[no-untyped-def]
    """A real SIGINT once the paging server's new catalog is published while the raw server still hangs
    in tools/list: paging is new in both files, raw old in both, and `--check` agrees with the pair."""
    sync_project(tmp_path, paging(8), ("raw", RAW, ()))
    assert run_cli("sync").exit_code == 0
    raw_snapshot = tmp_path / "snaps" / "raw.json"
    raw_before = (raw_snapshot.read_bytes(), tree(tmp_path / "clients" / "raw"))
    sync_project(tmp_path, paging(9), ("raw", RAW, ("--mode", "hang-after-handshake")))
    snapshot = tmp_path / "snaps" / "paging.json"
    interrupt_cli("sync", cwd=tmp_path, until=lambda: len(tool_names(snapshot)) == 9, stop=stop)

    assert "async def tool_008(" in (tmp_path / "clients" / "paging" / "client.py").read_text(encoding="utf-8")
    assert (raw_snapshot.read_bytes(), tree(tmp_path / "clients" / "raw")) == raw_before
    assert leftovers(tmp_path / "snaps", tmp_path / "clients") == []
    check = run_cli("generate", "--check", "--config", tmp_path / "pyproject.toml")
    assert check.exit_code == 0, check.stdout


def test_watch_publishes_snapshot_and_package_together(tmp_path: Path, run_cli, synced: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    """`watch` sees the ninth tool at once and fails to publish it after swapping the package in: the
    package is put back, the snapshot never written, and watch carries on until Ctrl-C."""
    process = subprocess.Popen(
        [PY, "-m", "tests.publish_faults", "fail-after-swap", "watch", "--interval", "60"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    stderr = interrupt_after_line(process, "paging: watching")
    assert process.returncode == 0, stderr
    package, snapshot = "clients/paging", "snaps/paging.json"  # relative to the working directory
    assert f"error: server 'paging': cannot write {package} and {snapshot} (Input/output error)" in stderr
    assert_fully_old(tmp_path, synced, run_cli)


def test_leftovers_from_elsewhere_never_reach_outside_the_output_folder(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A journal or a retired folder committed to a repository by someone else is not a publish of ours:
    a journal naming a folder outside is dropped, a symlink posing as a retired package is removed, and
    what they point at is untouched."""
    snapshot, out = tmp_path / "demo.json", tmp_path / "clients"
    write_snapshot(snapshot, demo_snapshot("alpha"))
    victim = tmp_path / "victim"
    (victim / "keep").mkdir(parents=True)
    (victim / "keep" / "file.txt").write_text("mine")
    out.mkdir()
    record = {"staging": "../victim", "snapshot": str(victim / "keep" / "file.txt"), "staged": "file.txt", "old": 1}
    (out / ".demo.publishing").write_text(f"{dead_pid()}\n{json.dumps(record)}\n")
    (out / f".demo.retired-{dead_pid()}-abcdefgh").symlink_to(victim / "keep")
    result = run_cli("generate", snapshot, "--out", out)
    assert result.exit_code == 0, result.stderr
    assert (victim / "keep" / "file.txt").read_text() == "mine"
    assert leftovers(out) == []
    assert not (out / "demo").is_symlink() and (out / "demo" / "client.py").is_file()
