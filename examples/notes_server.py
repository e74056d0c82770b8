"""A second example server, for the hub: a small notebook. Like the weather server it offers a
`search` tool, so one hub tells them apart only by qualified name (`notes.search`, `weather.search`).
Runs over stdio, or Streamable HTTP with `--http PORT`."""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

server = MCPServer(
    "notes", version="1.0.0", instructions="A small notebook: search notes by text and tag, add new ones."
)


class Note(BaseModel):
    id: int
    title: str
    tags: list[str]


class Hits(BaseModel):
    text: str = Field(description="The text that was searched for.")
    tag: str | None = Field(description="The tag the search was limited to, if any.")
    notes: list[Note]


NOTES = [
    Note(id=1, title="Pack an umbrella for Oslo", tags=["travel"]),
    Note(id=2, title="Buy coffee beans", tags=["shopping"]),
    Note(id=3, title="Book the train to Berlin", tags=["travel"]),
]


@server.tool(description="Find notes whose title contains the text, optionally only those with a tag.")
def search(
    text: Annotated[str, Field(description="Part of a note's title, in any case.")],
    tag: Annotated[str | None, Field(description="Only notes with this tag.")] = None,
) -> Hits:
    found = [note for note in NOTES if text.lower() in note.title.lower() and (tag is None or tag in note.tags)]
    return Hits(text=text, tag=tag, notes=found)


@server.tool(description="Add a note and return it with its new id.")
def add_note(title: str, tags: list[str] | None = None) -> Note:
    note = Note(id=len(NOTES) + 1, title=title, tags=tags or [])
    NOTES.append(note)
    return note


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", port=int(sys.argv[2]))
    else:
        server.run()
