"""The hub's catalog as data: its entries, filters, the LLM APIs' tool and result shapes, and the shortlist.

This file is copied verbatim into the generated hub package beside `_hub_runtime.py`. It imports only
the standard library (and, for type checking, `mcp` and `pydantic`), so a host can build its prompt
from the catalog before anything connects, and importing the hub stays cheap.
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import hashlib
import heapq
import json
import math
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mcp.types import CallToolResult

__all__ = [
    "HINT_DEFAULTS",
    "HUB_SEPARATOR",
    "SEARCH_TOOLS",
    "Filters",
    "HubTool",
    "SearchIndex",
    "ToolFilter",
    "ToolFormat",
    "names_only",
    "openai_strict_schema",
    "qualified_name",
    "search_tool",
    "selected",
    "terms",
    "tool_definition",
    "tool_result",
]

ToolFormat = Literal["default", "openai", "anthropic", "gemini", "mcp"]
"""`default` is `{name, description, input_schema}`; the others are each API's own tool shape."""

SEARCH_TOOLS = "search_tools"
"""The name of the hub's meta-tool for progressive disclosure; no qualified name may take it."""

HUB_SEPARATOR = "__"
"""What joins a server id and a tool name in a qualified name by default: valid for every LLM API."""

QUALIFIED_NAME_LIMIT = 64
"""The shortest of the LLM APIs' limits on a tool name (OpenAI and Gemini: 64; Anthropic and MCP: 128)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_HASH_LENGTH = 8


def api_safe(name: str) -> str:
    """The name with accents dropped and every other character outside `[A-Za-z0-9_-]` mapped to `_`."""
    decomposed = unicodedata.normalize("NFKD", name)
    return _UNSAFE.sub("_", "".join(char for char in decomposed if not unicodedata.combining(char)))


def qualified_name(server: str, tool: str, separator: str = HUB_SEPARATOR) -> str:
    """`<server><separator><tool>`, valid for OpenAI, Anthropic, Gemini and MCP alike (with a `_`/`-` separator).

    Both parts go through `api_safe`; a name that would not start with a letter or `_` (Gemini's rule)
    gets a leading `_`, and one over 64 characters is cut and ends in `_` and a hash of the original
    pair, so the same tool always gets the same name. The generator names the snapshots' tools with
    it, and a connected hub the tools a server adds later.
    """
    name = api_safe(server) + separator + api_safe(tool)
    if not (name[0].isascii() and (name[0].isalpha() or name[0] == "_")):
        name = "_" + name
    if len(name) > QUALIFIED_NAME_LIMIT:
        digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:_HASH_LENGTH]
        name = f"{name[: QUALIFIED_NAME_LIMIT - _HASH_LENGTH - 1]}_{digest}"
    return name


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
    """The server's input JSON Schema, as the server declared it: what `hub.call` checks arguments against."""
    title: str | None = None
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] = field(default_factory=dict)
    """The tool's annotations as on the wire (`readOnlyHint`, ...)."""


# -- filters ------------------------------------------------------------------------------------------

HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
"""What the MCP spec says a tool is when it does not give a hint."""


@dataclass(frozen=True)
class ToolFilter:
    """Which of a server's tools to offer: glob patterns on the tool's own name, and annotation values.

    A tool passes when it matches one of `include` (or `include` is empty), none of `exclude`, and
    has every annotation in `annotations` with that value (a missing hint counts as the spec's default).
    """

    include: Sequence[str] = ()
    exclude: Sequence[str] = ()
    annotations: Mapping[str, bool] = field(default_factory=dict)

    def allows(self, tool: str, annotations: Mapping[str, Any]) -> bool:
        if self.include and not any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.include):
            return False
        if any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.exclude):
            return False
        return all(annotations.get(hint, HINT_DEFAULTS.get(hint)) == value for hint, value in self.annotations.items())


Filters = ToolFilter | Mapping[str, ToolFilter] | None
"""One filter for every server, or one per server id (servers not named are not filtered)."""


def selected(tools: Iterable[HubTool], filters: Filters) -> list[HubTool]:
    """The tools the filters let through, in the order given."""
    if filters is None:
        return list(tools)
    if not isinstance(filters, Mapping):  # one filter (of this module or another copy of it) for every server
        return [tool for tool in tools if filters.allows(tool.tool, tool.annotations)]
    return [
        tool for tool in tools if tool.server not in filters or filters[tool.server].allows(tool.tool, tool.annotations)
    ]


