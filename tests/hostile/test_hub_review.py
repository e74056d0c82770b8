"""A connected hub keeps its review: what a server lists once the hub is connected never widens
what the generated hub was reviewed to offer.

Every case connects a generated hub over stdio to `tests/servers/review_server.py`, whose snapshot
(`--catalog reviewed`) the hub was generated from, and which may list more when connected: the
hub's configured filters hold at run time, a live tool cannot take a snapshot tool's name, tools
added live are offered only as `live_tools` allows and never with text the audit flags, MCP Apps
tools hidden from the model stay out of what the model sees, and a flood of `list_changed`
notifications costs a bounded number of re-lists.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import HubSettings, generate_hub
from codegen.runtime._hub_catalog import ToolFilter
from codegen.snapshot import Snapshot
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, SERVERS, write_config

PY = PYTHON
REVIEW = SERVERS / "review_server.py"


def review_server(catalog: str = "reviewed") -> StdioServerParameters:
    return StdioServerParameters(command=PY, args=[str(REVIEW), "--catalog", catalog])


@pytest.fixture(scope="module")
def reviewed() -> Snapshot:
    """The snapshot the hubs are generated from, taken as server `acct`."""
    return anyio.run(
        snapshot_server, ServerConfig(name="acct", command=PY, args=(str(REVIEW), "--catalog", "reviewed"))
    )


@pytest.fixture
def make_hub(tmp_path: Path) -> Iterator[Any]:
    """Generate the `acct` package and a hub over it under `<tmp>/<name>/`; import `<name>.hub`."""
    names: list[str] = []

    def make(name: str, snapshot: Snapshot, settings: HubSettings | None = None) -> Any:
        out = tmp_path / name
        generate_package(snapshot, out)
        generate_hub([(snapshot, {})], out, settings=settings or HubSettings())
        names.append(name)
        return importlib.import_module(f"{name}.hub")

    sys.path.insert(0, str(tmp_path))
    try:
        yield make
    finally:
        sys.path.remove(str(tmp_path))
        for module in [module for module in sys.modules if module.split(".")[0] in names]:
            del sys.modules[module]


def offered(hub: Any) -> set[str]:
    """The names the model is shown."""
    return {definition["name"] for definition in hub.tool_definitions()}


async def searched(hub: Any, query: str) -> set[str]:
    found = await hub.call("search_tools", {"query": query, "limit": 50})
    return {tool["name"] for tool in found.structured_content["tools"]}


async def server_stats(hub: Any) -> dict[str, Any]:
    result = await hub.call("acct__stats", {})
    stats: dict[str, Any] = result.structured_content
    return stats


# -- configured filters hold once connected -------------------------------------------------------------


def test_configured_hub_filters_apply_to_every_live_view_and_call(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\noutput = "filteredhub"\nhub = true\nhub_live_tools = "callable"\n'
        f"[tool.mcp-stubgen.servers.acct]\ncommand = {json.dumps(PY)}\n"
        f'args = [{json.dumps(str(REVIEW))}, "--catalog", "reviewed"]\n'
        '[tool.mcp-stubgen.hub_filters.acct]\nexclude = ["delete_all"]\n',
    )
    assert run_cli("sync").exit_code == 0
    sys.path.insert(0, str(tmp_path))
    try:
        hub_module = importlib.import_module("filteredhub.hub")
        Hub = hub_module.Hub
        assert "acct__delete_all" not in Hub.tools
        assert Hub.configured_live_tools == "callable"

        async def scenario() -> None:
            async with Hub.connect(acct=review_server()) as hub:
                assert "acct__delete_all" not in hub.live_tools
                assert "acct__delete_all" not in offered(hub)
                assert "acct__delete_all" not in await searched(hub, "delete every file")
                assert "acct__delete_all" not in hub.difference().added
                with pytest.raises(hub_module.UnknownQualifiedToolError) as refused:
                    await hub.call("acct__delete_all", {})
                assert "acct__delete_all" in str(refused.value) and "filters" in str(refused.value)
                assert "delete_all" not in (await server_stats(hub))["called"]

            # the run-time filters narrow further; they never widen the configured ones
            narrower = hub_module.ToolFilter(exclude=["read_*"])
            async with Hub.connect(acct=review_server(), filters=narrower) as hub:
                assert {"acct__delete_all", "acct__read_file"}.isdisjoint(hub.live_tools)
                assert "acct__get_user" in hub.live_tools
                everything = hub_module.ToolFilter(include=["*"])
                assert "acct__delete_all" not in {d["name"] for d in hub.tool_definitions(filters=everything)}
                with pytest.raises(hub_module.UnknownQualifiedToolError, match="filters"):
                    await hub.call("acct__read_file", {"path": "a"})

        anyio.run(scenario)
        pyproject = (tmp_path / "pyproject.toml").read_text()
        (tmp_path / "pyproject.toml").write_text(pyproject.replace('"callable"', '"all"'))
        bad = run_cli("generate")
        assert bad.exit_code == 2 and bad.stderr.strip().endswith(
            "pyproject.toml: hub_live_tools must be one of 'ignore', 'callable', 'offer', not 'all'"
        )
    finally:
        sys.path.remove(str(tmp_path))
        for module in [module for module in sys.modules if module.split(".")[0] == "filteredhub"]:
            del sys.modules[module]


# -- a live tool cannot take a snapshot tool's name; changed definitions are reported ---------------------


async def test_a_live_tool_never_takes_a_snapshot_tools_qualified_name(make_hub: Any, reviewed: Snapshot) -> None:
    hub_module = make_hub("clashhub", reviewed)
    async with hub_module.Hub.connect(acct=review_server("clash")) as hub:
        route = hub.live_tools["acct__get_user"]
        assert route.tool == "get_user" and route.description == "Look up a user by id."
        definition = next(d for d in hub.tool_definitions() if d["name"] == "acct__get_user")
        assert definition["description"] == "Look up a user by id."
        assert "note" not in definition["input_schema"]["properties"]
        called = await hub.call("acct__get_user", {"id": "7"})
        assert called.content[0].text == "called get_user"

        difference = await hub.verify()  # the reviewed tools are unchanged, so verify returns
        assert [(left.server, left.tool) for left in difference.left_out] == [("acct", "get.user")]
        assert "acct__get_user" in difference.left_out[0].reason
        assert difference.added == () and difference.changed == ()
        assert "get.user" not in (await server_stats(hub))["called"]


async def test_verify_and_difference_report_a_changed_definition(make_hub: Any, reviewed: Snapshot) -> None:
    hub_module = make_hub("changedhub", reviewed)
    async with hub_module.Hub.connect(acct=review_server("live")) as hub:
        difference = hub.difference()
        assert difference.changed == ("acct__update_user",)
        # the hub keeps offering what was reviewed
        definition = next(d for d in hub.tool_definitions() if d["name"] == "acct__update_user")
        assert definition["description"] == "Update a user's display name."
        with pytest.raises(Exception, match="update_user") as drift:
            await hub.verify()
        assert type(drift.value).__name__ == "CatalogDriftError"


# -- tools added live: offered only as `live_tools` allows, and never with flagged text -------------------

ADDED = ("acct__archive_files", "acct__live_view", "acct__sneaky_helper")


async def test_tools_added_live_are_refused_by_default_naming_the_option(make_hub: Any, reviewed: Snapshot) -> None:
    hub_module = make_hub("ignorehub", reviewed)
    async with hub_module.Hub.connect(acct=review_server("live")) as hub:
        assert hub.difference().added == ADDED
        assert set(ADDED).isdisjoint(hub.live_tools)
        assert set(ADDED).isdisjoint(offered(hub))
        assert set(ADDED).isdisjoint(await searched(hub, "archive old files"))
        with pytest.raises(hub_module.UnknownQualifiedToolError) as refused:
            await hub.call("acct__archive_files", {"path": "a"})
        message = str(refused.value)
        assert "acct__archive_files" in message and "live_tools" in message and "'callable'" in message
        assert "archive_files" not in (await server_stats(hub))["called"]


async def test_callable_live_tools_are_called_from_code_but_not_offered(make_hub: Any, reviewed: Snapshot) -> None:
    hub_module = make_hub("callablehub", reviewed)
    async with hub_module.Hub.connect(acct=review_server("live"), live_tools="callable") as hub:
        assert set(ADDED) <= set(hub.live_tools)
        assert set(ADDED).isdisjoint(offered(hub))
        assert set(ADDED).isdisjoint(tool.qualified_name for tool in hub.shortlist("archive old files", 50))
        called = await hub.call("acct__archive_files", {"path": "a"})
        assert called.content[0].text == "called archive_files"


async def test_offered_live_tools_pass_the_audit_first(make_hub: Any, reviewed: Snapshot) -> None:
    hub_module = make_hub("offerhub", reviewed, HubSettings(live_tools="offer"))
    assert hub_module.Hub.configured_live_tools == "offer"
    async with hub_module.Hub.connect(acct=review_server("live")) as hub:
        shown = offered(hub)
        assert "acct__archive_files" in shown
        assert "acct__archive_files" in await searched(hub, "archive old files")
        # flagged text is never shown; an app-only tool stays app-only
        assert {"acct__sneaky_helper", "acct__live_view"}.isdisjoint(shown)
        assert "acct__sneaky_helper" not in await searched(hub, "tool helper")
        left_out = {left.tool: left.reason for left in hub.difference().left_out}
        assert "model-instruction" in left_out["sneaky_helper"]
        assert (await hub.call("acct__sneaky_helper", {"path": "a"})).content[0].text == "called sneaky_helper"

    # the run-time argument overrides the configured mode
    async with hub_module.Hub.connect(acct=review_server("live"), live_tools="ignore") as hub:
        assert "acct__archive_files" not in offered(hub)
    with pytest.raises(ValueError, match="live_tools must be one of 'ignore', 'callable', 'offer'"):
        hub_module.Hub.connect(acct=review_server("live"), live_tools="all")


async def test_a_tool_the_configured_filters_left_out_stays_out_when_its_server_relabels_it(
    make_hub: Any, reviewed: Snapshot
) -> None:
    """`delete_all` was reviewed as destructive and left out by an annotation filter; the server now
    calls it read-only. It is the reviewed tool, not one added live: offered nowhere, never called."""
    read_only = HubSettings(filters={"acct": ToolFilter(annotations={"readOnlyHint": True})}, live_tools="offer")
    hub_module = make_hub("relabelhub", reviewed, read_only)
    assert "acct__delete_all" not in hub_module.Hub.tools
    async with hub_module.Hub.connect(acct=review_server("relabelled")) as hub:
        assert "acct__delete_all" not in hub.live_tools
        assert "acct__delete_all" not in offered(hub)
        assert "acct__delete_all" not in hub.difference().added
        with pytest.raises(hub_module.UnknownQualifiedToolError, match="filters leave it out"):
            await hub.call("acct__delete_all", {})


# -- MCP Apps: a tool the server hides from the model --------------------------------------------------------


async def test_app_only_tools_stay_out_of_every_model_facing_list(make_hub: Any, reviewed: Snapshot) -> None:
    hub_module = make_hub("apphub", reviewed)
    Hub = hub_module.Hub
    assert "acct__refresh_view" in Hub.tools  # still callable from code
    assert "acct__refresh_view" not in {d["name"] for d in Hub.tool_definitions()}
    assert "acct__refresh_view" not in {tool.qualified_name for tool in Hub.shortlist("redraw the file view", 50)}
    async with Hub.connect(acct=review_server()) as hub:
        assert "acct__refresh_view" not in offered(hub)
        assert "acct__refresh_view" not in {tool.qualified_name for tool in hub.shortlist("redraw the view", 50)}
        assert "acct__refresh_view" not in await searched(hub, "redraw the file browser's view")
        assert (await hub.call("acct__refresh_view", {})).content[0].text == "called refresh_view"
        assert (await hub.acct.refresh_view()).text == "called refresh_view"


# -- a list_changed flood ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["listen-2026", "notification-legacy"])
async def test_a_list_changed_flood_costs_a_bounded_number_of_relists(
    make_hub: Any, reviewed: Snapshot, mode: str
) -> None:
    hub_module = make_hub(f"floodhub_{mode}", reviewed)
    async with hub_module.Hub.connect(acct=review_server(), mode=mode) as hub:
        before = (await server_stats(hub))["tools_list"]
        await hub.call("acct__flood", {"count": 500})
        with anyio.fail_after(30):
            while "acct__flood_marker" not in hub.difference().added:
                await anyio.sleep(0.05)
        relists = (await server_stats(hub))["tools_list"] - before
    assert 1 <= relists <= 8, f"{relists} tools/list requests for a burst of 501 notifications"


# -- drift sees `_meta.ui` changes ---------------------------------------------------------------------------


def test_drift_reports_mcp_apps_ui_changes_as_dangerous(
    run_cli, reviewed: Snapshot, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    document = json.loads(reviewed.canonical_bytes())
    view = next(tool for tool in document["tools"] if tool["name"] == "refresh_view")
    view["_meta"]["ui"] = {
        "resourceUri": "ui://files/other.html",
        "visibility": ["model", "app"],
        "csp": {"connectDomains": ["https://collect.example.net"]},
        "permissions": {"microphone": {}},
    }
    (tmp_path / "old.json").write_bytes(reviewed.canonical_bytes())
    (tmp_path / "new.json").write_text(json.dumps(document))
    result = run_cli("drift", "old.json", "new.json", "--format", "json", "--fail-on", "dangerous")
    assert result.exit_code == 1, result.stderr
    found = {(finding["rule"], finding["severity"]) for finding in json.loads(result.stdout)["findings"]}
    assert found == {
        ("ui-visible-to-model", "dangerous"),
        ("ui-resource-changed", "dangerous"),
        ("ui-csp-widened", "dangerous"),
        ("ui-permissions-widened", "dangerous"),
    }
