"""The one place that turns untrusted catalog names into Python identifiers.

Every name the generator writes into code comes from here: sanitized (to ASCII, or by naming rules 5
to letters of any script Python takes in an identifier; by rules 7 with Latin letters spelled in
ASCII rather than dropped), cased, escaped away
from keywords, soft keywords, builtins, `self` and the generated wrapper's own members, and made unique
in a deterministic order. The name on the wire is never changed; only the Python spelling is.
Names are read as Python 3.11 reads them on every Python (`codegen.unicode14.as_named`).
"""

from __future__ import annotations

import builtins
import keyword
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote

from codegen.errors import StubgenError
from codegen.runtime._hub_catalog import HUB_SEPARATOR as HUB_SEPARATOR
from codegen.runtime._hub_catalog import SEARCH_TOOLS, api_safe, latin_spelled, qualified_name
from codegen.unicode14 import as_named

if TYPE_CHECKING:
    from codegen.snapshot import Snapshot

CALL_OPTIONS = "call_options"
"""The keyword-only parameter, last in every generated method, taking the SDK's per-call options."""

LATER_BUILTINS = frozenset({"PythonFinalizationError", "_IncompleteInputError"})
"""The builtins Python 3.12 and 3.13 added to 3.11's (3.12's soft keyword `type` is one already):
reserved on every Python, so one snapshot's names are the same whichever Python generates them."""

RESERVED_WORDS = (
    frozenset(keyword.kwlist)
    | frozenset(keyword.softkwlist)
    | frozenset(dir(builtins))
    | LATER_BUILTINS
    | {"self", CALL_OPTIONS}
)
"""Names a generated parameter or method never takes: rebinding them would confuse readers and linters,
and a tool's parameter named `call_options` would hide the per-call options."""

RUNTIME_EXPORTS = (
    *("NOT_GIVEN", "AuthError", "CallOptions", "CatalogDriftError", "MissingHandlerError", "NoStructuredContentError"),
    *("NotGiven", "PaginationError", "RequestOptions", "RequestTimeoutError", "ServerError", "StubgenClientError"),
    *("ToolArgumentsError", "ToolContentError", "ToolError", "ToolResult", "ToolResultError"),
    *("UnauthorizedError", "UnknownToolError", "authorized_transport", "stored_auth"),
)
"""What a package's `__init__.py` imports from the runtime's `_runtime` and re-exports, whatever the
catalog, in isort's order, by naming rules 1 to 13 (`runtime_exports`)."""
TASK_EXPORTS = ("SyncTaskHandle", "TaskCancelledError", "TaskHandle", "TaskSupportError")
"""What it re-exports from the runtime's `_tasks` when a tool supports tasks. No model class takes
one of these names, nor one of `runtime_exports` (`modelgen._renamed_classes`, `package_names`)."""


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
        "protocol_version",
        *(name for name in dir(object) if name.startswith("__")),
    }
)
"""Public members of the runtime's `GeneratedClient` and `SyncClient`; a test keeps this in step with the runtime file."""

COMPLETE_PROMPT = "complete_prompt"
COMPLETE_TEMPLATE = "complete_template"
"""The client's methods asking a server to complete a prompt's argument or a resource template's
variable (`completion/complete`), by naming rules 14 (`COMPLETION_RULES`)."""

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_MAX_LENGTH = 80

NAMING_RULES = 14
"""The rules a new snapshot's names follow. Rules 2 keep a digit with the letters beside it in
snake_case names (`get_s3_object(s3_key=...)`, as the models name their fields and packages are named),
where rules 1 split it off (`get_s_3_object(s_3_key=...)`); rules 3 keep it in class names too
(`neo4j` -> `Neo4jClient`, `get_k8s_pods` -> `GetK8sPodsInput`), where rules 1 and 2 split it off
(`Neo4JClient`); rules 4 name a union's members as its variants (`PickInputVariant`,
`PickInputVariant1`), where rules 1 to 3 keep datamodel-code-generator's `PickInputPickInput`;
rules 5 keep the letters of other scripts than Latin (`统计字数`, `получить_погоду`, `统计字数Input`),
which rules 1 to 4 drop (`tool`, `ToolInput`), see `_spelled`, and name a tagged union's members by
their tags (`DrawInputShapeCircle` where rules 1 to 4 have `DrawInputShape`, `PickInputId` where
rules 4 have `PickInputVariant`; `generate.member_names`); rules 6 make no class for a constrained
plain value, an array's item or a union's member (`pages: list[Annotated[int, Field(ge=1)]]`, where
rules 1 to 5 have `pages: list[ReadPdfInputSourcePage]`; `modelgen._inlined_plain_roots`); rules 7
spell the Latin letters NFKD gives no ASCII form as CLDR's Latin-ASCII transform does (`straße` ->
`strasse`, `smørbrød` -> `smorbrod`, `łódź` -> `lodz`, `StrasseSuchenInput`), which rules 1 to 6 leave
out (`strae`, `smrbrd`, `odz`), see `_transliterated`; rules 7 also name resources (or templates)
whose names read alike after their URIs (`ui://widget/flights.html` and `ui://widget/flights-v2.html`,
both `flights`: `read_flights` and `read_flights_v2`, where rules 1 to 6 give `read_flights_2` and
`read_flights` by sort order), see `_told_apart_by_uri`; rules 8 make a nested input object's
property whose one value (`const`) is also its default a required field (`FIXED_VALUE_RULES`), which
rules 1 to 7 keep optional; rules 9 type a `type: "array"` whose one value (`const`) is an array as
that value's list (`list[int]`, `CONST_ARRAY_RULES`), where rules 1 to 8 add a one-member `Enum`
(`list[Any] | ScoreOutputRange`); rules 10 type code mode's stubs as precisely as the models where
rules 1 to 9 write `Any` (`PRECISE_STUB_RULES`: a tuple, the values of `patternProperties`, a
`const` or `enum` no `Literal` holds, a type beside an `allOf`, `anyOf` or `oneOf`); rules 11 type a
set of more than `MAX_LITERAL_VALUES` values (an `enum`, or an `anyOf` or `oneOf` of `const`s) as
their JSON type (`str`), where rules 1 to 10 write a `Literal` of them all up to
`MAX_LITERAL_VALUES_BEFORE_RULES_11` (`WIDE_ENUM_RULES`); rules 12 write a model field's default that
is one string or number too long for its line as `Field(default=...)` (`LONG_DEFAULT_RULES`), where
rules 1 to 11 write it bare, in parentheses black keeps and `ruff format` takes away, and spell the
hub's names as rules 7 spell methods (`größe` on server `lager`: `lager__grosse`), where rules 1 to 11
map a Latin letter with no ASCII form to `_` (`lager__gro_e`; `SPELLED_HUB_RULES`); rules 13 keep a
tool's typed arguments when only its output schema cannot be typed, its method returning `ToolResult`
(`look(q=...)`), where rules 1 to 12 make the whole method untyped (`look(arguments={...})`;
`OUTPUT_ALONE_RULES`); rules 14 give the client of a server that declares `completions` the methods
`complete_prompt` and `complete_template`, and re-export `HandshakeTimeoutError` (and `Completion`)
from the package, names no tool, model or other member takes from rules 14 (`COMPLETION_RULES`),
and give code mode's function of a tool whose client method returns `ToolResult` though the tool
lists an output schema the text of the result, as they give a tool with none, where rules 1 to 13
type it from the output schema the client could make no type of (`UNTYPED_RESULT_STUB_RULES`).

A snapshot records rules 4 or later (`namingRules`) always. Rules 1 to 3 differ only where a letter is beside
a digit (`naming_rules_apply`), so a snapshot made by them records them only when it has such a name;
a file with such names and no `namingRules` was written before rules 2 existed and keeps rules 1, one
without keeps rules 3 (`UNRECORDED_RULES`: all three name it alike). So upgrading mcp-stubgen renames
nothing in a package already generated, and its next snapshot carries those rules on (`keep_names`)."""

