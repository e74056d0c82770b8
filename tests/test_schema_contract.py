"""The tool's JSON Schema is the contract (issue 13), against a real stdio server that reports what reached it.

For each keyword family the issue names, a call the schema refuses never leaves the client, and
a call it allows reaches the server byte for byte; a result the schema refuses is refused, and
one it allows comes back unchanged.
"""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import PYTHON, SERVERS

SERVER = SERVERS / "contract_server.py"

CASES: list[tuple[str, dict[str, Any], bool]] = [
    # the models refused these, though the schema allows them
    ("pattern_properties", {"opts": {"a": "x", "x-n": 1}}, True),
    ("pattern_properties", {"opts": {"a": "x", "b": 1}}, False),
    ("unevaluated_properties", {"opts": {"a": "x", "b": 1}}, True),
    ("unevaluated_properties", {"opts": {"a": "x", "c": 1}}, False),
    ("unevaluated_items", {"row": ["a"]}, True),
    ("unevaluated_items", {"row": ["a", 1]}, False),
    ("other_type", {"v": "ab"}, True),
    ("other_type", {"v": 5}, True),
    ("other_type", {"v": 0}, False),
    ("other_type", {"v": "abc"}, False),
    # the models let these through, though the schema refuses them
    ("not", {"name": "bob"}, True),
    ("not", {"name": "admin"}, False),
    ("const", {"ratio": 0.5}, True),
    ("const", {"ratio": 1}, False),
    ("enum", {"mode": 1}, True),
    ("enum", {"mode": None}, True),
    ("enum", {"mode": True}, False),
    ("enum", {"mode": "slow"}, False),
    ("unique_items", {"tags": ["a", "b"]}, True),
    ("unique_items", {"tags": ["a", "a"]}, False),
    ("min_contains", {"nums": [10, 11, 1]}, True),
    ("min_contains", {"nums": [10, 1]}, False),
    ("all_of", {"n": 5}, True),
    ("all_of", {"n": 6}, False),
    ("dependent_required", {"card": "x", "billing": "y"}, True),
    ("dependent_required", {"billing": "y"}, True),
    ("dependent_required", {"card": "x"}, False),
    ("dependent_schemas", {"card": "x", "cvc": "123"}, True),
    ("dependent_schemas", {"card": "x"}, False),
    # draft-07's `dependencies`, which the contract emptied: a call breaking them left the client
    ("legacy_dependencies", {"card": "x", "billing": "y"}, True),
    ("legacy_dependencies", {"billing": "y", "cvc": "1", "card": "x"}, True),
    ("legacy_dependencies", {"card": "x"}, False),
    ("legacy_dependencies", {"cvc": "1"}, False),
    # draft-07's tuple `items`, which the models typed as a list of any of its members: `true` came back as `1`
    ("legacy_tuple", {"row": [1, "a", True, None]}, True),
    ("legacy_tuple", {"row": [1]}, True),
    ("legacy_tuple", {"row": ["a"]}, False),
    ("if_then_else", {"country": "US", "postcode": "12345"}, True),
    ("if_then_else", {"country": "US", "postcode": "abc"}, False),
    ("if_then_else", {"country": "NO", "postcode": "0150 Oslo"}, True),
    ("if_then_else", {"country": "NO", "postcode": "far too long a code"}, False),
    ("one_of", {"v": -1}, True),
    ("one_of", {"v": 2.5}, True),
    ("one_of", {"v": 5}, False),
    ("nullable", {"note": "hi"}, True),
    ("nullable", {}, True),
    ("nullable", {"note": None}, False),
    # these were changed on the way
    ("nested_keys", {"opts": {"a": "x", "b": 1}}, True),
    ("min_properties", {"m": {"zz": 1}}, True),
    ("min_properties", {"m": {}}, False),
    ("no_coercion", {"count": 1, "flag": True}, True),
    ("no_coercion", {"count": 1.0}, True),
    ("no_coercion", {"count": "1"}, False),
    ("no_coercion", {"count": True}, False),
    ("no_coercion", {"flag": "yes"}, False),
    ("no_coercion", {"flag": 1}, False),
    ("recursive", {"name": "a", "children": [{"name": "b", "children": [], "note": 1}]}, True),
    ("recursive", {"name": "a", "children": [{"name": 5}]}, False),
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The contract server's package and a hub over it, generated from a live snapshot into `contracts/`."""
    import anyio

    folder = tmp_path_factory.mktemp("contract")
    snapshot = anyio.run(snapshot_server, ServerConfig(name="contract", command=PYTHON, args=(str(SERVER),)))
    generate_package(snapshot, folder / "contracts")
    generate_hub([(snapshot, {})], folder / "contracts")
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.split(".")[0] == "contracts"]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def contract_package(generated: None) -> Any:
    return importlib.import_module("contracts.contract")


