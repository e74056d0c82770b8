"""The hub in the providers' own deferred-loading forms (issue 25), checked against the providers' SDKs.

Each request body and each answer the hub builds is validated with the SDK's own types (`anthropic`,
`openai`, `google-genai`, test extras; nothing is sent), and a stubbed model drives a whole agent
loop per provider: it searches, the hub answers in the provider's form, it calls a tool it found,
the hub runs it on `examples/weather_server.py` over stdio, and the result goes back in the
provider's shape.

The SDKs are imported inside the functions that use them: the three cost about 3 s of CPU to import,
which every xdist worker would otherwise pay while collecting, whether or not it runs this module.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from mcp import StdioServerParameters
from pydantic import TypeAdapter

from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.runtime._hub_catalog import HubTool
from codegen.runtime._hub_providers import anthropic_tool
from tests.conftest import PYTHON, REPO
from tests.regen_goldens import hub_case_snapshots
from tests.test_hub_agent import forget, import_hub

if TYPE_CHECKING:
    from google.genai import types as genai

PY = PYTHON
WEATHER = REPO / "examples" / "weather_server.py"
NOTES = REPO / "examples" / "notes_server.py"
TASK = "What's the weather going to be in Oslo?"


def fits(shape: Any, value: Mapping[str, Any]) -> None:
    """The value validates as the SDK's TypedDict and has no key the TypedDict lacks (pydantic drops those)."""
    validated = TypeAdapter(shape).validate_python(value)
    assert set(validated) == set(value), f"{shape.__name__} has no {sorted(set(value) - set(validated))}"


def generate(out: Path, reverse: bool = False) -> None:
    snapshots = hub_case_snapshots()
    for snapshot in snapshots:
        generate_package(snapshot, out)
    generate_hub([(snapshot, {}) for snapshot in (reversed(snapshots) if reverse else snapshots)], out)


