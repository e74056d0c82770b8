"""Work done beside the generating process gives what in-process work gives: a command's warm worker
does the small jobs it was started for, and whatever goes wrong there is done again in-process."""

from __future__ import annotations

import functools
import gc
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from benchmarks.catalog import make_tools
from codegen.generate.parallel import MIN_PARALLEL_ITEMS, YOUNG_COLLECTION_THRESHOLD, map_batches, warm_up, warm_workers
from codegen.snapshot import Snapshot, write_snapshot

ROOT = Path(__file__).resolve().parent.parent


def _prepare() -> None:
    """What a warm worker loads before its first job (here: nothing)."""


def _failing_prepare() -> None:
    raise RuntimeError("cannot load")


def _with_process(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(item, os.getpid()) for item in items]


def _collection_threshold(items: Sequence[int]) -> list[int]:
    return [gc.get_threshold()[0] for _ in items]


def _failing_elsewhere(parent: int, items: Sequence[int]) -> list[int]:
    if os.getpid() != parent:
        raise RuntimeError("fails outside the parent")
    return [item * 2 for item in items]


def test_a_warm_worker_does_the_small_jobs_it_was_started_for_within_its_commands_scope() -> None:
    with warm_workers():
        warm_up(_prepare)
        first = map_batches(_with_process, [1, 2, 3], _prepare)
        second = map_batches(_with_process, [4], _prepare)
        unprepared = map_batches(_with_process, [5], None)
    after = map_batches(_with_process, [6], _prepare)
    assert [item for item, _ in first + second] == [1, 2, 3, 4]
    workers = {pid for _, pid in first + second}
    assert len(workers) == 1 and os.getpid() not in workers, "one worker beside this process did both jobs"
    assert unprepared == [(5, os.getpid())], "work for which no worker was warmed up stays here"
    assert after == [(6, os.getpid())], "the worker ends with its command"


_LOADED: list[str] = []


def _load_all() -> None:
    _LOADED.append("all")


def _load_less() -> None:
    _LOADED.append("less")


def _loaded(items: Sequence[int]) -> list[list[str]]:
    return [list(_LOADED) for _ in items]


def test_a_warm_worker_started_with_less_serves_the_work_of_its_prepare() -> None:
    """`warm_up(prepare, start=...)`: the worker loads `start` alone (an incremental generate's worker
    leaves most of datamodel-code-generator to a tool that needs it) and takes the jobs given with
    `prepare`, which this process never runs."""
    with warm_workers():
        warm_up(_load_all, start=_load_less)
        assert map_batches(_loaded, [1, 2], _load_all) == [["less"], ["less"]]
    assert _LOADED == []


def test_warming_up_outside_a_commands_scope_starts_nothing() -> None:
    warm_up(_prepare)
    assert map_batches(_with_process, [1], _prepare) == [(1, os.getpid())]


def test_a_job_failing_in_the_worker_or_a_worker_that_cannot_load_leaves_the_work_to_this_process() -> None:
    failing = functools.partial(_failing_elsewhere, os.getpid())
    with warm_workers():
        warm_up(_prepare)
        assert map_batches(failing, [1, 2], _prepare) == [2, 4]
        assert map_batches(failing, [3], _prepare) == [6], "the worker served on after a failure"
    with warm_workers():
        warm_up(_failing_prepare)
        assert map_batches(_with_process, [1], _failing_prepare) == [(1, os.getpid())]


_KILLED_WITH_A_WORKER = """
import os, signal, sys
from codegen.generate.parallel import warm_up, warm_workers
def prepare():
    pass
with warm_workers():
    warm_up(prepare)
    print("started", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_commands_worker_ends_with_it() -> None:
    """A command killed (by a signal, as a CI job's timeout does) leaves no worker behind holding its
    output open: whoever waits for that output is not kept waiting."""
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_WITH_A_WORKER],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == -9 and done.stdout == "started\n"


_KILLED_BY_ITS_POOL = """
import os, signal
from codegen.generate import parallel
parallel._workers = lambda: 2
def kill_parent(items):
    os.kill(os.getppid(), signal.SIGKILL)
    return list(items)
parallel.map_batches(kill_parent, list(range(4 * parallel.MIN_PARALLEL_ITEMS)))
"""


def test_a_command_killed_while_its_pool_works_leaves_no_worker_behind() -> None:
    """The pool's workers, forked with the parent's end of their work queue, waited for work forever
    once a `generate` was killed while they worked, holding its stdout open: a `| tee` never ended."""
    command = subprocess.Popen(
        [sys.executable, "-c", _KILLED_BY_ITS_POOL],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        command.communicate(timeout=60)  # returns once every process holding the pipes has ended
    except subprocess.TimeoutExpired:
        os.killpg(command.pid, signal.SIGKILL)
        raise
    assert command.returncode == -9


@pytest.mark.performance_guard
@pytest.mark.parametrize("count", [1, MIN_PARALLEL_ITEMS - 1, 4 * MIN_PARALLEL_ITEMS])
def test_work_in_this_process_collects_garbage_as_seldom_as_a_workers(count: int) -> None:
    """A small job (a hub's servers, or any job on one core) ran with Python's default collections,
    a seventh of generating's CPU, while work sent to a pool's workers ran with fewer."""
    before = gc.get_threshold()
    assert set(map_batches(_collection_threshold, list(range(count)))) == {YOUNG_COLLECTION_THRESHOLD}
    assert gc.get_threshold() == before


_COUNTING_FORKS = """
import sys
forks = []
sys.addaudithook(lambda event, args: forks.append(event) if event == "os.fork" else None)
from codegen.cli import main
try:
    main(sys.argv[1:])
finally:
    print("processes forked:", len(forks), file=sys.stderr)
"""


def _forks_to_generate(snapshot: Path, out: Path) -> int:
    env = {**os.environ, "MCP_STUBGEN_CACHE_DIR": str(out.parent / f"{out.name}-cache")}
    command = [sys.executable, "-c", _COUNTING_FORKS, "generate", str(snapshot), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert (out / "_mcp_runtime").is_dir()
    return int(done.stderr.splitlines()[-1].removeprefix("processes forked: "))


def test_a_small_catalogs_models_are_made_in_process_and_a_large_ones_over_the_cores(tmp_path: Path) -> None:
    """Forked workers cost about 0.1 s of CPU more than they save on a small catalog (17 tools, 11 KB:
    0.08 s in-process against 0.17 s over two workers, and more wall on a busy machine): its models are
    made in-process, whatever its tool count; a catalog of larger tools is still spread over the cores."""
    assert _forks_to_generate(ROOT / "golden" / "everything" / "snapshot.json", tmp_path / "small") == 0
    large = tmp_path / "large.json"
    write_snapshot(
        large,
        Snapshot(
            server="large", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(make_tools(24))
        ),
    )
    if len(os.sched_getaffinity(0)) > 1:
        assert _forks_to_generate(large, tmp_path / "large") >= 2
