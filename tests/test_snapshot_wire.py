"""Discovery over stdio reads results without the MCP SDK when they are plain (`codegen/snapshot/wire.py`):
whatever it takes as plain must be exactly what the SDK's own reading gives, at every protocol revision,
and anything else must go to the SDK. Real catalogs (the goldens, the fixtures) and each way an entry
can differ from plain are read both ways."""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from mcp.client import caching
from mcp.client.session import DEFAULT_CLIENT_INFO, _clamp_inbound_ttl, _later_revision_fields
from mcp_types import jsonrpc, version
from mcp_types.methods import validate_server_result
from pydantic import ValidationError

from codegen.snapshot import wire

REPO = Path(__file__).resolve().parent.parent
MODELS = {
    "tools/list": mcp_types.ListToolsResult,
    "resources/list": mcp_types.ListResourcesResult,
    "resources/templates/list": mcp_types.ListResourceTemplatesResult,
    "prompts/list": mcp_types.ListPromptsResult,
}
ATTRIBUTES = {"tools/list": "tools", "resources/list": "resources", "resources/templates/list": "resource_templates", "prompts/list": "prompts"}  # fmt: skip
CACHE_FIELDS = {"ttlMs": 5000, "cacheScope": "public", "resultType": "complete"}


def test_constants_are_the_sdks() -> None:
    assert wire.KNOWN_PROTOCOL_VERSIONS == version.KNOWN_PROTOCOL_VERSIONS
    assert wire.HANDSHAKE_PROTOCOL_VERSIONS == version.HANDSHAKE_PROTOCOL_VERSIONS
    assert wire.MODERN_PROTOCOL_VERSIONS == version.MODERN_PROTOCOL_VERSIONS
    assert wire.LATEST_HANDSHAKE_VERSION == version.LATEST_HANDSHAKE_VERSION
    assert wire.LATEST_MODERN_VERSION == version.LATEST_MODERN_VERSION
    codes = (
        "CONNECTION_CLOSED",
        "UNSUPPORTED_PROTOCOL_VERSION",
        "INVALID_REQUEST",
        "METHOD_NOT_FOUND",
    )
    assert {code: getattr(wire, code) for code in codes} == {code: getattr(jsonrpc, code) for code in codes}
    assert wire.SERVER_INFO_META_KEY == mcp_types.SERVER_INFO_META_KEY
    assert wire.MAX_TTL_MS == caching.MAX_TTL_MS
    assert DEFAULT_CLIENT_INFO.model_dump(by_alias=True, exclude_none=True, mode="json") == wire.CLIENT_INFO
    assert set(wire.LIST_ENTRIES) == set(MODELS)


def sdk_page(method: str, protocol: str, result: Any) -> tuple[list[Any], str | None, int]:
    """What the SDK's `ClientSession.send_request` does with a list result, then discovery's dump."""
    raw = copy.deepcopy(result)
    _clamp_inbound_ttl(raw)
    with contextlib.suppress(KeyError):
        validate_server_result(method, protocol, raw)
    raw = {key: value for key, value in raw.items() if key not in _later_revision_fields(method, protocol)}
    model = MODELS[method].model_validate(raw, by_name=False)
    entries = [entry.model_dump(by_alias=True, exclude_none=True) for entry in getattr(model, ATTRIBUTES[method])]
    return entries, model.next_cursor, getattr(model, "ttl_ms", 0)


def catalogs() -> Iterator[dict[str, Any]]:
    for path in sorted((REPO / "golden").glob("*/snapshot.json")):
        yield json.loads(path.read_text())
    for path in sorted((REPO / "tests" / "fixtures" / "catalogs").glob("*.json")):
        yield json.loads(path.read_text())


def real_pages() -> Iterator[tuple[str, dict[str, Any]]]:
    for catalog in catalogs():
        for method, key in wire.LIST_ENTRIES.items():
            if catalog.get(key):
                yield method, {key: catalog[key]}


