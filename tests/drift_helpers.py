"""Builders for drift tests: small wire-shaped snapshots written the way servers write them."""

from __future__ import annotations

from typing import Any

from codegen.drift import compare_snapshots
from codegen.drift.findings import Finding
from codegen.snapshot import Snapshot

CAPS: dict[str, Any] = {"tools": {"listChanged": True}, "resources": {"subscribe": True}, "prompts": {}}


def tool(
    name: str = "t", inp: dict[str, Any] | None = None, out: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "inputSchema": inp if inp is not None else {"type": "object"}, **extra}
    if out is not None:
        entry["outputSchema"] = out
    return entry


def obj(properties: dict[str, Any] | None = None, required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}, **extra}
    if required:
        schema["required"] = list(required)
    return schema


def snap(
    tools: tuple[dict[str, Any], ...] = (),
    resources: tuple[dict[str, Any], ...] = (),
    templates: tuple[dict[str, Any], ...] = (),
    prompts: tuple[dict[str, Any], ...] = (),
    capabilities: dict[str, Any] | None = None,
    instructions: str | None = None,
    protocol: str = "2025-11-25",
    server_info: dict[str, Any] | None = None,
    missing: tuple[str, ...] = (),
    client_capabilities: tuple[str, ...] = (),
) -> Snapshot:
    return Snapshot(
        server="demo",
        protocol_version=protocol,
        capabilities=CAPS if capabilities is None else capabilities,
        server_info=server_info,
        instructions=instructions,
        tools=tools,
        resources=resources,
        resource_templates=templates,
        prompts=prompts,
        missing_methods=missing,
        client_capabilities=client_capabilities,
    )


def inputs(before: dict[str, Any], after: dict[str, Any]) -> tuple[Snapshot, Snapshot]:
    """One tool whose argument `x` changes from `before` to `after`."""
    return snap((tool(inp=obj({"x": before})),)), snap((tool(inp=obj({"x": after})),))


def outputs(before: dict[str, Any], after: dict[str, Any]) -> tuple[Snapshot, Snapshot]:
    """One tool whose result field `x` (required) changes from `before` to `after`."""
    return (
        snap((tool(out=obj({"x": before}, ("x",))),)),
        snap((tool(out=obj({"x": after}, ("x",))),)),
    )


def rules(pair: tuple[Snapshot, Snapshot], renames: dict[str, str] | None = None) -> list[str]:
    return [finding.rule for finding in compare_snapshots(*pair, renames)]


def findings(pair: tuple[Snapshot, Snapshot]) -> list[Finding]:
    return compare_snapshots(*pair)
