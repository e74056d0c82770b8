"""The runtime every package in an output folder shares: `<output>/_mcp_runtime/`, written once per folder.

The packages and the hub import it relatively (`from .._mcp_runtime._runtime import ...`), so packages
that live side by side share one class per error, one `ToolResult`, one `CallOptions`. It holds the
files of `codegen/runtime/` byte for byte, and only those the folder's packages use: the hub's modules
only when the folder holds a hub.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from codegen.generate.publish import MARKER, Published, diff_trees, publish, read_tree
from codegen.identifiers import HUB_PACKAGE

RUNTIME_PACKAGE = "_mcp_runtime"
"""The runtime's folder and import name under the output folder; a server's package name never starts
with an underscore, so none can clash with it."""
CORE_FILES = ("__init__.py", "_auth.py", "_loop_thread.py", "_runtime.py", "_schema_check.py", "_tasks.py")
"""What every generated package imports."""
HUB_FILES = ("_audit.py", "_code_mode.py", "_hub_catalog.py", "_hub_providers.py", "_hub_runtime.py", "_sandbox.py")
"""What only the hub (and the code-mode package beside it) imports."""


def runtime_dir(out_dir: Path) -> Path:
    return out_dir / RUNTIME_PACKAGE


def runtime_files(with_hub: bool) -> dict[str, bytes]:
    """The runtime folder's files, byte for byte as shipped with mcp-stubgen, by file name."""
    names = CORE_FILES + HUB_FILES if with_hub else CORE_FILES
    return {name: files("codegen.runtime").joinpath(name).read_bytes() for name in sorted(names)}


def holds_hub(out_dir: Path) -> bool:
    """Whether the output folder holds a generated hub, which the runtime's hub modules serve."""
    client = out_dir / HUB_PACKAGE / "client.py"
    try:
        with open(client, "rb") as handle:
            return handle.read(len(MARKER)) == MARKER
    except OSError:
        return False


def publish_runtime(out_dir: Path, with_hub: bool = False) -> Published:
    """Write the folder's runtime (atomically, like a package): with the hub's modules when `with_hub`
    or when the folder already holds a hub."""
    return publish(runtime_files(with_hub or holds_hub(out_dir)), runtime_dir(out_dir))


def check_runtime(out_dir: Path, label: str, with_hub: bool = False) -> tuple[Path, str]:
    """The runtime folder and the diff from it to what this generator ships; empty when current."""
    target = runtime_dir(out_dir)
    return target, diff_trees(runtime_files(with_hub or holds_hub(out_dir)), read_tree(target), label)
