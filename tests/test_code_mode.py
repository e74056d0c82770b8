"""Code mode: typed stubs for agents that write code, the in-process target over the bundled servers,
discovery, saved scripts and the drift that breaks them.

Stubs are rendered from real and hand-made catalogs and type-checked with mypy; the in-process
target calls the bundled example servers over stdio through a generated hub; `check-scripts` and
`drift` run through the CLI against a real catalog change.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from codegen.generate import code_mode
from codegen.generate.code_mode import module_name, render_code_mode, token_report
from codegen.generate.hub import HubSettings
from codegen.generate.publish import diff_trees, read_tree
from codegen.snapshot import Snapshot, load_snapshot, parse_snapshot
from tests.conftest import PYTHON, REPO, write_config
from tests.regen_goldens import GOLDEN, OUTPUT, REGEN_COMMAND, code_mode_case_tree

PY = PYTHON
WEATHER = REPO / "examples" / "weather_server.py"
NOTES = REPO / "examples" / "notes_server.py"
HAS_MONTY = importlib.util.find_spec("pydantic_monty") is not None


def golden_snapshots() -> list[tuple[Snapshot, dict[str, str]]]:
    return [(load_snapshot(GOLDEN / name / "snapshot.json"), {}) for name in ("notes", "weather")]


def catalog(server: str, tools: list[dict[str, Any]], instructions: str | None = None) -> Snapshot:
    document = {
        "format": 1,
        "server": server,
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "tools": tools,
        **({"instructions": instructions} if instructions is not None else {}),
    }
    return parse_snapshot(json.dumps(document).encode(), f"{server}.json")


SHAPES = [
    {
        "name": "find",
        "description": "Find nodes.",
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
        "inputSchema": {
            "type": "object",
            "properties": {
                "from": {"type": "string", "description": "Where to start."},
                "class": {"enum": ["a", "b"]},
                "filters": {
                    "type": "object",
                    "properties": {"tag": {"type": "string"}, "limit": {"type": "integer"}},
                    "required": ["tag"],
                },
                "node": {"$ref": "#/$defs/Node"},
                "choice": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "blob": {},
                "both": {"allOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]},
                "mode": {"const": "fast"},
                "ratio": {"type": ["number", "null"]},
                "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
                "x-weird": {"type": "boolean", "default": False},
            },
            "required": ["from", "class"],
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    },
                    "required": ["name"],
                },
                "A": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                "B": {"type": "object", "properties": {"b": {"type": "string"}}},
            },
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "$meta": {"type": "string"},
                "items": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
                },
            },
            "required": ["items"],
        },
    },
    {
        "name": "other",
        "inputSchema": {
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}},
        },
    },
    {"name": "ping", "inputSchema": {"type": "object"}},
    {
        "name": "raw",
        "inputSchema": {"anyOf": [{"type": "object"}, {"type": "object", "properties": {"q": {"type": "string"}}}]},
    },
]


def test_stubs_type_every_shape_a_model_needs_to_read() -> None:
    files = render_code_mode([(catalog("shapes", SHAPES), {})], HubSettings())
    stub = files["shapes.pyi"].decode()
    for line in [
        "class Node(TypedDict):\n    children: NotRequired[list[Node]]\n    name: str",
        "class OtherNode(TypedDict):\n    size: int",  # another tool's `Node`: named after that tool
        "class FindBoth(TypedDict):\n    a: int\n    b: NotRequired[str]",  # an allOf, merged
        "class FindFilters(TypedDict):\n    limit: NotRequired[int]\n    tag: str",
        'FindResult = TypedDict(\n    "FindResult",\n    {\n        "$meta": NotRequired[str],\n'
        '        "items": list[FindResultItemsItem],\n    },\n)',
        'async def find(\n    *,\n    class_: Literal["a", "b"],\n    from_: str,\n    blob: Any = ...,\n',
        "    choice: str | int | None = ...,\n",
        "    counts: dict[str, int] = ...,\n",
        '    mode: Literal["fast"] = ...,\n',
        "    ratio: float | None = ...,\n",
        "    x_weird: bool = ...,\n) -> FindResult:",
        "        from_: Where to start. Sent as 'from'.",
        "        x_weird: Sent as 'x-weird'. Default: false. Optional.",
        "    Hints: read-only, closed-world.",
        "async def other(\n    *,\n    node: OtherNode = ...,\n) -> str:",
        "Returns the text of the tool's result (it declares no output schema).",
        "async def ping() -> str:",
        "async def raw(\n    *,\n    arguments: dict[str, Any],\n) -> str:",
        "    Hints: destructive, open-world.",
    ]:
        assert line in stub, line
    routes = {entry["function"]: entry for entry in json.loads(files["tools.json"])}
    assert routes["find"]["parameters"]["from_"] == "from" and routes["raw"]["parameters"] is None
    assert routes["find"]["hints"] == {"read_only": True, "destructive": False, "open_world": False}
    # each tool's own stub holds what it uses, and the server's stub is them merged
    assert "class OtherNode" in files["servers/shapes/other.pyi"].decode()
    assert "class Node" not in files["servers/shapes/other.pyi"].decode()


def test_a_union_of_enums_and_consts_is_one_literal_in_the_stub() -> None:
    """Claude Code's `TaskUpdate.status` (`anyOf` of an `enum` and a `const`) was `Literal[...] |
    Literal["deleted"]`, which ruff's default rules reject in a stub (PYI030); the models merge them too."""
    status = {
        "anyOf": [
            {"enum": ["pending", "in_progress", "completed"], "type": "string"},
            {"type": "integer"},
            {"const": "deleted", "type": "string"},
        ]
    }
    tool = {"name": "update", "inputSchema": {"type": "object", "properties": {"status": status}}}
    stub = render_code_mode([(catalog("tasks", [tool]), {})], HubSettings())["tasks.pyi"].decode()
    assert '    status: Literal["pending", "in_progress", "completed", "deleted"] | int = ...,\n' in stub


def test_a_union_members_constant_with_its_default_is_required_in_the_stub() -> None:
    """awslabs.dynamodb-mcp-server 2.1.8's access patterns are a `oneOf` told apart by `operation`
    (`const` and `default` `"GetItem"`): the stub had `operation: NotRequired[Literal["GetItem"]]`, so a
    script that left it out passed `check-scripts` and was refused at run time, the item matching
    several members (found in the sixteenth round). By naming rules 8 it is required, as in the models."""
    dynamodb = load_snapshot(REPO / "tests" / "fixtures" / "catalogs" / "more" / "dynamodb.json")
    assert dynamodb.naming_rules == 8
    stub = render_code_mode([(dynamodb, {})], HubSettings())["dynamodb.pyi"].decode()
    get_item = stub[stub.index("class GetItemAccessPattern(TypedDict):") :]
    assert '    operation: Literal["GetItem"]\n' in get_item[: get_item.index("class ", 1)], stub
    earlier = render_code_mode([(replace(dynamodb, naming_rules=7), {})], HubSettings())["dynamodb.pyi"].decode()
    assert '    operation: NotRequired[Literal["GetItem"]]\n' in earlier


def test_a_number_that_may_be_an_integer_is_a_float_in_the_stub(tmp_path: Path) -> None:
    """mcpforunityserver's `page_size` (`anyOf` an integer, a number, a string or null) was
    `int | float | str | None`, which ruff's default rules reject in a signature (PYI041): a type
    checker takes an `int` for a `float`, and code mode's own checker does too."""
    number = {"anyOf": [{"type": "integer"}, {"type": "number"}, {"type": "string"}, {"type": "null"}]}
    properties = {"page_size": number, "scale": {"type": ["integer", "number"]}}
    tool = {"name": "search", "inputSchema": {"type": "object", "properties": properties}}
    files = render_code_mode([(catalog("unity", [tool]), {})], HubSettings())
    stub = files["unity.pyi"].decode()
    assert "    page_size: float | str | None = ...,\n" in stub, stub
    assert "    scale: float = ...,\n" in stub, stub
    assert _ruff_check(files, tmp_path) == ""


def test_a_union_of_nullable_branches_names_each_member_once_in_the_stub(tmp_path: Path) -> None:
    """rootly-mcp-server 2.3.22's `update_dashboard_panel` has a `group_by` that is `anyOf` a nullable
    string and a nullable object, which was `str | None | ...GroupBy2 | None`: ruff's default rules
    reject the second `None` in a stub (PYI016)."""
    group_by = {
        "anyOf": [
            {"type": ["string", "null"]},
            {"type": ["object", "null"], "properties": {"key": {"type": "string"}}, "required": ["key"]},
            {"type": ["string", "integer"]},
        ]
    }
    properties = {"group_by": group_by, "tags": {"type": ["array", "null"], "items": {"type": ["string", "null"]}}}
    tool = {"name": "update_panel", "inputSchema": {"type": "object", "properties": properties}}
    files = render_code_mode([(catalog("rootly", [tool]), {})], HubSettings())
    stub = files["rootly.pyi"].decode()
    assert "    group_by: str | UpdatePanelGroupBy2 | int | None = ...,\n" in stub, stub
    assert "    tags: list[str | None] | None = ...,\n" in stub, stub
    assert _ruff_check(files, tmp_path) == ""


def test_a_server_with_no_tools_has_a_module_that_imports_nothing(tmp_path: Path) -> None:
    """@azure/mcp-template's server lists nothing, and its module imported `_CODE_MODE` for no function,
    which ruff's default rules reject (F401)."""
    files = render_code_mode([(catalog("empty", []), {})], HubSettings())
    assert "import" not in files["empty.py"].decode()
    assert _ruff_check(files, tmp_path) == ""


def _ruff_check(files: dict[str, bytes], folder: Path) -> str:
    """What ruff's default rules find in the code-mode package's files (nothing of this repository's configuration)."""
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    ruff = [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--line-length", "100", "--quiet", "."]
    checked = subprocess.run(ruff, capture_output=True, text=True, cwd=folder, timeout=60)
    return checked.stdout + checked.stderr


@pytest.mark.parametrize("naming_rules", [4, 5])
def test_a_tagged_unions_members_are_named_as_the_models_name_them(naming_rules: int) -> None:
    """By rules 5 a tagged union's object members are named by their tags in the stub, as in the
    models (`DrawShapeCircle`); by rules 4, and for an untagged union, by their place."""
    member = {"type": "object", "required": ["kind"]}
    shape = {
        "oneOf": [
            {**member, "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}},
            {**member, "properties": {"kind": {"enum": ["square"]}, "side": {"type": "number"}}},
            {"type": "null"},
        ]
    }
    loose = {
        "anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}},
        ]
    }
    tool = {"name": "draw", "inputSchema": {"type": "object", "properties": {"shape": shape, "loose": loose}}}
    snapshot = replace(catalog("shapes", [tool]), naming_rules=naming_rules)
    stub = render_code_mode([(snapshot, {})], HubSettings())["shapes.pyi"].decode()
    tagged = ("DrawShapeCircle", "DrawShapeSquare") if naming_rules == 5 else ("DrawShape", "DrawShape2")
    assert f"    shape: {tagged[0]} | {tagged[1]} | None = ...,\n" in stub
    assert f"class {tagged[1]}(TypedDict):\n" in stub
    assert "    loose: DrawLoose | DrawLoose2 = ...,\n" in stub


def test_two_places_in_one_tool_that_name_one_class_are_numbered_apart() -> None:
    """ms-365-mcp-server 0.155.0's Graph bodies hold `createdBy.user` and `createdByUser`, two objects
    both named `...BodyCreatedByUser`: renaming the tool's classes cannot tell them apart, and code mode
    failed the whole server ("cannot name its tools' types apart")."""
    identity = {"type": "object", "properties": {"displayName": {"type": "string"}}}
    user = {"type": "object", "properties": {"mail": {"type": "string"}, "id": {"type": "string"}}}
    body = {
        "type": "object",
        "properties": {"createdBy": {"type": "object", "properties": {"user": identity}}, "createdByUser": user},
    }
    tool = {"name": "create-folder", "inputSchema": {"type": "object", "properties": {"body": body}}}
    stub = render_code_mode([(catalog("graph", [tool]), {})], HubSettings())["graph.pyi"].decode()
    assert "class CreateFolderBodyCreatedBy(TypedDict):\n    user: NotRequired[CreateFolderBodyCreatedByUser]" in stub
    assert "class CreateFolderBodyCreatedByUser(TypedDict):\n    displayName: NotRequired[str]" in stub
    assert "    createdByUser: NotRequired[CreateFolderBodyCreatedByUser2]" in stub
    assert (
        "class CreateFolderBodyCreatedByUser2(TypedDict):\n    id: NotRequired[str]\n    mail: NotRequired[str]" in stub
    )


def test_a_definition_named_alike_in_a_tools_input_and_output_is_numbered_apart() -> None:
    """`$defs/Item` in the input schema and another `$defs/Item` in the output schema (two documents):
    both were `Item`, and renaming after the tool gave both the same new name, so code mode failed the
    whole server. A recursive definition (`Node`) is numbered too, its own fields with it."""

    def node(key: str) -> dict[str, Any]:
        children = {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        return {"type": "object", "properties": {key: {"type": "string"}, "children": children}}

    def schema(key: str, kind: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"item": {"$ref": "#/$defs/Item"}, "tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Item": {"type": "object", "properties": {key: {"type": kind}}}, "Node": node(key)},
        }

    tool = {"name": "convert", "inputSchema": schema("a", "string"), "outputSchema": schema("b", "integer")}
    stub = render_code_mode([(catalog("convert", [tool]), {})], HubSettings())["convert.pyi"].decode()
    assert "class Item(TypedDict):\n    a: NotRequired[str]" in stub
    assert "class Item2(TypedDict):\n    b: NotRequired[int]" in stub
    assert "class Node(TypedDict):\n    a: NotRequired[str]\n    children: NotRequired[list[Node]]" in stub
    assert "class Node2(TypedDict):\n    b: NotRequired[str]\n    children: NotRequired[list[Node2]]" in stub
    assert "    item: NotRequired[Item2]\n    tree: NotRequired[Node2]\n" in stub
    assert "    item: Item = ...,\n    tree: Node = ...,\n" in stub


def test_a_class_name_clash_builds_again_only_the_tool_that_clashed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tools that all name their definitions alike (`$defs/def0`, as ms-365-mcp-server's do) clash
    once per tool after the first: each clash built every tool again, 60 s of CPU for its 343 tools'
    stubs; now the one that clashed, 1.3 s."""
    tools = [
        {
            "name": f"tool{index}",
            "inputSchema": {
                "type": "object",
                "properties": {"body": {"$ref": "#/$defs/def0"}},
                "$defs": {"def0": {"type": "object", "properties": {f"field{index}": {"type": "string"}}}},
            },
        }
        for index in range(20)
    ]
    built = []
    tool_stub = code_mode._tool_stub

    def counted(route: Any, raw: Any, *rest: Any) -> Any:
        built.append(raw["name"])
        return tool_stub(route, raw, *rest)

    monkeypatch.setattr(code_mode, "_tool_stub", counted)
    stub = render_code_mode([(catalog("graph", tools), {})], HubSettings())["graph.pyi"].decode()
    assert "class Def0(TypedDict):\n    field0: NotRequired[str]" in stub
    assert "class Tool19Def0(TypedDict):\n    field19: NotRequired[str]" in stub
    assert len(built) == 20 + 19  # each tool once, and once more each that clashed


STUB_LAYOUT_CATALOGS = ("awsdocs", "browser", "google_maps")
"""Real catalogs whose stubs need black's stub layout: class docstrings (awsdocs), `Literal`s too long
for a line (browser, google_maps)."""


def test_stubs_are_laid_out_as_black_and_ruff_lay_out_stubs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `ruff format` or black run over the committed package changes no stub, so `generate --check`
    stays clean; and the stubs black would change are told apart without running black on every one."""
    import black

    from codegen.generate import code_mode
    from codegen.generate.formatting import LINE_LENGTH, black_mode
    from codegen.generate.piecewise_black import formatted_without_black

    more = REPO / "tests" / "fixtures" / "catalogs" / "more"
    snapshots = [(load_snapshot(more / f"{name}.json"), {}) for name in STUB_LAYOUT_CATALOGS]
    files = render_code_mode(snapshots, HubSettings())
    stubs = {name: data.decode() for name, data in files.items() if name.endswith(".pyi")}
    for name, stub in stubs.items():
        assert black.format_str(stub, mode=black_mode(stub=True)) == stub, name
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(stub, encoding="utf-8")
    ruff = [sys.executable, "-m", "ruff", "format", "--isolated", "--no-cache", "--line-length", "100", "--check"]
    checked = subprocess.run([*ruff, str(tmp_path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # As written before formatting: every stub the check leaves alone is one black leaves alone.
    monkeypatch.setattr(code_mode, "formatted", lambda pieces, cache: [source for _, source in pieces])
    raw = {
        name: data.decode()
        for name, data in render_code_mode(snapshots, HubSettings()).items()
        if name.endswith(".pyi")
    }
    spared = [name for name, stub in raw.items() if formatted_without_black("stub", stub) is not None]
    assert all(black.format_str(raw[name], mode=black_mode(stub=True)) == raw[name] for name in spared)
    # every one here: a server's stub went through black for its header comment alone, which black does not wrap
    assert spared == list(raw) and raw == stubs
    needs_black = raw[spared[0]].replace("async def ", "async def " + "x" * LINE_LENGTH, 1)
    assert formatted_without_black("stub", needs_black) is None


def test_a_wide_enum_is_written_in_blacks_layout_so_no_stub_goes_through_black(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A `Literal` of 500 values in every tool's stub and again in the server's was laid out by black
    twice per tool, and the server's stub always went through black for its header comment. Both are
    now written as black writes them: every stub skips black, with the bytes black makes of them."""
    from codegen.generate.piecewise_black import formatted_without_black

    def tool(name: str, required: bool) -> dict[str, Any]:
        values = [f"{name}-{index:03d}" for index in range(500)]
        schema = {"type": "object", "properties": {"zone": {"type": "string", "enum": values}}}
        return {"name": name, "inputSchema": {**schema, "required": ["zone"]} if required else schema}

    wide = Snapshot(
        server="zones",
        protocol_version="2025-11-25",
        capabilities={"tools": {}},
        tools=(tool("pick", True), tool("maybe", False)),
    )
    stubs = {
        name: data for name, data in render_code_mode([(wide, {})], HubSettings()).items() if name.endswith(".pyi")
    }
    assert len(stubs) == 3 and all(
        stub.count(b'"pick-499",\n') + stub.count(b'"maybe-499",\n') for stub in stubs.values()
    )
    assert all(formatted_without_black("stub", stub.decode()) is not None for stub in stubs.values())

    def one_line(name: str, annotation: str, depth: int, union: str = "", default: str = "") -> str:
        return f"{name}: {annotation}{f' | {union}' if union else ''}{f' = {default}' if default else ''},"

    monkeypatch.setattr(code_mode, "laid_out_keyword", one_line)
    by_black = {
        name: data for name, data in render_code_mode([(wide, {})], HubSettings()).items() if name.endswith(".pyi")
    }
    assert by_black == stubs


def test_code_mode_golden_matches() -> None:
    folder = OUTPUT / "code_mode"
    diff = diff_trees(code_mode_case_tree(), read_tree(folder), folder.relative_to(REPO).as_posix())
    assert not diff, f"the code-mode golden differs; refresh with `{REGEN_COMMAND}`\n{diff}"


def test_rendering_is_deterministic_whatever_the_order() -> None:
    snapshots = golden_snapshots()
    first = render_code_mode(snapshots, HubSettings())
    assert render_code_mode(list(reversed(snapshots)), HubSettings()) == first
    code = "from codegen.generate.code_mode import render_code_mode as r; from codegen.generate.hub import HubSettings;"
    code += "from codegen.snapshot import load_snapshot as l; import hashlib, sys;"
    code += "f = r([(l(sys.argv[1] + '/' + n + '/snapshot.json'), {}) for n in ('notes', 'weather')], HubSettings());"
    code += "print(hashlib.sha256(repr(sorted(f.items())).encode()).hexdigest())"
    digests = {
        subprocess.run(
            [PY, "-c", code, str(GOLDEN)], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


HOSTILE = '"""); import os; os.system("boom") #\n\n\n\nclass Evil: pass\n\\'


def test_hostile_catalog_text_stays_in_docstrings_and_literals() -> None:
    tools = [
        {
            "name": 'x"); import os; ("',
            "description": HOSTILE,
            "inputSchema": {
                "type": "object",
                "properties": {
                    'a"b': {"type": "string", "description": HOSTILE},
                    "mode": {"enum": ['"; import os; "', "\\\n"]},
                    "nested": {
                        "type": "object",
                        "description": HOSTILE,
                        "properties": {"k": {"type": "string", "description": HOSTILE}},
                    },
                },
            },
            "outputSchema": {"type": "object", "properties": {"}); import os #": {"type": "string"}}},
        }
    ]
    files = render_code_mode([(catalog("os", tools, instructions=HOSTILE), {})], HubSettings())
    assert module_name("os") == "os_" and "os_.pyi" in files  # never the standard library's `os`
    for name, data in files.items():
        if not name.endswith((".py", ".pyi")):
            continue
        tree = ast.parse(data.decode(), filename=name)
        imported = [
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        ]
        assert "os" not in imported and "system" not in {getattr(node, "attr", None) for node in ast.walk(tree)}, name
        assert not any(isinstance(node, ast.ClassDef) and node.name == "Evil" for node in ast.walk(tree)), name
    stub = ast.parse(files["os_.pyi"].decode())
    function = next(node for node in stub.body if isinstance(node, ast.AsyncFunctionDef))
    assert HOSTILE.split("\n")[0] in (ast.get_docstring(function) or "")
    index = files["index.md"].decode()
    assert len([line for line in index.splitlines() if line.startswith("- `os_.")]) == 1


