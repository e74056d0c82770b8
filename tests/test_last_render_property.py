"""Drawn catalogs and drawn changes: a package redone from its last render (`last_render`) is what a
whole render of the changed snapshot makes, byte for byte, with the same warnings and errors, and
is proven current once published."""

from __future__ import annotations

import copy
import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import console
from codegen.errors import StubgenError
from codegen.generate import Cache
from codegen.generate.pipeline import PackageInputs, Rendered, publish_rendered, render_current
from codegen.identifiers import NAMING_RULES
from codegen.snapshot import JSON, Snapshot

TOOL_NAMES = [
    "search",
    "get_user",
    "getUser",
    "it's",
    'say "hi"',
    "back\\slash",
    "名前ツール",
    "\uff57\uff49\uff44\uff45",
    "émoji-😀",
    "stand-in ~000000000000001",
    "x" * 95,
    "a_rather_long_tool_name_that_makes_black_wrap_its_fingerprint_entry_" + "y" * 20,
]
"""Names that lay out differently: quotes and backslashes black respells, wide and non-ASCII text,
a stand-in fingerprint, and names too long for a `tool_fingerprints` entry on one line."""

TEXTS = [
    "Plain text.",
    "Holds a stand-in ~000000000000001 and ~000000000000000.",
    "Quotes \"\"\" and ''' and a trailing backslash\\",
    "幅の広い文字 \uff57\uff49\uff44\uff45",
    "Line one.\nLine two.\r\nLine three.",
    "",
]

ARGUMENT_NAMES = ["query", "limit", "class", "名前", "with space", "it's", "self"]


def _argument() -> st.SearchStrategy[JSON]:
    plain = st.sampled_from(
        [
            {"type": "string"},
            {"type": "integer", "minimum": 0},
            {"type": "boolean", "description": "A flag."},
            {"type": "array", "items": {"type": "string"}},
            {"type": "string", "enum": ["a", "b", "it's"]},
            {"type": "string", "description": "Stand-in ~000000000000003."},
            {"$ref": "#/$defs/Item"},
            {"type": "object", "properties": {"inner": {"type": "number"}}},
            {"anyOf": [{"type": "string"}, {"type": "null"}]},
            {},
        ]
    )
    return plain.map(copy.deepcopy)


@st.composite
def _schema(draw: st.DrawFn) -> JSON:
    properties = draw(st.dictionaries(st.sampled_from(ARGUMENT_NAMES), _argument(), max_size=3))
    schema: JSON = {"type": "object", "properties": properties}
    required = draw(st.lists(st.sampled_from(sorted(properties)), unique=True)) if properties else []
    if required:
        schema["required"] = required
    if any("$ref" in value for value in properties.values()):
        schema["$defs"] = {"Item": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}
    return schema


OUTPUTS = [
    {"type": "object", "properties": {"done": {"type": "boolean"}}, "required": ["done"]},
    {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}},
]


@st.composite
def _tool(draw: st.DrawFn, name: str) -> JSON:
    tool: JSON = {"name": name, "inputSchema": draw(_schema())}
    if draw(st.booleans()):
        tool["description"] = draw(st.sampled_from(TEXTS))
    if draw(st.integers(0, 3)) == 0:
        tool["title"] = draw(st.sampled_from(TEXTS))
    if draw(st.integers(0, 2)) == 0:
        tool["outputSchema"] = copy.deepcopy(draw(st.sampled_from(OUTPUTS)))
    if draw(st.integers(0, 3)) == 0:
        tool["execution"] = {"taskSupport": draw(st.sampled_from(["optional", "required", "forbidden"]))}
    if draw(st.integers(0, 3)) == 0:
        tool["annotations"] = {"readOnlyHint": draw(st.booleans())}
    return tool