UNRECORDED_RULES = 3
"""The rules of a snapshot with no `namingRules` and no name rules 1 to 3 differ on."""

_ID_BOUNDARY = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Z0-9])(?=[A-Z][a-z])")
"""Where rules 2 split a name into words: at separators and camelCase humps, never beside a digit
(`context7`, `k8s`, `ec2`, `s3Key` -> `s3`, `Key`)."""


def _ascii(name: str) -> str:
    if name.isascii():
        return name
    return unicodedata.normalize("NFKD", as_named(name)).encode("ascii", "ignore").decode("ascii")


ASCII_RULES = 4
"""The last naming rules that spell every name in ASCII."""

_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
"""Unicode's default-ignorable code points: shown as nothing (ZWJ, bidi controls, variation selectors,
Hangul fillers), some of them allowed in a Python identifier, so never kept in one."""


TRANSLITERATING_RULES = 7
"""The first naming rules that spell a Latin letter with no ASCII form (`latin_spelled`)."""


def _transliterated(name: str, rules: int) -> str:
    """The name with its Latin letters spelled in ASCII (`latin_spelled`) by rules 7 and later,
    unchanged by earlier rules."""
    if rules < TRANSLITERATING_RULES or name.isascii():
        return name
    return latin_spelled(as_named(name))


def _kept_letter(char: str) -> bool:
    """Whether rules 5 keep a non-ASCII character that has no ASCII form: a letter, digit or mark
    Python takes in an identifier, of a script other than Latin (a Latin look-alike such as the
    dotless i, U+0131, would make a name read as another), and never an invisible one."""
    return (
        ("a" + char).isidentifier()
        and not _INVISIBLE.match(char)
        and not unicodedata.name(char, "LATIN").startswith("LATIN")
    )


def _spelled(name: str, rules: int) -> str:
    """The text a name's words are read from. Rules 1 to 4: its ASCII letters, digits and separators,
    accents dropped (`Zähle` -> `Zahle`) and every other character left out (`统计字数` -> ``). Rules 5
    read its NFKC form (as Python reads an identifier) the same way, but keep each character that has
    no ASCII form and `_kept_letter` allows, with the marks that follow it (`统计字数`, `получить`,
    `नमस्ते`); a word never mixes such letters with ASCII ones (`_words`). Rules 7 spell a Latin letter
    with no ASCII form first (`_transliterated`: `straße` -> `strasse`), where earlier rules leave it out."""
    name = _transliterated(name, rules)
    if rules <= ASCII_RULES or name.isascii():
        return _ascii(name)
    spelled: list[str] = []
    after_kept = False
    for char in unicodedata.normalize("NFKC", as_named(name)):
        folded = _ascii(char)
        if folded or char.isascii():
            spelled.append(folded)
            after_kept = False
        elif _kept_letter(char) and (after_kept or not unicodedata.category(char).startswith("M")):
            spelled.append(char)
            after_kept = True
        else:  # left out; a mark after an invisible character is still the kept letter's
            after_kept = after_kept and bool(_INVISIBLE.match(char))
    return "".join(spelled)


_SEPARATORS = re.compile(r"[^A-Za-z0-9\x80-\U0010ffff]+")
"""What separates words in a name `_spelled` by rules 5: every ASCII character but letters and digits."""


def _script_words(chunk: str) -> list[str]:
    """A chunk of non-ASCII and ASCII letters and digits split where rules 4 split ASCII (camelCase humps,
    `_ID_BOUNDARY`), in any script with case (`получитьПогоду`), and where ASCII letters meet others
    (`get天气` -> `get`, `天气`; a Cyrillic look-alike of `e` slipped into `weather` stands apart as a word)."""
    cuts = [0]
    previous = ""  # the last letter, for where the script changes
    for index in range(1, len(chunk)):
        before, char, after = chunk[index - 1], chunk[index], chunk[index + 1 : index + 2]
        hump = (before.islower() and char.isupper()) or (
            (before.isupper() or before.isdigit()) and char.isupper() and after.islower()
        )
        previous = before if before.isalpha() else previous
        changes = char.isalpha() and previous != "" and previous.isascii() != char.isascii()
        if hump or changes:
            cuts.append(index)
    return [chunk[start:end] for start, end in zip(cuts, [*cuts[1:], len(chunk)], strict=True)]


