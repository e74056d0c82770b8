"""The snapshot file: canonical bytes, versioning, validation, and its published JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegen.errors import StubgenError
from codegen.snapshot import (
    SNAPSHOT_FORMAT,
    Snapshot,
    canonical_json_bytes,
    load_snapshot,
    parse_snapshot,
    write_snapshot,
)
from codegen.snapshot.file_schema import snapshot_json_schema

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
    assert "missingMethods" not in document
    assert b'\n  "capabilities": {\n    "tools"' in data


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
        ("[]", r"x\.json: not a snapshot \(expected a JSON object\)"),
        ('{"format": 99}', r"x\.json: snapshot format 99 is newer than this mcp-stubgen understands.*upgrade"),
        ('{"format": 5}', r"x\.json: snapshot format 5 is newer than this mcp-stubgen understands.*upgrade"),
        ('{"format": true}', r"x\.json: unknown snapshot format True"),
        ('{"format": "1"}', r"x\.json: unknown snapshot format '1'"),
        ('{"tools": []}', r"x\.json: unknown snapshot format None"),
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