VARIANTS: list[tuple[str, str, Any]] = [
    # (entry kind, JSON pointer-ish key path, value): each makes an entry other than plain, or not valid MCP
    ("tools/list", "unknown", 1),
    ("tools/list", "description", None),
    ("tools/list", "description", 5),
    ("tools/list", "title", None),
    ("tools/list", "outputSchema", None),
    ("tools/list", "outputSchema", {"type": "array"}),
    ("tools/list", "outputSchema", {"type": "object", "required": "x"}),
    ("tools/list", "inputSchema", {"type": "object", "properties": []}),
    ("tools/list", "inputSchema", {"type": "object", "properties": {"a": 5}}),
    ("tools/list", "inputSchema", {"type": "object", "properties": {"a": True}, "required": ["a"]}),
    ("tools/list", "inputSchema", {"type": "object", "required": ["a", 1]}),
    ("tools/list", "inputSchema", {"type": "object", "$schema": 7}),
    ("tools/list", "inputSchema", {"properties": {}}),
    ("tools/list", "inputSchema", {"type": "object", "properties": None, "x": None}),
    ("tools/list", "annotations", {"readOnlyHint": "yes"}),
    ("tools/list", "annotations", {"readOnlyHint": 1}),
    ("tools/list", "annotations", {"readOnlyHint": None}),
    ("tools/list", "annotations", {"other": True}),
    ("tools/list", "annotations", {"title": "T", "openWorldHint": False}),
    ("tools/list", "execution", {"taskSupport": "sometimes"}),
    ("tools/list", "execution", {"taskSupport": "optional"}),
    ("tools/list", "icons", [{"src": "a", "sizes": ["1x1"], "theme": "dark", "mimeType": "image/png"}]),
    ("tools/list", "icons", [{"src": "a", "theme": "blue"}]),
    ("tools/list", "icons", [{"src": "a", "sizes": None}]),
    ("tools/list", "icons", [{"src": 1}]),
    ("tools/list", "_meta", {"k": None}),
    ("tools/list", "_meta", "x"),
    ("tools/list", "name", 3),
    ("resources/list", "size", 5),
    ("resources/list", "size", 5.0),
    ("resources/list", "size", True),
    ("resources/list", "size", "5"),
    ("resources/list", "annotations", {"priority": 0.5, "audience": ["user"], "lastModified": "2025-01-01"}),
    ("resources/list", "annotations", {"priority": 1}),
    ("resources/list", "annotations", {"priority": 1.5}),
    ("resources/list", "annotations", {"audience": ["robot"]}),
    ("resources/list", "uri", None),
    ("resources/templates/list", "uriTemplate", 1),
    ("resources/templates/list", "mimeType", "text/plain"),
    ("prompts/list", "arguments", [{"name": "a", "required": "true"}]),
    ("prompts/list", "arguments", [{"name": "a", "required": True, "title": "A"}]),
    ("prompts/list", "arguments", [{"name": "a", "extra": 1}]),
    ("prompts/list", "arguments", None),
]
PAGE_VARIANTS: list[dict[str, Any]] = [
    {},
    {"nextCursor": "2"},
    {"nextCursor": None},
    {"nextCursor": 2},
    {"_meta": "x"},
    {"_meta": {"a": 1}},
    {"ttlMs": -5},
    {"ttlMs": 5.0},
    {"ttlMs": True},
    {"cacheScope": "shared"},
    {"resultType": "other"},
    {"ttlMs": None},
    {"extra": 1},
]


def mutated_pages() -> Iterator[tuple[str, dict[str, Any]]]:
    base = {
        "tools/list": {"name": "t", "inputSchema": {"type": "object"}},
        "resources/list": {"name": "r", "uri": "file:///r"},
        "resources/templates/list": {"name": "t", "uriTemplate": "file:///{x}"},
        "prompts/list": {"name": "p"},
    }
    for method, key, value in VARIANTS:
        entry = dict(base[method])
        entry[key] = value
        yield method, {wire.LIST_ENTRIES[method]: [entry]}
    for method, entry in base.items():
        for extra in PAGE_VARIANTS:
            yield method, {wire.LIST_ENTRIES[method]: [entry], **extra}


def both_ways(method: str, protocol: str, result: dict[str, Any]) -> None:
    try:
        expected: Any = sdk_page(method, protocol, result)
    except ValidationError as error:
        expected = error.errors(include_url=False)
    if not wire.plain_page(method, protocol, result):
        return  # read by the SDK's own models
    assert not isinstance(expected, list), f"taken as plain, but the SDK refuses it: {expected}"
    # as JSON, where `1` is not `1.0` nor `true` (discovery then sorts every object's keys)
    entries, cursor, ttl, left_out = wire.page(method, protocol, result)
    assert left_out == ()
    assert json.dumps((entries, cursor, ttl), sort_keys=True) == json.dumps(expected, sort_keys=True)


@pytest.mark.parametrize("protocol", version.KNOWN_PROTOCOL_VERSIONS)
def test_plain_pages_read_as_the_sdk_reads_them(protocol: str) -> None:
    plain = 0
    for method, page in [*real_pages(), *mutated_pages()]:
        for result in (page, {**CACHE_FIELDS, **page}):
            both_ways(method, protocol, result)
            plain += wire.plain_page(method, protocol, result)
    assert plain > 20  # the real catalogs are plain: the fast way is the one taken