def test_a_terminal_escape_or_bidi_control_in_a_description_is_escaped_in_index_md() -> None:
    """`index.md` is a committed file people `cat` and review: a description's OSC sequence (which
    retitles the terminal, or hides a link), its CSI colour and its right-to-left override (which
    reorders what a reviewer reads) were written into it raw."""
    text = "\x1b]0;owned\x07Reads \x1b[31mred\x1b[0m files \u202egnp.exe\u202c now"
    tools = [{"name": "t", "description": text, "inputSchema": {"type": "object"}}]
    index = render_code_mode([(catalog("esc", tools), {})], HubSettings())["index.md"].decode()
    assert index.isascii() and "\x1b" not in index and "\u202e" not in index
    line = next(line for line in index.splitlines() if line.startswith("- `esc.t`"))
    assert line.startswith("- `esc.t` - \\x1b]0;owned\\x07Reads \\x1b[31mred\\x1b[0m files \\u202egnp.exe\\u202c now")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project over the two bundled servers, their golden snapshots committed, code mode on."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snaps").mkdir()
    for name in ("notes", "weather"):
        (tmp_path / "snaps" / f"{name}.json").write_bytes((GOLDEN / name / "snapshot.json").read_bytes())
    servers = "".join(
        f"[tool.mcp-stubgen.servers.{name}]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(script))}]\n"
        for name, script in (("notes", NOTES), ("weather", WEATHER))
    )
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\ncode_mode = true\n'
        f'scripts = "agent_scripts"\n{servers}',
    )
    (tmp_path / "agent_scripts").mkdir()
    return tmp_path


