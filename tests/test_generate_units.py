"""Identifiers, escaping and the runtime helpers, tested directly."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import TextContent, Tool

from codegen.errors import StubgenError
from codegen.generate import generate_package
from codegen.generate.build import plan_package
from codegen.generate.escaping import docstring, literal
from codegen.generate.model_reader import names_in
from codegen.generate.templating import all_sorted, import_sorted
from codegen.identifiers import (
    CLIENT_MEMBERS,
    assign_names,
    class_name,
    model_stems,
    package_name,
    pascal_case,
    snake_case,
)
from codegen.runtime import _runtime
from codegen.snapshot import Snapshot, canonical_json_bytes, fingerprint, load_snapshot, parse_snapshot
from tests.hostile.strategies import snapshot_of
from tests.regen_goldens import cases


def names(wires: list[str], **options: object) -> dict[str, str]:
    return {named.wire: named.python for named in assign_names(wires, fallback="tool", **options)}  # type: ignore[arg-type]


def test_names_are_clean_escaped_and_unique() -> None:
    chosen = names(
        ["get-user", "get_user", "API-get-user", "math.multiply", "class", "self", "match", "2fa", "", "ünï"]
    )
    assert chosen == {
        "get-user": "get_user_2",
        "get_user": "get_user",
        "API-get-user": "api_get_user",
        "math.multiply": "math_multiply",
        "class": "class_",
        "self": "self_",
        "match": "match_",
        "2fa": "tool_2fa",
        "": "tool",
        "ünï": "uni",
    }
    assert all(name.isidentifier() for name in chosen.values())


def test_a_digit_stays_with_its_word_and_a_snapshot_of_rules_1_keeps_it_split() -> None:
    """`get_s3_object(s3_key=...)`, as the models name their fields and packages are named; a committed
    package named by rules 1 (`generate_3_d`) keeps its names, since its snapshot keeps its rules
    (method names are a contract, issue 22)."""
    wires = ["generate_3d", "list_ec2_instances", "getS3Bucket", "oauth2Token", "getV2Users", "EC2Instances"]
    assert names(wires) == {
        "generate_3d": "generate_3d",
        "list_ec2_instances": "list_ec2_instances",
        "getS3Bucket": "get_s3_bucket",
        "oauth2Token": "oauth2_token",
        "getV2Users": "get_v2_users",
        "EC2Instances": "ec2_instances",
    }
    assert names(wires, rules=1) == {
        "generate_3d": "generate_3_d",
        "list_ec2_instances": "list_ec_2_instances",
        "getS3Bucket": "get_s_3_bucket",
        "oauth2Token": "oauth_2_token",
        "getV2Users": "get_v_2_users",
        "EC2Instances": "e_c_2_instances",
    }


@given(st.text(alphabet="aZ_-.09é", max_size=12))
def test_the_naming_rules_differ_only_where_a_letter_is_beside_a_digit(name: str) -> None:
    """Rules 2 changes nothing but the split between a letter and a digit: every other name is named
    as a package named by rules 1 has it."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    if not re.search(r"[A-Za-z][0-9]|[0-9][A-Za-z]", ascii_name):
        assert snake_case(name, "tool", 2) == snake_case(name, "tool", 1)


def test_class_names_keep_a_digit_with_its_word_by_rules_3() -> None:
    """As snake_case names and package names do from rules 2 (`neo4j`, `get_k8s_pods`); rules 1 and 2
    split it off, which a committed package keeps."""
    servers = ["neo4j", "k8s", "ec2", "s3Key", "mcp-server-time", "3d-viewer", "OAuth2Token", "HTTPServer"]
    assert [class_name(server, "Client", 3) for server in servers] == [
        "Neo4jClient",
        "K8sClient",
        "Ec2Client",
        "S3KeyClient",
        "McpServerTimeClient",
        "Server3dViewerClient",
        "OAuth2TokenClient",
        "HTTPServerClient",
    ]
    assert [class_name(server, "Client", 2) for server in servers] == [
        "Neo4JClient",
        "K8SClient",
        "Ec2Client",
        "S3KeyClient",
        "McpServerTimeClient",
        "Server3DViewerClient",
        "OAuth2TokenClient",
        "HTTPServerClient",
    ]
    assert model_stems(["get_k8s_pods", "get_k8s_pods_2"], 3) == ["GetK8sPods", "GetK8sPods2"]
    assert model_stems(["get_k8s_pods", "get_k8s_pods_2"], 1) == ["GetK8SPods", "GetK8SPods2"]


