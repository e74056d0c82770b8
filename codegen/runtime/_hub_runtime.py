"""Helpers for the hub that mcp-stubgen generates over several servers' typed clients.

This file is copied verbatim into the generated hub package, so it imports only `mcp`, `pydantic`
(and, for type checking, pydantic's own `pydantic_core`) and the standard library. Do not edit the copy: run `mcp-stubgen sync` to refresh it.

`pydantic` is imported where arguments are validated, and `mcp` only for type checking, as in each
server package's `_runtime.py`: importing the hub should cost neither (pydantic alone takes about a
tenth of a second), an application pays for them when it first calls a tool or connects.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypedDict

if TYPE_CHECKING:
    from mcp import Client, ClientSession
    from mcp.types import CallToolResult
    from pydantic import BaseModel
    from pydantic_core import ErrorDetails, InitErrorDetails

__all__ = ["GeneratedHub", "HubError", "HubTool", "ToolDefinition", "UnknownQualifiedToolError"]


class HubError(Exception):
    """Base of the errors the hub itself raises; the servers' own clients raise their own errors."""


class UnknownQualifiedToolError(HubError, LookupError):
    """A qualified name that is in none of the hub's servers' snapshots."""

    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        self.suggestions = tuple(difflib.get_close_matches(name, known, n=3))
        hint = f"; did you mean {', '.join(repr(match) for match in self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"the hub has no tool {name!r}{hint} (it has {len(known)} tools: see Hub.tools)")


@dataclass(frozen=True)
class HubTool:
    """One entry of the namespaced catalog: where a qualified name routes, kept explicit, never parsed."""

    qualified_name: str
    server: str
    """The server id from the project config, the qualified name's namespace."""
    client: str
    """The attribute of the hub holding the owning server's typed client."""
    tool: str
    """The tool's own name on its server, sent on the wire."""
    description: str | None
    input_schema: Mapping[str, Any]
    """The server's input JSON Schema from the snapshot, as the server declared it."""
    load_input_model: Callable[[], type[BaseModel]]
    """Returns the tool's input model; called on use, so importing the hub imports no models."""

    @property
    def input_model(self) -> type[BaseModel]:
        """The generated Pydantic model the tool's arguments are validated with."""
        return self.load_input_model()


class ToolDefinition(TypedDict):
    """A tool as LLM APIs take it: `name`, `description` and `input_schema` (JSON Schema)."""

    name: str
    description: str
    input_schema: dict[str, Any]


class _Connected(Protocol):
    """What the hub needs of a generated client; every generated client's base class provides it."""

    @property
    def mcp_client(self) -> Client | ClientSession: ...

    async def verify(self) -> None: ...


class GeneratedHub:
    """The base of the generated `Hub`: the catalog lookup, argument validation and routing.

    The generated subclass fills `tools` from the snapshots and sets one typed client attribute
    per server; everything that does not differ between projects lives here and is tested once.
    """

    tools: ClassVar[Mapping[str, HubTool]] = {}

    def __init__(self, clients: Mapping[str, _Connected]) -> None:
        self.clients: Mapping[str, _Connected] = dict(clients)

    def tool_definitions(self) -> list[ToolDefinition]:
        """Every qualified tool, sorted by name, ready for an LLM API's tool list; the schemas are copies."""
        return [
            ToolDefinition(
                name=name,
                description=self.tools[name].description or "",
                input_schema=copy.deepcopy(dict(self.tools[name].input_schema)),
            )
            for name in sorted(self.tools)
        ]

    async def call(self, qualified_name: str, arguments: Mapping[str, Any] | None = None) -> CallToolResult:
        """Validate `arguments` against the tool's input model, then call it on the server that owns it.

        Raises `UnknownQualifiedToolError` for a name not in the catalog and `pydantic.ValidationError`
        for arguments the input model rejects (unknown argument names included), before anything is
        sent. The server's result comes back as it is, `isError` included, so an agent can show the
        model what went wrong.
        """
        route = self.tools.get(qualified_name)
        if route is None:
            raise UnknownQualifiedToolError(qualified_name, sorted(self.tools))
        payload = validate_arguments(route.input_model, dict(arguments or {}))
        return await self.clients[route.client].mcp_client.call_tool(route.tool, payload)

    async def verify(self) -> None:
        """Check every server's live tools against its snapshot; raises that client's `CatalogDriftError`."""
        for name in sorted(self.clients):
            await self.clients[name].verify()


def validate_arguments(model: type[BaseModel], arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments as the server expects them (wire names, JSON values), or one `ValidationError`.

    A name the model does not declare is an error unless the schema allows extra properties: an
    agent's misspelt argument must not be dropped silently. It is reported together with the
    model's own errors, so one answer tells the agent everything to fix.
    """
    from pydantic import ValidationError

    unknown: list[InitErrorDetails] = []
    if model.model_config.get("extra") != "allow":
        known = set(model.model_fields) | {field.alias for field in model.model_fields.values() if field.alias}
        unknown = [
            {"type": "extra_forbidden", "loc": (name,), "input": arguments[name]}
            for name in sorted(arguments)
            if name not in known
        ]
    try:
        validated = model.model_validate(arguments)
    except ValidationError as error:
        if not unknown:
            raise
        found = [_init_details(detail) for detail in error.errors()]
        raise ValidationError.from_exception_data(model.__name__, [*unknown, *found]) from None
    if unknown:
        raise ValidationError.from_exception_data(model.__name__, unknown)
    return validated.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _init_details(detail: ErrorDetails) -> InitErrorDetails:
    """A reported error back in the form `ValidationError.from_exception_data` takes."""
    init: InitErrorDetails = {"type": detail["type"], "loc": detail["loc"], "input": detail["input"]}
    if "ctx" in detail:
        init["ctx"] = detail["ctx"]
    return init
