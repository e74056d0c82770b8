"""The rule catalog and the finding value every comparison produces.

Rule IDs and severities are those of `DRIFT-RULES.md`; they are a public contract (ignore lists and
CI scripts name them), so they live in one table that the tests hold against the catalog.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal


class Severity(StrEnum):
    BREAKING = "breaking"
    DANGEROUS = "dangerous"
    SAFE = "safe"

    @property
    def rank(self) -> int:
        """Higher is worse; `--fail-on` compares ranks."""
        return {Severity.BREAKING: 2, Severity.DANGEROUS: 1, Severity.SAFE: 0}[self]


Kind = Literal["tool", "resource", "template", "prompt", "server"]
KINDS: tuple[Kind, ...] = ("server", "tool", "resource", "template", "prompt")

B, D, S = Severity.BREAKING, Severity.DANGEROUS, Severity.SAFE

CATALOG: dict[str, Severity] = {
    "tool-removed": B,
    "tool-renamed": B,
    "tool-added": S,
    "in-required-added": B,
    "in-became-required": B,
    "in-property-removed": B,
    "in-type-narrowed": B,
    "in-enum-value-removed": B,
    "in-bound-tightened": B,
    "in-bound-added": D,
    "in-pattern-added": B,
    "in-pattern-changed": D,
    "in-became-not-nullable": B,
    "in-closed": D,
    "in-union-narrowed": B,
    "in-default-changed": D,
    "in-optional-added": S,
    "in-became-optional": S,
    "in-type-widened": S,
    "in-enum-value-added": S,
    "in-bound-relaxed": S,
    "in-became-nullable": S,
    "out-schema-removed": B,
    "out-property-removed": B,
    "out-became-optional": B,
    "out-type-widened": B,
    "out-became-nullable": B,
    "out-enum-value-added": D,
    "out-loosened": B,
    "out-schema-added": D,
    "out-property-added": S,
    "out-became-required": S,
    "out-type-narrowed": S,
    "schema-uncomparable": B,
    "description-changed": D,
    "schema-text-changed": D,
    "instructions-changed": D,
    "annotation-readonly-withdrawn": D,
    "annotation-destructive-added": D,
    "annotation-idempotent-withdrawn": D,
    "annotation-openworld-added": D,
    "title-changed": S,
    "resource-removed": B,
    "resource-mimetype-changed": B,
    "template-removed": B,
    "template-variables-changed": B,
    "prompt-removed": B,
    "prompt-arg-required-added": B,
    "prompt-arg-became-required": B,
    "prompt-arg-removed": B,
    "prompt-description-changed": D,
    "capability-removed": B,
    "capability-listchanged-removed": D,
    "protocol-version-changed": D,
}
"""The rules of the first catalog (DRIFT-RULES.md), with the severities that replaying real release
history corrected: closing an input (`in-closed`) cannot break a client that sends only declared
properties, and a new output schema (`out-schema-added`) changes a regenerated method's return type.
The rule table in docs/drift.md is the authority, and a test holds it against `RULES`."""

EXTENSIONS: dict[str, Severity] = {
    "prompt-renamed": B,
    "resource-renamed": B,
    "resource-added": S,
    "template-added": S,
    "prompt-added": S,
    "ignore-unused": D,
    "annotation-readonly-claimed": D,
    "annotation-destructive-withdrawn": D,
    "annotation-idempotent-claimed": D,
    "annotation-openworld-withdrawn": D,
    "task-support-widened": S,
    "task-support-narrowed": B,
    "server-info-changed": S,
    "in-bound-impossible": B,
    "list-method-appeared": S,
    "client-capabilities-changed": D,
    "capability-extension-removed": D,
    "capability-extension-added": S,
    "capability-extension-changed": D,
    "method-retargeted": B,
    "argument-retargeted": B,
    "tool-added-destructive": D,
    "tool-added-open-world": D,
    "text-model-instruction": D,
    "text-credential-request": D,
    "text-invisible-character": D,
    "text-system-markup": D,
    "ui-visible-to-model": D,
    "ui-visibility-changed": S,
    "ui-resource-changed": D,
    "ui-csp-widened": D,
    "ui-permissions-widened": D,
    "in-header-added": D,
    "in-header-removed": D,
    "in-header-changed": D,
    "out-return-changed": B,
    "model-renamed": B,
    "model-field-respelled": B,
    "model-value-boxed": B,
    "in-typing-changed": B,
    "out-typing-changed": B,
}
"""Rules the catalog has no row for: renames of prompts and resources are reported once like
`tool-renamed`, additions of every kind like `tool-added`, and an ignore entry that matches nothing is
reported so ignores do not rot; annotation hints moving toward more trust, `execution.taskSupport`
judged by meaning, `serverInfo` changes, input bounds that leave almost nothing valid, a list
method the old snapshot recorded as missing (-32601) that the server now implements, a change
of the client capabilities the snapshot was taken declaring (the catalog may differ by them), each
`extensions` identifier the server withdraws, offers or resets (no generated client declares one), a
generated method name that would call another entity, new tools whose hints let them destroy data or
reach an open world, catalog text that reads like a prompt injection (`codegen.runtime._audit`),
MCP Apps' `_meta.ui` (who sees a tool, which UI it renders, what that UI may reach), and an
argument's `x-mcp-header` annotation (SEP-2243) added, removed or renamed; and what a regenerated
package's callers see that the schemas' meaning does not show: a method that returns a tool's
wrapped `result` value or its whole model, model classes named after `$defs` keys, and a method
whose arguments or result lose their types (or gain them back) with a schema no type is made from."""

RULES: dict[str, Severity] = {**CATALOG, **EXTENSIONS}


@dataclass(frozen=True, order=True)
class CallSite:
    """A place in the project's own sources that uses a generated method (`drift --usage`)."""

    path: str
    """As reports name files (`gitref.report_path`): relative to the git work tree, `/`-separated."""
    line: int
    column: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line}