@given(st.text(alphabet="aZ_-.09é", max_size=12))
def test_the_class_naming_rules_differ_only_where_a_letter_is_beside_a_digit(name: str) -> None:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    if not re.search(r"[A-Za-z][0-9]|[0-9][A-Za-z]", ascii_name):
        assert pascal_case(name, "Tool", 3) == pascal_case(name, "Tool", 2) == pascal_case(name, "Tool", 1)


def test_adding_a_name_never_renames_an_exact_one() -> None:
    assert names(["get_user"])["get_user"] == names(["get-user", "get_user", "Get.User"])["get_user"]


def test_wrapper_members_and_builtins_are_escaped() -> None:
    chosen = names(["connect", "verify", "id", "type"], taken=CLIENT_MEMBERS)
    assert chosen == {"connect": "connect_", "verify": "verify_", "id": "id_", "type": "type_"}


def test_client_members_cover_the_runtime_base_class() -> None:
    public = {name for name in vars(_runtime.GeneratedClient) if not name.startswith("_")} | {"mcp_client"}
    sync_public = {name for name in vars(_runtime.SyncClient) if not name.startswith("_")} | {"async_client"}
    assert public | sync_public | {"connect_sync"} <= CLIENT_MEMBERS


def test_a_task_tools_start_method_never_takes_another_members_name() -> None:
    """`start_<method>` is named after every other member: a tool already called `start_research`
    keeps its name, and the task tool's start method steps aside; a forbidden tool gets none, nor
    does one whose `taskSupport` is no value the spec defines."""
    tools = [
        {"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
        {"name": "start_research", "inputSchema": {"type": "object"}},
        {"name": "plain", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "forbidden"}},
        {"name": "odd", "inputSchema": {"type": "object"}, "execution": {"taskSupport": 'required"\nimport os'}},
    ]
    plan = plan_package(snapshot_of({"server": "tasks", "tools": tools}))
    assert {tool.named.python: tool.start_method for tool in plan.tools} == {
        "research": "start_research_",
        "start_research": None,
        "plain": None,
        "odd": None,  # only the spec's values count, so no catalog text reaches the client as a task mode
    }


def test_renames_that_collide_name_both_tools() -> None:
    with pytest.raises(StubgenError, match=r"'a-b' and 'c'.*both named_methods to 'same'"):
        names(["a-b", "c"], method_names={"a-b": "same", "c": "same"}, kind="tool")
    with pytest.raises(StubgenError, match=r"tool 'fetch' and the rename of 'get-user' both want .*'fetch'"):
        names(["fetch", "get-user"], method_names={"get-user": "fetch"}, kind="tool")
    assert names(["get-user"], method_names={"get-user": "fetch_user"}) == {"get-user": "fetch_user"}


def test_package_names_are_identifiers() -> None:
    assert package_name("server-everything") == "server_everything"
    assert package_name("import") == "import_"
    assert snake_case("getHTTPResponse", "x") == "get_http_response"


