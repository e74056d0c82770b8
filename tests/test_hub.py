"""The hub: one namespaced catalog over several servers' generated clients.

Real servers over stdio and Streamable HTTP are called through a generated hub by qualified name;
generation errors, `--check`, `sync` and the golden hub package are checked through the CLI.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import StdioServerParameters
from mcp.types import CallToolResult

from codegen.config import HubSettings, ServerConfig, load_config
from codegen.errors import StubgenError
from codegen.generate import Cache, generate_package, hub_build, pipeline
from codegen.generate.build import build_package
from codegen.generate.escaping import python_literal
from codegen.generate.hub import build_hub, render_hub
from codegen.generate.hub import generate_hub as write_hub
from codegen.generate.pipeline import hub_dir
from codegen.generate.publish import diff_trees, read_tree
from codegen.identifiers import HUB_MEMBERS, qualified_tools
from codegen.runtime._hub_catalog import qualified_name
from codegen.runtime._hub_runtime import GeneratedHub, GeneratedSyncHub
from codegen.snapshot import Snapshot, load_snapshot, parse_snapshot, write_snapshot
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, REPO, SERVERS, free_port, wait_for_port, write_config
from tests.regen_goldens import GOLDEN, OUTPUT, REGEN_COMMAND, hub_case_snapshots, hub_case_tree

PY = PYTHON
WEATHER = REPO / "examples" / "weather_server.py"
NOTES = REPO / "examples" / "notes_server.py"
DOTTED = SERVERS / "dotted_server.py"


def stdio(script: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=PY, args=[str(script), *args])


@pytest.fixture
def generate_hub(tmp_path: Path) -> Iterator[Any]:
    """Generate the servers' packages and the hub under `<tmp>/<name>/`, import `<name>.hub`; forget it after."""
    names: list[str] = []

    def generate(name: str, snapshots: list[Snapshot]) -> Any:
        out = tmp_path / name
        for snapshot in snapshots:
            generate_package(snapshot, out)
        write_hub([(snapshot, {}) for snapshot in snapshots], out)
        names.append(name)
        return importlib.import_module(f"{name}.hub")

    sys.path.insert(0, str(tmp_path))
    try:
        yield generate
    finally:
        sys.path.remove(str(tmp_path))
        for module in [module for module in sys.modules if module.split(".")[0] in names]:
            del sys.modules[module]


