"""Malformed schemas through `mcp-stubgen generate`: each generates code that compiles, or fails with
one line naming the server, the tool and a JSON pointer, exit 2, the previous package untouched."""

from __future__ import annotations

import hashlib
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import black
import pytest

from codegen.generate import render_snapshot
from codegen.generate.formatting import black_mode
from codegen.generate.publish import publish
from codegen.generate.runtime_folder import publish_runtime
from codegen.snapshot import Snapshot
from tests.hostile.corpus import run_mypy


def nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"p": schema}}
    return schema


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


UNTYPABLE = [
    (
        "dangling",
        obj(a={"$ref": "#/$defs/Nope"}),
        r"/inputSchema/properties/a/\$ref: '#/\$defs/Nope' points at nothing",
    ),
    ("dangling-root", {"$ref": "#/$defs/Nope"}, r"/inputSchema/\$ref: .* points at nothing"),
    ("remote", obj(a={"$ref": "http://127.0.0.1:9/s.json"}), r"/properties/a/\$ref: .* points outside the schema"),
    ("file", obj(a={"$ref": "/etc/passwd"}), r"/properties/a/\$ref: '/etc/passwd' points outside the schema"),
    ("relative", obj(a={"$ref": "defs.json#/A"}), r"/properties/a/\$ref: 'defs.json#/A' points outside"),
]
"""References that name nothing in the schema: an untyped method by default, an error under `--strict`."""

INVALID = [
    ("ref-not-string", obj(a={"$ref": 5}), r"/inputSchema/properties/a/\$ref: must be a string, not int"),
    ("not-a-schema", {"type": "object", "properties": "hello"}, r"/inputSchema/properties: must be an object"),
    ("properties-null", {"type": "object", "properties": None}, r"/inputSchema/properties: must be an object"),
    ("required-null", {"type": "object", "required": None}, r"/inputSchema/required: must be a list of property"),
    ("type-number", obj(a={"type": 5}), r"/inputSchema/properties/a/type: not valid JSON Schema"),
    ("items-string", obj(a={"type": "array", "items": "x"}), r"/inputSchema/properties/a/items: not valid JSON"),
    ("bad-minLength", obj(a={"minLength": "x"}), r"/inputSchema/properties/a/minLength: not valid JSON Schema"),
    ("pointer-escaped", obj(**{"a/b\n~": 5}), r"/inputSchema/properties/a~1b\\n~0: must be a JSON Schema"),
]
"""Schemas that are not JSON Schema, as a server may hand-write them: an untyped method whose
arguments only the server checks, by default; an error under `--strict`."""

REFUSED = [
    (
        "ref-into-enum",
        obj(a={"$ref": "#/properties/b/enum/0"}, b={"enum": [{"type": "string"}]}),
        r"/inputSchema/properties/a/\$ref: '#/properties/b/enum/0' points into instance data",
    ),
]
"""What would have the generator read instance data as a schema: no package is generated."""


LEFT_TO_THE_SERVER = [
    ("bad-pattern", obj(a={"type": "string", "pattern": "(unclosed"})),
    ("bad-pattern-in-items", obj(a={"type": "array", "items": {"pattern": "a{2,1}"}})),
    ("bad-pattern-property", obj(a={"type": "object", "patternProperties": {"\\k<n>": {}}})),
    # Python reads a backslash before U+202B as the character; Rust rejects it
    ("pattern-python-compiles-rust-does-not", obj(a={"type": "string", "pattern": "\\\u202b"})),
    ("patterns-for-two-engines", obj(a={"pattern": r"^(?!x)"}, n=obj(b={"pattern": r"\p{L}"}))),
]
"""Patterns pydantic's linear-time engine cannot compile (found by tests/fuzz when they failed the
package's import): left out of the models and unchecked client-side, as the runtime leaves them."""