@pytest.fixture(scope="module")
def contract_hub(generated: None) -> Any:
    return importlib.import_module("contracts.hub")


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: numbers by value, `true` never equal to `1`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


async def test_a_call_leaves_the_client_exactly_when_the_schema_allows_it_and_arrives_byte_for_byte(
    contract_package: Any,
) -> None:
    async with contract_package.ContractClient.connect(
        StdioServerParameters(command=PYTHON, args=[str(SERVER)])
    ) as client:
        sent: list[str] = []
        call_tool = client.mcp_client.call_tool

        async def record(name: str, arguments: dict[str, Any] | None = None) -> Any:
            sent.append(name)
            return await call_tool(name, arguments)

        client.mcp_client.call_tool = record
        wrong = []
        for family, arguments, valid in CASES:
            method = getattr(client, f"send_{family}")
            before = len(sent)
            try:
                result = await method(**arguments)
            except contract_package.ToolArgumentsError as error:
                if valid or len(sent) != before:
                    wrong.append(f"{family} {arguments}: refused ({error}), sent {len(sent) - before}")
                continue
            # top-level keys go in wire-name order; everything inside exactly as given
            expected = json.dumps(dict(sorted(arguments.items())))
            if not valid or result.content[0].text != expected:
                wrong.append(f"{family} {arguments}: the server received {result.content[0].text}")
        assert wrong == []


async def test_a_result_is_returned_exactly_when_the_schema_allows_it_and_unchanged(contract_package: Any) -> None:
    # the live server lists no output schemas, so the SDK checks nothing: the snapshot's schema decides
    async with contract_package.ContractClient.connect(
        StdioServerParameters(command=PYTHON, args=[str(SERVER), "--without-output-schemas"])
    ) as client:
        wrong = []
        for family, reply, valid in CASES:
            try:
                returned = await getattr(client, f"get_{family}")(reply=reply)
            except contract_package.ToolResultError as error:
                if valid:
                    wrong.append(f"{family} {reply}: refused ({error})")
                continue
            dumped = returned.model_dump(mode="json", by_alias=True, exclude_unset=True)
            if not valid or not same_json(dumped, reply):
                wrong.append(f"{family} {reply}: returned {dumped}")
        assert wrong == []


async def test_a_refusal_names_the_parameter_and_the_schema_rule(contract_package: Any) -> None:
    async with contract_package.ContractClient.connect(
        StdioServerParameters(command=PYTHON, args=[str(SERVER)])
    ) as client:
        with pytest.raises(contract_package.ToolArgumentsError) as refused:
            await client.send_no_coercion(count="1")
        assert str(refused.value) == (  # led by the server, as a ToolError is: a hub's servers share names
            "server 'contract': tool 'send_no_coercion': argument count: '1' is not of type 'integer' "
            "(schema rule /properties/count/type); nothing was sent"
        )
        assert refused.value.server == "contract"
    async with contract_package.ContractClient.connect(
        StdioServerParameters(command=PYTHON, args=[str(SERVER), "--without-output-schemas"])
    ) as client:
        with pytest.raises(contract_package.ToolResultError) as result:
            await client.get_no_coercion(reply={"count": "1"})
        assert str(result.value) == (
            "server 'contract': tool 'get_no_coercion' returned a result that does not match its snapshot's "
            "output schema: "
            "['count']: '1' is not of type 'integer' (schema rule /properties/count/type); "
            "the server changed that schema since the snapshot, or its result breaks it "
            "(`mcp-stubgen drift` tells which; `mcp-stubgen sync` takes a change in)"
        )


