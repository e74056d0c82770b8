"""Run-time checks a live server cannot turn against the process that runs them (issue 22): a
server-chosen `pattern` is matched in linear time, whether a generated client or a hub checks the
arguments it is about to send or the result it received, and whether the runtime or the SDK does it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, SERVERS

CONTRACT_SERVER = SERVERS / "contract_server.py"
TASK_SERVER = SERVERS / "task_server.py"
BACKTRACKS = "a" * 40 + "!"
"""41 characters on which Python's `re` backtracks for years under `^([a-z]+ ?)*$` and `^(a+)+$`."""

_CALLS = """
import asyncio, json, sys
from mcp import StdioServerParameters
from contracts.contract import ContractClient
from contracts.hub import Hub

SERVER, TEXT = sys.argv[1], sys.argv[2]


async def outcome(call):
    try:
        await call
    except Exception as error:
        return type(error).__name__
    return "returned"


async def main():
    seen = {}
    for listed in ("with", "without"):
        args = [SERVER] if listed == "with" else [SERVER, "--without-output-schemas"]
        server = StdioServerParameters(command=sys.executable, args=args)
        async with ContractClient.connect(server) as client:
            seen[f"client words {listed}"] = await outcome(client.send_backtracking(words=TEXT))
            seen[f"client counts {listed}"] = await outcome(client.send_backtracking(counts={TEXT: 1}))
            seen[f"client honest {listed}"] = await outcome(client.send_backtracking(words="ab cd", counts={"aa": 1}))
            seen[f"client result {listed}"] = await outcome(client.get_backtracking(reply={"letters": TEXT}))
            seen[f"client lookbehind {listed}"] = await outcome(client.get_backtracking(reply={"tail": TEXT}))
        async with Hub.connect(contract=server) as hub:
            seen[f"hub words {listed}"] = await outcome(hub.call("contract__send_backtracking", {"words": TEXT}))
            seen[f"hub result {listed}"] = await outcome(
                hub.call("contract__get_backtracking", {"reply": {"letters": TEXT}})
            )
    print(json.dumps(seen))


asyncio.run(main())
"""


@pytest.fixture(scope="module")
def contract_packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The contract server's package and a hub over it, from a live snapshot, in `contracts/`."""
    import anyio

    folder = tmp_path_factory.mktemp("backtracking")
    config = ServerConfig(name="contract", command=PYTHON, args=(str(CONTRACT_SERVER),))
    snapshot = anyio.run(snapshot_server, config)
    generate_package(snapshot, folder / "contracts")
    generate_hub([(snapshot, {})], folder / "contracts")
    return folder


def test_a_backtracking_pattern_cannot_freeze_a_client_or_a_hub(contract_packages: Path) -> None:
    """`^([a-z]+ ?)*$` on an argument and `^(a+)+$` (or `^(a+)+(?<!b)$`, which only Python's engine
    compiles) on a result or a property name, against a real stdio server, through a generated client and a connected hub, with the tool's output schema listed
    live (the SDK checks the result) and not (the runtime does): every call is refused or returns.
    Run in a child process: Python's `re` holds the GIL, so a hang could not be interrupted here."""
    result = subprocess.run(
        [sys.executable, "-c", _CALLS, str(CONTRACT_SERVER), BACKTRACKS],
        cwd=contract_packages,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    seen: dict[str, Any] = json.loads(result.stdout)
    for listed in ("with", "without"):
        assert seen[f"client words {listed}"] == "ToolArgumentsError"
        assert seen[f"client counts {listed}"] == "ToolArgumentsError"
        assert seen[f"client honest {listed}"] == "returned"
        assert seen[f"hub words {listed}"] == "ArgumentsError"
    assert seen["client result without"] == "ToolResultError"
    # a pattern only Python's engine compiles is the server's to check: neither the runtime nor the models match it
    assert seen["client lookbehind with"] == seen["client lookbehind without"] == "returned"
    assert seen["client result with"] == "ToolResultError" and seen["hub result with"] != "returned"
    assert seen["hub result without"] == "returned"  # a hub returns what the server sent when it lists no schema


async def test_a_400_digit_poll_interval_is_clamped_and_a_timeout_still_ends_the_wait(tmp_path: Path) -> None:
    """A task asking to be polled every 10**400 ms: the wait is clamped (to a minute), so the caller's
    timeout ends it with the client's own `RequestTimeoutError`, not a raw `OverflowError`."""
    import importlib

    snapshot = await snapshot_server(ServerConfig(name="tasks", command=PYTHON, args=(str(TASK_SERVER),)))
    generate_package(snapshot, tmp_path / "pollpkgs")
    sys.path.insert(0, str(tmp_path))
    try:
        tasks = importlib.import_module("pollpkgs.tasks")
        server = StdioServerParameters(command=PYTHON, args=[str(TASK_SERVER), "--poll-ms", "9" * 400])
        async with tasks.TasksClient.connect(server) as client:
            with pytest.raises(tasks.RequestTimeoutError, match=r"tool 'multiply' got no answer within 1 s"):
                await client.multiply(a=2, b=3, call_options={"timeout": 1})
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.split(".")[0] == "pollpkgs"]:
            del sys.modules[name]
