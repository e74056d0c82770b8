"""Where every command's output goes, so `--quiet`, `--format json`, `NO_COLOR` and `FORCE_COLOR`
mean the same thing for every command.

stderr carries lines for people: progress, notes and warnings (silenced by `--quiet`) and errors
(always). stdout carries a command's result (a drift report, a `--check` diff, a catalog view) and,
with `--format json`, one JSON object per line (JSON Lines) whose shape `JSON_FORMAT` versions.

The settings are the process's, not a click context's: `watch` prints from worker threads, which
have no click context.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from codegen.errors import INTERRUPTED, one_line

JSON_FORMAT = 1
"""Version of the JSON Lines shape of `snapshot`, `generate`, `sync`, `watch`, `inspect` and `list`;
bumped only on an incompatible change (a key removed or changing meaning), not when keys are added."""


@dataclass
class _Settings:
    quiet: bool = False
    json_command: str | None = None
    """The running command's name when its results are JSON lines on stdout."""
    failure_report: Callable[[str, int], str] | None = None
    """How the running command's own report formats (drift's `--format` and `--output`) say that the
    whole run failed or was interrupted, given the error and the exit code: it writes the command's
    report files and returns its stdout, so each is still a document a script can parse."""
    warned: set[str] = field(default_factory=set)
    """The warnings printed so far: one the command meets again (a hub renders its servers' packages
    once more; `watch` regenerates) says nothing new, and is not printed twice."""


_settings = _Settings()


def begin() -> None:
    """Forget the previous invocation's settings (tests run several in one process)."""
    global _settings
    _settings = _Settings()


def colour() -> bool | None:
    """What the environment asks for: `NO_COLOR` (any non-empty value) turns colour off, even on a
    terminal; `FORCE_COLOR` (any non-empty value) turns it on, even in a pipe or a CI log; `NO_COLOR`
    wins when both are set. None: colour only on a terminal, click's own rule."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return None


def quiet() -> bool:
    return _settings.quiet


def json_lines() -> bool:
    return _settings.json_command is not None


def note(message: str) -> None:
    """A line for people on stderr: progress, what was written, a note or a warning; its paths as an
    error's are (a servers file named in the config was its absolute path). One line whatever it
    quotes (`one_line`): a server's text or a file's name cannot start a line of a CI log."""
    if not _settings.quiet:
        click.echo(one_line(relative_paths(message)), err=True, color=colour())


def warn(message: str) -> None:
    if message not in _settings.warned:
        _settings.warned.add(message)
        note(f"warning: {message}")


def error(message: str) -> None:
    """An error line on stderr, printed even with `--quiet`; one line, as a note is."""
    click.echo(f"error: {one_line(relative_paths(message))}", err=True, color=colour())


def relative_paths(message: str) -> str:
    """`message` with paths under the working directory shown relative to it, as every other line
    shows paths (`snaps/notes.json`, not `/home/me/project/snaps/notes.json`); the working directory
    itself is `.`."""
    for folder in dict.fromkeys((str(Path.cwd()), str(Path.cwd().resolve()))):
        if folder == os.sep:
            continue
        boundary = r"(?<![\w./-])" + re.escape(folder)
        message = re.sub(boundary + re.escape(os.sep) + r"(?=[\w.-])", "", message)
        message = re.sub(boundary + r"(?![\w./-])", ".", message)
    return message


def result(text: str, nl: bool = True) -> None:
    """A command's result for people on stdout, printed even with `--quiet` (it is what was asked
    for); with `--format json` the JSON objects carry it instead, so stdout holds only JSON lines."""
    if _settings.json_command is None:
        click.echo(text, nl=nl, color=colour())


def emit(server: str | None, status: str, **fields: Any) -> None:
    """One JSON object on its own line on stdout, when the command runs with `--format json`.

    Every object has `format`, `command`, `server` (a server id, or null) and `status`; the rest
    depends on the command and status. ASCII only, so server text cannot reach the terminal raw."""
    if _settings.json_command is not None:
        click.echo(json_line(_settings.json_command, server, status, **fields), color=False)


def json_line(command: str, server: str | None, status: str, **fields: Any) -> str:
    """The object `emit` prints, without its newline."""
    document = {"format": JSON_FORMAT, "command": command, "server": server, "status": status}
    if isinstance(fields.get("error"), str):
        fields["error"] = relative_paths(fields["error"])
    return json.dumps({**document, **fields}, sort_keys=True)


def report_failures_with(report: Callable[[str, int], str] | None) -> None:
    """Set by a command whose report has formats of its own, so a failure of the whole run, or an
    interrupt, reaches stdout (and the report's files) in the formats asked for (`failed`, `stopped`);
    None once its report is out."""
    _settings.failure_report = report


def failed(message: str, exit_code: int) -> None:
    """A failure of the whole run on stdout, for a script reading it (people read the error line on
    stderr): with `--format json`, the error object; in a report format of the command's own, what
    that format says."""
    if _settings.failure_report is not None:
        click.echo(_settings.failure_report(one_line(relative_paths(message)), exit_code), nl=False, color=False)
    else:
        emit(None, "error", error=message, exit_code=exit_code)


def stopped(exit_code: int) -> None:
    """An interrupted run (Ctrl-C, SIGTERM) on stdout, as `failed` reports a failure: with `--format
    json`, the `interrupted` object; in a report format of the command's own, what that format says."""
    if _settings.failure_report is not None:
        click.echo(_settings.failure_report(INTERRUPTED, exit_code), nl=False, color=False)
    else:
        emit(None, "interrupted", exit_code=exit_code)


def _set_quiet(context: click.Context, parameter: click.Parameter, value: bool) -> None:
    if value:
        _settings.quiet = True


def _set_format(context: click.Context, parameter: click.Parameter, value: str) -> None:
    if value == "json":
        _settings.json_command = context.command.name


quiet_option = click.option(
    "-q",
    "--quiet",
    is_flag=True,
    expose_value=False,
    callback=_set_quiet,
    help="Print only errors on stderr (results on stdout are still printed).",
)

format_option = click.option(
    "--format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    expose_value=False,
    is_eager=True,
    callback=_set_format,
    help="json: also print one JSON object per line on stdout (see docs/cli.md for the shape).",
)