def _words(name: str, rules: int) -> list[str]:
    """The words of a name by rules 2 to 5: digits kept with the letters beside them."""
    spelled = _spelled(name, rules)
    if spelled.isascii():
        return [word for word in _ID_BOUNDARY.split(spelled) if word]
    return [
        word
        for chunk in _SEPARATORS.split(spelled)
        for word in (_ID_BOUNDARY.split(chunk) if chunk.isascii() else _script_words(chunk))
        if word
    ]


def plain_identifier(text: str) -> bool:
    """Whether `text` is an identifier that is what Python reads it as: its NFKC form (`ﬁle` is the
    identifier `file`), with nothing invisible in it, so two names that differ are two identifiers; and
    one Python 3.11 reads (`unicode14`), so a package generated on a newer Python imports there too."""
    return as_named(text).isidentifier() and (
        text.isascii() or (unicodedata.normalize("NFKC", text) == text and not _INVISIBLE.search(text))
    )


def words(name: str) -> list[str]:
    """Split any name into ASCII words, digits apart (`API-get-user`, `getUser`, `math.multiply`,
    `s3Key` -> `s`, `3`, `Key`): the words of snake_case names by rules 1, of class names by rules 1 and 2."""
    return _WORD.findall(_ascii(name))


def snake_case(name: str, fallback: str, rules: int = NAMING_RULES) -> str:
    """A lowercase identifier made of the name's words (by `rules`, `NAMING_RULES`); `fallback` stands
    in when nothing usable is left. Rules 5 give what rules 4 give where their words would not make
    a `plain_identifier` (a lowercase letter outside NFKC); rules 7 what rules 4 give of the name
    with its Latin letters spelled (`_transliterated`)."""
    parts = [word.lower() for word in (words(name) if rules == 1 else _words(name, rules))]
    text = "_".join(parts)[:_MAX_LENGTH].strip("_") or fallback
    if text[0].isdigit():
        text = f"{fallback}_{text}"
    if rules > ASCII_RULES and not plain_identifier(text):
        return snake_case(_transliterated(name, rules), fallback, ASCII_RULES)
    return text


def pascal_case(name: str, fallback: str, rules: int) -> str:
    """A class-style identifier made of the name's words (by the naming `rules`); acronyms keep their
    capitals (`API`). Rules 5 fall back to rules 4 as `snake_case` does. With an empty `fallback`,
    the words alone: a part of a name, maybe empty."""
    split = words(name) if rules < 3 else _words(name, rules)
    parts = [word if word.isupper() else word[:1].upper() + word[1:].lower() for word in split]
    text = "".join(parts)[:_MAX_LENGTH] or fallback
    if text[:1].isdigit():
        text = f"{fallback}{text}"
    if rules > ASCII_RULES and not plain_identifier(text):
        return pascal_case(_transliterated(name, rules), fallback, ASCII_RULES)
    return text


def escape(identifier: str, taken: Collection[str] = ()) -> str:
    """Append underscores until the name is neither a reserved word nor in `taken`."""
    while identifier in RESERVED_WORDS or identifier in taken:
        identifier += "_"
    return identifier


@dataclass(frozen=True)
class Named:
    """One catalog item's wire name and the Python identifier chosen for it."""

    wire: str
    python: str


URI_NAMING_RULES = 7
"""The first naming rules that tell resources (or templates) whose names read alike apart by their URIs."""

FIXED_VALUE_RULES = 8
"""The first naming rules that make a nested input object's property whose `const` is also its default
a required field: a discriminated union's members (pydantic's `operation: Literal["GetItem"] = "GetItem"`)
differ only in it, so an item built without it matched several members and the call was refused."""

CONST_ARRAY_RULES = 9
"""The first naming rules that type a `type: "array"` whose `const` is an array (phocinae-mcp 0.2.6's
`range`, `[2, 10]`) as that value's list, `list[int]`: datamodel-code-generator, given the array type
beside the value's one-value `enum`, adds an `Enum` whose member is a list (`list[Any] |
ScoreOutputRange`), a mutable class attribute ruff's default rules reject (RUF012)."""

PRECISE_STUB_RULES = 10
"""The first naming rules whose code-mode stubs type what rules 1 to 9 left `Any`, as precisely as the
models where a stub can say it and never tighter than the schema: an input tuple of one length is a
`tuple[...]` (a result's is the list JSON gives, `list[A | B]`), an object of `patternProperties` closed
by `additionalProperties` a `dict[str, A | B]`, a `const` or `enum` no `Literal` holds its value's type
(`float`, `list[int]`), and a `type` beside an `allOf`, `anyOf` or `oneOf` whose members say no type
that type; so `check-scripts` refuses a wrong shape that rules 1 to 9 let through to the server."""

WIDE_ENUM_RULES = 11
"""The first naming rules that type a set of more than `MAX_LITERAL_VALUES` values as their JSON type
(`literal_limit`), in the models, the methods and code mode's stubs alike; the runtime still refuses a
value outside the set before the call, as it checks every call against the tool's schema."""

MAX_LITERAL_VALUES = 1_000
"""The most values rules 11 write as one `Literal`. black's time grows faster than the values (about
0.5 ms a value at 1,000, 1.1 ms at 30,000) and each is written three times (the model, the async and
the sync method), so a 30,000-value `enum` took 34 s of CPU to generate; at 1,000 it costs about half a
second. The longest value sets of the real catalogs in `tests/fixtures/catalogs` have 126 (sentry),
countries and currencies some 250, IANA time zones some 600: all keep their `Literal`."""