@pytest.fixture(scope="module")
def hub_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The golden hub case (notes and weather) generated as `providerhub.hub`, imported."""
    out = tmp_path_factory.mktemp("generated") / "providerhub"
    generate(out)
    yield import_hub(out, "providerhub")
    forget("providerhub")


def stdio(script: Path) -> StdioServerParameters:
    return StdioServerParameters(command=PY, args=[str(script)])


# -- Anthropic ------------------------------------------------------------------------------------------


def anthropic_model(request: dict[str, Any]) -> dict[str, Any]:
    """Stands in for Claude: searches, then calls the first tool the search loaded, then answers.

    It may call only a tool whose definition is loaded: one not deferred, or one a `tool_reference`
    in the conversation names (the API expands those into their definitions)."""
    from anthropic.types import ToolUseBlock

    messages = request["messages"]
    tools = {tool["name"]: tool for tool in request["tools"]}
    loaded = {name for name, tool in tools.items() if not tool.get("defer_loading")}
    results = [block for message in messages[1:] if message["role"] == "user" for block in message["content"]]
    for block in results:
        loaded |= {part["tool_name"] for part in block["content"] if part["type"] == "tool_reference"}
    if len(messages) == 1:
        call = ToolUseBlock(type="tool_use", id="toolu_1", name="search_tools", input={"query": TASK})
    elif len(messages) == 3:
        found = [part["tool_name"] for part in results[-1]["content"] if part["type"] == "tool_reference"]
        assert found[0] in loaded and tools[found[0]]["defer_loading"] is True
        call = ToolUseBlock(type="tool_use", id="toolu_2", name=found[0], input={"city": "Oslo"})
    else:
        forecast = json.loads(results[-1]["content"][0]["text"])
        return {"role": "assistant", "content": [{"type": "text", "text": f"{forecast['temperature']} degrees"}]}
    assert call.name in loaded, f"the model cannot call {call.name}: its definition was never loaded"
    return {"role": "assistant", "content": [call.model_dump(exclude_none=True)]}


def check_anthropic_request(request: dict[str, Any]) -> None:
    """The request as the Messages API's types take it, and each tool and tool result as the beta API's too."""
    from anthropic.types import MessageParam, TextBlockParam, ToolParam, ToolReferenceBlockParam, ToolResultBlockParam
    from anthropic.types.beta import BetaToolParam, BetaToolReferenceBlockParam, BetaToolResultBlockParam
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    fits(MessageCreateParamsNonStreaming, request)
    for tool in request["tools"]:
        fits(ToolParam, tool)
        fits(BetaToolParam, tool)
    for message in request["messages"]:
        fits(MessageParam, message)
        for block in message["content"] if isinstance(message["content"], list) else ():
            if block["type"] == "tool_result":
                fits(ToolResultBlockParam, block)
                fits(BetaToolResultBlockParam, block)
                for part in block["content"]:
                    fits(ToolReferenceBlockParam if part["type"] == "tool_reference" else TextBlockParam, part)
                    if part["type"] == "tool_reference":
                        fits(BetaToolReferenceBlockParam, part)


async def test_anthropic_defers_all_but_pinned_tools_and_answers_its_search_with_tool_references(
    hub_module: Any,
) -> None:
    from anthropic.types import ToolResultBlockParam

    async with hub_module.Hub.connect(weather=stdio(WEATHER), notes=stdio(NOTES)) as hub:
        deferred = hub.deferred_tools("anthropic", pinned=["notes__search"])
        tools = deferred.tools
        assert [tool["name"] for tool in tools[:2]] == ["notes__search", "search_tools"]
        assert "defer_loading" not in tools[0] and "defer_loading" not in tools[1]
        assert all(tool["defer_loading"] is True for tool in tools[2:])
        assert {tool["name"] for tool in tools[2:]} == set(hub.live_tools) - {"notes__search"}

        messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
        while True:
            request = {"model": "claude-opus-4-5", "max_tokens": 1024, "messages": messages, "tools": deferred.tools}
            check_anthropic_request(request)
            reply = anthropic_model(request)
            messages.append(reply)
            calls = [block for block in reply["content"] if block["type"] == "tool_use"]
            if not calls:
                break
            messages.append({"role": "user", "content": [await deferred.answer(call) for call in calls]})

        search_answer, tool_answer = messages[2]["content"][0], messages[4]["content"][0]
        assert search_answer["tool_use_id"] == "toolu_1"
        references = [part["tool_name"] for part in search_answer["content"]]
        assert references[0] == "weather__get_forecast" and "notes__search" not in references  # pinned is loaded
        assert tool_answer["tool_use_id"] == "toolu_2" and tool_answer["is_error"] is False
        assert messages[-1]["content"][0]["text"] == "22.5 degrees"  # from the real server's answer

        wrong = await deferred.answer({"type": "tool_use", "id": "t", "name": "weather__get_forecast", "input": {}})
        assert wrong["is_error"] is True and "'city' is a required property" in wrong["content"][0]["text"]
        fits(ToolResultBlockParam, wrong)
        nothing = await deferred.answer({"id": "t", "name": "search_tools", "input": {"query": "zzqx"}})
        assert nothing["content"] == [{"type": "text", "text": "No tool matched; describe the task in other words."}]


def test_schema_examples_become_anthropic_input_examples_where_they_fit() -> None:
    from anthropic.types import ToolParam

    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "examples": [{"city": "Oslo"}, {"city": 3}],
    }
    tool = HubTool("weather__get_forecast", "weather", "weather", "get_forecast", "Forecast.", schema)
    definition = anthropic_tool(tool)
    fits(ToolParam, definition)
    assert definition["input_examples"] == [{"city": "Oslo"}]
    assert definition["input_schema"]["examples"] == [{"city": "Oslo"}, {"city": 3}]  # one did not fit: kept
    fitting = anthropic_tool(HubTool("w__f", "w", "w", "f", "F.", {**schema, "examples": [{"city": "Rome"}]}))
    assert fitting["input_examples"] == [{"city": "Rome"}] and "examples" not in fitting["input_schema"]
    assert "input_examples" not in anthropic_tool(HubTool("w__f", "w", "w", "f", "F.", {"type": "object"}))


# -- OpenAI ---------------------------------------------------------------------------------------------


def openai_model(request: dict[str, Any]) -> list[Any]:
    """Stands in for a Responses API model: a client tool search, then a call of the first function the
    search loaded (by namespace and name), then a message."""
    from openai.types.responses import ResponseFunctionToolCall, ResponseToolSearchCall

    items = request["input"]
    if len(items) == 1:
        search = {"query": TASK, "limit": 3}
        return [ResponseToolSearchCall(id="ts_1", call_id="call_1", type="tool_search_call", arguments=search,
                                       execution="client", status="completed")]  # fmt: skip
    if items[-1]["type"] == "tool_search_output":
        namespace = items[-1]["tools"][0]
        function = namespace["tools"][0]
        assert function["defer_loading"] is True
        return [ResponseFunctionToolCall(type="function_call", call_id="call_2", namespace=namespace["name"],
                                         name=function["name"], arguments='{"city": "Oslo"}')]  # fmt: skip
    forecast = json.loads(items[-1]["output"])
    return [{"role": "assistant", "content": f"{forecast['temperature']} degrees"}]


def check_openai_request(request: dict[str, Any]) -> None:
    from openai.types.responses import (
        namespace_tool_param,
        response_input_item_param,
        tool_search_output_namespace_tool_param,
    )
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
    from openai.types.responses.response_tool_search_output_item_param_param import (
        ResponseToolSearchOutputItemParamParam,
    )
    from openai.types.responses.tool_search_tool_param import ToolSearchToolParam

    fits(ResponseCreateParamsNonStreaming, request)
    for tool in request["tools"]:
        if tool["type"] == "namespace":
            fits(namespace_tool_param.NamespaceToolParam, tool)
            for function in tool["tools"]:
                fits(namespace_tool_param.ToolFunction, function)
        else:
            fits(ToolSearchToolParam, tool)
    for item in request["input"]:
        if item.get("type") == "tool_search_call":
            fits(response_input_item_param.ToolSearchCall, item)
        elif item.get("type") == "tool_search_output":
            fits(ResponseToolSearchOutputItemParamParam, item)
            for namespace in item["tools"]:
                fits(tool_search_output_namespace_tool_param.ToolSearchOutputNamespaceToolParam, namespace)
                for function in namespace["tools"]:
                    fits(tool_search_output_namespace_tool_param.ToolFunction, function)
        elif item.get("type") == "function_call_output":
            fits(response_input_item_param.FunctionCallOutput, item)


async def test_openai_namespaces_per_server_and_a_client_tool_search(hub_module: Any) -> None:
    from openai.types.responses import ResponseFunctionToolCall, response_input_item_param

    async with hub_module.Hub.connect(weather=stdio(WEATHER), notes=stdio(NOTES)) as hub:
        deferred = hub.deferred_tools("openai", pinned=["weather__search"])
        tools = deferred.tools
        assert [tool["type"] for tool in tools] == ["namespace", "namespace", "tool_search"]
        weather, notes = tools[0], tools[1]  # the namespace holding a pinned tool comes first
        assert (weather["name"], weather["description"]) == ("weather", "Forecasts for any city, in either unit.")
        assert notes["description"] == "A small notebook: search notes by text and tag, add new ones."
        assert weather["tools"][0]["name"] == "search" and "defer_loading" not in weather["tools"][0]
        assert all(function["defer_loading"] is True for function in weather["tools"][1:] + notes["tools"])
        assert tools[2]["execution"] == "client"

        items: list[Any] = [{"role": "user", "content": TASK}]
        while True:
            request = {"model": "gpt-5.4", "input": items, "tools": deferred.tools}
            check_openai_request(request)
            output = openai_model(request)
            calls = [item for item in output if getattr(item, "type", None) in ("tool_search_call", "function_call")]
            items += [item.model_dump(exclude_none=True) if hasattr(item, "model_dump") else item for item in output]
            if not calls:
                break
            items += [await deferred.answer(call) for call in calls]

        search_output = items[2]
        assert search_output["call_id"] == "call_1" and search_output["execution"] == "client"
        found = [(namespace["name"], function["name"]) for namespace in search_output["tools"] for function in namespace["tools"]]  # fmt: skip
        assert found[0] == ("weather", "get_forecast") and ("weather", "search") not in found  # pinned is loaded
        assert items[4]["call_id"] == "call_2" and json.loads(items[4]["output"])["conditions"] == "sunny"
        assert items[-1]["content"] == "22.5 degrees"

        unknown = ResponseFunctionToolCall(type="function_call", call_id="c", name="nope", arguments="{}")
        answered = await deferred.answer(unknown)
        assert "the hub has no tool 'nope'" in answered["output"]
        fits(response_input_item_param.FunctionCallOutput, answered)


# -- Gemini ---------------------------------------------------------------------------------------------


def gemini_model(contents: list[dict[str, Any]], tools: list[dict[str, Any]]) -> genai.Part:
    """Stands in for Gemini: calls `search_tools`, then the first tool the search found (which the request
    now declares), then answers."""
    from google.genai import types as genai

    declared = [declaration["name"] for tool in tools for declaration in tool["functionDeclarations"]]
    if len(contents) == 1:
        return genai.Part(function_call=genai.FunctionCall(id="fc_1", name="search_tools", args={"query": TASK}))
    response = contents[-1]["parts"][0]["functionResponse"]
    if response["name"] == "search_tools":
        first = response["response"]["output"]["tools"][0]["name"]
        assert first in declared, "a tool the search found is declared in the next request"
        return genai.Part(function_call=genai.FunctionCall(id="fc_2", name=first, args={"city": "Oslo"}))
    return genai.Part(text=f"{response['response']['output']['temperature']} degrees")


async def test_gemini_declares_the_tools_a_search_found(hub_module: Any) -> None:
    from google.genai import types as genai

    async with hub_module.Hub.connect(weather=stdio(WEATHER), notes=stdio(NOTES)) as hub:
        deferred = hub.deferred_tools("gemini", pinned=["notes__add_note"])
        first_tools = deferred.tools
        names = [declaration["name"] for declaration in first_tools[0]["functionDeclarations"]]
        assert names == ["notes__add_note", "search_tools"]

        contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": TASK}]}]
        while True:
            tools = deferred.tools
            for tool in tools:
                genai.Tool.model_validate(tool)
            for content in contents:
                genai.Content.model_validate(content)
            part = gemini_model(contents, tools)
            contents.append(
                {"role": "model", "parts": [part.model_dump(mode="json", by_alias=True, exclude_none=True)]}
            )
            if part.function_call is None:
                break
            contents.append({"role": "user", "parts": [await deferred.answer(part)]})

        assert deferred.loaded[0] == "weather__get_forecast" and "notes__add_note" not in deferred.loaded
        declared = [declaration["name"] for declaration in deferred.tools[0]["functionDeclarations"]]
        assert declared == ["notes__add_note", "search_tools", *deferred.loaded]
        assert contents[4]["parts"][0]["functionResponse"]["id"] == "fc_2"
        assert part.text == "22.5 degrees"


# -- every provider -------------------------------------------------------------------------------------


def test_unknown_provider_or_pinned_tool_is_refused_before_anything_connects(hub_module: Any) -> None:
    Hub = hub_module.Hub
    with pytest.raises(ValueError, match="unknown provider 'mistral'; use one of anthropic, openai, gemini"):
        Hub.deferred_tools("mistral")
    with pytest.raises(hub_module.UnknownQualifiedToolError, match=r"weather__get_forcast.*did you mean"):
        Hub.deferred_tools("anthropic", pinned=["weather__get_forcast"])
    with pytest.raises(hub_module.HubError, match="connect the hub"):
        asyncio.run(Hub.deferred_tools("anthropic").answer({"id": "t", "name": "weather__search", "input": {}}))


def test_filters_leave_tools_out_of_the_request_and_of_every_search(hub_module: Any) -> None:
    no_alerts = hub_module.ToolFilter(exclude=["send_alert"])
    deferred = hub_module.Hub.deferred_tools("anthropic", filters={"weather": no_alerts})
    offered = {tool["name"] for tool in deferred.tools}
    assert "weather__send_alert" not in offered and {"weather__get_forecast", "notes__add_note"} <= offered
    search = {"id": "t", "name": "search_tools", "input": {"query": "raise an alert or get a forecast"}}
    unfiltered = asyncio.run(hub_module.Hub.deferred_tools("anthropic").answer(search))["content"]
    assert "weather__send_alert" in [part["tool_name"] for part in unfiltered]
    found = [part["tool_name"] for part in asyncio.run(deferred.answer(search))["content"]]
    assert "weather__get_forecast" in found and "weather__send_alert" not in found


_BODIES = """
import asyncio, json
from clients.hub import Hub