HOSTILE = [
    "a \"\"\" b ''' c",
    "back\\slash at the end\\",
    "cr\r lf\n ls\u2028 ps\u2029 nul\x00",
    "lone \ud800 surrogate",
    "bidi \u202e override",
    "{{ jinja }} {% if %}",
    '"quote at the end"',
    "__import__('os').system('touch /tmp/pwned')",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_docstrings_and_literals_never_escape(text: str) -> None:
    source = f'def f():\n    """{docstring(text)}"""\n    return {literal(text)}\n'
    tree = ast.parse(source)
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert len(function.body) == 2
    namespace: dict[str, object] = {}
    exec(compile(tree, "<generated>", "exec"), namespace)
    assert namespace["f"]() == text  # type: ignore[operator]
    assert "\r" not in source and "\u2028" not in source and "\x00" not in source


def test_a_lone_surrogate_in_a_docstring_is_the_text_of_its_escape() -> None:
    """Python 3.13 cleans a docstring as UTF-8 when it compiles it, so one holding a surrogate (its
    escape, `\\ud800`) is a `UnicodeEncodeError` there: the docstring shows the escape as text."""
    written = docstring("lone \ud800 surrogate")
    assert ast.literal_eval(f'"""{written}"""') == "lone \\ud800 surrogate"
    compile(f'def f():\n    """{written}"""\n', "<generated>", "exec")


def test_runtime_encoding_matches_the_snapshot_encoding() -> None:
    value = {"b": [1, 2.5, None, True], "a": "\u00e9\ud800", "c": {"z": "", "y": 9007199254740991}}
    assert _runtime.canonical_json_bytes(value) == canonical_json_bytes(value)
    assert _runtime.fingerprint(value) == fingerprint(value)


@pytest.mark.parametrize("case", cases(), ids=lambda case: case.name)
def test_live_tool_fingerprint_matches_the_snapshot_entry(case: Path) -> None:
    for entry in load_snapshot(case / "snapshot.json").tools:
        assert _runtime.tool_fingerprint(Tool.model_validate(entry)) == fingerprint(entry), entry["name"]


def test_a_live_tool_has_its_snapshot_fingerprint_whatever_order_it_lists_required_names_in() -> None:
    """`required` is a set: a server that builds it from one lists its names in another order on each
    start, and the client must not call that a changed tool. Red before: the runtime hashed the order
    this start listed, and the snapshot the order the start that took it listed."""
    orders = [["alpha", "bravo", "charlie"], ["charlie", "alpha", "bravo"], ["bravo", "charlie", "alpha"]]
    listed = [
        {
            "name": "book",
            "inputSchema": {
                "type": "object",
                "properties": {name: {"type": "string"} for name in names},
                "required": names,
                "dependentRequired": {"alpha": [name for name in names if name != "alpha"]},
                "$defs": {"Stop": {"type": "object", "required": names[::-1]}},
            },
            "outputSchema": {"type": "object", "required": names},
        }
        for names in orders
    ]
    snapshots = {Snapshot("s", "2026-07-28", {"tools": {}}, tools=(tool,)).canonical_bytes() for tool in listed}
    assert len(snapshots) == 1
    (stored,) = json.loads(snapshots.pop())["tools"]
    assert stored["inputSchema"]["required"] == stored["outputSchema"]["required"] == orders[0]
    live = {_runtime.tool_fingerprint(Tool.model_validate(tool)) for tool in listed}
    assert live == {fingerprint(stored)}


def test_not_given_is_a_falsy_singleton() -> None:
    assert _runtime.NotGiven() is _runtime.NOT_GIVEN
    assert not _runtime.NOT_GIVEN
    assert repr(_runtime.NOT_GIVEN) == "NOT_GIVEN"


def test_errors_name_the_tool_and_what_to_do() -> None:
    error = _runtime.ToolError("send", [TextContent(type="text", text="bad input")])
    assert str(error) == "tool 'send' failed: bad input"  # as a user's own code may still make one
    named = _runtime.ToolError("send", [TextContent(type="text", text="bad input")], server="mail")
    assert (str(named), named.server) == ("server 'mail': tool 'send' failed: bad input", "mail")
    drift = _runtime.CatalogDriftError("weather", missing=["a"], drifted=["b"])
    assert (
        "missing tools: 'a'" in str(drift) and "changed tools: 'b'" in str(drift) and "mcp-stubgen sync" in str(drift)
    )
    assert "mcp-stubgen sync" in str(_runtime.UnknownToolError("weather", "gone", "Unknown tool: gone"))


def test_an_error_quoting_a_huge_server_text_is_one_line_of_bounded_length() -> None:
    """A server's 5 MB error message or tool text became a 5 MB exception message (and log line); the
    message keeps its start (server, request) and end (the code), the attributes the whole text."""
    text = "x" * 5_000_000 + "\n" + "y" * 10
    refused = _runtime.ServerError("weather", "tool 'send'", -32603, text)
    shown = str(refused)
    assert len(shown) < 4_100 and "\n" not in shown and refused.message == text
    assert shown.startswith("server 'weather': tool 'send' failed: xxx")
    assert shown.endswith("x\\nyyyyyyyyyy (code -32603)") and " characters left out) ... " in shown
    failed = _runtime.ToolError("send", [TextContent(type="text", text=text)])
    assert len(str(failed)) < 4_100 and failed.content[0].text == text  # type: ignore[union-attr]


def test_runtime_imports_only_mcp_pydantic_and_the_standard_library() -> None:
    """Plus what those two bring and a generated package may rely on: `pydantic_core` (the JSON
    encoding of dates and the like), `anyio` (the SDK's async layer: a per-call timeout) and
    `jsonschema` (the runtime's validator, loaded by name) and `httpx2` (the SDK's HTTP client, which
    OAuth authenticates)."""
    import sys

    roots = {
        (node.module or "").split(".")[0] if isinstance(node, ast.ImportFrom) else alias.name.split(".")[0]
        for name in (
            "_runtime.py",
            "_schema_check.py",
            "_loop_thread.py",
            "_tasks.py",
            "_auth.py",
            "_http.py",
        )  # the runtime every generated package imports
        for node in ast.walk(ast.parse(Path(_runtime.__file__).with_name(name).read_text(encoding="utf-8")))
        if isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and node.level == 0)
        for alias in node.names
    }
    assert roots - {"mcp", "pydantic", "pydantic_core", "anyio", "httpx2", "__future__"} <= set(sys.stdlib_module_names)


