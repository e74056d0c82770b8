"""Spread independent, CPU-bound pieces of work (models, black) over the machine's cores.

Workers are forked, so one costs milliseconds to start and inherits everything the parent imported;
what it imports itself (datamodel-code-generator and black, on a cold run) it imports once, in
parallel with the other workers. Small jobs stay in-process, where a pool would cost more than it
saves. Work goes out in batches, so a worker can do once per batch what would otherwise cost once
per item (one black call for a batch of methods).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_PARALLEL_ITEMS = 16
"""Below this many pieces the work runs in-process: forking and pickling would cost more than it saves."""

MAX_BATCH = 16
"""Items per batch at most: the last batch to finish keeps the other workers idle for up to its
whole length (16 tools' models and methods take about half a second), while each batch costs
only a pickled round trip of a millisecond or so."""


def _workers() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def map_batches(function: Callable[[Sequence[Item]], list[Result]], items: Sequence[Item]) -> list[Result]:
    """`function(items)`, computed batch by batch and in order, using every core when there is enough work.

    `function` maps a batch to one result per item and must be a module-level function (or a
    `functools.partial` of one); exceptions propagate as they would in-process.
    """
    workers = min(_workers(), len(items) // (MIN_PARALLEL_ITEMS // 2) or 1)
    if workers < 2 or len(items) < MIN_PARALLEL_ITEMS or "fork" not in multiprocessing.get_all_start_methods():
        return function(items) if items else []
    size = min(MAX_BATCH, -(-len(items) // (workers * 4)))
    batches = [items[start : start + size] for start in range(0, len(items), size)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return [result for batch in pool.map(function, batches) for result in batch]
