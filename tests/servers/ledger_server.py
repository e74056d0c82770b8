"""A stdio server whose tools say what they do (MCP tool annotations), one of each kind the sandbox's
approval policy tells apart: `balance` only reads its own ledger (read-only, closed-world),
`exchange_rate` only reads but asks an outside system (read-only, open-world), and `transfer`
changes the ledger (destructive, closed-world)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("ledger", version="1.0.0")
BALANCES = {"alice": 100, "bob": 20}


@server.tool(
    description="The balance of an account.", annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False)
)
def balance(account: str) -> int:
    return BALANCES[account]


@server.tool(
    description="Today's rate from one currency to another, from the central bank.",
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True),
)
def exchange_rate(source: str, target: str) -> float:
    return 1.1 if (source, target) == ("EUR", "USD") else 1.0


@server.tool(
    description="Move money between two accounts.",
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
)
def transfer(source: str, target: str, amount: int) -> int:
    BALANCES[source] -= amount
    BALANCES[target] += amount
    return BALANCES[source]


if __name__ == "__main__":
    server.run()