@pytest.fixture
def notes_http() -> Iterator[str]:
    """The notes example over Streamable HTTP on a free loopback port; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [PY, str(NOTES), "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_two_servers_offering_search_are_called_by_qualified_name(generate_hub: Any, notes_http: str) -> None:
    weather_snapshot = await snapshot_server(ServerConfig(name="weather", command=PY, args=(str(WEATHER),)))
    notes_snapshot = await snapshot_server(ServerConfig(name="notes", url=notes_http, transport="http"))
    hub_module = generate_hub("live", [weather_snapshot, notes_snapshot])

    async with hub_module.Hub.connect(weather=stdio(WEATHER), notes=notes_http) as hub:
        weather_hit = await hub.call("weather__search", {"query": "OS"})
        assert isinstance(weather_hit, CallToolResult) and not weather_hit.is_error
        assert weather_hit.structured_content == {"result": ["Oslo"]}

        notes_hit = await hub.call("notes__search", {"text": "BERLIN", "tag": "travel"})
        assert notes_hit.structured_content == {
            "text": "BERLIN",
            "tag": "travel",
            "notes": [{"id": 3, "title": "Book the train to Berlin", "tags": ["travel"]}],
        }

        # the same servers through the typed attributes
        assert await hub.weather.search(query="ber") == ["Berlin"]
        typed = await hub.notes.search(text="coffee")
        assert type(typed).__name__ == "SearchOutput" and typed.model_dump() == {
            "text": "coffee",
            "tag": None,
            "notes": [{"id": 2, "title": "Buy coffee beans", "tags": ["shopping"]}],
        }
        assert (await hub.weather.get_forecast(city="Oslo")).temperature == 22.5

        # arguments are checked against that tool's JSON Schema before anything is sent
        with pytest.raises(hub_module.ArgumentsError) as missing:
            await hub.call("notes__search", {"query": "Oslo"})
        assert str(missing.value) == (
            "notes__search: invalid arguments: (arguments): 'text' is a required property "
            "(schema rule /required); nothing was sent"
        )
        with pytest.raises(
            hub_module.ArgumentsError, match=r"title: 5 is not of type 'string' \(schema rule /properties/title/type\)"
        ):
            await hub.call("notes__add_note", {"title": 5})
        assert (await hub.call("notes__search", {"text": "plants"})).structured_content["notes"] == []

        # a tool failure comes back as the server's result, for an agent to show the model
        failed = await hub.call("weather__send_alert", {"message": ""})
        assert failed.is_error is True

        with pytest.raises(hub_module.UnknownQualifiedToolError) as unknown:
            await hub.call("weather__serch", {"query": "x"})
        assert isinstance(unknown.value, LookupError)
        assert unknown.value.name == "weather__serch"
        assert unknown.value.suggestions[0] == "weather__search"
        assert str(unknown.value).startswith("the hub has no tool 'weather__serch'; did you mean 'weather__search'")
        with pytest.raises(hub_module.UnknownQualifiedToolError, match="no tool 'search'"):
            await hub.call("search", {"query": "x"})

        await hub.verify()


async def test_dotted_names_are_mapped_and_still_route_by_lookup(generate_hub: Any) -> None:
    calc = await snapshot_server(ServerConfig(name="acme.calc", command=PY, args=(str(DOTTED), "--role", "calc")))
    acme = await snapshot_server(ServerConfig(name="acme", command=PY, args=(str(DOTTED), "--role", "acme")))
    hub_module = generate_hub("dotted", [calc, acme])
    Hub = hub_module.Hub

    assert sorted(Hub.tools) == ["acme__calc_math_divide", "acme_calc__math_multiply"]
    multiply, divide = Hub.tools["acme_calc__math_multiply"], Hub.tools["acme__calc_math_divide"]
    assert (multiply.server, multiply.client, multiply.tool) == ("acme.calc", "acme_calc", "math.multiply")
    assert (divide.server, divide.client, divide.tool) == ("acme", "acme", "calc.math.divide")

    async with Hub.connect(acme_calc=stdio(DOTTED, "--role", "calc"), acme=stdio(DOTTED, "--role", "acme")) as hub:
        product = await hub.call("acme_calc__math_multiply", {"a": 6, "b": 7})
        assert product.structured_content == {"role": "calc", "tool": "math.multiply", "value": 42.0}
        quotient = await hub.call("acme__calc_math_divide", {"a": 1, "b": 4})
        assert quotient.structured_content == {"role": "acme", "tool": "calc.math.divide", "value": 0.25}
        with pytest.raises(hub_module.UnknownQualifiedToolError):
            await hub.call("acme.calc.math.multiply", {})


def test_tool_definitions_are_every_qualified_tool_with_the_servers_own_schema(generate_hub: Any) -> None:
    Hub = generate_hub("definitions", hub_case_snapshots()).Hub
    definitions = Hub.tool_definitions()  # no connection needed

    weather = load_snapshot(GOLDEN / "weather" / "snapshot.json")
    notes = load_snapshot(GOLDEN / "notes" / "snapshot.json")
    expected = sorted(
        (
            {
                "name": f"{snapshot.server}__{tool['name']}",
                "description": tool["description"],
                "input_schema": tool["inputSchema"],
            }
            for snapshot in (weather, notes)
            for tool in snapshot.tools
        ),
        key=lambda definition: definition["name"],
    )
    assert definitions == expected
    assert [definition["name"] for definition in definitions] == [
        "notes__add_note",
        "notes__search",
        "weather__celsius_to_fahrenheit",
        "weather__get_forecast",
        "weather__search",
        "weather__send_alert",
    ]
    json.dumps(definitions)  # plain JSON, ready for an LLM API
    definitions[0]["input_schema"]["properties"].clear()
    assert Hub.tool_definitions() == expected
    assert Hub(weather=object(), notes=object()).tool_definitions() == expected


def snapshot_document(server: str, tools: dict[str, str | None]) -> dict[str, Any]:
    """A minimal snapshot: each tool takes one string `q`; the value is its description."""
    return {
        "format": 1,
        "server": server,
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "tools": [
            {
                "name": name,
                **({"description": description} if description is not None else {}),
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
            }
            for name, description in tools.items()
        ],
    }


def write_snapshots(folder: Path, *documents: dict[str, Any]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, document in enumerate(documents):
        path = folder / f"s{index}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        paths.append(path)
    return paths


@pytest.mark.parametrize(
    ("documents", "message"),
    [
        (
            [snapshot_document("a", {"b__c": None}), snapshot_document("a__b", {"c": None})],
            "error: hub: tool 'b__c' of server 'a' and tool 'c' of server 'a__b' both get the qualified name "
            "'a__b__c'; rename one of the server ids or choose another hub_separator",
        ),
        (
            [snapshot_document("hub", {"search": None})],
            "error: hub: server 'hub' would generate the package 'hub', which is the hub's own folder; "
            "rename the server id",
        ),
    ],
    ids=["colliding", "hub-package"],
)
def test_a_server_id_that_makes_a_bad_qualified_name_fails_generation_in_one_line(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, documents: list[dict[str, Any]], message: str
) -> None:
    paths = write_snapshots(tmp_path / "snaps", *documents)
    result = run_cli("generate", *paths, "--out", tmp_path / "out", "--hub")
    assert result.exit_code == 2
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")] == [message]
    # the hub is not written; every server whose package is not the hub's own folder still is
    assert not (tmp_path / "out" / "hub" / "_hub_runtime.py").exists()
    written = sorted(path.name for path in (tmp_path / "out").glob("[!._]*"))
    assert written == ([] if documents[0]["server"] == "hub" else ["a", "a_b"])


def test_a_server_named_like_code_mode_replaces_neither_its_package_nor_the_hub(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path
) -> None:
    """A server `code_mode` beside code mode was published over the code-mode package (its stubs,
    `index.md` and `AGENTS.md` removed), and into the hub, which then typed it as a client package,
    before code mode's own error line and exit 2."""
    out = tmp_path / "out"
    (good,) = write_snapshots(tmp_path / "one", snapshot_document("s", {"search": None}))
    assert run_cli("generate", good, "--out", out, "--hub", "--code-mode").exit_code == 0
    before = {path: path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}
    (clash,) = write_snapshots(tmp_path / "two", snapshot_document("code_mode", {"find": None}))
    result = run_cli("generate", good, clash, "--out", out, "--hub", "--code-mode")
    assert result.exit_code == 2
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")] == [
        "error: code mode: server 'code_mode' would generate the package 'code_mode', which is code mode's own "
        "folder; rename the server id"
    ]
    assert {path: path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()} == before


