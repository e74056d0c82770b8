"""OAuth for URL servers: `providers` builds the auth a server's config asks for, `command` is
`mcp-stubgen auth login|status|logout`. The token store itself is runtime code
(`codegen/runtime/_auth.py`), shared with generated clients."""