pinned = {"weather__search", "notes__add_note"}  # a set: its order changes with the hash seed
bodies = []
for provider in ("anthropic", "openai", "gemini"):
    deferred = Hub.deferred_tools(provider, pinned=pinned)
    bodies.append(deferred.tools)
search = Hub.deferred_tools("openai", pinned=pinned).answer(
    {"type": "tool_search_call", "call_id": "c", "arguments": {"query": "add a note or get a forecast"}}
)
bodies.append(asyncio.run(search))
print(json.dumps(bodies))
"""


def test_two_hubs_built_apart_give_byte_identical_request_bodies(tmp_path: Path) -> None:
    """The same tools in the same order and bytes, whichever hub built them and whatever the hash seed,
    so a provider's prompt cache survives; pinned tools come first, by name."""
    outputs = []
    for folder, seed, reverse in (("first", "0", False), ("second", "12345", True)):
        generate(tmp_path / folder / "clients", reverse=reverse)
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([PY, "-c", _BODIES], cwd=tmp_path / folder, env=env, capture_output=True, check=True)
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1]
    anthropic, openai, gemini, _ = json.loads(outputs[0])
    assert [tool["name"] for tool in anthropic[:3]] == ["notes__add_note", "weather__search", "search_tools"]
    assert [namespace["tools"][0]["name"] for namespace in openai[:2]] == ["add_note", "search"]
    assert [declaration["name"] for declaration in gemini[0]["functionDeclarations"]] == [
        "notes__add_note",
        "weather__search",
        "search_tools",
    ]


