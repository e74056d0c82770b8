"""The hub as an agent host uses it, over the real servers the suite installs.

Names every LLM API accepts, each API's tool and result shapes, filters, the shortlist's quality on
tasks phrased as users ask (`tests/shortlist_eval.py`), the `search_tools` meta-tool, and connecting
a subset of servers concurrently.
"""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.subscriptions import SubscriptionLost
from mcp.shared.tool_name_validation import validate_tool_name
from mcp.types import Tool

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.identifiers import qualified_tools
from codegen.snapshot import Snapshot, parse_snapshot
from codegen.snapshot.discovery import snapshot_server, snapshot_servers
from tests.conftest import PYTHON, REPO, SERVERS, free_port, npm_server, wait_for_port, write_config
from tests.drift_helpers import obj
from tests.regen_goldens import GOLDEN, OUTPUT, hub_case_snapshots
from tests.shortlist_eval import TASKS

PY = PYTHON
WEATHER = REPO / "examples" / "weather_server.py"
NOTES = REPO / "examples" / "notes_server.py"

NAME_RULES = {
    "OpenAI": re.compile(r"^[a-zA-Z0-9_-]{1,64}$"),
    "Anthropic": re.compile(r"^[a-zA-Z0-9_-]{1,128}$"),
    # Gemini's FunctionDeclaration.name: starts with a letter or an underscore; a-z, A-Z, 0-9, `_ . : -`; at most 64
    "Gemini": re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"),
}


def real_servers(scratch: Path) -> dict[str, ServerConfig]:
    """Every real server the suite installs, launched over stdio."""
    (scratch / "files").mkdir(exist_ok=True)
    npm = {name: npm_server(f"mcp-server-{name}") for name in ("everything", "memory", "filesystem", "github")}
    return {
        "everything": ServerConfig(name="everything", command=str(npm["everything"])),
        "memory": ServerConfig(
            name="memory", command=str(npm["memory"]), env={"MEMORY_FILE_PATH": str(scratch / "memory.jsonl")}
        ),
        "filesystem": ServerConfig(name="filesystem", command=str(npm["filesystem"]), args=(str(scratch / "files"),)),
        "github": ServerConfig(name="github", command=str(npm["github"])),
        "time": ServerConfig(name="time", command=str(Path(sys.executable).parent / "mcp-server-time")),
        "weather": ServerConfig(name="weather", command=PY, args=(str(WEATHER),)),
        "notes": ServerConfig(name="notes", command=PY, args=(str(NOTES),)),
    }


def import_hub(out: Path, package: str) -> Any:
    sys.path.insert(0, str(out.parent))
    try:
        return importlib.import_module(f"{package}.hub")
    finally:
        sys.path.remove(str(out.parent))


def forget(package: str) -> None:
    for module in [module for module in sys.modules if module.split(".")[0] == package]:
        del sys.modules[module]


@pytest.fixture(scope="module")
def real_snapshots(tmp_path_factory: pytest.TempPathFactory) -> list[Snapshot]:
    scratch = tmp_path_factory.mktemp("servers")
    servers = real_servers(scratch)
    # Concurrently, as `sync` does: the servers start side by side instead of one after another.
    results = snapshot_servers([servers[name] for name in sorted(servers)])
    snapshots = [result for result in results.values() if isinstance(result, Snapshot)]
    assert len(snapshots) == len(servers), results
    return snapshots


