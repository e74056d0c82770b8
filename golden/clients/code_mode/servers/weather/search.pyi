async def search(
    *,
    query: str,
) -> list[str]:
    """Find the cities with a forecast whose name contains the query.

    Args:
        query: Part of a city name, in any case.
    Returns the tool's result value (its server sends it wrapped as `result`).
    Hints: destructive, open-world.
    """
