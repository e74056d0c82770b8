"""Request deadlines that the command's own work on the event loop does not use up.

`sync` renders a server's package on the event loop as soon as that server is listed, while other
servers may still be answering; the loop is held for seconds (a cold 1,000-tool package takes
about fifteen). An answer that arrives meanwhile waits unread, in a stdio server's pipe or an HTTP
server's socket, and a deadline that passed meanwhile would end its request as a timeout however
soon the server answered. So every deadline of a request to a server, over stdio, Streamable HTTP
and SSE alike, is taken here, and `held` moves them all by the time the loop was held. Over HTTP,
httpx and the MCP SDK are given no timeout of their own for discovery's requests: theirs would run
on while the loop is held.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import anyio

_open: set[anyio.CancelScope] = set()


@contextmanager
def deadline(seconds: float | None) -> Iterator[anyio.CancelScope]:
    """`anyio.fail_after(seconds)` (None: no deadline) that `held` moves later."""
    with anyio.fail_after(seconds) as scope, _moved_by_held(scope):
        yield scope


@contextmanager
def move_on_after(seconds: float) -> Iterator[anyio.CancelScope]:
    """`anyio.move_on_after(seconds)` that `held` moves later: its caller reads `cancelled_caught`."""
    with anyio.move_on_after(seconds) as scope, _moved_by_held(scope):
        yield scope


@contextmanager
def _moved_by_held(scope: anyio.CancelScope) -> Iterator[None]:
    _open.add(scope)
    try:
        yield
    finally:
        _open.discard(scope)


def held(seconds: float) -> None:
    """The loop was held for `seconds`, so no answer could be read: every open deadline moves by as much."""
    if seconds > 0:
        for scope in _open:
            scope.deadline += seconds


@contextmanager
def paused() -> Iterator[None]:
    """No open deadline runs inside: the time a person takes to log in in the browser is not the
    server's, so `connect_timeout` (30 s) does not end a login that takes a minute; each deadline
    resumes with the time it had left."""
    now = anyio.current_time()
    left = {scope: scope.deadline - now for scope in _open}
    for scope in left:
        scope.deadline = math.inf
    try:
        yield
    finally:
        now = anyio.current_time()
        for scope, seconds in left.items():
            scope.deadline = now + seconds
