"""Errors the user can act on, and the exit codes the command line documents."""

from __future__ import annotations

import signal
import sys
from types import FrameType

EXIT_OK = 0
EXIT_FINDINGS = 1
"""Drift at or above the threshold, or `generate --check` found stale output."""
EXIT_ERROR = 2
"""Could not run: bad config or input, unreachable or misbehaving server."""
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
"""SIGTERM (a CI job cancelled, a container stopped): stopped as by Ctrl-C, exit 128 + 15."""
INTERRUPTED = "interrupted; files already written are left as they were"
"""The line a Ctrl-C (or SIGTERM) ends a command with, whenever it comes."""


def one_line(text: str) -> str:
    """The runtime's `one_line`: the command line shows server text as generated clients do. The
    runtime (2,000 lines) loads only for text that needs escaping: printable text is its own one
    line, and a command that prints nothing else never loads it."""
    if text.isprintable():
        return text
    from codegen.runtime._runtime import one_line as escaped

    return escaped(text)


class _Termination:
    requested = False
    """Whether a SIGTERM stopped the command: its exit code is then `EXIT_TERMINATED`."""


def interrupt_on_terminate(_signal: int, frame: FrameType | None) -> None:
    """The SIGTERM handler of the command line: what Ctrl-C does, by whatever handles SIGINT now
    (asyncio's, which cancels a running command cleanly, or Python's `KeyboardInterrupt`), so the
    command stops the same way: files already written left as they were, servers stopped."""
    _Termination.requested = True
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
        return
    # SIGINT ignored (a background job) or left to the system: stop all the same. Inside a running
    # event loop, between its tasks' steps: raised inside a step, the task ended with the interrupt and
    # asyncio.run's shutdown logged it with a traceback.
    asyncio = sys.modules.get("asyncio")  # not imported: no loop runs
    try:
        loop = asyncio.get_running_loop() if asyncio is not None else None
    except RuntimeError:
        loop = None
    if loop is None:
        raise KeyboardInterrupt
    loop.call_soon_threadsafe(_interrupt)


def _interrupt() -> None:
    raise KeyboardInterrupt


def stopped_code() -> int:
    """The exit code of a command that Ctrl-C or SIGTERM stopped."""
    return EXIT_TERMINATED if _Termination.requested else EXIT_INTERRUPTED


class StubgenError(Exception):
    """A failure reported as one line, without a traceback; the message says what to do.

    Messages quote server text (names, error messages, stderr), so the line is made printable here,
    once, for every command that shows it."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str) -> None:
        message = one_line(message)
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message
