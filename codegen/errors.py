"""Errors the user can act on, and the exit codes the command line documents."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
"""Drift at or above the threshold, or `generate --check` found stale output."""
EXIT_ERROR = 2
"""Could not run: bad config or input, unreachable or misbehaving server."""
EXIT_INTERRUPTED = 130
INTERRUPTED = "interrupted; files already written are left as they were"
"""The line a Ctrl-C ends a command with, whenever it comes."""


def one_line(text: str) -> str:
    """`text` with every non-printable character (newlines, terminal escapes, bidi controls) shown as
    its Python escape, so text a server supplied can neither start a new line (a CI workflow command)
    nor drive the terminal it is printed on."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode("ascii") for char in text)


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