# -- tool definitions ---------------------------------------------------------------------------------

_STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref",
        "$defs", "definitions", "description", "title", "pattern", "format", "multipleOf", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems",
    }
)  # fmt: skip
"""The JSON Schema keywords OpenAI's strict mode accepts."""


def openai_strict_schema(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """A copy of the schema OpenAI's strict mode accepts, or `None` when strict mode would change its meaning.

    Strict mode needs every property required and `additionalProperties: false` on every object; a
    schema with an optional property, open extra properties or an unsupported keyword stays non-strict
    rather than being rewritten into something the server did not declare. A missing
    `additionalProperties` becomes `false`: the model may then send only what the schema names.
    """
    strict = {key: value for key, value in copy.deepcopy(dict(schema)).items() if key != "$schema"}
    if strict.get("type") != "object":
        return None
    return strict if _make_strict(strict) else None


def _make_strict(node: Any) -> bool:
    if isinstance(node, list):
        return all(_make_strict(item) for item in node)
    if not isinstance(node, dict):
        return True
    if not set(node) <= _STRICT_KEYWORDS:
        return False
    if node.get("type") == "object" or "properties" in node:
        properties = node.setdefault("properties", {})
        if set(properties) != set(node.get("required", [])):
            return False
        if node.setdefault("additionalProperties", False) is not False:
            return False
        node["required"] = sorted(properties)
    for key in ("properties", "$defs", "definitions"):
        if key in node and not all(_make_strict(child) for child in node[key].values()):
            return False
    return all(_make_strict(node[key]) for key in ("items", "anyOf") if key in node)


def tool_definition(tool: HubTool, format: ToolFormat = "default", *, strict: bool = False) -> dict[str, Any]:
    """The tool as the chosen API takes it in its tool list; every schema is a fresh copy.

    `openai` is a Chat Completions function tool; with `strict=True` it is marked strict when its
    schema allows (see `openai_strict_schema`). `gemini` is a `FunctionDeclaration` with JSON Schema
    parameters; `mcp` is the protocol's `Tool`; `default` and `anthropic` are `{name, description, input_schema}`.
    """
    name, description = tool.qualified_name, tool.description or tool.title or ""
    schema = copy.deepcopy(dict(tool.input_schema))
    if format in ("default", "anthropic"):
        return {"name": name, "description": description, "input_schema": schema}
    if format == "openai":
        function: dict[str, Any] = {"name": name, "description": description, "parameters": schema}
        strict_schema = openai_strict_schema(schema) if strict else None
        if strict_schema is not None:
            function.update(parameters=strict_schema, strict=True)
        return {"type": "function", "function": function}
    if format == "gemini":
        declaration = {"name": name, "description": description, "parametersJsonSchema": schema}
        if tool.output_schema is not None:
            declaration["responseJsonSchema"] = copy.deepcopy(dict(tool.output_schema))
        return declaration
    if format == "mcp":
        definition: dict[str, Any] = {"name": name, "inputSchema": schema}
        optional = {
            "title": tool.title,
            "description": tool.description,
            "outputSchema": copy.deepcopy(dict(tool.output_schema)) if tool.output_schema is not None else None,
            "annotations": dict(tool.annotations) or None,
        }
        definition.update({key: value for key, value in optional.items() if value is not None})
        return definition
    raise ValueError(f"unknown tool format {format!r}; use one of default, openai, anthropic, gemini, mcp")


def search_tool(limit: int) -> HubTool:
    """The `search_tools` meta-tool as a catalog entry, so every format renders it like any other tool."""
    return HubTool(
        qualified_name=SEARCH_TOOLS,
        server="",
        client="",
        tool=SEARCH_TOOLS,
        description=(
            "Find the tools for a task among the hub's tools. Describe the task in plain words; the result "
            "lists the best matching tools with their input schemas, which you can call next."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The task, in plain words."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": f"At most; {limit} if unset."},
            },
            "required": ["query"],
        },
        annotations={"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    )


# -- tool results -------------------------------------------------------------------------------------


def _block_text(block: Any) -> str:
    """A content block an API cannot take as it is, described in a line of text."""
    if block.type == "text":
        return str(block.text)
    if block.type in ("image", "audio"):
        return f"[{block.type}: {block.mime_type}, {len(block.data)} base64 characters]"
    if block.type == "resource_link":
        return f"[resource link: {block.uri}]"
    resource = block.resource
    text = getattr(resource, "text", None)
    return str(text) if text is not None else f"[resource: {resource.uri}, {resource.mime_type or 'binary'}]"


def _result_text(result: CallToolResult) -> str:
    texts = [_block_text(block) for block in result.content]
    if not any(block.type == "text" for block in result.content) and result.structured_content is not None:
        texts.insert(0, json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(texts)


def tool_result(
    result: CallToolResult, format: ToolFormat, *, call_id: str | None = None, name: str | None = None
) -> dict[str, Any]:
    """The result as the chosen API takes it back: the message or content block to append to the conversation.

    `openai` (a `tool` message) and `anthropic` (a `tool_result` block) need the call's `call_id`;
    `gemini` (a `functionResponse` part) needs the function's `name`. Text stays text, images go as
    images where the API accepts them (Anthropic) and are described in text elsewhere, structured
    content is sent as JSON when there is no text, and `isError` is kept (Gemini: an `error` key).
    """
    if format == "mcp" or format == "default":
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)
    if format == "gemini":
        if name is None:
            raise ValueError("a Gemini function response needs the function's name")
        output = result.structured_content if result.structured_content is not None else _result_text(result)
        response: dict[str, Any] = {"error" if result.is_error else "output": output}
        part: dict[str, Any] = {"name": name, "response": response}
        if call_id is not None:
            part["id"] = call_id
        return {"functionResponse": part}
    if call_id is None:
        raise ValueError(f"an {format} tool result needs the call's id")
    if format == "openai":
        return {"role": "tool", "tool_call_id": call_id, "content": _result_text(result)}
    if format == "anthropic":
        content: list[dict[str, Any]] = []
        if not any(block.type == "text" for block in result.content) and result.structured_content is not None:
            content.append({"type": "text", "text": json.dumps(result.structured_content, ensure_ascii=False)})
        for block in result.content:
            if block.type == "image":
                source = {"type": "base64", "media_type": block.mime_type, "data": block.data}
                content.append({"type": "image", "source": source})
            else:
                content.append({"type": "text", "text": _block_text(block)})
        return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": bool(result.is_error)}
    raise ValueError(f"unknown tool format {format!r}; use one of default, openai, anthropic, gemini, mcp")


# -- shortlist ----------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOPWORDS = frozenset(
    str.split(
        "a about an and any are as at be by can could do does for from has have i if in into is it its me my no not of on "
        "or our please so some than that the their them then there these this those to us was we what when which "
        "who will with would you your"
    )
)
_SYNONYMS = [
    "create add new make open start submit post raise register insert record propose",
    "write save store overwrite put",
    "get fetch read show view display retrieve see look detail info inspect open",
    "list enumerate browse all",
    "multiple many several batch bulk simultaneously once together",
    "search find query lookup locate look discover",
    "update edit change modify set alter rename replace close reopen",
    "delete remove erase drop destroy forget clear",
    "issue bug ticket problem crash defect report",
    "pull pr merge request",
    "repository repo project codebase",
    "directory folder dir",
    "file document doc",
    "comment reply note remark",
    "message text string say",
    "entity node person thing fact memory remember know",
    "observation fact detail note",
    "relation link relationship connection",
    "convert translate transform",
    "time clock hour timezone zone",
    "image picture photo logo media",
    "compress zip gzip archive",
    "forecast weather rain temperature",
    "alert warn warning notify notification",
    "sum add total plus",
    "environment env variable",
    "toggle turn switch enable disable",
    "commit push upload",
    "branch fork",
    "review approve",
    "size big large",
    "research investigate study",
    "long run running task operation",
    "echo repeat back",
]
"""Words a user and a tool's author use for the same thing; a query word also finds its group at lower weight."""

