"""The one place that turns untrusted catalog names into Python identifiers.

Every name the generator writes into code comes from here: sanitized to ASCII, cased, escaped away
from keywords, soft keywords, builtins, `self` and the generated wrapper's own members, and made unique
in a deterministic order. The name on the wire is never changed; only the Python spelling is.
"""

from __future__ import annotations

import builtins
import keyword
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from codegen.errors import StubgenError
from codegen.runtime._hub_catalog import HUB_SEPARATOR as HUB_SEPARATOR
from codegen.runtime._hub_catalog import SEARCH_TOOLS, qualified_name

CALL_OPTIONS = "call_options"
"""The keyword-only parameter, last in every generated method, taking the SDK's per-call options."""

RESERVED_WORDS = (
    frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins)) | {"self", CALL_OPTIONS}
)
"""Names a generated parameter or method never takes: rebinding them would confuse readers and linters,
and a tool's parameter named `call_options` would hide the per-call options."""

CLIENT_MEMBERS = frozenset(
    {
        "connect",
        "connect_sync",
        "verify",
        "mcp_client",
        "async_client",
        "server_name",
        "tool_fingerprints",
        "snapshot_fingerprint",
        "instructions",
        "client_capabilities",
        "parse_text_json",
        "tool_task_support",
        *(name for name in dir(object) if name.startswith("__")),
    }
)
"""Public members of the runtime's `GeneratedClient` and `SyncClient`; a test keeps this in step with the runtime file."""

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_MAX_LENGTH = 80


def words(name: str) -> list[str]:
    """Split any name into ASCII words; `API-get-user`, `getUser` and `math.multiply` all split cleanly."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return _WORD.findall(ascii_name)


def snake_case(name: str, fallback: str) -> str:
    """A lowercase identifier made of the name's words; `fallback` stands in when nothing usable is left."""
    parts = [word.lower() for word in words(name)]
    text = "_".join(parts)[:_MAX_LENGTH].strip("_") or fallback
    if text[0].isdigit():
        text = f"{fallback}_{text}"
    return text


def pascal_case(name: str, fallback: str) -> str:
    """A class-style identifier made of the name's words; acronyms keep their capitals (`API`)."""
    parts = [word if word.isupper() else word[:1].upper() + word[1:].lower() for word in words(name)]
    text = "".join(parts)[:_MAX_LENGTH] or fallback
    if text[0].isdigit():
        text = f"{fallback}{text}"
    return text


def escape(identifier: str, taken: Iterable[str] = ()) -> str:
    """Append underscores until the name is neither a reserved word nor in `taken`."""
    reserved = RESERVED_WORDS.union(taken)
    while identifier in reserved:
        identifier += "_"
    return identifier


@dataclass(frozen=True)
class Named:
    """One catalog item's wire name and the Python identifier chosen for it."""

    wire: str
    python: str


def assign_names(
    wire_names: Sequence[str],
    *,
    fallback: str,
    prefix: str = "",
    taken: Iterable[str] = (),
    labels: Mapping[str, str] | None = None,
    method_names: Mapping[str, str] | None = None,
    kind: str = "name",
    where: str = "",
) -> list[Named]:
    """Give each wire name a unique snake_case identifier, deterministically.

    A name that is already the clean identifier keeps it; the others are then handled in sorted order
    and get `_2`, `_3`, ... on a collision, so adding a tool never method_names one that was already exact.
    An explicit rename that collides with another name cannot be resolved and is an error naming both.
    `labels` gives the text to name an item after when its key is not its name (a resource's URI).
    """
    method_names = method_names or {}
    labels = labels or {}
    reserved = set(taken)
    chosen: dict[str, str] = {}
    owners: dict[str, str] = {}
    for wire, python in sorted(method_names.items()):
        if wire not in wire_names:
            continue
        if not python.isidentifier() or python in RESERVED_WORDS or python in reserved:
            raise StubgenError(f"{where}rename of {kind} {wire!r} to {python!r} is not a usable Python name")
        if python in owners:
            raise StubgenError(
                f"{where}{kind}s {owners[python]!r} and {wire!r} are both named_methods to {python!r}; "
                "give them different names"
            )
        chosen[wire] = python
        owners[python] = wire
    bases = {
        wire: escape(prefix + snake_case(labels.get(wire, wire), fallback), reserved)
        for wire in wire_names
        if wire not in chosen
    }
    exact = sorted(wire for wire, base in bases.items() if base == prefix + labels.get(wire, wire))
    for wire in (*exact, *sorted(wire for wire in bases if wire not in exact)):
        candidate, counter = bases[wire], 1
        if wire in exact and owners.get(candidate) in method_names:
            raise StubgenError(
                f"{where}{kind} {wire!r} and the rename of {owners[candidate]!r} both want the Python name "
                f"{candidate!r}; rename one of them"
            )
        while candidate in owners:
            counter += 1
            candidate = f"{bases[wire]}_{counter}"
        chosen[wire] = candidate
        owners[candidate] = wire
    return [Named(wire, chosen[wire]) for wire in wire_names]


