"""Root shapes become typed methods (issue 12): a map output returns a `dict`, a root union input takes
the union, a map input takes a `dict`, and each is called on a real server. (`golden/shapes` holds the
same tools, type-checked with `mypy --strict` by tests/test_generate_golden.py.)"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, SERVERS, forget_generated, import_generated

SHAPES_SERVER = SERVERS / "shapes_server.py"
MYPY = [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null"]


async def test_root_shapes_are_typed_and_called_over_stdio(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = await snapshot_server(ServerConfig(name="shapes", command=PYTHON, args=(str(SHAPES_SERVER),)))
    # A server on another SDK (this one insists on "object") may declare arguments no object matches.
    legacy = {"name": "legacy", "description": "Declares a string as its arguments.", "inputSchema": {"type": "string"}}
    generate_package(dataclasses.replace(snapshot, tools=(*snapshot.tools, legacy)), tmp_path)
    warning = capsys.readouterr().err
    assert warning.splitlines() == [
        "warning: server 'shapes': tool 'legacy': /inputSchema/type: arguments are sent as an object, and the "
        "schema says 'string'; its method takes `arguments: dict[str, Any]` (`generate --strict` makes this an error)"
    ]
    client = (tmp_path / "shapes" / "client.py").read_text()
    assert (
        "        arguments: dict[str, Any],\n        call_options: CallOptions | None = None,\n    ) -> ToolResult:"
        in client
    )
    assert "mcp-stubgen could not type this tool (/inputSchema/type: arguments are sent as an object" in client
    assert "    ) -> dict[str, int]:" in client
    assert (
        "        arguments: FindInputVariant | FindInputVariant1,\n        call_options: CallOptions | None = None,\n    ) -> FindOutput:"
        in client
    )
    assert (
        "        arguments: dict[str, float],\n        call_options: CallOptions | None = None,\n    ) -> float:"
        in client
    )
    try:
        from mcp import StdioServerParameters

        package: Any = import_generated(tmp_path, "shapes")
        parameters = StdioServerParameters(command=PYTHON, args=[str(SHAPES_SERVER)])
        async with package.ShapesClient.connect(parameters) as server:
            assert await server.word_counts(text="a b a") == {"a": 2, "b": 1}
            found = await server.find(arguments=package.FindInputVariant1(name="x"))
            assert found.received == {"name": "x"}
            assert (await server.find(arguments={"id": 7})).received == {"id": 7}
            assert await server.total(arguments={"a": 1.5, "b": 2}) == 3.5
            measured = await server.pages(source=package.PagesInputSource(path="a.pdf", pages=[1, 3], range="1-3"))
            assert measured.sizes == [100, 300]
            with pytest.raises(package.ToolArgumentsError, match=r"is not of type 'string'.*nothing was sent"):
                await server.legacy(arguments={"a": 1})
    finally:
        forget_generated(tmp_path)


def test_two_tools_sharing_a_titled_model_both_generate(tmp_path: Path) -> None:
    """Main refused this: "tools 'count' and 'search' both need a model named 'Options'"."""
    from tests.drift_helpers import obj, snap, tool

    options = {
        "allOf": [
            {"type": "object", "title": "Options", "properties": {"limit": {"type": "integer"}}},
            {"type": "object", "properties": {"Options": {"type": "string"}}},
        ]
    }
    generate_package(
        snap((tool("count", obj({"options": options})), tool("search", obj({"options": options})))), tmp_path
    )
    try:
        models: Any = import_generated(tmp_path, "demo.models")
        assert models.CountOptions is not models.SearchOptions
        assert models.CountOptions(limit=2, Options="x").model_dump(by_alias=True) == {"limit": 2, "Options": "x"}
        assert models.CountInput(options={"limit": 1}).options == models.CountOptions(limit=1)
    finally:
        forget_generated(tmp_path)


def test_strict_makes_an_untyped_tool_an_error(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from codegen.snapshot import write_snapshot
    from tests.drift_helpers import obj, snap, tool

    write_snapshot(
        tmp_path / "s.json", snap((tool("ok", obj({"a": {"type": "string"}})), tool("odd", {"type": "string"})))
    )
    result = run_cli("generate", tmp_path / "s.json", "--out", tmp_path / "out", "--strict", "--no-cache")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: server 'demo': tool 'odd': /inputSchema/type: arguments are sent as an object, and the schema says 'string'"
    ]
    assert not (tmp_path / "out").exists()
    result = run_cli("generate", tmp_path / "s.json", "--out", tmp_path / "out", "--no-cache")
    assert result.exit_code == 0 and result.stderr.startswith("warning: server 'demo': tool 'odd': ")


def test_strict_in_the_config_makes_an_untyped_tool_an_error(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from codegen.snapshot import write_snapshot
    from tests.conftest import write_config
    from tests.drift_helpers import snap, tool

    monkeypatch.chdir(tmp_path)
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "out"\nstrict = true\n\n'
                 '[tool.mcp-stubgen.servers.demo]\ncommand = "python"\n')  # fmt: skip
    write_snapshot(tmp_path / "snaps" / "demo.json", snap((tool("odd", {"type": "string"}),)))
    result = run_cli("generate", "--no-cache")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: server 'demo': tool 'odd': /inputSchema/type: ")
    (tmp_path / "pyproject.toml").write_text(
        (tmp_path / "pyproject.toml").read_text().replace("strict = true", 'strict = "yes"')
    )
    result = run_cli("generate", "--no-cache")
    assert result.exit_code == 2
    assert "pyproject.toml: strict: expected true or false" in result.stderr


@pytest.mark.generated_mypy
async def test_a_46_tool_mcpserver_with_a_map_output_generates_typed_and_calls(tmp_path: Path) -> None:
    """Issue 12's spreadsheet server: one of its 46 tools returns `dict[str, int]`, which main could
    not generate at all; every method is typed, the map's returns `dict[str, int]`, and the package
    passes `mypy --strict` beside a caller that uses the map as one."""
    server = SERVERS / "spreadsheet_server.py"
    snapshot = await snapshot_server(ServerConfig(name="sheets", command=PYTHON, args=(str(server),)))
    assert len(snapshot.tools) == 46
    generate_package(snapshot, tmp_path)
    client = (tmp_path / "sheets" / "client.py").read_text()
    assert re.search(r"async def count_values\(\s*self[^)]*\)\s*-> dict\[str, int\]:", client)
    assert "ToolResult" not in client.split("class SheetsClient", 1)[1]  # every tool typed
    caller = tmp_path / "caller.py"
    caller.write_text(
        f"from mcp import StdioServerParameters\n\nfrom {tmp_path.name}.sheets import SheetsClient\n\n\n"
        "async def most_common(parameters: StdioServerParameters) -> str:\n"
        "    async with SheetsClient.connect(parameters) as sheets:\n"
        "        counts: dict[str, int] = await sheets.count_values()\n"
        "        width: int = await sheets.column_width_07(sheet='s', column=2)\n"
        "        return max(counts, key=lambda value: counts[value] + width)\n"
    )
    checked = subprocess.run(
        [*MYPY, "--explicit-package-bases", "-p", tmp_path.name], cwd=tmp_path.parent, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    try:
        from mcp import StdioServerParameters

        package: Any = import_generated(tmp_path, "sheets")
        async with package.SheetsClient.connect(StdioServerParameters(command=PYTHON, args=[str(server)])) as s:
            assert await s.count_values() == {"red": 2, "blue": 1}
            assert await s.column_width_07(sheet="s", column=2) == 27
    finally:
        forget_generated(tmp_path)


def test_a_broken_output_schema_alone_keeps_the_typed_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Main types the whole method away: `look(*, arguments: dict[str, Any]) -> ToolResult`."""
    from tests.drift_helpers import obj, snap, tool

    look = tool(
        "look",
        obj({"q": {"type": "string"}}, additionalProperties=False),
        {"type": "object", "properties": {"hit": {"$ref": "#/$defs/nope"}}},
    )
    generate_package(snap((look,)), tmp_path)
    client = (tmp_path / "demo" / "client.py").read_text()
    assert (
        "        q: str | NotGiven = NOT_GIVEN,\n        call_options: CallOptions | None = None,\n    ) -> ToolResult:"
        in client
    )
    warning = capsys.readouterr().err
    assert "server 'demo': tool 'look': /outputSchema/properties/hit/$ref:" in warning
    assert "arguments: dict[str, Any]" not in warning