@dataclass(frozen=True)
class Finding:
    """One classified change. `path` is a JSON pointer into the entity's wire JSON with `$ref`s
    resolved (`/inputSchema/properties/city`), or "" when the whole entity is meant."""

    rule: str
    kind: Kind
    name: str
    message: str
    path: str = ""
    old: Any = None
    new: Any = None
    old_name: str | None = None
    server: str = ""
    similarity: float | None = None
    """For renames found by shape: how alike old and new are (1.0 equal); None otherwise."""
    configured: Severity | None = None
    """The severity `[tool.mcp-stubgen.drift.severity]` gives this rule, when it gives one."""
    callers: tuple[CallSite, ...] | None = None
    """With `drift --usage`: where the scanned sources use this entity, empty when nowhere; None when
    the sources were not scanned or the finding is not about something a client calls."""

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"unknown drift rule {self.rule!r}")

    @property
    def severity(self) -> Severity:
        return self.configured or RULES[self.rule]

    @property
    def unused(self) -> bool:
        """Scanned for and used nowhere: a breaking change here breaks no caller of this project."""
        return self.callers == ()

    def sort_key(self) -> tuple[int, str, int, str, str, str, str, str]:
        return (
            -self.severity.rank,
            self.server,
            KINDS.index(self.kind),
            self.name,
            self.path,
            self.rule,
            _canonical(self.old),
            _canonical(self.new),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "rule_severity": RULES[self.rule].value,
            "server": self.server,
            "kind": self.kind,
            "name": self.name,
            "old_name": self.old_name,
            "similarity": self.similarity,
            "path": self.path,
            "old": self.old,
            "new": self.new,
            "message": self.message,
            "callers": None if self.callers is None else [site.to_json() for site in self.callers],
        }


def fails_gate(finding: Finding, threshold: Severity | None) -> bool:
    """Whether a finding fails a `--fail-on` gate at `threshold` (None: the gate never fails). A breaking
    change to something no scanned source uses (`drift --usage`) breaks no caller of the project."""
    if threshold is None or finding.severity.rank < threshold.rank:
        return False
    return not (finding.unused and finding.severity is Severity.BREAKING)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def sort_findings(findings: list[Finding]) -> list[Finding]:
    """Worst first, then by server, kind, name and location: the same input always reads the same."""
    return sorted(findings, key=Finding.sort_key)


def pointer(*parts: str | int) -> str:
    """A JSON pointer (RFC 6901) from raw path segments."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)