def test_the_catalogs_of_real_servers_are_plain() -> None:
    """The fast way is the one real servers take (the shapes golden is hand-made to be odd)."""
    for name in ("everything", "time", "weather", "notes"):
        catalog = json.loads((REPO / "golden" / name / "snapshot.json").read_text())
        for method, key in wire.LIST_ENTRIES.items():
            page = {key: catalog.get(key, [])}
            assert wire.plain_page(method, catalog["protocolVersion"], {**CACHE_FIELDS, **page}), (name, method)


HANDSHAKE_VARIANTS: list[dict[str, Any]] = [
    {},
    {"instructions": "Use me."},
    {"instructions": None},
    {"instructions": 5},
    {"capabilities": {"tools": {"listChanged": True}, "logging": {}, "completions": {}}},
    {"capabilities": {"logging": {"level": "info"}}},
    {"capabilities": {"tools": {"listChanged": "yes"}}},
    {"capabilities": {"tools": None}},
    {"capabilities": {"experimental": {"x": {"a": 1}}, "extensions": {"io.x/y": {}}}},
    {"capabilities": {"experimental": {"x": 1}}},
    {"capabilities": {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}},
    {"capabilities": {"resources": {"subscribe": True, "listChanged": False}, "prompts": {}}},
    {"capabilities": {"future": {}}},
    {"capabilities": []},
    {"_meta": {wire.SERVER_INFO_META_KEY: {"name": "s", "version": "1"}}},
    {"_meta": {wire.SERVER_INFO_META_KEY: {"name": "s"}}},
    {"_meta": {wire.SERVER_INFO_META_KEY: {"name": "s", "version": "1", "x": 1}}},
    {"_meta": {wire.SERVER_INFO_META_KEY: {"name": "s", "version": "1", "websiteUrl": "https://s", "icons": []}}},
    {"_meta": "x"},
    {"serverInfo": {"name": "s", "version": "1", "title": None}},
    {"serverInfo": {"name": "s"}},
    {"serverInfo": {"name": "s", "version": "1", "description": "d"}},
    {"protocolVersion": 5},
    {"supportedVersions": ["2026-07-28", 5]},
    {"ttlMs": -1},
    {"cacheScope": None},
]


def test_plain_handshake_results_read_as_the_sdk_reads_them() -> None:
    initialize = {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "s", "version": "1"},
    }
    discover = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, **CACHE_FIELDS}
    for variant in HANDSHAKE_VARIANTS:
        result = {**initialize, **variant}
        try:
            expected: Any = mcp_types.InitializeResult.model_validate(result, by_name=False).model_dump(
                by_alias=True, exclude_none=True, mode="json"
            )
        except ValidationError:
            expected = None
        if wire.plain_initialize(result):
            assert wire.initialize_result(result) == expected, variant
        result = {**discover, **variant}
        try:
            raw = copy.deepcopy(result)
            _clamp_inbound_ttl(raw)
            validate_server_result("server/discover", wire.LATEST_MODERN_VERSION, raw)
            model = mcp_types.DiscoverResult.model_validate(raw, by_name=False)
            expected = model.model_dump(by_alias=True, exclude_none=True, mode="json")
        except ValidationError:
            expected = None
        if wire.plain_discover(result):
            found = wire.discover_result(wire.LATEST_MODERN_VERSION, result)
            assert json.dumps(found, sort_keys=True) == json.dumps(expected, sort_keys=True), variant
            stamp = (result.get("_meta") or {}).get(wire.SERVER_INFO_META_KEY)
            if wire.IMPLEMENTATION(stamp):
                dumped = mcp_types.Implementation.model_validate(stamp).model_dump(by_alias=True, exclude_none=True)
                assert wire.stamped_server_info(result) == dumped


def test_unsupported_version_refusals_read_as_the_sdk_reads_them() -> None:
    for data in ({"supported": ["2026-07-28"], "requested": "x"}, {"supported": ["a", 1]}, None, {"supported": []}):
        error = wire.RemoteError(wire.UNSUPPORTED_PROTOCOL_VERSION, "no", data)
        try:
            expected = mcp_types.UnsupportedProtocolVersionErrorData.model_validate(data).supported
        except ValidationError:
            expected = []
        assert wire.supported_versions(error) == expected


def test_declared_capabilities_are_what_the_sdk_declares() -> None:
    import anyio
    from mcp.client.session import ClientSession

    from codegen.snapshot.discovery import _declared_capabilities

    for names in ((), ("sampling",), ("elicitation", "roots"), ("sampling", "elicitation", "roots")):
        handlers = _declared_capabilities(names)
        send, receive = anyio.create_memory_object_stream[Any](0)
        session = ClientSession(receive, send, **handlers)
        for protocol in version.KNOWN_PROTOCOL_VERSIONS:
            declared = session._build_capabilities(protocol).model_dump(by_alias=True, exclude_none=True, mode="json")
            assert wire.client_capabilities(names) == declared