def test_the_output_schemas_problem_in_the_docstring_injects_nothing(tmp_path: Path) -> None:
    """The docstring quotes the untrusted `$ref` text (quotes, a line break, a backslash) as text."""
    import ast

    from tests.drift_helpers import snap, tool

    hostile = '#/$defs/x"""\nimport os; os.system("echo pwned")\n"""\\'
    output = {"type": "object", "properties": {"hit": {"$ref": hostile}}}
    generate_package(snap((tool("look", LOOK_ARGUMENTS, output),)), tmp_path)
    client = (tmp_path / "demo" / "client.py").read_text()
    assert "Its result is not typed: mcp-stubgen could not type the tool's output schema" in client
    calls = [ast.unparse(node) for node in ast.walk(ast.parse(client)) if isinstance(node, ast.Call)]
    assert not [call for call in calls if "system" in call]


def test_the_hub_skips_the_sdks_check_of_a_result_whose_output_schema_gave_no_type() -> None:
    """The SDK would fail on every result of a schema naming nothing, or be refused one that is not
    JSON Schema; the hub leaves such a result to the server as the package does, and its catalog
    holds no invalid output schema."""
    import json

    from codegen.generate.hub import render_hub
    from tests.drift_helpers import snap, tool

    invalid = {"type": "object", "properties": {"hit": {"minLength": "x"}}}
    catalog = snap((tool("look", LOOK_ARGUMENTS, DANGLING_OUTPUT), tool("tally", LOOK_ARGUMENTS, invalid)))
    entries = {entry["tool"]: entry for entry in json.loads(render_hub([(catalog, {})])["catalog.json"])["tools"]}
    assert entries["look"]["skip_sdk_output_check"] is entries["tally"]["skip_sdk_output_check"] is True
    assert entries["look"]["output_schema"] == DANGLING_OUTPUT and "output_schema" not in entries["tally"]


