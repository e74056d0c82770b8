"""Random answers of a live server, for the wire fuzz test (`tests/hostile/test_wire_fuzz.py`): what
`tests/servers/wire_fuzz_server.py` writes to stdout when a generated client or a hub calls it.

An answer is drawn as a *plan*: the lines the server writes for one request (the answer itself,
plausible but mutated at any path, and around it notifications, requests of the server's own,
answers to ids never sent, text that is not JSON) and how it ends (stays, exits, or exits half-way
through its last line). Texts reuse the hostile alphabet of `tests/hostile/strategies.py`.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

from hypothesis import strategies as st

from tests.hostile.strategies import texts

ID = "__ID__"
"""Stands for the request's id in a line; the server puts the id there, as JSON."""
DEEP = "__DEEP__"
"""Stands for arrays nested past every parser's depth limit, which no `json.dumps` could write."""
DEEP_TEXT = "[" * 5000 + "]" * 5000
ERA_FIELDS = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
"""The fields every 2026-07-28 result has."""
BASE64 = "aGVsbG8="
LONG = "x" * 200_000


@functools.cache
def strings() -> st.SearchStrategy[str]:
    """A text of the hostile alphabet (lone surrogates and control characters included), or a long one."""
    return st.one_of(texts(surrogates=True), st.just(LONG), st.just("\x1b[2J\r\nforged: line"), st.just(DEEP))


HUGE = "__HUGE__"
"""Stands for an integer of 5,000 digits, past what Python's `int` reads from text by default."""
HUGE_TEXT = "9" * 5000
NUMBERS = [0, -1, 1.5, 2**63, -(2**63) - 1, 10**400, 1e308, -0.0, math.nan, math.inf, -math.inf, HUGE]
"""Numbers at and past the edges: what JSON can write, what Python's parsers refuse (4,300 digits)."""


@functools.cache
def scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(), st.booleans(), st.sampled_from(NUMBERS), st.integers(), st.floats(allow_nan=True), strings()
    )


@functools.cache
def values() -> st.SearchStrategy[Any]:
    """Any JSON value (and NaN, Infinity and the deep placeholder), nested a few levels."""
    return st.recursive(
        scalars(),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(["a", "value", "type", ""]) | strings(), inner, max_size=3)
        ),
        max_leaves=8,
    )


def mutated(shape: dict[str, Any], keep: int = 6) -> st.SearchStrategy[dict[str, Any]]:
    """`shape` with each field kept (`keep` times in `keep` + 2), dropped or replaced by any value, and
    now and then one more field."""
    fields = {
        name: st.one_of(*[st.just(value)] * keep, values(), st.just(_MISSING))  # mostly plausible: deeper paths run
        for name, value in shape.items()
    }

    def assemble(drawn: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
        return {name: value for name, value in {**drawn, **more}.items() if value is not _MISSING}

    extra = st.dictionaries(st.sampled_from(["extra", "_meta", "annotations", "type"]), values(), max_size=1)
    return st.builds(assemble, st.fixed_dictionaries(fields), extra)


_MISSING = object()

BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "ok"},
    {"type": "image", "data": BASE64, "mimeType": "image/png"},
    {"type": "audio", "data": BASE64, "mimeType": "audio/wav"},
    {"type": "resource_link", "uri": "file:///a", "name": "a"},
    {"type": "resource", "resource": {"uri": "file:///a", "text": "ok"}},
    {"type": "resource", "resource": {"uri": "file:///a", "blob": BASE64, "mimeType": "image/png"}},
    {"type": "video", "url": "x"},
]
"""One well-formed content block of each type MCP has, and one of a type it has not."""


@functools.cache
def blocks() -> st.SearchStrategy[Any]:
    return st.one_of(*[st.sampled_from(BLOCKS).flatmap(mutated)] * 4, values())


@functools.cache
def tool_results() -> st.SearchStrategy[dict[str, Any]]:
    structured = st.one_of(
        st.just({"value": 1}),
        st.builds(lambda value: {"value": value}, values()),
        values(),
    )
    content = st.one_of(*[st.lists(blocks(), max_size=3)] * 4, values())
    shape = st.fixed_dictionaries(
        {},
        optional={
            "content": content,
            "structuredContent": structured,
            "isError": st.one_of(st.booleans(), values()),
            "_meta": values(),
        },
    )
    return shape | st.just({"content": [{"type": "text", "text": "ok"}], "structuredContent": {"value": 1}})


@functools.cache
def prompt_results() -> st.SearchStrategy[dict[str, Any]]:
    message = mutated({"role": "user", "content": {"type": "text", "text": "ok"}}) | st.builds(
        lambda role, block: {"role": role, "content": block}, st.sampled_from(["user", "assistant", "system"]), blocks()
    )
    return mutated({"messages": [{"role": "user", "content": {"type": "text", "text": "ok"}}], "description": "d"}) | (
        st.builds(lambda messages: {"messages": messages}, st.lists(message, max_size=3) | values())
    )