MAX_LITERAL_VALUES_BEFORE_RULES_11 = 10_000
"""The most values rules 1 to 10 write as one `Literal`. Those snapshots keep their output where it was
made in reasonable time: 10,000 values took 8 s of CPU to generate, 30,000 took 34 s and 100,000 over
four minutes, so only a package no one could wait for changes."""


def literal_limit(rules: int) -> int:
    """The most values one `Literal` holds under naming rules `rules` (`WIDE_ENUM_RULES`)."""
    return MAX_LITERAL_VALUES if rules >= WIDE_ENUM_RULES else MAX_LITERAL_VALUES_BEFORE_RULES_11


LONG_DEFAULT_RULES = 12
"""The first naming rules that write a model field's default that is one string or number, too long
for a line of its own, as `Field(default=...)`: black writes `note: str = (` with the value on the next
line, which `ruff format` puts back on the field's line, so no file passed both (abs-mcp 0.13.15's
182-character `attribution`); both leave `Field(` with the value on the next line alone."""


OUTPUT_ALONE_RULES = 13
"""The first naming rules under which a tool whose input schema is typed and whose output schema is
not (a `$ref` to nothing, invalid JSON Schema, one datamodel-code-generator refuses) keeps its typed
arguments, its method returning `ToolResult`: the output schema's problem says nothing about the
arguments. Rules 1 to 12 give it the untyped method, `arguments: dict[str, Any]`, and a package
committed under them keeps it: typing the arguments would break every call passing `arguments=`."""


COMPLETION_RULES = 14
"""The first naming rules under which the client of a server that declares the `completions`
capability has `complete_prompt` (for its prompts with arguments) and `complete_template` (for its
resource templates with variables), and a package re-exports the runtime's `HandshakeTimeoutError`
(and, beside those methods, `Completion`). From these rules no tool, resource, template, prompt or
task starter is named either method, whatever the server declares, so a server that comes to declare
`completions` renames nothing; nor does a model class take either exported name. Rules 1 to 13 do
none of it: a package committed under them may have a tool method `complete_prompt`, or a model
`HandshakeTimeoutError` that a new export would hide."""

_COMPLETION_EXPORTS = ("Completion", "HandshakeTimeoutError")


def client_members(rules: int) -> frozenset[str]:
    """The names a catalog's members never take in a package of these naming rules: the runtime
    client's own (`CLIENT_MEMBERS`) and, from `COMPLETION_RULES`, the completion methods."""
    if rules < COMPLETION_RULES:
        return CLIENT_MEMBERS
    return CLIENT_MEMBERS | {COMPLETE_PROMPT, COMPLETE_TEMPLATE}


def runtime_exports(rules: int, completions: bool) -> tuple[str, ...]:
    """What a package of these naming rules re-exports from the runtime's `_runtime`, in isort's
    order: `RUNTIME_EXPORTS`, and from `COMPLETION_RULES` `HandshakeTimeoutError`, and `Completion`
    where the client has a completion method (`completions`)."""
    if rules < COMPLETION_RULES:
        return RUNTIME_EXPORTS
    added = [name for name in _COMPLETION_EXPORTS if completions or name != "Completion"]
    constants = [name for name in RUNTIME_EXPORTS if name.isupper()]
    others = [name for name in RUNTIME_EXPORTS if not name.isupper() and name[:1].isupper()]
    functions = [name for name in RUNTIME_EXPORTS if not name[:1].isupper()]
    return (*constants, *sorted([*others, *added]), *functions)


def package_names(rules: int) -> frozenset[str]:
    """The runtime's names a package of these naming rules may import into its `__init__`, which no
    model class takes (`modelgen._renamed_classes`)."""
    exported = RUNTIME_EXPORTS if rules < COMPLETION_RULES else (*RUNTIME_EXPORTS, *_COMPLETION_EXPORTS)
    return frozenset((*exported, *TASK_EXPORTS))


UNTYPED_RESULT_STUB_RULES = 14
"""The first naming rules under which code mode's function of a tool whose client method returns
`ToolResult`, though the tool lists an output schema (one no type is made from: a `$ref` to nothing,
one datamodel-code-generator fails on), returns the result's text, as the function of a tool with no
output schema does: a script is then checked against what the client gives, not a `TypedDict` of the
schema the client refused. Rules 1 to 13 keep that `TypedDict`, which saved scripts may read."""


_TEMPLATE_EXPRESSION = re.compile(r"\{[^{}]*\}")
_URI_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _last_segment(uri: str) -> str:
    """The last segment of a hierarchical URI's path with text in it (its authority when the path has
    none: `ui://flights`), percent-escapes decoded, leaving out template expressions (`{id}`), the
    query and the fragment; empty for an opaque URI (`urn:...`, `data:...`)."""
    text = re.split(r"[?#]", _TEMPLATE_EXPRESSION.sub("", uri), maxsplit=1)[0]
    scheme = _URI_SCHEME.match(text)
    path = text[scheme.end() :] if scheme else text
    segments = [segment for segment in path.split("/") if segment] if path.startswith("/") else []
    return unquote(segments[-1]) if segments else ""