@st.composite
def catalogs(draw: st.DrawFn) -> Snapshot:
    names = draw(st.lists(st.sampled_from(TOOL_NAMES), min_size=2, max_size=4, unique=True))
    tools = [draw(_tool(name)) for name in names]
    server = draw(st.sampled_from(["fuzz", "Fuzz Ü server"]))
    prompts = [{"name": "summarize", "arguments": [{"name": "text", "required": True}]}] if draw(st.booleans()) else []
    resources = [{"uri": "res://notes", "name": "notes"}] if draw(st.booleans()) else []
    templates = [{"uriTemplate": "res://notes/{id}", "name": "note"}] if draw(st.booleans()) else []
    return Snapshot(
        server=server,
        protocol_version="2025-11-25",
        capabilities={"tools": {}},
        instructions=draw(st.none() | st.sampled_from(TEXTS)),
        tools=tuple(tools),
        resources=tuple(resources),
        resource_templates=tuple(templates),
        prompts=tuple(prompts),
        naming_rules=NAMING_RULES,
    )


@st.composite
def method_names(draw: st.DrawFn, snapshot: Snapshot) -> dict[str, str]:
    """Chosen method names for some tools, one now and then clashing with a member or another tool."""
    chosen = draw(st.lists(st.sampled_from([tool["name"] for tool in snapshot.tools]), max_size=2, unique=True))
    return {wire: draw(st.sampled_from(["chosen_one", "chosen_two", "search", "snake_case_name"])) for wire in chosen}


def _described(draw: st.DrawFn, tool: JSON) -> None:
    tool["description"] = draw(st.sampled_from(TEXTS)) + " Changed."


def _retitled(draw: st.DrawFn, tool: JSON) -> None:
    tool["title"] = draw(st.sampled_from(TEXTS)) or "Title"


def _argument_added(draw: st.DrawFn, tool: JSON) -> None:
    name = draw(st.sampled_from(["added", *ARGUMENT_NAMES]))
    tool["inputSchema"].setdefault("properties", {})[name] = draw(_argument())
    if "$ref" in tool["inputSchema"]["properties"][name]:
        tool["inputSchema"]["$defs"] = {"Item": {"type": "object", "properties": {"id": {"type": "string"}}}}
    if draw(st.booleans()):
        tool["inputSchema"]["required"] = sorted({*tool["inputSchema"].get("required", []), name})


def _arguments_dropped(draw: st.DrawFn, tool: JSON) -> None:
    tool["inputSchema"] = {"type": "object", "properties": {}}


def _output(draw: st.DrawFn, tool: JSON) -> None:
    if "outputSchema" in tool and draw(st.booleans()):
        del tool["outputSchema"]
    else:
        tool["outputSchema"] = copy.deepcopy(draw(st.sampled_from(OUTPUTS)))


def _annotated(draw: st.DrawFn, tool: JSON) -> None:
    tool["annotations"] = {"title": draw(st.sampled_from(TEXTS)), "destructiveHint": draw(st.booleans())}


def _icons(draw: st.DrawFn, tool: JSON) -> None:
    tool["icons"] = [{"src": draw(st.sampled_from(["file:///etc/passwd", "file:icon.png", "https://x.test/i.png"]))}]


def _task(draw: st.DrawFn, tool: JSON) -> None:
    tool["execution"] = {"taskSupport": draw(st.sampled_from(["optional", "required", "forbidden"]))}


def _untyped(draw: st.DrawFn, tool: JSON) -> None:
    tool["inputSchema"].setdefault("properties", {})["broken"] = {"type": "string", "minLength": "x"}


def _output_untyped(draw: st.DrawFn, tool: JSON) -> None:
    """An output schema no type is made from, the arguments typed (naming rules 13): its method returns
    `ToolResult`, with a warning a redo repeats."""
    broken = draw(st.sampled_from([{"$ref": "#/$defs/gone"}, {"minLength": "x"}]))
    tool["outputSchema"] = {"type": "object", "properties": {"done": broken}}


def _renamed(draw: st.DrawFn, tool: JSON) -> None:
    tool["name"] = tool["name"] + draw(st.sampled_from(["_v2", " ~000000000000002", "é"]))


def _enum(draw: st.DrawFn, tool: JSON) -> None:
    tool["inputSchema"].setdefault("properties", {})["mode"] = {"type": "string", "enum": ["fast", "slow"]}


