"""The hub's catalog as data: its entries, filters, the LLM APIs' tool and result shapes, and the shortlist.

This file is copied verbatim into the generated hub package beside `_hub_runtime.py`. It imports only
the standard library and `_unicode14` (and, for type checking, `mcp` and `pydantic`), so a host can
build its prompt from the catalog before anything connects, and importing the hub stays cheap.
"""

from __future__ import annotations

import copy
import difflib
import fnmatch
import hashlib
import json
import re
import unicodedata
from collections.abc import (
    Collection,
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    Mapping,
    Sequence,
    ValuesView,
)
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ._unicode14 import as_named

if TYPE_CHECKING:
    from mcp.types import CallToolResult

__all__ = [
    "CATALOG_FILE",
    "CATALOG_FORMAT",
    "HINT_DEFAULTS",
    "HUB_SEPARATOR",
    "LATIN_ASCII",
    "SEARCH_DETAILS",
    "SEARCH_TOOLS",
    "CatalogFile",
    "Filters",
    "HubTool",
    "SearchDetail",
    "ToolFilter",
    "ToolFormat",
    "catalog_tools",
    "file_stem",
    "first_sentence",
    "hint_problem",
    "latin_spelled",
    "model_visible",
    "names_only",
    "openai_strict_schema",
    "provider_schema",
    "qualified_name",
    "search_result",
    "search_tool",
    "selected",
    "summary",
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
_TOOL_KEPT = 16
"""Characters of the tool's name a shortened qualified name keeps at least (all of a shorter name),
however long the server id: `a_very_long_server_id__get_weather_3f2a...`, not the server id alone."""


def file_stem(name: str) -> str:
    """The ASCII name of a file named after a Python name: the name, or for one in another script
    (naming rules 5: `统计字数`) `u_` and a hash of it in letters (a digit would sort one way in
    `sorted` and another in isort's natural order). A file name outside ASCII may not survive a file
    system, an archive or a checkout on another OS in the one spelling that reads it back."""
    if name.isascii():
        return name
    return "u_" + hashlib.sha256(name.encode()).hexdigest()[:16].translate(_HEX_LETTERS)


_HEX_LETTERS = str.maketrans("0123456789", "ghijklmnop")


LATIN_ASCII = {
    "Æ": "AE", "æ": "ae", "Ð": "D", "ð": "d", "Ø": "O", "ø": "o", "Þ": "TH", "þ": "th", "ß": "ss", "ẞ": "SS",
    "Đ": "D", "đ": "d", "Ħ": "H", "ħ": "h", "\u0131": "i", "ĸ": "q", "Ł": "L", "ł": "l", "Ŋ": "N", "ŋ": "n",
    "Œ": "OE", "œ": "oe", "Ŧ": "T", "ŧ": "t",
}  # fmt: skip
"""The letters of Latin-1 Supplement and Latin Extended-A (and the capital sharp s) that NFKD leaves
without an ASCII form (the long s, `ĳ`, `ŀ` and `ŉ` have one), as CLDR's Latin-ASCII transform spells
them (`common/transforms/Latin-ASCII.xml`, what ICU's `Latin-ASCII` applies): the letters of Danish,
Norwegian, Icelandic, German, French, Polish, Croatian, Maltese, Sami, Turkish and Greenlandic
words. Other Latin letters without one (`ƒ`, `ə`, IPA) are still left out. Method names (naming
rules 7) and hub names (rules 12) spell them alike, so here, where the hub's runtime reads it too."""


def latin_spelled(name: str) -> str:
    """The name's NFKD form with each letter of `LATIN_ASCII` spelled in ASCII (a letter with an
    accent too: `Ǿ` is `Ø` and an accent). A capital written as two letters is one capital and a
    small letter before a small letter (`Æble` -> `Aeble`, `Þór` -> `Thor`), so that it starts a
    word rather than being a word of its own (`AEble` -> `a_eble`)."""
    decomposed = unicodedata.normalize("NFKD", name)
    spelled: list[str] = []
    for index, char in enumerate(decomposed):
        letters = LATIN_ASCII.get(char, char)
        if len(letters) > 1 and letters.isupper():
            following = (
                rest for rest in decomposed[index + 1 :] if not unicodedata.combining(rest)
            )
            letters = letters.capitalize() if next(following, "").islower() else letters
        spelled.append(letters)
    return "".join(spelled)


def api_safe(name: str, spell_latin: bool = True) -> str:
    """The name as 3.11 reads it (`as_named`: a mark a later Unicode assigned is not dropped as an
    accent on 3.13) with its Latin letters spelled (`latin_spelled`; left out, as `_`, by hub names
    of naming rules before 12: `spell_latin=False`), accents dropped and every other character
    outside `[A-Za-z0-9_-]` mapped to `_`."""
    name = as_named(name)
    decomposed = unicodedata.normalize("NFKD", latin_spelled(name) if spell_latin else name)
    return _UNSAFE.sub("_", "".join(char for char in decomposed if not unicodedata.combining(char)))


def qualified_name(
    server: str, tool: str, separator: str = HUB_SEPARATOR, spell_latin: bool = True
) -> str:
    """`<server><separator><tool>`, valid for OpenAI, Anthropic, Gemini and MCP alike (with a `_`/`-` separator).

    Both parts go through `api_safe` (`spell_latin`: as the generator names the tools of a snapshot
    of naming rules 12 and later, and a connected hub every tool a server adds);
    a name that would not start with a letter or `_` (Gemini's rule)
    gets a leading `_`, and one over 64 characters is cut and ends in `_` and a hash of the original
    pair, so the same tool always gets the same name. The cut takes the end of the tool's name, and
    of the server id only as far as the tool keeps its first `_TOOL_KEPT` characters: a long server id
    once left no trace of the tool. The generator names the snapshots' tools with it, and a connected
    hub the tools a server adds later.
    """
    # hashed as `generate` reads them, on every Python
    server, tool = as_named(server), as_named(tool)
    server_part, tool_part = api_safe(server, spell_latin), api_safe(tool, spell_latin)
    name = server_part + separator + tool_part
    lead = "" if name[0].isascii() and (name[0].isalpha() or name[0] == "_") else "_"
    name = lead + name
    if len(name) > QUALIFIED_NAME_LIMIT:
        digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:_HASH_LENGTH]
        room = QUALIFIED_NAME_LIMIT - _HASH_LENGTH - 1 - len(lead) - len(separator)
        kept = min(len(server_part), room - min(len(tool_part), _TOOL_KEPT))
        name = f"{lead}{server_part[:kept]}{separator}{tool_part[: room - kept]}_{digest}"
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
    app_only: bool = False
    """The server hides it from the model (MCP Apps `_meta.ui.visibility` without `"model"`): it is
    left out of every list a model sees, and stays callable from code."""
    skip_sdk_output_check: bool = False
    """The server's output schema is left to the server (past the work budget, or with references
    that name nothing in it): `hub.call` skips the MCP SDK's check of the result against it, which
    would fail on every result once the hub has listed the tools, as the tool's package does."""


