"""One listing may hold only so much: a server whose pages never end and each weigh a lot is stopped
by the same bound in `snapshot`, a generated client's `verify()` and a hub (`list_tools`), and a
call's re-listing, instead of filling memory until `max_pages`."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import PaginatedRequestParams

from codegen.runtime import _runtime
from tests.conftest import PYTHON, SERVERS

HEAVY = SERVERS / "heavy_pages_server.py"
BOUND = 1024 * 1024
"""The bound the tests lower `MAX_LISTING_BYTES` to: 27 of the server's pages (30 KB, and 10 KB of cursor remembered)."""


@pytest.fixture
def lowered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_runtime, "MAX_LISTING_BYTES", BOUND, raising=False)  # absent before the bound


def test_a_snapshot_stops_a_listing_that_holds_too_much(lowered: None, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "heavy.json"
    result = run_cli("snapshot", "--name", "heavy", "--out", out, "--", PYTHON, HEAVY)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        "error: server 'heavy': tools/list held more than 1 MiB in 27 pages, more than any real catalog "
        "(the server has to send less, or end its paging), so its catalog cannot be listed"
    )
    assert not out.exists()


async def test_verify_and_a_hub_stop_a_listing_that_holds_too_much(lowered: None) -> None:
    """`list_tools` is what a generated client's `verify()` and a hub's listing page through."""
    async with Client(StdioServerParameters(command=PYTHON, args=[str(HEAVY)])) as client:
        with anyio.fail_after(30), pytest.raises(_runtime.PaginationError) as stopped:
            await _runtime.list_tools(client, "heavy")
    assert str(stopped.value) == (
        "server 'heavy': tools/list held more than 1 MiB in 27 pages, more than any real catalog "
        "(the server has to send less, or end its paging), so its catalog cannot be verified"
    )


async def test_a_calls_relisting_stops_a_listing_that_holds_too_much(lowered: None) -> None:
    """The session lists again in the middle of a call (`_list_until`) through its adjusted
    `list_tools`; each page it asks for counts toward the same bound."""
    async with Client(StdioServerParameters(command=PYTHON, args=[str(HEAVY)])) as client:
        _runtime._list_tools_entry_by_entry(client, "heavy")
        cursor = None
        pages = 0
        with anyio.fail_after(30), pytest.raises(_runtime.PaginationError) as stopped:
            while True:
                page = await client.session.list_tools(params=PaginatedRequestParams(cursor=cursor))
                cursor = page.next_cursor
                pages += 1
    assert pages == 26
    assert "tools/list held more than 1 MiB in 27 pages" in str(stopped.value)


async def test_a_page_asked_for_again_is_a_new_listing_not_a_loop() -> None:
    """Code that asks the session for a page it had (the second, twice) is not paging in a loop: the
    cursor that page returns came back because it was asked for again, not because the server loops."""
    server = StdioServerParameters(command=PYTHON, args=[str(SERVERS / "paging_server.py")])
    async with Client(server) as client:
        _runtime._list_tools_entry_by_entry(client, "paging")
        first = await client.session.list_tools()
        again = PaginatedRequestParams(cursor=first.next_cursor)
        second = await client.session.list_tools(params=again)
        assert (await client.session.list_tools(params=again)).next_cursor == second.next_cursor == "6"