@pytest.fixture(scope="module")
def real_hub(real_snapshots: list[Snapshot], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The hub over every real server, generated and imported as `realhub.hub`."""
    out = tmp_path_factory.mktemp("generated") / "realhub"
    for snapshot in real_snapshots:
        generate_package(snapshot, out)
    generate_hub([(snapshot, {}) for snapshot in real_snapshots], out)
    yield import_hub(out, "realhub")
    forget("realhub")


def test_every_qualified_name_is_accepted_by_openai_anthropic_gemini_and_mcp(real_hub: Any) -> None:
    golden_catalog = json.loads((OUTPUT / "hub" / "catalog.json").read_text())
    golden_names = [tool["qualified_name"] for tool in golden_catalog["tools"]]
    real_names = list(real_hub.Hub.tools)
    assert len(golden_names) == 6 and len(real_names) == 70
    assert {tool.server for tool in real_hub.Hub.tools.values()} == {
        "everything", "filesystem", "github", "memory", "notes", "time", "weather",
    }  # fmt: skip
    for name in [*golden_names, *real_names, real_hub.Hub.search_tool_definition()["name"]]:
        for provider, rule in NAME_RULES.items():
            assert rule.match(name), f"{provider} rejects {name!r}"
        assert validate_tool_name(name).is_valid, f"MCP rejects {name!r}"
    assert "everything__get-tiny-image" in real_names


def test_catalog_methods_work_on_the_class_before_anything_connects(real_hub: Any) -> None:
    Hub = real_hub.Hub
    names = [definition["name"] for definition in Hub.tool_definitions()]
    assert names == sorted(Hub.tools)

    openai = Hub.tool_definitions("openai")
    assert openai[0]["type"] == "function" and set(openai[0]["function"]) == {"name", "description", "parameters"}
    anthropic = Hub.tool_definitions("anthropic")
    assert set(anthropic[0]) == {"name", "description", "input_schema"}
    gemini = {declaration["name"]: declaration for declaration in Hub.tool_definitions("gemini")}
    assert set(gemini["memory__read_graph"]) == {"name", "description", "parametersJsonSchema", "responseJsonSchema"}
    for definition in Hub.tool_definitions("mcp"):
        tool = Tool.model_validate(definition)  # the protocol's own Tool shape
        assert tool.input_schema == Hub.tools[tool.name].input_schema
    echo = Tool.model_validate(next(d for d in Hub.tool_definitions("mcp") if d["name"] == "everything__echo"))
    assert echo.annotations is not None and echo.annotations.read_only_hint is True
    json.dumps([openai, anthropic, list(gemini.values())])


def test_openai_strict_mode_only_where_the_schema_allows_it(real_hub: Any) -> None:
    definitions = {d["function"]["name"]: d["function"] for d in real_hub.Hub.tool_definitions("openai", strict=True)}
    # every property required and no open extra properties: strict, closed at every level
    sum_tool = definitions["everything__get-sum"]
    assert sum_tool["strict"] is True
    assert sum_tool["parameters"]["additionalProperties"] is False
    assert sorted(sum_tool["parameters"]["required"]) == ["a", "b"]
    assert "$schema" not in sum_tool["parameters"]
    entities = definitions["memory__create_entities"]
    assert entities["strict"] is True
    assert entities["parameters"]["properties"]["entities"]["items"]["additionalProperties"] is False
    # an optional property would have to become required: left non-strict, the server's schema unchanged
    forecast = definitions["weather__get_forecast"]
    assert "strict" not in forecast
    assert forecast["parameters"] == real_hub.Hub.tools["weather__get_forecast"].input_schema
    assert not any(definition.get("strict") for definition in real_hub.Hub.tool_definitions("openai"))


def test_config_filters_and_separator_shape_the_generated_hub(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snaps").mkdir()
    for name in ("notes", "weather"):
        shutil.copy(GOLDEN / name / "snapshot.json", tmp_path / "snaps" / f"{name}.json")
    servers = "".join(f'[tool.mcp-stubgen.servers.{name}]\ncommand = "unused"\n' for name in ("notes", "weather"))
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "filtered"\nhub = true\nhub_separator = "."\n'
        f"{servers}"
        '[tool.mcp-stubgen.hub_filters.weather]\ninclude = ["*e*"]\nexclude = ["send_*"]\n'
        "[tool.mcp-stubgen.hub_filters.notes]\nannotations = { readOnlyHint = true }\n",
    )
    result = run_cli("generate")
    assert result.exit_code == 0, result.stderr
    try:
        Hub = import_hub(tmp_path / "filtered", "filtered").Hub
        # send_alert is excluded; notes declare no hints, so none is read-only (the spec's default)
        assert sorted(Hub.tools) == ["weather.celsius_to_fahrenheit", "weather.get_forecast", "weather.search"]
    finally:
        forget("filtered")
    assert run_cli("generate", "--check").exit_code == 0

    pyproject = (tmp_path / "pyproject.toml").read_text()
    (tmp_path / "pyproject.toml").write_text(pyproject.replace('hub_separator = "."', 'hub_separator = "__"'))
    stale = run_cli("generate", "--check")
    assert stale.exit_code == 1 and re.search(r'^\+\{.*"qualified_name":"weather__search"', stale.stdout, re.M)
    regenerated = run_cli("generate")
    assert "generated filtered/hub (" in regenerated.stderr, regenerated.stderr
    (tmp_path / "pyproject.toml").write_text(pyproject)

    (tmp_path / "pyproject.toml").write_text(pyproject.replace("readOnlyHint = true", "readOnly = true"))
    bad = run_cli("generate")
    assert bad.exit_code == 2
    assert bad.stderr.strip() == (
        "error: pyproject.toml: [tool.mcp-stubgen.hub_filters.notes]: annotations must "
        "map hints (destructiveHint, idempotentHint, openWorldHint, readOnlyHint) to true or false; "
        "'readOnly' is no hint (did you mean 'readOnlyHint'?)"
    )
    (tmp_path / "pyproject.toml").write_text(pyproject.replace("hub_filters.notes]", "hub_filters.nots]"))
    unknown = run_cli("generate")
    assert unknown.exit_code == 2
    # the hub fails in one line; the servers' own packages are still generated
    assert unknown.stderr.splitlines() == [
        "error: hub: [tool.mcp-stubgen.hub_filters.nots] names no server of the hub; the servers are notes, weather",
        "notes: unchanged filtered/notes",
        "weather: unchanged filtered/weather",
    ]


def test_a_filter_pattern_that_matches_no_tool_is_a_warning_naming_the_closest(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`include = ["get_forcast"]` left every weather tool out of the hub and `exclude = ["send-*"]`
    let `send_alert` in, each without a word, exit 0; the hub is still written as configured."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snaps").mkdir()
    shutil.copy(GOLDEN / "weather" / "snapshot.json", tmp_path / "snaps" / "weather.json")
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "out"\nhub = true\n'
        '[tool.mcp-stubgen.servers.weather]\ncommand = "unused"\n'
        '[tool.mcp-stubgen.hub_filters.weather]\ninclude = ["get_forcast", "*"]\nexclude = ["send-*", "search"]\n',
    )
    warnings = [
        "warning: hub: [tool.mcp-stubgen.hub_filters.weather] include pattern 'get_forcast' matches none of the "
        "server's 4 tools; did you mean 'get_forecast'?",
        "warning: hub: [tool.mcp-stubgen.hub_filters.weather] exclude pattern 'send-*' matches none of the "
        "server's 4 tools",
    ]
    for command in (("generate",), ("generate", "--check")):  # the second proves the hub from the cache
        result = run_cli(*command)
        assert result.exit_code == 0, result.stderr
        assert [line for line in result.stderr.splitlines() if line.startswith("warning:")] == warnings


def test_the_shortlist_finds_the_tool_for_tasks_phrased_as_users_ask(real_hub: Any) -> None:
    Hub = real_hub.Hub
    known = set(Hub.tools)
    misses = []
    for task, expected in TASKS:
        assert set(expected) <= known, expected
        first_five = [tool.qualified_name for tool in Hub.shortlist(task, 5)]
        if not set(expected) & set(first_five):
            misses.append((task, expected, first_five))
    answered = 1 - len(misses) / len(TASKS)
    assert len(TASKS) >= 55
    # 49 of 59 since the synonym groups that echoed this set's wording went (issue 25); a floor against
    # regression only: tests/test_hub_search.py measures on requests and catalogs nobody tuned for
    assert answered >= 0.83, f"{answered:.0%} within five; missed:\n" + "\n".join(map(str, misses))
    # deterministic, and the same from the class and from a hub over every server
    clients = {tool.client: object() for tool in Hub.tools.values()}
    assert Hub.shortlist("open a bug report about the crash") == Hub(**clients).shortlist(
        "open a bug report about the crash"
    )
    assert Hub.shortlist("zzz qqq") == []


def test_run_time_filters_select_in_definitions_and_shortlist(real_hub: Any) -> None:
    Hub, ToolFilter = real_hub.Hub, real_hub.ToolFilter
    read_only = ToolFilter(annotations={"readOnlyHint": True})
    names = {definition["name"] for definition in Hub.tool_definitions(filters=read_only)}
    assert "filesystem__read_text_file" in names and "everything__echo" in names
    assert "filesystem__write_file" not in names and "github__create_issue" not in names  # github declares no hints
    per_server = {"filesystem": ToolFilter(include=["read_*"], exclude=["*media*"])}
    filesystem = [d["name"] for d in Hub.tool_definitions(filters=per_server) if d["name"].startswith("filesystem")]
    assert filesystem == [
        "filesystem__read_file", "filesystem__read_multiple_files", "filesystem__read_text_file",
    ]  # fmt: skip
    shortlisted = Hub.shortlist("save this text to a new file", 5, filters=read_only)
    assert shortlisted and all(tool.annotations.get("readOnlyHint") for tool in shortlisted)


@pytest.mark.parametrize("limit", [0, -1, 2.5, True, "5"])
def test_a_shortlist_limit_that_is_not_a_positive_integer_is_refused(real_hub: Any, limit: Any) -> None:
    """Found by a third outside check: -1 cut the last tool off the ranking, 0 gave nothing, silently."""
    with pytest.raises(
        ValueError, match=rf"^shortlist: limit must be a positive integer, not {re.escape(repr(limit))}$"
    ):
        real_hub.Hub.shortlist("read a file", limit)


@pytest.fixture
def notes_and_weather(tmp_path: Path) -> Iterator[Any]:
    """The golden hub case generated under `<tmp>/agenthub/`, imported."""
    out = tmp_path / "agenthub"
    snapshots = hub_case_snapshots()
    for snapshot in snapshots:
        generate_package(snapshot, out)
    generate_hub([(snapshot, {}) for snapshot in snapshots], out)
    yield import_hub(out, "agenthub")
    forget("agenthub")


def stdio(script: Path) -> StdioServerParameters:
    return StdioServerParameters(command=PY, args=[str(script)])


async def test_search_tools_round_trip_and_filtered_tools_are_refused(notes_and_weather: Any) -> None:
    hub_module = notes_and_weather
    Hub = hub_module.Hub
    offered = Hub.search_tool_definition("openai")
    assert offered["function"]["name"] == "search_tools"

    async with Hub.connect(
        weather=stdio(WEATHER), notes=stdio(NOTES), filters=hub_module.ToolFilter(exclude=["send_alert"])
    ) as hub:
        found = await hub.call("search_tools", {"query": "what's the weather going to be in Oslo", "limit": 2})
        assert not found.is_error
        tools = found.structured_content["tools"]
        assert tools[0]["name"] == "weather__get_forecast" and len(tools) == 2
        assert json.loads(found.content[0].text) == found.structured_content
        # the agent calls what it found, with the schema it was given
        forecast = await hub.call(tools[0]["name"], {"city": "Oslo"})
        assert forecast.structured_content["temperature"] == 22.5

        with pytest.raises(
            hub_module.UnknownQualifiedToolError,
            match="cannot offer or call 'weather__send_alert': the hub's filters leave it out",
        ):
            await hub.call("weather__send_alert", {"message": "storm"})
        assert "weather__send_alert" not in {d["name"] for d in hub.tool_definitions()}
        assert "weather__send_alert" in {d["name"] for d in Hub.tool_definitions()}
        with pytest.raises(
            hub_module.ArgumentsError, match=r"search_tools: invalid arguments: .*'query' is a required"
        ):
            await hub.call("search_tools", {"limit": 2})


async def test_tool_results_in_each_format_from_real_calls(real_snapshots: list[Snapshot], tmp_path: Path) -> None:
    from codegen.runtime._hub_catalog import tool_result

    servers = real_servers(tmp_path)
    everything, weather = servers["everything"], servers["weather"]
    async with Client(StdioServerParameters(command=everything.command or "")) as client:
        image = await client.call_tool("get-tiny-image", {})
        structured = await client.call_tool("get-structured-content", {"location": "New York"})
    async with Client(StdioServerParameters(command=weather.command or "", args=list(weather.args))) as client:
        failed = await client.call_tool("send_alert", {"message": ""})

    blocks = tool_result(image, "anthropic", call_id="toolu_1")
    assert blocks["tool_use_id"] == "toolu_1" and blocks["is_error"] is False
    assert {block["type"] for block in blocks["content"]} == {"text", "image"}
    picture = next(block for block in blocks["content"] if block["type"] == "image")
    assert picture["source"]["media_type"] == "image/png" and picture["source"]["data"]
    openai_image = tool_result(image, "openai", call_id="call_1")
    assert openai_image["role"] == "tool" and "[image: image/png," in openai_image["content"]

    gemini = tool_result(structured, "gemini", name="everything__get-structured-content")
    assert gemini["functionResponse"]["response"]["output"] == structured.structured_content
    assert json.loads(tool_result(structured, "openai", call_id="c")["content"].splitlines()[0])

    assert tool_result(failed, "anthropic", call_id="t")["is_error"] is True
    assert "error" in tool_result(failed, "gemini", name="weather__send_alert")["functionResponse"]["response"]
    assert tool_result(failed, "mcp")["isError"] is True
    with pytest.raises(ValueError, match="needs the call's id"):
        tool_result(failed, "openai")


async def test_connect_takes_a_subset_concurrently_and_times_out_per_server(notes_and_weather: Any) -> None:
    Hub = notes_and_weather.Hub
    async with Hub.connect(notes=stdio(NOTES)) as hub:
        assert sorted(hub.live_tools) == ["notes__add_note", "notes__search"]
        assert (await hub.call("notes__search", {"text": "coffee"})).structured_content["notes"][0]["id"] == 2
        assert not hasattr(hub, "weather")
        with pytest.raises(notes_and_weather.UnknownQualifiedToolError):
            await hub.call("weather__search", {"query": "os"})

    silent = StdioServerParameters(command=PY, args=["-c", "import time; time.sleep(30)"])
    with pytest.raises(notes_and_weather.HubError) as late:
        async with Hub.connect(notes=stdio(NOTES), weather=silent, timeout=8):
            raise AssertionError("connected to a server that never answers")
    assert str(late.value) == (
        "hub: server 'weather' could not connect (not connected within 8 s); none of the servers stays open"
    )


CHANGING = SERVERS / "changing_server.py"


@pytest.fixture
def changing_server() -> Iterator[str]:
    """A server that starts with tool `alpha` and adds tools when `add_tools` is called; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [PY, str(CHANGING), str(port), "--tools", "alpha"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["listen-2026", "notification-legacy"])
async def test_the_live_catalog_follows_list_changed(changing_server: str, tmp_path: Path, mode: str) -> None:
    live = await snapshot_server(ServerConfig(name="changing", url=changing_server, transport="http"))
    # the snapshot also saw `beta`, which the server no longer has
    document = json.loads(live.canonical_bytes())
    document["tools"].append({**document["tools"][-1], "name": "beta", "description": "The beta tool."})
    snapshot = parse_snapshot(json.dumps(document).encode(), "changing")
    out = tmp_path / f"livehub_{mode}"
    generate_package(snapshot, out)
    generate_hub([(snapshot, {})], out)
    hub_module = import_hub(out, out.name)
    try:
        Hub = hub_module.Hub
        assert sorted(Hub.tools) == ["changing__add_tools", "changing__alpha", "changing__beta"]
        async with Hub.connect(changing=changing_server, mode=mode, live_tools="offer") as hub:
            assert sorted(hub.live_tools) == ["changing__add_tools", "changing__alpha"]
            with pytest.raises(
                hub_module.UnknownQualifiedToolError,
                match="cannot offer or call 'changing__beta': its server 'changing' no longer lists it",
            ):
                await hub.call("changing__beta", {"text": "x"})

            # a long name with a katakana middle dot, which Python 3.11 does not let continue a name and
            # 3.13 does: its name was hashed as written, where `generate` hashes it as 3.11 reads it
            dotted = "search_every_document_in_the_archive_by_its_title\u30fband_its_author_name"
            async with Client(changing_server) as other:
                await other.call_tool("add_tools", {"names": ["gamma.v2", dotted]})
            with anyio.fail_after(15):
                while "changing__gamma_v2" not in hub.live_tools or len(hub.live_tools) < 4:
                    await anyio.sleep(0.05)
            generated = qualified_tools({"changing": ["add_tools", "alpha", "gamma.v2", dotted]})
            assert sorted(hub.live_tools) == [tool.qualified_name for tool in generated]

            called = await hub.call("changing__gamma_v2", {"text": "hi"})
            assert called.content[0].text == "called gamma.v2"
            with pytest.raises(hub_module.ArgumentsError) as wrong:
                await hub.call("changing__gamma_v2", {"text": 5})
            assert str(wrong.value) == (
                "changing__gamma_v2: invalid arguments: text: 5 is not of type 'string' "
                "(schema rule /properties/text/type); nothing was sent"
            )
            assert "changing__gamma_v2" in {d["name"] for d in hub.tool_definitions()}
            assert [tool.qualified_name for tool in hub.shortlist("gamma", 1)] == ["changing__gamma_v2"]
            assert "changing__gamma_v2" not in Hub.tools  # the generated catalog stays as generated

            difference = hub.difference()
            dotted_name = next(tool.qualified_name for tool in generated if tool.tool == dotted)
            assert (difference.added, difference.removed) == (
                tuple(sorted(("changing__gamma_v2", dotted_name))),
                ("changing__beta",),
            )
            with pytest.raises(Exception, match="beta") as drift:
                await hub.verify()
            assert type(drift.value).__name__ == "CatalogDriftError"
    finally:
        forget(out.name)


async def test_a_server_that_dies_fails_its_own_calls_and_the_hub_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Two 2026-07-28 servers the hub follows on `subscriptions/listen` die mid-session (one over
    stdio crashes, one over Streamable HTTP is killed): the lost stream ended the whole hub with the
    SDK's `SubscriptionLost` and took the third server down with it. Now each dead server's calls fail
    as `ServerError`, the others answer, and leaving the hub raises nothing."""
    port = free_port()
    changing = subprocess.Popen(
        [PY, str(CHANGING), str(port), "--tools", "alpha"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    mortal = (PY, str(SERVERS / "mortal_server.py"))
    out = tmp_path / "dyinghub"
    try:
        wait_for_port(port, changing)
        configs = [
            ServerConfig(name="mortal", command=mortal[0], args=mortal[1:]),
            ServerConfig(name="changing", url=url, transport="http"),
            ServerConfig(name="notes", command=PY, args=(str(NOTES),)),
        ]
        snapshots = [await snapshot_server(config) for config in configs]
        for snapshot in snapshots:
            generate_package(snapshot, out)
        generate_hub([(snapshot, {}) for snapshot in snapshots], out)
        hub_module = import_hub(out, out.name)
        with anyio.fail_after(60), caplog.at_level("WARNING"):
            started = hub_module.Hub.connect(
                mortal=StdioServerParameters(command=mortal[0], args=list(mortal[1:])), changing=url, notes=stdio(NOTES)
            )
            async with started as hub:
                with pytest.raises(hub_module.ServerError, match=r"^server 'mortal': tool 'crash' failed: "):
                    await hub.call("mortal__crash", {})
                changing.kill()
                changing.wait(timeout=10)
                await anyio.sleep(1)  # both streams are lost by now
                with pytest.raises(hub_module.ServerError, match=r"^server 'mortal': tool 'echo' failed: "):
                    await hub.call("mortal__echo", {"text": "x"})
                with pytest.raises(hub_module.ServerError) as unreachable:
                    await hub.call("changing__alpha", {"text": "x"})
                assert str(unreachable.value) == (
                    "server 'changing': tool 'alpha' failed: ConnectError: All connection attempts failed; "
                    "is the server running? (code -32000)"
                )
                found = await hub.call("notes__search", {"text": "coffee"})
                assert found.structured_content["notes"][0]["id"] == 2
        lost = [
            record.getMessage() for record in caplog.records if "subscriptions/listen was lost" in record.getMessage()
        ]
        assert sorted(message.split("'")[1] for message in lost) == ["changing", "mortal"], lost
    finally:
        changing.kill()
        changing.wait(timeout=10)
        forget(out.name)


async def test_a_restarted_server_is_followed_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A 2026-07-28 server over Streamable HTTP restarts under a connected hub (a redeploy): its calls
    go on, but the hub waited for legacy notifications the server never sends, so a tool it added
    later never reached `hub.live_tools`. Now the hub subscribes again and sees it; and a server that
    drops every new stream at once is asked again after growing pauses, not in a tight loop."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    def start() -> subprocess.Popen[bytes]:
        command = [sys.executable, str(CHANGING), str(port), "--tools", "alpha"]  # a fork outlives its killed command
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(port, process)
        return process

    server = start()
    out = tmp_path / "restartedhub"
    try:
        snapshot = await snapshot_server(ServerConfig(name="changing", url=url, transport="http"))
        generate_package(snapshot, out)
        generate_hub([(snapshot, {})], out)
        hub_module = import_hub(out, out.name)
        with anyio.fail_after(60), caplog.at_level("WARNING"):
            async with hub_module.Hub.connect(changing=url, live_tools="offer") as hub:
                server.kill()
                server.wait(timeout=10)
                server = start()
                assert (await hub.call("changing__alpha", {"text": "x"})).content[0].text == "called alpha"
                async with Client(url) as other:
                    await other.call_tool("add_tools", {"names": ["gamma"]})
                while "changing__gamma" not in hub.live_tools:
                    await anyio.sleep(0.05)
                lost = [
                    record.getMessage() for record in caplog.records if "subscriptions/listen" in record.getMessage()
                ]
                assert len(lost) == 1 and lost[0].endswith("; subscribing again"), lost

                subscriptions: list[float] = []

                class Dropped:
                    def __aiter__(self) -> Dropped:
                        return self

                    async def __anext__(self) -> object:
                        raise SubscriptionLost("dropped")

                @asynccontextmanager
                async def accepted_then_dropped(**_filters: bool) -> AsyncIterator[Dropped]:
                    subscriptions.append(anyio.current_time())
                    yield Dropped()

                hub.clients["changing"].mcp_client.listen = accepted_then_dropped
                server.kill()  # the stream it has now is lost; every new one is dropped at once
                server.wait(timeout=10)
                server = start()
                while len(subscriptions) < 2:
                    await anyio.sleep(0.05)
                assert subscriptions[1] - subscriptions[0] >= 0.9, subscriptions
    finally:
        server.kill()
        server.wait(timeout=10)
        forget(out.name)


async def test_connect_from_config_launches_servers_as_the_project_config_says(
    notes_and_weather: Any, tmp_path: Path
) -> None:
    Hub, HubError = notes_and_weather.Hub, notes_and_weather.HubError
    config = write_config(
        tmp_path,
        "[tool.mcp-stubgen]\n"
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(WEATHER))}]\n",
    )
    async with Hub.connect_from_config(config, servers=["weather"]) as hub:
        assert sorted(hub.clients) == ["weather"]
        found = await hub.call("weather__search", {"query": "os"})
        assert found.structured_content == {"result": ["Oslo"]}

    with pytest.raises(HubError) as missing:
        Hub.connect_from_config(config)
    assert str(missing.value) == (
        f"hub: server 'notes' is not configured in {config}; add it under [tool.mcp-stubgen.servers]"
    )
    with pytest.raises(HubError, match=r"^hub: no server 'wether' in this hub \(it has notes, weather\)$"):
        Hub.connect_from_config(config, servers=["wether"])


async def test_connect_from_config_names_a_stdio_server_that_serves_http_alone_before_the_connect_timeout(
    notes_and_weather: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that says on stderr "Server listening on http://127.0.0.1:PORT/mcp" and never answers on
    stdout: `snapshot` names it with its URL a third of `connect_timeout` after it said so; the hub
    waited all of `connect_timeout` and named it by its port alone."""
    import time

    from codegen.snapshot import discovery

    monkeypatch.setattr(discovery, "HTTP_QUIET_SHARE", 0.05)  # the rule, not its wait: 1 s of 20
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    args = [str(SERVERS / "modern_http_server.py"), str(port), "--log", str(tmp_path / "requests.log"), "--announce"]
    config = write_config(
        tmp_path,
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = {json.dumps(args)}\n"
        "connect_timeout = 20\n",
    )
    started = time.monotonic()
    with pytest.raises(notes_and_weather.HubError) as failed:
        async with notes_and_weather.Hub.connect_from_config(config, servers=["weather"]):
            pass
    elapsed = time.monotonic() - started
    assert (
        f"server 'weather': no answer on stdout 1s (a third of connect_timeout) after it said it listens on {url}, "
        "so it serves HTTP, not stdio: start it in its stdio mode (often a --stdio or --transport stdio option), or "
        f'give that URL as the server\'s `url` (url = "{url}")'
    ) in str(failed.value), failed.value
    assert elapsed < 15, f"{elapsed:.1f}s: the wait was not ended before connect_timeout (20s)"


def test_connect_from_config_sync_opens_the_sync_hub_as_the_project_config_says(
    notes_and_weather: Any, tmp_path: Path
) -> None:
    """Code with no event loop had `Hub.connect_sync` for servers it starts itself, and no way to the
    config's servers (the twenty-sixth round): `connect_from_config_sync` is `connect_from_config`
    on the sync hub's loop thread, handlers and checks alike."""
    Hub, HubError = notes_and_weather.Hub, notes_and_weather.HubError
    config = write_config(
        tmp_path,
        "[tool.mcp-stubgen]\n"
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(WEATHER))}]\n",
    )
    with Hub.connect_from_config_sync(config, servers=["weather"], logging_callback=lambda params: None) as hub:
        assert sorted(hub.hub.clients) == ["weather"]
        assert hub.weather.search(query="os") == ["Oslo"]
        assert hub.call("weather__search", {"query": "os"}).structured_content == {"result": ["Oslo"]}
    with pytest.raises(HubError, match=r"^hub: no server 'wether' in this hub \(it has notes, weather\)$"):
        Hub.connect_from_config_sync(config, servers=["wether"])