def _named_after(label: str, part: str, prefix: str, fallback: str, rules: int) -> str:
    """The label's name and the words of a URI's `part` that the label does not already say
    (`flights` and `flights-v2` -> `read_flights_v2`; `flights` and `flights` -> `read_flights`). The
    part's words are kept within the length limit, at most half of it, the label's cut to make room."""
    name = snake_case(label, fallback, rules)
    label_words = [word.lower() for word in _words(label, rules)]
    part_words = [word.lower() for word in _words(part, rules)]
    count = len(label_words)
    if part_words[:count] == label_words:
        extra = part_words[count:]
    elif count and part_words[-count:] == label_words:
        extra = part_words[:-count]
    else:
        extra = part_words
    suffix = "_".join(extra)[: _MAX_LENGTH // 2].strip("_")
    if not suffix:
        return prefix + name
    return prefix + snake_case(f"{name[: _MAX_LENGTH - len(suffix) - 1]}_{suffix}", fallback, rules)


def _told_apart_by_uri(
    named: Mapping[str, str], labels: Mapping[str, str], prefix: str, fallback: str, rules: int
) -> dict[str, str]:
    """The names of the items (URI -> the name its label gives) whose labels name them alike, told
    apart by each URI's last segment (`_last_segment`): its stem (`ui://widget/flights-v2.html` ->
    `read_flights_v2`), or the whole segment where the stem names another alike and the segment does
    not (`read_flights_json` beside `read_flights_html`). Where the URIs tell none apart (the same last
    segment, opaque URIs, a query alone) the items keep their label's name, for `_2` in sorted order. A
    name depends only on the items named alike, never on the order they are listed in."""
    groups: dict[str, list[str]] = {}
    for uri, name in named.items():
        groups.setdefault(name, []).append(uri)
    names: dict[str, str] = {}
    for group in (uris for uris in groups.values() if len(uris) > 1):
        segments = {uri: _last_segment(uri) for uri in group}
        by_stem = {
            uri: _named_after(labels.get(uri, uri), segment.rpartition(".")[0] or segment, prefix, fallback, rules)
            for uri, segment in segments.items()
        }
        by_segment = {
            uri: _named_after(labels.get(uri, uri), segment, prefix, fallback, rules)
            for uri, segment in segments.items()
        }
        chosen: dict[str, str] = {}
        for uri in group:
            alike = [by_segment[other] for other in group if segments[other] and by_stem[other] == by_stem[uri]]
            chosen[uri] = by_segment[uri] if len(alike) > 1 and alike.count(by_segment[uri]) == 1 else by_stem[uri]
        if len(set(chosen.values())) > 1:
            names |= chosen
    return names


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
    kept: Mapping[str, str] | None = None,
    rules: int = NAMING_RULES,
    by_uri: bool = False,
) -> list[Named]:
    """Give each wire name a unique snake_case identifier (by the naming `rules`), deterministically.

    Explicit renames (`method_names`) come first, then the names `kept` from an earlier package
    (`plan_names`) while they are free; of the rest, a name that is already the clean identifier keeps
    it, and the others are handled in sorted order and get `_2`, `_3`, ... on a collision.
    An explicit rename that collides with another name cannot be resolved and is an error naming both.
    `labels` gives the text to name an item after when its key is not its name (a resource's URI).
    With `by_uri` (the keys are URIs), rules 7 name items whose labels read alike after their URIs
    first (`_told_apart_by_uri`).
    """
    method_names = method_names or {}
    labels = labels or {}
    reserved = set(taken)
    chosen: dict[str, str] = {}
    owners: dict[str, str] = {}
    for wire, python in sorted(method_names.items()):
        if wire not in wire_names:
            continue
        if not plain_identifier(python) or python in RESERVED_WORDS or python in reserved:
            raise StubgenError(f"{where}rename of {kind} {wire!r} to {python!r} is not a usable Python name")
        if python in owners:
            raise StubgenError(
                f"{where}{kind}s {owners[python]!r} and {wire!r} are both named_methods to {python!r}; "
                "give them different names"
            )
        chosen[wire] = python
        owners[python] = wire
    for wire, python in sorted((kept or {}).items()):
        if wire in wire_names and wire not in chosen and python not in owners and python not in reserved:
            chosen[wire] = python
            owners[python] = wire
    named = {wire: prefix + snake_case(labels.get(wire, wire), fallback, rules) for wire in wire_names}
    if by_uri and rules >= URI_NAMING_RULES:
        named |= _told_apart_by_uri(named, labels, prefix, fallback, rules)
    bases = {wire: escape(named[wire], reserved) for wire in wire_names if wire not in chosen}
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

TaskSupport = Literal["optional", "required"]


def task_support(tool: Mapping[str, Any]) -> TaskSupport | None:
    """The tool's `execution.taskSupport` when it lets the tool run as a task, else None (`forbidden`,
    absent, or a value the spec does not define)."""
    execution = tool.get("execution")
    value = execution.get("taskSupport") if isinstance(execution, dict) else None
    if value == "optional":
        return "optional"
    if value == "required":
        return "required"
    return None


def wraps_result(tool: str, output_schema: Mapping[str, Any]) -> bool:
    """Whether the tool's output schema wraps a plain value as `{"result": value}`, so its method
    returns the value: MCPServer titles such a schema `<tool>Output`, FastMCP marks it with
    `x-fastmcp-wrap-result`."""
    properties = output_schema.get("properties", {})
    if not isinstance(properties, dict) or set(properties) != {"result"} or output_schema.get("required") != ["result"]:
        return False
    return output_schema.get("x-fastmcp-wrap-result") is True or output_schema.get("title") == f"{tool}Output"


NAME_KINDS = ("tools", "resources", "resourceTemplates", "prompts", "taskStarters")
"""The members of a package that have names, as a snapshot's `pythonNames` record keys them: tools
by name, resources by URI, templates by URI template, prompts by name, task starters by tool name."""

NameRecord = Mapping[str, Mapping[str, str]]
"""Kind (`NAME_KINDS`) -> catalog key -> the Python name the package gives it."""


@dataclass(frozen=True)
class NamePlan:
    """Every Python name a server's package gives, by kind, in catalog order."""

    tools: tuple[Named, ...]
    resources: tuple[Named, ...]
    templates: tuple[Named, ...]
    prompts: tuple[Named, ...]
    starters: tuple[Named, ...]
    """`start_*` methods, keyed by the wire name of the task tool they start."""

    def by_kind(self) -> dict[str, tuple[Named, ...]]:
        return dict(
            zip(NAME_KINDS, (self.tools, self.resources, self.templates, self.prompts, self.starters), strict=True)
        )

    def record(self) -> dict[str, dict[str, str]]:
        """The plan as a snapshot's `pythonNames` record holds it; kinds without members left out."""
        return {kind: {named.wire: named.python for named in names} for kind, names in self.by_kind().items() if names}

    def targets(self) -> dict[str, tuple[str, str]]:
        """Python name -> (kind, catalog key) of what a call by that name reaches."""
        return {named.python: (kind, named.wire) for kind, names in self.by_kind().items() for named in names}


