"""The snapshot file: canonical bytes, versioning, validation, and its published JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from codegen.errors import StubgenError
from codegen.identifiers import NAMING_RULES, UNRECORDED_RULES, plan_names
from codegen.snapshot import (
    SNAPSHOT_FORMAT,
    Snapshot,
    canonical_json_bytes,
    load_snapshot,
    parse_snapshot,
    write_snapshot,
)
from codegen.snapshot.file_schema import SnapshotFile, first_error, snapshot_json_schema
from codegen.snapshot.format import compact_json

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_FILE = ROOT / "codegen" / "snapshot" / "snapshot.schema.json"


def tool(name: str, **extra: object) -> dict[str, object]:
    return {"name": name, "inputSchema": {"type": "object", "properties": {"b": {}, "a": {}}}, **extra}


def make(**overrides: object) -> Snapshot:
    fields: dict[str, object] = {
        "server": "demo",
        "protocol_version": "2026-07-28",
        "capabilities": {"tools": {"listChanged": True}},
        "tools": (tool("zeta"), tool("alpha", description="First.")),
        "naming_rules": UNRECORDED_RULES,  # records no rules: the formats before 5 are made of such snapshots
    }
    fields.update(overrides)
    return Snapshot(**fields)  # type: ignore[arg-type]


def test_canonical_bytes_sort_keys_and_entries_and_end_with_a_newline() -> None:
    data = make().canonical_bytes()
    assert data.endswith(b"}\n")
    document = json.loads(data)
    assert [entry["name"] for entry in document["tools"]] == ["alpha", "zeta"]
    assert list(document) == sorted(document)
    assert list(document["tools"][0]["inputSchema"]["properties"]) == ["a", "b"]
    assert document["format"] == 1  # the oldest format that holds it: no `missingMethods`
    assert "missingMethods" not in document and "namingRules" not in document  # no name the rules differ on
    assert b'\n  "capabilities": {\n    "tools"' in data


def test_naming_rules_are_recorded_only_where_they_name_something_differently(tmp_path: Path) -> None:
    """Rules 4 and later are always recorded (format 5). Of rules 1 to 3, which differ only on a name with a letter
    beside a digit, a file records 2 or 3 where it has such a name; a file with such a name and no
    `namingRules` was written before rules 2 and keeps rules 1 (`get_s_3_object`), byte for byte; a
    file without such a name needs no record (rules 3, which name it as 1 and 2 do)."""
    for tools in ((tool("getS3Object"),), (tool("plain"),)):
        fresh = make(tools=tools, naming_rules=NAMING_RULES)
        write_snapshot(tmp_path / "fresh.json", fresh)
        document = json.loads((tmp_path / "fresh.json").read_bytes())
        assert (document["format"], document["namingRules"]) == (5, NAMING_RULES) == (5, 14)
        assert load_snapshot(tmp_path / "fresh.json") == fresh
        for earlier in (4, 5, 6):  # the releases before: recorded, and read back as written
            kept = make(tools=tools, naming_rules=earlier)
            write_snapshot(tmp_path / "kept.json", kept)
            assert json.loads((tmp_path / "kept.json").read_bytes())["namingRules"] == earlier
            assert load_snapshot(tmp_path / "kept.json") == kept
    assert [named.python for named in plan_names(make(tools=(tool("getS3Object"),))).tools] == ["get_s3_object"]

    legacy = make(naming_rules=1, tools=(tool("getS3Object"),))
    write_snapshot(tmp_path / "legacy.json", legacy)
    data = (tmp_path / "legacy.json").read_bytes()
    assert json.loads(data)["format"] == 1
    again = load_snapshot(tmp_path / "legacy.json")
    assert again.naming_rules == 1 and again.canonical_bytes() == data
    assert [named.python for named in plan_names(again).tools] == ["get_s_3_object"]
    assert json.loads(make(naming_rules=2, tools=(tool("getS3Object"),)).canonical_bytes())["namingRules"] == 2

    # an input root merged from `allOf` members: its keywords are theirs, so their names count too
    merged = {
        "name": "put",
        "inputSchema": {"allOf": [{"type": "object", "properties": {"s3Key": {"type": "string"}}}]},
    }
    assert make(naming_rules=1, tools=(merged,)).naming_rules == 1

    plain = make(naming_rules=1)  # nothing rules 1 to 3 differ on: rules 3, and no record of them
    assert plain.naming_rules == UNRECORDED_RULES and plain == make()
    assert plain.canonical_bytes() == make().canonical_bytes()
    assert "namingRules" not in json.loads(plain.canonical_bytes())


def test_a_snapshot_of_rules_6_reads_and_names_as_rules_6_with_or_without_a_latin_letter_they_leave_out(
    tmp_path: Path,
) -> None:
    """Rules 7 spell `ß` (`strasse`), which rules 1 to 6 leave out (`strae`). A file that records 6
    is read as 6 and written back byte for byte whether or not it has such a name (a file never
    records rules it does not follow, so nothing folds 6 into 7 the way 1 to 3 fold into 3); one with
    no `namingRules` is rules 3 (or 1), which leave it out too; a new snapshot records 14."""
    for tools in ((tool("straße_suchen"),), (tool("plain"),)):
        for rules in (6, 7):
            path = tmp_path / f"rules{rules}.json"
            write_snapshot(path, make(tools=tools, naming_rules=rules))
            again = load_snapshot(path)
            assert again.naming_rules == json.loads(path.read_bytes())["namingRules"] == rules
            assert again.canonical_bytes() == path.read_bytes()
    methods = {
        rules: [named.python for named in plan_names(make(tools=(tool("straße_suchen"),), naming_rules=rules)).tools]
        for rules in (UNRECORDED_RULES, 6, 7, 8, 9, NAMING_RULES)
    }
    assert methods == {
        UNRECORDED_RULES: ["strae_suchen"],
        6: ["strae_suchen"],
        7: ["strasse_suchen"],
        8: ["strasse_suchen"],
        9: ["strasse_suchen"],
        14: ["strasse_suchen"],
    }
    unrecorded = parse_snapshot(make(tools=(tool("straße_suchen"),)).canonical_bytes().decode(), "old.json")
    assert unrecorded.naming_rules == UNRECORDED_RULES


def test_a_snapshot_behind_a_symbolic_link_is_written_through_it(tmp_path: Path) -> None:
    """A project that links its snapshot to a folder several projects share keeps the link, and the
    shared file gets the new catalog instead of staying stale beside a new regular file."""
    shared = tmp_path / "shared" / "demo.json"
    write_snapshot(shared, make())
    link = tmp_path / "project" / "demo.json"
    link.parent.mkdir()
    link.symlink_to(Path("..") / "shared" / "demo.json")
    changed = make(missing_methods=("prompts/list",))
    assert write_snapshot(link, changed)
    assert link.is_symlink() and shared.read_bytes() == changed.canonical_bytes()
    assert not write_snapshot(link, changed)  # unchanged: the shared file is left alone
    assert [path.name for path in shared.parent.iterdir()] == ["demo.json"]


def test_missing_methods_are_written_sorted_as_format_2_and_read_back_byte_identical(tmp_path: Path) -> None:
    original = make(missing_methods=("resources/templates/list", "prompts/list"))
    write_snapshot(tmp_path / "demo.json", original)
    data = (tmp_path / "demo.json").read_bytes()
    document = json.loads(data)
    assert (document["format"], document["missingMethods"]) == (2, ["prompts/list", "resources/templates/list"])
    again = load_snapshot(tmp_path / "demo.json")
    assert again.missing_methods == ("prompts/list", "resources/templates/list")
    assert again.canonical_bytes() == data
    assert make().fingerprint != original.fingerprint


def test_skipped_lists_are_written_sorted_as_format_6_and_read_back_byte_identical(tmp_path: Path) -> None:
    original = make(skipped_lists=("resources/templates/list", "prompts/list", "prompts/list"))
    write_snapshot(tmp_path / "demo.json", original)
    data = (tmp_path / "demo.json").read_bytes()
    document = json.loads(data)
    assert (document["format"], document["skippedLists"]) == (6, ["prompts/list", "resources/templates/list"])
    again = load_snapshot(tmp_path / "demo.json")
    assert again.skipped_lists == ("prompts/list", "resources/templates/list")
    assert again.canonical_bytes() == data
    assert make().fingerprint != original.fingerprint
    document["skippedLists"] = ["prompt/list"]
    (tmp_path / "demo.json").write_text(json.dumps(document))
    with pytest.raises(StubgenError, match=r"demo\.json: invalid snapshot at /skippedLists/0: Input should be"):
        load_snapshot(tmp_path / "demo.json")


def test_client_settings_are_written_as_format_3_and_absent_settings_change_no_byte(tmp_path: Path) -> None:
    original = make(client_capabilities=("sampling", "roots"), parse_text_json=True)
    write_snapshot(tmp_path / "demo.json", original)
    data = (tmp_path / "demo.json").read_bytes()
    document = json.loads(data)
    assert (document["format"], document["clientCapabilities"], document["parseTextJson"]) == (
        3,
        ["roots", "sampling"],
        True,
    )
    assert SNAPSHOT_FORMAT >= 3
    again = load_snapshot(tmp_path / "demo.json")
    assert (again.client_capabilities, again.parse_text_json) == (("roots", "sampling"), True)
    assert again.canonical_bytes() == data
    plain = make(client_capabilities=(), parse_text_json=False).canonical_bytes()
    assert plain == make().canonical_bytes() and b"clientCapabilities" not in plain and b'"format": 1' in plain


def test_reordered_input_gives_identical_bytes_and_fingerprint() -> None:
    first = make()
    second = make(tools=(tool("alpha", description="First."), tool("zeta")))
    assert first.canonical_bytes() == second.canonical_bytes()
    assert first.fingerprint == second.fingerprint
    assert make(instructions="changed").fingerprint != first.fingerprint


def test_round_trip_through_a_file_is_byte_identical(tmp_path: Path) -> None:
    original = make(
        server_info={"name": "demo", "version": "1.0"},
        instructions="Use ünïcödé \u2028 freely.",
        resources=({"uri": "file:///b", "name": "b"}, {"uri": "file:///a", "name": "a"}),
        resource_templates=({"uriTemplate": "file:///{x}", "name": "x"},),
        prompts=({"name": "p"},),
    )
    path = tmp_path / "demo.json"
    assert write_snapshot(path, original) is True
    loaded = load_snapshot(path)
    assert loaded == original
    assert loaded.canonical_bytes() == path.read_bytes()
    assert "ünïcödé" in path.read_text(encoding="utf-8")


def test_rewriting_an_unchanged_snapshot_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "demo.json"
    write_snapshot(path, make())
    before = path.stat().st_mtime_ns
    assert write_snapshot(path, make()) is False
    assert path.stat().st_mtime_ns == before
    assert oct(path.stat().st_mode & 0o777) != oct(0o600), "a snapshot is not a private temp file"


def test_lone_surrogates_are_written_as_json_escapes() -> None:
    data = canonical_json_bytes({"text": "a\ud800b"})
    assert data == b'{\n  "text": "a\\ud800b"\n}\n'
    assert json.loads(data) == {"text": "a\ud800b"}


def test_duplicate_entries_are_rejected_with_their_name() -> None:
    with pytest.raises(StubgenError, match="server 'demo': tool 'alpha' is listed twice"):
        make(tools=(tool("alpha"), tool("alpha")))


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("not json", r"x\.json: not a JSON snapshot"),
        (  # two branches re-snapshotted one server and git merged them
            '{\n  "format": 5,\n<<<<<<< HEAD\n  "server": "a",\n=======\n  "server": "b",\n>>>>>>> feature\n}\n',
            r"x\.json: an unresolved merge conflict \(`<<<<<<<` at line 3\); keep one side \(`git checkout --ours`",
        ),
        (
            "<<<<<<< HEAD\n{}\n=======\n[]\n>>>>>>> feature\n",
            r"x\.json: an unresolved merge conflict \(`<<<<<<<` at line 1\)",
        ),
        ("[]", r"x\.json: not a snapshot \(expected a JSON object\)"),
        ('{"format": 99}', r"x\.json: snapshot format 99 is newer than this mcp-stubgen understands.*upgrade"),
        ('{"format": 7}', r"x\.json: snapshot format 7 is newer than this mcp-stubgen understands.*upgrade"),
        (  # a newer release's naming rules: upgrade, not "Input should be 1, 2, ..."
            '{"format": 6, "server": "s", "protocolVersion": "v", "capabilities": {}, "namingRules": 99}',
            r"x\.json: naming rules 99 are newer than this mcp-stubgen knows \(1 to \d+\); upgrade mcp-stubgen$",
        ),
        ('{"format": true}', r"x\.json: unknown snapshot format True"),
        ('{"format": "1"}', r"x\.json: unknown snapshot format '1'"),
        ('{"tools": []}', r"x\.json: unknown snapshot format None"),
        (  # generate and drift read a prompt's arguments as a list
            '{"format": 1, "server": "s", "protocolVersion": "v", "capabilities": {}, "prompts": [{"name": "p", "arguments": true}]}',
            r"x\.json: invalid snapshot at /prompts/0/arguments: Input should be a valid list",
        ),
        (
            '{"format": 1, "server": "s", "protocolVersion": "v", "capabilities": {}, "tools": [{"name": "t"}]}',
            r"x\.json: invalid snapshot at /tools/0/inputSchema: Field required",
        ),
        (
            '{"format": 1, "server": "s", "protocolVersion": "v", "capabilities": {}, "extra": 1}',
            r"x\.json: invalid snapshot at /extra",
        ),
    ],
)
def test_bad_documents_fail_with_one_line_naming_the_file(document: str, message: str) -> None:
    with pytest.raises(StubgenError, match=message) as caught:
        parse_snapshot(document, "x.json")
    assert "\n" not in str(caught.value)


def test_missing_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(StubgenError, match=r"no such snapshot; run `mcp-stubgen snapshot` first"):
        load_snapshot(tmp_path / "absent.json")


def test_published_json_schema_matches_the_model() -> None:
    published = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert published == snapshot_json_schema(), (
        "codegen/snapshot/snapshot.schema.json is stale; refresh it with: "
        "python -c 'import json; from codegen.snapshot.file_schema import snapshot_json_schema as s; "
        "print(json.dumps(s(), indent=2, sort_keys=True))' > codegen/snapshot/snapshot.schema.json"
    )


def test_golden_snapshots_are_canonical() -> None:
    paths = sorted((ROOT / "golden").glob("*/snapshot.json"))
    assert paths
    for path in paths:
        assert load_snapshot(path).canonical_bytes() == path.read_bytes(), path


def test_a_hand_edited_file_reads_as_its_canonical_form(tmp_path: Path) -> None:
    """Keys out of order, other spacing, numbers pydantic-core writes another way: the snapshot read
    holds what the canonical file would give, and the same fingerprints."""
    original = make(tools=(tool("alpha", description="First.", annotations={"x": 1e-05, "y": 1e16}), tool("zeta")))
    document = json.loads(original.canonical_bytes())
    edited = json.dumps({key: document[key] for key in reversed(document)}, indent=4, ensure_ascii=True)
    loaded = parse_snapshot(edited.replace('"name": "zeta", ', ""), "x.json")
    assert loaded == original
    assert loaded.canonical_bytes() == original.canonical_bytes()
    assert loaded.tool_fingerprints == original.tool_fingerprints
    assert [list(entry) for entry in loaded.tools] == [sorted(entry) for entry in loaded.tools]


_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda children: st.lists(children, max_size=2) | st.dictionaries(st.text(max_size=3), children, max_size=2),
    max_leaves=4,
)
_TEXT = st.text(max_size=2)
_OBJECT = st.dictionaries(_TEXT, _ANY_JSON, max_size=2)
_ENTRIES = {
    "tools": st.fixed_dictionaries({"name": _TEXT, "inputSchema": _OBJECT}, optional={"other": _ANY_JSON}),
    "resources": st.fixed_dictionaries({"name": _TEXT, "uri": _TEXT}),
    "resourceTemplates": st.fixed_dictionaries({"name": _TEXT, "uriTemplate": _TEXT}),
    "prompts": st.fixed_dictionaries({"name": _TEXT}, optional={"arguments": _ANY_JSON}),
}
_NAMES = st.dictionaries(_TEXT, _TEXT, max_size=2)
_SNAPSHOT_FILES = st.fixed_dictionaries(
    {"format": st.sampled_from([1, 2, 3, 4, 5]), "server": _TEXT, "protocolVersion": _TEXT, "capabilities": _OBJECT},
    optional={
        "serverInfo": _OBJECT | st.none(),
        "instructions": _TEXT | st.none(),
        "missingMethods": st.lists(_TEXT, max_size=2),
        "clientCapabilities": st.lists(st.sampled_from(["elicitation", "roots", "sampling"]), max_size=2),
        "parseTextJson": st.booleans(),
        "pythonNames": st.fixed_dictionaries({}, optional=dict.fromkeys(["tools", "prompts", "taskStarters"], _NAMES)),
        "namingRules": st.sampled_from([1, 2, 3, 4]),
        "argumentNames": st.fixed_dictionaries(
            {}, optional=dict.fromkeys(["tools", "prompts"], st.dictionaries(_TEXT, _NAMES, max_size=2))
        ),
        **{key: st.lists(entry, min_size=1, max_size=2) for key, entry in _ENTRIES.items()},
    },
)

_SNAPSHOT_FILE_KEYS = sorted(SnapshotFile.model_fields)


@settings(max_examples=500)
@given(_SNAPSHOT_FILES, st.data())
def test_a_document_is_refused_exactly_when_the_file_model_refuses_it(
    document: dict[str, object], data: st.DataObject
) -> None:
    """Plainly valid files skip loading pydantic's models; every other document is judged by them, so
    the same documents fail, with the model's message. A valid file is broken in one place: a key of
    the file, of an entry or of a `pythonNames` or `argumentNames` table, removed, added or given another value."""
    places: list[dict[str, object]] = [document]
    for value in document.values():
        places += [item for item in (value if isinstance(value, list) else [value]) if isinstance(item, dict)]
    names = document.get("pythonNames")
    if isinstance(names, dict):
        places += [table for table in names.values() if isinstance(table, dict)]
    arguments = document.get("argumentNames")
    if isinstance(arguments, dict):
        entries = [table for table in arguments.values() if isinstance(table, dict)]
        places += entries + [table for entry in entries for table in entry.values() if isinstance(table, dict)]
    place = data.draw(st.sampled_from(places) | st.just(document))
    keys = [*_SNAPSHOT_FILE_KEYS, "other"] if place is document else [*sorted(place), "other"]
    key = data.draw(st.sampled_from(keys))
    if key != "format" or place is not document:  # a bad format has messages of its own
        if data.draw(st.booleans()):
            place[key] = data.draw(_ANY_JSON | _TEXT | _OBJECT | st.lists(_TEXT | _ANY_JSON, min_size=1, max_size=2))
        else:
            place.pop(key, None)
    problem = first_error(document)
    try:
        parse_snapshot(json.dumps(document), "x.json")
    except StubgenError as error:
        rules = document.get("namingRules")
        if type(rules) is int and rules > NAMING_RULES:  # said before the model is asked: upgrade
            assert str(error).startswith(f"x.json: naming rules {rules} are newer than this mcp-stubgen knows")
        elif problem is None:
            assert "listed twice" in str(error)
        else:
            assert str(error) == str(StubgenError(f"x.json: invalid snapshot {problem}"))
    else:
        assert problem is None


def _listing(names: list[str]) -> dict[str, object]:
    """A tool as a server that builds its sets of names from a Python set may list it on one start."""
    return tool(
        "book",
        inputSchema={
            "type": "object",
            "properties": {"a": {}, "b": {}, "c": {"default": ["b", "c", "a"]}},
            "required": names,
            "dependentRequired": {"a": names},
        },
    )


def test_an_older_file_with_required_names_out_of_order_reads_as_todays_snapshot_and_no_drift(
    tmp_path: Path,
    run_cli,  # type: ignore[no-untyped-def]
) -> None:
    """An earlier release wrote `required` in the order the server sent it. Such a file still reads, in
    the format it had (sorting moves no meaning, so no older release can misread a sorted file), as
    the snapshot a run today writes, with the same fingerprints, and `drift` between the two finds
    nothing. Red before: the two files differed, and drift called `dependentRequired` uncomparable."""
    old_document = json.loads(make(tools=(_listing(["c", "a", "b"]),)).canonical_bytes())
    old_document["tools"][0]["inputSchema"]["required"] = ["c", "a", "b"]
    old_document["tools"][0]["inputSchema"]["dependentRequired"]["a"] = ["c", "a", "b"]
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_bytes(canonical_json_bytes(old_document))
    assert write_snapshot(new, make(tools=(_listing(["b", "c", "a"]),))) is True

    loaded, today = load_snapshot(old), load_snapshot(new)
    assert loaded.canonical_bytes() == new.read_bytes() and b'"format": 1' in new.read_bytes()
    assert loaded.tool_fingerprints == today.tool_fingerprints
    schema = today.tools[0]["inputSchema"]
    assert schema["required"] == schema["dependentRequired"]["a"] == ["a", "b", "c"]
    assert schema["properties"]["c"]["default"] == ["b", "c", "a"], "instance data keeps its order"
    result = run_cli("drift", old, new)
    assert (result.exit_code, result.stdout.strip()) == (0, "no drift (0 breaking, 0 dangerous, 0 safe)"), result


_TRICKY_NAMES = st.lists(st.sampled_from(["b", "a", 'a]"', "[", "\\", "{}", "é"]), max_size=3)
_SCHEMA_LIKE = st.recursive(
    _TRICKY_NAMES | st.booleans(),
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(
            st.sampled_from(["properties", "items", "required", "default", "x", "anyOf"]), inner, max_size=3
        )
    ),
    max_leaves=10,
)


@settings(max_examples=100, deadline=None)
@given(_SCHEMA_LIKE)
@example(["b", "a"]).via("a list of plain names out of order")
@example({"properties": {"q": {"required": ["b", 'a]"']}}}).via("a name with a quote")
def test_a_file_reads_as_the_snapshot_of_its_catalog_whether_or_not_its_names_were_sorted(schema: object) -> None:
    """A file whose every `required` list is in order skips the walk that sorts them (told from its
    text); any other file is walked. Either way it reads as the snapshot a server listing it gives."""
    listed = make(tools=(tool("t", inputSchema={"type": "object", "properties": {"p": schema}, "required": schema}),))
    document = json.loads(listed.canonical_bytes())
    document["tools"][0]["inputSchema"]["properties"]["p"] = schema  # as an older release wrote it
    document["tools"][0]["inputSchema"]["required"] = schema
    assert parse_snapshot(canonical_json_bytes(document), "x.json") == listed


@pytest.mark.parametrize(
    "tools",
    [
        [{"inputSchema": {"type": "object"}, "name": "a"}, {"inputSchema": {"type": "object"}, "name": "b"}],
        [{"name": "b", "inputSchema": {"type": "object"}}, {"inputSchema": {"type": "object"}, "name": "a"}],
        [{"icons": [{"src": "file:///home/me/icon.png"}], "inputSchema": {"type": "object"}, "name": "a"}],
        [{"inputSchema": {"required": ["z", "a"], "type": "object"}, "name": "a"}],
        [{"description": "caf\u00e9 \u7edf\u8ba1", "inputSchema": {"type": "object"}, "name": "a"}],
    ],
    ids=["sorted", "keys-out-of-order", "local-icon-dropped", "required-out-of-order", "non-ascii"],
)
def test_a_read_snapshots_compact_tools_are_each_tools_compact_json(tools: list[dict[str, object]]) -> None:
    """A reader keeps the compact texts it made to tell the file sorted as the tools' `compact_tools`
    (a generate needs them): only where they are exactly what `compact_json` makes of the tools held."""
    document = {
        "capabilities": {"tools": {}},
        "format": 5,
        "protocolVersion": "2026-07-28",
        "server": "s",
        "tools": tools,
    }
    snapshot = parse_snapshot(json.dumps(document), "s.json")
    assert snapshot.compact_tools == tuple(compact_json(tool) for tool in snapshot.tools)
