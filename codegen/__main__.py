"""The `mcp-stubgen` console script and `python -m codegen`."""

import signal
import sys
from typing import NoReturn

from codegen.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, INTERRUPTED, Terminated, raise_terminated


def run() -> NoReturn:
    """`codegen.cli.run`, and a Ctrl-C (or SIGTERM) while Python is still loading it ends as one at
    any later moment does: exit 130 (143) and one line, no traceback (a loaded machine can take a
    second to get there, and nothing has been started or written yet)."""
    signal.signal(signal.SIGTERM, raise_terminated)
    try:
        from codegen.cli import run as command
    except KeyboardInterrupt as stopped:
        sys.stderr.write(INTERRUPTED + "\n")
        raise SystemExit(EXIT_TERMINATED if isinstance(stopped, Terminated) else EXIT_INTERRUPTED) from None
    command()


if __name__ == "__main__":
    run()
