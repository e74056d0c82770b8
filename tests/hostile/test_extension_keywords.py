"""Extension keywords a catalog may carry: none reaches datamodel-code-generator, so none can choose
an import, a base class, a decorator or a Python type in the generated package.

Which keywords count is read from the installed datamodel-code-generator itself
(`tests/hostile/corpus.py`: `extension_keywords`). Each is given values that name a payload module;
the package must not import it, in a fresh interpreter, and must be byte for byte what the same
catalog without those keywords gives.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.drift import compare_snapshots
from codegen.generate import package_dir, render_snapshot
from codegen.generate.publish import publish
from codegen.generate.runtime_folder import publish_runtime
from codegen.runtime._schema_check import SchemaCheck
from codegen.snapshot import SNAPSHOT_FORMAT, Snapshot, parse_snapshot
from tests.drift_helpers import obj, snap, tool
from tests.hostile.corpus import EXTENSION_VALUES, MARKER, PAYLOAD_MODULE, PAYLOAD_MODULE_SOURCE, extension_keywords


def test_the_keyword_list_covers_the_known_code_choosing_ones() -> None:
    known = {"customTypePath", "customBasePath", "x-python-type", "x-python-import", "x-is-base-class"}
    assert known | {"default_factory", "x-enum-varnames", "discriminator"} <= set(extension_keywords())


def hostile_schema(value: Any, extensions: bool = True) -> dict[str, Any]:
    """Every extension keyword with `value`: on its own property, on a `$defs` entry, an array's
    items, a union branch and the root."""
    every = {keyword: value for keyword in extension_keywords()} if extensions else {}
    properties = {f"p{index}": {"type": "string", keyword: value} for index, keyword in enumerate(extension_keywords())}
    if not extensions:
        properties = {name: {"type": "string"} for name in properties}
    return {
        "type": "object",
        **every,
        "properties": {
            **properties,
            "ref": {"$ref": "#/$defs/Def"},
            "list": {"type": "array", "items": {"type": "string", **every}},
            "either": {"anyOf": [{"type": "integer", **every}, {"type": "null"}]},
        },
        "$defs": {"Def": {"type": "object", "properties": {"z": {"type": "string", **every}}, **every}},
    }


def catalog(extensions: bool) -> Snapshot:
    tools = tuple(
        {
            "name": f"tool{index}",
            "inputSchema": hostile_schema(value, extensions),
            "outputSchema": hostile_schema(value, extensions),
        }
        for index, value in enumerate(EXTENSION_VALUES)
    )
    return Snapshot(
        server="ext",
        protocol_version="2025-06-18",
        capabilities={"tools": {}},
        server_info={"name": "ext", "version": "1"},
        instructions=None,
        tools=tools,
        resources=(),
        resource_templates=(),
        prompts=(),
    )


def without_fingerprints(files: dict[str, bytes]) -> dict[str, bytes]:
    """The files without their header comments and the fingerprints the client checks the server
    against, which are hashes of the snapshot."""
    return {
        name: re.sub(rb'"[0-9a-f]{16}"', b"FINGERPRINT", re.sub(rb"\A(# [^\n]*\n)+", b"", data))
        for name, data in code_of(files).items()
    }


def code_of(files: dict[str, bytes]) -> dict[str, bytes]:
    """The files without each models module's `_CONTRACT` line: the tool's schema as JSON text that
    the runtime validates against, never imports or runs. It keeps `$id` (a base URI, which relative
    references need), so a payload hidden in `$id` is text there, and nowhere else."""
    return {name: re.sub(rb"(?m)^_CONTRACT = .*\n", b"", data) for name, data in files.items()}


IMPORT_EVERYTHING = """
import importlib, pkgutil, sys
package = importlib.import_module(sys.argv[1])
for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    importlib.import_module(module.name)
models = importlib.import_module(sys.argv[1] + ".models")
for name in models.__all__:
    model = getattr(models, name)
    if hasattr(model, "model_json_schema"):
        model.model_json_schema()
"""


def import_in_a_fresh_interpreter(snapshot: Snapshot, files: dict[str, bytes], out: Path) -> None:
    """Publish the package beside the marker module, import every module of it and build every
    model's JSON Schema in a new interpreter; the marker module must not have run."""
    target = package_dir(snapshot, out)
    publish(files, target)
    publish_runtime(out)
    (out / f"{PAYLOAD_MODULE}.py").write_text(PAYLOAD_MODULE_SOURCE)
    result = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERYTHING, f"{out.name}.{target.name}"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": os.pathsep.join((str(out.parent), str(out))), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert not (out / MARKER).exists()


def test_the_keywords_that_name_code_do_not_import_it(tmp_path: Path) -> None:
    """Red before: `"q": {"type": "string", "customTypePath": "<module>.X"}` made the models import
    and run that module; so did `customBasePath`, `x-python-type` and `x-python-import`."""
    defs = {
        "Base": {"type": "object", "properties": {"z": {"type": "string"}}, "customBasePath": f"{PAYLOAD_MODULE}.B"},
        "Imported": {"type": "object", "x-python-import": {"module": PAYLOAD_MODULE, "name": "X"}},
    }
    schema = {
        "type": "object",
        "properties": {
            "q": {"type": "string", "customTypePath": f"{PAYLOAD_MODULE}.X"},
            "t": {"type": "string", "x-python-type": f"{PAYLOAD_MODULE}.X"},
            "b": {"$ref": "#/$defs/Base"},
            "i": {"$ref": "#/$defs/Imported"},
        },
        "$defs": defs,
    }
    snapshot = parse_snapshot(json.dumps(catalog_file(schema)), "ext.json")
    files = render_snapshot(snapshot)
    assert not [name for name, data in files.items() if PAYLOAD_MODULE.encode() in data]
    import_in_a_fresh_interpreter(snapshot, files, tmp_path)


