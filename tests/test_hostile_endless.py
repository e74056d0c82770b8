"""Work a hostile server or snapshot could make endless: paging that never stops in a generated
client's `verify()`, JSON nested deeper than anything can read, and a cache that only grows."""

from __future__ import annotations

import importlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.discovery import snapshot_server
from codegen.generate import generate_package
from codegen.generate.hub import hub_dir, render_hub
from codegen.generate.publish import publish
from tests.conftest import SERVERS
from tests.servers.raw_server import deep_tool

PY = sys.executable
RAW = str(SERVERS / "raw_server.py")


def raw_server(mode: str) -> StdioServerParameters:
    return StdioServerParameters(command=PY, args=[RAW, "--mode", mode])


@pytest.fixture
def raw_packages(tmp_path: Path) -> Iterator[Any]:
    """The raw server's package and a hub over it, generated from a snapshot of the well-behaved
    server and imported as `endless.raw` and `endless.hub`; forgotten afterwards."""
    snapshot = anyio.run(snapshot_server, ServerConfig(name="raw", command=PY, args=(RAW,)))
    out = tmp_path / "endless"
    generate_package(snapshot, out)
    publish(render_hub([(snapshot, {})]), hub_dir(out))
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("endless.raw"), importlib.import_module("endless.hub")
    finally:
        sys.path.remove(str(tmp_path))
        for module in [module for module in sys.modules if module.split(".")[0] == "endless"]:
            del sys.modules[module]


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("endless-cursor", r"^server 'raw': tools/list still had more after 1000 pages"),
        ("cursor-loop", r"^server 'raw': tools/list returned cursor 'again' twice \(its paging loops\)"),
    ],
)
async def test_verify_stops_on_paging_that_never_ends(raw_packages: Any, mode: str, message: str) -> None:
    """A server answering every `tools/list` with a fresh (or the same) `nextCursor`: the generated
    client's `verify()`, and the hub's, raise `PaginationError` at snapshot's limit instead of listing
    forever."""
    package, hub_module = raw_packages
    started = time.monotonic()
    with anyio.fail_after(30):
        async with package.RawClient.connect(raw_server(mode)) as raw:
            with pytest.raises(package.PaginationError, match=message) as stopped:
                await raw.verify()
            assert stopped.value.server == "raw"
            assert isinstance(stopped.value, package.StubgenClientError)
            # the hub over that client re-lists the server itself first
            hub = hub_module.Hub(raw=raw)
            with pytest.raises(hub_module.PaginationError, match=message) as hub_stopped:
                await hub.verify()
            assert isinstance(hub_stopped.value, hub_module.HubError)
    assert time.monotonic() - started < 20


async def test_verify_takes_a_larger_catalog_when_told(raw_packages: Any) -> None:
    """The limit is a keyword argument: a catalog that really has that many pages can be verified."""
    package, _hub = raw_packages
    async with package.RawClient.connect(raw_server("endless-cursor")) as raw:
        with pytest.raises(package.PaginationError, match=r"still had more after 3 pages"):
            await raw.verify(max_pages=3)
    async with package.RawClient.connect(raw_server("legacy")) as raw:
        await raw.verify(max_pages=3)  # five tools, two a page: three pages are enough


def nested_snapshot(levels: int) -> str:
    """A snapshot file whose one tool nests an object property `levels` times, written by hand
    (`json.dumps` itself runs out of stack long before 1,000 levels)."""
    schema = '{"type": "string"}'
    for _ in range(levels):
        schema = '{"type": "object", "properties": {"inner": ' + schema + "}}"
    return (
        '{"format": 1, "server": "deep", "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, '
        '"tools": [{"name": "deep", "inputSchema": ' + schema + "}]}"
    )


@pytest.mark.parametrize("levels", [99, 490, 1000])
def test_a_snapshot_nested_too_deeply_is_one_line_naming_the_file(tmp_path: Path, run_cli, levels: int) -> None:  # type: ignore[no-untyped-def]
    """99 properties deep is 201 levels of JSON, one more than any server can send; 490 parsed and then
    crashed the encoder, 1,000 crashed the parser: every command that reads it says so in one line."""
    snapshot = tmp_path / "deep.json"
    snapshot.write_text(nested_snapshot(levels), encoding="utf-8")
    expected = (
        f"error: {snapshot}: nested deeper than 200 levels, which no MCP server can send, so the file was "
        "edited or damaged: restore it from version control or re-run `mcp-stubgen snapshot`\n"
    )
    for command in (("generate", "--out", tmp_path / "out"), ("generate", "--check", "--out", tmp_path / "out")):
        result = run_cli(*command, snapshot)
        assert (result.exit_code, result.stderr) == (2, expected)
    result = run_cli("drift", snapshot, snapshot)
    assert (result.exit_code, result.stderr) == (2, expected)
    assert not (tmp_path / "out").exists()


def test_a_snapshot_just_within_the_nesting_limit_generates(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    snapshot = tmp_path / "deep.json"
    snapshot.write_text(nested_snapshot(98), encoding="utf-8")  # 199 levels of JSON
    result = run_cli("generate", "--out", tmp_path / "out", snapshot)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "out" / "deep" / "client.py").is_file()


@pytest.fixture
def deep_http_server() -> Iterator[str]:
    """A Streamable HTTP endpoint that completes the legacy handshake, then answers `tools/list` with a
    tool nested deeper than the SDK reads (the same tool as the raw server's `deep-schema` mode)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            method, request_id = message.get("method"), message.get("id")
            if request_id is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            reply: dict[str, object] = {"jsonrpc": "2.0", "id": request_id}
            if method == "initialize":
                reply["result"] = {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "deep", "version": "1"},
                }
            elif method == "tools/list":
                reply["result"] = {"tools": [deep_tool(150)]}
            else:
                reply["error"] = {"code": -32601, "message": "not found"}
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_DELETE = do_GET

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_live_catalog_nested_too_deeply_is_its_own_error_not_a_timeout(
    tmp_path: Path, run_cli, deep_http_server: str, transport: str
) -> None:  # type: ignore[no-untyped-def]
    """The SDK cannot read a message nested over 200 levels, so its request never got an answer and the
    user saw "did not answer within 30s". Now the session ends as soon as the message arrives, with a
    line that names the server and the cause, and the previous snapshot is kept."""
    previous = tmp_path / "deep.json"
    previous.write_bytes(b"{}\n")
    where = ("--url", deep_http_server) if transport == "http" else ("--", PY, RAW, "--mode", "deep-schema")
    started = time.monotonic()
    result = run_cli("snapshot", "--name", "deep", "--out", previous, "--request-timeout", "60", *where)
    assert result.exit_code == 2
    assert result.stderr == (
        "error: server 'deep': sent a message nested deeper than 200 levels, which the MCP SDK cannot read; "
        "the server has to flatten its schemas\n"
    )
    assert time.monotonic() - started < 20
    assert previous.read_bytes() == b"{}\n"
