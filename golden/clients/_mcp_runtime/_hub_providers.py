"""The hub's tools in the LLM providers' own deferred-loading forms, and the answers to the model's calls.

Anthropic and OpenAI load a deferred tool's definition only when a tool search finds it, so a request
can offer hundreds of tools for the price of a few. This file is copied verbatim into `_mcp_runtime/`
beside the hub; it imports only the standard library and its siblings (and `mcp` and `jsonschema` where
they are used, as `_hub_runtime.py` does), so importing the hub stays cheap.

- Anthropic (Messages API): every tool with `defer_loading: true` but the pinned ones, and a custom
  `search_tools` tool the hub answers with `tool_reference` blocks, one per tool found.
- OpenAI (Responses API): one `namespace` per server, with the server's description, holding its
  functions with `defer_loading: true`, and a `tool_search` tool with `execution: "client"`, whose
  `tool_search_call` the hub answers with a `tool_search_output` holding the functions found.
- Gemini has no deferred loading: the request declares the pinned tools and the hub's `search_tools`
  meta-tool, and each tool a search finds is declared from the next request on.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ._hub_catalog import (
    QUALIFIED_NAME_LIMIT,
    SEARCH_TOOLS,
    Filters,
    HubTool,
    api_safe,
    search_result,
    selected,
    tool_definition,
    tool_result,
)

if TYPE_CHECKING:
    from mcp.types import CallToolResult

    from ._hub_runtime import Catalog
    from ._schema_check import SchemaCheck

__all__ = ["PROVIDERS", "DeferredTools", "DeferredToolsMethod", "Provider", "anthropic_tool"]

Provider = Literal["anthropic", "openai", "gemini"]
PROVIDERS: tuple[Provider, ...] = ("anthropic", "openai", "gemini")

Call = Callable[[str, Mapping[str, Any]], Awaitable["CallToolResult"]]
"""`hub.call`: what runs a tool the model calls."""

_SEARCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "The task, in plain words."},
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 50,
            "description": "At most this many tools.",
        },
    },
    "required": ["query"],
}
"""What the model sends to the provider-native tool search (Anthropic's `search_tools`, OpenAI's `tool_search`)."""


def anthropic_tool(tool: HubTool) -> dict[str, Any]:
    """The tool as Anthropic's Messages API takes it, its schema's `examples` moved to `input_examples`.

    Only examples that are objects the input schema accepts move (the API refuses the request over
    one that does not fit); the rest stay in the schema, where they are only an annotation, and so
    does one that takes more than the step budget to check.
    """
    definition = tool_definition(tool, "anthropic")
    schema = definition["input_schema"]
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        from ._schema_check import CheckPastBudget, SchemaCheck

        check = SchemaCheck(dict(tool.input_schema))

        def fits(example: Any) -> bool:
            try:
                return check.problem(example) is None
            except CheckPastBudget:
                return False

        fitting = [example for example in examples if isinstance(example, dict) and fits(example)]
        if len(fitting) == len(examples):
            del schema["examples"]
        if fitting:
            definition["input_examples"] = fitting
    return definition


class DeferredTools:
    """One conversation's tools in a provider's deferred-loading form, and the answers to its calls.

    `tools` is the request's tool list: pinned tools loaded, the others deferred behind a search the
    hub answers. The same catalog, pins and filters give the same bytes in every process, so a
    provider's prompt cache survives. `answer(call)` takes the model's search or tool call (a dict as
    on the wire, or the provider SDK's object) and returns what goes back in the provider's shape.
    """

    def __init__(
        self,
        catalog: Catalog,
        call: Call | None,
        provider: Provider,
        *,
        pinned: Collection[str] = (),
        filters: Filters = None,
        limit: int = 5,
    ) -> None:
        if provider not in PROVIDERS:
            raise ValueError(f"unknown provider {provider!r}; use one of {', '.join(PROVIDERS)}")
        unknown = sorted(set(pinned) - set(catalog.tools))
        if unknown:
            raise catalog.unknown(unknown[0])
        self.provider = provider
        self.limit = limit
        self._catalog = catalog
        self._call = call
        offered = selected(sorted(catalog.tools.values(), key=_by_name), filters)
        self._offered = {tool.qualified_name: tool for tool in offered}
        self.pinned = tuple(name for name in self._offered if name in pinned)
        """The pinned tools the filters let through, by name: loaded from the start, never searched for."""
        self.loaded: list[str] = []
        """Gemini only: the tools searches found, in the order found, declared from the next request on."""
        self._functions = _openai_functions(offered) if provider == "openai" else {}
        self._by_function = {function: name for name, function in self._functions.items()}
        servers = sorted({tool.server for tool in offered})
        self._search_tool = HubTool(
            qualified_name=SEARCH_TOOLS,
            server="",
            client="",
            tool=SEARCH_TOOLS,
            description=(
                f"Find the tools for a task among {len(offered) - len(self.pinned)} more tools of the servers "
                f"{', '.join(servers)}. Describe the task in plain words; the tools found, best first, can be "
                "called next."
            ),
            input_schema=_SEARCH_PARAMETERS,
        )
        self._search_check: SchemaCheck | None = None
        self._request_tools: list[dict[str, Any]] | None = None

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The request's `tools`: pinned tools first (by name), then the search, then the deferred rest
        (OpenAI: the search last, after one namespace per server, those holding pinned tools first).

        Anthropic's and OpenAI's are built once (the same list on every turn); Gemini's grow with
        what the searches found."""
        if self.provider == "gemini":
            names = [*self.pinned, SEARCH_TOOLS, *self.loaded]
            tools = {**self._offered, SEARCH_TOOLS: self._search_tool}
            return [
                {"functionDeclarations": [tool_definition(tools[name], "gemini") for name in names]}
            ]
        if self._request_tools is None:
            self._request_tools = self._deferred_tools()
        return list(self._request_tools)

    def _deferred_tools(self) -> list[dict[str, Any]]:
        """Anthropic's or OpenAI's tools, all of them, the deferred ones marked."""
        if self.provider == "anthropic":
            pinned = [anthropic_tool(self._offered[name]) for name in self.pinned]
            deferred = [
                {**anthropic_tool(tool), "defer_loading": True}
                for name, tool in self._offered.items()
                if name not in self.pinned
            ]
            return [*pinned, tool_definition(self._search_tool, "anthropic"), *deferred]
        search = tool_definition(self._search_tool, "openai")["function"]
        client_search = {
            "type": "tool_search",
            "execution": "client",
            "description": search["description"],
            "parameters": search["parameters"],
        }
        return [*self._namespaces(self._offered.values(), request=True), client_search]

    async def answer(self, call: Any) -> dict[str, Any]:
        """What goes back for the model's call: the tools a search found, or the result of the tool it called.

        Anthropic: a `tool_use` block, answered with a `tool_result` block (for a search, one
        `tool_reference` block per tool found). OpenAI: a `tool_search_call` item, answered with a
        `tool_search_output` item, or a `function_call` item, answered with a `function_call_output`.
        Gemini: a `functionCall` (or the part holding it), answered with a `functionResponse` part.
        A call the model got wrong (an unknown tool, arguments a schema refuses) is answered as an
        error, so the model can correct itself; nothing was sent to a server.
        """
        if self.provider == "anthropic":
            call_id, name, arguments = (
                _field(call, "id"),
                _field(call, "name"),
                _field(call, "input"),
            )
            if name == SEARCH_TOOLS:
                found = self._search(arguments)
                if isinstance(found, str):
                    return tool_result(_error(found), "anthropic", call_id=call_id)
                return _tool_references(call_id, found)
            return tool_result(await self._run(name, arguments), "anthropic", call_id=call_id)
        if self.provider == "openai":
            kind, call_id = _field(call, "type"), _field(call, "call_id")
            if kind == "tool_search_call":
                found = self._search(_arguments(_field(call, "arguments")))
                tools = self._namespaces([] if isinstance(found, str) else found, request=False)
                return {
                    "type": "tool_search_output",
                    "execution": "client",
                    "call_id": call_id,
                    "tools": tools,
                }
            if kind != "function_call":
                raise ValueError(f"hub: an OpenAI {kind!r} item is not a call the hub answers")
            function = (_field(call, "namespace", None), _field(call, "name"))
            result = await self._run(
                self._by_function.get(function, function[1]), _arguments(_field(call, "arguments"))
            )
            output = tool_result(result, "openai", call_id=call_id)["content"]
            return {"type": "function_call_output", "call_id": call_id, "output": output}
        function_call = (
            _field(call, "functionCall", None) or _field(call, "function_call", None) or call
        )
        call_id, name = _field(function_call, "id", None), _field(function_call, "name")
        arguments = _field(function_call, "args", None) or {}
        if name != SEARCH_TOOLS:
            return tool_result(
                await self._run(name, arguments), "gemini", call_id=call_id, name=name
            )
        found = self._search(arguments)
        if isinstance(found, str):
            return tool_result(_error(found), "gemini", call_id=call_id, name=name)
        self.loaded += [
            tool.qualified_name for tool in found if tool.qualified_name not in self.loaded
        ]
        response: dict[str, Any] = {
            "name": name,
            "response": {"output": search_result(found, "summaries")},
        }
        if call_id is not None:
            response["id"] = call_id
        return {"functionResponse": response}

    def _search(self, arguments: Any) -> list[HubTool] | str:
        """The tools a search finds, best first, among those the filters let through and not pinned
        (those are loaded already); or why the search's arguments do not fit its schema."""
        from ._hub_runtime import ArgumentsError, _check_with_jsonschema
        from ._schema_check import SchemaCheck, offline_validator

        if self._search_check is None:
            self._search_check = SchemaCheck(_SEARCH_PARAMETERS)

        if self._search_check.problem(arguments) is not None:
            try:
                _check_with_jsonschema(
                    self._search_tool, offline_validator(_SEARCH_PARAMETERS), arguments
                )
            except ArgumentsError as error:
                return str(error)
        searchable = {name for name in self._offered if name not in self.pinned}
        limit = arguments.get("limit", self.limit)
        return self._catalog.index.search(
            arguments["query"], limit, lambda tool: tool.qualified_name in searchable
        )

    async def _run(self, name: str, arguments: Any) -> CallToolResult:
        """The tool's result, or an error result for a call the model got wrong."""
        from ._hub_runtime import ArgumentsError, HubError, UnknownQualifiedToolError

        if self._call is None:
            raise HubError(
                f"hub: the model called {name!r}; connect the hub (Hub.connect) to answer tool calls"
            )
        try:
            return await self._call(name, arguments if isinstance(arguments, Mapping) else {})
        except (ArgumentsError, UnknownQualifiedToolError) as error:
            return _error(str(error))

    def _namespaces(self, tools: Iterable[HubTool], *, request: bool) -> list[dict[str, Any]]:
        """OpenAI's namespaces over the tools, one per server. For the `request`: those holding pinned
        tools first, then by name, pinned functions first in each; for a search's answer: in the order
        of each server's best tool, the tools best first."""
        by_server: dict[str, list[HubTool]] = {}
        for tool in tools:
            by_server.setdefault(tool.server, []).append(tool)
        servers = list(by_server)
        if request:
            for members in by_server.values():
                members.sort(
                    key=lambda tool: (tool.qualified_name not in self.pinned, tool.qualified_name)
                )
            servers.sort(
                key=lambda server: (by_server[server][0].qualified_name not in self.pinned, server)
            )
        namespaces = []
        for server in servers:
            functions = [self._openai_function(tool) for tool in by_server[server]]
            about = self._catalog.about.get(server) or f"The tools of the MCP server {server!r}."
            name = self._functions[by_server[server][0].qualified_name][0]
            namespaces.append(
                {"type": "namespace", "name": name, "description": about, "tools": functions}
            )
        return namespaces

    def _openai_function(self, tool: HubTool) -> dict[str, Any]:
        definition = tool_definition(tool, "openai")["function"]
        function: dict[str, Any] = {
            "type": "function",
            "name": self._functions[tool.qualified_name][1],
            "description": definition["description"],
            "parameters": definition["parameters"],
            "strict": False,
        }
        if tool.qualified_name not in self.pinned:
            function["defer_loading"] = True
        return function


class DeferredToolsMethod(Protocol):
    """`Hub.deferred_tools`: one conversation's `DeferredTools` for a provider."""

    def __call__(
        self,
        provider: Provider,
        *,
        pinned: Collection[str] = (),
        filters: Filters = None,
        limit: int = 5,
    ) -> DeferredTools: ...


def _tool_references(call_id: str, found: Sequence[HubTool]) -> dict[str, Any]:
    """Anthropic's answer to a search: one `tool_reference` per tool found, whose definition the API then loads."""
    content: list[dict[str, Any]] = [
        {"type": "tool_reference", "tool_name": tool.qualified_name} for tool in found
    ]
    if not content:
        content = [{"type": "text", "text": "No tool matched; describe the task in other words."}]
    return {"type": "tool_result", "tool_use_id": call_id, "content": content}


def _error(text: str) -> CallToolResult:
    from mcp.types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _openai_functions(tools: Sequence[HubTool]) -> dict[str, tuple[str | None, str]]:
    """Each tool's OpenAI namespace and function name, by qualified name: the server's id and the tool's
    own name, both made API-safe; a name that is not unique or valid in its namespace stays qualified."""
    namespaces: dict[str, str] = {}
    for server in sorted({tool.server for tool in tools}):
        namespace = api_safe(server) or "_"
        while namespace in namespaces.values():
            namespace += "_"
        namespaces[server] = namespace
    wanted: dict[tuple[str, str], list[str]] = {}
    for tool in tools:
        wanted.setdefault((namespaces[tool.server], api_safe(tool.tool)), []).append(
            tool.qualified_name
        )
    functions: dict[str, tuple[str | None, str]] = {}
    for (namespace, name), owners in wanted.items():
        for owner in owners:
            valid = len(owners) == 1 and 0 < len(name) <= QUALIFIED_NAME_LIMIT
            functions[owner] = (namespace, name if valid else owner)
    return functions


def _field(value: Any, key: str, *default: Any) -> Any:
    """A key of a dict as on the wire, or the attribute of the provider SDK's object."""
    if isinstance(value, Mapping):
        return value.get(key, *default) if default else value[key]
    return getattr(value, key, *default)


def _arguments(value: Any) -> Any:
    """OpenAI's arguments: a JSON string for a function call, an object for a tool search."""
    return json.loads(value) if isinstance(value, str) else value


def _by_name(tool: HubTool) -> str:
    return tool.qualified_name