_FIELD_WEIGHTS = {"name": 3.0, "server": 1.0, "title": 2.0, "description": 1.0, "parameter": 1.0, "parameter_text": 0.5}
_SYNONYM_WEIGHT = 0.5
_SYNONYMS_WEIGHT = 0.75
_K1, _B = 1.2, 0.75
_SCANNED = 1000
"""How much of a term's posting list a query reads, best contributions first: a word in thousands of
tools (`get`, `create`) ranks none of them, and reading all of it would cost milliseconds."""


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A crude English stem, so `issues`/`issue`, `opening`/`open` and `making`/`make` meet."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "ches", "shes", "xes", "zes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


_ABBREVIATIONS = {
    "repo": "repository",
    "dir": "directory",
    "pr": "pull request",
    "env": "environment",
    "info": "information",
    "config": "configuration",
    "doc": "document",
    "msg": "message",
    "img": "image",
    "db": "database",
}
"""Short forms written out, in tool text and queries alike, so `repo` is `repository` at full weight."""


def terms(text: str) -> list[str]:
    """The text's words, split on case and separators, lowercased and stemmed, without stopwords."""
    found: list[str] = []
    for word in _WORD.findall(text):
        lowered = word.lower()
        for part in _ABBREVIATIONS.get(_stem(lowered), lowered).split():
            if len(part) > 1 and part not in _STOPWORDS:  # `s` and `t` of "what's", "won't"
                found.append(_stem(part))
    return found


