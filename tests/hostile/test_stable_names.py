"""Method names are a contract (issue 22): a server that adds `get_user`, `start_research` and
`read_config` beside its `get-user` tool, `research` task tool and `config` resource must not move
the application's unchanged calls to the newcomers. Against a real stdio server, through `sync`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

from codegen.identifiers import NAMING_RULES, keep_names
from codegen.snapshot import Snapshot, write_snapshot
from tests.conftest import PYTHON, SERVERS, write_config

PY = PYTHON
GROWING = SERVERS / "growing_server.py"

CALLS = """
import sys
from mcp import StdioServerParameters
from clients.grow import GrowClient

with GrowClient.connect_sync(StdioServerParameters(command=sys.executable, args=sys.argv[1:])) as client:
    print(client.get_user(user="7").text)
    print(client.start_research(topic="tides").task_id)
    print(client.read_config().contents[0].text)
    print(client.get_user_2(user="7").text)
"""
"""The application: three lines written against the first package, and one for a newcomer."""


def tree(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def a_fresh_clone_agrees(tmp_path: Path, run_cli) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """`generate --check` holds for the synced package, and deleting it and generating again from the
    committed snapshot (a fresh clone) gives the same files, which it returns."""
    synced_tree = tree(tmp_path / "clients")
    assert run_cli("generate", "--check").exit_code == 0
    shutil.rmtree(tmp_path / "clients")
    assert run_cli("generate", "--no-cache").exit_code == 0
    assert tree(tmp_path / "clients") == synced_tree
    return synced_tree


def test_names_stay_with_their_entities_when_the_server_adds_lookalikes(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n'
        f"[tool.mcp-stubgen.servers.grow]\ncommand = {json.dumps(PY)}\nargs = {json.dumps([str(GROWING), str(state)])}\n",
    )
    assert run_cli("sync").exit_code == 0
    (state / "grown").touch()
    synced = run_cli("sync")
    assert synced.exit_code == 0, synced.stderr

    app = tmp_path / "app.py"
    app.write_text(CALLS, encoding="utf-8")
    ran = subprocess.run([PY, str(app), str(GROWING), str(state)], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "called get-user",
        "task-of-research",
        "read config://app",
        "called get_user",
    ]

    a_fresh_clone_agrees(tmp_path, run_cli)


ARGUMENT_CALLS = """
import sys
from mcp import StdioServerParameters
from clients.grow import GrowClient

with GrowClient.connect_sync(StdioServerParameters(command=sys.executable, args=sys.argv[1:])) as client:
    print(client.note(text_body="kept").text)
    print(client.prompt_greet(user_name="ann").messages[0].content.text)
    print(client.note(text_body_2="new").text)
"""
"""The application: two calls written against the first package, and one for a newcomer argument."""


def test_keywords_stay_with_their_arguments_when_the_server_adds_lookalikes(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A tool that adds `text_body` beside its `text-body`, and a prompt `user_name` beside its
    `user-name`: the application's unchanged `text_body=` and `user_name=` keep sending what they sent."""
    monkeypatch.chdir(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    args = [str(GROWING), str(state), "arguments"]
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n'
        f"[tool.mcp-stubgen.servers.grow]\ncommand = {json.dumps(PY)}\nargs = {json.dumps(args)}\n",
    )
    assert run_cli("sync").exit_code == 0
    first = json.loads((tmp_path / "snaps" / "grow.json").read_text(encoding="utf-8"))
    assert "argumentNames" not in first  # nothing to carry yet
    (state / "grown").touch()
    synced = run_cli("sync")
    assert synced.exit_code == 0, synced.stderr
    grown = json.loads((tmp_path / "snaps" / "grow.json").read_text(encoding="utf-8"))
    assert grown["format"] == 5
    assert grown["argumentNames"] == {
        "prompts": {"greet": {"user-name": "user_name", "user_name": "user_name_2"}},
        "tools": {"note": {"text-body": "text_body", "text_body": "text_body_2"}},
    }

    app = tmp_path / "app.py"
    app.write_text(ARGUMENT_CALLS, encoding="utf-8")
    ran = subprocess.run([PY, str(app), *args], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        'called note with {"text-body": "kept"}',
        'greet with {"user-name": "ann"}',
        'called note with {"text_body": "new"}',
    ]

    # A fresh clone agrees, and a snapshot taken again carries the keywords on.
    synced_tree = a_fresh_clone_agrees(tmp_path, run_cli)
    assert run_cli("sync").exit_code == 0
    assert json.loads((tmp_path / "snaps" / "grow.json").read_text(encoding="utf-8")) == grown
    assert tree(tmp_path / "clients") == synced_tree


