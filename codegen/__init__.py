"""mcp-stubgen: snapshot a live MCP server, generate a typed client from the snapshot, report drift."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mcp-stubgen")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
