"""A server's handshake and list results read as the MCP SDK reads them, without importing it when
it is not needed.

The SDK validates a result against the negotiated revision's wire model, then parses it into its
version-free model, which drops unknown keys and `null`s and coerces loose values (`"yes"` for
`true`, `1` for `1.0`). Importing those models costs a cold interpreter more than everything else
`sync` does with a warm cache. Almost every real result is *plain*: only keys the models know, each
value already of its exact JSON type. The SDK hands such a result back unchanged, so a plain result
is taken as it came, after a walk over plain Python values; anything else (and every invalid result)
goes through the SDK's own models, for the SDK's own output and errors. `tests/test_snapshot_wire.py`
holds the two ways to one answer.

The protocol constants mirror `mcp_types`, which cannot be imported without its models; a test
compares them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from codegen.runtime._runtime import LIST_ENTRIES as LIST_ENTRIES  # the list methods and their entries' keys
from codegen.runtime._runtime import LeftOutEntry, read_page

KNOWN_PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
HANDSHAKE_PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_PROTOCOL_VERSIONS = ("2026-07-28",)
LATEST_HANDSHAKE_VERSION = HANDSHAKE_PROTOCOL_VERSIONS[-1]
LATEST_MODERN_VERSION = MODERN_PROTOCOL_VERSIONS[-1]

CONNECTION_CLOSED = -32000
UNSUPPORTED_PROTOCOL_VERSION = -32022
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
NOT_AN_ANSWER = -32700
"""The code of the error an answer that is neither a result object nor an error stands for: JSON-RPC's
parse error, as the generated clients' runtime gives it."""
NEITHER_RESULT_NOR_ERROR = "its answer holds neither a result object nor an error"

SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
MAX_TTL_MS = 24 * 60 * 60 * 1000
"""The longest a listing is taken as fresh, whatever `ttlMs` says: the SDK's response cache's cap."""

CLIENT_INFO = {"name": "mcp", "version": "0.1.0"}
"""The `clientInfo` the SDK's `Client` sends when it is given none, as discovery always sent it."""

Check = Callable[[Any], bool]


