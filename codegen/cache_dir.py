"""Where mcp-stubgen keeps what it can always rebuild (generated pieces, compiled templates, listing
records): the user's cache folder, never the project. Its own module, so a command can find it
before it loads the generator."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "MCP_STUBGEN_CACHE_DIR"
"""Overrides the cache folder; otherwise `$XDG_CACHE_HOME/mcp-stubgen` (default `~/.cache/mcp-stubgen`)."""


def default_cache_dir() -> Path:
    """`MCP_STUBGEN_CACHE_DIR`, else the XDG user cache folder, so nothing lands in the project."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "mcp-stubgen"
