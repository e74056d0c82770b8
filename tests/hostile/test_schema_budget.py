"""Schemas whose expansion is unbounded: both commands stop within the work budget, and drift never
calls "equal" what it did not compare (issue 11 "Work that never ends", issue 14 "Hidden by depth")."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from codegen.config import HubSettings
from codegen.generate import tool_workers
from codegen.generate.build import build_package
from codegen.generate.code_mode import render_code_mode
from codegen.generate.hub import build_hub
from codegen.runtime._hub_runtime import Catalog
from codegen.runtime._runtime import ToolContract
from codegen.schemas import MAX_REF_DEPTH
from codegen.snapshot import Snapshot, write_snapshot
from tests.conftest import forget_generated, import_generated
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


PAST = (
    "stands for more than 10,000 schema objects once its references are followed, more work than "
    "mcp-stubgen spends on one schema: only the server checks it (ask its authors to simplify it)"
)


def budget_catalog() -> Snapshot:
    """A typed tool beside two whose input or output schema is past the work budget (by `generate`'s
    old count, GitHub's `issueslist_events` output schema through FastMCP's OpenAPI tools was one)."""
    return snap(
        (
            tool("echo", obj({"text": {"type": "string"}}, ("text",)), obj({"text": {"type": "string"}}, ("text",))),
            tool("fan", fan_out(16)),
            tool("events", obj({"page": {"type": "integer"}}), fan_out(16)),
        )
    )


def test_a_schema_past_the_budget_makes_its_tool_untyped_not_the_package_fail(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Depth 16 took datamodel-code-generator over two minutes; it was then refused, and with it the
    whole package (1,223 tools of GitHub's). Now that one tool is untyped, with one warning line, and
    its schema is left to the server: the contract holds no fan-out for the runtime to refuse. A tool
    whose output schema alone is past it keeps its typed arguments (naming rules 13) and returns
    `ToolResult`."""
    write_snapshot(tmp_path / "fan.json", budget_catalog())
    result = run_cli("generate", "fan.json", "--out", "out", "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert [line for line in result.stderr.splitlines() if line.startswith("warning:")] == [
        f"warning: server 'demo': tool {name!r}: {where}: {PAST}; its method {method} "
        "(`generate --strict` makes this an error)"
        for name, where, method in (
            ("events", "/outputSchema/$defs/d11", "returns `ToolResult`"),
            ("fan", "/inputSchema/$defs/d11", "takes `arguments: dict[str, Any]`"),
        )
    ]
    client = (tmp_path / "out" / "demo" / "client.py").read_text()
    assert "    async def echo(\n        self,\n        *,\n        text: str," in client
    assert "    async def fan(\n        self,\n        *,\n        arguments: dict[str, Any]," in client
    assert "    async def events(\n        self,\n        *,\n        page: int | NotGiven = NOT_GIVEN," in client
    assert "A schema left to the server is not checked at all: the server judges it." in client
    try:
        fan = import_generated(tmp_path / "out", "demo._models.fan")
        events = import_generated(tmp_path / "out", "demo._models.events")
        assert json.loads(fan._CONTRACT) == {"input": {"type": "object"}, "parameters": {}}
        assert json.loads(events._CONTRACT) == {
            "input": {"properties": {"page": {"type": "integer"}}, "type": "object"},
            "output": {},
            "parameters": {"page": "page"},
            "skip_sdk_output_check": True,
        }
        contract = ToolContract.of(fan._CONTRACT)
        assert contract.problem("input", {"q": {"x": "anything"}}) is None  # the server judges it
        assert ToolContract.of(events._CONTRACT).problem("output", {"q": 1}) is None
    finally:
        forget_generated(tmp_path / "out")


def test_strict_refuses_a_schema_past_the_budget_before_making_any_models(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The budget is checked before the tools' models are made (making them for GitHub's 1,223 tools
    took 37 minutes before the one tool past the budget was refused), so `--strict` fails at once."""

    def no_models(*_: object, **__: object) -> list[str]:
        raise AssertionError("models were made before the work budget was checked")

    monkeypatch.setattr(tool_workers, "map_batches", no_models)
    write_snapshot(tmp_path / "fan.json", budget_catalog())
    result = run_cli("generate", "fan.json", "--out", "out", "--no-cache", "--strict")
    assert result.exit_code == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: server 'demo': tool 'events': /outputSchema/$defs/d11: {PAST}"
    ]
    assert not (tmp_path / "out").exists()


def test_the_hub_and_code_mode_leave_a_schema_past_the_budget_to_the_server() -> None:
    """The hub's catalog (what models see, and what `hub.call` checks arguments against) and code
    mode's stubs hold no fan-out: the runtime would refuse to apply one, failing every call."""
    catalog = budget_catalog()
    tools = {tool.tool: tool for tool in build_hub([(catalog, build_package(catalog))]).tools}
    hub_echo, hub_fan, hub_events = tools["echo"], tools["fan"], tools["events"]
    raw = {tool["name"]: tool for tool in catalog.tools}
    assert (hub_echo.input_schema, hub_echo.output_schema) == (raw["echo"]["inputSchema"], raw["echo"]["outputSchema"])
    assert (hub_fan.input_schema, hub_fan.output_schema) == ({"type": "object"}, None)
    assert (hub_events.input_schema, hub_events.output_schema) == (raw["events"]["inputSchema"], None)
    Catalog({hub_fan.qualified_name: hub_fan}).check(hub_fan, {"q": {"x": "anything"}})  # nothing refused
    stub = render_code_mode([(catalog, {})], HubSettings())["demo.pyi"].decode()
    assert "async def fan(\n    *,\n    arguments: dict[str, Any],\n) -> str:" in stub
    assert "$defs" not in stub and "d11" not in stub
    assert "(its output schema is left to the server)" in stub


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