CATALOG_FILE = "catalog.json"
"""The file in a generated hub's package that holds its tools as data (`CatalogFile` reads it)."""
CATALOG_FORMAT = 1
"""The version of that file's layout: `{"format": 1, "tools": [<HubTool's fields>, ...]}`."""


class CatalogFile(Mapping[str, HubTool]):
    """A generated hub's tools by qualified name, read from the `catalog.json` in its package on first
    use: importing the hub reads and compiles no schema, and the catalog stays data, never code."""

    def __init__(self, package: str) -> None:
        self.package = package
        self._tools: dict[str, HubTool] | None = None

    def _loaded(self) -> dict[str, HubTool]:
        if self._tools is None:
            from importlib.resources import files

            self._tools = catalog_tools(
                files(self.package).joinpath(CATALOG_FILE).read_text(encoding="utf-8")
            )
        return self._tools

    def __getitem__(self, name: str) -> HubTool:
        return self._loaded()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def keys(self) -> KeysView[str]:
        return self._loaded().keys()

    def items(self) -> ItemsView[str, HubTool]:
        return self._loaded().items()

    def values(self) -> ValuesView[HubTool]:
        return self._loaded().values()

    def __repr__(self) -> str:
        return f"CatalogFile({self.package!r})"


def catalog_tools(text: str) -> dict[str, HubTool]:
    """The tools of a hub's `catalog.json`, by qualified name, in the file's order; each entry holds
    `HubTool`'s fields by name, those at their default left out."""
    document = json.loads(text)
    if not isinstance(document, dict) or document.get("format") != CATALOG_FORMAT:
        raise ValueError(
            f"{CATALOG_FILE} is not format {CATALOG_FORMAT}: run `mcp-stubgen generate` to refresh the hub"
        )
    return {entry["qualified_name"]: HubTool(**entry) for entry in document["tools"]}


