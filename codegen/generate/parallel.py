"""Spread independent, CPU-bound pieces of work (models, black) over the machine's cores.

Forked workers inherit the already imported datamodel-code-generator and black, so a worker costs
milliseconds to start; small jobs stay in-process, where a pool would cost more than it saves.
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


def _workers() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def _run_batch(function: Callable[[Item], Result], batch: Sequence[Item]) -> list[Result]:
    return [function(item) for item in batch]


def map_pieces(function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
    """`[function(item) for item in items]`, in order, using every core when there is enough work.

    `function` must be a module-level function; exceptions propagate as they would in-process.
    """
    workers = min(_workers(), len(items) // (MIN_PARALLEL_ITEMS // 2) or 1)
    if workers < 2 or len(items) < MIN_PARALLEL_ITEMS or "fork" not in multiprocessing.get_all_start_methods():
        return [function(item) for item in items]
    size = max(1, -(-len(items) // (workers * 4)))
    batches = [items[start : start + size] for start in range(0, len(items), size)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        results = pool.map(_run_batch, [function] * len(batches), batches)
        return [result for batch in results for result in batch]