def test_a_keyword_record_that_is_not_a_plain_name_is_not_written_into_code(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The record is a file anyone can edit: a keyword in it that is not a plain identifier is left out
    (the naming rules name that argument), never written into the package."""
    monkeypatch.chdir(tmp_path)
    schema = {"type": "object", "properties": {"text-body": {"type": "string"}, "title": {"type": "string"}}}
    arguments = {"tools": {"note": {"text-body": "x=__import__('os')", "title": "class"}}}
    snapshot = Snapshot(
        server="grow",
        protocol_version="2025-11-25",
        capabilities={"tools": {}},
        tools=({"name": "note", "inputSchema": schema},),
        argument_names=arguments,
    )
    write_snapshot(tmp_path / "grow.json", snapshot)
    result = run_cli("generate", "grow.json", "--out", "clients")
    assert result.exit_code == 0, result.stderr
    client = (tmp_path / "clients" / "grow" / "client.py").read_text(encoding="utf-8")
    assert "__import__" not in client and "class:" not in client
    assert "text_body: str | NotGiven = NOT_GIVEN" in client and "title: str | NotGiven = NOT_GIVEN" in client


def test_a_snapshot_keeps_the_naming_rules_of_the_one_it_replaces(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Upgrading mcp-stubgen renames nothing: a package generated by naming rules 1 (`get_s_3_object`)
    keeps its names and its snapshot its bytes when the server is snapshotted again, while a server's
    first snapshot is named by rules 2 (`get_s3_object(s3_key=...)`)."""
    monkeypatch.chdir(tmp_path)
    schema = {"type": "object", "properties": {"s3Key": {"type": "string"}}, "required": ["s3Key"]}
    fresh = Snapshot(
        server="aws",
        protocol_version="2025-11-25",
        capabilities={"tools": {}},
        tools=({"name": "getS3Object", "inputSchema": schema},),
    )
    committed = replace(fresh, naming_rules=1)
    write_snapshot(tmp_path / "aws.json", committed)
    assert run_cli("generate", "aws.json", "--out", "old").exit_code == 0
    assert (
        "async def get_s_3_object(\n        self,\n        *,\n        s_3_key: str,"
        in (tmp_path / "old" / "aws" / "client.py").read_text()
    )

    again = keep_names(committed, fresh, {})
    assert again.canonical_bytes() == (tmp_path / "aws.json").read_bytes()
    write_snapshot(tmp_path / "again.json", again)
    assert run_cli("generate", "again.json", "--out", "again").exit_code == 0
    assert tree(tmp_path / "again") == tree(tmp_path / "old")

    write_snapshot(tmp_path / "first.json", keep_names(None, fresh, {}))
    assert run_cli("generate", "first.json", "--out", "new").exit_code == 0
    assert (
        "async def get_s3_object(\n        self,\n        *,\n        s3_key: str,"
        in (tmp_path / "new" / "aws" / "client.py").read_text()
    )


def test_class_names_keep_their_digits_from_rules_3_and_a_committed_package_keeps_its_classes(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Rules 1 and 2 split a digit off in class names (`neo4j` -> `Neo4JClient`, `get_k8s_pods` ->
    `GetK8SPodsInput`) while snake_case names keep it; a server's first snapshot is now named by rules
    3 (`Neo4jClient`, `GetK8sPodsInput`), and a package generated before keeps its classes, whether its
    snapshot recorded rules 2 or, with only the server's name to differ on, recorded nothing."""
    monkeypatch.chdir(tmp_path)
    schema = {"type": "object", "properties": {"namespace": {"type": "string"}}, "required": ["namespace"]}
    pods = Snapshot(
        server="neo4j",
        protocol_version="2025-11-25",
        capabilities={"tools": {}},
        tools=({"name": "get_k8s_pods", "inputSchema": schema},),
    )
    plain = replace(pods, tools=({"name": "run_query", "inputSchema": schema},))

    def classes(snapshot: Snapshot, name: str) -> str:
        write_snapshot(tmp_path / f"{name}.json", snapshot)
        assert run_cli("generate", f"{name}.json", "--out", name).exit_code == 0
        return (tmp_path / name / "neo4j" / "__init__.py").read_text()

    for committed, name in ((replace(pods, naming_rules=2), "rules2"), (replace(plain, naming_rules=1), "before")):
        exported = classes(committed, name)
        assert '"Neo4JClient"' in exported and '"Neo4jClient"' not in exported
        assert ('"GetK8SPodsInput"' in exported) == (committed.tools == pods.tools)
        fresh = pods if committed.tools == pods.tools else plain
        again = keep_names(committed, fresh, {})
        assert again.canonical_bytes() == (tmp_path / f"{name}.json").read_bytes()
        assert classes(again, f"{name}-again") == exported

    first = keep_names(None, pods, {})
    exported = classes(first, "first")
    assert '"Neo4jClient"' in exported and '"Neo4jSyncClient"' in exported and '"GetK8sPodsInput"' in exported
    assert "async def get_k8s_pods(" in (tmp_path / "first" / "neo4j" / "client.py").read_text()
    document = json.loads((tmp_path / "first.json").read_bytes())
    assert (document["format"], document["namingRules"]) == (5, NAMING_RULES)
    assert "Neo4jClient" in classes(keep_names(None, plain, {}), "plain")


def _exported_models(tmp_path: Path, run_cli, snapshot: Snapshot, name: str) -> set[str]:  # type: ignore[no-untyped-def]
    """The model names the `pages` package generated from `snapshot` into `tmp_path/name` exports."""
    write_snapshot(tmp_path / f"{name}.json", snapshot)
    assert run_cli("generate", f"{name}.json", "--out", name).exit_code == 0
    return set(json.loads(subprocess.check_output(
        [PYTHON, "-c", f"import json, {name}.pages.models as m; print(json.dumps(m.__all__))"], text=True
    )))  # fmt: skip


def _object(**properties: object) -> dict[str, object]:
    return {"type": "object", "properties": properties, "required": sorted(properties)}


PARENT = {
    "oneOf": [
        _object(type={"const": "page_id"}, page_id={"type": "string"}),
        _object(type={"const": "workspace"}, workspace={"const": True}),
    ]
}
"""notion's `parentRequest`: a `$defs` union of objects, which datamodel-code-generator names
`<union><union>`, `<union><union>1`, ...: `MovePageInputParentRequestMovePageInputParentRequest1`."""


def test_a_unions_members_are_named_as_its_variants_from_rules_4_and_a_committed_package_keeps_its_classes(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Rules 1 to 3 kept datamodel-code-generator's names for a union's members, the union's name twice
    (`PickInputPickInput`, and `...ParentRequestMovePageInputParentRequest1` for a `$defs` union); a
    snapshot by rules 4 is named `PickInputVariant`, `...ParentRequestVariant1` and records them, and a
    package generated before keeps its classes, whether its snapshot recorded rules 3 (it has a name
    with a letter beside a digit) or nothing."""
    monkeypatch.chdir(tmp_path)
    pick = {"anyOf": [_object(city={"type": "string"}), _object(lat={"type": "number"}, lon={"type": "number"})]}
    notes = {
        "type": "object",
        "properties": {"parent": {"$ref": "#/$defs/parentRequest"}},
        "$defs": {"parentRequest": PARENT},
    }
    snapshot = Snapshot(
        server="pages",
        protocol_version="2025-11-25",
        capabilities={"tools": {}},
        tools=(
            {"name": "pick", "inputSchema": {"type": "object", **pick}, "outputSchema": pick},
            {"name": "move_page", "inputSchema": notes},
        ),
    )

    def classes(snapshot: Snapshot, name: str) -> set[str]:
        return _exported_models(tmp_path, run_cli, snapshot, name)

    digits = replace(snapshot, tools=(*snapshot.tools, {"name": "get_s3_page", "inputSchema": {"type": "object"}}))
    for committed, name in ((replace(digits, naming_rules=3), "rules3"), (replace(snapshot, naming_rules=1), "before")):
        exported = classes(committed, name)
        recorded = json.loads((tmp_path / f"{name}.json").read_bytes()).get("namingRules")
        assert recorded == (3 if committed.tools == digits.tools else None)
        assert {"PickInputPickInput", "PickInputPickInput1", "PickOutputPickOutput1"} <= exported
        assert "MovePageInputParentRequestMovePageInputParentRequest1" in exported
        again = keep_names(committed, replace(committed, naming_rules=NAMING_RULES), {})
        assert again.canonical_bytes() == (tmp_path / f"{name}.json").read_bytes()
        assert classes(again, f"{name}_again") == exported

    exported = classes(keep_names(None, replace(snapshot, naming_rules=4), {}), "first")
    assert {"PickInputVariant", "PickInputVariant1", "PickOutputVariant", "PickOutputVariant1"} <= exported
    assert {"MovePageInputParentRequestVariant", "MovePageInputParentRequestVariant1"} <= exported
    assert not [name for name in exported if re.fullmatch(r"(.+)\1[0-9]*", name)]
    document = json.loads((tmp_path / "first.json").read_bytes())
    assert (document["format"], document["namingRules"]) == (5, 4)
    called = subprocess.run(
        [PYTHON, "-c", "from first.pages.models import PickInput, PickInputVariant1; "
         "print(PickInput.model_validate({'lat': 1, 'lon': 2}).root == PickInputVariant1(lat=1, lon=2))"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert called.stdout.strip() == "True", called.stderr


def test_a_tagged_unions_members_are_named_by_their_tags_from_rules_5_and_a_committed_package_keeps_its_classes(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Rules 1 to 4 name a union's object members by their place (`DrawInputShape`, `DrawInputShape1`;
    `...ParentRequestVariant1` by rules 4): a reader learns nothing from the name, and a server that
    reorders the members hands each name to the other. A server's first snapshot is now named by
    rules 5, which name a tagged union's members by their tags, and records them; a package generated
    by rules 4 keeps its classes; an untagged union keeps its members' places."""
    monkeypatch.chdir(tmp_path)
    shape = {
        "oneOf": [
            _object(kind={"const": "circle"}, radius={"type": "number"}),
            _object(kind={"const": "square"}, side={"type": "number"}, corner=_object(x={"type": "number"})),
        ]
    }
    pick = {"anyOf": [_object(city={"type": "string"}), _object(lat={"type": "number"})]}
    snapshot = Snapshot(
        server="pages",
        protocol_version="2025-11-25",
        capabilities={"tools": {}},
        tools=(
            {"name": "draw", "inputSchema": _object(shape=shape)},
            {"name": "pick", "inputSchema": {"type": "object", **pick}},
            {
                "name": "move_page",
                "inputSchema": {
                    **_object(parent={"$ref": "#/$defs/parentRequest"}),
                    "$defs": {"parentRequest": PARENT},
                },
            },
        ),
    )

    def classes(snapshot: Snapshot, name: str) -> set[str]:
        return _exported_models(tmp_path, run_cli, snapshot, name)

    committed = replace(snapshot, naming_rules=4)
    exported = classes(committed, "rules4")
    assert {"DrawInputShape", "DrawInputShape1", "DrawInputShape1Corner"} <= exported
    assert {"MovePageInputParentRequestVariant", "MovePageInputParentRequestVariant1"} <= exported
    again = keep_names(committed, replace(committed, naming_rules=NAMING_RULES), {})
    assert again.canonical_bytes() == (tmp_path / "rules4.json").read_bytes()
    assert classes(again, "rules4_again") == exported

    exported = classes(keep_names(None, snapshot, {}), "first")
    assert {"DrawInputShapeCircle", "DrawInputShapeSquare", "DrawInputShapeSquareCorner"} <= exported
    assert {"MovePageInputParentRequestPageId", "MovePageInputParentRequestWorkspace"} <= exported
    assert {"PickInputVariant", "PickInputVariant1"} <= exported
    assert not {"DrawInputShape", "DrawInputShape1", "MovePageInputParentRequestVariant"} & exported
    assert json.loads((tmp_path / "first.json").read_bytes())["namingRules"] == NAMING_RULES
    called = subprocess.run(
        [PYTHON, "-c", "from first.pages.models import DrawInput, DrawInputShapeSquare; "
         "print(DrawInput.model_validate({'shape': {'kind': 'square', 'side': 2, 'corner': {'x': 1}}}).shape"
         " == DrawInputShapeSquare.model_validate({'kind': 'square', 'side': 2, 'corner': {'x': 1}}))"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert called.stdout.strip() == "True", called.stderr

    reordered = replace(
        snapshot, tools=({"name": "draw", "inputSchema": _object(shape={"oneOf": shape["oneOf"][::-1]})},)
    )
    assert {"DrawInputShapeCircle", "DrawInputShapeSquare"} <= classes(reordered, "reordered")


def test_a_constrained_plain_value_has_no_class_from_rules_6_and_a_committed_package_keeps_its_classes(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Rules 1 to 5 keep datamodel-code-generator's root model class for a constrained array item or
    union member (`ReadInputSourcePage`), which a caller must wrap each value in; rules 6 write the
    value where it is used (`list[Annotated[int, Field(ge=1)]]`). A package generated by rules 5
    keeps its classes through a new snapshot; a server's first snapshot records rules 6."""
    monkeypatch.chdir(tmp_path)
    source = _object(
        pages={"type": "array", "items": {"type": "integer", "minimum": 1}},
        mode={"anyOf": [{"type": "string", "minLength": 2}, {"type": "integer", "minimum": 0}]},
    )
    snapshot = Snapshot(
        server="pages",
        protocol_version="2025-11-25",
        capabilities={"tools": {}},
        tools=(
            {
                "name": "read",
                "inputSchema": _object(source=source),
                "outputSchema": {"type": "array", "items": {"type": "string", "maxLength": 9}},
            },
        ),
    )
    committed = replace(snapshot, naming_rules=5)
    exported = _exported_models(tmp_path, run_cli, committed, "rules5")
    plain = {"ReadInputSourcePage", "ReadInputSourceMode", "ReadInputSourceMode1", "ReadOutputReadOutputItem"}
    assert plain <= exported
    again = keep_names(committed, replace(committed, naming_rules=NAMING_RULES), {})
    assert again.canonical_bytes() == (tmp_path / "rules5.json").read_bytes()
    assert _exported_models(tmp_path, run_cli, again, "rules5_again") == exported

    exported = _exported_models(tmp_path, run_cli, keep_names(None, snapshot, {}), "first")
    assert exported == {"ReadInput", "ReadInputSource", "ReadOutput"}
    assert json.loads((tmp_path / "first.json").read_bytes())["namingRules"] == NAMING_RULES >= 6
    client = (tmp_path / "first" / "pages" / "client.py").read_text(encoding="utf-8")
    assert "    ) -> list[str]:" in client and "Annotated" not in client
    checked = subprocess.run(
        [PYTHON, "-c", "import pydantic\nfrom first.pages.models import ReadInputSource as S\n"
         "print(S(pages=[1], mode='ab').model_dump(exclude_unset=True), S(pages=[], mode=3).mode)\n"
         "for bad in ({'pages': [0], 'mode': 3}, {'pages': [], 'mode': 'a'}, {'pages': [], 'mode': -1}):\n"
         "    try:\n        S.model_validate(bad)\n    except pydantic.ValidationError:\n        print('refused')"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert checked.stdout.splitlines() == ["{'mode': 'ab', 'pages': [1]} 3", *["refused"] * 3], checked.stderr


def test_drift_reports_a_name_that_would_call_another_entity_with_its_call_sites(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A snapshot that does not carry the names (an older mcp-stubgen wrote it, or a hand edited it) would
    give `get_user` to the newcomer: drift says so, with the line that would call it."""
    monkeypatch.chdir(tmp_path)
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\n')
    base = {"server": "grow", "protocol_version": "2025-11-25", "capabilities": {"tools": {}}}
    schema = {"type": "object", "properties": {"user": {"type": "string"}}}
    write_snapshot(tmp_path / "old.json", Snapshot(**base, tools=({"name": "get-user", "inputSchema": schema},)))
    deleting = {"name": "get_user", "inputSchema": schema, "annotations": {"destructiveHint": True}}
    write_snapshot(
        tmp_path / "new.json", Snapshot(**base, tools=(deleting, {"name": "get-user", "inputSchema": schema}))
    )
    (tmp_path / "app.py").write_text(
        "from clients.grow import GrowClient\n\n\nasync def main(client: GrowClient) -> None:\n"
        '    await client.get_user(user="7")\n',
        encoding="utf-8",
    )
    result = run_cli("drift", "old.json", "new.json", "--usage", "app.py", "--format", "json")
    assert result.exit_code == 1, result.stderr
    [finding] = [item for item in json.loads(result.stdout)["findings"] if item["rule"] == "method-retargeted"]
    assert (finding["severity"], finding["kind"], finding["name"]) == ("breaking", "tool", "get-user")
    assert (finding["old"], finding["new"]) == ("tool 'get-user'", "tool 'get_user'")
    assert finding["callers"] == [{"path": "app.py", "line": 5}]


HUB_TOOLS = """
from clients.hub import Hub

print({name: tool.tool for name, tool in Hub.tools.items()})
"""


def test_hub_names_one_servers_lookalike_tools_apart_and_keeps_each_name_with_its_tool(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """`car.rental` and `car_rental` are both legal MCP names that map to one hub name: the later one
    takes a suffix, as client methods do, instead of `generate` stopping with advice that cannot help."""
    monkeypatch.chdir(tmp_path)
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\n'
        f'[tool.mcp-stubgen.servers.rent]\ncommand = {json.dumps(PY)}\nargs = ["unused.py"]\n',
    )
    base = {"server": "rent", "protocol_version": "2025-11-25", "capabilities": {"tools": {}}}
    dotted = {"name": "car.rental", "description": "Rent a car.", "inputSchema": {"type": "object"}}
    first = Snapshot(**base, tools=(dotted,))
    write_snapshot(tmp_path / "snaps" / "rent.json", first)
    assert run_cli("generate").exit_code == 0

    def hub_tools() -> str:
        shown = subprocess.run([PY, "-c", HUB_TOOLS], cwd=tmp_path, capture_output=True, text=True)
        assert shown.returncode == 0, shown.stderr
        return shown.stdout.strip()

    assert hub_tools() == "{'rent__car_rental': 'car.rental'}"
    plain = {"name": "car_rental", "description": "Cancel every rental.", "inputSchema": {"type": "object"}}
    write_snapshot(tmp_path / "snaps" / "rent.json", keep_names(first, Snapshot(**base, tools=(dotted, plain)), {}))
    result = run_cli("generate")
    assert result.exit_code == 0, result.stderr
    assert hub_tools() == "{'rent__car_rental': 'car.rental', 'rent__car_rental_2': 'car_rental'}"