CHANGES: list[Callable[[st.DrawFn, JSON], None]] = [
    _described,
    _retitled,
    _argument_added,
    _arguments_dropped,
    _output,
    _annotated,
    _icons,
    _task,
    _untyped,
    _output_untyped,
    _renamed,
    _enum,
]


@st.composite
def changed(draw: st.DrawFn, snapshot: Snapshot) -> Snapshot:
    tools = [copy.deepcopy(tool) for tool in snapshot.tools]
    indexes = draw(st.lists(st.integers(0, len(tools) - 1), min_size=1, max_size=len(tools), unique=True))
    for index in indexes:
        for change in draw(st.lists(st.sampled_from(CHANGES), min_size=1, max_size=2)):
            change(draw, tools[index])
    return dataclasses.replace(snapshot, tools=tuple(tools))


def _warned(render: Callable[[], Any]) -> tuple[Any, list[str]]:
    """What `render` returns (or the error it raises, as text) and the lines it printed."""
    console.begin()  # a fresh command: nothing warned of yet
    lines: list[str] = []
    with mock.patch.object(console, "note", lines.append):
        try:
            return render(), lines
        except StubgenError as error:
            return f"error: {error}", lines


def _inputs(snapshot: Snapshot, names: dict[str, str], sync_client: bool) -> PackageInputs:
    return PackageInputs(snapshot.canonical_bytes(), "snapshot.json", names, {}, sync_client)


def _check_redo(
    before: Snapshot, after: Snapshot, names: dict[str, str], sync_client: bool, base: Path, cache: Cache
) -> Rendered | None:
    """Render `before` whole into `base`, then `after` from its folder: the files, warnings and errors
    are a whole render's of `after`, and what was published is proven current."""
    out = base / "out"
    shutil.rmtree(out, ignore_errors=True)
    try:
        first = render_current(_inputs(before, names, sync_client), out, cache)
    except StubgenError:
        return None
    publish_rendered(first, cache)
    rendered, redo_warned = _warned(lambda: render_current(_inputs(after, names, sync_client), out, cache))
    # The same file through the same pipeline with nothing recorded: rendered whole, its tools built
    # anew, not taken from the redo's cache.
    cold = Cache(base / "cold")
    whole, whole_warned = _warned(lambda: render_current(_inputs(after, names, sync_client), base / "fresh", cold))
    if isinstance(whole, str):
        assert rendered == whole
        assert redo_warned == whole_warned
        return None
    assert isinstance(rendered, Rendered)
    if after.canonical_bytes() == before.canonical_bytes():
        assert rendered.files is None, "a change that changed nothing is proven current"
        return None
    assert whole.folder is None, "rendered whole"
    assert rendered.files == whole.files
    assert redo_warned == whole_warned
    publish_rendered(rendered, cache)
    assert render_current(_inputs(after, names, sync_client), out, cache).files is None, "proven current once published"
    return rendered


def _drawn_redo(data: st.DataObject, sync_client: bool, tmp_path_factory: pytest.TempPathFactory) -> None:
    before = data.draw(catalogs())
    after = data.draw(changed(before))
    names = data.draw(method_names(before))
    base = tmp_path_factory.mktemp("redo")
    _check_redo(before, after, names, sync_client, base, Cache(base / "cache"))


_SETTINGS = {
    "derandomize": True,
    "database": None,
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


@settings(max_examples=12, **_SETTINGS)
@given(data=st.data(), sync_client=st.booleans())
def test_a_redone_package_is_what_a_whole_render_of_the_changed_snapshot_makes(
    data: st.DataObject, sync_client: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _drawn_redo(data, sync_client, tmp_path_factory)


@settings(max_examples=80, **_SETTINGS)
@given(data=st.data(), sync_client=st.booleans())
def test_many_redone_packages_are_what_whole_renders_of_the_changed_snapshots_make(
    data: st.DataObject, sync_client: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The same, over more catalogs and changes (about 20 s: listed in tests/expensive.txt)."""
    _drawn_redo(data, sync_client, tmp_path_factory)
