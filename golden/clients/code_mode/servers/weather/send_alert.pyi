async def send_alert(
    *,
    message: str,
    severity: int = ...,
) -> str:
    """Raise an alert; fails for an empty message.

    Args:
        severity: Default: 1. Optional.
    Returns the tool's result value (its server sends it wrapped as `result`).
    Hints: destructive, open-world.
    """
