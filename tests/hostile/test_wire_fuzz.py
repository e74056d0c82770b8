"""Answers of a live server that a generated client and a connected hub must decide at once, from
`tests/servers/wire_fuzz_server.py`, which writes what each call's plan says."""

from __future__ import annotations

import importlib
import json
import logging
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import SERVERS, forget_generated

SERVER = str(SERVERS / "wire_fuzz_server.py")
ERAS = ("legacy", "modern")


def stdio(era: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-I", SERVER, "--era", era])


@pytest.fixture(scope="module")
def wirefuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """`wirefuzz.legacy_fuzz`, `wirefuzz.modern_fuzz` and `wirefuzz.hub` over both, from live snapshots."""
    folder = tmp_path_factory.mktemp("wirefuzz")
    snapshots = [
        anyio.run(
            snapshot_server, ServerConfig(name=f"{era}_fuzz", command=sys.executable, args=(SERVER, "--era", era))
        )
        for era in ERAS
    ]
    for snapshot in snapshots:
        generate_package(snapshot, folder / "wirefuzz")
    generate_hub([(snapshot, {}) for snapshot in snapshots], folder / "wirefuzz")
    sys.path.insert(0, str(folder))
    try:
        for name in ("legacy_fuzz", "modern_fuzz", "hub"):
            importlib.import_module(f"wirefuzz.{name}")
        yield importlib.import_module("wirefuzz")
    finally:
        sys.path.remove(str(folder))
        forget_generated(folder / "wirefuzz")


def planned(*lines: str, end: str = "stay") -> str:
    return json.dumps({"lines": list(lines), "end": end})


@pytest.mark.parametrize("jsonrpc", ["null", '"1.0"', "{}"])
async def test_an_answer_with_the_right_id_that_is_not_json_rpc_2_fails_its_call_at_once(
    wirefuzz: Any, jsonrpc: str
) -> None:
    """An answer carrying the call's id whose `jsonrpc` is not "2.0": the SDK drops the line, and the
    call waited for its timeout, or for ever without one (the sweep found it). Now it fails at once,
    saying what is wrong, and the session goes on, through a generated client and a hub."""
    plan = planned(f'{{"jsonrpc": {jsonrpc}, "id": __ID__, "result": {{"content": []}}}}')
    expected = (
        "server '{era}_fuzz': tool 'answer' failed: its answer is not JSON-RPC 2.0 "
        '(its "jsonrpc" is not "2.0") (code -32700)'
    )
    with anyio.fail_after(20):
        async with wirefuzz.legacy_fuzz.LegacyFuzzClient.connect(stdio("legacy")) as client:
            with pytest.raises(wirefuzz.legacy_fuzz.ServerError) as refused:
                await client.answer(plan=plan)
            assert str(refused.value) == expected.format(era="legacy")
            assert (await client.answer(plan="")).text == "ok"
        async with wirefuzz.hub.Hub.connect(modern_fuzz=stdio("modern")) as hub:
            with pytest.raises(wirefuzz.hub.ServerError) as refused:
                await hub.call("modern_fuzz__answer", {"plan": plan})
            assert str(refused.value) == expected.format(era="modern")
            assert (await hub.call("modern_fuzz__answer", {"plan": ""})).content[0].text == "ok"


async def test_an_answer_with_a_member_nested_past_pythons_depth_logs_no_traceback(
    wirefuzz: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A line with the call's id and a member nested 5,000 deep before any `result`: the SDK cannot
    parse it, and the runtime's reading of its first members for the id raised `RecursionError`,
    which the SDK logged with a traceback (the sweep found it). Now the line is one warning, like any
    line that is not JSON-RPC, and the session goes on; the call, whose answer never came, ends at
    its timeout."""
    from codegen.runtime._stdio import answered_id

    deep = "[" * 5000 + "]" * 5000
    assert answered_id('{"jsonrpc": "2.0", "id": 7, "extra": ' + deep[:4000], "") is None
    plan = planned(f'{{"jsonrpc": "2.0", "id": __ID__, "extra": {deep}}}')

    with caplog.at_level(logging.WARNING), anyio.fail_after(20):
        async with wirefuzz.legacy_fuzz.LegacyFuzzClient.connect(stdio("legacy")) as client:
            with pytest.raises(wirefuzz.legacy_fuzz.RequestTimeoutError):
                await client.answer(plan=plan, call_options={"timeout": 1})
            assert (await client.answer(plan="")).text == "ok"
    assert [record.getMessage() for record in caplog.records if record.exc_info] == []
    assert [record.getMessage()[:60] for record in caplog.records] == [
        "legacy_fuzz: a line of the server's stdout is not a JSON-RPC"
    ]