def _synonym_table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in _SYNONYMS:
        stems = {_stem(word) for word in group.split()}
        for stem in stems:
            table.setdefault(stem, set()).update(stems)
    return {stem: frozenset(group - {stem}) for stem, group in table.items()}


_SYNONYM_TABLE = _synonym_table()


def _fields(tool: HubTool) -> dict[str, str]:
    properties = tool.input_schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    parameter_text = [
        str(value.get(key, ""))
        for value in properties.values()
        if isinstance(value, Mapping)
        for key in ("title", "description")
    ]
    return {
        "name": tool.tool,
        "server": tool.server,
        "title": tool.title or "",
        "description": tool.description or "",
        "parameter": " ".join(str(name) for name in properties),
        "parameter_text": " ".join(parameter_text),
    }


class SearchIndex:
    """BM25F over each tool's name, server, title, description and parameters: offline and deterministic.

    Built once per catalog (on the first query); a query scores only the tools that share a term with
    it, reading at most the best `_SCANNED` of each term's postings, so its cost does not grow with
    the size of the catalog.
    """

    def __init__(self, tools: Iterable[HubTool]) -> None:
        self.tools = sorted(tools, key=lambda tool: tool.qualified_name)
        frequencies: list[dict[str, float]] = []
        for tool in self.tools:
            weighted: dict[str, float] = {}
            for field_name, text in _fields(tool).items():
                for term in terms(text):
                    weighted[term] = weighted.get(term, 0.0) + _FIELD_WEIGHTS[field_name]
            frequencies.append(weighted)
        lengths = [sum(weighted.values()) for weighted in frequencies]
        average = sum(lengths) / len(lengths) if lengths else 1.0
        documents: dict[str, int] = {}
        for weighted in frequencies:
            for term in weighted:
                documents[term] = documents.get(term, 0) + 1
        count = len(self.tools)
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for position, weighted in enumerate(frequencies):
            norm = _K1 * (1 - _B + _B * lengths[position] / (average or 1.0))
            for term, frequency in weighted.items():
                idf = math.log(1 + (count - documents[term] + 0.5) / (documents[term] + 0.5))
                self.postings.setdefault(term, []).append((position, idf * frequency * (_K1 + 1) / (frequency + norm)))
        for postings in self.postings.values():
            postings.sort(key=lambda posting: (-posting[1], posting[0]))

    def search(self, query: str, limit: int, keep: Callable[[HubTool], bool] | None = None) -> list[HubTool]:
        """The best `limit` tools for the query that `keep` accepts, best first; ties go by name."""
        weights: dict[str, float] = {}
        for term in terms(query):
            weights[term] = 1.0
        for term in list(weights):
            for synonym in _SYNONYM_TABLE.get(term, ()):
                if weights.get(synonym, 0.0) < 1.0:  # several query words for one thing add up, a little
                    weights[synonym] = min(_SYNONYMS_WEIGHT, weights.get(synonym, 0.0) + _SYNONYM_WEIGHT)
        scores: dict[int, float] = {}
        for term, weight in weights.items():
            for position, contribution in self.postings.get(term, ())[:_SCANNED]:
                scores[position] = scores.get(position, 0.0) + weight * contribution
        ranked = heapq.nsmallest(
            len(scores) if keep is not None else limit, scores, key=lambda position: (-scores[position], position)
        )
        found = [self.tools[position] for position in ranked]
        return [tool for tool in found if keep is None or keep(tool)][:limit]


def names_only(tools: Iterable[HubTool], names: Collection[str] | None) -> list[HubTool]:
    """The tools whose qualified name is in `names` (all of them when it is `None`)."""
    return [tool for tool in tools if names is None or tool.qualified_name in names]