DEMO_OUTPUT = {
    "anthropic": [
        "['notes__search', 'search_tools']",
        "{'type': 'tool_reference', 'tool_name': 'weather__get_forecast'}",
        "sunny, 22.5 degrees",
    ],
    "openai": [
        "[('namespace', 'weather'), ('namespace', 'notes'), ('tool_search', None)]",
        "[('weather', ['get_forecast', 'celsius_to_fahrenheit', 'send_alert'])]",
        "sunny, 22.5 degrees",
    ],
    "gemini": [
        "['weather__get_forecast', 'weather__search', 'weather__celsius_to_fahrenheit', 'weather__send_alert']",
        "sunny, 22.5 degrees",
    ],
}


@pytest.fixture(scope="module")
def demo_clients(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden hub case generated as `clients/`, as `mcp-stubgen sync` writes it for the documented loops."""
    root = tmp_path_factory.mktemp("demo")
    generate(root / "clients")
    return root


@pytest.mark.parametrize("provider", list(DEMO_OUTPUT))
def test_the_documented_deferred_loading_loops_run_against_the_bundled_servers(
    provider: str, demo_clients: Path
) -> None:
    page = (REPO / "docs" / "hub.md").read_text(encoding="utf-8")
    scripts = [body for body in re.findall(r"```python\n(.*?)```\n", page, re.S) if "deferred_tools(" in body]
    script = next(body for body in scripts if f'deferred_tools("{provider}"' in body)
    (demo_clients / f"{provider}_demo.py").write_text(script, encoding="utf-8")
    result = subprocess.run(
        [PY, str(demo_clients / f"{provider}_demo.py")],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(demo_clients)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == DEMO_OUTPUT[provider]
