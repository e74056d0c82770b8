"""Numbers a catalog can hold but Python or JSON cannot (issue 22): an integer past Python's digit
limit and a number past a float's range each get their own clear error at snapshot, naming the
server, the tool and the JSON pointer, instead of timeout advice or a silent `null`; a snapshot file
holding one is a clear error too. And arrays of themselves (datamodel-code-generator's
`recursive_array.py.json`, `recursive_fixed_length_array.json`) generate `mypy --strict`-clean types."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codegen.generate import generate_package
from tests.conftest import SERVERS, forget_generated, import_generated
from tests.drift_helpers import snap, tool

RAW = str(SERVERS / "raw_server.py")


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("long-integer", "an integer of 5,000 digits, more than the 4,300 Python reads"),
        ("infinite-maximum", "a number too large for a float (inf), which JSON cannot hold"),
    ],
)
def test_a_number_python_cannot_hold_is_named_at_snapshot(mode: str, problem: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "raw.json"
    result = run_cli(
        "snapshot", "--name", "raw", "--out", out, "--connect-timeout", "30", "--request-timeout", "30",
        "--", sys.executable, RAW, "--mode", mode,
    )  # fmt: skip
    assert result.exit_code == 2, result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("error: server 'raw': "), line
    assert "tool 'bounded' /inputSchema/properties/count/maximum: " + problem in line, line
    assert "request_timeout" not in line and "Traceback" not in result.stderr
    assert not out.exists()


NON_FINITE = {
    "type": "object",
    "properties": {
        "vals": {"type": "array", "items": {"type": "number"}, "default": ["INFINITY", 1.5]},
        "low": {"type": "number", "minimum": "INFINITY"},
    },
}
"""As datamodel-code-generator's `non_finite_container_defaults.json` and `non_finite_number_values.json`:
`1e999` (written where `"INFINITY"` stands) in a default and in a bound."""


def test_a_snapshot_file_holding_1e999_is_one_clear_error(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    document = json.dumps(snap((tool("t", NON_FINITE, NON_FINITE),)).to_json()).replace('"INFINITY"', "1e999")
    (tmp_path / "snap.json").write_text(document, encoding="utf-8")
    result = run_cli("generate", tmp_path / "snap.json", "--out", tmp_path / "out")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert "snap.json: /tools/0/inputSchema/properties/low/minimum: a number too large for a float (inf)" in line
    assert "internal error" not in line and not (tmp_path / "out").exists()


ARRAY_OF_ITSELF = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": {"$ref": "#"}}
PAIR_OF_ITSELF = {**ARRAY_OF_ITSELF, "minItems": 2, "maxItems": 2}
NESTED = {
    "type": "object",
    "properties": {"tree": {"$ref": "#/$defs/Tree"}},
    "$defs": {"Tree": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
}


@pytest.mark.generated_mypy
def test_arrays_of_themselves_generate_mypy_strict_clean_types(tmp_path: Path) -> None:
    tools = (tool("nest", out=ARRAY_OF_ITSELF), tool("pair", out=PAIR_OF_ITSELF), tool("grow", NESTED, NESTED))
    generate_package(snap(tools), tmp_path)
    # The package imports its output folder's runtime relatively: checked and imported through the folder.
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null", "-p", f"{tmp_path.name}.demo"],
        cwd=tmp_path.parent,
        capture_output=True,
        text=True,
    )
    assert "Success: no issues found" in checked.stdout, checked.stdout
    try:
        models = import_generated(tmp_path, "demo.models")
        assert models.NestOutput.model_validate([[], [[]]]).model_dump() == [[], [[]]]
        assert models.GrowInput.model_validate({"tree": [[[]]]}).tree == [[[]]]
    finally:
        forget_generated(tmp_path)