def test_generate_writes_the_code_mode_package_and_check_guards_it(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    first = run_cli("generate")
    assert first.exit_code == 0, first.stderr
    assert "code_mode: generated clients/code_mode (15 file(s) written, 0 removed)" in first.stderr
    assert "code mode: weather: 4 tool(s): definitions " in first.stderr
    folder = project / "clients" / "code_mode"
    assert sorted(read_tree(folder)) == [
        "AGENTS.md", "__init__.py", "index.md", "notes.py", "notes.pyi", "py.typed", "servers/notes/add_note.pyi",
        "servers/notes/search.pyi", "servers/weather/celsius_to_fahrenheit.pyi", "servers/weather/get_forecast.pyi",
        "servers/weather/search.pyi", "servers/weather/send_alert.pyi", "tools.json", "weather.py", "weather.pyi",
    ]  # fmt: skip
    assert read_tree(folder) == render_code_mode(golden_snapshots(), HubSettings())
    assert (
        "- `weather.get_forecast` - Get the forecast for a city. (destructive, open-world)"
        in (folder / "index.md").read_text()
    )
    check = run_cli("generate", "--check")
    assert check.exit_code == 0, check.stdout
    tokens = [json.loads(line) for line in run_cli("generate", "--format", "json", "--no-cache").stdout.splitlines()]
    assert not [line for line in tokens if line["status"] == "tokens"]  # nothing written, nothing reported
    (folder / "index.md").unlink()
    written = [json.loads(line) for line in run_cli("generate", "--format", "json").stdout.splitlines()]
    report = {line["server"]: line for line in written if line["status"] == "tokens"}
    assert sorted(report) == ["notes", "weather"] and report["weather"]["tools"] == 4
    assert 0 < report["weather"]["stubs"] < report["weather"]["definitions"]
    with (folder / "servers" / "weather" / "search.pyi").open("a") as stub:
        stub.write("# edited\n")
    stale = run_cli("generate", "--check")
    assert stale.exit_code == 1
    assert "+++ b/clients/code_mode/servers/weather/search.pyi" in stale.stdout
    assert "generated clients/code_mode (1 file(s) written, 0 removed)" in run_cli("generate").stderr


def test_the_runtime_holds_code_modes_files_only_while_the_code_mode_package_is_there(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    """A hub without code mode ships no code-mode contract or sandbox; turning code mode on brings them
    into the folder's runtime, and `--check` reports a runtime that lacks them."""
    config = project / "pyproject.toml"
    config.write_text(config.read_text().replace("code_mode = true\n", ""))
    runtime = project / "clients" / "_mcp_runtime"
    assert run_cli("generate").exit_code == 0
    assert not {"_code_mode.py", "_sandbox.py"} & set(read_tree(runtime))
    config.write_text(config.read_text().replace("hub = true\n", "hub = true\ncode_mode = true\n"))
    assert run_cli("generate", "--check").exit_code == 1  # the code-mode package is missing
    turned_on = run_cli("generate")
    assert turned_on.exit_code == 0, turned_on.stderr
    assert "_mcp_runtime: generated clients/_mcp_runtime (2 file(s) written, 0 removed)" in turned_on.stderr
    assert {"_code_mode.py", "_sandbox.py"} <= set(read_tree(runtime))
    (runtime / "_sandbox.py").unlink()
    stale = run_cli("generate", "--check")
    assert stale.exit_code == 1 and "_mcp_runtime/_sandbox.py" in stale.stdout


def test_code_mode_stays_as_it_was_when_the_hub_fails(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    """The stubs name what the hub routes: a generate whose hub failed (GitHub's OpenAPI catalog
    through FastMCP 2.14, two schemas then refused as past the work budget; here a reference into
    instance data) wrote code mode over the new catalog anyway, so its stubs offered a tool the hub it calls
    through did not have; `sync` already left code mode alone then."""
    assert run_cli("generate").exit_code == 0
    before = read_tree(project / "clients" / "code_mode")
    snapshot = project / "snaps" / "notes.json"
    catalog = json.loads(snapshot.read_text())
    broken = {"type": "object", "properties": {"x": {"$ref": "#/examples/0"}}, "examples": [{"type": "string"}]}
    catalog["tools"].append({"name": "fan", "inputSchema": broken})
    snapshot.write_text(json.dumps(catalog))

    result = run_cli("generate")

    assert result.exit_code == 2
    assert "error: hub: server 'notes': tool 'fan': " in result.stderr
    assert "code_mode: generated" not in result.stderr
    assert read_tree(project / "clients" / "code_mode") == before


def test_code_mode_needs_the_hub(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    write_config(tmp_path, '[tool.mcp-stubgen]\noutput = "clients"\ncode_mode = true\n')
    result = run_cli("generate")
    assert result.exit_code == 2
    assert result.stderr.strip().endswith(
        "pyproject.toml: code_mode = true needs hub = true (code mode calls every tool through the hub); add hub = true"
    )
    write_config(tmp_path, '[tool.mcp-stubgen]\noutput = "clients"\n[tool.mcp-stubgen.servers.a]\ncommand = "x"\n')
    flag = run_cli("generate", "--code-mode")
    assert flag.exit_code == 2
    assert "set `hub = true` (or pass --hub): --code-mode calls every tool through the hub" in flag.stderr
    assert "Traceback" not in result.stderr + flag.stderr


def test_a_server_whose_package_is_code_modes_folder_is_refused_and_code_mode_kept(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    """A server `code-mode` would generate the package `code_mode`: the config is refused before anything
    is written, so neither folder replaces the other (which left the hub importing the wrong package)."""
    assert run_cli("generate").exit_code == 0
    snapshot = json.loads((project / "snaps" / "weather.json").read_text())
    snapshot["server"] = "code-mode"
    (project / "snaps" / "code-mode.json").write_text(json.dumps(snapshot))
    config = project / "pyproject.toml"
    config.write_text(f'{config.read_text()}[tool.mcp-stubgen.servers.code-mode]\ncommand = "x"\n')
    result = run_cli("generate")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {config.name}: server id 'code-mode' would write the package 'code_mode', which is code mode's own "
        "folder; rename the server id\n"
    )
    package = project / "clients" / "code_mode"
    assert (package / "index.md").is_file() and not (package / "client.py").exists()


@pytest.fixture
def generated(project: Path) -> Iterator[Path]:
    """The project generated (by a real `mcp-stubgen` process), its output importable as `clients`."""
    subprocess.run([PY, "-m", "codegen.cli", "generate"], cwd=project, check=True, capture_output=True)
    sys.path.insert(0, str(project))
    try:
        yield project
    finally:
        sys.path.remove(str(project))
        for module in [module for module in sys.modules if module.split(".")[0] == "clients"]:
            del sys.modules[module]


async def test_in_process_functions_call_the_bundled_servers_through_the_hub(generated: Path) -> None:
    code_mode = importlib.import_module("clients.code_mode")
    hub_package = importlib.import_module("clients.hub")
    weather, notes = (importlib.import_module(f"clients.code_mode.{name}") for name in ("weather", "notes"))
    with pytest.raises(code_mode.NoHubError, match="inside `with use_hub"):
        await weather.get_forecast(city="Oslo")
    servers = {
        name: StdioServerParameters(command=PY, args=[str(script)])
        for name, script in (("notes", NOTES), ("weather", WEATHER))
    }
    async with hub_package.Hub.connect(**servers) as hub:
        with code_mode.use_hub(hub):
            assert await weather.get_forecast(city="Oslo", days=2) == {
                "city": "Oslo", "temperature": 23.5, "conditions": "sunny", "units": "metric",
            }  # fmt: skip
            assert await weather.search(query="o") == ["New York", "Oslo"]  # the wrapped value
            assert (await notes.search(text="oslo"))["notes"][0]["title"] == "Pack an umbrella for Oslo"
            with pytest.raises(TypeError, match=r"unexpected keyword argument 'town'; it takes city, days, units"):
                await weather.get_forecast(town="Oslo")
            with pytest.raises(hub_package.ArgumentsError, match="nothing was sent"):
                await weather.get_forecast(city="Oslo", units="kelvin")
            with pytest.raises(hub_package.ArgumentsError):
                await weather.get_forecast(city="Oslo", days="2")  # nothing coerced
            with pytest.raises(
                code_mode.ToolCallError, match="the tool reported an error: Error executing tool send_alert"
            ):
                await weather.send_alert(message="")
            try:  # what a script written for the sandbox catches works in process too
                await weather.send_alert(message="")
            except RuntimeError as error:
                assert isinstance(error, code_mode.ToolCallError)
            else:
                pytest.fail("send_alert with an empty message did not raise")
        bound = code_mode.functions(hub)
        assert sorted(bound) == [
            "notes.add_note", "notes.search", "weather.celsius_to_fahrenheit", "weather.get_forecast",
            "weather.search", "weather.send_alert",
        ]  # fmt: skip
        assert await bound["weather.celsius_to_fahrenheit"](celsius=100) == 212.0
    assert code_mode.hints()["weather.send_alert"] == code_mode.ToolHints("weather__send_alert", False, True, True)
    assert code_mode.stubs()["weather"] == (generated / "clients" / "code_mode" / "weather.pyi").read_text()


def test_search_tools_and_describe_return_stubs_grouped_by_module(generated: Path) -> None:
    code_mode = importlib.import_module("clients.code_mode")
    found = code_mode.search_tools("forecast for a city", limit=2)
    assert found.startswith("# module weather: import weather\nfrom typing import Literal, TypedDict\n")
    assert "async def get_forecast(" in found and "class GetForecastResult(TypedDict):" in found
    assert "notes" not in found.split("\n", 1)[0]
    summaries = code_mode.search_tools("add a note", detail="summaries", limit=1)
    assert summaries == "- `notes.add_note` - Add a note and return it with its new id. (destructive, open-world)\n"
    # best first, each server's tools together
    assert code_mode.search_tools("search", detail="names", limit=3) == "weather.search\nnotes.search\nnotes.add_note\n"
    one = code_mode.describe("notes__add_note")
    assert one == code_mode.describe("notes.add_note")
    assert "async def add_note(" in one and "async def search(" not in one
    with pytest.raises(LookupError, match=r"no function 'weather.get_forcast'; did you mean 'weather.get_forecast'"):
        code_mode.describe("weather.get_forcast")


WRONG_SCRIPT = """import weather

forecast = await weather.get_forecast(city="Oslo", units="kelvin")
forecast["temp"]
"""
GOOD_SCRIPT = """import notes
import weather

forecast = await weather.get_forecast(city="Oslo", units="imperial")
hits = await notes.search(text="oslo")
[forecast["temperature"], [note["title"] for note in hits["notes"]]]
"""


@pytest.mark.generated_mypy
def test_the_stubs_pass_mypy_strict_and_type_the_callers(generated: Path) -> None:
    (generated / "good.py").write_text(
        "from clients.code_mode import notes, weather\n\n\nasync def main() -> float:\n"
        '    forecast = await weather.get_forecast(city="Oslo")\n'
        '    titles: list[str] = [note["title"] for note in (await notes.search(text="x"))["notes"]]\n'
        '    return forecast["temperature"] + len(titles)\n'
    )
    strict = subprocess.run(
        [PY, "-m", "mypy", "--strict", "-p", "clients.code_mode", "-m", "good"],
        cwd=generated,
        capture_output=True,
        text=True,
    )
    assert strict.returncode == 0, strict.stdout
    shapes = generated / "shapes"
    for name, data in render_code_mode([(catalog("shapes", SHAPES), {})], HubSettings()).items():
        if name.endswith(".pyi"):
            (shapes / name).parent.mkdir(parents=True, exist_ok=True)
            (shapes / name).write_bytes(data)
    checked = subprocess.run([PY, "-m", "mypy", "--strict", str(shapes)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout


@pytest.mark.generated_mypy
@pytest.mark.parametrize(
    "checker",
    [
        "mypy",
        pytest.param("pydantic-monty", marks=pytest.mark.skipif(not HAS_MONTY, reason="pydantic-monty not installed")),
    ],
)
def test_check_scripts_reports_file_and_line_and_exits_1(run_cli, project: Path, checker: str) -> None:  # type: ignore[no-untyped-def]
    (project / "agent_scripts" / "good.py").write_text(GOOD_SCRIPT)
    assert run_cli("check-scripts", "--checker", checker).exit_code == 0
    (project / "agent_scripts" / "wrong.py").write_text(WRONG_SCRIPT)
    result = run_cli("check-scripts", "--checker", checker)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert [line.split(":")[:2] for line in lines] == [["agent_scripts/wrong.py", "3"], ["agent_scripts/wrong.py", "4"]]
    assert "kelvin" in lines[0] and "temp" in lines[1]
    assert f"1 of 2 script(s) in agent_scripts fail the type check ({checker})" in result.stderr


@pytest.mark.generated_mypy
def test_a_script_that_does_not_parse_is_one_line_and_mypy_still_checks_the_others(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    """mypy stops at a syntax error in any file it is given; the other scripts are still checked,
    and no temporary path reaches the user."""
    (project / "agent_scripts" / "broken.py").write_text("import weather\n\nforecast = (\n")
    (project / "agent_scripts" / "wrong.py").write_text(WRONG_SCRIPT)
    result = run_cli("check-scripts", "--checker", "mypy")
    assert result.exit_code == 1, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[:2] for line in lines] == [
        ["agent_scripts/broken.py", "3"],
        ["agent_scripts/wrong.py", "3"],
        ["agent_scripts/wrong.py", "4"],
    ]
    assert "[syntax]" in lines[0] and "kelvin" in lines[1]
    assert "2 of 2 script(s) in agent_scripts fail the type check (mypy)" in result.stderr
    assert "mcp-stubgen-scripts-" not in result.stdout + result.stderr


def test_check_scripts_without_a_folder_or_a_checker_says_what_to_do(  # type: ignore[no-untyped-def]
    run_cli, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = run_cli("check-scripts", "nowhere")
    assert missing.exit_code == 2
    assert "nowhere: no such folder of scripts" in missing.stderr
    (project / "notes.py").write_text("x = 1\n")
    a_file = run_cli("check-scripts", "notes.py")
    assert a_file.exit_code == 2 and "notes.py: a file, not a folder of scripts" in a_file.stderr
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)
    none = run_cli("check-scripts")
    assert none.exit_code == 2
    assert none.stderr.strip() == (
        "error: check-scripts: no type checker is installed; "
        "install pydantic-monty (`pip install pydantic-monty`) or mypy (`pip install mypy`)"
    )


def changed_weather(folder: Path) -> Path:
    """The weather catalog after a release that removes a tool, renames an argument, drops an enum
    value and a result key."""
    document = json.loads((GOLDEN / "weather" / "snapshot.json").read_text())
    tools = {tool["name"]: tool for tool in document["tools"]}
    forecast = tools["get_forecast"]
    forecast["inputSchema"]["$defs"]["Units"]["enum"] = ["metric"]
    del forecast["outputSchema"]["properties"]["conditions"]
    forecast["outputSchema"]["required"].remove("conditions")
    alert = tools["send_alert"]["inputSchema"]
    alert["properties"]["text"] = alert["properties"].pop("message")
    alert["required"] = ["text"]
    document["tools"] = [tool for tool in document["tools"] if tool["name"] != "search"]
    path = folder / "new-weather.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.generated_mypy
def test_drift_names_the_saved_scripts_a_catalog_change_breaks(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    scripts = project / "agent_scripts"
    (scripts / "forecast.py").write_text(
        'import weather\n\nforecast = await weather.get_forecast(city="Oslo", units="imperial")\nforecast["conditions"]\n'
    )
    (scripts / "alert.py").write_text('import weather\n\nawait weather.send_alert(message="storm")\n')
    (scripts / "cities.py").write_text('import weather\n\nawait weather.search(query="o")\n')
    (scripts / "notes.py").write_text('import notes\n\nawait notes.search(text="o")\n')  # untouched by the change
    new = changed_weather(project)
    result = run_cli("drift", "snaps/weather.json", new)
    assert result.exit_code == 1
    broken = [line for line in result.stderr.splitlines() if line.endswith("(a saved script this change breaks)")]
    assert {line.split(":")[1] + ":" + line.split(":")[2] for line in broken} == {
        " agent_scripts/alert.py:3",
        " agent_scripts/cities.py:3",
        " agent_scripts/forecast.py:3",
        " agent_scripts/forecast.py:4",
    }
    assert not any("notes.py" in line for line in broken)
    assert any("imperial" in line for line in broken) and any("conditions" in line for line in broken)
    (project / "app").mkdir()
    used = run_cli("drift", "snaps/weather.json", new, "--usage", "app")  # the saved scripts are uses too
    assert "      used at agent_scripts/alert.py:3" in used.stdout.splitlines()
    assert run_cli("drift", "snaps/weather.json", "snaps/weather.json").exit_code == 0


def test_token_report_counts_definitions_and_stubs_per_server() -> None:
    rows = token_report(golden_snapshots(), HubSettings())
    assert [row["server"] for row in rows] == ["notes", "weather"]
    for row in rows:
        assert 0 < row["stubs"] < row["definitions"]


def test_the_documented_example_runs_in_process(generated: Path) -> None:
    page = (REPO / "docs" / "code-mode.md").read_text(encoding="utf-8")
    start = page.index("```python\n") + len("```python\n")
    (generated / "demo.py").write_text(page[start : page.index("```\n", start)], encoding="utf-8")
    result = subprocess.run(
        [PY, str(generated / "demo.py")],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(generated)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["weather.get_forecast", "71.7 sunny", "['Pack an umbrella for Oslo']"]
