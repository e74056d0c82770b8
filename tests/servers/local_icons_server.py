"""A stdio server whose icons name files in the folder it runs from, as ebay-mcp 1.15.0's
`serverInfo.icons` name its npx cache folder (`file:///home/<user>/.npm/_npx/.../icon.png`): the
same server installed elsewhere sends other paths. The server, a tool, a resource and a prompt each
carry one such icon; the server and the tool an https one too.

    python local_icons_server.py INSTALL_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import Icon

INSTALL = Path(sys.argv[1]).resolve()
LOCAL = Icon(src=INSTALL.joinpath("assets", "icon.png").as_uri(), mime_type="image/png")
HOSTED = Icon(src="https://example.com/icon.svg", mime_type="image/svg+xml")

server = MCPServer("icons", version="1.0.0", icons=[LOCAL, HOSTED])


@server.tool(description="Echo the text back.", icons=[HOSTED, LOCAL])
def echo(text: str) -> str:
    return text


@server.resource("note://readme", description="A note.", icons=[LOCAL])
def readme() -> str:
    return "hello"


@server.prompt(description="Greet.", icons=[LOCAL])
def greet(name: str) -> str:
    return f"Hello, {name}"


if __name__ == "__main__":
    server.run()
