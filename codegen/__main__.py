"""The `mcp-stubgen` console script and `python -m codegen`."""

import sys
from typing import NoReturn

from codegen.errors import EXIT_INTERRUPTED, INTERRUPTED


def run() -> NoReturn:
    """`codegen.cli.run`, and a Ctrl-C while Python is still loading it ends as one at any later
    moment does: exit 130 and one line, no traceback (a loaded machine can take a second to get
    there, and nothing has been started or written yet)."""
    try:
        from codegen.cli import run as command
    except KeyboardInterrupt:
        sys.stderr.write(INTERRUPTED + "\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    command()


if __name__ == "__main__":
    run()