def model_visible(meta: Any) -> bool:
    """Whether a tool with this `_meta` may be shown to a model: MCP Apps' `ui.visibility` lists the
    audiences (`"model"`, `"app"`), and a tool that does not say is visible to both."""
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    visibility = ui.get("visibility") if isinstance(ui, Mapping) else None
    return not isinstance(visibility, list) or "model" in visibility


# -- filters ------------------------------------------------------------------------------------------

HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
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

    def __post_init__(self) -> None:
        """A hint misspelt (`readonlyHint`) would leave every tool out, without a word."""
        problem = hint_problem(self.annotations)
        if problem is not None:
            raise ValueError(problem)

    def allows(self, tool: str, annotations: Mapping[str, Any]) -> bool:
        if self.include and not any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.include):
            return False
        if any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.exclude):
            return False
        return all(
            annotations.get(hint, HINT_DEFAULTS.get(hint)) == value
            for hint, value in self.annotations.items()
        )


def hint_problem(annotations: Any) -> str | None:
    """Why `annotations` is no map of the spec's hints to true or false, or None."""
    hints = ", ".join(sorted(HINT_DEFAULTS))
    if not isinstance(annotations, Mapping) or not all(
        isinstance(value, bool) for value in annotations.values()
    ):
        return f"annotations must map hints ({hints}) to true or false"
    for hint in annotations:
        if hint not in HINT_DEFAULTS:
            near = difflib.get_close_matches(str(hint), HINT_DEFAULTS, n=1, cutoff=0.6)
            advice = f" (did you mean {near[0]!r}?)" if near else ""
            return f"annotations must map hints ({hints}) to true or false; {hint!r} is no hint{advice}"
    return None


Filters = ToolFilter | Mapping[str, ToolFilter] | None
"""One filter for every server, or one per server id (servers not named are not filtered)."""


