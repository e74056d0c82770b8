"""Random catalogs for the property test and the fuzz script: one alphabet, one set of strategies.

Names and free texts mix the corpus payloads (`tests/hostile/corpus.py`) with random text full of
control characters, bidi overrides, quotes, backslashes and template delimiters; schemas mix every
JSON Schema shape a server can send, valid or not (dangling and recursive `$ref`s, boolean schemas,
`type` lists, unknown types, defaults of any JSON type, datamodel-code-generator's extension keywords
naming a payload module). A catalog is drawn as a snapshot *document*
(plain JSON), so the fuzz script can shrink and print it; `snapshot_of` turns it into a `Snapshot`.
"""

from __future__ import annotations

import functools
import string
from typing import Any

from hypothesis import strategies as st

from codegen.snapshot import JSON, Snapshot
from tests.hostile.corpus import EXTENSION_VALUES, INJECTIONS, NAMES, TEXTS, extension_keywords

SPECIAL_CHARACTERS = [
    *(chr(code) for code in range(0x20)),
    "\x7f",
    "\x85",
    "\xa0",
    "\u2028",
    "\u2029",
    *(chr(code) for code in range(0x202A, 0x202F)),  # bidi embeddings and overrides
    *(chr(code) for code in range(0x2066, 0x206A)),  # bidi isolates
    "\u200b",
    "\ufeff",
    '"',
    "'",
    '"""',
    "'''",
    "\\",
    "{{",
    "}}",
    "{%",
    "%}",
    "{#",
    "#}",
    "#",
    "~",
    "/",
    "$",
    "\U0001f600",
]
"""Characters (and short runs) that break a naive string literal, docstring, comment or template."""

SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff"]
"""Lone surrogates: no server can send one, a hand-edited snapshot can; they must be refused cleanly."""

PATTERNS = [r"^[a-z]+$", r"\d{3}", "(", "[", "a{2,1}", "\\", r"^(?!\s*$).+", r"(?<=a)b", r"\p{L}+", r"\Z", "(?P<n>x)"]
PATTERNS += [r"[[:alpha:]]", "(?i)x", r"\u00e9", r"\x{41}", r"\0", "(?<n>x)", r"\k<n>", "x++", "(?>x)", r"\cA"]
"""Regular expressions valid in one engine and not another (ECMA-262, Python `re`, Rust), or in none."""
TYPES = ["string", "integer", "number", "boolean", "null", "array", "object"]
FORMATS = ["uri", "date-time", "date", "time", "uuid", "ipv4", "ipv6", "hostname", "byte", "regex", "duration"]
FORMATS += ["email", "idn-email", "ulid"]
"""Formats datamodel-code-generator maps to a type; the last three would need optional packages, so
modelgen keeps them `str` (`tests/hostile/test_schemas.py` pins it)."""


IDENTIFIERS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)


@functools.cache  # one strategy object per alphabet: see _schema_shapes
def texts(surrogates: bool = False) -> st.SearchStrategy[str]:
    """A free text: a corpus payload, or random text weighted towards the special characters."""
    pieces: st.SearchStrategy[str] = st.sampled_from(SPECIAL_CHARACTERS) | st.characters(codec="utf-8")
    if surrogates:
        pieces = pieces | st.sampled_from(SURROGATES)
    random_text = st.lists(pieces | st.text(string.ascii_letters + " _-.", max_size=6), max_size=8).map("".join)
    return st.one_of(st.sampled_from(INJECTIONS + TEXTS), random_text, st.sampled_from(["", "a", "plain text"]))


@functools.cache
def names(surrogates: bool = False) -> st.SearchStrategy[str]:
    """A name: a hostile corpus name, a plain identifier, or any text."""
    return st.one_of(st.sampled_from(NAMES), IDENTIFIERS, texts(surrogates))