def _ruf022_key(name: str) -> tuple[int, list[tuple[int, int | str]]]:
    """RUF022's (isort-style) order, spelled out: constants, classes, the rest; digit runs as numbers."""
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, [(1, int(part)) if part.isdigit() else (0, part) for part in re.split(r"(\d+)", name)]


NAME_PARTS = st.sampled_from(["A", "a", "Get", "get", "_", "USER", "x", "0", "1", "2", "9", "10", "007", "99", "100"])


@settings(max_examples=300)
@given(st.lists(st.lists(NAME_PARTS, min_size=1, max_size=6).map("".join), max_size=30))
def test_all_sorted_keeps_ruffs_order(names: list[str]) -> None:
    """`__all__` is written in RUF022's order (the golden packages pass `ruff check`), however its
    names mix cases, digit runs of any length and leading zeros."""
    assert all_sorted(names) == sorted(names, key=_ruf022_key)


def _isort_key(name: str) -> tuple[int, list[tuple[int, int | str]], list[tuple[int, int | str]]]:
    """I001's (isort-style) order of a `from` import's members, spelled out: by kind, then naturally by
    the lowercased name, then by the name."""
    return _ruf022_key(name)[0], _ruf022_key(name.lower())[1], _ruf022_key(name)[1]


@settings(max_examples=300)
@given(
    st.lists(
        st.lists(
            NAME_PARTS | st.sampled_from(["\u03a3", "\u0391\u03a3", "\u00df", "Z", "1" * 70]), min_size=1, max_size=6
        ).map("".join),
        max_size=30,
    )
)
def test_import_sorted_keeps_isorts_order(names: list[str]) -> None:
    """A `from` import's members are in I001's order, however their names mix cases (a final sigma
    too, which lowercases by its neighbours), digit runs of any length and leading zeros."""
    assert import_sorted(names) == sorted(names, key=_isort_key)


def _parsed_names(annotation: str) -> frozenset[str]:
    """The names in an annotation as its syntax tree has them (forward references included)."""
    tree = ast.walk(ast.parse(annotation, mode="eval"))
    return frozenset(
        node.id if isinstance(node, ast.Name) else node.value
        for node in tree
        if isinstance(node, ast.Name)
        or (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier())
    )


_ANNOTATIONS = st.recursive(
    st.sampled_from(
        ["int", "None", "True", "Get10Input", "_", "match", "list", "x1", "ünï", "ﬁle", "typing.Any", "'Fwd'"]
    )
    | st.integers(-10, 10**6).map(str)
    | st.sampled_from(["1.5", "1e5", "0x1F", "1_000", "'a b'"]),
    lambda inner: (
        st.tuples(inner, inner).map(" | ".join)
        | st.tuples(
            st.sampled_from(["list", "dict", "Literal", "Annotated"]), st.lists(inner, min_size=1, max_size=3)
        ).map(lambda parts: f"{parts[0]}[{', '.join(parts[1])}]")
    ),
    max_leaves=6,
)


@settings(max_examples=300)
@given(_ANNOTATIONS)
def test_the_names_an_annotation_uses_are_the_ones_its_syntax_tree_holds(annotation: str) -> None:
    """The client imports exactly the models its annotations name, however they are read."""
    assert names_in(annotation) == _parsed_names(annotation)


