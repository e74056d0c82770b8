"""`run_code`: model-written scripts type-checked against the code-mode stubs, then run in the Monty sandbox.

The bundled example servers run over stdio behind a relay that counts the JSON-RPC requests that
reach them, so "nothing was sent" is read at the server.
"""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub as write_hub
from codegen.runtime import _sandbox
from codegen.runtime._sandbox import Limits, ScriptFailed, ScriptRejected, ToolCall, run_code
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import REPO, SERVERS

pytest.importorskip("pydantic_monty")

PY = sys.executable
EXAMPLES = {"weather": REPO / "examples" / "weather_server.py", "notes": REPO / "examples" / "notes_server.py"}
RELAY = SERVERS / "counting_relay.py"

WEATHER_STUB = '''
from typing import Literal, TypedDict

class GetForecastResult(TypedDict):
    city: str
    temperature: float
    conditions: str
    units: Literal["metric", "imperial"]

async def get_forecast(*, city: str, days: int = 1, units: Literal["metric", "imperial"] = "metric") -> GetForecastResult:
    """Get the forecast for a city."""
    ...

async def search(*, query: str) -> list[str]:
    """Find the cities with a forecast whose name contains the query."""
    ...

async def send_alert(*, message: str, severity: int = 1) -> str:
    """Raise an alert; fails for an empty message."""
    ...
'''
NOTES_STUB = '''
from typing import TypedDict

class Note(TypedDict):
    id: int
    title: str
    tags: list[str]

class SearchResult(TypedDict):
    text: str
    tag: str | None
    notes: list[Note]

async def search(*, text: str, tag: str | None = None) -> SearchResult:
    """Find notes whose title contains the text, optionally only those with a tag."""
    ...
'''


class Surface:
    """A hand-written code-mode surface of the contract's shape, until the generated one lands."""

    @staticmethod
    def stubs() -> dict[str, str]:
        return {"weather": WEATHER_STUB, "notes": NOTES_STUB}

    @staticmethod
    def functions(hub: Any) -> dict[str, Any]:
        def bound(qualified: str, unwrap: bool) -> Any:
            async def call(**arguments: Any) -> Any:
                result = await hub.call(qualified, arguments)
                if result.is_error:
                    raise RuntimeError(result.content[0].text)
                content = result.structured_content
                return content["result"] if unwrap else content

            return call

        return {
            "weather.get_forecast": bound("weather__get_forecast", False),
            "weather.search": bound("weather__search", True),
            "weather.send_alert": bound("weather__send_alert", True),
            "notes.search": bound("notes__search", False),
        }

    @staticmethod
    def hints() -> dict[str, dict[str, bool | None]]:
        # the example servers give no hints: MCP's defaults make each tool destructive and open-world,
        # except where this surface says otherwise
        return {
            "weather.get_forecast": {"read_only": True, "destructive": False, "open_world": False},
            "weather.search": {"read_only": True, "destructive": False, "open_world": False},
            "weather.send_alert": {"read_only": None, "destructive": None, "open_world": None},
            "notes.search": {"read_only": True, "destructive": False, "open_world": False},
        }


@pytest.fixture(scope="module")
def hub_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The examples' packages and hub, generated once for the module and imported as `sandboxed.hub`."""
    import anyio

    async def snapshots() -> list[Any]:
        return [
            await snapshot_server(ServerConfig(name=name, command=PY, args=(str(script),)))
            for name, script in EXAMPLES.items()
        ]

    out = tmp_path_factory.mktemp("generated") / "sandboxed"
    taken = anyio.run(snapshots)
    for snapshot in taken:
        generate_package(snapshot, out)
    write_hub([(snapshot, {}) for snapshot in taken], out)
    sys.path.insert(0, str(out.parent))
    try:
        yield importlib.import_module("sandboxed.hub")
    finally:
        sys.path.remove(str(out.parent))
        for module in [module for module in sys.modules if module.split(".")[0] == "sandboxed"]:
            del sys.modules[module]


