"""A server whose tool names contain dots, for hub routing tests; `--role` picks its catalog.

`calc` offers `math.multiply` and `acme` offers `calc.math.divide`, so with server ids `acme.calc`
and `acme` the qualified names `acme.calc.math.multiply` and `acme.calc.math.divide` can only be
routed by lookup: no rule that splits at a dot sends both to the right server. Each result says
which role answered and which tool it ran.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

ROLE = sys.argv[sys.argv.index("--role") + 1] if "--role" in sys.argv else "calc"
server = MCPServer(f"dotted-{ROLE}", version="1.0.0")


class Answer(BaseModel):
    role: str
    tool: str
    value: float


if ROLE == "calc":

    @server.tool(name="math.multiply", description="Multiply two numbers.")
    def multiply(a: float, b: float) -> Answer:
        return Answer(role=ROLE, tool="math.multiply", value=a * b)

else:

    @server.tool(name="calc.math.divide", description="Divide a by b.")
    def divide(a: float, b: float) -> Answer:
        return Answer(role=ROLE, tool="calc.math.divide", value=a / b)


if __name__ == "__main__":
    server.run()
