"""A tool whose schema is not JSON Schema (a property schema that is a number, `required` a string)
no longer blocks its server (follow-up to issue 12): the tool gets the untyped method with one
warning line, its schema is left to the server (the contract, the SDK's check of the result, the
hub's catalog, code mode's stubs), the other tools stay typed, and `--strict` keeps the error."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.config import HubSettings, ServerConfig
from codegen.generate.build import build_package
from codegen.generate.code_mode import render_code_mode
from codegen.generate.hub import build_hub
from codegen.runtime._hub_runtime import Catalog
from codegen.snapshot import Snapshot, write_snapshot
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, SERVERS, forget_generated, import_generated
from tests.servers.invalid_schemas_server import TOOLS
from tests.test_generate_shapes import MYPY

SERVER = SERVERS / "invalid_schemas_server.py"
LEFT = "; only the server checks it (ask its authors to fix it)"
RANK = f"server 'bad': tool 'rank': /inputSchema/properties/limit: must be a JSON Schema{LEFT}"
TAG = f"server 'bad': tool 'tag': /inputSchema/required: must be a list of property names{LEFT}"
UNTYPED = "; its method takes `arguments: dict[str, Any]` (`generate --strict` makes this an error)"


CATALOG = Snapshot(
    server="bad",
    protocol_version="2026-07-28",
    capabilities={"tools": {}},
    tools=tuple(tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in TOOLS),
)
"""The server's catalog as listed, for the tests that need no server running."""


def test_strict_refuses_the_tool_in_one_line_and_writes_nothing(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    snapshot_file = tmp_path / "bad.json"
    write_snapshot(snapshot_file, CATALOG)
    result = run_cli("generate", snapshot_file, "--out", tmp_path / "out", "--strict", "--no-cache")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"error: {RANK}"]
    assert not (tmp_path / "out").exists()


@pytest.mark.generated_mypy
async def test_the_other_tools_stay_typed_and_the_invalid_ones_reach_the_server(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Snapshotted from the running server (its SDK lists these schemas), generated, type-checked, called."""
    out = tmp_path
    snapshot_file = tmp_path_factory.mktemp("snapshot") / "bad.json"
    server = ServerConfig(name="bad", command=PYTHON, args=(str(SERVER),))
    write_snapshot(snapshot_file, await snapshot_server(server))
    result = run_cli("generate", snapshot_file, "--out", out, "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[:2] == [f"warning: {RANK}{UNTYPED}", f"warning: {TAG}{UNTYPED}"]
    client = (out / "bad" / "client.py").read_text()
    assert "    async def echo(\n        self,\n        *,\n        text: str," in client
    for tool in ("rank", "tag"):
        assert f"    async def {tool}(\n        self,\n        *,\n        arguments: dict[str, Any]," in client
    assert "A schema left to the server is not checked at all: the server judges it." in client
    contracts = {tool: import_generated(out, f"bad._models.{tool}")._CONTRACT for tool in ("rank", "tag")}
    try:
        assert json.loads(contracts["rank"]) == {
            "input": {"type": "object"},
            "output": {"properties": {"received": {"type": "object"}}, "required": ["received"], "type": "object"},
            "parameters": {},
        }
        assert json.loads(contracts["tag"]) == {
            "input": {"type": "object"},
            "output": {},
            "parameters": {},
            "skip_sdk_output_check": True,
        }
        (out / "use.py").write_text(
            f"from {out.name}.bad import BadClient\n\n\nasync def use(server: BadClient) -> str:\n"
            "    result = await server.rank(arguments={'query': 'q', 'limit': 'many'})\n"
            "    return (await server.echo(text=result.text)).received.__class__.__name__\n"
        )
        checked = subprocess.run(
            [*MYPY, "--explicit-package-bases", "-p", out.name], cwd=out.parent, capture_output=True, text=True
        )
        assert checked.returncode == 0, checked.stdout[-3000:]
        package: Any = import_generated(out, "bad")
        async with package.BadClient.connect(StdioServerParameters(command=PYTHON, args=[str(SERVER)])) as server:
            arguments = {"query": "q", "limit": "many"}  # what the schema's `limit: 5` allows, the server decides
            assert (await server.rank(arguments=arguments)).raw.structured_content == {"received": arguments}
            await server.mcp_client.list_tools()  # the SDK now holds `tag`'s output schema, `{"type": 5}`
            # which its check of every result would fail on
            assert (await server.tag(arguments={"label": 7})).raw.structured_content == {"received": {"label": 7}}
            assert (await server.echo(text="hi")).received == {"text": "hi"}
    finally:
        forget_generated(out)


def test_the_hub_and_code_mode_leave_an_invalid_schema_to_the_server() -> None:
    """The hub's catalog (what models see, and what `hub.call` checks arguments against) and code
    mode's stubs hold no invalid schema: the runtime could not apply one, and code mode would type
    `limit: 5` or read `required: "label"` letter by letter."""
    catalog = CATALOG
    tools = {tool.tool: tool for tool in build_hub([(catalog, build_package(catalog))]).tools}
    raw = {tool["name"]: tool for tool in catalog.tools}
    assert (tools["echo"].input_schema, tools["echo"].output_schema) == (
        raw["echo"]["inputSchema"],
        raw["echo"]["outputSchema"],
    )
    assert (tools["rank"].input_schema, tools["rank"].output_schema) == (
        {"type": "object"},
        raw["rank"]["outputSchema"],
    )
    assert (tools["tag"].input_schema, tools["tag"].output_schema) == ({"type": "object"}, None)
    assert [tool.skip_sdk_output_check for tool in tools.values()] == [False, False, True]
    Catalog({tools["rank"].qualified_name: tools["rank"]}).check(tools["rank"], {"limit": "many"})  # nothing refused
    stub = render_code_mode([(catalog, {})], HubSettings())["bad.pyi"].decode()
    assert "async def echo(\n    *,\n    text: str,\n) -> EchoResult:" in stub
    for tool in ("rank", "tag"):
        assert f"async def {tool}(\n    *,\n    arguments: dict[str, Any],\n)" in stub
    assert "arguments: The whole arguments object (its input schema is left to the server)." in stub
    assert "Returns the text of the tool's result (its output schema is left to the server)." in stub
