"""A reference that names nothing in its schema (`#nope`) or points outside it (a URL, another file)
no longer blocks the server (issue 12): the tool gets the untyped method with one warning line, the
other tools stay typed, `--strict` keeps the error, and a call reaches a real server with its
arguments unchanged, the reference left for the server to judge and never fetched."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.snapshot import Snapshot, write_snapshot
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, SERVERS, forget_generated, import_generated
from tests.test_generate_shapes import MYPY

SERVER = SERVERS / "unresolved_refs_server.py"
UNTYPED = "; its method takes `arguments: dict[str, Any]` (`generate --strict` makes this an error)"
DANGLING = "server 'refs': tool 'lookup': /inputSchema/properties/key/$ref: '#nope' points at nothing in the schema (a dangling reference)"  # fmt: skip
OUTSIDE = (
    "server 'refs': tool 'fetch': /inputSchema/properties/target/$ref: 'https://example.com/x.json' points outside "
    "the schema; mcp-stubgen never fetches a reference (no network, no files), so the server has to put the "
    "definition under $defs"
)


@pytest.fixture(scope="module")
def snapshot_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import anyio

    snapshot = anyio.run(snapshot_server, ServerConfig(name="refs", command=PYTHON, args=(str(SERVER),)))
    path = tmp_path_factory.mktemp("snap") / "refs.json"
    write_snapshot(path, snapshot)
    return path


def test_strict_keeps_the_error_and_writes_nothing(run_cli, snapshot_file: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("generate", snapshot_file, "--out", tmp_path / "out", "--strict", "--no-cache")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"error: {OUTSIDE}"]
    assert not (tmp_path / "out").exists()
    lookup_only = snapshot_file.read_text().replace("https://example.com/x.json", "#/$defs/Nope")
    (tmp_path / "lookup.json").write_text(lookup_only)
    result = run_cli("generate", tmp_path / "lookup.json", "--out", tmp_path / "out", "--strict", "--no-cache")
    assert result.stderr.splitlines()[0].startswith("error: server 'refs': tool 'fetch': ")
    assert "'#/$defs/Nope' points at nothing in the schema (a dangling reference)" in result.stderr


@pytest.mark.generated_mypy
async def test_untyped_tools_are_generated_type_checked_and_reach_the_server(  # type: ignore[no-untyped-def]
    run_cli, snapshot_file: Path, tmp_path: Path
) -> None:
    result = run_cli("generate", snapshot_file, "--out", tmp_path, "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[:2] == [f"warning: {OUTSIDE}{UNTYPED}", f"warning: {DANGLING}{UNTYPED}"]
    client = (tmp_path / "refs" / "client.py").read_text()
    assert "    async def echo(\n        self,\n        *,\n        text: str," in client
    for tool in ("lookup", "fetch"):
        assert f"    async def {tool}(\n        self,\n        *,\n        arguments: dict[str, Any]," in client
    assert "could not type this tool (/inputSchema/properties/key/$ref: '#nope' points at nothing" in client
    assert "A reference that names nothing in the schema is not checked: the server judges that value." in client
    [contract] = [
        line
        for line in (tmp_path / "refs" / "_models" / "fetch.py").read_text().splitlines()
        if line.startswith("_CONTRACT = ")
    ]
    assert (
        contract
        == """_CONTRACT = '{"input":{"properties":{"target":{}},"type":"object"},"output":{"properties":{"received":{}},"type":"object"},"parameters":{},"skip_sdk_output_check":true}'"""
    )

    (tmp_path / "use.py").write_text(
        f"from {tmp_path.name}.refs import RefsClient\n\n\nasync def use(server: RefsClient) -> str:\n"
        "    result = await server.lookup(arguments={'key': 1})\n    return (await server.echo(text=result.text)).received.__class__.__name__\n"
    )  # fmt: skip
    checked = subprocess.run(
        [*MYPY, "--explicit-package-bases", "-p", tmp_path.name],
        cwd=tmp_path.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert checked.returncode == 0, checked.stdout[-3000:]
    try:
        package: Any = import_generated(tmp_path, "refs")
        parameters = StdioServerParameters(command=PYTHON, args=[str(SERVER)])
        async with package.RefsClient.connect(parameters) as server:
            key = {"any": ["shape", 1, None]}
            assert (await server.lookup(arguments={"key": key, "limit": 3})).raw.structured_content == {
                "received": {"key": key, "limit": 3}
            }
            with pytest.raises(package.ToolArgumentsError, match=r"'x' is not of type 'integer'.*nothing was sent"):
                await server.lookup(arguments={"key": 1, "limit": "x"})
            fetched = await server.fetch(arguments={"target": "https://example.com/x.json"})
            assert fetched.raw.structured_content == {"received": {"target": "https://example.com/x.json"}}
            assert (await server.echo(text="hi")).received == {"text": "hi"}
    finally:
        forget_generated(tmp_path)


async def test_a_hub_checks_every_other_argument_beside_a_reference_to_nothing(
    snapshot_file: Path, tmp_path: Path
) -> None:
    """The hub's catalog keeps a tool's schema as the server listed it, `#nope` included: a value at
    that place made `jsonschema` raise, and the hub took the whole arguments as fitting, so
    `limit: "lots"` reached the server beside it. Only the value at the reference is the server's."""
    from codegen.generate import generate_package
    from codegen.generate.hub import generate_hub
    from codegen.snapshot import load_snapshot

    snapshot = load_snapshot(snapshot_file)
    generate_package(snapshot, tmp_path / "refhub")
    generate_hub([(snapshot, {})], tmp_path / "refhub")
    try:
        hub: Any = import_generated(tmp_path / "refhub", "hub")
        parameters = StdioServerParameters(command=PYTHON, args=[str(SERVER)])
        async with hub.Hub.connect(refs=parameters) as connected:
            with pytest.raises(hub.ArgumentsError, match=r"limit: 'lots' is not of type 'integer'.*nothing was sent"):
                await connected.call("refs__lookup", {"key": "x", "limit": "lots"})
            key = {"any": ["shape", 1, None]}
            sent = await connected.call("refs__lookup", {"key": key, "limit": 3})
            assert sent.structured_content == {"received": {"key": key, "limit": 3}}
    finally:
        forget_generated(tmp_path / "refhub")