def test_qualified_names_are_mapped_shortened_and_checked_deterministically() -> None:
    long_server, long_tool = "s" * 40, "look up the " + "t" * 60
    names = qualified_tools({"docs": ["look up", "café.menu"], long_server: [long_tool]})
    assert [(tool.qualified_name, tool.server, tool.tool) for tool in names] == [
        ("docs__cafe_menu", "docs", "café.menu"),
        ("docs__look_up", "docs", "look up"),
        (names[2].qualified_name, long_server, long_tool),
    ]
    shortened = names[2].qualified_name
    assert len(shortened) == 64 and shortened.startswith("s" * 37 + "__look_up_the_tttt_")  # 16 of the tool's
    assert qualified_tools({long_server: [long_tool]})[0].qualified_name == shortened
    assert qualified_tools({long_server: [long_tool + "x"]})[0].qualified_name != shortened
    assert [tool.qualified_name for tool in qualified_tools({"9lives": ["x"]}, ".")] == ["_9lives.x"]
    # one server's tools that map alike are named after their (unique, stable) client methods
    alike = qualified_tools({"a": ["b.c", "b_c"]}, methods={"a": {"b.c": "b_c", "b_c": "b_c_2"}})
    assert [(tool.qualified_name, tool.tool) for tool in alike] == [("a__b_c", "b.c"), ("a__b_c_2", "b_c")]
    # a name with no ASCII letter or digit (tmcp's `统计字数`) was `tmcp______`: now its client method's,
    # which `method_names` chooses
    methods = {"tmcp": {"统计字数": "count_words", "計算": "tool", "add": "add"}}
    wordless = qualified_tools({"tmcp": ["统计字数", "計算", "add"]}, methods=methods)
    assert [(tool.qualified_name, tool.tool) for tool in wordless] == [
        ("tmcp__add", "add"),
        ("tmcp__count_words", "统计字数"),
        ("tmcp__tool", "計算"),
    ]
    unplanned = qualified_tools({"tmcp": ["统计字数", "計算"]})
    assert [(tool.qualified_name, tool.tool) for tool in unplanned] == [
        ("tmcp__tool", "统计字数"),
        ("tmcp__tool_2", "計算"),
    ]
    with pytest.raises(StubgenError, match="gets the qualified name 'search_tools', which is the hub's own meta-tool"):
        qualified_tools({"search": ["tools"]}, "_")
    with pytest.raises(StubgenError) as bad_separator:
        qualified_tools({"docs": ["x"]}, "::")
    assert str(bad_separator.value) == "hub: hub_separator '::' must be one to four of '_', '-' and '.' (default '__')"


