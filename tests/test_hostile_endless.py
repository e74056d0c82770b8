"""Work a hostile server or snapshot could make endless: paging that never stops in a generated
client's `verify()`, JSON nested deeper than anything can read, and a cache that only grows."""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Iterator
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