class RemoteError(Exception):
    """A JSON-RPC error answer (or the connection closing before one came: `ConnectionClosed`)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class ConnectionClosed(RemoteError):
    """The connection closing before an answer came. It has the SDK's code for that, -32000, which a
    server may also answer with itself (some answer an unknown `server/discover` so): only this type
    says that nothing was answered."""

    def __init__(self) -> None:
        super().__init__(CONNECTION_CLOSED, "Connection closed")


def _is_str(value: Any) -> bool:
    return type(value) is str


def _is_bool(value: Any) -> bool:
    return type(value) is bool


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_object(value: Any) -> bool:
    return type(value) is dict


def _one_of(*values: str) -> Check:
    return lambda value: type(value) is str and value in values


def _list_of(check: Check) -> Check:
    return lambda value: type(value) is list and all(check(item) for item in value)


def _map_of(check: Check) -> Check:
    return lambda value: type(value) is dict and all(check(item) for item in value.values())


def _model(required: Mapping[str, Check], optional: Mapping[str, Check] | None = None) -> Check:
    """An object whose keys are all known, the required ones present, each value plain: what the SDK
    neither drops from nor changes."""
    fields = {**required, **(optional or {})}

    def check(value: Any) -> bool:
        if type(value) is not dict or any(key not in value for key in required):
            return False
        for key, item in value.items():
            field = fields.get(key)
            if field is None or not field(item):
                return False
        return True

    return check


def _schema(value: Any) -> bool:
    """A tool's input or output schema as every revision's wire model takes it (`type: object` at the
    root, the 2025 revisions' `properties` and `required` shapes); the SDK keeps it as it is."""
    if type(value) is not dict or value.get("type") != "object":
        return False
    properties, required, dialect = value.get("properties"), value.get("required"), value.get("$schema")
    return (
        (properties is None or _map_of(lambda item: type(item) in (dict, bool))(properties))
        and (required is None or _list_of(_is_str)(required))
        and (dialect is None or _is_str(dialect))
    )


def _priority(value: Any) -> bool:
    return type(value) is float and 0.0 <= value <= 1.0


_ICON = _model({"src": _is_str}, {"mimeType": _is_str, "sizes": _list_of(_is_str), "theme": _one_of("light", "dark")})
_ICONS = _list_of(_ICON)
_ANNOTATIONS = _model(
    {}, {"audience": _list_of(_one_of("user", "assistant")), "priority": _priority, "lastModified": _is_str}
)
IMPLEMENTATION = _model(
    {"name": _is_str, "version": _is_str},
    {"title": _is_str, "description": _is_str, "websiteUrl": _is_str, "icons": _ICONS},
)


def _modern_output_schema(value: Any) -> bool:
    """2026-07-28 takes any JSON Schema as a tool's output schema."""
    return type(value) is dict and _optional(value, "$schema", _is_str)


def _tool(output_schema: Check) -> Check:
    return _model(
        {"name": _is_str, "inputSchema": _schema},
        {
            "title": _is_str,
            "description": _is_str,
            "execution": _model({}, {"taskSupport": _one_of("forbidden", "optional", "required")}),
            "outputSchema": output_schema,
            "icons": _ICONS,
            "annotations": _model(
                {},
                {
                    "title": _is_str,
                    "readOnlyHint": _is_bool,
                    "destructiveHint": _is_bool,
                    "idempotentHint": _is_bool,
                    "openWorldHint": _is_bool,
                },
            ),
            "_meta": _is_object,
        },
    )


_DESCRIBED = {
    "title": _is_str,
    "description": _is_str,
    "mimeType": _is_str,
    "icons": _ICONS,
    "annotations": _ANNOTATIONS,
    "_meta": _is_object,
}
_RESOURCE = _model({"name": _is_str, "uri": _is_str}, {**_DESCRIBED, "size": _is_int})
_TEMPLATE = _model({"name": _is_str, "uriTemplate": _is_str}, _DESCRIBED)
_ARGUMENT = _model({"name": _is_str}, {"title": _is_str, "description": _is_str, "required": _is_bool})
_PROMPT = _model(
    {"name": _is_str},
    {"title": _is_str, "description": _is_str, "arguments": _list_of(_ARGUMENT), "icons": _ICONS, "_meta": _is_object},
)
_EMPTY = _model({})
_LIST_CHANGED = _model({}, {"listChanged": _is_bool})
CAPABILITIES = _model(
    {},
    {
        "experimental": _map_of(_is_object),
        "logging": _EMPTY,
        "prompts": _LIST_CHANGED,
        "resources": _model({}, {"subscribe": _is_bool, "listChanged": _is_bool}),
        "tools": _LIST_CHANGED,
        "completions": _EMPTY,
        "extensions": _map_of(_is_object),
        "tasks": _model(
            {}, {"list": _EMPTY, "cancel": _EMPTY, "requests": _model({}, {"tools": _model({}, {"call": _EMPTY})})}
        ),
    },
)
_ENTRIES = {"resources/list": _RESOURCE, "resources/templates/list": _TEMPLATE, "prompts/list": _PROMPT}
_TOOLS = {False: _tool(_schema), True: _tool(_modern_output_schema)}
"""A tool by whether the session is 2026-07-28's, which takes any output schema."""


def _cacheable(result: dict[str, Any]) -> bool:
    """The 2026-07-28 fields every cacheable result carries, as its wire model requires them."""
    ttl = result.get("ttlMs")
    return (
        type(ttl) is int
        and ttl >= 0
        and result.get("cacheScope") in ("public", "private")
        and result.get("resultType") == "complete"
        and _optional(result, "_meta", _is_object)
    )


def _optional(result: dict[str, Any], key: str, check: Check) -> bool:
    return key not in result or result[key] is None or check(result[key])


def plain_page(method: str, version: str, result: Any) -> bool:
    """Whether the SDK would hand this page of `method` back as it came, at `version`."""
    if type(result) is not dict:
        return False
    modern = version in MODERN_PROTOCOL_VERSIONS
    if modern and not _cacheable(result):
        return False
    entry = _TOOLS[modern] if method == "tools/list" else _ENTRIES[method]
    return (
        _list_of(entry)(result.get(LIST_ENTRIES[method]))
        and _optional(result, "nextCursor", _is_str)
        and _optional(result, "_meta", _is_object)
    )


def plain_discover(result: Any) -> bool:
    return (
        type(result) is dict
        and _cacheable(result)
        and _list_of(_is_str)(result.get("supportedVersions"))
        and CAPABILITIES(result.get("capabilities"))
        and _optional(result, "instructions", _is_str)
    )


def plain_initialize(result: Any) -> bool:
    return (
        type(result) is dict
        and _is_str(result.get("protocolVersion"))
        and CAPABILITIES(result.get("capabilities"))
        and IMPLEMENTATION(result.get("serverInfo"))
        and _optional(result, "instructions", _is_str)
        and _optional(result, "_meta", _is_object)
    )


def page(method: str, version: str, result: Any) -> tuple[list[Any], str | None, int, tuple[LeftOutEntry, ...]]:
    """A page's entries as the SDK's models dump them (wire names, no `null`s), its next cursor, its
    `ttlMs` (0 before 2026-07-28), and the entries left out for not being valid MCP, each checked on
    its own (`read_page`); raises pydantic's `ValidationError` where the SDK does for the rest."""
    if plain_page(method, version, result):
        ttl = result["ttlMs"] if version in MODERN_PROTOCOL_VERSIONS else 0
        return result[LIST_ENTRIES[method]], result.get("nextCursor"), ttl, ()
    model, left_out = read_page(method, version, result)
    entries = [entry.model_dump(by_alias=True, exclude_none=True) for entry in getattr(model, _attribute(method))]
    return entries, model.next_cursor, getattr(model, "ttl_ms", 0), left_out


def _validate(validate: Callable[[str, str, Any], None], method: str, version: str, raw: Any) -> None:
    """The SDK's check against the revision's wire model, skipped where it knows no model (as it does)."""
    with contextlib.suppress(KeyError):
        validate(method, version, raw)


def _attribute(method: str) -> str:
    return {"resources/templates/list": "resource_templates"}.get(method, LIST_ENTRIES[method])


def discover_result(version: str, result: Any) -> dict[str, Any]:
    """A `server/discover` result as the SDK's model dumps it; `ValidationError` where the SDK raises it."""
    if plain_discover(result):
        return _known(
            result, ("supportedVersions", "capabilities", "instructions", "ttlMs", "cacheScope", "resultType", "_meta")
        )
    from mcp.client.session import _clamp_inbound_ttl
    from mcp_types import DiscoverResult
    from mcp_types.methods import validate_server_result

    raw = dict(result) if isinstance(result, dict) else result
    if isinstance(raw, dict):
        _clamp_inbound_ttl(raw)
    _validate(validate_server_result, "server/discover", version, raw)
    dumped: dict[str, Any] = DiscoverResult.model_validate(raw, by_name=False).model_dump(
        by_alias=True, exclude_none=True, mode="json"
    )
    return dumped


def initialize_result(result: Any) -> dict[str, Any]:
    """An `initialize` result as the SDK's model dumps it; `ValidationError` where the SDK raises it."""
    if plain_initialize(result):
        return _known(result, ("protocolVersion", "capabilities", "serverInfo", "instructions", "_meta"))
    from mcp_types import InitializeResult

    dumped: dict[str, Any] = InitializeResult.model_validate(result, by_name=False).model_dump(
        by_alias=True, exclude_none=True, mode="json"
    )
    return dumped


def _known(result: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """A plain result's fields the SDK's model has, in its order, without `null`s: its dump."""
    return {key: result[key] for key in keys if result.get(key) is not None}


def stamped_server_info(discovered: dict[str, Any]) -> dict[str, Any] | None:
    """The server's identity from a discover result's `_meta` stamp; absent or malformed reads as None,
    as the SDK reads it (the stamp is for display only)."""
    raw = (discovered.get("_meta") or {}).get(SERVER_INFO_META_KEY)
    if raw is None:
        return None
    if IMPLEMENTATION(raw):
        info: dict[str, Any] = raw
        return info
    from mcp_types import Implementation
    from pydantic import ValidationError

    try:
        return Implementation.model_validate(raw).model_dump(by_alias=True, exclude_none=True, mode="json")
    except ValidationError:
        return None


def supported_versions(error: RemoteError) -> list[str]:
    """The versions a -32022 "Unsupported protocol version" refusal lists, else none."""
    if error.code != UNSUPPORTED_PROTOCOL_VERSION:
        return []
    data = error.data
    if _model({"supported": _list_of(_is_str), "requested": _is_str})(data):
        supported: list[str] = data["supported"]
        return supported
    from mcp_types import UnsupportedProtocolVersionErrorData
    from pydantic import ValidationError

    try:
        return UnsupportedProtocolVersionErrorData.model_validate(data).supported
    except ValidationError:
        return []


def client_capabilities(names: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """What the SDK's `Client` declares, in every revision, for the handlers discovery gives it."""
    declared = {"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": True}}
    return {name: value for name, value in declared.items() if name in names}