def test_a_tool_named_in_another_script_beside_one_named_tool_gets_a_hub_name_of_its_own() -> None:
    """Rules 5 name `天气`'s method `天气` and `😀`'s `tool` (no letters): the hub spelled `天气` as
    `tool` too, for want of an ASCII method, and generating it failed ("both get the qualified name
    's__tool'"), so a server with such tools could have no hub. Hub names that did not meet stay."""

    def hub_names(*tools: str) -> list[tuple[str, str]]:
        snapshot = Snapshot(
            server="s",
            protocol_version="2026-07-28",
            capabilities={"tools": {}},
            tools=tuple({"name": tool, "inputSchema": {"type": "object"}} for tool in sorted(tools)),
        )
        package = build_package(snapshot, {}, Cache.disabled())
        hub = build_hub([(snapshot, package)], HubSettings())
        return sorted((tool.tool, tool.qualified_name) for tool in hub.tools)

    assert hub_names("天气", "😀") == [("天气", "s__tool_2"), ("😀", "s__tool")]
    assert hub_names("天气", "😀", "🙂") == [("天气", "s__tool_3"), ("😀", "s__tool"), ("🙂", "s__tool_2")]
    assert hub_names("天气", "统计") == [("天气", "s__tool"), ("统计", "s__tool_2")]
    assert hub_names("天气", "add") == [("add", "s__add"), ("天气", "s__tool")]