START_PREFIX = "start_"
"""What a task tool's second method is called: `start_` and its method's name (`start_research`)."""


def start_method_names(methods: Sequence[str], taken: Iterable[str]) -> list[str]:
    """The `start_<method>` name of each task tool's method, given after every other member is named,
    so a task tool never takes a name another member had; a clash gets a trailing `_`."""
    return [named.python for named in assign_names(methods, fallback="tool", prefix=START_PREFIX, taken=taken)]


def class_name(name: str, suffix: str) -> str:
    """A PascalCase class name ending in `suffix`, e.g. `weather` -> `WeatherClient`."""
    return pascal_case(name, "Server") + suffix


def package_name(server: str) -> str:
    """The generated package's folder and import name for a server id."""
    return escape(snake_case(server, "server"))


def model_stems(method_names: Sequence[str]) -> list[str]:
    """A unique PascalCase stem per tool for its models (`GetUser` + `Input`), from its unique method name."""
    stems: list[str] = []
    for method in method_names:
        base = pascal_case(method, "Tool")
        candidate, counter = base, 1
        while candidate in stems:
            counter += 1
            candidate = f"{base}{counter}"
        stems.append(candidate)
    return stems


HUB_PACKAGE = "hub"
"""The hub's folder and import name, beside the servers' own packages under the output folder."""

HUB_MEMBERS = frozenset(
    {
        "call",
        "clients",
        "connect",
        "connect_sync",
        "hub",
        "sync_client_classes",
        "client_classes",
        "connect_from_config",
        "difference",
        "filters",
        "following_list_changes",
        "live_catalog",
        "live_tools",
        "relist",
        "separator",
        "search_tool_definition",
        "shortlist",
        "tool_definitions",
        "tools",
        "verify",
        "cls",
        "client_options",
        "servers",
        "timeout",
        *(name for name in dir(object) if name.startswith("__")),
    }
)
"""Public members of the runtime's `GeneratedHub` and `GeneratedSyncHub`, and the names `Hub.connect` binds;
a test keeps them in step."""


@dataclass(frozen=True)
class QualifiedTool:
    """One tool in the hub's namespaced catalog: its qualified name, with server and tool kept, never split apart."""

    qualified_name: str
    server: str
    tool: str


def hub_attribute(server: str) -> str:
    """The hub attribute (and `Hub.connect` keyword) holding a server's client: its package name, escaped."""
    return escape(package_name(server), HUB_MEMBERS)


def qualified_tools(catalog: Mapping[str, Sequence[str]], separator: str = HUB_SEPARATOR) -> list[QualifiedTool]:
    """Every server's tools under their qualified names, sorted by name; two tools sharing one is an error.

    The name is only a label: the hub routes it by looking it up in a table that keeps the server id
    and the tool's own name, so mapping characters or shortening never changes what is called.
    """
    if not re.fullmatch(r"[_.-]{1,4}", separator):
        raise StubgenError(
            f"hub: hub_separator {separator!r} must be one to four of '_', '-' and '.' (default {HUB_SEPARATOR!r})"
        )
    owners: dict[str, QualifiedTool] = {}
    for server in sorted(catalog):
        for tool in sorted(catalog[server]):
            qualified = QualifiedTool(qualified_name(server, tool, separator), server, tool)
            if qualified.qualified_name == SEARCH_TOOLS:
                raise StubgenError(
                    f"hub: tool {tool!r} of server {server!r} gets the qualified name {SEARCH_TOOLS!r}, which is the "
                    "hub's own meta-tool; rename the server id or choose another hub_separator"
                )
            other = owners.get(qualified.qualified_name)
            if other is not None:
                raise StubgenError(
                    f"hub: tool {other.tool!r} of server {other.server!r} and tool {tool!r} of server {server!r} "
                    f"both get the qualified name {qualified.qualified_name!r}; rename one of the server ids "
                    "or choose another hub_separator"
                )
            owners[qualified.qualified_name] = qualified
    return [owners[name] for name in sorted(owners)]