LOOK_ARGUMENTS = {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": False}
DANGLING_OUTPUT = {"type": "object", "properties": {"hit": {"$ref": "#/$defs/nope"}}}
UNTYPED_METHOD = (
    "        arguments: dict[str, Any],\n        call_options: CallOptions | None = None,\n    ) -> ToolResult:"
)
OUTPUT_WARNING = (
    "warning: server 'demo': tool 'look': /outputSchema/properties/hit/$ref: '#/$defs/nope' points at nothing in "
    "the schema (a dangling reference); its method returns `ToolResult` (`generate --strict` makes this an error)"
)


def test_by_naming_rules_12_a_broken_output_schema_still_types_the_whole_method_away(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A package committed under rules 1 to 12 keeps `look(arguments={...})`, so code calling it so
    still type-checks after an upgrade; a fresh snapshot (rules 13) types `q=`."""
    from tests.drift_helpers import snap, tool

    committed = dataclasses.replace(snap((tool("look", LOOK_ARGUMENTS, DANGLING_OUTPUT),)), naming_rules=12)
    generate_package(committed, tmp_path)
    assert UNTYPED_METHOD in (tmp_path / "demo" / "client.py").read_text()
    assert capsys.readouterr().err.endswith(
        "its method takes `arguments: dict[str, Any]` (`generate --strict` makes this an error)\n"
    )


def test_a_broken_input_schema_still_types_the_whole_method_away(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other way round nothing changes: arguments no type fits are `arguments: dict[str, Any]`,
    and the result is `ToolResult` though the output schema is fine."""
    from tests.drift_helpers import obj, snap, tool

    broken_input = obj({"q": {"$ref": "#/$defs/nope"}})
    generate_package(snap((tool("look", broken_input, obj({"hit": {"type": "string"}})),)), tmp_path)
    assert UNTYPED_METHOD in (tmp_path / "demo" / "client.py").read_text()
    assert capsys.readouterr().err.splitlines() == [
        "warning: server 'demo': tool 'look': /inputSchema/properties/q/$ref: '#/$defs/nope' points at nothing in "
        "the schema (a dangling reference); its method takes `arguments: dict[str, Any]` (`generate --strict` "
        "makes this an error)"
    ]


@pytest.mark.parametrize("stack", ["as it is", "roomier"])
def test_an_output_schema_datamodel_code_generator_fails_on_keeps_the_typed_arguments(
    stack: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    """One the checks pass and datamodel-code-generator cannot make models of (nested too deeply) costs
    the tool its result's type alone, the warning naming the output schema. With more stack
    datamodel-code-generator makes the models and Python's parser refuses to read them back (200
    nested brackets at most): a fresh clone's test run said that instead, in the package too."""
    from tests.drift_helpers import snap, tool

    if stack == "roomier":
        limit = sys.getrecursionlimit()
        request.addfinalizer(lambda: sys.setrecursionlimit(limit))
        sys.setrecursionlimit(20_000)

    deep: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        deep = {"type": "array", "items": deep}
    generate_package(snap((tool("look", LOOK_ARGUMENTS, {"type": "object", "properties": {"hit": deep}}),)), tmp_path)
    client = (tmp_path / "demo" / "client.py").read_text()
    assert (
        "        q: str | NotGiven = NOT_GIVEN,\n        call_options: CallOptions | None = None,\n    ) -> ToolResult:"
        in client
    )
    assert capsys.readouterr().err.splitlines() == [
        "warning: server 'demo': tool 'look': /outputSchema: cannot generate models: its schemas nest too deeply "
        "to generate models of; its method returns `ToolResult` (`generate --strict` makes this an error)"
    ]


def test_strict_makes_a_broken_output_schema_alone_an_error(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from codegen.snapshot import write_snapshot
    from tests.drift_helpers import snap, tool

    write_snapshot(tmp_path / "s.json", snap((tool("look", LOOK_ARGUMENTS, DANGLING_OUTPUT),)))
    result = run_cli("generate", tmp_path / "s.json", "--out", tmp_path / "out", "--strict", "--no-cache")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [OUTPUT_WARNING.replace("warning: ", "error: ").split("; its method")[0]]
    assert not (tmp_path / "out").exists()
    result = run_cli("generate", tmp_path / "s.json", "--out", tmp_path / "out", "--no-cache")
    assert result.exit_code == 0 and result.stderr.splitlines()[0] == OUTPUT_WARNING


@pytest.mark.generated_mypy
async def test_tools_with_broken_output_schemas_keep_typed_arguments_type_check_and_are_called_over_stdio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real server whose output schemas name nothing (`look`) or are not JSON Schema (`tally`): both
    methods take typed keywords and return `ToolResult`, the package passes `mypy --strict` beside a
    caller, the arguments are still checked before sending, and each result comes back unchecked by
    the SDK (which would fail on every one) and by the runtime where the schema is left to the server."""
    server = SERVERS / "broken_output_server.py"
    snapshot = await snapshot_server(ServerConfig(name="broken-output", command=PYTHON, args=(str(server),)))
    generate_package(snapshot, tmp_path)
    assert capsys.readouterr().err.splitlines() == [
        "warning: server 'broken-output': tool 'look': /outputSchema/properties/received/$ref: '#/$defs/gone' "
        "points at nothing in the schema (a dangling reference); its method returns `ToolResult` "
        "(`generate --strict` makes this an error)",
        "warning: server 'broken-output': tool 'tally': /outputSchema/properties/received/minLength: not valid "
        "JSON Schema (Input should be a valid integer, unable to parse string as an integer); only the server "
        "checks it (ask its authors to fix it); its method returns `ToolResult` (`generate --strict` makes this "
        "an error)",
    ]
    contract = (tmp_path / "broken_output" / "_models" / "tally.py").read_text().split("_CONTRACT = ", 1)[1]
    assert contract.startswith(
        """'{"input":{"additionalProperties":false,"properties":{"count":{"type":"integer"}},"type":"object"},"""
        """"output":{},"parameters":{"count":"count"},"skip_sdk_output_check":true}'"""
    )
    (tmp_path / "use.py").write_text(
        f"from {tmp_path.name}.broken_output import BrokenOutputClient\n\n\n"
        "async def use(server: BrokenOutputClient) -> object:\n"
        "    found = await server.look(q='x')\n"
        "    return (await server.tally(count=len(found.text))).raw.structured_content\n"
    )
    checked = subprocess.run(
        [*MYPY, "--explicit-package-bases", "-p", tmp_path.name], cwd=tmp_path.parent, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    try:
        from mcp import StdioServerParameters

        package: Any = import_generated(tmp_path, "broken_output")
        async with package.BrokenOutputClient.connect(StdioServerParameters(command=PYTHON, args=[str(server)])) as s:
            assert (await s.look(q="x")).raw.structured_content == {"received": {"q": "x"}}
            assert (await s.tally(count=3)).raw.structured_content == {"received": {"count": 3}}
            with pytest.raises(package.ToolArgumentsError, match="nothing was sent"):
                await s.tally(count="three")
    finally:
        forget_generated(tmp_path)


def test_the_hub_checks_a_result_the_client_makes_no_type_of_against_what_the_client_checks() -> None:
    """An output schema datamodel-code-generator fails on (200 nested arrays) names nothing outside
    itself and is JSON Schema: the client returns `ToolResult` and still checks the structured result
    against it (its contract keeps the schema), so the hub advertises it and lets the SDK check the
    result, as it does for a typed tool; one left to the server is neither advertised nor checked by
    either (the test above). The hub agreed with the package on main already."""
    import json

    from codegen.generate.build import build_package
    from codegen.generate.cache import Cache
    from codegen.generate.hub import render_hub
    from tests.drift_helpers import snap, tool

    deep: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        deep = {"type": "array", "items": deep}
    output = {"type": "object", "properties": {"hit": deep}}
    catalog = snap((tool("look", LOOK_ARGUMENTS, output),))
    spec = build_package(catalog, {}, Cache.disabled()).tools[0]
    assert spec.untyped_output is not None and spec.return_annotation == "ToolResult"
    (entry,) = json.loads(render_hub([(catalog, {})])["catalog.json"])["tools"]
    assert entry["output_schema"] == output and "skip_sdk_output_check" not in entry