def test_a_hub_name_spells_latin_letters_as_the_tools_method_does() -> None:
    """`größe` on server `lager` was the hub name `lager__gro_e` beside the method `grosse`: rules 12
    spell a hub name's Latin letters as rules 7 spell a method's, so the two read alike. A snapshot of
    rules 11 keeps the hub names it had; tools whose spellings meet still get names of their own."""

    def named(rules: int, *tools: str) -> list[tuple[str, str, str]]:
        snapshot = Snapshot(
            server="lager",
            protocol_version="2025-11-25",
            capabilities={"tools": {}},
            tools=tuple({"name": tool, "inputSchema": {"type": "object"}} for tool in tools),
            naming_rules=rules,
        )
        package = build_package(snapshot, {}, Cache.disabled())
        methods = {tool.wire: tool.method for tool in package.tools}
        hub = build_hub([(snapshot, package)], HubSettings())
        return sorted((tool.tool, methods[tool.tool], tool.qualified_name) for tool in hub.tools)

    assert named(12, "größe", "Øl-Æble") == [
        ("größe", "grosse", "lager__grosse"),
        ("Øl-Æble", "ol_aeble", "lager__Ol-Aeble"),
    ]
    assert named(11, "größe", "Øl-Æble") == [
        ("größe", "grosse", "lager__gro_e"),
        ("Øl-Æble", "ol_aeble", "lager___l-_ble"),
    ]
    assert named(12, "größe", "grosse") == [
        ("grosse", "grosse", "lager__grosse"),
        ("größe", "grosse_2", "lager__grosse_2"),
    ]
    # a tool a server adds while a hub is connected is named by the newest rules
    assert qualified_name("lager", "größe") == "lager__grosse"


def test_a_long_server_id_keeps_a_readable_part_of_the_tool_name() -> None:
    """A 60-character server id left no trace of the tool (`aaa...a_<hash>`): a model chose among
    names that differed only in their hashes. Names that fit, and a short server's shortened names
    (each of them a name agents call), are the same as before."""
    server = "a" * 60
    names = [tool.qualified_name for tool in qualified_tools({server: ["get_weather", "get_forecast_for_a_week"]})]
    assert names == ["a" * 37 + "__get_forecast_for_47a37327", "a" * 42 + "__get_weather_8dd0ff0e"]
    assert all(len(name) == 64 for name in names)
    unchanged = qualified_tools({"weather": ["get_forecast", "t" * 80], "b" * 49: ["get_it"]}, "-")
    assert [tool.qualified_name for tool in unchanged] == [
        "b" * 49 + "-get_it",
        "weather-get_forecast",
        "weather-" + "t" * 47 + "_443743c2",
    ]


def test_server_attributes_never_take_the_hubs_own_members() -> None:
    public = {name for name in dir(GeneratedHub) if not name.startswith("_")} | {"clients"}
    sync_public = {name for name in dir(GeneratedSyncHub) if not name.startswith("_")} | {"hub"}
    assert public | sync_public | {"connect_sync"} <= HUB_MEMBERS
    snapshots = [
        parse_snapshot(json.dumps(snapshot_document(name, {"x": None})).encode(), name) for name in ("call", "tools")
    ]
    hub = build_hub([(snapshot, build_package(snapshot)) for snapshot in snapshots])
    assert [(server.server, server.attribute) for server in hub.servers] == [("call", "call_"), ("tools", "tools_")]


def test_untrusted_catalog_text_stays_data(generate_hub: Any, tmp_path: Path) -> None:
    hostile = 'Ends a string: """ \') + __import__("os").system("false") # \\ \n and more'
    document = snapshot_document("evil", {"search": hostile})
    document["tools"][0]["inputSchema"]["properties"]["q"]["description"] = hostile
    document["tools"][0].update(
        title=hostile, annotations={"title": hostile, hostile: True}, outputSchema={hostile: {}}
    )
    snapshot = parse_snapshot(json.dumps(document).encode(), "evil")
    Hub = generate_hub("hostile", [snapshot]).Hub
    tool = Hub.tools["evil__search"]
    assert (tool.description, tool.title) == (hostile, hostile)
    assert tool.input_schema == document["tools"][0]["inputSchema"]
    assert (tool.annotations, tool.output_schema) == ({"title": hostile, hostile: True}, {hostile: {}})
    assert "__import__" not in (tmp_path / "hostile" / "hub" / "client.py").read_text()  # the catalog is data


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@given(json_values)
def test_python_literal_round_trips_any_json(value: Any) -> None:
    assert ast.literal_eval(python_literal(value)) == value


