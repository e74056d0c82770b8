"""`run_code`: model-written scripts type-checked against the code-mode stubs, then run in the Monty sandbox.

The bundled example servers (and `tests/servers/ledger_server.py`, whose tools carry hints) run over
stdio behind a relay that counts the JSON-RPC requests that reach them, so "nothing was sent" is
read at the server. `run_code` is the generated package's, from the runtime copied beside it.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.snapshot import write_snapshot
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, REPO, SERVERS

pytest.importorskip("pydantic_monty")

PY = PYTHON
SERVERS_USED = {
    "weather": REPO / "examples" / "weather_server.py",
    "notes": REPO / "examples" / "notes_server.py",
    "ledger": SERVERS / "ledger_server.py",
}
RELAY = SERVERS / "counting_relay.py"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The servers' packages, hub and code-mode package, generated once for the module by the command
    line (`generate --hub --code-mode`) and imported as `sandboxed`."""
    import anyio

    work = tmp_path_factory.mktemp("generated")

    async def snapshots() -> list[Path]:
        paths = []
        for name, script in SERVERS_USED.items():
            path = work / f"{name}.json"
            write_snapshot(path, await snapshot_server(ServerConfig(name=name, command=PY, args=(str(script),))))
            paths.append(path)
        return paths

    taken = anyio.run(snapshots)
    command = [
        PY,
        "-m",
        "codegen",
        "generate",
        "--hub",
        "--code-mode",
        "--out",
        str(work / "sandboxed"),
        *map(str, taken),
    ]
    subprocess.run(command, check=True, capture_output=True, cwd=REPO)
    sys.path.insert(0, str(work))
    try:
        yield importlib.import_module("sandboxed.code_mode"), importlib.import_module("sandboxed.hub")
    finally:
        sys.path.remove(str(work))
        for module in [module for module in sys.modules if module.split(".")[0] == "sandboxed"]:
            del sys.modules[module]


@pytest.fixture(scope="module")
def code_mode(generated: tuple[Any, Any]) -> Any:
    """The generated `code_mode` package: `run_code` and its types come from the runtime it ships."""
    return generated[0]