def plan_names(
    snapshot: Snapshot, method_names: Mapping[str, str] | None = None, record: NameRecord | None = None
) -> NamePlan:
    """The name of every tool method, resource and template reader, prompt and task starter of a package.

    A name a package gave is a contract with the code calling it, so the names in `record` (by
    default the snapshot's own `pythonNames`, which `keep_names` carried over from the snapshot the
    committed package was generated from) stay with their entities while those exist; only
    `method_names` (tool name -> method name, the user's explicit choice) takes a name from one.
    New entities get what is left, as the naming rules would have them, whatever order they are listed in.
    """
    where = f"server {snapshot.server!r}: "
    method_names = method_names or {}
    record = snapshot.python_names if record is None else record
    tool_wires = [tool["name"] for tool in snapshot.tools]
    existing = {
        "tools": set(tool_wires),
        "resources": {entry["uri"] for entry in snapshot.resources},
        "resourceTemplates": {entry["uriTemplate"] for entry in snapshot.resource_templates},
        "prompts": {entry["name"] for entry in snapshot.prompts},
        "taskStarters": {tool["name"] for tool in snapshot.tools if task_support(tool)},
    }
    used = {python for wire, python in method_names.items() if wire in existing["tools"]}
    members = client_members(snapshot.naming_rules)
    kept: dict[str, dict[str, str]] = {}
    for kind in NAME_KINDS:
        kept[kind] = {}
        for key, python in sorted(record.get(kind, {}).items()):
            if key not in existing[kind] or (kind == "tools" and key in method_names) or python in used:
                continue
            if usable_name(python) and python not in members:
                kept[kind][key] = python
                used.add(python)
    kept_names = {python for names in kept.values() for python in names.values()}

    def others(kind: str) -> set[str]:
        """Names kept for other kinds: a new tool never takes the name a resource reader had."""
        return kept_names - set(kept[kind].values())

    tool_names = assign_names(
        tool_wires,
        fallback="tool",
        taken=members | others("tools"),
        method_names=method_names,
        kind="tool",
        where=where,
        kept=kept["tools"],
        rules=snapshot.naming_rules,
    )
    taken = set(members) | {named.python for named in tool_names}
    resource_names = assign_names(
        [entry["uri"] for entry in snapshot.resources],
        labels={entry["uri"]: entry["name"] for entry in snapshot.resources},
        fallback="resource",
        prefix="read_",
        taken=taken | others("resources"),
        kept=kept["resources"],
        rules=snapshot.naming_rules,
        by_uri=True,
    )
    taken |= {named.python for named in resource_names}
    template_names = assign_names(
        [entry["uriTemplate"] for entry in snapshot.resource_templates],
        labels={entry["uriTemplate"]: entry["name"] for entry in snapshot.resource_templates},
        fallback="template",
        prefix="read_",
        taken=taken | others("resourceTemplates"),
        kept=kept["resourceTemplates"],
        rules=snapshot.naming_rules,
        by_uri=True,
    )
    taken |= {named.python for named in template_names}
    prompt_names = assign_names(
        [entry["name"] for entry in snapshot.prompts],
        fallback="prompt",
        prefix="prompt_",
        taken=taken | others("prompts"),
        kept=kept["prompts"],
        rules=snapshot.naming_rules,
    )
    taken |= {named.python for named in prompt_names}
    # After every other member, so a task tool's starter never takes a name another member had.
    methods = {named.wire: named.python for named in tool_names}
    task_tools = [wire for wire in tool_wires if wire in existing["taskStarters"]]
    starters = assign_names(
        task_tools,
        labels={wire: methods[wire] for wire in task_tools},
        fallback="tool",
        prefix=START_PREFIX,
        taken=taken | others("taskStarters"),
        kept=kept["taskStarters"],
        rules=snapshot.naming_rules,
    )
    return NamePlan(
        tuple(tool_names), tuple(resource_names), tuple(template_names), tuple(prompt_names), tuple(starters)
    )


def keep_names(previous: Snapshot | None, snapshot: Snapshot, method_names: Mapping[str, str] | None) -> Snapshot:
    """`snapshot` (fresh from the server) carrying the names the package of `previous` (the committed
    snapshot it replaces) gave: its naming rules (`NAMING_RULES`), and its method names and keywords as
    the `pythonNames` and `argumentNames` records, each only where the naming rules alone would give
    other names, so most snapshots never hold one.

    This is what makes names stable: a fresh clone and an incremental run both generate from the
    committed snapshot, record included, and `generate --check` proves the package from it alone.
    """
    if previous is None:
        return snapshot
    snapshot = replace(snapshot, naming_rules=previous.naming_rules)
    arguments = carried_arguments(previous, snapshot)
    try:
        carried = plan_names(snapshot, method_names, plan_names(previous, method_names).record())
        fresh = plan_names(snapshot, method_names, {})
    except StubgenError:  # an unusable `method_names` entry: generate will say so; keep what was recorded
        return replace(snapshot, python_names=previous.python_names, argument_names=arguments)
    return replace(snapshot, python_names=carried.record() if carried != fresh else {}, argument_names=arguments)


def usable_name(python: str) -> bool:
    """Whether a name read back from a snapshot's record may be written into code as it is: the record
    is a file anyone can edit, so a name in it is used only when it is a plain identifier."""
    return plain_identifier(python) and python not in RESERVED_WORDS


ARGUMENT_KINDS = ("tools", "prompts")
"""The catalog entries whose arguments a generated method takes as keywords, as a snapshot's
`argumentNames` record keys them: a tool's input properties, a prompt's arguments."""

ArgumentRecord = Mapping[str, Mapping[str, Mapping[str, str]]]
"""Kind (`ARGUMENT_KINDS`) -> entry name -> argument's wire name -> the keyword the package gives it."""


