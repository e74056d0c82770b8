async def celsius_to_fahrenheit(
    *,
    celsius: float,
) -> float:
    """Convert a temperature from Celsius to Fahrenheit.

    Returns the tool's result value (its server sends it wrapped as `result`).
    Hints: destructive, open-world.
    """
