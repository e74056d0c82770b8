"""Errors the user can act on, and the exit codes the command line documents."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
"""Drift at or above the threshold, or `generate --check` found stale output."""
EXIT_ERROR = 2
"""Could not run: bad config or input, unreachable or misbehaving server."""
EXIT_INTERRUPTED = 130


class StubgenError(Exception):
    """A failure reported as one line, without a traceback; the message says what to do."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message
