"""The snapshot file: one server's catalog as canonical, versioned JSON.

Entries keep the protocol's wire shape (camelCase keys), so a snapshot's `tools` array is itself a
valid `tools/list` result. The canonical form has sorted keys, entries sorted by name or URI, tools'
`required` names sorted (`canonical_tool`: JSON Schema reads them as a set, which a server may list
in another order on each start), two-space indentation and a trailing newline: an unchanged server
always gives byte-identical files. Sorting them needs no new format: an older release reads a
sorted file as the catalog it is, and a file it wrote reads here as the sorted one.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from operator import itemgetter
from pathlib import Path
from typing import Any

from codegen.errors import StubgenError
from codegen.fsutil import atomic_write_bytes
from codegen.identifiers import NAMING_RULES, UNRECORDED_RULES, naming_rules_apply
from codegen.runtime._schema_check import without_local_icons
from codegen.schemas import canonical_tool

SNAPSHOT_FORMAT = 6
"""The newest format this version reads and writes; bumped whenever a snapshot written by this
version could be misread by an older one. A snapshot is written in the oldest format that holds it:
format 2 only adds `missingMethods`, format 3 `clientCapabilities` and `parseTextJson`, format 4
`pythonNames`, format 5 `argumentNames` and `namingRules`, format 6 `skippedLists`, so a snapshot without them stays
format 1, byte for byte,
and an older mcp-stubgen given a newer file says to upgrade instead of misreading or half-refusing it."""
_FIRST_FORMAT_WITH_MISSING_METHODS = 2
_FIRST_FORMAT_WITH_CLIENT_SETTINGS = 3
_FIRST_FORMAT_WITH_PYTHON_NAMES = 4
_FIRST_FORMAT_WITH_KEYWORDS = 5
_FIRST_FORMAT_WITH_SKIPPED_LISTS = 6

JSON = dict[str, Any]

MAX_NESTING = 200
"""Objects and arrays nested deeper than this make a snapshot file an error. No server can send such a
catalog (the MCP SDK's JSON parser, pydantic-core's, refuses a message nested over 200 levels), and
not far beyond it Python's own parser and encoder run out of stack."""
TOO_DEEP = "recursion limit exceeded"
"""What pydantic-core's JSON parser, the MCP SDK's too, says of a text nested over `MAX_NESTING` levels."""


def canonical_json_bytes(value: Any) -> bytes:
    """Sorted keys, fixed indentation, UTF-8, trailing newline.

    A lone surrogate (legal in JSON, not in UTF-8) is written as its JSON escape, which is exactly
    what `backslashreplace` produces for it inside a string literal.
    """
    return _as_bytes(_canonical_text(value))


def _as_bytes(text: str) -> bytes:
    return (text + "\n").encode("utf-8", errors="backslashreplace")


def _canonical_text(value: Any) -> str:
    parts: list[str] = []
    try:
        _encode(value, "", parts)
    except _Unusual:
        return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    return "".join(parts)


class _Unusual(Exception):
    """A value `_encode` leaves to `json.dumps`, which encodes it or raises the error it should."""


@dataclass(frozen=True)
class _Encoded:
    """A value already written by `_canonical_text` at the top level, placed as is (re-indented):
    a snapshot's tools are encoded once, for their fingerprints and for the whole document."""

    text: str


def _encode(value: Any, indent: str, parts: list[str]) -> None:
    """`json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)` into `parts`.

    The standard library writes indented JSON with a generator per nesting level, in pure Python;
    this writes the same characters about twice as fast, and a thousand-tool snapshot is encoded on
    every run. Anything but plain JSON (non-string keys, NaN, other types) is left to `json.dumps`.
    """
    if isinstance(value, str):
        parts.append(encode_basestring(value))
    elif isinstance(value, _Encoded):
        parts.append(value.text.replace("\n", "\n" + indent))
    elif isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        if not all(isinstance(key, str) for key in value):
            raise _Unusual
        inner = indent + "  "
        separator = "{\n" + inner
        for key in sorted(value):
            parts.append(separator + encode_basestring(key) + ": ")
            _encode(value[key], inner, parts)
            separator = ",\n" + inner
        parts.append("\n" + indent + "}")
    elif isinstance(value, list | tuple):
        if not value:
            parts.append("[]")
            return
        inner = indent + "  "
        separator = "[\n" + inner
        for item in value:
            parts.append(separator)
            _encode(item, inner, parts)
            separator = ",\n" + inner
        parts.append("\n" + indent + "]")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif value is None:
        parts.append("null")
    elif isinstance(value, int):
        parts.append(int.__repr__(value))
    elif isinstance(value, float) and math.isfinite(value):
        parts.append(float.__repr__(value))
    else:
        raise _Unusual