@pytest.mark.parametrize(
    ("classes", "members", "expected"),
    [
        pytest.param(
            ["PickInputPickInputAddress", "PickInputPickInput", "PickInputPickInput1", "PickInput"],
            {"PickInputPickInput", "PickInputPickInput1"},
            {
                "PickInputPickInputAddress": "PickInputVariantAddress",
                "PickInputPickInput": "PickInputVariant",
                "PickInputPickInput1": "PickInputVariant1",
            },
            id="a root union's members and a class inside one",
        ),
        pytest.param(
            ["AInputVariant", "AInputAInput", "AInputAInput1", "AInput"],
            {"AInputAInput", "AInputAInput1", "AInputVariant"},
            {"AInputAInput": "AInputVariant2", "AInputAInput1": "AInputVariant1"},
            id="a name another class has already gets a number",
        ),
        pytest.param(
            ["XX", "XXXX", "XXXX1", "X"],
            {"XX", "XXXX", "XXXX1"},
            {"XX": "XVariant", "XXXX": "XVariantVariant", "XXXX1": "XVariantVariant1"},
            id="a union inside a member",
        ),
        pytest.param(
            ["PickInputPickInputs", "PickInputPickInput"],
            {"PickInputPickInputs"},
            {},
            id="a name that only starts twice alike, not a member",
        ),
        pytest.param(["GetInputGetInput"], set(), {}, id="a class named twice alike outside any union"),
    ],
)
def test_a_unions_members_are_renamed_as_its_variants(
    classes: list[str], members: set[str], expected: dict[str, str]
) -> None:
    from codegen.generate.member_names import _variant_renames

    assert _variant_renames(classes, members) == expected


def _tagged(*tags: object, **more: object) -> dict[str, object]:
    """A tool input whose `shape` is a union of objects, each tagged by a `kind` const (None: untagged)."""
    members = [
        {"type": "object", "properties": {"side": {"type": "number"}}}
        if tag is None
        else {
            "type": "object",
            "properties": {"side": {"type": "number"}, "kind": {"const": tag}},
            "required": ["kind"],
        }
        for tag in tags
    ]
    return {"type": "object", "properties": {"shape": {"oneOf": members}, **more}, "required": ["shape"]}


@pytest.mark.parametrize(
    ("schema", "members"),
    [
        pytest.param(_tagged("circle", "square"), ["DrawInputShapeCircle", "DrawInputShapeSquare"], id="tagged"),
        pytest.param(_tagged("2d-view", "3d"), ["DrawInputShape2dView", "DrawInputShape3d"], id="a tag not a word"),
        pytest.param(
            _tagged("circle", "square", None),
            ["DrawInputShape", "DrawInputShape1", "DrawInputShape2"],
            id="one member untagged: all keep their places",
        ),
        pytest.param(_tagged("page-id", "page_id"), ["DrawInputShape", "DrawInputShape1"], id="two tags make one name"),
        pytest.param(_tagged("?", "!"), ["DrawInputShape", "DrawInputShape1"], id="tags that make no name"),
        pytest.param(_tagged("a" * 41, "b"), ["DrawInputShape", "DrawInputShape1"], id="a tag past TAG_LENGTH"),
        pytest.param(_tagged(1, 2), ["DrawInputShape", "DrawInputShape1"], id="numbers are not tags"),
        pytest.param(
            _tagged("circle", "square", shape_circle={"type": "object", "properties": {"r": {"type": "number"}}}),
            ["DrawInputShape", "DrawInputShape1"],
            id="a new name another class has",
        ),
    ],
)
def test_a_tagged_unions_members_are_named_by_their_tags(schema: dict[str, object], members: list[str]) -> None:
    from codegen.generate.modelgen import ModelJob, model_source

    tool = {"name": "draw", "inputSchema": schema}
    source = model_source("shapes", ModelJob(tool, "Draw", 5))
    assert f"    shape: {' | '.join(members)}\n" in source
    assert "    shape: DrawInputShape | DrawInputShape1" in model_source("shapes", ModelJob(tool, "Draw", 4))
    compile(source, "models.py", "exec")