def test_the_runtime_never_fetches_a_reference(tmp_path: Path) -> None:
    """A schema the runtime meets as sent (a hub's tool, listed live or from its snapshot) may name a
    URL: jsonschema's default registry fetched it on every check. The runtime resolves within the
    schema only; the value at that place is left to the server."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from codegen.runtime._hub_catalog import HubTool
    from codegen.runtime._hub_runtime import Catalog
    from codegen.runtime._runtime import ToolContract

    fetched: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            fetched.append(self.path)
            body = b'{"type": "string"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/x.json"
        schema = {"type": "object", "properties": {"a": {"$ref": url}, "b": {"type": "integer"}}}
        contract = ToolContract({"input": schema})
        assert contract.problem("input", {"a": 1, "b": 2}) is None
        hub_tool = HubTool("s__t", "s", "s", "t", None, schema)
        Catalog({"s__t": hub_tool}).check(hub_tool, {"a": 1, "b": 2})
        server.shutdown()
    assert fetched == []


def test_a_cycle_of_references_is_one_warning_naming_it_and_strict_refuses_it(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A schema whose references only lead to each other (`A` is `$ref B`, `B` is `$ref A`) types
    nothing: the tool gets the untyped method with one line saying so, not datamodel-code-generator's
    parse error of its own output, and a hub, which renders the package again, does not say it twice."""
    cycle = {"A": {"$ref": "#/$defs/B", "description": "one"}, "B": {"$ref": "#/$defs/A"}}
    tools = (
        {"name": "loop", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": cycle}},
        {"name": "plain", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
    )
    snapshot = tmp_path / "cyc.json"
    write_snapshot(
        snapshot, Snapshot(server="cyc", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tools)
    )
    result = run_cli("generate", snapshot, "--out", tmp_path / "out", "--hub", "--no-cache")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        "warning: server 'cyc': tool 'loop': /inputSchema/$defs/A/$ref: '#/$defs/B' leads into a cycle of references "
        f"that never reaches a type (each schema on it is only a $ref){UNTYPED}"
    ]
    client = (tmp_path / "out" / "cyc" / "client.py").read_text()
    assert "    async def loop(\n        self,\n        *,\n        arguments: dict[str, Any]," in client
    assert "    async def plain(\n        self,\n        *,\n        x: str" in client
    strict = run_cli("generate", snapshot, "--out", tmp_path / "strict", "--strict", "--no-cache")
    assert strict.exit_code == 2
    assert strict.stderr.splitlines() == [warnings[0].replace("warning: ", "error: ").removesuffix(UNTYPED)]
    assert not (tmp_path / "strict").exists()
