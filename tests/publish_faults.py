"""Run `mcp-stubgen ARGS...` with a fault planted in publishing, to leave on disk exactly what a kill or
a failure at that step leaves:

    python -m tests.publish_faults FAULT ARGS...

- `kill-between-renames`: no `renameat2` (as on macOS), SIGKILL right after the old package is renamed away;
- `kill-after-exchange`: SIGKILL right after `renameat2(RENAME_EXCHANGE)` swapped the folders;
- `kill-after-swap`: SIGKILL after the package is swapped in, before its snapshot is written;
- `fail-after-swap`: an I/O error at that same point.
"""

from __future__ import annotations

import errno
import importlib
import os
import signal
import sys
from pathlib import Path

from codegen.cli import main

publish = importlib.import_module("codegen.generate.publish")  # `codegen.generate.publish` is also a function


def kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def plant(fault: str) -> None:
    real_swap, real_exchange, real_replace = publish._swap, publish._exchange, os.replace
    if fault == "kill-between-renames":

        def replace(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
            real_replace(source, destination)
            if ".retired-" in os.fspath(destination):
                kill()

        publish._exchange = lambda first, second: False  # type: ignore[assignment]
        os.replace = replace  # type: ignore[assignment]
    elif fault == "kill-after-exchange":

        def exchange(first: Path, second: Path) -> bool:
            swapped = real_exchange(first, second)
            kill()
            return swapped

        publish._exchange = exchange  # type: ignore[assignment]
    elif fault in ("kill-after-swap", "fail-after-swap"):

        def swap(staging: Path, target: Path) -> None:
            real_swap(staging, target)
            if fault == "kill-after-swap":
                kill()
            raise OSError(errno.EIO, os.strerror(errno.EIO))

        publish._swap = swap  # type: ignore[assignment]
    else:
        raise SystemExit(f"unknown fault {fault!r}")


if __name__ == "__main__":
    plant(sys.argv[1])
    main(sys.argv[2:])