def test_a_module_with_fewer_than_two_tagged_classes_is_not_walked_for_unions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A union is renamed by its tags only where each member has a string `Literal` field, so a module
    with fewer than two such classes has nothing to rename, and the walk over every node of it (about
    9 ms a 16-tool group's module, 3% of a cold run) is not made. Where two are, it still is."""
    from codegen.generate import member_names

    def walked(tree: ast.Module) -> object:
        raise AssertionError("the module was walked for unions")

    one_tagged = (
        "class A(BaseModel):\n    kind: Literal['a']\n\n\nclass B(BaseModel):\n    kind: Literal['b', 'c']\n\n\n"
        "class C(BaseModel):\n    shape: A | B | None = None\n"
    )
    monkeypatch.setattr(member_names, "_unions", walked)
    assert member_names.member_renames(ast.parse(one_tagged), 5) == {}
    monkeypatch.undo()
    two_tagged = one_tagged.replace("Literal['b', 'c']", "Literal['b']").replace("class A(", "class CShape(")
    two_tagged = two_tagged.replace("class B(", "class CShape1(").replace("A | B", "CShape | CShape1")
    assert member_names.member_renames(ast.parse(two_tagged), 5) == {"CShape": "CShapeA", "CShape1": "CShapeB"}


@pytest.mark.parametrize(
    ("message", "unknown"),
    [
        ("Unknown tool: gone", True),
        ("Tool gone not found", True),
        ("MCP error -32602: Tool 'gone' not found", True),
        ('tool "gone" was not found', True),
        ("tool not found", True),
        ("Invalid arguments for tool gone: path not found", False),
        ("tool gone: the file /tmp/x was not found", False),
        ("Tool gone failed: resource not found", False),
    ],
)
def test_a_refused_call_is_an_unknown_tool_only_when_it_says_the_tool_is_unknown(message: str, unknown: bool) -> None:
    """`UnknownToolError` says to run `mcp-stubgen sync`: right for a tool the server no longer has,
    wrong for a call whose argument names something the server did not find."""
    assert _runtime._is_unknown_tool(message, "gone") is unknown


_PLAIN_ROOTS_HEAD = (
    "from __future__ import annotations\n\nfrom pydantic import BaseModel, Field, RootModel\n\n\n"
    "class TItem(RootModel[int]):\n    root: int = Field(..., ge=1)\n\n\n"
)


@pytest.mark.parametrize(
    ("rest", "expected"),
    [
        pytest.param(
            'class TInput(BaseModel):\n    a: list[TItem]\n    b: list["TItem"] | None = None\n',
            "class TInput(BaseModel):\n    a: list[Annotated[int, Field(ge=1)]]\n"
            "    b: list[Annotated[int, Field(ge=1)]] | None = None\n",
            id="a use and a forward reference",
        ),
        pytest.param(
            'class TInput(BaseModel):\n    a: list[TItem] = Field(..., description="each TItem")\n',
            None,
            id="a name a string mentions",
        ),
        pytest.param(
            "class TKept(RootModel[list[TItem]]):\n    root: list[TItem]\n\n\nclass TInput(BaseModel):\n    a: TKept\n",
            "class TKept(RootModel[list[Annotated[int, Field(ge=1)]]]):\n"
            "    root: list[Annotated[int, Field(ge=1)]]\n\n\nclass TInput(BaseModel):\n    a: TKept\n",
            id="a root model of other classes keeps its class",
        ),
    ],
)
def test_a_constrained_plain_value_is_written_where_it_is_used_by_rules_6(rest: str, expected: str | None) -> None:
    from codegen.generate.modelgen import _inlined_plain_roots

    source = _PLAIN_ROOTS_HEAD + rest
    finished = _inlined_plain_roots(source, "T")
    if expected is None:
        assert finished == source
        return
    assert "class TItem" not in finished and finished.endswith(expected), finished
    imports = "from typing import Annotated\n\nfrom pydantic import BaseModel, Field"
    assert imports + (", RootModel\n" if "(RootModel[" in expected else "\n") in finished
    compile(finished, "models.py", "exec")


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            "from pydantic import Field, RootModel\n\n\nclass TItem(RootModel[int]):\n    root: int = Field(3, ge=1)\n\n\n"
            "class TInputA(RootModel[list[TItem]]):\n    root: list[TItem]\n",
            id="a root with a default",
        ),
        pytest.param(
            "from pydantic import Field, RootModel\n\n\nclass TInput(RootModel[int]):\n    root: int = Field(..., ge=1)\n",
            id="the tool's own input",
        ),
        pytest.param(
            "from pydantic import BaseModel, Field, RootModel\n\n\nclass TItem(RootModel[int]):\n"
            "    root: int = Field(..., ge=1)\n\n\nclass TInput(BaseModel):\n    Annotated: list[TItem]\n",
            id="a field named Annotated",
        ),
        pytest.param(
            "from pydantic import BaseModel, Field, RootModel\n\n\nclass TLeaf(BaseModel):\n    x: int\n\n\n"
            "class TItem(RootModel[TLeaf]):\n    root: TLeaf = Field(..., title='x')\n\n\n"
            "class TInput(BaseModel):\n    a: list[TItem]\n",
            id="a value that is a class",
        ),
        pytest.param(
            "from pydantic import BaseModel, Field, RootModel\n\n\nclass TItem(RootModel[bool]):\n"
            "    root: bool = Field(..., title='TItem')\n\n\nclass TInput(BaseModel):\n    a: bool = Field(..., title='TItem')\n",
            id="a title spelled as the class",
        ),
        pytest.param(
            "from typing import Literal\n\nfrom pydantic import BaseModel, Field, RootModel\n\n\n"
            "class TItem(RootModel[int]):\n    root: int = Field(..., ge=1)\n\n\n"
            "class TInput(BaseModel):\n    a: list[TItem] | Literal['TItem']\n",
            id="a literal spelled as the class",
        ),
    ],
)
def test_a_root_model_rules_6_cannot_write_in_place_keeps_its_class(source: str) -> None:
    from codegen.generate.modelgen import _inlined_plain_roots

    assert _inlined_plain_roots(source, "T") == source


