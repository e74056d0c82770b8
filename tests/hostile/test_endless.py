"""Work a hostile server or snapshot could make endless: paging that never stops in a generated
client's `verify()`, JSON nested deeper than anything can read, and a cache that only grows."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import Cache, generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, REPO, SERVERS, write_config
from tests.servers.json_http import JsonHttpHandler
from tests.servers.raw_server import deep_tool

PY = PYTHON
RAW = str(SERVERS / "raw_server.py")


EMPTY_CURSOR_LOOP = (
    r"^server 'raw': tools/list returned cursor '' twice \(its paging loops: an empty nextCursor is a cursor, "
    r"not the end of the list, and the server has to leave it out of its last page\), so its catalog cannot be "
)


def raw_server(mode: str) -> StdioServerParameters:
    return StdioServerParameters(command=PY, args=[RAW, "--mode", mode])


@pytest.fixture
def raw_packages(tmp_path: Path) -> Iterator[Any]:
    """The raw server's package and a hub over it, generated from a snapshot of the well-behaved
    server and imported as `endless.raw` and `endless.hub`; forgotten afterwards."""
    snapshot = anyio.run(snapshot_server, ServerConfig(name="raw", command=PY, args=(RAW,)))
    out = tmp_path / "endless"
    generate_package(snapshot, out)
    generate_hub([(snapshot, {})], out)
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
        ("empty-cursor", EMPTY_CURSOR_LOOP),
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


def nested_snapshot(levels: int, innermost: str = '{"type": "string"}') -> str:
    """A snapshot file whose one tool nests an object property `levels` times (two levels of JSON
    each, the tool's schema itself at level 4), written by hand: `json.dumps` itself runs out of
    stack long before 1,000 levels."""
    schema = innermost
    for _ in range(levels):
        schema = '{"type": "object", "properties": {"inner": ' + schema + "}}"
    return (
        '{"format": 1, "server": "deep", "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, '
        '"tools": [{"name": "deep", "inputSchema": ' + schema + "}]}"
    )


@pytest.mark.parametrize("levels", [99, 490, 1000])
def test_a_snapshot_nested_too_deeply_is_one_line_naming_the_file(tmp_path: Path, run_cli, levels: int) -> None:  # type: ignore[no-untyped-def]
    """99 properties deep is 202 levels of JSON, more than any server can send; 490 parsed and then
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


@pytest.mark.parametrize(
    "innermost",
    [
        '{"type": "string", "enum": ["a"]}',  # the enum's array is level 201
        '{"type": "string", "enum": ["\\ud800"]}',  # the same, with a lone surrogate only Python's parser reads
    ],
)
def test_the_nesting_limit_is_exact(tmp_path: Path, run_cli, innermost: str) -> None:  # type: ignore[no-untyped-def]
    snapshot = tmp_path / "deep.json"
    snapshot.write_text(nested_snapshot(98, innermost), encoding="utf-8")
    result = run_cli("drift", snapshot, snapshot)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {snapshot}: nested deeper than 200 levels, which no MCP server can send")


def test_a_snapshot_just_within_the_nesting_limit_generates(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    snapshot = tmp_path / "deep.json"
    snapshot.write_text(nested_snapshot(98), encoding="utf-8")  # 200 levels of JSON
    result = run_cli("generate", "--out", tmp_path / "out", snapshot)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "out" / "deep" / "client.py").is_file()


@pytest.fixture
def deep_http_server() -> Iterator[str]:
    """A Streamable HTTP endpoint that completes the legacy handshake, then answers `tools/list` with a
    tool nested deeper than the SDK reads (the same tool as the raw server's `deep-schema` mode)."""

    class Handler(JsonHttpHandler):
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
            self.send_json(reply)

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


# --- the cache of generated pieces stays within its bound ---

BLOCK = 4096


def cache_size(folder: Path) -> int:
    """The entries' size as the bound counts it: whole 4 KiB blocks per entry."""
    return sum(-(-path.stat().st_size // BLOCK) * BLOCK or BLOCK for path in (folder / "v1").glob("*/*"))


def aged(folder: Path, count: int, size: int = 3000) -> list[Path]:
    """`count` entries written long ago (a minute apart, the first one oldest), as earlier runs left them."""
    paths = []
    for index in range(count):
        path = folder / "v1" / f"{index % 256:02x}" / f"old-{index:05d}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x" * size)
        os.utime(path, (1_000_000 + 60 * index, 1_000_000 + 60 * index))
        paths.append(path)
    return paths


def test_writing_past_the_bound_evicts_the_least_recently_used_entries(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    old = aged(folder, 60)  # 60 blocks
    bound = 50 * BLOCK
    # A later run reads the oldest entry and writes 20 new ones.
    run = Cache(folder, max_bytes=bound)
    keys = [hashlib.sha256(str(index).encode()).hexdigest() for index in range(20)]
    assert run.get("00old-00000") == "x" * 3000  # key "00" + "old-00000" is the oldest entry's path
    for key in keys:
        run.put(key, f"piece {key}")
    run.trim()

    # 80 blocks against a bound of 50: the 40 least recently used go, down to 80% of the bound
    assert cache_size(folder) == 40 * BLOCK
    assert old[0].exists(), "read in the last run: the most recently used of the old entries"
    assert not any(path.exists() for path in old[1:41])
    assert all(path.exists() for path in old[41:])
    fresh = Cache(folder, max_bytes=bound)
    assert [fresh.get(key) for key in keys] == [f"piece {key}" for key in keys]


def test_a_run_under_the_bound_does_not_scan_the_folder(tmp_path: Path) -> None:
    """The folder is measured only when the ledger of what was written says it may be over the bound;
    a run that stays under it costs one small append."""
    folder = tmp_path / "cache"
    first = Cache(folder, max_bytes=100 * BLOCK)
    first.put("a" * 64, "piece")
    first.trim()  # no ledger yet: measured once, 1 block
    assert (folder / "v1" / "written").read_text().split() == [str(BLOCK)]
    aged(folder, 200)  # put there behind the ledger's back: not measured until the ledger passes the bound
    second = Cache(folder, max_bytes=100 * BLOCK)
    second.put("b" * 64, "piece")
    second.trim()
    assert (folder / "v1" / "written").read_text().split() == [str(BLOCK), str(BLOCK)]
    assert cache_size(folder) == 202 * BLOCK
    third = Cache(folder, max_bytes=100 * BLOCK)
    third.put("c" * 64, "x" * (100 * BLOCK))  # past the bound by the ledger: measured and trimmed
    third.trim()
    assert cache_size(folder) <= 80 * BLOCK
    assert (folder / "v1" / "written").read_text().split() == [str(cache_size(folder))]


@pytest.mark.parametrize("command", ["sync", "generate"])
def test_sync_and_generate_keep_the_cache_within_its_bound(tmp_path: Path, run_cli, monkeypatch, command: str) -> None:  # type: ignore[no-untyped-def]
    """1.6 MB of entries from earlier runs (no ledger yet, as an older mcp-stubgen leaves the folder) and
    a bound of 1 MB: the command ends with the folder within 80% of it, the oldest entries gone."""
    folder = Path(os.environ["MCP_STUBGEN_CACHE_DIR"])
    monkeypatch.setenv("MCP_STUBGEN_CACHE_MAX_MB", "1")
    old = aged(folder, 400)
    monkeypatch.chdir(tmp_path)
    write_config(
        tmp_path,
        f'[tool.mcp-stubgen]\noutput = "clients"\n[tool.mcp-stubgen.servers.raw]\ncommand = {json.dumps(PY)}\n'
        f"args = {json.dumps([RAW])}\n",
    )
    snapshot = tmp_path / "nested.json"
    snapshot.write_text(nested_snapshot(2), encoding="utf-8")
    result = run_cli(*(("sync",) if command == "sync" else ("generate", snapshot, "--out", tmp_path / "clients")))
    assert result.exit_code == 0, result.stderr
    assert cache_size(folder) <= 800_000
    assert not old[0].exists() and old[-1].exists()
    assert any(path.name[0] != "o" for path in (folder / "v1").glob("*/*")), "this run's own pieces are kept"


def test_watch_keeps_the_cache_within_its_bound(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    aged(folder, 400)
    write_config(
        tmp_path,
        f'[tool.mcp-stubgen]\noutput = "clients"\n[tool.mcp-stubgen.servers.raw]\ncommand = {json.dumps(PY)}\n'
        f"args = {json.dumps([RAW])}\n",
    )
    watched = subprocess.run(
        [PY, "-m", "codegen.cli", "watch", "--max-changes", "1"],
        cwd=tmp_path,
        env={
            **os.environ,
            "PYTHONPATH": str(REPO),
            "MCP_STUBGEN_CACHE_DIR": str(folder),
            "MCP_STUBGEN_CACHE_MAX_MB": "1",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert watched.returncode == 0, watched.stderr
    assert "raw: wrote mcp/snapshots/raw.json and regenerated clients/raw" in watched.stderr
    # watch trims after each publication (its build at start is one): the bound holds, though the
    # last publication may leave the folder above the 80% an eviction trims down to
    assert cache_size(folder) <= 1024 * 1024


def test_a_bad_cache_bound_is_one_line(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("MCP_STUBGEN_CACHE_MAX_MB", "lots")
    snapshot = tmp_path / "deep.json"
    snapshot.write_text(nested_snapshot(1), encoding="utf-8")
    result = run_cli("generate", "--out", tmp_path / "out", snapshot)
    assert (result.exit_code, result.stderr) == (
        2,
        "error: MCP_STUBGEN_CACHE_MAX_MB='lots': expected a whole number of megabytes, at least 1\n",
    )


def test_snapshot_says_an_empty_next_cursor_is_a_cursor(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """MCP 2026-07-28 made `nextCursor: ""` a cursor like any other, so a server that ends its listing
    with it pages in a loop; the line says what the server has to change."""
    result = run_cli(
        "snapshot", "--name", "raw", "--out", tmp_path / "raw.json", "--", PY, RAW, "--mode", "empty-cursor"
    )
    assert result.exit_code == 2
    assert re.match("error: " + EMPTY_CURSOR_LOOP[1:] + "listed\n$", result.stderr), result.stderr
    assert not (tmp_path / "raw.json").exists()