async def test_a_result_the_live_output_schema_rejects_is_the_clients_result_error(contract_package: Any) -> None:
    """Once a live listing gave the SDK the tool's output schema, the SDK checks a result before the
    runtime does and raises a bare `RuntimeError`: the caller still gets the client's `ToolResultError`,
    which blames the server's own listing, not the snapshot (a sync would take in the same schema), and
    names where in the result and which rule, as the runtime's own check does."""
    async with contract_package.ContractClient.connect(
        StdioServerParameters(command=PYTHON, args=[str(SERVER)])
    ) as client:
        await client.verify()
        with pytest.raises(contract_package.ToolResultError) as result:
            await client.get_no_coercion(reply={"count": "1"})
        assert str(result.value) == (
            "server 'contract': tool 'get_no_coercion' returned a result that the output schema the server "
            "lists rejects: ['count']: '1' is not of type 'integer' (schema rule /properties/count/type); "
            "the fault is in the server's own listing, which "
            "`mcp-stubgen sync` cannot mend: tell the server's maintainers"
        )


async def test_more_arguments_go_through_extra_where_the_schema_allows_them(contract_package: Any) -> None:
    async with contract_package.ContractClient.connect(
        StdioServerParameters(command=PYTHON, args=[str(SERVER)])
    ) as client:
        sent = await client.send_open_root(name="a", extra={"x-count": 1, "y": 2.0})
        assert sent.content[0].text == '{"name": "a", "x-count": 1, "y": 2.0}'
        # a root without `additionalProperties` allows more keys too, as JSON Schema says
        sent = await client.send_nested_keys(opts={"a": "x", "b": 1}, extra={"z": [1, "2"], "n": None})
        assert sent.content[0].text == '{"opts": {"a": "x", "b": 1}, "z": [1, "2"], "n": null}'
        with pytest.raises(
            contract_package.ToolArgumentsError,
            match=r"extra argument 'x': 'one' is not of type 'integer' \(schema rule /additionalProperties/type\)",
        ):
            await client.send_open_root(name="a", extra={"x": "one"})
        with pytest.raises(contract_package.ToolArgumentsError, match="extra argument 'name' is the parameter name"):
            await client.send_open_root(extra={"name": "a"})
        returned = await client.get_open_root(reply={"name": "a", "x-count": 1})
        assert returned.model_dump(by_alias=True, exclude_unset=True) == {"name": "a", "x-count": 1}
    with pytest.raises(TypeError):
        await client.send_closed_root(name="a", extra={})  # a closed root has no `extra`


def test_extra_is_typed_for_the_schemas_additional_properties(contract_package: Any) -> None:
    def extra_of(method: str) -> str:
        source = inspect.getsource(getattr(contract_package.ContractClient, method))
        return next(line.strip() for line in source.splitlines() if line.strip().startswith("extra:"))

    assert extra_of("send_open_root") == "extra: Mapping[str, int] | NotGiven = NOT_GIVEN,"
    assert extra_of("send_nested_keys") == "extra: Mapping[str, object] | NotGiven = NOT_GIVEN,"
    assert "extra" not in inspect.signature(contract_package.ContractClient.send_closed_root).parameters


def test_models_keep_every_key_the_schema_allows_at_the_root_and_nested(contract_package: Any) -> None:
    models = contract_package.models
    given = {"opts": {"a": "x", "b": 1}, "z": [1, "2"]}
    kept = models.SendNestedKeysInput.model_validate(given)
    assert kept.model_dump(mode="json", by_alias=True, exclude_unset=True) == given
    typed = models.SendOpenRootInput.model_validate({"name": "a", "n": 1})
    assert typed.model_dump(by_alias=True, exclude_unset=True) == {"name": "a", "n": 1}
    with pytest.raises(pydantic.ValidationError, match="Extra inputs are not permitted"):
        models.SendClosedRootInput.model_validate({"name": "a", "z": 1})


