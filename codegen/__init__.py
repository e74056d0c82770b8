"""mcp-stubgen: snapshot a live MCP server, generate a typed client from the snapshot, report drift."""

__version__ = "0.1.0"
"""The one statement of the version (pyproject.toml reads it from here): every command imports this
package, and asking `importlib.metadata` instead cost about 50 ms before a `sync` could start its servers."""
