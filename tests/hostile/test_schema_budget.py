"""Schemas whose expansion is unbounded: both commands stop within the work budget, and drift never
calls "equal" what it did not compare (issue 11 "Work that never ends", issue 14 "Hidden by depth")."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from codegen.schemas import MAX_REF_DEPTH
from codegen.snapshot import write_snapshot
from tests.drift_helpers import obj, snap, tool


def fan_out(depth: int, leaf: str = "string") -> dict[str, Any]:
    """A chain of definitions, each an `anyOf` of two references to the previous: 2**depth leaves."""
    definitions: dict[str, Any] = {"d0": {"type": "object", "properties": {"x": {"type": leaf}}}}
    for index in range(1, depth + 1):
        previous = {"$ref": f"#/$defs/d{index - 1}"}
        definitions[f"d{index}"] = {"anyOf": [previous, dict(previous)]}
    return obj({"q": {"$ref": f"#/$defs/d{depth}"}}, ("q",), **{"$defs": definitions})


def chain(depth: int, leaf: str = "string") -> dict[str, Any]:
    """`depth` references one inside another, ending in an argument of type `leaf`."""
    definitions: dict[str, Any] = {"d0": {"type": leaf}}
    for index in range(1, depth + 1):
        definitions[f"d{index}"] = {"$ref": f"#/$defs/d{index - 1}"}
    return obj({"q": {"$ref": f"#/$defs/d{depth}"}}, ("q",), **{"$defs": definitions})


@pytest.fixture(autouse=True)
def _no_project_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_generate_refuses_a_fan_out_in_well_under_a_second_per_schema(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Depth 16 took datamodel-code-generator over two minutes; now it is one line and exit 2."""
    write_snapshot(tmp_path / "fan.json", snap((tool("fan", fan_out(16)),)))
    started = time.monotonic()
    result = run_cli("generate", "fan.json", "--out", "out", "--no-cache")
    assert time.monotonic() - started < 10
    assert result.exit_code == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: server 'demo': tool 'fan': /inputSchema/$defs/d11: stands for more than 10,000 schema objects "
        "once its references are followed, more work than mcp-stubgen spends on one schema; "
        "the server has to simplify it"
    ]
    assert not (tmp_path / "out").exists()


def test_drift_reports_a_changed_fan_out_as_uncomparable_quickly(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Depth 30 took the normaliser over a minute; a change in it is not "no drift"."""
    write_snapshot(tmp_path / "old.json", snap((tool("fan", fan_out(30)),)))
    write_snapshot(tmp_path / "new.json", snap((tool("fan", fan_out(30, leaf="integer")),)))
    started = time.monotonic()
    result = run_cli("drift", "old.json", "new.json", "--format", "json")
    assert time.monotonic() - started < 10
    assert result.exit_code == 1, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [(finding["rule"], finding["name"], finding["path"]) for finding in findings] == [
        ("schema-uncomparable", "fan", "/inputSchema")
    ]
    assert "past the work budget" in findings[0]["message"]


def test_drift_of_an_unchanged_fan_out_is_no_drift(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write_snapshot(tmp_path / "old.json", snap((tool("fan", fan_out(30)),)))
    result = run_cli("drift", "old.json", "old.json")
    assert result.exit_code == 0, result.stdout + result.stderr


def test_a_breaking_change_at_the_end_of_a_70_deep_chain_is_found(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The normaliser used to stop at depth 64 and write the same marker for both sides: "no drift"."""
    write_snapshot(tmp_path / "old.json", snap((tool("deep", chain(70)),)))
    write_snapshot(tmp_path / "new.json", snap((tool("deep", chain(70, leaf="integer")),)))
    result = run_cli("drift", "old.json", "new.json", "--format", "json")
    assert result.exit_code == 1, result.stdout + result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [(finding["severity"], finding["path"]) for finding in findings] == [
        ("breaking", "/inputSchema/properties/q/type")
    ]


def test_a_change_past_the_reference_depth_budget_is_uncomparable(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    depth = MAX_REF_DEPTH + 20
    write_snapshot(tmp_path / "old.json", snap((tool("deep", chain(depth)),)))
    write_snapshot(tmp_path / "new.json", snap((tool("deep", chain(depth, leaf="integer")),)))
    result = run_cli("drift", "old.json", "new.json", "--format", "json")
    assert result.exit_code == 1, result.stdout + result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert [(finding["rule"], finding["path"]) for finding in findings] == [("schema-uncomparable", "/inputSchema")]
    assert f"follows more than {MAX_REF_DEPTH} references" in json.dumps(findings[0])