HUB_CASES: list[tuple[str, dict[str, Any], bool]] = [
    # by wire name, keys in the order given, more keys wherever the schema allows them
    ("nested_keys", {"z": [1, "2"], "opts": {"a": "x", "b": 1}}, True),
    ("open_root", {"y": 2.0, "name": "a"}, True),
    ("open_root", {"name": "a", "x": "one"}, False),
    ("closed_root", {"name": "a"}, True),
    ("closed_root", {"name": "a", "z": 1}, False),
]


async def test_the_hub_sends_a_call_exactly_when_the_schema_allows_it_and_byte_for_byte(contract_hub: Any) -> None:
    async with contract_hub.Hub.connect(contract=StdioServerParameters(command=PYTHON, args=[str(SERVER)])) as hub:
        sdk = hub.contract.mcp_client
        sent: list[str] = []
        call_tool = sdk.call_tool

        async def record(name: str, arguments: dict[str, Any] | None = None) -> Any:
            sent.append(name)
            return await call_tool(name, arguments)

        sdk.call_tool = record
        wrong = []
        for family, arguments, valid in CASES + HUB_CASES:
            before = len(sent)
            try:
                result = await hub.call(f"contract__send_{family}", arguments)
            except contract_hub.ArgumentsError as error:
                if valid or len(sent) != before:
                    wrong.append(f"{family} {arguments}: refused ({error}), sent {len(sent) - before}")
                continue
            if not valid or result.content[0].text != json.dumps(arguments):
                wrong.append(f"{family} {arguments}: the server received {result.content[0].text}")
        assert wrong == []

        with pytest.raises(contract_hub.ArgumentsError) as refused:
            await hub.call("contract__send_no_coercion", {"count": "1", "flag": "yes"})
        assert str(refused.value) == (
            "contract__send_no_coercion: invalid arguments: count: '1' is not of type 'integer' "
            "(schema rule /properties/count/type); flag: 'yes' is not of type 'boolean' "
            "(schema rule /properties/flag/type); nothing was sent"
        )


_LAZY_PROBE = """
import sys
from clients.weather import WeatherClient
from clients._mcp_runtime._runtime import ToolContract
assert "jsonschema" not in sys.modules and not ToolContract._loaded, "a validator was loaded on import"

import asyncio
from mcp.types import CallToolResult

class Session:
    async def call_tool(self, name, arguments=None):
        return CallToolResult(content=[], structured_content={"result": [arguments["query"]]})

client = WeatherClient(Session())
assert asyncio.run(client.search(query="Oslo")) == ["Oslo"]
assert len(ToolContract._loaded) == 1, "the first call compiles its tool's contract, and only that"
assert "jsonschema" not in sys.modules, "valid calls need no jsonschema"
"""


def test_importing_a_package_loads_no_validator_until_a_tool_is_called() -> None:
    golden = Path(__file__).resolve().parent.parent / "golden"
    result = subprocess.run([sys.executable, "-c", _LAZY_PROBE], capture_output=True, text=True, cwd=golden)
    assert result.returncode == 0, result.stderr


NOT_JSON: list[tuple[str, dict[str, Any], str]] = [
    # the MCP SDK wrote a NaN or an Infinity as null, which the server took for the caller's value
    ("other_type", {"v": float("nan")}, "argument v: nan is no JSON number (the MCP SDK would send null)"),
    ("nested_keys", {"opts": {"a": "x", "b": [float("-inf")]}}, "argument opts: -inf is no JSON number"),
    # a lone surrogate failed the SDK's writer, and over stdio the session ended as if the server had gone
    ("nullable", {"note": "half \ud83d"}, "argument note: the text 'half \\ud83d' holds a lone surrogate ('\\ud83d')"),
    ("nested_keys", {"opts": {"\udc80": "x"}}, "argument opts: the text '\\udc80' holds a lone surrogate"),
]


