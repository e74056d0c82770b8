"""An `MCPServer` stdio server shaped like the 46-tool spreadsheet server of issue 12: 45 ordinary
tools beside `count_values`, which returns `dict[str, int]` (an `outputSchema` that is a map)."""

from __future__ import annotations

from collections import Counter

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("sheets", version="1.0.0")
CELLS: dict[str, str] = {"A1": "red", "A2": "blue", "A3": "red"}


class Cell(BaseModel):
    ref: str
    value: str


@server.tool(description="Count how often each value occurs in the sheet.")
def count_values() -> dict[str, int]:
    return dict(Counter(CELLS.values()))


@server.tool(description="Read one cell.")
def read_cell(ref: str) -> Cell:
    return Cell(ref=ref, value=CELLS.get(ref, ""))


def _ordinary(index: int) -> None:
    def column_width(sheet: str, column: int = 1) -> int:
        return 10 * column + index

    column_width.__name__ = f"column_width_{index:02d}"  # MCPServer names and titles the tool after it
    server.add_tool(column_width, description=f"Width of a column ({index}).")


for number in range(44):
    _ordinary(number)


if __name__ == "__main__":
    server.run("stdio")
