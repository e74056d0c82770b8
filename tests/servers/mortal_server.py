"""A 2026-07-28 server over stdio (tools with `listChanged`, so a hub follows it on a
`subscriptions/listen` stream) whose `crash` tool ends its process at once, as a crash would."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("mortal")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


@server.tool(description="End this server's process without answering.")
def crash() -> str:
    os._exit(1)


if __name__ == "__main__":
    server.run()
