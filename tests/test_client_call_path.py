"""What a generated method does on each call after its first, against the example weather server over
stdio: it reaches its tool's models module through `_models` and runs no import of its own (an
import statement in the method cost every call more than the rest of the client's own work), and
every check it makes is the one its own snapshot's schemas ask for."""

from __future__ import annotations

import builtins
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.generate import generate_package
from codegen.snapshot import load_snapshot
from tests.conftest import PYTHON, REPO, forget_generated, import_generated, recording_server
from tests.regen_goldens import GOLDEN, OUTPUT

WEATHER_SERVER = StdioServerParameters(command=PYTHON, args=[str(REPO / "examples" / "weather_server.py")])


@pytest.fixture
def weather() -> Iterator[ModuleType]:
    """The golden weather package, imported afresh (`clients.weather`)."""
    forget_generated(OUTPUT)
    try:
        yield import_generated(OUTPUT, "weather")
    finally:
        forget_generated(OUTPUT)


def imports_from(prefix: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every import statement run from now on by a module whose name starts with `prefix`."""
    seen: list[str] = []
    original = builtins.__import__

    def recording(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        importer = (globals or {}).get("__name__", "")
        if importer.startswith(prefix):
            seen.append(f"{importer}: {'.' * level}{name} {list(fromlist or ())}")
        return original(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", recording)
    return seen


async def test_after_its_first_call_a_method_runs_no_import_of_the_package_or_its_runtime(
    weather: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with weather.WeatherClient.connect(WEATHER_SERVER) as client:
        await client.get_forecast(city="Oslo", days=1)
        await client.celsius_to_fahrenheit(celsius=20)
        seen = imports_from("clients.", monkeypatch)
        forecast = await client.get_forecast(city="Rome", days=2)
        fahrenheit = await client.celsius_to_fahrenheit(celsius=100)
        with pytest.raises(weather.ToolArgumentsError, match=r"argument days: 9 is greater than the maximum of 7"):
            await client.get_forecast(city="Rome", days=9)
    assert (forecast.city, forecast.temperature, fahrenheit) == ("Rome", 23.5, 212.0)
    assert seen == []


async def test_a_tools_models_module_is_imported_on_its_first_call_and_an_unknown_name_is_no_attribute(
    weather: ModuleType,
) -> None:
    models = sys.modules["clients.weather._models"]
    assert "clients.weather._models.get_forecast" not in sys.modules
    assert not hasattr(models, "no_such_tool")
    assert not hasattr(models, "get_forecast.nothing") and not hasattr(models, "")
    with pytest.raises(AttributeError, match=r"module 'clients.weather._models' has no attribute 'no_such_tool'"):
        models.no_such_tool  # noqa: B018 - the attribute access is what is tested
    async with weather.WeatherClient.connect(WEATHER_SERVER) as client:
        assert (await client.get_forecast(city="Oslo")).city == "Oslo"
    assert models.get_forecast is sys.modules["clients.weather._models.get_forecast"]
    assert "clients.weather._models.search" not in sys.modules


async def test_a_client_wrapping_a_bare_client_session_calls_and_checks_as_one_wrapping_the_client(
    weather: ModuleType,
) -> None:
    async with weather.WeatherClient.connect(WEATHER_SERVER) as client:
        session_client = weather.WeatherClient(client.mcp_client.session)
        assert (await session_client.get_forecast(city="Oslo", days=3)).temperature == 24.5
        with pytest.raises(weather.ToolArgumentsError, match=r"argument days: 0 is less than the minimum of 1"):
            await session_client.get_forecast(city="Oslo", days=0)


@pytest.fixture
def weather_before(tmp_path: Path) -> Iterator[ModuleType]:
    """The weather package generated from an older snapshot, where `get_forecast`'s temperature was an
    integer, imported beside the golden one (as `schema_before.weather`)."""
    document = json.loads((GOLDEN / "weather" / "snapshot.json").read_text(encoding="utf-8"))
    (forecast,) = [tool for tool in document["tools"] if tool["name"] == "get_forecast"]
    forecast["outputSchema"]["properties"]["temperature"]["type"] = "integer"
    (tmp_path / "before.json").write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "schema_before"
    generate_package(load_snapshot(tmp_path / "before.json"), out)
    try:
        yield import_generated(out, "weather")
    finally:
        forget_generated(out)


async def test_each_package_checks_a_result_against_its_own_snapshots_schema_call_after_call(
    weather: ModuleType, weather_before: ModuleType
) -> None:
    """The schemas are compiled once per schema text: two generations of one tool in one process
    keep their own checks, whichever was called first and however often."""
    async with weather.WeatherClient.connect(WEATHER_SERVER) as client:
        before = weather_before.WeatherClient(client.mcp_client)
        for _ in range(3):
            with pytest.raises(
                weather_before.ToolResultError, match=r"\['temperature'\]: 22.5 is not of type 'integer'"
            ):
                await before.get_forecast(city="Oslo")
            assert (await client.get_forecast(city="Oslo")).temperature == 22.5


@pytest.mark.parametrize("schema", [{"type": "integer"}, {"type": "number"}, {"type": ["integer", "string"]}])
@pytest.mark.parametrize("value", [0, 7, -3, 2**70, 2.0, 2.5, True, False, None, "2", [2], {"n": 2}])
def test_the_fast_type_check_agrees_with_jsonschema_on_numbers(schema: dict[str, Any], value: Any) -> None:
    """Each call's checks test a number's exact type first; what that shortcut settles (an `int`, a
    `float` for a number) is what `jsonschema` decides too, and the rest (a whole float as an
    integer, `bool`) is left to the full check."""
    import jsonschema

    from codegen.runtime._schema_check import SchemaCheck

    check = SchemaCheck(schema)
    assert check.fast is not None
    assert check.fast(value) is jsonschema.Draft202012Validator(schema).is_valid(value)


async def test_a_tool_named_after_what_the_models_package_imports_reaches_its_own_module(tmp_path: Path) -> None:
    """`_models/__init__.py` binds names of its own; a tool's module under one of them
    (`load_tool_module`, `ModuleType` as a module name) must still be what its method finds."""
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("clash")

    @server.tool()
    def load_tool_module(name: str) -> dict[str, str]:
        return {"loaded": name.upper()}

    snapshot_path = tmp_path / "clash.json"
    async with Client(server, cache=None) as client:
        from codegen.config import ServerConfig
        from codegen.snapshot import write_snapshot
        from codegen.snapshot.discovery import list_catalog

        write_snapshot(snapshot_path, await list_catalog(client, ServerConfig(name="clash", command="unused")))
    out = tmp_path / "named_clash"
    generate_package(load_snapshot(snapshot_path), out)
    try:
        clash = import_generated(out, "clash")
        async with Client(server, cache=None) as client:
            result = await clash.ClashClient(client).load_tool_module(name="weather")
        assert result == {"loaded": "WEATHER"}
    finally:
        forget_generated(out)


NULLABLE_ARGUMENTS = {
    "type": "object",
    "properties": {"word": {"type": "string"}, "max-results": {"type": "integer", "nullable": True}},
    "required": ["word"],
}


async def test_an_openapi_nullable_argument_takes_the_none_its_type_allows(tmp_path: Path) -> None:
    """A server on Redocly's TypeScript SDK (ajv) lists `{"type": "integer", "nullable": true}` and takes
    a null: the keyword is typed `int | None`, and the check before sending refused the None (`None is
    not of type 'integer'`), in the fast check and `jsonschema` alike. A string is still refused."""
    from mcp import Client

    from codegen.snapshot import Snapshot

    server, received = recording_server("dictionary", "translate", NULLABLE_ARGUMENTS)
    tool = {"name": "translate", "inputSchema": NULLABLE_ARGUMENTS}
    out = tmp_path / "nullable"
    generate_package(Snapshot("dictionary", "2025-11-25", {"tools": {}}, tools=(tool,)), out)
    try:
        dictionary = import_generated(out, "dictionary")
        async with Client(server, cache=None) as client:
            typed = dictionary.DictionaryClient(client)
            await typed.translate(word="dog", max_results=None)
            await typed.translate(word="dog", max_results=3)
            with pytest.raises(dictionary.ToolArgumentsError, match="'x' is not of type 'integer'"):
                await typed.translate(word="dog", max_results="x")
        assert received == [{"word": "dog", "max-results": None}, {"word": "dog", "max-results": 3}]
    finally:
        forget_generated(out)


def test_a_tool_module_gone_since_the_package_was_imported_says_the_package_was_regenerated(tmp_path: Path) -> None:
    """A process that imported a package `watch` then regenerated without one of its tools failed on that
    tool's first call with a bare "module '..._models' has no attribute 'search'" (or, for its model, a
    `ModuleNotFoundError`), which named nothing the user did."""
    out = tmp_path / "in_use"
    generate_package(load_snapshot(GOLDEN / "weather" / "snapshot.json"), out)
    try:
        models = import_generated(out, "weather.models")
        tool_modules = import_generated(out, "weather._models")
        (out / "weather" / "_models" / "search.py").unlink()  # the tool is gone from the regenerated package
        restart = "if the package was regenerated after this process imported it, restart the process"
        with pytest.raises(AttributeError, match=f"no tool module 'search' there; {restart}"):
            tool_modules.search  # noqa: B018 - what a generated method reads on its tool's first call
        with pytest.raises(AttributeError, match=restart):
            models.SearchInput  # noqa: B018
        with pytest.raises(AttributeError, match=r"has no attribute 'no such'$"):
            getattr(tool_modules, "no such")
    finally:
        forget_generated(out)


async def test_a_lone_surrogate_in_a_prompt_a_template_or_meta_is_refused_and_the_session_goes_on(
    weather: ModuleType,
) -> None:
    """Half an emoji in a prompt's argument or the request's `_meta` failed the SDK's writer, and the
    stdio session ended with "the server exited or closed the connection"; in a template's variable
    it was a bare `UnicodeEncodeError`."""
    surrogate = "half \ud83d"
    async with weather.WeatherClient.connect(WEATHER_SERVER) as client:
        with pytest.raises(ValueError) as prompt:
            await client.prompt_packing_list(city=surrogate)
        assert str(prompt.value) == (
            "server 'weather': prompt 'packing_list': argument 'city': the text 'half \\ud83d' holds a lone "
            "surrogate ('\\ud83d'), which no UTF-8 JSON text can carry; nothing was sent"
        )
        with pytest.raises(ValueError, match=r"resource template '.*': variable 'station_id': the text 'half "):
            await client.read_latest_reading(station_id=surrogate)
        with pytest.raises(ValueError, match=r"^call_options meta: the text 'half \\ud83d' holds a lone surrogate"):
            await client.search(query="os", call_options={"meta": {"trace": surrogate}})
        assert await client.search(query="os") == ["Oslo"]


async def test_a_number_for_a_prompt_argument_or_a_template_variable_is_refused_before_sending(
    weather: ModuleType,
) -> None:
    """server-everything's `{resourceId}` "must be an integer", so `resource_id=3` is what a user types:
    it was a bare "TypeError: 'int' object is not iterable" from the template's expansion, and a prompt's
    `city=5` a `ServerError` saying the server's answer was not valid MCP, though nothing had been sent."""
    async with weather.WeatherClient.connect(WEATHER_SERVER) as client:
        with pytest.raises(ValueError) as template:
            await client.read_latest_reading(station_id=7)
        assert str(template.value) == (
            "server 'weather': resource template 'weather://stations/{station_id}/latest': variable "
            "'station_id' must be text or a list of texts, not int; nothing was sent"
        )
        with pytest.raises(ValueError) as prompt:
            await client.prompt_packing_list(city=5)
        assert str(prompt.value) == (
            "server 'weather': prompt 'packing_list': argument 'city' must be text, not int; nothing was sent"
        )
        with pytest.raises(ValueError, match=r"argument 'city' must be text, not list; nothing was sent$"):
            await client.prompt_packing_list(city=["Oslo"])
        assert await client.search(query="os") == ["Oslo"]