async def test_a_value_json_cannot_carry_is_refused_and_the_session_goes_on(contract_package: Any) -> None:
    async with contract_package.ContractClient.connect(
        StdioServerParameters(command=PYTHON, args=[str(SERVER)])
    ) as client:
        sent: list[str] = []
        call_tool = client.mcp_client.call_tool

        async def record(name: str, arguments: dict[str, Any] | None = None) -> Any:
            sent.append(name)
            return await call_tool(name, arguments)

        client.mcp_client.call_tool = record
        for family, arguments, reason in NOT_JSON:
            with pytest.raises(contract_package.ToolArgumentsError) as refused:
                await getattr(client, f"send_{family}")(**arguments)
            assert str(refused.value).startswith(f"server 'contract': tool 'send_{family}': {reason}"), refused.value
            assert str(refused.value).endswith("; nothing was sent")
        with pytest.raises(contract_package.ToolArgumentsError, match=r"extra argument 'z': nan is no JSON number"):
            await client.send_nested_keys(opts={}, extra={"z": float("nan")})
        assert sent == []
        echoed = await client.send_nullable(note="ok \U0001f600 -0.0")
        assert echoed.content[0].text == json.dumps({"note": "ok \U0001f600 -0.0"})


async def test_the_hub_refuses_a_value_json_cannot_carry(contract_hub: Any) -> None:
    async with contract_hub.Hub.connect(contract=StdioServerParameters(command=PYTHON, args=[str(SERVER)])) as hub:
        for family, arguments, _ in NOT_JSON:
            with pytest.raises(contract_hub.ArgumentsError, match="nothing was sent") as refused:
                await hub.call(f"contract__send_{family}", arguments)
            assert "no JSON number" in str(refused.value) or "lone surrogate" in str(refused.value)
        echoed = await hub.call("contract__send_nested_keys", {"opts": {"a": "\U0001f600"}, "n": -0.0})
        assert echoed.content[0].text == json.dumps({"opts": {"a": "\U0001f600"}, "n": -0.0})


async def test_a_root_unions_model_json_cannot_carry_names_the_tool() -> None:
    """A root union's member model was dumped outside the check that names the tool, so a lone
    surrogate in it raised the runtime's bare internal error."""
    from tests.conftest import forget_generated, import_generated
    from tests.regen_goldens import OUTPUT

    forget_generated(OUTPUT)
    try:
        shapes = import_generated(OUTPUT, "shapes")

        class Session:
            async def call_tool(self, name: str, arguments: Any = None, *more: Any, **options: Any) -> Any:
                raise AssertionError(f"sent {arguments!r}")

        models = import_generated(OUTPUT, "shapes.models")
        with pytest.raises(shapes.ToolArgumentsError) as refused:
            await shapes.ShapesClient(Session()).find(arguments=models.FindInputVariant1(name="half \ud83d"))
        assert str(refused.value) == (
            "server 'shapes': tool 'find': the arguments: the text 'half \\ud83d' holds a lone surrogate ('\\ud83d'), which no "
            "UTF-8 JSON text can carry; nothing was sent"
        )
    finally:
        forget_generated(OUTPUT)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
async def test_a_result_holding_a_number_json_has_none_for_is_refused_as_not_mcp(
    contract_package: Any, contract_hub: Any, value: str
) -> None:
    """The SDK's parser takes `NaN` and `Infinity`, and no schema rule refuses a NaN: the client
    returned it as the caller's float, where `ToolResult.json()` refuses the same text."""
    refusal = r"its answer is not valid MCP \(its structuredContent holds NaN or an infinite number, .*\(code -32700\)$"
    async with contract_package.ContractClient.connect(
        StdioServerParameters(command=PYTHON, args=[str(SERVER)])
    ) as client:
        with pytest.raises(contract_package.ServerError, match=refusal):
            await client.get_no_json_number(value=value)
        assert (await client.get_const(reply={"ratio": 0.5})).ratio == 0.5
    async with contract_hub.Hub.connect(contract=StdioServerParameters(command=PYTHON, args=[str(SERVER)])) as hub:
        with pytest.raises(contract_hub.ServerError, match=refusal):
            await hub.call("contract__get_no_json_number", {"value": value})
