"""Errors the user can act on, and the exit codes the command line documents."""

from __future__ import annotations

from codegen.runtime._runtime import one_line as one_line  # the CLI shows server text as clients do

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


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is as Ctrl-C's `KeyboardInterrupt` is, so it stops the same
    way: files already written left as they were, temporary ones removed, servers stopped."""


def raise_terminated(_signal: int, _frame: object) -> None:
    """The SIGTERM handler of the command line: `Terminated` where the command is."""
    raise Terminated


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