def argument_names(wires: Iterable[str], kept: Mapping[str, str] | None, rules: int) -> list[Named]:
    """The keyword of each of a method's arguments: the committed package's (`kept`, from the snapshot's
    `argumentNames`) while the argument exists, else what the naming `rules` give; sorted by wire name.

    A keyword is a contract like a method name: a server that adds `user_id` beside an existing
    `user-id` must not make `user_id=` in the application's unchanged call send the newcomer."""
    usable = {wire: python for wire, python in (kept or {}).items() if usable_name(python)}
    return assign_names(sorted(wires), fallback="arg", kept=usable, rules=rules)


def _argument_wires(kind: str, entry: Mapping[str, Any]) -> list[str]:
    """The wire names of an entry's arguments as its method takes them: a tool's input schema's root
    `properties` (a root that `allOf` merges is read from its models when generating, and its keywords
    are kept only as far as they are its root's), a prompt's `arguments`."""
    if kind == "tools":
        schema = entry.get("inputSchema")
        properties = schema.get("properties") if isinstance(schema, dict) else None
        return list(properties) if isinstance(properties, dict) else []
    arguments = entry.get("arguments")
    if not isinstance(arguments, list):
        return []
    return [str(argument.get("name", "")) for argument in arguments if isinstance(argument, dict)]


def entry_keywords(
    snapshot: Snapshot, kind: str, entry: Mapping[str, Any], record: ArgumentRecord | None = None
) -> dict[str, str]:
    """The keywords of one tool's or prompt's arguments (`kind` in `ARGUMENT_KINDS`), by wire name;
    `record` defaults to the snapshot's own `argumentNames`."""
    kept = (snapshot.argument_names if record is None else record).get(kind, {}).get(entry["name"])
    return {
        name.wire: name.python for name in argument_names(_argument_wires(kind, entry), kept, snapshot.naming_rules)
    }