def test_a_root_model_rules_6_keep_whose_root_admits_none_admits_it_in_its_type_parameter() -> None:
    """A bounded number or null with a `null` output default is a class whose root is `float | None`;
    rules 6 write it in place, but not where a `Literal` spells its name, and the class kept said
    `RootModel[float]`, which failed `mypy --strict`, as it did in every package of rules 1 to 5."""
    from codegen.generate.modelgen import ModelJob, model_source

    priority = {"anyOf": [{"type": "number", "minimum": 0}, {"type": "null"}], "default": None}
    output = {"type": "object", "properties": {"v": priority, "k": {"enum": ["TOutputV"]}}}
    tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": output}
    source = model_source("s", ModelJob(tool, "T", 7))
    assert "class TOutputV(RootModel[float | None]):\n    root: float | None = Field(None, ge=0.0)\n" in source, source


def test_a_root_model_of_a_bare_forward_reference_is_left_as_it_is() -> None:
    """`RootModel["Node"] | None` outside the quotes would fail as the module is imported; such a class
    keeps its parameter (no catalog has been seen to make one), while its neighbours still take `| None`."""
    from codegen.generate.modelgen import _root_types_admit_none

    source = (
        "from __future__ import annotations\n\nfrom pydantic import Field, RootModel\n\n\n"
        'class A(RootModel["B"]):\n    root: B | None = Field(None)\n\n\n'
        "class B(RootModel[float]):\n    root: float | None = Field(None, ge=0)\n"
    )
    rewritten = _root_types_admit_none(source)
    assert 'class A(RootModel["B"]):\n' in rewritten
    assert "class B(RootModel[float | None]):\n" in rewritten
    exec(compile(rewritten, "<models>", "exec"), {})  # imports: no `"B" | None`


def test_a_draft_07_tuple_is_typed_by_place_from_rules_6_and_a_committed_package_keeps_its_list() -> None:
    """Draft-07's tuple `items: [A, B]` was typed `list[A | B]`, which coerces an item to another
    place's type; rules 6 type it by place (`tuple[float, str]`). A committed rules-5 package keeps
    its `list`: an upgrade turns no keyword a caller passes a list to into a `tuple`."""
    from codegen.generate.modelgen import ModelJob, model_source

    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "xy": {"type": "array", "items": [{"type": "number"}, {"type": "string"}], "minItems": 2, "maxItems": 2}
        },
    }
    tool = {"name": "t", "inputSchema": schema}
    assert "    xy: tuple[float, str] | None = None\n" in model_source("s", ModelJob(tool, "T", 6))
    assert "    xy: list[float | str] | None = Field(default=None, max_length=2, min_length=2)\n" in model_source(
        "s", ModelJob(tool, "T", 5)
    )


