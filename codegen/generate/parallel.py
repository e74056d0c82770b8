"""Spread independent, CPU-bound pieces of work (models, black) over the machine's cores.

Workers are forked, so one costs milliseconds to start and inherits everything the parent imported;
what it imports itself (datamodel-code-generator and black, on a cold run) it imports once, in
parallel with the other workers. Small jobs stay in-process, where a pool would cost more than it
saves. Work goes out in batches, so a worker can do once per batch what would otherwise cost once
per item (one black call for a batch of methods).
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.context import ForkContext

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_PARALLEL_ITEMS = 16
"""Below this many pieces the work runs in-process: forking and pickling would cost more than it saves."""

MAX_BATCH = 16
"""Items per batch at most: the last batch to finish keeps the other workers idle for up to its
whole length (16 tools' models and methods take about half a second), while each batch costs
only a pickled round trip of a millisecond or so."""


YOUNG_COLLECTION_THRESHOLD = 10_000
"""Allocations between collections of the youngest generation while generating (Python's default is
700): a models module's syntax tree alone is thousands of objects, so the default ran a collection
every few hundred nodes, and every tenth of those promoted the survivors toward a full collection."""

_collecting = threading.Lock()
_depth = 0
_thresholds: tuple[int, int, int] = gc.get_threshold()


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect garbage less often while generating: everything alive on entry (the imported modules,
    the snapshot) is frozen, so no collection scans it again (nor, in a forked worker, copies its
    pages by scanning them), and the youngest generation is collected every
    `YOUNG_COLLECTION_THRESHOLD` allocations. Collections took a seventh of a cold generate's CPU.
    Re-entrant and thread-safe: the outermost exit restores Python's settings."""
    global _depth, _thresholds
    with _collecting:
        if _depth == 0:
            _thresholds = gc.get_threshold()
            gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *_thresholds[1:])
        _depth += 1
        gc.freeze()
    try:
        yield
    finally:
        with _collecting:
            _depth -= 1
            if _depth == 0:
                gc.unfreeze()
                gc.set_threshold(*_thresholds)


