"""A stdio server named as FastMCP names a server given no name: its class name and four random hex
digits (`FastMCP.generate_name`), drawn anew on every start, as authsome-mcp-proxy 0.8.0's
`FastMCPProxy-56ab`, then `FastMCPProxy-0cb0`, are. The class name is the first argument.

    python drawn_name_server.py [FastMCP|FastMCPProxy]
"""

from __future__ import annotations

import secrets
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer(f"{sys.argv[1] if len(sys.argv) > 1 else 'FastMCP'}-{secrets.token_hex(2)}", version="1.0.0")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    server.run()
