"""End to end: snapshot a real server, generate its package, import it and call the server through it.

Servers run as subprocesses over stdio and over Streamable HTTP on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.snapshot import Snapshot
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import EXAMPLE_SERVER, PYTHON, SERVERS, forget_generated, import_generated


@pytest.fixture
def import_package(tmp_path: Path) -> Iterator[Any]:
    """Generate a snapshot's package into a temporary folder and import it; forget it afterwards."""

    def load(snapshot: Snapshot) -> ModuleType:
        return import_generated(tmp_path, generate_package(snapshot, tmp_path).path.name)

    try:
        yield load
    finally:
        forget_generated(tmp_path)


def stdio(script: Path) -> StdioServerParameters:
    return StdioServerParameters(command=PYTHON, args=[str(script)])


async def test_weather_over_stdio(import_package: Any) -> None:
    snapshot = await snapshot_server(ServerConfig(name="weather_stdio", command=PYTHON, args=(str(EXAMPLE_SERVER),)))
    package = import_package(snapshot)

    async with package.WeatherStdioClient.connect(stdio(EXAMPLE_SERVER)) as weather:
        forecast = await weather.get_forecast(city="Oslo", days=2, units="imperial")
        assert isinstance(forecast, package.GetForecastOutput)
        assert (forecast.city, forecast.temperature, forecast.units) == ("Oslo", 72.7, "imperial")
        assert (await weather.get_forecast(city="Oslo")).temperature == 22.5

        fahrenheit = await weather.celsius_to_fahrenheit(celsius=100)
        assert fahrenheit == 212.0 and isinstance(fahrenheit, float)

        with pytest.raises(package.ToolError) as failure:
            await weather.send_alert(message="")
        assert failure.value.tool == "send_alert" and "send_alert" in str(failure.value)
        assert await weather.send_alert(message="storm", severity=3) == "alert sent (3): storm"

        stations = await weather.read_stations()
        assert stations.contents[0].text == '["OSL", "BER", "NYC"]'
        reading = await weather.read_latest_reading(station_id="BER")
        assert reading.contents[0].text == "BER: 21.5C sunny"
        prompt = await weather.prompt_packing_list(city="Rome")
        assert "3 days in Rome" in prompt.messages[0].content.text
        prompt = await weather.prompt_packing_list(city="Rome", days="5")
        assert "5 days in Rome" in prompt.messages[0].content.text

        await weather.verify()


async def test_an_error_leaving_the_connection_block_reaches_the_caller_as_itself(import_package: Any) -> None:
    """Not an `ExceptionGroup` of the SDK's task groups: `except ToolError` outside the block catches it."""
    snapshot = await snapshot_server(ServerConfig(name="weather_raise", command=PYTHON, args=(str(EXAMPLE_SERVER),)))
    package = import_package(snapshot)
    with pytest.raises(package.ToolError) as failure:
        async with package.WeatherRaiseClient.connect(stdio(EXAMPLE_SERVER)) as weather:
            await weather.send_alert(message="")
    assert failure.value.tool == "send_alert"
    with pytest.raises(ExceptionGroup) as both:  # two errors stay a group: neither may be lost
        async with package.WeatherRaiseClient.connect(stdio(EXAMPLE_SERVER)):
            raise ExceptionGroup("two", [ValueError("one"), KeyError("two")])
    assert both.group_contains(ValueError) and both.group_contains(KeyError)


async def test_nested_models_take_snake_case_and_send_wire_names(import_package: Any) -> None:
    """Nested models are written like method parameters (`old_text=`, beside `dry_run=`), the server
    still receives its own names, and a validation error names the caller's keyword."""
    script = SERVERS / "keyword_server.py"
    snapshot = await snapshot_server(ServerConfig(name="nested", command=PYTHON, args=(str(script),)))
    package = import_package(snapshot)
    edit = package.EditFileInputEdit(old_text="a", new_text="b")
    assert edit.old_text == "a"

    async with package.NestedClient.connect(stdio(script)) as nested:
        echoed = await nested.edit_file(path="f.txt", edits=[edit], dry_run=True)
        assert echoed.received == {"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}], "dryRun": True}
        with pytest.raises(package.ToolArgumentsError, match=r"argument dry_run \(sent as 'dryRun'\)"):
            await nested.edit_file(path="f.txt", edits=[edit], dry_run="maybe")


async def test_weather_over_streamable_http_reports_a_changed_catalog(import_package: Any, weather_http: str) -> None:
    snapshot = await snapshot_server(ServerConfig(name="weather_http", url=weather_http))
    retired = {**snapshot.tools[0], "name": "retired_tool"}
    package = import_package(
        Snapshot(
            server=snapshot.server,
            protocol_version=snapshot.protocol_version,
            capabilities=snapshot.capabilities,
            tools=(*snapshot.tools, retired),
        )
    )

    async with package.WeatherHttpClient.connect(weather_http) as weather:
        assert await weather.celsius_to_fahrenheit(celsius=-40) == -40.0
        with pytest.raises(package.UnknownToolError, match=r"retired_tool.*mcp-stubgen sync"):
            await weather.retired_tool(celsius=1)
        with pytest.raises(package.CatalogDriftError, match=r"missing tools: 'retired_tool'") as drift:
            await weather.verify()
        assert drift.value.missing == ("retired_tool",) and drift.value.drifted == ()


async def test_keyword_properties_reach_the_server_by_their_wire_names(import_package: Any) -> None:
    script = SERVERS / "keyword_server.py"
    snapshot = await snapshot_server(ServerConfig(name="keywords", command=PYTHON, args=(str(script),)))
    package = import_package(snapshot)

    async with package.KeywordsClient.connect(stdio(script)) as keywords:
        sent: list[tuple[str, dict[str, Any] | None]] = []
        call_tool = keywords.mcp_client.call_tool

        async def record(name: str, arguments: dict[str, Any] | None = None) -> Any:
            sent.append((name, arguments))
            return await call_tool(name, arguments)

        keywords.mcp_client.call_tool = record

        trip = await keywords.book_trip(from_="Oslo", to="Rome")
        assert trip.received == {"from": "Oslo", "to": "Rome"}

        trip = await keywords.book_trip(from_="Oslo", to="Rome", class_="business", seat_count=2, note=None)
        assert trip.received == {"from": "Oslo", "to": "Rome", "class": "business", "seat-count": 2, "note": None}

        with pytest.raises(
            package.ToolArgumentsError,
            match=r"argument seat_count \(sent as 'seat-count'\): 0 is less than the minimum of 1 "
            r"\(schema rule /properties/seat-count/minimum\); nothing was sent",
        ):
            await keywords.book_trip(from_="Oslo", to="Rome", seat_count=0)
        with pytest.raises(
            package.ToolArgumentsError, match=r"argument class_ \(sent as 'class'\): 'first' is not one of"
        ):
            await keywords.book_trip(from_="Oslo", to="Rome", class_="first")
        assert len(sent) == 2

        total = await keywords.math_add(a=2, b=3)
        assert total == 5 and isinstance(total, int)

        with pytest.raises(package.ToolError, match="boom: it broke") as failure:
            await keywords.explode()
        assert failure.value.tool == "explode"
        assert failure.value.content[0].text == "boom: it broke"