@pytest.mark.parametrize("given", [["weather"], "weather"])
def test_connect_from_config_given_server_ids_where_the_config_goes_says_to_name_them_as_servers(
    notes_and_weather: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: Any
) -> None:
    """`Hub.connect_from_config(["biblio"])` was a `TypeError` traceback from `os.fspath`, and
    `Hub.connect_from_config("biblio")` "biblio: config file not found" (the twenty-first round): the
    first argument is the config file, the servers a keyword."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(notes_and_weather.HubError) as failed:
        notes_and_weather.Hub.connect_from_config(given)
    assert str(failed.value) == (
        f"hub: connect_from_config's first argument is the config file, not {given!r}; "
        "name the servers to connect with servers=[...]"
    )


@pytest.mark.parametrize(
    ("mode", "why", "advice"),
    [
        (
            "serves-http",
            r"no answer on stdout 0.333s \(a third of connect_timeout\) after it said it listens on http://localhost:5000",
            r"if that URL is its MCP endpoint \(mcp-stubgen cannot tell: such URLs usually end in /mcp\), "
            r"give that URL as the server's `url` \(url = \"http://localhost:5000\"\)",
        ),
        (
            "serves-http-silently",
            r"no answer to the handshake within 1s; it listens on TCP port \d+ \(127\.0\.0\.1\)",
            r"if it serves MCP over HTTP, give its MCP endpoint as the server's `url`",
        ),
    ],
)
async def test_connect_from_config_names_a_stdio_server_that_serves_http(
    notes_and_weather: Any, tmp_path: Path, mode: str, why: str, advice: str
) -> None:
    """officeagent-mcp 1.2.0 without `--stdio` serves HTTP and logs "Now listening on:
    http://localhost:5000" to stdout: `snapshot` named it so, but the hub connected from the config
    read stdout through the SDK, waited again for the legacy handshake, and said to check that it is
    an MCP server (found in the seventeenth round); it is named as `snapshot` names it, a third of
    `connect_timeout` after it named its URL. lucide-icons-mcp 0.1.67 without `--stdio` says
    nothing, and a port its process tree listens on names it (the nineteenth round). Neither says
    where MCP is served, so the URL is offered only if it is the MCP endpoint (`founddefects4`)."""
    message = await _raw_server_refused(notes_and_weather, tmp_path, mode)
    assert re.match(
        rf"hub: server 'weather' could not connect \(StubgenError: server 'weather': {why}, so it serves HTTP, "
        r"not stdio: start it in its "
        rf"stdio mode \(often a --stdio or --transport stdio option\), or {advice}",
        message,
    ), message


async def _raw_server_refused(generated: Any, tmp_path: Path, mode: str) -> str:
    """The one line `Hub.connect_from_config` refuses the raw server in `mode` with (as `weather`)."""
    raw = [str(SERVERS / "raw_server.py"), "--mode", mode]
    config = write_config(
        tmp_path,
        "[tool.mcp-stubgen]\n"
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = {json.dumps(raw)}\n"
        "connect_timeout = 1\n",
    )
    with pytest.raises(generated.HubError) as failed:
        async with generated.Hub.connect_from_config(config, servers=["weather"]):
            pass
    assert "\n" not in str(failed.value)
    return str(failed.value)


async def test_connect_from_config_names_a_stdio_server_that_waits_for_a_sign_in(
    notes_and_weather: Any, tmp_path: Path
) -> None:
    """@a-bonus/google-docs-mcp 1.11.3 with no stored token listens for the redirect of the sign-in URL
    it prints: the hub said it serves HTTP (the twenty-first round), as `snapshot` did."""
    message = await _raw_server_refused(notes_and_weather, tmp_path, "waits-for-sign-in")
    assert re.match(
        r"hub: server 'weather' could not connect \(StubgenError: server 'weather': no answer to the handshake "
        r"within 1s; it waits for a sign-in in a browser \(it printed a sign-in URL that returns to "
        r"http://localhost:\d+\)",
        message,
    ), message


def test_openai_strict_mode_closes_or_refuses_a_nullable_object_as_any_object() -> None:
    """`type: ["object", "null"]` (zod's `.nullable()`) is an object too: a nullable map was marked
    strict with its extra properties open, which strict mode refuses, and a nullable bare object
    was left without `additionalProperties: false`."""
    from codegen.runtime._hub_catalog import openai_strict_schema

    def root(inner: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "properties": {"m": inner}, "required": ["m"]}

    assert openai_strict_schema(root({"type": ["object", "null"], "additionalProperties": {"type": "string"}})) is None
    closed = openai_strict_schema(root({"type": ["object", "null"]}))
    assert closed is not None and closed["properties"]["m"]["additionalProperties"] is False


def test_provider_formats_take_a_root_union_as_one_object_and_the_hub_still_checks_the_tools_own_schema() -> None:
    """Anthropic, OpenAI, Bedrock and Vertex refuse a whole request whose tool list holds a schema with
    `anyOf`, `oneOf` or `allOf` at its root, or a root that is not `type: "object"` (a root union of two
    `$defs`, as zod's discriminated unions are written, which MCP 2026-07-28 allows)."""
    from codegen.runtime._hub_catalog import HubTool, tool_definition
    from codegen.runtime._schema_check import SchemaCheck

    schema = {
        "oneOf": [{"$ref": "#/$defs/ByCity"}, {"$ref": "#/$defs/ByCoordinates"}],
        "$defs": {
            "ByCity": obj({"by": {"const": "city"}, "city": {"type": "string"}}, ("by", "city")),
            "ByCoordinates": obj({"by": {"const": "point"}, "lat": {"type": "number"}}, ("by", "lat")),
        },
    }
    tool = HubTool("w__find", "w", "w", "find", "Find a station.", schema)
    taken = {
        "anthropic": tool_definition(tool, "anthropic")["input_schema"],
        "openai": tool_definition(tool, "openai")["function"]["parameters"],
        "gemini": tool_definition(tool, "gemini")["parametersJsonSchema"],
    }
    for shown in taken.values():
        assert shown["type"] == "object" and not {"anyOf", "oneOf", "allOf", "$ref"} & shown.keys()
        assert shown["properties"]["by"] == {"anyOf": [{"const": "city"}, {"const": "point"}]}
        assert sorted(shown["properties"]) == ["by", "city", "lat"] and shown["required"] == ["by"]
    assert tool_definition(tool, "mcp")["inputSchema"] == schema  # the protocol's own shape keeps it
    assert tool_definition(tool)["input_schema"] == schema
    assert SchemaCheck(tool.input_schema).problem({"by": "city", "lat": 1.0}) is not None  # what `hub.call` checks
