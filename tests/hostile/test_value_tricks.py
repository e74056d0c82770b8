"""Values that trip `jsonschema` must not skip the run-time check: a value `jsonschema` cannot work
through (an integer of 400 digits under `multipleOf: 0.01`, which it divides into a float; a tree
nested past what it can follow on Python's stack) is refused, never taken as fitting, and the
refusal is the client's or the hub's own error. Against a real stdio server, through a generated
client and a connected hub: arguments the schema refuses are not sent, a result it refuses is not
returned."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, SERVERS

NUMBER_SERVER = SERVERS / "number_trick_server.py"
HUGE = 10**400
"""An integer JSON and Python hold; as a float it overflows."""


def nested(depth: int) -> Any:
    """Arrays of arrays, `depth` levels deep, as `report`'s `tree` allows them."""
    tree: Any = None
    for _ in range(depth):
        tree = [tree]
    return tree


@pytest.fixture(scope="module")
def numbers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    """The server's generated package and a hub over it, from a live snapshot."""
    import anyio

    folder = tmp_path_factory.mktemp("value_tricks")
    snapshot = anyio.run(snapshot_server, ServerConfig(name="numbers", command=PYTHON, args=(str(NUMBER_SERVER),)))
    generate_package(snapshot, folder / "tricks")
    generate_hub([(snapshot, {})], folder / "tricks")
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("tricks.numbers"), importlib.import_module("tricks.hub")
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.split(".")[0] == "tricks"]:
            del sys.modules[name]


SERVER = StdioServerParameters(command=PYTHON, args=[str(NUMBER_SERVER)])


async def test_a_huge_integer_does_not_carry_arguments_past_the_hubs_check(numbers: tuple[Any, Any]) -> None:
    """`account` must be `savings`; with a 400-digit `amount` beside it `jsonschema` overflowed and the
    hub took the arguments as fitting and sent `attacker`."""
    hub_module = numbers[1]
    async with hub_module.Hub.connect(numbers=SERVER) as hub:
        with pytest.raises(hub_module.ArgumentsError, match="attacker"):
            await hub.call("numbers__transfer", {"amount": HUGE, "account": "attacker"})
        sent = await hub.call("numbers__transfer", {"amount": HUGE, "account": "savings"})
        assert sent.structured_content == {"received": {"amount": HUGE, "account": "savings"}}


async def test_a_result_a_value_trips_jsonschema_on_is_refused_not_returned(numbers: tuple[Any, Any]) -> None:
    """`report` echoes its arguments as its result, whose schema wants `status: ok`: a 400-digit
    balance or a 150-deep tree beside `status: pwned` made `jsonschema` overflow or run out of
    stack, and the result was returned as fitting (or a Rust panic, a `BaseException`, escaped)."""
    client_module, hub_module = numbers
    wrong = {
        r"'pwned' is not one of \['ok'\]": {"status": "pwned", "balance": HUGE},
        "nests arrays and objects more than 64 levels deep": {"status": "pwned", "tree": nested(150)},
    }
    async with client_module.NumbersClient.connect(SERVER) as client:
        for reason, arguments in wrong.items():
            with pytest.raises(client_module.ToolResultError, match=reason):
                await client.report(extra=arguments)
        assert (await client.report(extra={"status": "ok", "balance": HUGE})).received["status"] == "ok"
    async with hub_module.Hub.connect(numbers=SERVER) as hub:
        for reason, arguments in wrong.items():
            with pytest.raises(client_module.ToolResultError, match=reason):
                await hub.call("numbers__report", arguments)
        fits = await hub.call("numbers__report", {"status": "ok", "balance": HUGE})
        assert fits.structured_content == {"received": {"status": "ok", "balance": HUGE}}