@functools.cache
def json_values(text: st.SearchStrategy[str], max_leaves: int = 6) -> st.SearchStrategy[Any]:
    """Any JSON value (no NaN or infinities: they are not JSON), strings from `text`."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        text,
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
        max_leaves=max_leaves,
    )


def _pointer_token(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


@st.composite
def schemas(draw: st.DrawFn, text: st.SearchStrategy[str], name: st.SearchStrategy[str], refs: list[str]) -> Any:
    """A JSON Schema (a dict or a boolean) in any shape, `$ref`s drawn from `refs`."""
    schema = draw(_schema_shapes(text, name, tuple(refs)))
    if isinstance(schema, dict) and draw(st.booleans()):
        schema = {**schema, **draw(_annotations(text, json_values(text, max_leaves=4)))}
    if isinstance(schema, dict) and draw(st.integers(0, 3)) == 0:
        schema = {**schema, **draw(extensions())}
    return schema


@functools.lru_cache(maxsize=1024)
def _schema_shapes(
    text: st.SearchStrategy[str], name: st.SearchStrategy[str], refs: tuple[str, ...]
) -> st.SearchStrategy[Any]:
    """The schema's shape without its annotations. Built once per alphabet and `$ref` targets: hypothesis
    validates a strategy the first time it draws from it, and building and validating this tree anew
    for every schema was three quarters of the time the tests on random catalogs spent drawing them.
    The same strategies draw the same catalogs, so every example stays what it was."""
    values = json_values(text, max_leaves=4)

    def leaf() -> st.SearchStrategy[Any]:
        typed = st.builds(lambda kind: {"type": kind}, st.sampled_from([*TYPES, "foo", "any", "file"]))
        typed_list = st.builds(
            lambda kinds: {"type": kinds}, st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True)
        )
        string_schema = st.fixed_dictionaries(
            {"type": st.just("string")},
            optional={
                "format": st.sampled_from(FORMATS) | text,
                "pattern": st.sampled_from(PATTERNS) | text,
                "minLength": st.integers(0, 5),
                "maxLength": st.integers(0, 50),
            },
        )
        number_schema = st.fixed_dictionaries(
            {"type": st.sampled_from(["integer", "number"])},
            optional={"minimum": st.integers(-5, 5), "maximum": st.integers(5, 100), "multipleOf": st.integers(1, 5)},
        )
        enum = st.builds(lambda items: {"enum": items}, st.lists(values, min_size=1, max_size=4))
        string_enum = st.builds(
            lambda items: {"type": "string", "enum": items}, st.lists(text, min_size=1, max_size=4, unique=True)
        )
        const = st.builds(lambda value: {"const": value}, values)
        ref = st.builds(lambda target: {"$ref": target}, st.sampled_from(refs)) if refs else st.just({})
        return st.one_of(
            st.booleans(), st.just({}), typed, typed_list, string_schema, number_schema, enum, string_enum, const, ref
        )

    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        children = st.lists(inner, min_size=1, max_size=3)
        obj = st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.dictionaries(name, inner, max_size=4)},
            optional={"additionalProperties": inner, "title": text},
        ).flatmap(_with_required)
        array = st.fixed_dictionaries(
            {"type": st.just("array")}, optional={"items": inner, "minItems": st.integers(0, 3)}
        )
        combined = st.builds(lambda key, items: {key: items}, st.sampled_from(["anyOf", "oneOf", "allOf"]), children)
        nullable = st.one_of(
            st.builds(lambda schema: {"anyOf": [schema, {"type": "null"}]}, inner),
            st.builds(lambda kind: {"type": [kind, "null"]}, st.sampled_from(TYPES[:4])),
            st.builds(lambda kind: {"type": kind, "nullable": True}, st.sampled_from(TYPES[:4])),
        )
        return st.one_of(obj, array, combined, nullable)

    return st.recursive(leaf(), extend, max_leaves=8)


@functools.cache
def extensions() -> st.SearchStrategy[JSON]:
    """Keywords datamodel-code-generator would turn into imports, base classes or types, naming the
    payload module (`tests/hostile/corpus.py`): the generator must drop every one of them."""
    return st.dictionaries(
        st.sampled_from(extension_keywords()), st.sampled_from(EXTENSION_VALUES) | st.text(max_size=20), max_size=3
    )


@functools.cache
def _annotations(text: st.SearchStrategy[str], values: st.SearchStrategy[Any]) -> st.SearchStrategy[JSON]:
    """Free texts and instance data any schema may carry."""
    return st.fixed_dictionaries(
        {},
        optional={
            "title": text,
            "description": text,
            "default": values,
            "examples": st.lists(values, max_size=2),
            "deprecated": st.booleans(),
            "readOnly": st.booleans(),
        },
    )


def _with_required(schema: JSON) -> st.SearchStrategy[JSON]:
    """An object schema with some of its properties (and now and then an unknown one) required."""
    known = sorted(schema["properties"])
    choices = st.sampled_from([*known, "not-a-property"]) if known else st.just("not-a-property")
    return st.builds(lambda required: {**schema, "required": required}, st.lists(choices, max_size=3, unique=True))


@st.composite
def root_schemas(draw: st.DrawFn, text: st.SearchStrategy[str], name: st.SearchStrategy[str]) -> Any:
    """A tool's input or output schema: mostly an object with properties and `$defs`, sometimes
    something a tool's schema must not be (a root `oneOf`, a string, a `$ref`, not a schema at all)."""
    def_names = draw(st.lists(name, max_size=3, unique=True))
    refs = [f"#/$defs/{_pointer_token(def_name)}" for def_name in def_names]
    refs += ["#"] if draw(st.booleans()) else []  # the root itself: recursion through the top
    broken = draw(st.integers(0, 7))  # one schema in eight may point at nothing, or out of the document
    refs += ["#/$defs/Missing", "#/nope/0"] if broken == 0 else ["#/properties"] if broken == 1 else []
    refs += ["http://127.0.0.1:9/x.json", "/etc/passwd", "other.json#/A"] if broken == 2 else []
    inner = schemas(text, name, refs)
    shape = draw(st.integers(0, 79))
    if shape == 0:
        return draw(st.one_of(values_not_schemas(text), st.builds(lambda kids: {"oneOf": kids}, st.lists(inner))))
    if shape == 1:
        return draw(inner)
    root: JSON = {"type": "object", "properties": draw(st.dictionaries(name, inner, max_size=5))}
    root = draw(_with_required(root))
    if def_names:
        root["$defs"] = {def_name: draw(inner) for def_name in def_names}
    if draw(st.booleans()):
        root["additionalProperties"] = draw(st.booleans() | inner)
    if draw(st.booleans()):
        root = {**root, **draw(_annotations(text, json_values(text, max_leaves=4)))}
    if draw(st.integers(0, 3)) == 0:
        root = {**root, **draw(extensions())}
    return root