def _fork_context() -> ForkContext | None:
    """The fork start method, where the platform has one. `multiprocessing` loads here, on first use: a
    `generate` that finds its packages current forks nothing, and its import was measurable there."""
    import multiprocessing

    return multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def _workers() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def map_batches(
    function: Callable[[Sequence[Item]], list[Result]],
    items: Sequence[Item],
    prepare: Callable[[], object] | None = None,
    small: bool = False,
) -> list[Result]:
    """`function(items)`, computed batch by batch and in order, using every core when there is enough work.

    `function` maps a batch to one result per item and must be a module-level function (or a
    `functools.partial` of one); exceptions propagate as they would in-process. `prepare` runs once in
    this process before any worker is forked, to load what every worker would otherwise load itself.
    `small`: the caller knows the work is too little to pay for forking workers, however many items
    it comes in (a warm worker still takes it).
    """
    workers = min(_workers(), len(items) // (MIN_PARALLEL_ITEMS // 2) or 1)
    context = None if small or workers < 2 or len(items) < MIN_PARALLEL_ITEMS else _fork_context()
    if context is None:
        warm = _warm.get(prepare) if items and prepare is not None else None
        done = warm.run(function, items) if warm is not None else None
        if done is not None:
            return done
        with fewer_collections():  # as the workers do: a hub's or a one-core machine's tools are built here
            return _in_batches(function, items)
    size = min(MAX_BATCH, -(-len(items) // (workers * 4)))
    batches = [items[start : start + size] for start in range(0, len(items), size)]
    if prepare is not None:
        prepare()
    from concurrent.futures import ProcessPoolExecutor

    alive, parents = context.Pipe(duplex=False)
    try:
        with (
            fewer_collections(),
            ProcessPoolExecutor(
                workers, mp_context=context, initializer=_end_with_parent, initargs=(alive, parents)
            ) as pool,
        ):
            return [result for batch in pool.map(function, batches) for result in batch]
    finally:
        alive.close()
        parents.close()


def _end_with_parent(alive: Connection, parents: Connection) -> None:
    """A pool worker's start: end the worker once the parent is gone, even killed (a CI job's timeout),
    rather than wait forever for work while holding the parent's stdout open."""
    parents.close()  # the parent's end, forked along: once the parent's own is closed, `recv` ends
    threading.Thread(target=_exit_at_end_of, args=(alive,), daemon=True).start()


def _exit_at_end_of(alive: Connection) -> None:
    with contextlib.suppress(EOFError, OSError):
        alive.recv_bytes()
    os._exit(1)


def _in_batches(function: Callable[[Sequence[Item]], list[Result]], items: Sequence[Item]) -> list[Result]:
    return [
        result for start in range(0, len(items), MAX_BATCH) for result in function(items[start : start + MAX_BATCH])
    ]


class _WarmWorker:
    """A worker forked early that runs a `prepare` (loads the method templates) while this process
    reads and plans, then does the small jobs `map_batches` would do in-process with that `prepare`.
    With one tool changed in a thousand, those imports were a third of the run, one core idle."""

    def __init__(self, prepare: Callable[[], object], context: ForkContext) -> None:
        self._connection, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(theirs, self._connection, prepare), daemon=True)
        self._process.start()
        theirs.close()

    def run(self, function: Callable[[Sequence[Item]], list[Result]], items: Sequence[Item]) -> list[Result] | None:
        """`function` over `items` in the worker; None when it failed there or the worker is gone: the
        caller then does the work itself, so a failure is raised (and reported) as in-process."""
        try:
            self._connection.send((function, items))
            results: list[Result] | None = self._connection.recv()
        except Exception:  # gone, or what was sent or answered does not pickle
            return None
        return results

    def stop(self) -> None:
        self._connection.close()
        self._process.kill()
        self._process.join()


def _serve(connection: Connection, parents: Connection, prepare: Callable[[], object]) -> None:
    """The warm worker: `prepare`, then each (function, items) sent, answered with the results, or None
    when it fails, until the connection closes (the parent ends, is killed or stops it). A failing
    `prepare` ends it quietly: the parent then does the work itself, and reports the failure."""
    parents.close()  # the parent's end, forked along: once the parent is gone, even killed, `recv` ends
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it stops this one
    try:
        prepare()
    except Exception:
        return
    with fewer_collections():
        while True:
            try:
                function, items = connection.recv()
            except (OSError, EOFError):
                return
            try:
                results: list[object] | None = _in_batches(function, items)
            except Exception:
                results = None
            try:
                connection.send(results)
            except Exception:  # an answer that does not pickle: the parent does the work itself
                return


_warm: dict[Callable[[], object], _WarmWorker] = {}
_warm_scopes = 0


@contextlib.contextmanager
def warm_workers() -> Iterator[None]:
    """A command's scope for `warm_up`: workers it starts serve every package the command renders, so
    each `prepare` runs once, and all are stopped at the end."""
    global _warm_scopes
    _warm_scopes += 1
    try:
        yield
    finally:
        _warm_scopes -= 1
        if _warm_scopes == 0:
            for worker in _warm.values():
                worker.stop()
            _warm.clear()


def warm_up(prepare: Callable[[], object], start: Callable[[], object] | None = None) -> None:
    """Fork a worker that runs `start` (by default `prepare`) now, beside this process, and then does
    the in-process-sized work `map_batches` is given with that `prepare` (`_WarmWorker`); only inside
    `warm_workers`, once. A `start` loads less than `prepare` where the rest may never be needed,
    and loads on first use in the worker when it is."""
    context = _fork_context() if _warm_scopes and prepare not in _warm else None
    if context is not None:
        _warm[prepare] = _WarmWorker(start or prepare, context)
