"""Drift replays real release history: published versions of two reference servers, snapshotted once
(tests/fixtures/history/README.md says how), judged the way a reviewer who read every change did."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from codegen.drift import Finding, compare_snapshots
from codegen.snapshot import load_snapshot

HISTORY = Path(__file__).resolve().parent / "fixtures" / "history"


def drift(old: str, new: str) -> list[Finding]:
    return compare_snapshots(load_snapshot(HISTORY / f"{old}.json"), load_snapshot(HISTORY / f"{new}.json"))


def by_entity(findings: list[Finding], kind: str) -> dict[str, set[tuple[str, str]]]:
    """entity name -> {(rule, severity)}"""
    found: dict[str, set[tuple[str, str]]] = {}
    for finding in findings:
        if finding.kind == kind:
            found.setdefault(finding.name, set()).add((finding.rule, finding.severity.value))
    return found


OUT = ("out-schema-added", "dangerous")
OPENED = ("in-type-widened", "safe")  # the new SDK stopped writing additionalProperties: false
TITLED = ("title-changed", "safe")
READ_ONLY = ("annotation-readonly-claimed", "dangerous")

FILESYSTEM_TOOLS = {
    "create_directory": {
        OUT, OPENED, TITLED,
        ("annotation-destructive-withdrawn", "dangerous"),
        ("annotation-idempotent-claimed", "dangerous"),
    },
    "directory_tree": {OUT, OPENED, TITLED, READ_ONLY, ("in-optional-added", "safe")},
    "edit_file": {OUT, OPENED, TITLED},
    "get_file_info": {OUT, OPENED, TITLED, READ_ONLY},
    "list_allowed_directories": {OUT, TITLED, READ_ONLY},
    "list_directory": {OUT, OPENED, TITLED, READ_ONLY},
    "list_directory_with_sizes": {OUT, OPENED, TITLED, READ_ONLY},
    "move_file": {OUT, OPENED, TITLED, ("annotation-destructive-withdrawn", "dangerous")},
    "read_file": {OUT, OPENED, TITLED, READ_ONLY},
    "read_media_file": {OUT, OPENED, TITLED, READ_ONLY},
    "read_multiple_files": {
        OUT, OPENED, TITLED, READ_ONLY,
        ("schema-text-changed", "dangerous"),
        ("in-bound-added", "dangerous"),  # minItems 1: an empty list of paths was never useful
    },
    "read_text_file": {OUT, OPENED, TITLED, READ_ONLY},
    "search_files": {OUT, OPENED, TITLED, READ_ONLY, ("description-changed", "dangerous")},
    "write_file": {OUT, OPENED, TITLED, ("annotation-idempotent-claimed", "dangerous")},
}  # fmt: skip


def test_filesystem_sdk_upgrade_is_not_breaking_and_every_trust_claim_is_flagged() -> None:
    """2025.8.21 -> 2025.11.25: a newer SDK writes `execution: {taskSupport: forbidden}` on every tool
    (the spec's default), adds output schemas, titles and annotation hints."""
    findings = drift("filesystem-2025.8.21", "filesystem-2025.11.25")
    assert [f for f in findings if f.severity.value == "breaking"] == []
    assert by_entity(findings, "tool") == FILESYSTEM_TOOLS
    assert [(f.rule, f.path) for f in findings if f.kind == "server"] == [
        ("protocol-version-changed", "/protocolVersion")
    ]
    assert not [f for f in findings if "execution" in f.path]
    returns = next(f for f in findings if f.rule == "out-schema-added")
    assert "ToolResult" in returns.message


def test_filesystem_upgrade_passes_fail_on_breaking(run_cli) -> None:  # type: ignore[no-untyped-def]
    old, new = HISTORY / "filesystem-2025.8.21.json", HISTORY / "filesystem-2025.11.25.json"
    assert run_cli("drift", old, new).exit_code == 0
    assert run_cli("drift", old, new, "--fail-on", "dangerous").exit_code == 1


RENAMED_TOOLS = {
    "add": "get-sum",
    "annotatedMessage": "get-annotated-message",
    "getResourceLinks": "get-resource-links",
    "getResourceReference": "get-resource-reference",
    "getTinyImage": "get-tiny-image",
    "longRunningOperation": "trigger-long-running-operation",
    "printEnv": "get-env",  # "Prints all environment variables..." became "Returns all environment variables..."
    "structuredContent": "get-structured-content",
}


def test_everything_renames_are_found_and_nothing_else_is_called_one() -> None:
    findings = drift("everything-2025.11.25", "everything-2026.1.26")
    renamed = {f.old_name: f.name for f in findings if f.rule == "tool-renamed"}
    assert renamed == RENAMED_TOOLS
    assert {f.old_name: f.name for f in findings if f.rule == "prompt-renamed"} == {
        "resource_prompt": "resource-prompt",
        "simple_prompt": "simple-prompt",
    }
    assert sorted(f.name for f in findings if f.rule == "tool-removed") == ["sampleLLM", "zip"]
    assert sorted(f.name for f in findings if f.rule == "tool-added-destructive") == [
        "gzip-file-as-resource",
        "simulate-research-query",
        "toggle-simulated-logging",
        "toggle-subscriber-updates",
    ]
    assert [f.name for f in findings if f.rule == "prompt-removed"] == ["complex_prompt"]
    evidence = {f.old_name: f.message for f in findings if f.rule == "tool-renamed"}
    assert "same name once case and separators are folded" in evidence["getTinyImage"]
    assert "'get-structured-content' extends 'structuredContent'" in evidence["structuredContent"]
    assert "descriptions are 90% alike" in evidence["printEnv"]


RENAMED = ("tool-renamed", "breaking")
REWORDED = ("description-changed", "dangerous")
EVERYTHING_TOOLS = {
    "echo": {REWORDED, TITLED},
    "get-annotated-message": {RENAMED, REWORDED, TITLED},
    "get-env": {RENAMED, REWORDED, TITLED, OPENED},
    "get-resource-links": {RENAMED, REWORDED, TITLED},
    "get-resource-reference": {
        RENAMED, TITLED,
        ("in-default-changed", "dangerous"),
        ("schema-text-changed", "dangerous"),
        ("in-became-optional", "safe"),
        ("in-bound-relaxed", "safe"),
        ("in-optional-added", "safe"),
    },
    "get-structured-content": {
        RENAMED, TITLED,
        ("in-enum-value-removed", "breaking"),
        ("schema-text-changed", "dangerous"),
        ("in-bound-relaxed", "safe"),
    },
    "get-sum": {RENAMED, REWORDED, TITLED},
    "get-tiny-image": {RENAMED, REWORDED, TITLED, OPENED},
    "trigger-long-running-operation": {RENAMED, REWORDED, TITLED},
    "sampleLLM": {("tool-removed", "breaking")},
    "zip": {("tool-removed", "breaking")},
    "gzip-file-as-resource": {("tool-added-destructive", "dangerous")},
    "simulate-research-query": {("tool-added-destructive", "dangerous")},
    "toggle-simulated-logging": {("tool-added-destructive", "dangerous")},
    "toggle-subscriber-updates": {("tool-added-destructive", "dangerous")},
}  # fmt: skip


def test_everything_renames_carry_their_remaining_differences() -> None:
    findings = drift("everything-2025.11.25", "everything-2026.1.26")
    tools = by_entity(findings, "tool")
    assert tools == EVERYTHING_TOOLS
    # a free-text location became one of three cities: breaking, reported under the new name
    assert ("in-enum-value-removed", "breaking") in tools["get-structured-content"]
    # an identical output schema: nothing about results
    assert not [f for f in findings if f.name == "get-structured-content" and f.rule.startswith("out-")]
    assert {("in-optional-added", "safe"), ("in-became-optional", "safe"), ("in-bound-relaxed", "safe")} <= tools[
        "get-resource-reference"
    ]
    prompts = by_entity(findings, "prompt")
    assert ("prompt-arg-required-added", "breaking") in prompts["resource-prompt"]
    follow_up = next(f for f in findings if f.rule == "prompt-arg-required-added")
    assert (follow_up.name, follow_up.old_name) == ("resource-prompt", "resource_prompt")


def test_everything_sdk_fields_are_judged_by_meaning() -> None:
    """Every 2026 tool writes `execution: {taskSupport: forbidden}`: that is the absent default."""
    findings = drift("everything-2025.11.25", "everything-2026.1.26")
    assert not [f for f in findings if f.rule == "schema-uncomparable" or "execution" in f.path]
    breaking = Counter(f.rule for f in findings if f.severity.value == "breaking")
    assert breaking == {
        "tool-renamed": 8,
        "prompt-renamed": 2,
        "tool-removed": 2,
        "prompt-removed": 1,
        "template-removed": 1,
        "resource-removed": 100,
        "in-enum-value-removed": 1,
        "prompt-arg-required-added": 1,
    }
    info = {f.path: (f.old, f.new) for f in findings if f.rule == "server-info-changed"}
    assert info["/serverInfo/version"] == ("1.0.0", "2.0.0")
    assert info["/serverInfo/name"] == ("example-servers/everything", "mcp-servers/everything")


def test_everything_report_groups_the_hundred_removed_resources(run_cli) -> None:  # type: ignore[no-untyped-def]
    old, new = HISTORY / "everything-2025.11.25.json", HISTORY / "everything-2026.1.26.json"
    text = run_cli("drift", old, new).stdout
    assert text.count("resource-removed") == 1
    assert "everything: resource test://static/resource/{n} (x100)" in text
    assert "diff: [-Prints -]{+Returns +}all environment variables" in text
    report = json.loads(run_cli("drift", old, new, "--format", "json").stdout)
    assert sum(f["rule"] == "resource-removed" for f in report["findings"]) == 100
    assert "None" not in text


def test_filesystem_media_results_that_gain_a_resource_branch_break_typed_callers() -> None:
    """2026.7.4 -> 2026.7.10: `read_media_file`'s content items became a union (image/audio, or an
    embedded resource), so the class callers named is gone and a result may hold what it never did;
    every tool now says `openWorldHint: false`, where its absence meant true."""
    findings = drift("filesystem-2026.7.4", "filesystem-2026.7.10")
    assert {(f.rule, f.severity.value) for f in findings if f.name == "read_media_file"} == {
        ("model-renamed", "breaking"),
        ("out-loosened", "breaking"),
        ("out-type-narrowed", "safe"),  # "blob" left the first branch's `type`: a value it no longer sends
        ("description-changed", "dangerous"),
        ("annotation-openworld-withdrawn", "dangerous"),
    }
    others = {f.name: {(f.rule, f.severity.value)} for f in findings if f.name != "read_media_file"}
    assert len(others) == 13
    assert set(map(frozenset, others.values())) == {frozenset({("annotation-openworld-withdrawn", "dangerous")})}
    renamed = next(f for f in findings if f.rule == "model-renamed")
    assert "ReadMediaFileOutputContentItem" in renamed.message


def test_filesystem_media_upgrade_fails_fail_on_breaking(run_cli) -> None:  # type: ignore[no-untyped-def]
    old, new = HISTORY / "filesystem-2026.7.4.json", HISTORY / "filesystem-2026.7.10.json"
    assert run_cli("drift", old, new).exit_code == 1