@functools.cache
def resource_results() -> st.SearchStrategy[dict[str, Any]]:
    contents = st.sampled_from(
        [{"uri": "fuzz:///", "text": "ok"}, {"uri": "fuzz:///", "blob": BASE64, "mimeType": "image/png"}]
    ).flatmap(mutated)
    return st.builds(lambda listed: {"contents": listed}, st.lists(contents, max_size=3) | values()) | mutated(
        {"contents": [{"uri": "fuzz:///", "text": "ok"}]}
    )


@functools.cache
def errors() -> st.SearchStrategy[Any]:
    return mutated({"code": -32603, "message": "database unavailable", "data": {"retry": True}}) | values()


RESULTS = {"tool": tool_results, "prompt": prompt_results, "resource": resource_results}


def answers(kind: str, era: str) -> st.SearchStrategy[dict[str, Any]]:
    """The server's answer to the request: a result (with the era's fields, mutated too), or an error,
    in an envelope that is now and then wrong (another id, no `jsonrpc`, both or neither member)."""
    return answers_with(RESULTS[kind](), era)


def answers_with(result: st.SearchStrategy[Any], era: str, weight: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """`answers` of the results `result` draws, a result `weight` times as often as an error (and the
    envelope right more often too)."""
    if era == "modern":
        result = st.builds(
            lambda fields, body: {**fields, **body} if isinstance(body, dict) else body, mutated(ERA_FIELDS), result
        )
    member = st.one_of(
        *[st.builds(lambda value: {"result": value}, result)] * weight,
        st.builds(lambda value: {"error": value}, errors()),
        st.builds(lambda value, error: {"result": value, "error": error}, result, errors()),
        st.just({}),
    )
    good = {"jsonrpc": "2.0", "id": ID}
    envelope = st.one_of(*[st.just(good)] * (2 * weight + 1), mutated(good))  # another id costs a call its timeout
    return st.builds(lambda head, body: {**head, **body}, envelope, member)


@functools.cache
def asides() -> st.SearchStrategy[Any]:
    """What a server may write before its answer: notifications with bad params, requests the
    client never declared a handler for, answers to ids never sent, text that is not JSON."""
    notification = st.builds(
        lambda method, params: {"jsonrpc": "2.0", "method": method, "params": params},
        st.sampled_from(
            [
                "notifications/progress",
                "notifications/message",
                "notifications/tools/list_changed",
                "notifications/resources/list_changed",
                "notifications/resources/updated",
                "notifications/cancelled",
                "notifications/unknown",
            ]
        ),
        st.one_of(
            mutated({"progressToken": ID, "progress": 1, "total": 2, "message": "m"}),  # the SDK's token: the id
            mutated({"progressToken": "nobody", "progress": 1, "total": 2, "message": "m"}),
            mutated({"level": "emergency", "logger": "x", "data": "d"}),
            values(),
        ),
    )
    request = st.builds(
        lambda request_id, method, params: {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params},
        st.sampled_from([ID, 987654, "s-1", None]),
        st.sampled_from(["sampling/createMessage", "elicitation/create", "roots/list", "ping", "unknown/thing"]),
        st.one_of(
            mutated({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}),
            mutated({"message": "name?", "requestedSchema": {"type": "object", "properties": {}}}),
            values(),
        ),
    )
    stray = st.builds(
        lambda request_id, body: {"jsonrpc": "2.0", "id": request_id, **body},
        st.sampled_from([987654, "987654", -1, 0]),
        st.sampled_from([{"result": {}}, {"error": {"code": 1, "message": "x"}}]),
    )
    storm = st.just(["LIST_CHANGED_STORM"])
    return st.one_of(notification, request, stray, storm, st.sampled_from(["not json", "[]", "{}", "null", "[1, 2]"]))


def plans(kind: str, era: str) -> st.SearchStrategy[dict[str, Any]]:
    """A plan for the server (`tests/servers/wire_fuzz_server.py`): its lines as text, its end, and
    which line is the answer (the server ignores that: the test reads it)."""
    return plans_for(RESULTS[kind](), era)


def plans_for(result: st.SearchStrategy[Any], era: str, weight: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """`plans` of an answer holding a result `result` draws (`weight`: as in `answers_with`; the
    server also stays more often)."""
    answer = answers_with(result, era, weight)
    return st.builds(
        lambda before, main, twice, end: {
            "lines": [*map(line, before), line(main), *([line(main)] if twice else [])],
            "end": end,
            "answer": len(before),
        },
        st.lists(asides(), max_size=3),
        answer,
        st.integers(0, 9).map(lambda roll: roll == 0),
        st.sampled_from(["stay"] * 6 * weight + ["exit", "cut"]),
    )


def line(message: Any) -> str:
    """One message as the server writes it: JSON (NaN and Infinity as those tokens, surrogates
    escaped), with the request's id and the deep nesting put in where they stand."""
    if message == ["LIST_CHANGED_STORM"]:
        storm = [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}] * 50
        return "\n".join(json.dumps(each) for each in storm)
    text = json.dumps(message, ensure_ascii=True)
    return text.replace(json.dumps(ID), ID).replace(json.dumps(DEEP), DEEP_TEXT).replace(json.dumps(HUGE), HUGE_TEXT)


SCHEMA = {"type": "object", "properties": {"plan": {"type": "string"}}, "required": ["plan"]}
ENTRIES: dict[str, dict[str, Any]] = {
    "tools/list": {"name": "answer", "description": "Answer as planned.", "inputSchema": SCHEMA},
    "resources/list": {"uri": "fuzz:///a", "name": "a", "mimeType": "text/plain"},
    "resources/templates/list": {"uriTemplate": "fuzz:///{plan}", "name": "answer"},
    "prompts/list": {"name": "answer", "arguments": [{"name": "plan", "required": True}]},
}
"""One well-formed entry of each list method, which the sweep's entries are mutated from."""
LIST_KEYS = {
    "tools/list": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
    "prompts/list": "prompts",
}
NAMES = ["answer", "answer_typed", "class", "a-b", "A.b", "answer"]
"""Tool and prompt names: a clash, a keyword, the separators real servers use."""
CURSORS = [None, None, None, "c1", "c2", "", "c1"]
"""A page's `nextCursor`: mostly none, and now and then a repeated one."""
KEEP = 24
"""How much more often a listing's field is kept than dropped or replaced (`mutated`): a catalog has
many, and the sweep must get as far as a snapshot, and `generate`, often enough to test them."""


@functools.cache
def entries(method: str) -> st.SearchStrategy[Any]:
    """An entry of a list method's page: the well-formed one with a name drawn, then mutated."""
    named = st.builds(
        lambda name, entry: {**entry, "name": name}, st.sampled_from(NAMES) | strings(), st.just(ENTRIES[method])
    )
    schema = mutated(SCHEMA, KEEP) | st.just({"type": "object"}) | values()
    if method == "tools/list":
        named = st.builds(lambda entry, input_schema: {**entry, "inputSchema": input_schema}, named, schema)
    return st.one_of(*[named.flatmap(lambda entry: mutated(entry, KEEP))] * 12, values())


@functools.cache
def list_results(method: str) -> st.SearchStrategy[Any]:
    """A page of a list method: its entries, and now and then a cursor (a repeated one too)."""
    return st.builds(
        lambda listed, cursor: {LIST_KEYS[method]: listed} | ({} if cursor is None else {"nextCursor": cursor}),
        st.lists(entries(method), max_size=3) | values(),
        st.sampled_from(CURSORS),
    ).flatmap(lambda page: mutated(page, KEEP))


CAPABILITIES = {"tools": {"listChanged": True}, "resources": {}, "prompts": {}, "logging": {}}
VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2026-07-28", "1999-01-01"]


@functools.cache
def handshake_results(method: str) -> st.SearchStrategy[Any]:
    """The answer to `initialize` or `server/discover`, its version, capabilities and server info mutated."""
    capabilities = mutated(CAPABILITIES, KEEP)
    info = mutated({"name": "wirefuzz", "version": "1.0.0"}, KEEP)
    if method == "initialize":
        version = st.sampled_from(["2025-11-25"] * 6 + VERSIONS)
        shape = st.fixed_dictionaries({"protocolVersion": version, "capabilities": capabilities, "serverInfo": info})
    else:  # mostly offering the version the client speaks, so that the listing goes on
        offered = st.lists(st.sampled_from(VERSIONS), max_size=2)
        versions = st.one_of(*[offered.map(lambda others: ["2026-07-28", *others])] * 6, offered)
        shape = st.fixed_dictionaries({"supportedVersions": versions, "capabilities": capabilities, "serverInfo": info})
    with_instructions = st.builds(lambda body, text: {**body, "instructions": text}, shape, strings())
    return (shape | with_instructions).flatmap(lambda body: mutated(body, KEEP))


def listing_plans(era: str, methods: tuple[str, ...]) -> st.SearchStrategy[dict[str, list[dict[str, Any]]]]:
    """Plans for a whole listing (`--plans` of the fuzz server): for some of the era's handshake and
    the list methods, the answers to their first requests (a page after a page), mostly results, so
    that many listings get as far as a snapshot."""
    handshake = "server/discover" if era == "modern" else "initialize"
    kinds = {method: plans_for(handshake_results(method) if method == handshake else list_results(method), era, 12)
             for method in (handshake, *methods)}  # fmt: skip
    return st.fixed_dictionaries(
        {}, optional={method: st.lists(plan, min_size=1, max_size=3) for method, plan in kinds.items()}
    )
