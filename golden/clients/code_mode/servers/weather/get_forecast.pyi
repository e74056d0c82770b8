from typing import Literal, TypedDict

class GetForecastResult(TypedDict):
    city: str
    conditions: str
    temperature: float
    """Temperature in the requested units."""
    units: Literal["metric", "imperial"]

async def get_forecast(
    *,
    city: str,
    days: int = ...,
    units: Literal["metric", "imperial"] = ...,
) -> GetForecastResult:
    """Get the forecast for a city.

    Args:
        city: City name, e.g. 'Oslo'.
        days: How many days ahead. Default: 1. Optional.
        units: Default: \"metric\". Optional.
    Returns the tool's structured result.
    Hints: destructive, open-world.
    """
