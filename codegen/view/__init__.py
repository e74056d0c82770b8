"""`mcp-stubgen inspect` and `mcp-stubgen list`: read-only views of the committed snapshots and packages."""