class Wire:
    """What reached each example server, read from its relay's counts file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def params(self, name: str) -> StdioServerParameters:
        counts = self.folder / f"{name}.json"
        return StdioServerParameters(command=PY, args=[str(RELAY), str(counts), PY, str(SERVERS_USED[name])])

    def calls(self, name: str) -> int:
        """How many `tools/call` requests reached the server."""
        return int(json.loads((self.folder / f"{name}.json").read_text()).get("tools/call", 0))


@pytest.fixture
def connect(generated: tuple[Any, Any], tmp_path: Path) -> Any:
    """Connects the hub to servers behind relays, both examples unless named (in the test's own task,
    as anyio needs)."""

    @asynccontextmanager
    async def connected(*names: str) -> AsyncIterator[tuple[Any, Wire]]:
        wire = Wire(tmp_path)
        servers = {name: wire.params(name) for name in names or ("weather", "notes")}
        async with generated[1].Hub.connect(**servers) as hub:
            yield hub, wire

    return connected


def script(source: str) -> str:
    return textwrap.dedent(source).strip() + "\n"


async def test_a_script_runs_end_to_end_and_returns_typed_results(code_mode: Any, connect: Any) -> None:
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
        result = await code_mode.run_code(code, hub=hub, approve="allow")

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


class UnansweredCalls:
    """The hub, but a call answers only when it is cancelled: how a slow server looks to a script
    that ends first, however fast or loaded the machine is."""

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.started: list[str] = []
        self.cancelled: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.hub, name)

    async def call(self, name: str, arguments: Any) -> Any:
        self.started.append(name)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.append(name)
            raise
        raise AssertionError("an unanswered call never answers")


async def test_a_call_the_script_never_awaits_is_cancelled_when_the_script_ends(code_mode: Any, connect: Any) -> None:
    async with connect("weather") as (hub, wire):
        held = UnansweredCalls(hub)
        unawaited = await code_mode.run_code(
            "import weather\nstarted = weather.search(query='o')\n'done'\n", hub=held, approve="allow"
        )
        assert unawaited.value == "done"
        assert [(call.tool, call.outcome, call.detail) for call in unawaited.calls] == [
            ("weather.search", "error", "weather.search: the script ended before the call answered")
        ]
        for _ in range(10):  # a cancelled task finishes on the loop's next turns
            await asyncio.sleep(0)
        # the call started (the script's next step yields to the loop), then was cancelled: nothing
        # is left running after run_code returns, and nothing reached the server
        assert held.started == held.cancelled == ["weather__search"]
        assert wire.calls("weather") == 0


async def test_a_tools_error_and_a_schema_refusal_reach_the_script_as_exceptions_it_can_catch(
    code_mode: Any, connect: Any
) -> None:
    async with connect() as (hub, wire):
        code = script(
            """
            import weather

            outcomes = []
            try:
                await weather.send_alert(message="")
            except RuntimeError as error:
                outcomes.append(str(error))
            try:
                await weather.get_forecast(city="Oslo", days=30)
            except ValueError as error:
                outcomes.append(str(error))
            outcomes
            """
        )
        result = await code_mode.run_code(code, hub=hub, approve="allow")
        assert result.value[0] == "weather.send_alert: the tool reported an error: Error executing tool send_alert"
        # days has `maximum: 7` in its schema, which no type says: the hub refuses it before sending
        assert result.value[1].startswith("weather.get_forecast: weather__get_forecast: invalid arguments: days: 30")
        assert result.value[1].endswith("nothing was sent")
        assert [(call.outcome, call.detail) for call in result.calls] == [
            ("error", result.value[0]),
            ("error", result.value[1]),
        ]
        assert wire.calls("weather") == 1


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


async def test_a_wrong_script_is_rejected_with_the_checkers_message_and_nothing_reaches_a_server(
    code_mode: Any, connect: Any
) -> None:
    async with connect() as (hub, wire):
        for case, (code, message) in WRONG_SCRIPTS.items():
            # a correct call first in the same script: a rejected script runs no line of it
            with pytest.raises(code_mode.ScriptRejected) as rejected:
                await code_mode.run_code(
                    "import notes\nawait notes.search(text='x')\n" + code, hub=hub, approve="allow"
                )
            assert message in str(rejected.value), case
            assert str(rejected.value).startswith("main.py:"), case
            assert rejected.value.calls == (), case
            assert (wire.calls("weather"), wire.calls("notes")) == (0, 0), case


LEDGER_SCRIPT = script(
    """
    import ledger

    def attempt(name: str, error: RuntimeError) -> str:
        return f"{name}: " + str(error).split(": ", 1)[1]

    outcomes = [await ledger.balance(account="alice")]
    try:
        outcomes.append(await ledger.exchange_rate(source="EUR", target="USD"))
    except RuntimeError as error:
        outcomes.append(attempt("rate", error))
    try:
        outcomes.append(await ledger.transfer(source="alice", target="bob", amount=5))
    except RuntimeError as error:
        outcomes.append(attempt("transfer", error))
    outcomes
    """
)


async def test_the_approval_policy_decides_destructive_and_open_world_calls_only(code_mode: Any, connect: Any) -> None:
    async with connect("ledger") as (hub, wire):
        # the default denies: the read-only, closed-world balance runs, nothing else is sent
        denied = await code_mode.run_code(LEDGER_SCRIPT, hub=hub)
        assert denied.value == [
            100,
            "rate: not approved: the policy denies open-world calls; nothing was sent",
            "transfer: not approved: the policy denies destructive calls; nothing was sent",
        ]
        assert [(call.tool, call.outcome) for call in denied.calls] == [
            ("ledger.balance", "ok"),
            ("ledger.exchange_rate", "denied"),
            ("ledger.transfer", "denied"),
        ]
        assert wire.calls("ledger") == 1

        asked: list[Any] = []

        async def only_reads(call: Any) -> bool:
            asked.append(call)
            return call.read_only

        mixed = await code_mode.run_code(LEDGER_SCRIPT, hub=hub, approve="ask", ask=only_reads)
        assert mixed.value == [
            100,
            1.1,
            "transfer: not approved: the destructive call was refused when asked; nothing was sent",
        ]
        assert [
            (call.tool, dict(call.arguments), call.read_only, call.destructive, call.open_world) for call in asked
        ] == [
            ("ledger.exchange_rate", {"source": "EUR", "target": "USD"}, True, False, True),
            ("ledger.transfer", {"source": "alice", "target": "bob", "amount": 5}, False, True, False),
        ]
        assert wire.calls("ledger") == 3

        unanswered = await code_mode.run_code(LEDGER_SCRIPT, hub=hub, approve="ask")
        assert unanswered.value[2] == (
            "transfer: not approved: the policy asks before destructive calls and run_code was given "
            "no ask callback; nothing was sent"
        )

        def by_tool(call: Any) -> str:
            return "allow" if call.tool == "ledger.transfer" else "deny"

        chosen = await code_mode.run_code(LEDGER_SCRIPT, hub=hub, approve=by_tool)
        assert chosen.value == [100, "rate: not approved: the policy denies open-world calls; nothing was sent", 95]
        assert wire.calls("ledger") == 6


async def test_the_call_past_the_cap_fails_inside_the_script_and_is_not_sent(code_mode: Any, connect: Any) -> None:
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
        with pytest.raises(code_mode.ScriptFailed) as failed:
            await code_mode.run_code(code, hub=hub, approve="allow", max_calls=2)
        assert "RuntimeError: weather.search: call cap reached: this run may make 2 calls (max_calls)" in str(
            failed.value
        )
        assert [(dict(call.arguments), call.outcome) for call in failed.value.calls] == [
            ({"query": "ber"}, "ok"),
            ({"query": "osl"}, "ok"),
            ({"query": "new"}, "over_cap"),
        ]
        assert wire.calls("weather") == 2


async def test_a_script_that_never_ends_is_stopped_by_the_time_limit(code_mode: Any, connect: Any) -> None:
    async with connect() as (hub, wire):
        code = "import weather\nawait weather.search(query='o')\nwhile True:\n    pass\n"
        with pytest.raises(code_mode.ScriptFailed) as failed:
            await code_mode.run_code(code, hub=hub, approve="allow", limits=code_mode.Limits(seconds=0.5))
        assert "TimeoutError" in str(failed.value)
        assert [call.outcome for call in failed.value.calls] == ["ok"]
        assert wire.calls("weather") == 1


async def test_a_script_that_allocates_without_end_is_stopped_by_the_memory_limit(code_mode: Any) -> None:
    code = "chunks = []\nwhile True:\n    chunks.append('x' * 1_000_000)\n"
    with pytest.raises(code_mode.ScriptFailed) as failed:
        await code_mode.run_code(code, hub=None, limits=code_mode.Limits(memory_bytes=20_000_000))
    assert "MemoryError" in str(failed.value)


async def test_a_script_that_prints_past_its_budget_is_told_so_not_that_its_memory_ran_out(code_mode: Any) -> None:
    """Monty says "memory limit exceeded: 2001 bytes > 1000 bytes" for printing past `printed_bytes`,
    which sent a model after its heap."""
    with pytest.raises(code_mode.ScriptFailed) as failed:
        await code_mode.run_code("print('a' * 2000)\n", hub=None, limits=code_mode.Limits(printed_bytes=1000))
    assert str(failed.value) == (
        "MemoryError: the script printed more than limits.printed_bytes (1,000 bytes); print less, and leave "
        "the answer as the last expression"
    )


async def test_credentials_do_not_enter_the_sandbox(
    code_mode: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
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
        "function internals": "import weather\nweather.search.__globals__",
    }
    for name, code in attempts.items():
        try:
            result = await code_mode.run_code(code, hub=object(), approve="allow")
        except (code_mode.ScriptFailed, code_mode.ScriptRejected) as error:
            assert token not in str(error), name
        else:
            pytest.fail(f"{name}: the script read {result.value!r}")


def test_the_generated_packages_import_no_sandbox_until_a_script_runs(generated: tuple[Any, Any]) -> None:
    folder = Path(generated[0].__file__).parent.parent.parent
    probe = "import sys, sandboxed.code_mode, sandboxed.hub; print('pydantic_monty' in sys.modules)"
    imported = subprocess.run([PY, "-c", probe], capture_output=True, text=True, cwd=folder, check=True)
    assert imported.stdout == "False\n"


async def test_a_missing_sandbox_names_the_extra_to_install(code_mode: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_monty", None)
    with pytest.raises(ImportError) as missing:
        await code_mode.run_code("1", hub=None)
    assert str(missing.value) == (
        "run_code needs the Monty sandbox: pip install 'mcp-stubgen[sandbox]' (or pip install pydantic-monty)"
    )


def test_the_documented_sandbox_example_runs_against_the_bundled_servers(tmp_path: Path) -> None:
    page = (REPO / "docs" / "code-mode.md").read_text(encoding="utf-8")
    section = page[page.index("## Running model-written scripts in a sandbox") :]
    start = section.index("```python\n") + len("```python\n")
    (tmp_path / "sandbox_demo.py").write_text(section[start : section.index("```\n", start)], encoding="utf-8")
    printed = section[section.index("```text\n") + len("```text\n") :]
    printed = printed[: printed.index("```\n")]
    snapshots = [REPO / "golden" / name / "snapshot.json" for name in ("weather", "notes")]
    command = [PY, "-m", "codegen.cli", "generate", "--hub", "--code-mode", "--out", str(tmp_path / "clients")]
    subprocess.run([*command, *map(str, snapshots)], check=True, capture_output=True, cwd=REPO)

    result = subprocess.run(
        [PY, str(tmp_path / "sandbox_demo.py")],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == printed


async def test_without_the_code_mode_package_run_code_says_how_to_generate_it(tmp_path: Path) -> None:
    snapshot = REPO / "golden" / "weather" / "snapshot.json"
    command = [PY, "-m", "codegen.cli", "generate", "--hub", "--code-mode", "--out", str(tmp_path / "plain")]
    subprocess.run([*command, str(snapshot)], check=True, capture_output=True, cwd=REPO)
    shutil.rmtree(tmp_path / "plain" / "code_mode")  # removed by hand; the runtime keeps _sandbox.py until a generate
    sys.path.insert(0, str(tmp_path))
    try:
        sandbox = importlib.import_module("plain._mcp_runtime._sandbox")
        with pytest.raises(sandbox.SandboxError) as missing:
            await sandbox.run_code("1", hub=None)
    finally:
        sys.path.remove(str(tmp_path))
        for module in [module for module in sys.modules if module.split(".")[0] == "plain"]:
            del sys.modules[module]
    assert str(missing.value) == (
        "run_code needs the code-mode package plain.code_mode: set code_mode = true under [tool.mcp-stubgen] "
        "(or generate --code-mode) and run mcp-stubgen sync"
    )


def test_a_crashed_worker_is_a_script_failure_with_its_own_text() -> None:
    """On a loaded machine Monty may kill a script's worker past the time limit: its
    `MontyCrashedError` has no `display()`, and `run_code` raised `AttributeError` instead of
    `ScriptFailed` (seen in the suite under load). That error cannot be made outside Monty; a stand-in
    with its text and no `display()` takes its place."""
    from codegen.runtime._sandbox import _message

    class CrashedWorker(Exception):
        pass

    crashed = CrashedWorker("monty worker killed after exceeding request timeout of 1.5s")
    assert _message(crashed) == "monty worker killed after exceeding request timeout of 1.5s"