def selected(tools: Iterable[HubTool], filters: Filters) -> list[HubTool]:
    """The tools the filters let through, in the order given."""
    if filters is None:
        return list(tools)
    if not isinstance(
        filters, Mapping
    ):  # one filter (of this module or another copy of it) for every server
        return [tool for tool in tools if filters.allows(tool.tool, tool.annotations)]
    return [
        tool
        for tool in tools
        if tool.server not in filters or filters[tool.server].allows(tool.tool, tool.annotations)
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


# The runtime walks schemas itself: it ships without mcp-stubgen, so codegen/schemas.py's walker is not there.
def _make_strict(node: Any) -> bool:
    if isinstance(node, list):
        return all(_make_strict(item) for item in node)
    if not isinstance(node, dict):
        return True
    if not set(node) <= _STRICT_KEYWORDS:
        return False
    kind = node.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node:
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


_ROOT_UNIONS = ("allOf", "anyOf", "oneOf")


def provider_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a tool's input schema as the providers' tool lists take it: `type: "object"` at the
    root, and no `allOf`, `anyOf` or `oneOf` there, which Anthropic, OpenAI, Bedrock and Vertex refuse,
    failing the whole request, not just that tool. A root `$ref` is followed; the branches' properties
    join the root's, a property that several branches give differently as their `anyOf`, required
    where `allOf` requires it or where every branch of `anyOf`/`oneOf` does. The model then sees a
    looser schema; `hub.call` still checks the arguments against the tool's own before sending."""
    root = _followed(copy.deepcopy(dict(schema)), schema)
    for keyword in _ROOT_UNIONS:
        branches = root.pop(keyword, None)
        if not isinstance(branches, list):
            continue
        objects = [
            _followed(branch, schema) if isinstance(branch, dict) else {}
            for branch in branches
            if branch is True or (isinstance(branch, dict) and _may_be_object(branch))
        ]
        properties: dict[str, Any] = root.setdefault("properties", {})
        for branch in objects:
            given = branch.get("properties")
            for name, inner in given.items() if isinstance(given, dict) else ():
                known = properties.setdefault(name, inner)
                if known != inner:
                    union = (
                        known["anyOf"]
                        if isinstance(known, dict) and set(known) == {"anyOf"}
                        else [known]
                    )
                    properties[name] = {"anyOf": [*union, inner]}
        required = [set(branch.get("required", ())) for branch in objects]
        joined = set.union(*required) if keyword == "allOf" else set.intersection(*required)
        if required and joined - set(root.get("required", ())):
            root["required"] = [
                *root.get("required", ()),
                *sorted(joined - set(root.get("required", ()))),
            ]
        if not properties:
            del root["properties"]
    root["type"] = "object"
    return root


def _followed(node: dict[str, Any], document: Mapping[str, Any]) -> dict[str, Any]:
    """`node` with a `$ref` to a place in `document` (`#/$defs/X`) replaced by what it names, its own
    other keywords kept beside it; a reference that names nothing here is left out."""
    for _ in range(_MAX_FOLLOWED):
        reference = node.get("$ref")
        if not isinstance(reference, str):
            return node
        target: Any = document
        for part in reference.removeprefix("#").split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, dict) else None
        rest = {key: value for key, value in node.items() if key != "$ref"}
        node = {**copy.deepcopy(target), **rest} if isinstance(target, dict) else rest
    return node


def _may_be_object(branch: dict[str, Any]) -> bool:
    """Whether a branch can hold an object: arguments are always one, so no other branch can apply."""
    kind = branch.get("type", "object")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


_MAX_FOLLOWED = 10
"""Root references followed one after another at most (`#/$defs/A` naming `#/$defs/B` ...)."""


def tool_definition(
    tool: HubTool, format: ToolFormat = "default", *, strict: bool = False
) -> dict[str, Any]:
    """The tool as the chosen API takes it in its tool list; every schema is a fresh copy.

    `openai` is a Chat Completions function tool; with `strict=True` it is marked strict when its
    schema allows (see `openai_strict_schema`). `gemini` is a `FunctionDeclaration` with JSON Schema
    parameters; `mcp` is the protocol's `Tool`; `default` and `anthropic` are `{name, description, input_schema}`.
    The providers' formats (`anthropic`, `openai`, `gemini`) get the schema as they take it (`provider_schema`).
    """
    name, description = tool.qualified_name, tool.description or tool.title or ""
    schema = copy.deepcopy(dict(tool.input_schema))
    if format in ("anthropic", "openai", "gemini"):
        schema = provider_schema(schema)
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
            "outputSchema": copy.deepcopy(dict(tool.output_schema))
            if tool.output_schema is not None
            else None,
            "annotations": dict(tool.annotations) or None,
        }
        definition.update({key: value for key, value in optional.items() if value is not None})
        return definition
    raise ValueError(
        f"unknown tool format {format!r}; use one of default, openai, anthropic, gemini, mcp"
    )