def same_keywords(old: Snapshot, new: Snapshot, kind: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether an entry's keywords are sure to be the same in both snapshots without naming them: the
    same arguments, the same record and the same rules give the same names."""
    name = before["name"]
    return (
        old.naming_rules == new.naming_rules
        and old.argument_names.get(kind, {}).get(name) == new.argument_names.get(kind, {}).get(after["name"])
        and _argument_wires(kind, before) == _argument_wires(kind, after)
    )


def plan_arguments(snapshot: Snapshot, record: ArgumentRecord | None = None) -> dict[str, dict[str, dict[str, str]]]:
    """Every tool's and prompt's keywords, by kind and entry name; `record` defaults to the snapshot's
    own `argumentNames`."""
    return {
        kind: {entry["name"]: entry_keywords(snapshot, kind, entry, record) for entry in entries}
        for kind, entries in zip(ARGUMENT_KINDS, (snapshot.tools, snapshot.prompts), strict=True)
    }


_WORD_SHAPES = str.maketrans(string.ascii_letters + string.digits, "a" * 52 + "0" * 10)


def naming_rules_apply(snapshot: Snapshot) -> bool:
    """Whether naming rules 1 to 3 can name anything of the snapshot differently: a name the generator
    turns into snake_case (an entry's, an argument's, a template's variable) or into a class name (the
    server's, and the method names a record keeps) with a letter beside a digit, the one place the rules
    split a name apart differently. (A translated string and two substring tests: a regular expression
    took 5 ms over a thousand tools' names.)"""
    names = [
        snapshot.server,
        *(python for names in snapshot.python_names.values() for python in names.values()),
        *(entry["name"] for entries in (snapshot.tools, snapshot.resources, snapshot.prompts) for entry in entries),
        *(entry["name"] for entry in snapshot.resource_templates),
        *(entry["uriTemplate"] for entry in snapshot.resource_templates),
        *(wire for tool in snapshot.tools for wire in _argument_wires("tools", tool)),
        *(wire for tool in snapshot.tools for wire in _merged_wires(tool.get("inputSchema"))),
        *(wire for prompt in snapshot.prompts for wire in _argument_wires("prompts", prompt)),
    ]
    shape = _ascii("\n".join(map(str, names))).translate(_WORD_SHAPES)
    return "a0" in shape or "0a" in shape


def _merged_wires(schema: object) -> list[str]:
    """For an input root that `allOf` or `$ref` merges into one model (whose keywords are its members'
    properties), every property name anywhere in the schema: more than the keywords, never fewer."""
    if not isinstance(schema, dict) or not ("allOf" in schema or "$ref" in schema):
        return []
    found: list[str] = []
    pending: list[object] = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                found.extend(node["properties"])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return found


def carried_arguments(previous: Snapshot, snapshot: Snapshot) -> dict[str, dict[str, dict[str, str]]]:
    """The `argumentNames` record of `snapshot` replacing `previous`: the keywords the package of
    `previous` gave, for each entry whose keywords the naming rules alone would now change."""
    carried = plan_arguments(snapshot, plan_arguments(previous))
    fresh = plan_arguments(snapshot, {})
    return {
        kind: {name: names for name, names in carried[kind].items() if names != fresh[kind].get(name)}
        for kind in ARGUMENT_KINDS
    }


def class_name(name: str, suffix: str, rules: int) -> str:
    """A PascalCase class name for a server id ending in `suffix` (by the naming `rules`), e.g.
    `weather` -> `WeatherClient`: in ASCII, as its package's name is."""
    return pascal_case(name, "Server", min(rules, ASCII_RULES)) + suffix


def package_name(server: str) -> str:
    """The generated package's folder and import name for a server id: the id in snake_case, its
    digits kept where they are (`context7` -> `context7`, `mcpServerTime` -> `mcp_server_time`).
    Always ASCII: a folder name in another script may not survive a file system, an archive or a
    checkout on another OS in the one spelling its import needs (NFC or NFD, a code page)."""
    text = "_".join(word.lower() for word in _words(server, ASCII_RULES))[:_MAX_LENGTH].strip("_")
    text = text or "server"
    return escape(f"server_{text}" if text[0].isdigit() else text)


def model_stems(method_names: Sequence[str], rules: int) -> list[str]:
    """A unique PascalCase stem per tool for its models (`GetUser` + `Input`), from its unique method
    name, by the naming `rules`."""
    stems: list[str] = []
    for method in method_names:
        base = pascal_case(method, "Tool", rules)
        candidate, counter = base, 1
        while candidate in stems:
            counter += 1
            candidate = f"{base}{counter}"
        stems.append(candidate)
    return stems


HUB_PACKAGE = "hub"
"""The hub's folder and import name, beside the servers' own packages under the output folder."""

CODE_MODE_PACKAGE = "code_mode"
"""Code mode's folder and import name, beside the hub under the output folder."""

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
        "deferred_tools",
        "difference",
        "filters",
        "following_list_changes",
        "configured_filters",
        "configured_live_tools",
        "live_catalog",
        "live_tools",
        "live_tools_mode",
        "model_catalog",
        "relist",
        "separator",
        "search_tool_definition",
        "server_about",
        "describe",
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


def check_hub_separator(separator: str, where: str) -> None:
    """A separator that keeps qualified names valid for every provider's rule (`.` only for the hosts
    that take it), checked when the config is read so every command reports a bad one."""
    if not re.fullmatch(r"[_.-]{1,4}", separator):
        raise StubgenError(
            f"{where}: hub_separator {separator!r} must be one to four of '_', '-' and '.' (default {HUB_SEPARATOR!r})"
        )


SPELLED_HUB_RULES = 12
"""The first naming rules whose hub names spell a Latin letter as method names do (`größe`:
`lager__grosse`, the method `grosse`), where rules 1 to 11 map it to `_` (`lager__gro_e`)."""


def _apart(spelled: Mapping[str, str], kept: Mapping[str, str], relabelled: set[str]) -> dict[str, str]:
    """The names the hub labels `relabelled` tools by: each tool's ASCII method (`kept`), else its
    spelled name, numbered on (`_2`, `_3`) where another relabelled tool's method has it. A tool whose
    method rules 5 named in another script, beside one named `tool` for want of letters (`天气` and
    `😀`), took the spelling `tool` as well, and the hub could not be generated."""
    taken = {kept[tool] for tool in relabelled if tool in kept}
    names = {**spelled, **kept}
    for tool in sorted(relabelled - set(kept)):
        name = base = spelled.get(tool, tool)
        number = 1
        while name in taken:
            number += 1
            name = f"{base}_{number}"
        names[tool] = name
        taken.add(name)
    return names


def qualified_tools(
    catalog: Mapping[str, Sequence[str]],
    separator: str = HUB_SEPARATOR,
    methods: Mapping[str, Mapping[str, str]] | None = None,
    rules: Mapping[str, int] | None = None,
) -> list[QualifiedTool]:
    """Every server's tools under their qualified names, sorted by name; two tools sharing one is an error.

    Each server's names follow its snapshot's naming rules (`rules`: server -> rules, the newest when
    not given): rules 12 and later spell Latin letters (`SPELLED_HUB_RULES`).

    Tools of one server whose names map alike (`car.rental` and `car_rental`), and tools whose names
    keep no ASCII letter or digit (`统计字数` would be `______`, telling a model nothing), are named after
    their client methods instead (`methods`: server -> tool -> method, from the package's name plan),
    which are unique, stay with their tools (`plan_names`), and `method_names` can choose. A method
    named in another script by naming rules 5 (`统计字数`) is no name for a model's API, which takes
    ASCII alone: such a tool is named as rules 4 name its method (`tool`, `tool_2`), as before them.
    The name is only a label: the hub routes it by looking it up in a table that keeps the server id
    and the tool's own name, so mapping characters or shortening never changes what is called.
    """
    check_hub_separator(separator, "hub")
    owners: dict[str, QualifiedTool] = {}
    for server in sorted(catalog):
        tools = sorted(catalog[server])
        spell = (rules or {}).get(server, NAMING_RULES) >= SPELLED_HUB_RULES
        plain = {tool: qualified_name(server, tool, separator, spell) for tool in tools}
        alike = {name for name, count in Counter(plain.values()).items() if count > 1}
        wordless = {tool for tool in tools if not re.search(r"[A-Za-z0-9]", api_safe(tool, spell))}
        named = (methods or {}).get(server)
        if (alike or wordless) and named is None:
            named = {}
        if named is not None and not all(named.get(tool, tool).isascii() for tool in alike | wordless):
            spelled = assign_names(tools, fallback="tool", taken=CLIENT_MEMBERS, rules=ASCII_RULES)
            kept = {tool: method for tool, method in named.items() if method.isascii()}
            named = _apart({entry.wire: entry.python for entry in spelled}, kept, alike | wordless)
        for tool in tools:
            name = plain[tool]
            if (name in alike or tool in wordless) and named is not None:
                name = qualified_name(server, named.get(tool, tool), separator, spell)
            qualified = QualifiedTool(name, server, tool)
            if qualified.qualified_name == SEARCH_TOOLS:
                raise StubgenError(
                    f"hub: tool {tool!r} of server {server!r} gets the qualified name {SEARCH_TOOLS!r}, which is the "
                    "hub's own meta-tool; rename the server id or choose another hub_separator"
                )
            other = owners.get(qualified.qualified_name)
            if other is not None and other.server == server:
                raise StubgenError(
                    f"hub: tools {other.tool!r} and {tool!r} of server {server!r} both get the qualified name "
                    f"{qualified.qualified_name!r}; give one of them another method name under "
                    f"[tool.mcp-stubgen.method_names.{server}]"
                )
            if other is not None:
                raise StubgenError(
                    f"hub: tool {other.tool!r} of server {other.server!r} and tool {tool!r} of server {server!r} "
                    f"both get the qualified name {qualified.qualified_name!r}; rename one of the server ids "
                    "or choose another hub_separator"
                )
            owners[qualified.qualified_name] = qualified
    return [owners[name] for name in sorted(owners)]