def compact_json(value: Any) -> str:
    """A key-order-independent text of a JSON value (for cache keys, checks, and telling whether a value
    has a fast canonical text, `_indented_text`): the C encoder, many times faster than the indented
    canonical form a fingerprint hashes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _indented_text(value: Any, compact: str) -> str:
    """`_canonical_text(value)`, given `compact_json(value)`: pydantic-core writes a value with indentation
    in Rust, with the standard library's layout, escapes and key order when its compact text is the
    standard library's sorted one; it differs for a few numbers (`1e-05` is `0.00001`), for keys out of
    order, and refuses a lone surrogate, so then the value is encoded here, in Python, as ever (and a
    non-finite number, which it would write as `null` and JSON cannot hold, fails there)."""
    from pydantic_core import PydanticSerializationError, to_json

    try:
        if to_json(value, inf_nan_mode="null") == compact.encode("utf-8"):
            return to_json(value, indent=2).decode("utf-8")
    except (PydanticSerializationError, UnicodeEncodeError):
        pass
    return _canonical_text(value)


def fingerprint(value: Any) -> str:
    """A short content hash of any JSON value, independent of key order."""
    return hashlib.sha256(canonical_json_bytes(value)).hexdigest()[:16]


@dataclass(frozen=True, repr=False)
class Snapshot:
    """One server's catalog; entries are wire-shaped JSON objects, sorted and de-duplicated."""

    server: str
    protocol_version: str
    capabilities: JSON
    server_info: JSON | None = None
    instructions: str | None = None
    tools: tuple[JSON, ...] = ()
    resources: tuple[JSON, ...] = ()
    resource_templates: tuple[JSON, ...] = ()
    prompts: tuple[JSON, ...] = ()
    missing_methods: tuple[str, ...] = ()
    """Declared list methods the server does not implement (-32601), sorted."""
    skipped_lists: tuple[str, ...] = ()
    """Declared list methods not called, as the server's `skip_lists` setting says, sorted: their
    entries are not in the snapshot, whatever the server holds."""
    client_capabilities: tuple[str, ...] = ()
    """The client capabilities declared in the handshake that listed this catalog, sorted."""
    parse_text_json: bool = False
    """Whether the generated client falls back to a JSON text block for a missing `structuredContent`."""
    python_names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """The names the package gives, where they differ from what the naming rules alone give (`pythonNames`)."""
    argument_names: Mapping[str, Mapping[str, Mapping[str, str]]] = field(default_factory=dict)
    """The keywords the package gives the arguments of the tools and prompts (kind -> entry -> argument),
    for each entry whose keywords differ from what the naming rules alone give (`argumentNames`)."""
    naming_rules: int = NAMING_RULES
    """The naming rules the package's names follow (`identifiers.NAMING_RULES`). Where rules 1 to 3
    name everything alike, any of them is `UNRECORDED_RULES`; a file with a name they differ on and no
    `namingRules` was written before there were rules to tell apart, and is read as rules 1."""
    _rules_apply: bool = field(default=False, init=False, repr=False, compare=False)
    """Whether rules 1 to 3 can name anything of it differently (`naming_rules_apply`)."""

    def __post_init__(self) -> None:
        self._hold(copy_entries=True)

    def __repr__(self) -> str:
        """Counts, not entries: the generated repr of a thousand tools is megabytes, and asyncio
        writes it whenever it describes a task that returned a snapshot (Python 3.11's `asyncio.run`
        does so on every exit, through `signal.getsignal`): about 0.1 s per snapshot, for nothing."""
        counts = ", ".join(f"{attribute}={len(getattr(self, attribute))}" for attribute, _ in _ENTRY_LISTS)
        return f"Snapshot(server={self.server!r}, protocol_version={self.protocol_version!r}, {counts})"

    @classmethod
    def of_sorted_entries(
        cls,
        *,
        server: str,
        protocol_version: str,
        capabilities: JSON,
        server_info: JSON | None = None,
        instructions: str | None = None,
        tools: tuple[JSON, ...] = (),
        resources: tuple[JSON, ...] = (),
        resource_templates: tuple[JSON, ...] = (),
        prompts: tuple[JSON, ...] = (),
        missing_methods: tuple[str, ...] = (),
        skipped_lists: tuple[str, ...] = (),
        client_capabilities: tuple[str, ...] = (),
        parse_text_json: bool = False,
        python_names: Mapping[str, Mapping[str, str]] | None = None,
        argument_names: Mapping[str, Mapping[str, Mapping[str, str]]] | None = None,
        naming_rules: int = NAMING_RULES,
        names_sorted: bool = False,
    ) -> Snapshot:
        """A snapshot of entries already held as a reader of the file sees them: plain JSON, keys
        sorted all the way down (`sorted_entries`), shared with nobody; with `names_sorted`, the tools'
        sets of names too (`canonical_tool` would move nothing: a file told so by `_names_sorted_in`).

        Discovery builds its entries that way while decoding each page, so copying them again here
        would only repeat the work: for a thousand tools the copy costs about a tenth of a second,
        as much as listing them. Everything else is done as by the constructor.
        """
        snapshot = object.__new__(cls)
        values = {
            "server": server,
            "protocol_version": protocol_version,
            "capabilities": capabilities,
            "server_info": server_info,
            "instructions": instructions,
            "tools": tools,
            "resources": resources,
            "resource_templates": resource_templates,
            "prompts": prompts,
            "missing_methods": missing_methods,
            "skipped_lists": skipped_lists,
            "client_capabilities": client_capabilities,
            "parse_text_json": parse_text_json,
            "python_names": python_names or {},
            "argument_names": argument_names or {},
            "naming_rules": naming_rules,
        }
        for name, value in values.items():
            object.__setattr__(snapshot, name, value)
        snapshot._hold(copy_entries=False, names_sorted=names_sorted)
        return snapshot

    def _hold(self, *, copy_entries: bool, names_sorted: bool = False) -> None:
        # No icon of the server's machine (`without_local_icons`): the same server gives every
        # machine the same bytes, and no home folder's path reaches a committed file.
        tools = tuple((without_local_icons if names_sorted else canonical_tool)(tool) for tool in self.tools)
        object.__setattr__(self, "tools", _sorted_unique(self.server, "tool", tools, "name"))
        for attribute, kind, key in (
            ("resources", "resource", "uri"),
            ("resource_templates", "resource template", "uriTemplate"),
            ("prompts", "prompt", "name"),
        ):
            entries = tuple(without_local_icons(entry) for entry in getattr(self, attribute))
            object.__setattr__(self, attribute, _sorted_unique(self.server, kind, entries, key))
        if self.server_info is not None:
            object.__setattr__(self, "server_info", without_local_icons(self.server_info))
        object.__setattr__(self, "missing_methods", tuple(sorted(set(self.missing_methods))))
        object.__setattr__(self, "skipped_lists", tuple(sorted(set(self.skipped_lists))))
        object.__setattr__(self, "client_capabilities", tuple(sorted(set(self.client_capabilities))))
        names = {kind: dict(sorted(entries.items())) for kind, entries in sorted(self.python_names.items()) if entries}
        object.__setattr__(self, "python_names", names)
        arguments = {
            kind: {name: dict(sorted(keywords.items())) for name, keywords in sorted(entries.items())}
            for kind, entries in sorted(self.argument_names.items())
            if entries
        }
        object.__setattr__(self, "argument_names", arguments)
        object.__setattr__(self, "_rules_apply", naming_rules_apply(self))
        if not self._rules_apply and self.naming_rules < UNRECORDED_RULES:  # they name it alike: one file
            object.__setattr__(self, "naming_rules", UNRECORDED_RULES)
        # Hold the entries exactly as a reader of the file will see them (keys sorted all the way
        # down, nothing shared with the caller), so what is generated from a fresh snapshot equals
        # what is generated from its file.
        if copy_entries:
            document = _sorted_copy(self.to_json())
        else:
            document = _sorted_copy({"capabilities": self.capabilities, "serverInfo": self.server_info})
        object.__setattr__(self, "capabilities", document["capabilities"])
        object.__setattr__(self, "server_info", document.get("serverInfo"))
        if copy_entries:
            for attribute, key in _ENTRY_LISTS:
                object.__setattr__(self, attribute, tuple(document[key]))

    def to_json(self) -> JSON:
        recorded_rules = self.naming_rules > UNRECORDED_RULES or (self._rules_apply and self.naming_rules != 1)
        if self.skipped_lists:
            version = _FIRST_FORMAT_WITH_SKIPPED_LISTS
        elif self.argument_names or recorded_rules:
            version = _FIRST_FORMAT_WITH_KEYWORDS
        elif self.python_names:
            version = _FIRST_FORMAT_WITH_PYTHON_NAMES
        elif self.client_capabilities or self.parse_text_json:
            version = _FIRST_FORMAT_WITH_CLIENT_SETTINGS
        else:
            version = _FIRST_FORMAT_WITH_MISSING_METHODS if self.missing_methods else 1
        document: JSON = {
            "format": version,
            "server": self.server,
            "protocolVersion": self.protocol_version,
            "capabilities": self.capabilities,
            "tools": list(self.tools),
            "resources": list(self.resources),
            "resourceTemplates": list(self.resource_templates),
            "prompts": list(self.prompts),
        }
        if self.server_info is not None:
            document["serverInfo"] = self.server_info
        if self.instructions is not None:
            document["instructions"] = self.instructions
        if self.missing_methods:
            document["missingMethods"] = list(self.missing_methods)
        if self.skipped_lists:
            document["skippedLists"] = list(self.skipped_lists)
        if self.client_capabilities:
            document["clientCapabilities"] = list(self.client_capabilities)
        if self.parse_text_json:
            document["parseTextJson"] = True
        if self.python_names:
            document["pythonNames"] = {kind: dict(entries) for kind, entries in self.python_names.items()}
        if recorded_rules:
            document["namingRules"] = self.naming_rules
        if self.argument_names:
            document["argumentNames"] = {
                kind: {name: dict(keywords) for name, keywords in entries.items()}
                for kind, entries in self.argument_names.items()
            }
        return document

    def canonical_bytes(self) -> bytes:
        return self._canonical_bytes

    @functools.cached_property
    def _canonical_bytes(self) -> bytes:
        """Made on first use: encoding a thousand tools with indentation takes a Python loop, and
        `drift` never needs the bytes. Each tool is encoded once, here and for its fingerprint
        (JSON strings escape their newlines, so re-indenting a tool's text is a plain replace)."""
        document = self.to_json()
        document["tools"] = [_Encoded(text) for text in self._tool_texts]
        parts: list[str] = []
        try:
            _encode(document, "", parts)
        except _Unusual:
            return canonical_json_bytes(self.to_json())
        return _as_bytes("".join(parts))

    @functools.cached_property
    def compact_tools(self) -> tuple[str, ...]:
        """Each tool's `compact_json`, made once: a generate keys its cache and checks its text with them."""
        return tuple(compact_json(tool) for tool in self.tools)

    def hold_compact_texts(self, by_identity: Mapping[int, str]) -> None:
        """Keep as `compact_tools` the texts a reader made of the very tool objects this snapshot holds
        (by `id`), when it holds them all (none was copied to drop an icon)."""
        texts = tuple(by_identity.get(id(tool)) for tool in self.tools)
        if None not in texts:
            self.__dict__["compact_tools"] = texts

    @functools.cached_property
    def _tool_texts(self) -> tuple[str, ...]:
        """Each tool's canonical text, in Rust where that gives the same text (`_indented_text`): the
        Python encoder took a third of a second for a thousand tools, on every generate."""
        return tuple(
            _indented_text(tool, compact) for tool, compact in zip(self.tools, self.compact_tools, strict=True)
        )

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(self._canonical_bytes).hexdigest()[:16]

    @functools.cached_property
    def tool_fingerprints(self) -> dict[str, str]:
        """Each tool's fingerprint by name (`fingerprint(tool)`), computed once: checking a package and
        rendering it both need them."""
        return {
            tool["name"]: hashlib.sha256(_as_bytes(text)).hexdigest()[:16]
            for tool, text in zip(self.tools, self._tool_texts, strict=True)
        }