def test_generate_writes_the_hub_from_every_configured_snapshot_and_check_guards_it(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snaps").mkdir()
    for name in ("notes", "weather"):
        (tmp_path / "snaps" / f"{name}.json").write_bytes((GOLDEN / name / "snapshot.json").read_bytes())
    servers = "".join(f'[tool.mcp-stubgen.servers.{name}]\ncommand = "unused"\n' for name in ("notes", "weather"))
    write_config(tmp_path, f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\n{servers}')

    # naming one server still rebuilds the hub over both
    first = run_cli("generate", "weather")
    assert first.exit_code == 0, first.stderr
    assert "generated clients/hub (4 file(s) written, 0 removed)" in first.stderr
    assert read_tree(tmp_path / "clients" / "hub") == read_tree(OUTPUT / "hub")

    assert run_cli("generate").exit_code == 0
    check = run_cli("generate", "--check")
    assert check.exit_code == 0, check.stdout
    assert "3 generated package(s) up to date" in check.stderr

    # unchanged snapshots and folders: proven from their bytes, the hub included, nothing parsed
    def no_parsing(path: Path) -> None:
        raise AssertionError(f"{path} was parsed")

    with monkeypatch.context() as patched:
        patched.setattr(pipeline, "parse_snapshot", no_parsing)
        patched.setattr(hub_build, "parse_snapshot", no_parsing)
        unchanged = run_cli("generate")
    assert unchanged.exit_code == 0, unchanged.stderr
    assert unchanged.stderr.count(": unchanged clients/") == 3
    with (tmp_path / "clients" / "hub" / "__init__.py").open("a") as init:
        init.write("# edited\n")
    assert "generated clients/hub (1 file(s) written, 0 removed)" in run_cli("generate").stderr
    assert read_tree(tmp_path / "clients" / "hub") == read_tree(OUTPUT / "hub")

    edited = json.loads((tmp_path / "snaps" / "notes.json").read_text())
    edited["tools"][1]["description"] = "Search the notebook."
    (tmp_path / "snaps" / "notes.json").write_text(json.dumps(edited))
    stale = run_cli("generate", "--check")
    assert stale.exit_code == 1
    assert "/clients/hub/client.py" in stale.stdout  # its header's fingerprint
    assert "+++ b/clients/hub/catalog.json" in stale.stdout  # one line per tool: the diff names the one edited
    assert '\n+{"client":"notes","description":"Search the notebook.",' in stale.stdout

    # a snapshot there but broken (a merge conflict): the published hub keeps that server's tools
    published = read_tree(tmp_path / "clients" / "hub")
    broken = "<<<<<<< HEAD\n" + (tmp_path / "snaps" / "notes.json").read_text() + "\n=======\n{}\n>>>>>>> theirs\n"
    (tmp_path / "snaps" / "notes.json").write_text(broken)
    for command in (("generate", "weather"), ("generate", "--hub", "weather")):
        damaged = run_cli(*command)
        assert damaged.exit_code == 2
        refused, weather = damaged.stderr.splitlines()
        assert weather == "weather: unchanged clients/weather"
        assert refused.startswith(
            "error: hub: kept as it was, not built without 'notes', whose snapshot cannot be used: snaps/notes.json: "
        )
        assert "merge conflict" in refused
        assert read_tree(tmp_path / "clients" / "hub") == published

    # a server without a snapshot: the hub is built from the others, and says which one it lacks; an
    # error when the run was to generate it, a warning under `generate NAME` of another, as `sync NAME`
    (tmp_path / "snaps" / "notes.json").unlink()
    missing = run_cli("generate", "weather")
    assert missing.exit_code == 0
    assert missing.stderr.splitlines() == [
        "weather: unchanged clients/weather",
        "hub: generated clients/hub (3 file(s) written, 0 removed)",
        "warning: hub: built without 'notes', which has no snapshot yet; run `mcp-stubgen sync notes` to add it",
    ]
    everything = run_cli("generate")
    assert everything.exit_code == 2
    assert (
        "error: hub: built without 'notes': snaps/notes.json: no such snapshot; run `mcp-stubgen snapshot` first"
        in everything.stderr.splitlines()
    )
    assert "weather__get_forecast" in (tmp_path / "clients" / "hub" / "catalog.json").read_text()
    assert "notes__" not in (tmp_path / "clients" / "hub" / "catalog.json").read_text()


def test_sync_writes_an_importable_hub(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    servers = "".join(
        f"[tool.mcp-stubgen.servers.{name}]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(script))}]\n"
        for name, script in (("notes", NOTES), ("weather", WEATHER))
    )
    write_config(tmp_path, f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\n{servers}')
    result = run_cli("sync")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.strip().splitlines()[-2:] == [
        "hub: generated clients/hub (4 file(s) written, 0 removed)",
        "_mcp_runtime: generated clients/_mcp_runtime (15 file(s) written, 0 removed)",  # once, with the hub's files
    ]
    assert read_tree(tmp_path / "clients" / "hub") == read_tree(OUTPUT / "hub")
    again = run_cli("sync", "notes")
    assert again.stderr.strip().splitlines()[-1] == "hub: unchanged clients/hub"
    # sync recorded the hub as current, as generate does: --check proves it from the record, rendering nothing
    config = load_config(tmp_path / "pyproject.toml")
    assert (
        hub_build.hub_rendered(hub_build.hub_sources(config), tmp_path / "clients", Cache.default()).rendered.files
        is None
    )

    imported = subprocess.run(
        [PY, "-c", "from clients.hub import Hub; print(sorted(Hub.tools))"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "'notes__search'" in imported.stdout and "'weather__search'" in imported.stdout


def test_a_hub_generated_from_python_is_recorded_as_current(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`generate_hub` goes through the pipeline every command uses, so it records the hub as current
    as `generate` and `sync` do: the next `--check` proves it from the snapshots' bytes, rendering nothing."""
    (tmp_path / "snaps").mkdir()
    snapshots = [load_snapshot(GOLDEN / name / "snapshot.json") for name in ("notes", "weather")]
    for snapshot in snapshots:
        write_snapshot(tmp_path / "snaps" / f"{snapshot.server}.json", snapshot)
        generate_package(snapshot, tmp_path / "clients", cache=Cache.default())
    write_hub([(snapshot, {}) for snapshot in snapshots], tmp_path / "clients", Cache.default())
    servers = "".join(f'[tool.mcp-stubgen.servers.{name}]\ncommand = "unused"\n' for name in ("notes", "weather"))
    config = write_config(
        tmp_path, f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\n{servers}'
    )
    hub = hub_build.hub_sources(load_config(config))
    assert hub_build.hub_rendered(hub, tmp_path / "clients", Cache.default()).rendered.files is None
    check = run_cli("generate", "--check", "--config", config)
    assert check.exit_code == 0, check.stdout
    assert "3 generated package(s) up to date" in check.stderr


def test_hub_golden_matches() -> None:
    folder = hub_dir(OUTPUT)
    diff = diff_trees(hub_case_tree(), read_tree(folder), folder.relative_to(REPO).as_posix())
    assert not diff, f"the hub golden differs; refresh with `{REGEN_COMMAND}`\n{diff}"


_HUB_IMPORT_PROBE = """
import sys
from clients.hub import Hub, HubError, HubTool, ToolFilter, UnknownQualifiedToolError, tool_result
from clients._mcp_runtime import _hub_runtime
loaded = ("pydantic", "mcp", "jsonschema")
assert not [name for name in loaded if name in sys.modules], "imported on hub import"
servers = ("clients.weather", "clients.notes")
assert not [name for name in sys.modules if name.startswith(servers)], "a server package imported on hub import"
assert [tool.qualified_name for tool in Hub.shortlist("weather forecast for Oslo", 1)] == ["weather__get_forecast"]
assert Hub.tool_definitions("openai")[0]["function"]["name"] == "notes__add_note"
assert not [name for name in loaded if name in sys.modules], "imported by the catalog"
catalog = _hub_runtime.Catalog(Hub.tools)
try:
    catalog.check(Hub.tools["weather__get_forecast"], {"city": 5, "days": "1"})
except _hub_runtime.ArgumentsError as error:
    assert str(error) == (
        "weather__get_forecast: invalid arguments: city: 5 is not of type 'string' (schema rule "
        "/properties/city/type); days: '1' is not of type 'integer' (schema rule /properties/days/type); "
        "nothing was sent"
    ), error
else:
    raise AssertionError("wrong arguments were accepted")
assert "jsonschema" in sys.modules and "pydantic" not in sys.modules and "mcp" not in sys.modules
assert not [name for name in sys.modules if name.startswith(servers)], "a check imported a server package"
"""


def test_importing_the_hub_loads_no_validator_and_no_server_package_until_a_tool_is_called() -> None:
    """Importing the golden hub (beside its servers' packages) costs neither pydantic, mcp nor
    jsonschema, as importing a server package does not; checking a call's arguments loads
    jsonschema alone and reports every problem at once, with its schema rule."""
    result = subprocess.run([PY, "-c", _HUB_IMPORT_PROBE], capture_output=True, text=True, cwd=GOLDEN, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


_CATALOG_READ_PROBE = """
import sys
opened = []
sys.addaudithook(lambda event, args: opened.append(args[0]) if event == "open" and str(args[0]).endswith("catalog.json") else None)
from clients.hub import Hub
assert opened == [], f"importing the hub read {opened}"
assert [tool["name"] for tool in Hub.tool_definitions()] == list(Hub.tools) and len(Hub.tools) == 6
assert Hub.tools["weather__get_forecast"].input_schema["required"] == ["city"]
Hub.shortlist("forecast")
assert len(opened) == 1, f"the catalog was read more than once: {opened}"
"""


def test_the_hub_keeps_its_catalog_as_canonical_json_read_once_on_first_use() -> None:
    """The hub's `client.py` holds no tool and no schema: `catalog.json` does, one compact line per
    tool with sorted keys, and the hub reads it once, when its catalog is first used, not on import."""
    catalog = (OUTPUT / "hub" / "catalog.json").read_text(encoding="utf-8")
    tools = json.loads(catalog)["tools"]
    lines = [json.dumps(tool, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for tool in tools]
    assert catalog == '{"format":1,"tools":[\n' + ",\n".join(lines) + "\n]}\n"
    client = (OUTPUT / "hub" / "client.py").read_text()
    assert not [tool["qualified_name"] for tool in tools if tool["qualified_name"] in client]
    assert "input_schema" not in client and '"properties"' not in client
    result = subprocess.run([PY, "-c", _CATALOG_READ_PROBE], capture_output=True, text=True, cwd=GOLDEN, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_rendering_twice_is_byte_identical() -> None:
    snapshots = hub_case_snapshots()
    first = render_hub([(snapshot, {}) for snapshot in snapshots])
    second = render_hub([(snapshot, {}) for snapshot in reversed(snapshots)])
    assert first == second
    assert first == read_tree(OUTPUT / "hub")


def test_the_documented_hub_example_runs_against_the_bundled_servers(tmp_path: Path) -> None:
    section = (REPO / "docs" / "hub.md").read_text(encoding="utf-8")
    code = section[
        section.index("```python\n") + len("```python\n") : section.index("```\n", section.index("```python"))
    ]
    (tmp_path / "hub_demo.py").write_text(code, encoding="utf-8")
    snapshots = hub_case_snapshots()
    for snapshot in snapshots:
        generate_package(snapshot, tmp_path / "clients")
    write_hub([(snapshot, {}) for snapshot in snapshots], tmp_path / "clients")

    result = subprocess.run(
        [PY, str(tmp_path / "hub_demo.py")],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "['weather__celsius_to_fahrenheit', 'weather__get_forecast', 'weather__search']",
        "22.5",
        "sunny",
        "Sunny and 22.5 degrees.",
    ]
