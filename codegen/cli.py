"""The `mcp-stubgen` command line. Exit codes: 0 ok, 1 findings or stale output, 2 could not run,
130 interrupted (143 by SIGTERM). Every expected failure is one line on stderr; `-v` adds the details."""

from __future__ import annotations

import atexit
import difflib
import errno
import importlib
import logging
import os
import signal
import sys
import threading
from typing import ClassVar, NoReturn

import click

from codegen import __version__, console
from codegen.errors import EXIT_ERROR, INTERRUPTED, StubgenError, interrupt_on_terminate, one_line, stopped_code
from codegen.redact import scrub_logs


class _LazyGroup(click.Group):
    """Imports a command's module only when that command runs, so `--help` and `--version` stay fast
    (the generator pulls in datamodel-code-generator and black, discovery the SDK's transports).

    Every command also takes `-q/--quiet` (as the group does), added here so none can miss it."""

    commands_by_name: ClassVar[dict[str, str]] = {
        "snapshot": "codegen.snapshot.command:snapshot",
        "generate": "codegen.generate.command:generate",
        "sync": "codegen.sync.command:sync",
        "drift": "codegen.drift.command:drift",
        "watch": "codegen.watch.command:watch",
        "inspect": "codegen.view.command:inspect",
        "list": "codegen.view.command:list_servers",
        "auth": "codegen.auth.command:auth",
        "check-scripts": "codegen.scripts.command:check_scripts_command",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands_by_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """A misspelt command names the closest one, as a misspelt option does."""
        name = args[0] if args else ""
        if name not in self.commands_by_name and not name.startswith("-") and not ctx.resilient_parsing:
            close = difflib.get_close_matches(name, self.commands_by_name, n=1)
            ctx.fail(f"No such command {name!r}." + (f" Did you mean {close[0]!r}?" if close else ""))
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.commands_by_name.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        if not any(parameter.name == "quiet" for parameter in command.params):
            console.quiet_option(command)
            _verbose_option(command)
        return command


class _LogLines(logging.Formatter):
    """A record from mcp-stubgen's own code (the runtime's transports it shares, which name the
    server) reads as the command's other lines, `warning: server: ...`; a library's record keeps its
    logger's name, which says whose it is."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        if record.name.startswith("codegen.") and record.levelno >= logging.WARNING:
            return f"{'error' if record.levelno >= logging.ERROR else 'warning'}: {text}"
        return f"{record.name}: {text}"


def _verbose_logging(verbose: bool) -> None:
    logging.getLogger().setLevel(logging.DEBUG if verbose else logging.WARNING)
    # The SDK logs a traceback for every stdout line a server gets wrong; our own one-line errors
    # say what matters, and -v brings the SDK's detail back.
    logging.getLogger("mcp").setLevel(logging.NOTSET if verbose else logging.CRITICAL)


def _set_verbose(context: click.Context, parameter: click.Parameter, value: bool) -> None:
    """`-v` before the command is read before logging is set up (the group's callback reads it from
    `meta`, which every context shares); after the command, it turns the details on at once."""
    if value:
        context.meta["verbose"] = True
        if context.parent is not None:
            _verbose_logging(True)


_verbose_option = click.option(
    "-v",
    "--verbose",
    is_flag=True,
    expose_value=False,
    callback=_set_verbose,
    help="Show details of failures (never secrets).",
)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mcp-stubgen")
@_verbose_option
@console.quiet_option
@click.pass_context
def cli(context: click.Context) -> None:
    """Snapshot MCP servers, generate typed clients from the snapshots, and report catalog drift."""
    # Inherited by every command's context: click.echo then styles (or strips) as the environment asks.
    context.color = console.colour()
    handler = logging.StreamHandler()
    handler.setFormatter(_LogLines())
    logging.basicConfig(handlers=[handler])
    # The SDK's and httpx's records quote what a server sent (a stdout line, a header): every record
    # is scrubbed of secrets and escaped before it is written, ours or not.
    scrub_logs()
    _verbose_logging(bool(context.meta.get("verbose")))


def main(argv: list[str] | None = None) -> None:
    """Entry point: turns expected failures into one line and a documented exit code."""
    verbose = "-v" in (argv or sys.argv[1:]) or "--verbose" in (argv or sys.argv[1:])
    console.begin()
    try:
        exit_code = cli.main(args=argv, prog_name="mcp-stubgen", standalone_mode=False)
    except StubgenError as error:
        _fail(str(error), error.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _stopped()
    except click.ClickException as error:
        error.show()
        code = EXIT_ERROR if error.exit_code == 1 else error.exit_code
        console.failed(one_line(error.format_message()), code)
        sys.exit(code)
    except Exception as error:  # a bug of ours: still one line, details behind -v
        if _caused_by_interrupt(error):
            _stopped()
        if verbose:
            raise
        # the file system refused (a path through a file, no space, no permission): not a bug
        refusal = _refused(error) if isinstance(error, OSError) else None
        if refusal is not None:
            _fail(refusal, EXIT_ERROR)
        click.echo(
            f"internal error: {type(error).__name__}: {one_line(str(error))} (re-run with -v and report it)", err=True
        )
        sys.exit(EXIT_ERROR)
    sys.exit(exit_code if isinstance(exit_code, int) else 0)


def _stopped() -> NoReturn:
    code = stopped_code()
    # The interrupt may have landed inside a constructor (an event loop half made, its self-pipe not yet
    # set, as the server hung while the command was still starting): that object's `__del__` at exit
    # would print "Exception ignored in ..." and a traceback under the one line.
    sys.unraisablehook = lambda _unraisable: None
    click.echo(INTERRUPTED, err=True)
    console.stopped(code)
    sys.exit(code)


def _caused_by_interrupt(error: BaseException) -> bool:
    """Whether a Ctrl-C (or SIGTERM) raised inside Python's own machinery came out as another error:
    in a class being created (an import), Python 3.11 reports it as `RuntimeError: Error calling
    __set_name__`, caused by the `KeyboardInterrupt`."""
    cause = error.__cause__
    while cause is not None:
        if isinstance(cause, KeyboardInterrupt):
            return True
        cause = cause.__cause__
    return False


def run() -> NoReturn:
    """The `mcp-stubgen` console script and `python -m codegen`: `main`, then the process ends as soon
    as its exit handlers have run and its output is flushed, without the interpreter's teardown of
    every module and object first (0.15-0.4 s after a cold `sync` or `generate`, most of it a full
    garbage collection of what datamodel-code-generator, pydantic and black loaded). While another
    thread still runs, or the output cannot be flushed, Python's own exit ends it, as before."""
    code: str | int | None = 0
    signal.signal(signal.SIGTERM, interrupt_on_terminate)
    # a forked worker is ended by SIGTERM as any process is; the command cleans up after it
    os.register_at_fork(after_in_child=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))
    try:
        main()
    except SystemExit as done:
        code = done.code
    if not isinstance(code, int) or _threads_running():
        sys.exit(code)
    atexit._run_exitfuncs()  # stops unclaimed servers, ends workers, flushes logs; they do not run twice
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: Python's exit reports it with its own exit code
        sys.exit(code)
    os._exit(code)


def _threads_running() -> bool:
    """Whether a thread Python's exit would wait for is alive."""
    main_thread = threading.main_thread()
    return any(thread is not main_thread and not thread.daemon for thread in threading.enumerate())


_MACHINE_REFUSALS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EMFILE, errno.ENFILE})
"""What a write can fail with for reasons of the machine alone, with no path to name."""


def _refused(error: OSError) -> str | None:
    """One line for an `OSError` no command turned into a `StubgenError`: the path and the system's
    reason; None for one that names no path and is not the machine's (a bug of ours: reported so)."""
    reason = error.strerror or one_line(str(error)) or type(error).__name__
    if error.filename is None:
        return f"{reason}; check the free space and permissions" if error.errno in _MACHINE_REFUSALS else None
    from pathlib import Path

    from codegen.fsutil import what_to_check
    from codegen.options import shown_path

    return f"{shown_path(Path(os.fsdecode(error.filename)))}: {reason}; {what_to_check(error)}"


def _fail(message: str, exit_code: int) -> None:
    """A failure of the whole run: one line on stderr, and with `--format json` one object on stdout."""
    console.error(message)
    console.failed(message, exit_code)
    sys.exit(exit_code)


if __name__ == "__main__":
    run()
