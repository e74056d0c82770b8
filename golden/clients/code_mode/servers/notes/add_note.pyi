from typing import TypedDict

class AddNoteResult(TypedDict):
    id: int
    tags: list[str]
    title: str

async def add_note(
    *,
    title: str,
    tags: list[str] | None = ...,
) -> AddNoteResult:
    """Add a note and return it with its new id.

    Args:
        tags: Default: null. Optional.
    Returns the tool's structured result.
    Hints: destructive, open-world.
    """