def test_a_field_in_pydantics_protected_namespaces_imports_without_a_warning(tmp_path: Path) -> None:
    """A property `model_dump` is the field `model_dump_`, which pydantic warns of as the class is made
    (`python -W error` failed the import); such a class alone opts out of the protected namespaces."""
    nested = {"type": "object", "properties": {"model_validate_json": {"type": "string"}}}
    schema = {
        "type": "object",
        "properties": {"model_dump": {"type": "string"}, "inner": nested, "model_x": {"type": "string"}},
    }
    generate_tools(
        tmp_path,
        "pn",
        [
            {
                "name": "t",
                "inputSchema": schema,
                "outputSchema": {"type": "object", "properties": {"n": {"type": "string"}}},
            }
        ],
    )
    models = (tmp_path / "out" / "pn" / "_models" / "t.py").read_text(encoding="utf-8")
    assert models.count("protected_namespaces=()") == 2  # TInput and TInputInner, not TOutput
    script = "import out.pn._models.t as m; print(m.TInput(model_dump='x').model_dump(by_alias=True)['model_dump'])"
    ran = subprocess.run(
        [sys.executable, "-W", "error", "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert (ran.returncode, ran.stdout) == (0, "x\n"), ran.stderr


def test_a_field_python_reads_as_another_name_keeps_its_wire_name_and_its_own_field(tmp_path: Path) -> None:
    """Python reads a name in its NFKC form: the field datamodel-code-generator wrote for a property
    fullwidth `A` (U+FF21) was read as `a`, its alias left out (`to_camel` of the fullwidth `a` is the
    fullwidth `A`), so the property was sent as `a`; beside a property `a`, a property fullwidth `a`
    made a second field `a` that hid the first (mypy: `Name "a" already defined`)."""
    inner = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "\uff41": {"type": "integer"}, "\u01c5x": {"type": "string"}},
    }
    schema = {"type": "object", "properties": {"\uff21": {"type": "string"}, "inner": inner}}
    output = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "\uff41": {"type": "integer"}},
        "required": ["a", "\uff41"],
    }
    generate_tools(tmp_path, "nf", [{"name": "t", "inputSchema": schema, "outputSchema": output}])
    script = (
        "import json, out.nf._models.t as m\n"
        "print(json.loads(m._CONTRACT)['parameters'])\n"
        "result = m.TOutput.model_validate({'a': 's', '\\uff41': 5})\n"
        "print(sorted(result.model_dump(by_alias=True).items()), result.model_extra)\n"
        "print(m.TInputInner.model_validate({'a': 's', '\\uff41': 5, '\\u01c5x': 'd'}).model_dump(by_alias=True))\n"
    )
    ran = run_script(tmp_path, script)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        str({"inner": "inner", "\uff21": "a"}),
        str([("a", "s"), ("\uff41", 5)]) + " {}",
        str({"a": "s", "\u01c5x": "d", "\uff41": 5}),
    ]


def test_a_class_python_reads_as_another_class_gets_a_name_of_its_own(tmp_path: Path) -> None:
    """datamodel-code-generator names a property's class after the property: a property fullwidth `A`
    (U+FF21) beside a property `A` made two classes Python reads as `TOutputA`, the second hiding the
    first, so the property `A` was validated by the other's class (mypy: `already defined`)."""
    place = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    note = {"type": "object", "properties": {"y": {"type": "string"}}, "required": ["y"]}
    schema = {"type": "object", "properties": {"A": place, "\uff21": note}}
    generate_tools(tmp_path, "nc", [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}])
    source = (tmp_path / "out" / "nc" / "_models" / "t.py").read_text(encoding="utf-8")
    classes = [node.name for node in ast.parse(source).body if isinstance(node, ast.ClassDef)]
    assert len(classes) == len(set(classes)) == 4, classes
    script = (
        "import out.nc._models.t as m\n"
        "result = m.TOutput.model_validate({'A': {'x': 1}, '\\uff21': {'y': 's'}})\n"
        "print(result.a.x, result.a_.y)\n"
    )
    ran = run_script(tmp_path, script)
    assert (ran.returncode, ran.stdout) == (0, "1 s\n"), ran.stderr


def test_no_model_class_takes_a_name_the_package_imports_from_the_runtime(tmp_path: Path) -> None:
    """A class made for an `allOf` property is named after the tool and the property: `error` of a
    tool `server` made `ServerError`, `options` of `call` made `CallOptions`. The package's `__init__`
    imports both names from the runtime, so mypy refused the package, `__all__` named them twice, and
    the client's `call_options: CallOptions` annotation meant the model."""
    merged = {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object"}]}
    tools = [
        {"name": name, "inputSchema": {"type": "object", "properties": {field: merged}}}
        for name, field in (("server", "error"), ("call", "options"), ("tool", "result"), ("not", "given"))
    ]
    generate_tools(tmp_path, "rx", tools)
    script = (
        "import out.rx as package, out._mcp_runtime._runtime as runtime\n"
        "names = ('ServerError', 'CallOptions', 'ToolResult', 'NotGiven')\n"
        "print([getattr(package, name) is getattr(runtime, name) for name in names])\n"
        "print(len(package.__all__) == len(set(package.__all__)), package.ServerError2.__module__)\n"
    )
    ran = run_script(tmp_path, script)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == ["[True, True, True, True]", "True out.rx._models.server"]


def run_script(folder: Path, script: str) -> subprocess.CompletedProcess[str]:
    """`script` run by a fresh interpreter in `folder`, where a test generated its packages under `out/`."""
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=folder, check=False)


def generate_tools(folder: Path, server: str, tools: list[dict[str, Any]]) -> None:
    """The package of a server listing `tools`, generated into `folder/out/`."""
    document = {"format": 1, "server": server, "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}
    generate_package(parse_snapshot(json.dumps({**document, "tools": tools}), server), folder / "out")