class Wire:
    """What reached each example server, read from its relay's counts file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def params(self, name: str) -> StdioServerParameters:
        counts = self.folder / f"{name}.json"
        return StdioServerParameters(command=PY, args=[str(RELAY), str(counts), PY, str(EXAMPLES[name])])

    def calls(self, name: str) -> int:
        return int(json.loads((self.folder / f"{name}.json").read_text()).get("tools/call", 0))


@pytest.fixture
def connect(hub_module: Any, tmp_path: Path) -> Any:
    """Connects the hub to both examples behind relays (in the test's own task, as anyio needs)."""

    @asynccontextmanager
    async def connected() -> AsyncIterator[tuple[Any, Wire]]:
        wire = Wire(tmp_path)
        async with hub_module.Hub.connect(weather=wire.params("weather"), notes=wire.params("notes")) as hub:
            yield hub, wire

    return connected


def script(source: str) -> str:
    return textwrap.dedent(source).strip() + "\n"


async def test_a_script_runs_end_to_end_and_returns_typed_results(connect: Any) -> None:
    async with connect() as (hub, wire):
        code = script(
            """
            import asyncio
            import notes
            import weather

            cities = await weather.search(query="o")
            forecasts = await asyncio.gather(*[weather.get_forecast(city=city, days=2) for city in cities])
            travel = await notes.search(text="", tag="travel")
            print(len(forecasts), "forecasts")
            {
                "warm": [f["city"] for f in forecasts if f["temperature"] > 20],
                "notes": [note["title"] for note in travel["notes"]],
            }
            """
        )
        result = await run_code(code, hub=hub, surface=Surface)

        assert result.value == {
            "warm": ["New York", "Oslo"],
            "notes": ["Pack an umbrella for Oslo", "Book the train to Berlin"],
        }
        assert result.printed == "2 forecasts\n"
        assert [(call.tool, dict(call.arguments), call.outcome) for call in result.calls] == [
            ("weather.search", {"query": "o"}, "ok"),
            ("weather.get_forecast", {"city": "New York", "days": 2}, "ok"),
            ("weather.get_forecast", {"city": "Oslo", "days": 2}, "ok"),
            ("notes.search", {"text": "", "tag": "travel"}, "ok"),
        ]
        assert all(call.seconds > 0 and call.detail == "" for call in result.calls)
        assert (wire.calls("weather"), wire.calls("notes")) == (3, 1)


WRONG_SCRIPTS = {
    "unknown tool": (
        "import weather\nawait weather.get_forecasts(city='Oslo')\n",
        "Module `weather` has no member `get_forecasts`",
    ),
    "wrong argument": (
        "import weather\nawait weather.get_forecast(town='Oslo')\n",
        "Argument `town` does not match any known parameter of function `get_forecast`",
    ),
    "bad enum value": (
        "import weather\nawait weather.get_forecast(city='Oslo', units='kelvin')\n",
        'Expected `Literal["metric", "imperial"]`, found `Literal["kelvin"]`',
    ),
    "wrong result key": (
        "import weather\nforecast = await weather.get_forecast(city='Oslo')\nforecast['temp']\n",
        'Unknown key "temp" for TypedDict `GetForecastResult`',
    ),
}


@pytest.mark.parametrize("case", sorted(WRONG_SCRIPTS))
async def test_a_wrong_script_is_rejected_with_the_checkers_message_and_nothing_reaches_a_server(
    connect: Any, case: str
) -> None:
    async with connect() as (hub, wire):
        # a correct call first in the same script: a rejected script runs no line of it
        code, message = WRONG_SCRIPTS[case]
        code = "import notes\nawait notes.search(text='x')\n" + code
        with pytest.raises(ScriptRejected) as rejected:
            await run_code(code, hub=hub, surface=Surface)
        assert message in str(rejected.value)
        assert str(rejected.value).startswith("main.py:")
        assert rejected.value.calls == ()
        assert (wire.calls("weather"), wire.calls("notes")) == (0, 0)


async def test_the_approval_policy_is_asked_before_a_destructive_or_open_world_call(
    connect: Any,
) -> None:
    async with connect() as (hub, wire):
        code = script(
            """
            import weather

            try:
                sent = await weather.send_alert(message="storm")
            except RuntimeError as error:
                sent = str(error)
            [await weather.search(query="ber"), sent]
            """
        )
        asked: list[ToolCall] = []

        denied = await run_code(code, hub=hub, surface=Surface)  # the default policy denies
        assert denied.value[0] == ["Berlin"]
        assert denied.value[1].startswith(
            "weather.send_alert: not approved: the policy denies destructive and open-world"
        )
        assert [call.outcome for call in denied.calls] == ["denied", "ok"]
        assert wire.calls("weather") == 1  # only the read-only, closed-world search

        async def refuse(call: ToolCall) -> bool:
            asked.append(call)
            return False

        refused = await run_code(code, hub=hub, surface=Surface, approve="ask", ask=refuse)
        assert "refused when asked; nothing was sent" in refused.value[1]
        assert [(call.tool, dict(call.arguments), call.destructive, call.open_world) for call in asked] == [
            ("weather.send_alert", {"message": "storm"}, True, True)
        ]
        assert wire.calls("weather") == 2

        allowed = await run_code(code, hub=hub, surface=Surface, approve="ask", ask=lambda call: True)
        assert allowed.value == [["Berlin"], "alert sent (1): storm"]
        assert wire.calls("weather") == 4

        def by_tool(call: ToolCall) -> Any:
            return "allow" if call.arguments.get("message") == "calm" else "deny"

        chosen = await run_code(code.replace("storm", "calm"), hub=hub, surface=Surface, approve=by_tool)
        assert chosen.value[1] == "alert sent (1): calm"

        unanswered = await run_code(code, hub=hub, surface=Surface, approve="ask")
        assert "run_code was given no ask callback" in unanswered.value[1]
        assert wire.calls("weather") == 7


async def test_the_call_past_the_cap_fails_inside_the_script_and_is_not_sent(connect: Any) -> None:
    async with connect() as (hub, wire):
        code = script(
            """
            import weather

            found = []
            for query in ["ber", "osl", "new", "x"]:
                found.append(await weather.search(query=query))
            found
            """
        )
        with pytest.raises(ScriptFailed) as failed:
            await run_code(code, hub=hub, surface=Surface, max_calls=2)
        assert "RuntimeError: weather.search: call cap reached: this run may make 2 calls (max_calls)" in str(
            failed.value
        )
        assert [(dict(call.arguments), call.outcome) for call in failed.value.calls] == [
            ({"query": "ber"}, "ok"),
            ({"query": "osl"}, "ok"),
            ({"query": "new"}, "over_cap"),
        ]
        assert wire.calls("weather") == 2


async def test_a_script_that_never_ends_is_stopped_by_the_time_limit(connect: Any) -> None:
    async with connect() as (hub, wire):
        code = "import weather\nawait weather.search(query='o')\nwhile True:\n    pass\n"
        with pytest.raises(ScriptFailed) as failed:
            await run_code(code, hub=hub, surface=Surface, limits=Limits(seconds=0.5))
        assert "TimeoutError" in str(failed.value)
        assert [call.outcome for call in failed.value.calls] == ["ok"]
        assert wire.calls("weather") == 1


async def test_a_script_that_allocates_without_end_is_stopped_by_the_memory_limit(
    connect: Any,
) -> None:
    async with connect() as (hub, _):
        code = "chunks = []\nwhile True:\n    chunks.append('x' * 1_000_000)\n"
        with pytest.raises(ScriptFailed) as failed:
            await run_code(code, hub=hub, surface=Surface, limits=Limits(memory_bytes=20_000_000))
        assert "MemoryError" in str(failed.value)


async def test_credentials_do_not_enter_the_sandbox(
    connect: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async with connect() as (hub, wire):
        token = "sk-test-4f1c9a"
        monkeypatch.setenv("WEATHER_API_TOKEN", token)
        (tmp_path / "token.txt").write_text(token)
        attempts = {
            "environ": "import os\nos.environ['WEATHER_API_TOKEN']",
            "getenv": "import os\nos.getenv('WEATHER_API_TOKEN')",
            "file": f"open({str(tmp_path / 'token.txt')!r}).read()",
            "proc": "from pathlib import Path\nPath('/proc/self/environ').read_text()",
            "hub": "hub",
            "subprocess": "import subprocess",
        }
        for name, code in attempts.items():
            try:
                result = await run_code(code, hub=hub, surface=Surface)
            except (ScriptFailed, ScriptRejected) as error:
                assert token not in str(error), name
            else:
                pytest.fail(f"{name}: the script read {result.value!r}")
        assert wire.calls("weather") == 0


async def test_a_missing_sandbox_names_the_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_monty", None)
    with pytest.raises(ImportError) as missing:
        await run_code("1", hub=None, surface=Surface)
    assert str(missing.value) == (
        "run_code needs the Monty sandbox: pip install 'mcp-stubgen[sandbox]' (or pip install pydantic-monty)"
    )
    assert isinstance(missing.value, _sandbox.SandboxUnavailableError)
