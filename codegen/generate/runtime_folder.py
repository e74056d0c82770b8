"""The runtime every package in an output folder shares: `<output>/_mcp_runtime/`, written once per folder.

The packages and the hub import it relatively (`from .._mcp_runtime._runtime import ...`), so packages
that live side by side share one class per error, one `ToolResult`, one `CallOptions`. It holds the
files of `codegen/runtime/` byte for byte, and only those the folder's packages use: an optional
module (the task machinery, code mode's contract and sandbox) only while a package imports it, the
hub's modules only when the folder holds a hub.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from importlib.resources import files
from pathlib import Path

from codegen.generate.publish import MARKER, Published, diff_trees, publish, read_tree
from codegen.identifiers import HUB_PACKAGE

RUNTIME_PACKAGE = "_mcp_runtime"
"""The runtime's folder and import name under the output folder; a server's package name never starts
with an underscore, so none can clash with it."""
CORE_FILES = (
    "__init__.py",
    "_auth.py",
    "_http.py",
    "_loop_thread.py",
    "_runtime.py",
    "_schema_check.py",
    "_stdio.py",
    "_uri_template.py",
)
"""What every generated package imports."""
OPTIONAL_FILES = ("_code_mode.py", "_sandbox.py", "_tasks.py")
"""Shipped only while a package in the folder imports them: the task machinery for a package with a
tool that may run as a task (`execution.taskSupport`), code mode's contract and sandbox for the
code-mode package. A package that uses one imports it in its `__init__.py` (`_import_line`)."""
HUB_FILES = (
    "_audit.py",
    "_hub_catalog.py",
    "_hub_providers.py",
    "_hub_runtime.py",
    "_hub_search.py",
    "_unicode14.py",
    "_unicode14_unassigned.txt",
)
"""What only the hub imports, and the table its names are read by."""
_INIT_READ = 1 << 16
"""How much of a package's `__init__.py` is read for those imports, which come before any per-tool name."""


def _import_line(name: str) -> bytes:
    """The line of a package's `__init__.py` that imports the optional runtime file `name`."""
    return f"\nfrom .._mcp_runtime.{name.removesuffix('.py')} import ".encode()


def runtime_dir(out_dir: Path) -> Path:
    return out_dir / RUNTIME_PACKAGE


def runtime_files(with_hub: bool, optional: Iterable[str] = ()) -> dict[str, bytes]:
    """The runtime folder's files, byte for byte as shipped with mcp-stubgen, by file name: the core,
    the `optional` files named (of `OPTIONAL_FILES`), and the hub's modules when `with_hub`."""
    names = (*CORE_FILES, *optional, *(HUB_FILES if with_hub else ()))
    return {name: files("codegen.runtime").joinpath(name).read_bytes() for name in sorted(set(names))}


def optional_used(package: Mapping[str, bytes]) -> set[str]:
    """The optional runtime files a package's files (by relative path) import."""
    head = package.get("__init__.py", b"")[:_INIT_READ]
    return {name for name in OPTIONAL_FILES if _import_line(name) in head}


def optional_used_in(out_dir: Path) -> set[str]:
    """The optional runtime files the generated packages in the output folder import.

    Only a package folder's own regular `__init__.py` is read, never through a symlink, and only as
    far as those imports could be."""
    used: set[str] = set()
    for folder in sorted(out_dir.iterdir()) if out_dir.is_dir() else ():
        if folder.name == RUNTIME_PACKAGE or folder.name.startswith(".") or folder.is_symlink():
            continue  # the runtime itself, a publication's staging or retired folder, a link
        try:
            descriptor = os.open(folder / "__init__.py", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        with open(descriptor, "rb") as init:
            if stat.S_ISREG(os.fstat(descriptor).st_mode):
                used |= optional_used({"__init__.py": init.read(_INIT_READ)})
    return used


def holds_hub(out_dir: Path) -> bool:
    """Whether the output folder holds a generated hub, which the runtime's hub modules serve."""
    client = out_dir / HUB_PACKAGE / "client.py"
    try:
        with open(client, "rb") as handle:
            return handle.read(len(MARKER)) == MARKER
    except OSError:
        return False


def publish_runtime(out_dir: Path, with_hub: bool = False, coming: Iterable[Mapping[str, bytes]] = ()) -> Published:
    """Write the folder's runtime (atomically, like a package): with the hub's modules when `with_hub`
    or when the folder already holds a hub, and with each optional file a package in the folder or
    one of the package trees `coming` (about to be published there) imports.

    Published before the packages, it serves both their old and their new files, so a package that
    fails to publish still finds what it imports; once they are published, `publish_runtime(out_dir)`
    again drops what none of them imports any more."""
    optional = optional_used_in(out_dir).union(*(optional_used(package) for package in coming))
    return publish(runtime_files(with_hub or holds_hub(out_dir), optional), runtime_dir(out_dir))


def check_runtime(out_dir: Path, label: str, with_hub: bool = False) -> tuple[Path, str]:
    """The runtime folder and the diff from it to what this generator ships for the packages in the
    folder; empty when current."""
    target = runtime_dir(out_dir)
    expected = runtime_files(with_hub or holds_hub(out_dir), optional_used_in(out_dir))
    return target, diff_trees(expected, read_tree(target), label)


def prune_runtime(out_dir: Path, published: Published) -> Published:
    """Once the packages are published: the runtime without what none of them imports any more
    (`publish_runtime(out_dir)`), and what `published` (its publication before them) and this one
    changed together."""
    return merged(published, publish_runtime(out_dir))


def merged(earlier: Published, later: Published) -> Published:
    """What two publications of the runtime folder changed together, the later one's word last: a
    file the later one removes is removed, one it writes is written."""
    if not earlier.changed:
        return later
    if not later.changed:
        return earlier
    removed = {*(set(earlier.removed) - set(later.written)), *later.removed}
    written = {*earlier.written, *later.written} - removed
    return Published(later.path, True, tuple(sorted(written)), tuple(sorted(removed)))
