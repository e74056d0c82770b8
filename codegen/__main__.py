"""The `mcp-stubgen` console script and `python -m codegen`."""

import signal
import sys
from typing import NoReturn

from codegen.errors import INTERRUPTED, interrupt_on_terminate, stopped_code


def run() -> NoReturn:
    """`codegen.cli.run`, and a Ctrl-C (or SIGTERM) while Python is still loading it ends as one at
    any later moment does: exit 130 (143) and one line, no traceback (a loaded machine can take a
    second to get there, and nothing has been started or written yet)."""
    signal.signal(signal.SIGTERM, interrupt_on_terminate)
    try:
        from codegen.cli import run as command
    except KeyboardInterrupt:
        sys.stderr.write(INTERRUPTED + "\n")
        raise SystemExit(stopped_code()) from None
    command()


if __name__ == "__main__":
    run()
