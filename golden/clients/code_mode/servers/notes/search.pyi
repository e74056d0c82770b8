from typing import TypedDict

class Note(TypedDict):
    id: int
    tags: list[str]
    title: str

class SearchResult(TypedDict):
    notes: list[Note]
    tag: str | None
    """The tag the search was limited to, if any."""
    text: str
    """The text that was searched for."""

async def search(
    *,
    text: str,
    tag: str | None = ...,
) -> SearchResult:
    """Find notes whose title contains the text, optionally only those with a tag.

    Args:
        text: Part of a note's title, in any case.
        tag: Only notes with this tag. Default: null. Optional.
    Returns the tool's structured result.
    Hints: destructive, open-world.
    """
