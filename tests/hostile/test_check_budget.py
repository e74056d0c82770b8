"""A schema whose alternatives name each other (`node: anyOf: [{child: node}, {child: node}]`) and a
deep value that fits neither: checking it applied `node` once per way down, 2**depth times, in the
compiled check and in `jsonschema` (3.8 s at depth 14, more than doubling with each level), and a server (its
result) or a caller (its arguments) chooses the depth. Now the compiled check works out each
reference once per value, every check runs within a step budget, and past it the call fails at
once with a clear error."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.server.lowlevel import Server

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.runtime._schema_check import MAX_CHECK_STEPS, STEPS_PER_VALUE, CheckPastBudget, SchemaCheck
from codegen.snapshot.discovery import list_catalog
from tests.conftest import forget_generated, import_generated


def tree_schema(definitions: str = "$defs", **more: Any) -> dict[str, Any]:
    """An object whose `tree` is a `node`: an object whose `child` is a `node` again, said twice."""
    branch = {"type": "object", "properties": {"child": {"$ref": f"#/{definitions}/node"}}}
    return {
        "type": "object",
        "properties": {"tree": {"$ref": f"#/{definitions}/node"}},
        "required": ["tree"],
        definitions: {"node": {"anyOf": [branch, copy.deepcopy(branch)]}},
        **more,
    }


TREE = tree_schema()
DEPTH = 40
"""Deep enough that 2**DEPTH steps would never end."""


def nested(depth: int, leaf: Any = 5) -> dict[str, Any]:
    """`{"tree": {"child": {"child": ... leaf}}}`, `depth` children deep: a `leaf` that is not an
    object fits no `node`, so every alternative on the way down fails."""
    value: Any = leaf
    for _ in range(depth):
        value = {"child": value}
    return {"tree": value}


def past(values: int) -> str:
    """What checking a value of `values` values past the budget says."""
    allowed = max(MAX_CHECK_STEPS, STEPS_PER_VALUE * values)
    return (
        f"checking it took more than {allowed:,} steps ({STEPS_PER_VALUE:,} for each value in it, "
        f"{MAX_CHECK_STEPS:,} at least), more work than a check may take"
    )


PAST = past(DEPTH + 2)
"""What checking `nested(DEPTH)` says: the tree's values and the object holding it."""


class CountedReads(dict[str, Any]):
    """A JSON object that counts how often a check reads one of its members."""

    reads = 0

    def __getitem__(self, name: str) -> Any:
        CountedReads.reads += 1
        return super().__getitem__(name)


def counted(value: Any) -> Any:
    if isinstance(value, dict):
        return CountedReads({name: counted(item) for name, item in value.items()})
    return value


@pytest.mark.parametrize("leaf", [5, {}])
def test_the_compiled_check_applies_a_reference_once_per_value(leaf: Any) -> None:
    """Depth 20: each level read its `child` once per way down to it (2**20 reads); now twice, once
    per alternative, the second answered from the first. A value that fits (`{}` at the bottom)
    costs no more."""
    depth = 20
    CountedReads.reads = 0
    fast = SchemaCheck(TREE).fast
    assert fast is not None
    assert fast(counted(nested(depth, leaf))) is isinstance(leaf, dict)
    assert CountedReads.reads <= 2 * depth + 1


def test_jsonschema_stops_at_the_step_budget() -> None:
    """`jsonschema`, which gives the verdict and the message once the compiled check says no, works
    each alternative out again: it stops at the budget with `CheckPastBudget`, and so does a check
    `jsonschema` makes alone (a schema of another dialect)."""
    with pytest.raises(CheckPastBudget) as past_budget:
        SchemaCheck(TREE).problem(nested(DEPTH))
    assert str(past_budget.value) == PAST
    alone = SchemaCheck(tree_schema("definitions", **{"$schema": "http://json-schema.org/draft-07/schema#"}))
    assert alone.fast is None
    with pytest.raises(CheckPastBudget):
        alone.problem(nested(DEPTH))
    assert alone.problem(nested(DEPTH, {})) is None


def test_a_large_valid_value_is_within_the_budget() -> None:
    """The budget grows with the value: 500 rows of a 300-property object (3 given in each),
    reached through a reference, fit, in the compiled check and in `jsonschema` alone (draft-07)."""
    for definitions, more in (("$defs", {}), ("definitions", {"$schema": "http://json-schema.org/draft-07/schema#"})):
        row = {"type": "object", "properties": {f"field{index}": {"type": "string"} for index in range(300)}}
        schema = {
            "type": "object",
            "properties": {"rows": {"type": "array", "items": {"$ref": f"#/{definitions}/row"}}},
            definitions: {"row": row},
            **more,
        }
        value = {"rows": [{"field0": "a", "field150": "b", "field299": "c"} for _ in range(500)]}
        check = SchemaCheck(schema)
        assert (check.fast is None) is bool(more)
        assert check.problem(value) is None
        assert check.verdict(value) is None


def budget_server() -> Server[Any]:
    """`grow` takes a tree; `shape` returns one, whose leaf is not an object, `DEPTH` children deep."""

    async def list_tools(_context: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name="grow", input_schema=TREE),
                types.Tool(name="shape", input_schema={"type": "object"}, output_schema=TREE),
            ]
        )

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="a tree")], structured_content=nested(DEPTH)
        )

    return Server("budget", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.fixture(scope="module")
def budget_packages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, ModuleType]]:
    """The budget server's package and a hub over it."""
    folder = tmp_path_factory.mktemp("budget")

    async def snapshot() -> Any:
        async with Client(budget_server(), cache=None) as client:
            return await list_catalog(client, ServerConfig(name="budget", command="unused"))

    taken = anyio.run(snapshot)
    generate_package(taken, folder)
    generate_hub([(taken, {})], folder)
    try:
        yield import_generated(folder, "budget"), import_generated(folder, "hub")
    finally:
        forget_generated(folder)


REFUSED = (
    "server 'budget': tool 'shape' failed: its structuredContent could not be checked against the tool's "
    f"output schema: {PAST}; the answer is refused, so tell the server's maintainers (code -32603)"
)


async def test_a_client_and_a_hub_refuse_what_takes_more_than_the_budget_to_check(
    budget_packages: tuple[ModuleType, ModuleType],
) -> None:
    """Arguments past the budget are the caller's error, nothing sent (`ToolArgumentsError`, the hub's
    `ArgumentsError`); a result past it is the server's (`ServerError`), whether the runtime checks it
    against the snapshot's schema or the SDK against the live one (`hub.call`)."""
    budget, hub_module = budget_packages
    server = budget_server()
    with anyio.fail_after(60):
        async with Client(server, cache=None) as session:
            client = budget.BudgetClient(session)
            with pytest.raises(budget.ToolArgumentsError) as refused:
                await client.grow(tree=nested(DEPTH)["tree"])
            assert str(refused.value) == (
                f"server 'budget': tool 'grow': the arguments could not be checked against its input schema: "
                f"{PAST}; nothing was sent"
            )
            with pytest.raises(budget.ServerError) as failed:
                await client.shape()
            assert (str(failed.value), failed.value.code) == (REFUSED, -32603)
        async with hub_module.Hub.connect(budget=server) as hub:
            with pytest.raises(hub_module.ArgumentsError) as hub_refused:
                await hub.call("budget__grow", nested(DEPTH))
            assert str(hub_refused.value) == (
                f"budget__grow: the arguments could not be checked against its input schema: {PAST}; nothing was sent"
            )
            with pytest.raises(hub_module.ServerError) as hub_failed:
                await hub.call("budget__shape", {})
            assert str(hub_failed.value) == REFUSED