def write_snapshot(folder: Path, tools: list[dict[str, Any]], name: str = "snap.json") -> Path:
    document = {"format": 1, "server": "srv", "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}
    path = folder / name
    path.write_text(json.dumps({**document, "tools": tools}), encoding="utf-8")
    return path


def digest(folder: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def previous_package(tmp_path: Path, run_cli) -> Path:  # type: ignore[no-untyped-def]
    good = write_snapshot(tmp_path, [{"name": "t", "inputSchema": obj(a={"type": "string"})}], "good.json")
    assert run_cli("generate", good, "--out", tmp_path / "out").exit_code == 0
    return tmp_path / "out"


@pytest.mark.parametrize(("case", "schema", "pattern"), REFUSED, ids=[case for case, _, _ in REFUSED])
def test_malformed_schema_is_one_line_exit_2_and_nothing_written(
    case: str, schema: Any, pattern: str, tmp_path: Path, previous_package: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    import re

    before = digest(previous_package)
    snapshot = write_snapshot(tmp_path, [{"name": "t", "inputSchema": schema}])
    result = run_cli("generate", snapshot, "--out", previous_package)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: server 'srv': tool 't': /inputSchema"), result.stderr
    assert re.search(pattern, lines[0]), lines[0]
    assert digest(previous_package) == before


@pytest.mark.parametrize(("case", "schema", "pattern"), UNTYPABLE, ids=[case for case, _, _ in UNTYPABLE])
def test_a_reference_to_nothing_is_untyped_or_under_strict_one_line_exit_2(
    case: str, schema: Any, pattern: str, tmp_path: Path, previous_package: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    untyped_or_under_strict_one_line(schema, pattern, previous_package, run_cli)


@pytest.mark.parametrize(("case", "schema", "pattern"), INVALID, ids=[case for case, _, _ in INVALID])
def test_an_invalid_schema_is_untyped_and_left_to_the_server_or_under_strict_one_line_exit_2(
    case: str, schema: Any, pattern: str, tmp_path: Path, previous_package: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    """Red before: each refused the whole package, its other tools with it (issue 12's follow-up)."""
    untyped_or_under_strict_one_line(schema, pattern, previous_package, run_cli)
    [contract] = [
        line
        for line in (previous_package / "srv" / "_models" / "t.py").read_text().splitlines()
        if "_CONTRACT =" in line
    ]
    assert contract == """_CONTRACT = '{"input":{"type":"object"},"parameters":{}}'"""  # fmt: skip


def untyped_or_under_strict_one_line(schema: Any, pattern: str, previous_package: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """`generate --strict` refuses the tool in one line, exit 2, the package untouched; `generate`
    gives it the untyped method with one warning line naming the same pointer."""
    import re

    before = digest(previous_package)
    snapshot = write_snapshot(previous_package.parent, [{"name": "t", "inputSchema": schema}])
    result = run_cli("generate", snapshot, "--out", previous_package, "--strict")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: server 'srv': tool 't': /inputSchema"), result.stderr
    assert re.search(pattern, lines[0]), lines[0]
    assert digest(previous_package) == before
    result = run_cli("generate", snapshot, "--out", previous_package)
    assert result.exit_code == 0
    [warning, _] = result.stderr.splitlines()
    assert warning.startswith("warning: server 'srv': tool 't': /inputSchema") and re.search(pattern, warning)
    assert "arguments: dict[str, Any]," in (previous_package / "srv" / "client.py").read_text()


def test_duplicate_tool_names_in_a_hand_edited_snapshot(tmp_path: Path, previous_package: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    before = digest(previous_package)
    tool = {"name": "t", "inputSchema": obj()}
    result = run_cli("generate", write_snapshot(tmp_path, [tool, tool]), "--out", previous_package)
    assert result.exit_code == 2
    assert (
        result.stderr
        == "error: server 'srv': tool 't' is listed twice; the server's catalog must name each tool once\n"
    )
    assert digest(previous_package) == before


@pytest.mark.parametrize(
    "schema",
    [
        obj(a={"$ref": "#/$defs/Node"}) | {"$defs": {"Node": obj(next={"$ref": "#/$defs/Node"})}},
        obj(a={"$ref": "#"}),
        obj(a=True, b=False),
        obj(a={"type": "frobnicate"}),
        obj(a={"enum": [1, "a", None, [1], {"x": 1}, True, 1.5]}),
        obj(a={"type": "string", "pattern": r"^(?!\s*$).+"}, b={"type": "array", "items": {"pattern": r"x\Z"}}),
        obj(a={"type": "string", "pattern": r"\p{L}+"}, b={"patternProperties": {r"[\p{L}--a]": {}}}),
        obj(a={"type": "object", "patternProperties": {r"^(?!x)": {"type": "string"}, "^y$": {}}}),
        obj(
            a={"type": "string", "enum": ["x"], "pattern": "("},
            b={"type": "integer", "pattern": "("},
            c={"const": 1, "pattern": "("},
        ),
        obj(p=nested(50)),
        obj(a={"type": "string", "description": "d" * 100_000}),
        # Found by fuzzing: models.py then imports `Field as Field_aliased`, and the aliased property's
        # wire name was not read back, so the tool was refused as not matching its own schema.
        obj(Field={"type": "string"}, **{"plain text": {"type": "string"}}),
    ],
    ids=[
        "recursive",
        "self-root",
        "boolean",
        "unknown-type",
        "mixed-enum",
        "patterns-for-python-only",
        "patterns-for-pydantic-only",
        "pattern-properties-for-python-only",
        "broken-patterns-that-cannot-apply",
        "nested-50",
        "100KB-description",
        "property-named-Field-beside-an-aliased-one",
    ],
)
def test_odd_but_usable_schemas_generate(
    schema: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """These are generated, the package imports and its input model builds (pydantic compiles patterns
    only then: a lookahead needs Python's engine, `\\p{L}` pydantic's), and nothing from
    datamodel-code-generator (warnings) reaches the output."""
    snapshot = Snapshot(
        server="odd_srv", protocol_version="2025-06-18", capabilities={}, tools=({"name": "t", "inputSchema": schema},)
    )
    files = render_snapshot(snapshot)
    for name, data in files.items():
        if name.endswith(".py"):
            compile(data, name, "exec")
    captured = capfd.readouterr()
    assert captured.out == captured.err == ""
    publish(files, tmp_path / "odd_srv")
    publish_runtime(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path.parent))
    try:
        importlib.import_module(f"{tmp_path.name}.odd_srv").TInput.model_rebuild()
    finally:
        for module in [name for name in sys.modules if name.split(".")[0] == tmp_path.name]:
            del sys.modules[module]


@pytest.mark.generated_mypy
def test_optional_const_objects_and_arrays_type_check(tmp_path: Path) -> None:
    """Found by the property test's mypy sample: the package imported and validated, but `mypy --strict`
    rejected `a: dict[str, str] = None` (an optional `const` object or array)."""
    tool = {"name": "consts", "inputSchema": obj(a={"const": {"k": "v"}}, b={"const": [1]})}
    snapshot = Snapshot(server="consts", protocol_version="2025-06-18", capabilities={}, tools=(tool,))
    publish(render_snapshot(snapshot), tmp_path / "consts")
    assert run_mypy([tmp_path / "consts"], tmp_path) == ""


@pytest.mark.generated_mypy
def test_output_defaults_that_do_not_fit_their_schema_are_dropped(tmp_path: Path) -> None:
    """Found by the property test's mypy sample: `mypy --strict` rejected `x: str = 5` (an output
    `default` of another type). A default that does not fit its schema is dropped; one that fits is kept."""
    wrong = {
        "a": {"type": "string", "default": 5},
        "b": {"type": "array", "items": {"type": "integer"}, "default": [1, "x"]},
        "c": {"enum": ["x", "y"], "default": "z"},
        "d": {"$ref": "#/$defs/M", "default": {}},
        "e": {"type": "integer", "default": True},
    }
    kept = {"f": {"type": "string", "default": "kept-default"}, "g": {"$ref": "#/$defs/M", "default": {"n": 7}}}
    output = obj(**wrong, **kept) | {"$defs": {"M": obj(n={"type": "integer"}) | {"required": ["n"]}}}
    tool = {"name": "defaults", "inputSchema": obj(), "outputSchema": output}
    snapshot = Snapshot(server="defaults", protocol_version="2025-06-18", capabilities={}, tools=(tool,))
    files = render_snapshot(snapshot)
    models = "".join(data.decode() for name, data in files.items() if name.endswith(".py"))
    assert '"kept-default"' in models and '{"n": 7}' in models
    publish(files, tmp_path / "defaults")
    assert run_mypy([tmp_path / "defaults"], tmp_path) == ""


@pytest.mark.parametrize("string_format", ["email", "idn-email", "ulid"])
def test_a_format_needing_an_optional_package_still_imports(
    string_format: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by the fuzz script: one `format: email` property made the whole package fail on import
    unless `pydantic[email]` was installed; modelgen now maps these formats to `str`."""
    for optional in ("email_validator", "ulid"):
        monkeypatch.setitem(sys.modules, optional, None)  # absent, even where a developer installed it
    tool = {"name": "t", "inputSchema": obj(a={"type": "string", "format": string_format})}
    snapshot = Snapshot(server="formats", protocol_version="2025-06-18", capabilities={}, tools=(tool,))
    publish(render_snapshot(snapshot), tmp_path / "formats")
    publish_runtime(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path.parent))
    try:
        importlib.import_module(f"{tmp_path.name}.formats").TInput.model_rebuild()
    finally:
        for module in [name for name in sys.modules if name.split(".")[0] == tmp_path.name]:
            del sys.modules[module]


SHADOWED_IMPORTS = ["Field", "BaseModel", "ConfigDict", "RootModel", "Literal", "Annotated", "Any", "AnyUrl"]
"""Names a generated models module imports (pydantic's and typing's), each used as a property name."""


@pytest.mark.parametrize("name", SHADOWED_IMPORTS)
def test_a_property_named_like_an_import_beside_a_titled_definition_imports(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by the fuzz script (7 of 5,000 catalogs, seed 7: a property named `Field`): datamodel-code-generator
    imported `Field as Field_aliased` but wrote a titled root model's `root: Any = Field(...)`, a NameError on
    import. modelgen now writes every bare use of an aliased import through its alias; the other import names
    get the same shapes (titled root models, a Literal, constraints, a URL) and must import, validate and stay
    black-formatted too."""
    row = obj(**{name: {"type": "string", "maxLength": 5}, "plain text": {}, "kind": {"enum": ["a", "b"]}})
    schema = {
        "type": "object",
        "properties": {"row": {"$ref": "#/$defs/Row"}, "short": {"$ref": "#/$defs/Short"}},
        "$defs": {
            "Anything": {},
            "Short": {"type": "string", "minLength": 1, "title": "Short"},
            "Row": row | {"required": [name]},
            "Link": {"type": "string", "format": "uri"},
        },
    }
    snapshot = Snapshot(
        server="field_srv",
        protocol_version="2025-06-18",
        capabilities={},
        tools=({"name": "t", "inputSchema": schema, "outputSchema": schema},),
    )
    files = render_snapshot(snapshot)
    for path, data in files.items():
        if path.startswith("_models/"):
            assert black.format_str(data.decode(), mode=black_mode()) == data.decode(), path
    publish(files, tmp_path / "field_srv")
    publish_runtime(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path.parent))
    try:
        package = importlib.import_module(f"{tmp_path.name}.field_srv")
        arguments = package.TInput.model_validate({"row": {name: "x", "kind": "a"}, "short": "s"})
        assert arguments.model_dump(by_alias=True, exclude_none=True)["row"][name] == "x"
        package.TOutput.model_rebuild()
    finally:
        for module in [name for name in sys.modules if name.split(".")[0] == tmp_path.name]:
            del sys.modules[module]


@pytest.mark.parametrize(("case", "schema"), LEFT_TO_THE_SERVER, ids=[case for case, _ in LEFT_TO_THE_SERVER])
def test_a_pattern_the_linear_engine_cannot_compile_is_left_to_the_server(
    case: str, schema: Any, tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    snapshot = write_snapshot(tmp_path, [{"name": "t", "inputSchema": schema, "outputSchema": schema}])
    result = run_cli("generate", snapshot, "--out", tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    models = (tmp_path / "out" / "srv" / "_models" / "t.py").read_text(encoding="utf-8")
    assert "python-re" not in models and "pattern=" not in models.split("_CONTRACT =")[0]
    # imported through its output folder, whose runtime it imports relatively
    imported = subprocess.run([sys.executable, "-c", "import out.srv._models.t"], cwd=tmp_path, capture_output=True)
    assert imported.returncode == 0, imported.stderr
