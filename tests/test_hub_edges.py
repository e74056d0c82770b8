"""The hub's edges a new user meets (issue 28): a misspelt name in `tool_definitions(names=...)`, a
call to a tool whose server is not connected, and a hub imported as a top-level module."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from tests.conftest import PYTHON, REPO
from tests.regen_goldens import hub_case_snapshots

PY = PYTHON
NOTES = REPO / "examples" / "notes_server.py"


def generate(out: Path) -> None:
    snapshots = hub_case_snapshots()
    for snapshot in snapshots:
        generate_package(snapshot, out)
    generate_hub([(snapshot, {}) for snapshot in snapshots], out)


@pytest.fixture
def edgehub(tmp_path: Path) -> Iterator[Any]:
    """The golden hub case (notes and weather) generated under `<tmp>/edgehub/`, imported."""
    generate(tmp_path / "edgehub")
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("edgehub.hub")
    finally:
        sys.path.remove(str(tmp_path))
        for module in [module for module in sys.modules if module.split(".")[0] == "edgehub"]:
            del sys.modules[module]


def test_an_unknown_name_in_tool_definitions_raises_with_the_closest_names(edgehub: Any) -> None:
    Hub = edgehub.Hub
    with pytest.raises(edgehub.UnknownQualifiedToolError) as unknown:
        Hub.tool_definitions("openai", names=["weather__get_forecast", "weather__get_forcast"])
    assert unknown.value.suggestions[0] == "weather__get_forecast"
    assert str(unknown.value).startswith(
        "the hub has no tool 'weather__get_forcast'; did you mean 'weather__get_forecast'"
    )
    known = Hub.tool_definitions("openai", names=["weather__get_forecast", "notes__search"])
    assert [tool["function"]["name"] for tool in known] == ["notes__search", "weather__get_forecast"]


def test_an_unknown_name_counts_the_hubs_tools_in_words() -> None:
    """It said "it has 1 tools" of a hub with one tool (the watchfuzz sweep's)."""
    from codegen.runtime._hub_runtime import UnknownQualifiedToolError

    assert str(UnknownQualifiedToolError("b__x", ["a__one"])).endswith("(it has 1 tool: see Hub.tools)")
    assert str(UnknownQualifiedToolError("b__x", ["a__one", "a__two"])).endswith("(it has 2 tools: see Hub.tools)")


async def test_calling_a_tool_of_a_server_not_connected_says_so(edgehub: Any) -> None:
    async with edgehub.Hub.connect(notes=StdioServerParameters(command=PY, args=[str(NOTES)])) as hub:
        with pytest.raises(edgehub.UnknownQualifiedToolError) as missing:
            await hub.call("weather__search", {"query": "os"})
        assert str(missing.value) == (
            "the hub cannot offer or call 'weather__search': its server 'weather' is not connected; "
            "connect it with Hub.connect(weather=...) (or pass its client to Hub(...))"
        )
        with pytest.raises(edgehub.UnknownQualifiedToolError, match="'weather' is not connected"):
            hub.tool_definitions(names=["weather__search"])


def test_a_misspelt_server_keyword_is_refused_naming_the_hubs_servers(edgehub: Any) -> None:
    """Passed on as an `mcp.Client` option, it used to fail every connection with a `TypeError`
    blamed on another server; it is refused before any server starts."""
    with pytest.raises(edgehub.HubError) as misnamed:
        edgehub.Hub.connect(notes=StdioServerParameters(command=PY, args=[str(NOTES)]), wether="http://127.0.0.1:9/mcp")
    assert str(misnamed.value) == (
        "hub: wether= is no server of this hub; did you mean weather= (server 'weather')? "
        "Its servers are notes=, weather="
    )


def test_filters_by_a_server_id_the_hub_lacks_are_refused_naming_its_servers(edgehub: Any) -> None:
    """A misspelt server id in run-time filters filtered nothing: a read-only filter meant for
    `weather` offered every one of its tools, destructive ones too."""
    Hub, read_only = edgehub.Hub, edgehub.ToolFilter(annotations={"readOnlyHint": True})
    expected = "hub: filters name server 'wether', which is no server of this hub; did you mean 'weather'? "
    expected += "its servers are 'notes', 'weather'"
    for use in (
        lambda: Hub.tool_definitions("openai", filters={"wether": read_only}),
        lambda: Hub.shortlist("send an alert", filters={"wether": read_only}),
        lambda: Hub.deferred_tools("anthropic", filters={"wether": read_only}),
        lambda: Hub(filters={"wether": read_only}),
        lambda: Hub.connect(notes=StdioServerParameters(command=PY, args=[str(NOTES)]), filters={"wether": read_only}),
    ):
        with pytest.raises(edgehub.HubError) as misnamed:
            use()
        assert str(misnamed.value) == expected
    assert Hub.tool_definitions("openai", filters={"weather": read_only}) == [
        definition
        for definition in Hub.tool_definitions("openai")
        if definition["function"]["name"].startswith("notes")
    ]


def test_a_filter_on_a_hint_the_spec_lacks_is_refused_as_the_config_refuses_it(edgehub: Any) -> None:
    """A run-time `ToolFilter(annotations={"readonlyHint": True})` (a misspelt hint) matched no tool,
    since no tool has that hint set to true: the hub offered nothing and said nothing. It is refused
    when built, in the words `[tool.mcp-stubgen.hub_filters]` uses."""
    hints = "destructiveHint, idempotentHint, openWorldHint, readOnlyHint"
    with pytest.raises(ValueError) as misspelt:
        edgehub.ToolFilter(annotations={"readonlyHint": True})
    assert str(misspelt.value) == (
        f"annotations must map hints ({hints}) to true or false; 'readonlyHint' is no hint (did you mean 'readOnlyHint'?)"
    )
    with pytest.raises(ValueError, match=r"to true or false$"):
        edgehub.ToolFilter(annotations={"readOnlyHint": "yes"})
    assert edgehub.ToolFilter(annotations={"readOnlyHint": True}).allows("t", {"readOnlyHint": True})


def test_a_hub_imported_as_a_top_level_module_says_how_to_import_it(tmp_path: Path) -> None:
    """With the output folder itself on the path, `import hub` (or a server's package) cannot reach the
    runtime the folder shares: the import error says how to import it instead of Python's bare
    "attempted relative import beyond top-level package"."""
    out = tmp_path / "clients"
    generate(out)
    script = (
        "for name in ('hub', 'weather'):\n"
        "    try:\n"
        "        __import__(name)\n"
        "    except ImportError as error:\n"
        "        print(error)\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(out)}
    run = subprocess.run([PY, "-c", script], capture_output=True, text=True, env=environment, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        f"{name!r} was imported as a top-level package, so it cannot import the runtime its output folder "
        "shares: put the folder's parent on sys.path and import it through the folder "
        f"(`from <folder>.{name} import ...`)"
        for name in ("hub", "weather")
    ]


def test_a_name_given_by_the_servers_own_tool_name_suggests_the_qualified_one() -> None:
    """Found by a third outside check: a tool whose name no provider accepts is `uni__tool` in the hub,
    and `describe("uni__统计字数")` (its name as the server lists it) suggested nothing."""
    from codegen.runtime._hub_catalog import HubTool
    from codegen.runtime._hub_runtime import Catalog

    tools = {
        "uni__tool": HubTool("uni__tool", "uni", "UniClient", "统计字数", "Count characters.", {"type": "object"}),
        "uni__total": HubTool("uni__total", "uni", "UniClient", "total", "Sum.", {"type": "object"}),
    }
    for given in ("uni__统计字数", "统计字数"):
        unknown = Catalog(tools).unknown(given)
        assert unknown.suggestions[0] == "uni__tool"
        assert f"the hub has no tool {given!r}; did you mean 'uni__tool'" in str(unknown)