def values_not_schemas(text: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.one_of(
        text, st.integers(), st.lists(st.integers(), max_size=2), st.just({"type": "object", "properties": "x"})
    )


@st.composite
def catalogs(draw: st.DrawFn) -> JSON:
    """A snapshot document: server id and info, tools, resources, templates and prompts, every name and
    text from the hostile alphabet; one catalog in eight may contain lone surrogates."""
    surrogates = draw(st.integers(0, 7)) == 0
    text, name = texts(surrogates), names(surrogates)
    tools = draw(st.lists(_tool(text, name), max_size=3, unique_by=lambda tool: tool["name"]))
    resources = draw(
        st.lists(
            st.fixed_dictionaries(
                {"uri": st.builds(lambda value: f"res://{value}", text) | text, "name": name},
                optional={"description": text, "mimeType": text, "title": text},
            ),
            max_size=2,
            unique_by=lambda entry: entry["uri"],
        )
    )
    templates = draw(st.lists(_template(text, name), max_size=2, unique_by=lambda entry: entry["uriTemplate"]))
    prompts = draw(
        st.lists(
            st.fixed_dictionaries(
                {"name": name},
                optional={
                    "description": text,
                    "arguments": st.lists(
                        st.fixed_dictionaries(
                            {"name": name}, optional={"description": text, "required": st.booleans() | text}
                        ),
                        max_size=3,
                    ),
                },
            ),
            max_size=2,
            unique_by=lambda entry: entry["name"],
        )
    )
    document: JSON = {
        "server": draw(name),
        "protocolVersion": draw(text),
        "capabilities": {"tools": {}, "experimental": {draw(text): {}}},
        "tools": tools,
        "resources": resources,
        "resourceTemplates": templates,
        "prompts": prompts,
    }
    if draw(st.booleans()):
        document["serverInfo"] = {"name": draw(text), "version": draw(text), "title": draw(text)}
    if draw(st.booleans()):
        document["instructions"] = draw(text)
    return document


@st.composite
def _template(draw: st.DrawFn, text: st.SearchStrategy[str], name: st.SearchStrategy[str]) -> JSON:
    """A resource template: mostly a valid RFC 6570 template around hostile text, sometimes any text."""
    shape = draw(st.integers(0, 9))
    variable = draw(IDENTIFIERS if shape < 8 else name)
    rest = draw(text).replace("{", "").replace("}", "")
    uri_template = draw(text) if shape == 9 else f"tpl://{{{variable}}}/{rest}" + ("{?q,page}" if shape == 3 else "")
    entry: JSON = {"uriTemplate": uri_template, "name": draw(name)}
    entry.update(draw(st.fixed_dictionaries({}, optional={"description": text, "mimeType": text})))
    return entry


@st.composite
def _tool(draw: st.DrawFn, text: st.SearchStrategy[str], name: st.SearchStrategy[str]) -> JSON:
    tool: JSON = {"name": draw(name), "inputSchema": draw(root_schemas(text, name))}
    if draw(st.booleans()):
        tool["outputSchema"] = draw(root_schemas(text, name))
    tool.update(draw(st.fixed_dictionaries({}, optional={"title": text, "description": text})))
    if draw(st.booleans()):
        tool["annotations"] = {"title": draw(text), "readOnlyHint": draw(st.booleans())}
    return tool


def snapshot_of(document: JSON) -> Snapshot:
    """The `Snapshot` a server with this catalog gives (raises StubgenError, e.g. for duplicates); the
    lists and server-wide fields may be left out, so the fuzz script can shrink a catalog to its core."""
    return Snapshot(
        server=document["server"],
        protocol_version=document.get("protocolVersion", ""),
        capabilities=document.get("capabilities", {}),
        server_info=document.get("serverInfo"),
        instructions=document.get("instructions"),
        tools=tuple(document.get("tools", ())),
        resources=tuple(document.get("resources", ())),
        resource_templates=tuple(document.get("resourceTemplates", ())),
        prompts=tuple(document.get("prompts", ())),
    )
