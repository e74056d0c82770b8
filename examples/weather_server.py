"""A small MCP server for the quick start: tools with and without output schemas, a resource,
a resource template and a prompt, whose arguments it completes. Runs over stdio, Streamable HTTP with `--http PORT`,
or the older SSE transport with `--sse PORT`."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import Completion, CompletionArgument, CompletionContext, PromptReference, ResourceTemplateReference
from pydantic import BaseModel, Field

server = MCPServer("weather", version="1.0.0", instructions="Forecasts for any city, in either unit.")


class Units(StrEnum):
    metric = "metric"
    imperial = "imperial"


class Forecast(BaseModel):
    city: str
    temperature: float = Field(description="Temperature in the requested units.")
    conditions: str
    units: Units


@server.tool(description="Get the forecast for a city.")
def get_forecast(
    city: Annotated[str, Field(description="City name, e.g. 'Oslo'.")],
    days: Annotated[int, Field(ge=1, le=7, description="How many days ahead.")] = 1,
    units: Units = Units.metric,
) -> Forecast:
    temperature = 21.5 if units is Units.metric else 70.7
    return Forecast(city=city, temperature=temperature + days, conditions="sunny", units=units)


@server.tool(description="Convert a temperature from Celsius to Fahrenheit.")
def celsius_to_fahrenheit(celsius: float) -> float:
    return celsius * 9 / 5 + 32


CITIES = ("Berlin", "New York", "Oslo")


@server.tool(description="Find the cities with a forecast whose name contains the query.")
def search(query: Annotated[str, Field(description="Part of a city name, in any case.")]) -> list[str]:
    return [city for city in CITIES if query.lower() in city.lower()]


@server.tool(description="Raise an alert; fails for an empty message.")
def send_alert(message: str, severity: Annotated[int, Field(ge=0, le=5)] = 1) -> str:
    if not message:
        raise ValueError("message must not be empty")
    return f"alert sent ({severity}): {message}"


STATIONS = ("OSL", "BER", "NYC")


@server.resource("weather://stations", mime_type="application/json", description="All weather stations.")
def stations() -> str:
    return '["OSL", "BER", "NYC"]'


@server.resource("weather://stations/{station_id}/latest", mime_type="text/plain")
def latest_reading(station_id: str) -> str:
    """The latest reading of one station."""
    return f"{station_id}: 21.5C sunny"


@server.prompt(description="Ask for a packing list for a trip.")
def packing_list(city: str, days: str = "3") -> str:
    return f"What should I pack for {days} days in {city}?"


@server.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument, context: CompletionContext | None
) -> Completion | None:
    """Suggest the cities `packing_list` knows and the stations a reading is of."""
    typed = argument.value.lower()
    if isinstance(ref, PromptReference) and argument.name == "city":
        return Completion(values=[city for city in CITIES if city.lower().startswith(typed)])
    if isinstance(ref, ResourceTemplateReference) and argument.name == "station_id":
        return Completion(values=[station for station in STATIONS if station.lower().startswith(typed)])
    return None


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in ("--http", "--sse"):
        server.run("streamable-http" if sys.argv[1] == "--http" else "sse", port=int(sys.argv[2]))
    else:
        server.run()
