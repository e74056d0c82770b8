"""The runtime of the packages mcp-stubgen generates, copied verbatim once per output folder as `_mcp_runtime/`.

Every package and the hub in that folder import it relatively (`from .._mcp_runtime._runtime import ...`),
so they share one class per error, `ToolResult` and `CallOptions`. Do not edit the copy: run
`mcp-stubgen generate` to refresh it.
"""