SearchDetail = Literal["names", "summaries", "full"]
SEARCH_DETAILS: tuple[SearchDetail, ...] = ("names", "summaries", "full")
"""How much of each tool `search_tools` returns: its name, its name and one line, or its whole definition."""


_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n")
"""Where a description's first sentence ends: it says what the tool does, the rest how (`summary` counts it again)."""


def summary(tool: HubTool) -> str:
    """The first sentence of the tool's description (or its title): what it does, in one line."""
    return first_sentence((tool.description or tool.title or "").strip())


def first_sentence(text: str) -> str:
    """The text up to its first sentence's end: what a tool does (the shortlist weighs it apart)."""
    return _SENTENCE_END.split(text, maxsplit=1)[0]


def search_result(tools: Sequence[HubTool], detail: SearchDetail = "full") -> dict[str, Any]:
    """What `search_tools` answers: the tools best first at the chosen detail, and the same tools
    grouped by server (servers in the order of their best tool), so an agent sees where each lives."""
    entries = []
    for tool in tools:
        if detail == "full":
            entries.append(tool_definition(tool))
        elif detail == "summaries":
            entries.append({"name": tool.qualified_name, "summary": summary(tool)})
        else:
            entries.append({"name": tool.qualified_name})
    servers: dict[str, list[str]] = {}
    for tool in tools:
        servers.setdefault(tool.server, []).append(tool.qualified_name)
    return {
        "tools": entries,
        "servers": [{"server": server, "tools": names} for server, names in servers.items()],
    }


def search_tool(limit: int) -> HubTool:
    """The `search_tools` meta-tool as a catalog entry, so every format renders it like any other tool."""
    return HubTool(
        qualified_name=SEARCH_TOOLS,
        server="",
        client="",
        tool=SEARCH_TOOLS,
        description=(
            "Find the tools for a task among the hub's tools. Describe the task in plain words; the result "
            "lists the best matching tools, best first and grouped by server, with their input schemas "
            "(detail 'full'), a one-line summary ('summaries') or only their names ('names'). Tools you "
            "already know by name can be asked for in 'names', to get their definitions."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The task, in plain words."},
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 50,
                    "description": f"At most; {limit} if unset.",
                },
                "detail": {
                    "type": "string",
                    "enum": list(SEARCH_DETAILS),
                    "description": "How much of each tool to return; 'full' if unset.",
                },
                "names": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Tools to describe by name in place of a search (the query then only says why).",
                },
            },
            "required": ["query"],
        },
        annotations={
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
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
    return (
        str(text)
        if text is not None
        else f"[resource: {resource.uri}, {resource.mime_type or 'binary'}]"
    )


def _result_text(result: CallToolResult) -> str:
    texts = [_block_text(block) for block in result.content]
    if (
        not any(block.type == "text" for block in result.content)
        and result.structured_content is not None
    ):
        texts.insert(0, json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(texts)


def tool_result(
    result: CallToolResult,
    format: ToolFormat,
    *,
    call_id: str | None = None,
    name: str | None = None,
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
        output = (
            result.structured_content
            if result.structured_content is not None
            else _result_text(result)
        )
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
        if (
            not any(block.type == "text" for block in result.content)
            and result.structured_content is not None
        ):
            content.append(
                {"type": "text", "text": json.dumps(result.structured_content, ensure_ascii=False)}
            )
        for block in result.content:
            if block.type == "image":
                source = {"type": "base64", "media_type": block.mime_type, "data": block.data}
                content.append({"type": "image", "source": source})
            else:
                content.append({"type": "text", "text": _block_text(block)})
        return {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": content,
            "is_error": bool(result.is_error),
        }
    raise ValueError(
        f"unknown tool format {format!r}; use one of default, openai, anthropic, gemini, mcp"
    )


def names_only(tools: Iterable[HubTool], names: Collection[str] | None) -> list[HubTool]:
    """The tools whose qualified name is in `names` (all of them when it is `None`)."""
    return [tool for tool in tools if names is None or tool.qualified_name in names]
