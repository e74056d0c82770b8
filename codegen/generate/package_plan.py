"""Every name in a package, planned before anything is generated: the catalog's checks, then a clean,
unique Python name for each tool, resource, template and prompt (`codegen.identifiers`) and each
tool's models-module stem."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from codegen.errors import StubgenError
from codegen.generate.guard import check_text
from codegen.generate.headers import header_lines
from codegen.identifiers import NAMING_RULES, Named, model_stems, plan_names
from codegen.snapshot import JSON, Snapshot

__all__ = ["PackagePlan", "ToolPlan", "content_digest", "header", "plan_package"]


def header(snapshot: Snapshot) -> str:
    """The fixed first lines of every rendered file: generator version and snapshot fingerprint, nothing variable."""
    return header_lines(f"snapshot {snapshot.fingerprint}")


@dataclass(frozen=True)
class ToolPlan:
    """One tool's names, known without generating anything."""

    tool: JSON
    named: Named
    stem: str
    fingerprint: str
    content: str
    """A hash of the tool's `compact_json` (`Snapshot.compact_tools`), for its cache keys: hashing a
    thousand tools' text once is cheaper than writing it into two keys each."""
    size: int
    """The length of the tool's `compact_json`: about how much work making its models is."""
    start_method: str | None = None
    """The name of the method starting the tool as a task, for a tool that may run as one."""
    keywords: Mapping[str, str] = field(default_factory=dict)
    """The committed package's keywords for the tool's arguments (the snapshot's `argumentNames`),
    which stay with their arguments."""
    naming_rules: int = NAMING_RULES
    """The snapshot's naming rules, which name the tool's other keywords."""


@dataclass(frozen=True)
class PackagePlan:
    """Every name in the package, known without generating anything."""

    snapshot: Snapshot
    tools: tuple[ToolPlan, ...]
    resource_names: tuple[Named, ...]
    template_names: tuple[Named, ...]
    prompt_names: tuple[Named, ...]


def plan_package(snapshot: Snapshot, method_names: Mapping[str, str] | None = None) -> PackagePlan:
    """Names for every tool, resource, template and prompt, after the catalog checks.

    (Each tool's schemas are checked where its models are built, `_build_tools`.)
    """
    where = f"server {snapshot.server!r}: "
    tools = snapshot.tools
    for tool in tools:
        check_tool(where, tool)
    check_text(snapshot)

    names = plan_names(snapshot, method_names)
    tool_names = names.tools
    start_methods = {named.wire: named.python for named in names.starters}
    stems = model_stems([named.python for named in tool_names], snapshot.naming_rules)
    fingerprints = snapshot.tool_fingerprints
    keywords = snapshot.argument_names.get("tools", {})
    plans = [
        ToolPlan(
            tool,
            named,
            stem,
            fingerprints[tool["name"]],
            content_digest(compact),
            len(compact),
            start_methods.get(named.wire),
            keywords.get(named.wire, {}),
            snapshot.naming_rules,
        )
        for tool, named, stem, compact in zip(tools, tool_names, stems, snapshot.compact_tools, strict=True)
    ]
    return PackagePlan(
        snapshot=snapshot,
        tools=tuple(plans),
        resource_names=names.resources,
        template_names=names.templates,
        prompt_names=names.prompts,
    )


def content_digest(text: str) -> str:
    """`ToolPlan.content` of a tool's `compact_json`."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_tool(where: str, tool: JSON) -> None:
    """Reject a schema that is not a JSON object: the MCP SDK refuses such a listing, so no server sent
    it and the snapshot was edited. (What is wrong inside one costs its tool its types: `guard`.)"""
    for key in ("inputSchema", "outputSchema"):
        if key in tool and not isinstance(tool[key], dict):
            raise StubgenError(f"{where}tool {tool['name']!r}: /{key}: must be a JSON Schema object")