async def test_an_exploded_template_variable_takes_a_list_of_segments(tmp_path: Path) -> None:
    """`{/path*}` expands a list, one segment per item, and the SDK's server matches it back as the
    list; the method took `path: str`, so `["a", "b"]` failed mypy, and `"a/b"` was the one segment
    `a%2Fb`."""
    from mcp.server.mcpserver import MCPServer

    from codegen.generate import generate_package
    from codegen.snapshot import Snapshot

    server = MCPServer("tree")

    @server.resource("files://root{/path*}{?depth}")
    def node(path: list[str], depth: str = "1") -> str:
        return json.dumps({"path": path, "depth": depth})

    template = {"name": "node", "uriTemplate": "files://root{/path*}{?depth}"}
    snapshot = Snapshot(
        server="tree", protocol_version="2025-06-18", capabilities={"resources": {}}, resource_templates=(template,)
    )
    generate_package(snapshot, tmp_path / "exploded")
    try:
        tree = import_generated(tmp_path / "exploded", "tree")
        source = (tmp_path / "exploded" / "tree" / "client.py").read_text(encoding="utf-8")
        assert "        path: str | list[str],\n        depth: str | NotGiven = NOT_GIVEN," in source
        async with tree.TreeClient.connect(server) as client:
            read = await client.read_node(path=["a", "b c"], depth="2")
            assert json.loads(read.contents[0].text) == {"path": ["a", "b c"], "depth": "2"}
            one = await client.read_node(path="a")
            assert json.loads(one.contents[0].text) == {"path": ["a"], "depth": "1"}
    finally:
        forget_generated(tmp_path / "exploded")
