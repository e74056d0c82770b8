"""Discovery against real servers over real transports: stdio subprocesses, Streamable HTTP on
127.0.0.1, the legacy handshake, paginated lists, third-party servers, and in-process servers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer

from codegen.config import ServerConfig
from codegen.snapshot.discovery import list_catalog
from tests.conftest import EXAMPLE_SERVER, PYTHON, SERVERS, free_port, wait_for_port, write_config
from tests.servers.paging_server import build_server

PY = PYTHON


def weather_config(folder: Path) -> Path:
    return write_config(
        folder,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
[tool.mcp-stubgen.servers.weather]
command = {json.dumps(PY)}
args = [{json.dumps(str(EXAMPLE_SERVER))}]
""",
    )


def test_stdio_snapshot_is_complete_and_byte_stable(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    weather_config(tmp_path)
    first = run_cli("snapshot")
    assert first.exit_code == 0, first.stderr
    path = tmp_path / "snaps" / "weather.json"
    assert "weather: wrote snaps/weather.json (4 tools, 1 resource, 1 template, 1 prompt" in first.stderr
    data = path.read_bytes()
    document = json.loads(data)
    assert document["protocolVersion"] == "2026-07-28"
    assert document["serverInfo"] == {"name": "weather", "version": "1.0.0"}
    assert document["instructions"] == "Forecasts for any city, in either unit."
    assert [tool["name"] for tool in document["tools"]] == [
        "celsius_to_fahrenheit",
        "get_forecast",
        "search",
        "send_alert",
    ]
    assert document["resources"][0]["uri"] == "weather://stations"
    assert document["resourceTemplates"][0]["uriTemplate"] == "weather://stations/{station_id}/latest"
    assert document["prompts"][0]["name"] == "packing_list"
    for volatile in ("ttlMs", "cacheScope", "resultType", "_meta", "nextCursor"):
        assert volatile not in data.decode(), volatile

    second = run_cli("snapshot", "weather")
    assert second.exit_code == 0
    assert "weather: unchanged snaps/weather.json" in second.stderr
    assert path.read_bytes() == data


def test_streamable_http_gives_the_same_catalog_as_stdio(tmp_path: Path, run_cli, weather_http: str) -> None:  # type: ignore[no-untyped-def]
    over_http = run_cli("snapshot", "--name", "weather", "--url", weather_http, "--out", tmp_path / "http.json")
    assert over_http.exit_code == 0, over_http.stderr
    over_stdio = run_cli("snapshot", "--name", "weather", "--out", tmp_path / "stdio.json", "--", PY, EXAMPLE_SERVER)
    assert over_stdio.exit_code == 0, over_stdio.stderr
    assert (tmp_path / "http.json").read_bytes() == (tmp_path / "stdio.json").read_bytes()


def test_a_catalog_larger_than_one_mib_in_one_event_stream_answer_is_read(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """ToolUniverse (FastMCP over Streamable HTTP) answers `tools/list` with 2,720 tools in one
    event of several MB (at 2025-11-25, where the SDK's servers answer on an event stream); the SDK's
    default limit of 1 MiB per event refused it, though the same catalog over stdio or as a JSON
    answer was read."""
    port = free_port()
    server = subprocess.Popen(
        [PYTHON, str(SERVERS / "large_catalog_server.py"), str(port), "800"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, server)
        out = tmp_path / "large.json"
        result = run_cli(
            "snapshot", "--name", "large", "--protocol", "legacy", "--url", f"http://127.0.0.1:{port}/mcp", "--out", out
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert result.exit_code == 0, result.stderr
    assert out.stat().st_size > 1 << 20
    tools = json.loads(out.read_text())["tools"]
    assert [tool["name"] for tool in tools] == [f"lookup_{index:04d}" for index in range(800)]


def test_sse_transport_from_the_config(tmp_path: Path, run_cli, weather_sse: str) -> None:  # type: ignore[no-untyped-def]
    config = write_config(
        tmp_path,
        f'[tool.mcp-stubgen]\nsnapshots = "s"\n[tool.mcp-stubgen.servers.weather]\nurl = "{weather_sse}"\ntype = "sse"\n',
    )
    result = run_cli("snapshot", "--config", config)
    assert result.exit_code == 0, result.stderr
    document = json.loads((tmp_path / "s" / "weather.json").read_text())
    assert [tool["name"] for tool in document["tools"]] == [
        "celsius_to_fahrenheit",
        "get_forecast",
        "search",
        "send_alert",
    ]


def test_a_python_server_that_lists_a_sets_items_is_snapshotted_byte_for_byte_alike(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A set's order follows the server process's hash seed (mcp-atlassian's default `fields`
    changed on every start, and live drift reported it as dangerous): stdio servers are started with
    a fixed `PYTHONHASHSEED`, so three snapshots are one."""
    command = ["--", PY, SERVERS / "raw_server.py", "--mode", "set-order"]
    snapshots = []
    for run in range(3):
        out = tmp_path / f"raw{run}.json"
        result = run_cli("snapshot", "--name", "raw", "--out", out, *command)
        assert result.exit_code == 0, result.stderr
        snapshots.append(out.read_bytes())
    assert "Default fields: " in snapshots[0].decode()
    assert snapshots[1] == snapshots[0] and snapshots[2] == snapshots[0]


def test_a_server_that_orders_required_names_anew_on_each_start_is_snapshotted_byte_for_byte_alike(
    tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """`required` is a set in JSON Schema: a server that lists its names in another order on each start
    (one that builds them from a set, under another hash seed) is the same catalog, so its snapshot
    keeps its bytes; instance data that looks alike keeps the server's order."""
    command = ["--", PY, SERVERS / "required_order_server.py", tmp_path]
    snapshots = []
    for run in range(2):
        out = tmp_path / f"order{run}.json"
        result = run_cli("snapshot", "--name", "order", "--out", out, *command)
        assert result.exit_code == 0, result.stderr
        snapshots.append(out.read_bytes())
    assert (tmp_path / "starts").read_text() == "2"
    assert snapshots[1] == snapshots[0]
    book = json.loads(snapshots[0])["tools"][0]["inputSchema"]
    assert book["required"] == ["alpha", "bravo", "charlie"]
    assert book["properties"]["address"]["required"] == ["city", "street"]
    assert book["properties"]["required"]["default"] == ["zulu", "alpha", "mike"]
    assert book["x-order"] == {"required": ["zulu", "alpha", "mike"]}


def test_icons_that_name_the_servers_own_files_are_left_out_so_every_machine_gets_the_same_bytes(
    tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """ebay-mcp's `serverInfo.icons` are `file://` URLs into its npx cache folder in the user's home:
    its snapshot differed from machine to machine (so did the fingerprint in every generated file's
    header) and put a home folder's path in a committed file. A `file:` icon is left out, wherever
    it is; an https icon stays; a live tool with one has the fingerprint the snapshot gives it."""
    from mcp import StdioServerParameters

    from codegen.runtime._runtime import tool_fingerprint
    from codegen.snapshot import load_snapshot

    snapshots = []
    for user in ("alice", "bob"):
        install = tmp_path / "home" / user / ".npm" / "_npx" / "3f2a"
        out = tmp_path / f"{user}.json"
        result = run_cli(
            "snapshot", "--name", "icons", "--out", out, "--", PY, SERVERS / "local_icons_server.py", install
        )
        assert result.exit_code == 0, result.stderr
        snapshots.append(out.read_bytes())
    assert snapshots[1] == snapshots[0]
    text = snapshots[0].decode()
    assert "file:" not in text and "alice" not in text
    document = json.loads(text)
    hosted = [{"mimeType": "image/svg+xml", "src": "https://example.com/icon.svg"}]
    assert document["serverInfo"]["icons"] == hosted and document["tools"][0]["icons"] == hosted
    assert "icons" not in document["resources"][0] and "icons" not in document["prompts"][0]

    async def live_tools() -> list[object]:
        target = StdioServerParameters(command=PY, args=[str(SERVERS / "local_icons_server.py"), str(tmp_path)])
        async with Client(target) as client:
            return list((await client.list_tools()).tools)

    (live,) = anyio.run(live_tools)
    assert any(icon.src.startswith("file:") for icon in live.icons or [])  # type: ignore[attr-defined]
    assert tool_fingerprint(live) == load_snapshot(tmp_path / "alice.json").tool_fingerprints["echo"]  # type: ignore[arg-type]


def test_legacy_only_server_falls_back_to_initialize_and_pages(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "legacy.json"
    result = run_cli("snapshot", "--name", "legacy", "--out", out, "--", PY, SERVERS / "raw_server.py")
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    assert document["protocolVersion"] == "2025-06-18"
    assert document["serverInfo"] == {"name": "raw-legacy", "version": "0.3.0"}
    assert document["instructions"] == "A legacy server for tests."
    # five tools served two per page: three pages followed to the end
    assert [tool["name"] for tool in document["tools"]] == ["alpha", "bravo", "charlie", "delta", "echo"]
    assert [prompt["name"] for prompt in document["prompts"]] == ["summarize"]
    # the server declares no resources capability and answers resources/list with an error:
    # a successful snapshot proves it was never asked
    assert document["resources"] == [] and document["resourceTemplates"] == []


def test_protocol_legacy_forces_the_handshake_on_a_modern_server(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "weather.json"
    result = run_cli("snapshot", "--name", "weather", "--protocol", "legacy", "--out", out, "--", PY, EXAMPLE_SERVER)
    assert result.exit_code == 0, result.stderr
    assert json.loads(out.read_text())["protocolVersion"] < "2026-07-28"


def test_paginating_server_lists_every_page_of_every_list(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "paging.json"
    result = run_cli("snapshot", "--name", "paging", "--out", out, "--", PY, SERVERS / "paging_server.py", "10")
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    assert [tool["name"] for tool in document["tools"]] == [f"tool-{index:03d}" for index in range(10)]
    assert len(document["resources"]) == 7
    assert len(document["resourceTemplates"]) == 4
    assert len(document["prompts"]) == 5


def test_max_pages_stops_an_endless_listing_with_an_error(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    config = write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
[tool.mcp-stubgen.servers.paging]
command = {json.dumps(PY)}
args = [{json.dumps(str(SERVERS / "paging_server.py"))}, "30"]
max_pages = 3
""",
    )
    result = run_cli("snapshot", "--config", config)
    assert result.exit_code == 2
    assert "server 'paging': tools/list still had more after 3 pages; raise max_pages" in result.stderr
    assert not (tmp_path / "snaps" / "paging.json").exists()


def test_an_ad_hoc_snapshot_takes_max_pages_on_the_command_line(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """An ad hoc server has no table to set `max_pages` in, and the line named that key alone."""
    out = tmp_path / "paging.json"
    command = ("--", PY, SERVERS / "paging_server.py", "10")  # tools in 4 pages of 3
    stopped = run_cli("snapshot", "--name", "paging", "--out", out, "--max-pages", "3", *command)
    assert stopped.exit_code == 2
    assert stopped.stderr.splitlines()[-1] == (
        "error: server 'paging': tools/list still had more after 3 pages; "
        "raise max_pages in the config or --max-pages if the catalog really is that large"
    )
    assert not out.exists()
    taken = run_cli("snapshot", "--name", "paging", "--out", out, "--max-pages", "4", *command)
    assert taken.exit_code == 0, taken.stderr
    assert len(json.loads(out.read_text())["tools"]) == 10


def test_in_process_server_through_list_catalog() -> None:
    server = MCPServer("inproc", instructions="In process.")

    @server.tool()
    def add(a: int, b: int = 2) -> int:
        return a + b

    async def take() -> dict[str, object]:
        async with Client(server, cache=None) as client:
            snapshot = await list_catalog(client, ServerConfig(name="inproc", command="unused"))
        return json.loads(snapshot.canonical_bytes())

    document = anyio.run(take)
    assert document["server"] == "inproc"
    assert document["instructions"] == "In process."
    (tool,) = document["tools"]
    assert tool["name"] == "add"
    assert tool["inputSchema"]["required"] == ["a"]
    assert tool["outputSchema"]["properties"]["result"]["type"] == "integer"


def test_in_process_low_level_server_pages_are_joined() -> None:
    async def take() -> dict[str, object]:
        async with Client(build_server(tool_count=11), cache=None) as client:
            snapshot = await list_catalog(client, ServerConfig(name="paging", command="unused"))
        return json.loads(snapshot.canonical_bytes())

    document = anyio.run(take)
    assert len(document["tools"]) == 11 and len(document["prompts"]) == 5


def test_server_everything_over_the_legacy_handshake(tmp_path: Path, run_cli, everything_server: Path) -> None:  # type: ignore[no-untyped-def]
    """Declaring every client capability, as the golden package's snapshot was taken."""
    config = write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "."

[tool.mcp-stubgen.servers.everything]
command = {json.dumps(str(everything_server))}
client_capabilities = ["sampling", "elicitation", "roots"]
""",
    )
    out = tmp_path / "everything.json"
    for _ in range(2):
        result = run_cli("snapshot", "--config", config)
        assert result.exit_code == 0, result.stderr
    assert "everything: unchanged" in result.stderr
    document = json.loads(out.read_text())
    assert document["protocolVersion"] == "2025-11-25"
    names = [tool["name"] for tool in document["tools"]]
    assert "get-structured-content" in names and "trigger-sampling-request" in names and len(names) >= 17
    assert len(document["resources"]) >= 7 and len(document["resourceTemplates"]) >= 2
    assert len(document["prompts"]) >= 4
    assert out.read_bytes() == (Path(__file__).parent.parent / "golden/everything/snapshot.json").read_bytes()


def test_mcp_server_time_over_server_discover(tmp_path: Path, run_cli, time_server: str) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "time.json"
    result = run_cli("snapshot", "--name", "time", "--out", out, "--", time_server)
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    assert document["protocolVersion"] == "2026-07-28"
    assert {tool["name"] for tool in document["tools"]} == {"get_current_time", "convert_time"}
    assert all("outputSchema" in tool for tool in document["tools"])
    assert out.read_bytes() == (Path(__file__).parent.parent / "golden/time/snapshot.json").read_bytes()


def test_servers_file_in_mcp_servers_shape(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"weather": {"command": PY, "args": [str(EXAMPLE_SERVER)]}}}), encoding="utf-8"
    )
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "s"\nservers_file = ".mcp.json"\n')
    result = run_cli("snapshot")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "s" / "weather.json").exists()


def test_page_entries_equal_a_dump_per_entry_then_the_snapshot_copy() -> None:
    """Discovery decodes each page once with keys sorted (`Snapshot.of_sorted_entries` skips its own
    copy), for speed; the entries, and the snapshot bytes, must be what the per-entry `model_dump` and
    the constructor's sorted copy gave. A lone surrogate cannot be UTF-8 JSON text: the per-entry way."""
    from mcp import types

    from codegen.snapshot import Snapshot
    from codegen.snapshot.discovery import _PROMPTS, _RESOURCES, _TEMPLATES, _TOOLS, _page_entries

    schema = {"type": "object", "z": 1, "properties": {"b": {"type": "string", "y": [{"k": 2, "a": 1.5}]}, "a": {}}}
    pages = [
        (_TOOLS, types.ListToolsResult(tools=[types.Tool(name="t", input_schema=schema, description="d")])),
        (_TOOLS, types.ListToolsResult(tools=[types.Tool(name="s", input_schema=schema | {"x": "\ud800"})])),
        (_RESOURCES, types.ListResourcesResult(resources=[types.Resource(uri="file:///a", name="a", mime_type="t")])),
        (
            _TEMPLATES,
            types.ListResourceTemplatesResult(
                resource_templates=[types.ResourceTemplate(uri_template="file:///{x}", name="x", mime_type="t")]
            ),
        ),
        (_PROMPTS, types.ListPromptsResult(prompts=[types.Prompt(name="p", description="d")])),
    ]
    lists: dict[str, list[dict[str, object]]] = {}
    dumped: dict[str, list[dict[str, object]]] = {}
    for listing, page in pages:
        lists.setdefault(listing.items, []).extend(_page_entries(page, listing))
        dumped.setdefault(listing.items, []).extend(
            item.model_dump(by_alias=True, exclude_none=True, mode="json") for item in getattr(page, listing.items)
        )
    assert all(list(entry) == sorted(entry) for entries in lists.values() for entry in entries)
    fast = Snapshot.of_sorted_entries(
        server="s", protocol_version="v", capabilities={"tools": {}}, **{k: tuple(v) for k, v in lists.items()}
    )
    slow = Snapshot(
        server="s", protocol_version="v", capabilities={"tools": {}}, **{k: tuple(v) for k, v in dumped.items()}
    )
    assert fast == slow
    assert fast.canonical_bytes() == slow.canonical_bytes()
    assert json.dumps(fast.to_json()) == json.dumps(slow.to_json())  # key order too, all the way down


def test_a_name_fastmcp_draws_at_random_on_each_start_is_recorded_without_its_random_digits(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """FastMCP names a server given no name `FastMCP-` and four random hex digits, new on every start
    (authsome-mcp-proxy 0.8.0 is `FastMCPProxy-56ab`, then `FastMCPProxy-0cb0`): every snapshot of
    an unchanged server was rewritten, every package's fingerprint with it, and live `drift` found a
    changed server name each run. The snapshot records the class name alone, so the bytes stay."""
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
[tool.mcp-stubgen.servers.proxy]
command = {json.dumps(PY)}
args = [{json.dumps(str(SERVERS / "drawn_name_server.py"))}, "FastMCPProxy"]
""",
    )
    monkeypatch.chdir(tmp_path)
    first = run_cli("snapshot")
    assert first.exit_code == 0, first.stderr
    path = tmp_path / "snaps" / "proxy.json"
    written = path.read_bytes()
    assert json.loads(written)["serverInfo"] == {"name": "FastMCPProxy", "version": "1.0.0"}

    second = run_cli("snapshot")
    assert second.exit_code == 0, second.stderr
    assert "proxy: unchanged snaps/proxy.json" in second.stderr
    assert path.read_bytes() == written
    live = run_cli("drift")
    assert live.exit_code == 0, live.stdout + live.stderr
    assert "no drift (0 breaking, 0 dangerous, 0 safe)" in live.stdout + live.stderr