_ENTRY_LISTS = (
    ("tools", "tools"),
    ("resources", "resources"),
    ("resource_templates", "resourceTemplates"),
    ("prompts", "prompts"),
)


def _sorted_object(pairs: list[tuple[str, Any]]) -> JSON:
    return dict(sorted(pairs, key=itemgetter(0)))


def sorted_entries(text: str | bytes, key: str) -> list[JSON]:
    """The `key` list of a JSON document, every object's keys sorted as it is decoded: what
    `_sorted_copy` makes of decoded values, in one pass instead of a decode, an encode and a decode."""
    entries: list[JSON] = json.loads(text, object_pairs_hook=_sorted_object)[key]
    return entries


def sorted_copy(value: Any) -> Any:
    """A copy of JSON values with keys sorted all the way down, failing as `canonical_json_bytes` would."""
    return _sorted_copy({"value": value})["value"]


def _sorted_copy(document: JSON) -> JSON:
    """`json.loads(canonical_json_bytes(document))`, through the C encoder's compact form: the same
    values (indentation is only whitespace) several times faster. What that encoder refuses is
    handed to `canonical_json_bytes`, so a value it cannot write fails with the same error as ever."""
    try:
        text = json.dumps(document, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        canonical_json_bytes(document)
        raise
    result: JSON = json.loads(text)
    return result


def _sorted_unique(server: str, kind: str, entries: tuple[JSON, ...], key: str) -> tuple[JSON, ...]:
    seen: set[str] = set()
    for entry in entries:
        if entry[key] in seen:
            raise StubgenError(
                f"server {server!r}: {kind} {entry[key]!r} is listed twice; "
                f"the server's catalog must name each {kind} once"
            )
        seen.add(entry[key])
    return tuple(sorted(entries, key=lambda entry: entry[key]))


def _conflict_line(data: bytes) -> int | None:
    """The line of the first merge-conflict marker git wrote into the file, if any (no line of a JSON
    document starts with `<<<<<<< `)."""
    if data.startswith(b"<<<<<<< "):
        return 1
    at = data.find(b"\n<<<<<<< ")
    return None if at < 0 else data.count(b"\n", 0, at) + 2


def parse_snapshot(text: str | bytes, source: str) -> Snapshot:
    """Read a snapshot document; `source` names it in errors."""
    too_deep = (
        f"{source}: nested deeper than {MAX_NESTING} levels, which no MCP server can send, so the file was "
        "edited or damaged: restore it from version control or re-run `mcp-stubgen snapshot`"
    )
    try:
        document = _load_json(text)
    except RecursionError:
        raise StubgenError(too_deep) from None
    except (ValueError, UnicodeDecodeError) as error:
        line = _conflict_line(text if isinstance(text, bytes) else text.encode())
        if line is not None:
            raise StubgenError(
                f"{source}: an unresolved merge conflict (`<<<<<<<` at line {line}); keep one side "
                "(`git checkout --ours` or `--theirs` on the file) or re-run `mcp-stubgen snapshot`"
            ) from None
        raise StubgenError(f"{source}: not a JSON snapshot ({error}); re-run `mcp-stubgen snapshot`") from None
    if not isinstance(document, dict):
        raise StubgenError(f"{source}: not a snapshot (expected a JSON object); re-run `mcp-stubgen snapshot`")
    version = document.get("format")
    if not (type(version) is int and 1 <= version <= SNAPSHOT_FORMAT):
        if isinstance(version, int) and not isinstance(version, bool) and version > SNAPSHOT_FORMAT:
            raise StubgenError(
                f"{source}: snapshot format {version} is newer than this mcp-stubgen understands "
                f"(format {SNAPSHOT_FORMAT}); upgrade mcp-stubgen"
            )
        raise StubgenError(
            f"{source}: unknown snapshot format {version!r} (expected 1 to {SNAPSHOT_FORMAT}); "
            "re-run `mcp-stubgen snapshot`"
        )
    rules = document.get("namingRules")
    if type(rules) is int and rules > NAMING_RULES:
        raise StubgenError(
            f"{source}: naming rules {rules} are newer than this mcp-stubgen knows "
            f"(1 to {NAMING_RULES}); upgrade mcp-stubgen"
        )
    if not _plainly_valid(document):
        from codegen.snapshot.file_schema import first_error  # pydantic loads for a file that may be invalid

        problem = first_error(document)
        if problem is not None:
            raise StubgenError(f"{source}: invalid snapshot {problem}")
    try:
        tools = document.get("tools", ())
        parts = [{key: value for key, value in document.items() if key != "tools"}, *tools]
        text_of = functools.partial(
            json.dumps, sort_keys=True, ensure_ascii=False, allow_nan=False, separators=(",", ":")
        )
        texts = [text_of(part) for part in parts]
        build: Callable[..., Snapshot] = Snapshot
        if list(document) == sorted(document) and _sorted_all_the_way(parts, texts):
            names_sorted = all(_names_sorted_in(text) for text in texts)
            build = functools.partial(Snapshot.of_sorted_entries, names_sorted=names_sorted)
        snapshot = build(
            server=document["server"],
            protocol_version=document["protocolVersion"],
            capabilities=document["capabilities"],
            server_info=document.get("serverInfo"),
            instructions=document.get("instructions"),
            tools=tuple(tools),
            resources=tuple(document.get("resources", ())),
            resource_templates=tuple(document.get("resourceTemplates", ())),
            prompts=tuple(document.get("prompts", ())),
            missing_methods=tuple(document.get("missingMethods", ())),
            skipped_lists=tuple(document.get("skippedLists", ())),
            client_capabilities=tuple(document.get("clientCapabilities", ())),
            parse_text_json=document.get("parseTextJson", False),
            python_names=document.get("pythonNames", {}),
            argument_names=document.get("argumentNames", {}),
            naming_rules=document.get("namingRules", 1),
        )
        if build is not Snapshot:
            snapshot.hold_compact_texts(dict(zip(map(id, tools), texts[1:], strict=True)))
        return snapshot
    except ValueError:  # the canonical JSON of a number JSON cannot hold, found only when it fails
        found = find_in_json(document, is_non_finite)
        if found is None:
            raise
        where = "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in found[0])
        raise StubgenError(
            f"{source}: {where}: a number too large for a float ({found[1]}), which JSON cannot hold and no "
            "MCP server can send; fix the file or re-run `mcp-stubgen snapshot`"
        ) from None


_ENTRY_KEYS = {
    "tools": ("name",),
    "resources": ("uri", "name"),
    "resourceTemplates": ("uriTemplate", "name"),
    "prompts": ("name",),
}
"""Each entry list of a snapshot file, with the keys its entries must hold as text."""
_PYTHON_NAME_KINDS = {"tools", "resources", "resourceTemplates", "prompts", "taskStarters"}
_ARGUMENT_NAME_KINDS = {"tools", "prompts"}
_NAMING_RULES = frozenset(range(1, NAMING_RULES + 1))
_CLIENT_CAPABILITIES = {"elicitation", "roots", "sampling"}
_LIST_METHODS = {"prompts/list", "resources/list", "resources/templates/list", "tools/list"}
_FILE_KEYS = {
    *_ENTRY_KEYS,
    *("format", "server", "protocolVersion", "serverInfo", "capabilities", "instructions", "missingMethods"),
    *("clientCapabilities", "parseTextJson", "pythonNames", "argumentNames", "namingRules", "skippedLists"),
}


def _plainly_valid(document: JSON) -> bool:
    """Whether a document whose `format` was checked is plainly a snapshot file: every key known and
    every value of exactly the type `file_schema.SnapshotFile` asks for. True only where that model
    finds no error, so only another document (or a wrong one) loads pydantic's models to be judged:
    their import was a tenth of a generate with one tool changed."""
    if not _FILE_KEYS.issuperset(document):
        return False
    if not (type(document.get("server")) is str and type(document.get("protocolVersion")) is str):
        return False
    if type(document.get("capabilities")) is not dict or type(document.get("serverInfo", {})) not in (dict, type(None)):
        return False
    if (
        type(document.get("instructions", "")) not in (str, type(None))
        or type(document.get("parseTextJson", False)) is not bool
    ):
        return False
    for key, fields in _ENTRY_KEYS.items():
        entries = document.get(key, [])
        if type(entries) is not list or not all(
            type(entry) is dict and all(type(entry.get(field)) is str for field in fields) for entry in entries
        ):
            return False
    if not all(type(entry.get("inputSchema")) is dict for entry in document.get("tools", [])):
        return False
    if not all(
        type(entry.get("arguments", [])) in (list, type(None))
        and all(type(item) is dict for item in entry.get("arguments") or [])
        for entry in document.get("prompts", [])
    ):
        return False
    missing, capabilities = document.get("missingMethods", []), document.get("clientCapabilities", [])
    if type(missing) is not list or not all(type(method) is str for method in missing):
        return False
    skipped = document.get("skippedLists", [])
    if type(skipped) is not list or not all(type(method) is str and method in _LIST_METHODS for method in skipped):
        return False
    if type(capabilities) is not list or not all(
        type(item) is str and item in _CLIENT_CAPABILITIES for item in capabilities
    ):
        return False
    names, arguments = document.get("pythonNames", {}), document.get("argumentNames", {})
    return (
        type(document.get("namingRules", 1)) is int
        and document.get("namingRules", 1) in _NAMING_RULES
        and type(names) is dict
        and _PYTHON_NAME_KINDS.issuperset(names)
        and all(_names_table(table) for table in names.values())
        and type(arguments) is dict
        and _ARGUMENT_NAME_KINDS.issuperset(arguments)
        and all(
            type(entries) is dict and all(_names_table(table) for table in entries.values())
            for entries in arguments.values()
        )
    )


def _names_table(table: object) -> bool:
    return type(table) is dict and all(type(value) is str for value in table.values())


def _sorted_all_the_way(parts: list[JSON], texts: list[str]) -> bool:
    """Whether every object in a freshly read document's parts (the document without its tools, then
    each tool) has its keys in order (a snapshot file's always are), so that the snapshot can hold its
    entries as they are (`Snapshot.of_sorted_entries`) instead of a sorted copy: told by
    pydantic-core's text of each part, in its order, being its `texts`, the standard library's compact
    sorted one (which raised `ValueError` for a non-finite number, as the copy would). Each tool's
    text is then its `compact_json`, which a generate needs anyway (`Snapshot.hold_compact_texts`)."""
    from pydantic_core import PydanticSerializationError, to_json

    try:
        return all(to_json(part) == text.encode("utf-8") for part, text in zip(parts, texts, strict=True))
    except (PydanticSerializationError, UnicodeEncodeError):
        return False


_REQUIRED = '"required":['
_PLAIN_NAMES = re.compile(r'"required":\[("[^"\\]*"(?:,"[^"\\]*")*)?\]')
"""A `required` key's list of names in compact JSON, when no name holds a quote or an escape: the
text between its outer quotes, split at `","`, is then its names."""


def _names_sorted_in(text: str) -> bool:
    """Whether `canonical_tool` would move nothing in the document whose compact sorted text this is:
    every `required` key's list anywhere in it (instance data's too) is plain names in order, and no
    `dependentRequired` or `dependencies` is there. A file written sorted is read on every run, and
    this look at the text the keys' check made costs a fifth of walking the schemas of its tools; a
    name with a quote or an escape, or a list of anything else, is left to the walk."""
    if '"dependentRequired":' in text or '"dependencies":' in text:
        return False
    lists = _PLAIN_NAMES.findall(text)
    if len(lists) != text.count(_REQUIRED):
        return False
    for listed in lists:
        names = listed[1:-1].split('","')
        if names != sorted(names):
            return False
    return True


def is_non_finite(value: Any) -> bool:
    """A float JSON cannot hold: `1e999` reads as infinity, and `json.dumps` then fails (or pydantic writes `null`)."""
    return isinstance(value, float) and not math.isfinite(value)


def find_in_json(document: Any, wanted: Callable[[Any], bool]) -> tuple[tuple[str | int, ...], Any] | None:
    """The path to the first value in a JSON document that is `wanted`, and the value, or None."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend(((*path, key), item) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((*path, index), item) for index, item in reversed(list(enumerate(value))))
        elif wanted(value):
            return path, value
    return None


def _load_json(text: str | bytes) -> Any:
    """A JSON document no deeper than `MAX_NESTING` (every later stage recurses into it), else
    `RecursionError`.

    pydantic-core's parser checks the depth as it reads, and is no slower than the standard
    library's; what it refuses for another reason goes to `json.loads`, for the error users know or
    for what only that reads (a lone surrogate escape), and is then measured level by level.
    """
    from pydantic_core import from_json

    try:
        return from_json(text)
    except ValueError as error:
        if TOO_DEEP in str(error):
            raise RecursionError from None
    document = json.loads(text)
    if _nested_deeper_than(document, MAX_NESTING):
        raise RecursionError
    return document


def _nested_deeper_than(document: Any, limit: int) -> bool:
    """Whether objects and arrays nest more than `limit` levels, found without recursing."""
    level: list[Any] = [document] if isinstance(document, dict | list) else []
    for _ in range(limit):
        level = [
            inner
            for value in level
            for inner in (value.values() if isinstance(value, dict) else value)
            if isinstance(inner, dict | list)
        ]
        if not level:
            return False
    return True


_TOOLS_OPEN = b'\n  "tools": [\n'
_TOOLS_CLOSE = b"\n  ]\n}\n"
_TOOL_OPEN = b"    {\n"
_TOOL_CLOSE = b"\n    }"
_TOOL_BREAK = _TOOL_CLOSE + b",\n" + _TOOL_OPEN
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_TOOL_DEPTH = 2
"""The levels a snapshot file nests a tool in: the document, then its `tools` list."""


def tool_spans(source: bytes) -> tuple[bytes, list[memoryview]] | None:
    """A snapshot file's bytes cut where `write_snapshot` puts its tools (last of its keys): everything
    before the first tool, then each tool's text as the file holds it (indented inside the list, a
    view of `source`: a thousand tools' copies were a tenth of a redo); None for a file not laid out
    so, or without tools. The cut proves nothing about the text: a tool's span is read by
    `read_tool_span`, and what precedes the tools is trusted only where it is the same bytes as a
    file read whole before (`last_render`)."""
    start = source.find(_TOOLS_OPEN)
    if start < 0 or not source.endswith(_TOOLS_CLOSE):
        return None
    frame_end = start + len(_TOOLS_OPEN)
    body_end = len(source) - len(_TOOLS_CLOSE)
    if not source.startswith(_TOOL_OPEN, frame_end) or not source.endswith(_TOOL_CLOSE, frame_end, body_end):
        return None
    whole = memoryview(source)
    spans: list[memoryview] = []
    begin = frame_end
    cut = source.find(_TOOL_BREAK, begin, body_end)
    while cut >= 0:
        spans.append(whole[begin : cut + len(_TOOL_CLOSE)])
        begin = cut + len(_TOOL_BREAK) - len(_TOOL_OPEN)
        cut = source.find(_TOOL_BREAK, begin, body_end)
    spans.append(whole[begin:body_end])
    return source[:frame_end], spans


def read_tool_span(span: bytes | memoryview) -> tuple[JSON, str, str] | None:
    """A tool cut from a file by `tool_spans`, its `compact_json` and its fingerprint, when the span is
    exactly what `write_snapshot` writes for a tool a snapshot file may hold (`_plainly_valid`, no lone
    surrogate, nothing `canonical_tool` would move); None for anything else, which reading the whole
    file then judges."""
    span = bytes(span)
    if _SURROGATE_ESCAPE.search(span):
        return None
    try:  # the standard library's reader and writer: pydantic-core loads in 20 ms, for one tool
        tool = json.loads(span)
        if _nested_deeper_than(tool, MAX_NESTING - _TOOL_DEPTH):  # as deep in the file as its reader allows
            return None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if type(tool) is not dict or not _plainly_valid(
        {"server": "", "protocolVersion": "", "capabilities": {}, "tools": [tool]}
    ):
        return None
    if canonical_tool(tool) is not tool:
        return None
    try:
        compact = compact_json(tool)
        text = _canonical_text(tool)
    except ValueError:  # a number JSON cannot hold
        return None
    if ("    " + text.replace("\n", "\n    ")).encode("utf-8") != span:
        return None
    return tool, compact, hashlib.sha256(_as_bytes(text)).hexdigest()[:16]


def read_snapshot_bytes(path: Path) -> bytes:
    """A snapshot file's bytes, unparsed; a missing or unreadable file is a `StubgenError`."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise StubgenError(f"{path}: no such snapshot; run `mcp-stubgen snapshot` first") from None
    except OSError as error:
        raise StubgenError(f"{path}: cannot read snapshot ({error.strerror})") from None


def load_snapshot(path: Path) -> Snapshot:
    return parse_snapshot(read_snapshot_bytes(path), str(path))


def write_snapshot(path: Path, snapshot: Snapshot) -> bool:
    """Write atomically; return False when the file already held exactly these bytes."""
    return atomic_write_bytes(path, snapshot.canonical_bytes())