def test_no_extension_keyword_datamodel_code_generator_reads_reaches_the_package(tmp_path: Path) -> None:
    """Every keyword of `extension_keywords`, with every value of `EXTENSION_VALUES`, everywhere a schema can be:
    the package is what the catalog without them gives, and imports without the marker module."""
    hostile = render_snapshot(catalog(extensions=True))
    assert not [name for name, data in code_of(hostile).items() if PAYLOAD_MODULE.encode() in data]
    assert without_fingerprints(hostile) == without_fingerprints(render_snapshot(catalog(extensions=False)))
    import_in_a_fresh_interpreter(catalog(extensions=True), hostile, tmp_path)


@pytest.mark.parametrize("pointer", ["#/examples/0", "#/x-defs/A", "#/properties/a/examples/0"])
def test_a_reference_into_data_or_an_extension_keyword_is_refused(run_cli, tmp_path: Path, pointer: str) -> None:  # type: ignore[no-untyped-def]
    """Red before: a `$ref` into `examples` had datamodel-code-generator read instance data, with a
    `customTypePath` in it, as a schema."""
    hidden = {"type": "string", "customTypePath": f"{PAYLOAD_MODULE}.X"}
    schema = {
        "type": "object",
        "properties": {"a": {"type": "object", "examples": [hidden]}, "b": {"$ref": pointer}},
        "examples": [hidden],
        "x-defs": {"A": hidden},
    }
    snapshot = tmp_path / "ext.json"
    snapshot.write_text(json.dumps(catalog_file(schema)))
    result = run_cli("generate", snapshot, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stderr.splitlines() == [
        f"error: server 'ext': tool 't': /inputSchema/properties/b/$ref: {pointer!r} points into instance data "
        "or a keyword mcp-stubgen does not read, not at a schema"
    ]
    assert not (tmp_path / "out").exists()


def catalog_file(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": SNAPSHOT_FORMAT,
        "server": "ext",
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "tools": [{"name": "t", "inputSchema": schema}],
    }


def test_drift_reads_extension_keywords_as_unknown_text() -> None:
    """Red before: drift followed a `$ref` into `x-defs` and judged what it found there as a schema."""
    before = obj({"x": {"$ref": "#/x-defs/A"}}, **{"x-defs": {"A": {"type": "string"}}})
    after = obj(
        {"x": {"$ref": "#/x-defs/A", "customTypePath": f"{PAYLOAD_MODULE}.X"}}, **{"x-defs": {"A": {"type": "integer"}}}
    )
    findings = compare_snapshots(snap((tool(inp=before),)), snap((tool(inp=after),)))
    assert sorted((finding.rule, finding.path) for finding in findings) == [
        ("schema-uncomparable", "/inputSchema/properties/x/customTypePath"),
        ("schema-uncomparable", "/inputSchema/x-defs"),
    ]
    assert PAYLOAD_MODULE not in sys.modules


def github_extension(reference: str) -> dict[str, Any]:
    """GitHub's OpenAPI description (`@octokit/openapi`) carries what a later API version changes under
    `x-github-breaking-changes`, with references into its `components`, which FastMCP's OpenAPI tools
    keep as written: six GitHub tools had such a `$ref`, naming nothing in the tool's schema."""
    return {
        "x-github-breaking-changes": [
            {"changeset": "remove_state", "patch": {"properties": {"state": {"$ref": reference}}}}
        ]
    }


def test_a_reference_under_an_extension_keyword_leaves_its_tool_typed() -> None:
    """An unknown keyword is an annotation (JSON Schema 2020-12, section 6.5): no validator applies the
    `$ref` inside one, and datamodel-code-generator never sees it. Red before: the tool was untyped
    ("points at nothing in the schema"), its method `arguments: dict[str, Any]`."""
    inp = obj({"state": {"type": "string"}}, **github_extension("#/components/schemas/issue-state"))
    migration = {"type": "object", "properties": {"id": {"type": "integer"}}, **github_extension("#/components/x")}
    out = obj({"migration": {"$ref": "#/$defs/migration"}}, ("migration",), **{"$defs": {"migration": migration}})
    out |= github_extension("https://api.github.com/schemas/issue")
    files = render_snapshot(snap((tool("list_events", inp, out),)))
    client = files["client.py"].decode()
    assert "    async def list_events(\n        self,\n        *,\n        state: str | NotGiven = NOT_GIVEN," in client
    assert ") -> ListEventsOutput:" in client
    [contract] = [
        line for line in files["_models/list_events.py"].decode().splitlines() if line.startswith("_CONTRACT")
    ]
    assert "x-github" not in contract and "unresolved" not in contract and "skip_sdk_output_check" not in contract


def test_drift_and_the_runtime_checks_do_not_follow_a_reference_under_an_extension_keyword() -> None:
    """Drift compares what a validator applies and judges a change there, whatever the extension
    holds; the runtime's check (the hub's, on the schema as listed) applies nothing inside it."""
    extension = github_extension("#/components/schemas/issue-state")
    old = snap((tool("list_events", obj({"state": {"type": "string"}}, **extension)),))
    new = snap((tool("list_events", obj({"state": {"type": "integer"}}, **extension)),))
    assert compare_snapshots(old, old) == []
    assert [(finding.rule, finding.path) for finding in compare_snapshots(old, new)] == [
        ("in-type-narrowed", "/inputSchema/properties/state/type")
    ]
    check = SchemaCheck(obj({"state": {"type": "string"}}, **extension))
    assert check.problem({"state": "open"}) is None
    assert check.problem({"state": 1}) is not None
