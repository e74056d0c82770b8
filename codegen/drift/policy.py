"""The drift sections of `[tool.mcp-stubgen]`: reviewed renames, the ignore list and per-rule severities.

An ignore is a decision someone made about one finding, so each entry names a rule and an entity (or,
for a server whose own nondeterminism trips a rule everywhere, the whole server) and must say why; an
entry that no longer matches anything is reported (`ignore-unused`) so the list shrinks when the
reason goes away instead of silently hiding the next change.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from codegen.config import stated_renames
from codegen.drift.findings import RULES, Finding, Severity
from codegen.errors import StubgenError

_IGNORE_KEYS = frozenset({"rule", "name", "server", "reason"})


@dataclass(frozen=True)
class Ignore:
    rule: str
    name: str | None
    """None: every entity of `server` (a server whose own nondeterminism trips the rule on every tool)."""
    reason: str
    server: str | None = None

    def matches(self, finding: Finding) -> bool:
        return (
            finding.rule == self.rule
            and (self.name is None or self.name in (finding.name, finding.old_name))
            and (self.server is None or self.server == finding.server)
        )

    def describe(self) -> str:
        return f"on {self.name!r}" if self.name is not None else f"across server {self.server!r}"


@dataclass(frozen=True)
class DriftPolicy:
    renames: Mapping[str, Mapping[str, str]]
    """server -> {old name: new name}"""
    ignores: tuple[Ignore, ...] = ()
    severities: Mapping[str, Severity] = dataclasses.field(default_factory=dict)
    """rule -> the severity this project gives it (`[tool.mcp-stubgen.drift.severity]`)."""

    def renames_for(self, server: str) -> Mapping[str, str]:
        return self.renames.get(server, {})


def parse_policy(settings: Mapping[str, Any], where: str = "config") -> DriftPolicy:
    """Read `renames`, `drift.ignore` and `drift.severity` from the raw `[tool.mcp-stubgen]` table."""
    renames = stated_renames(settings, where)
    drift = settings.get("drift", {})
    if not isinstance(drift, dict):
        raise StubgenError(f"{where}: [tool.mcp-stubgen.drift] must be a table")
    unknown = sorted(set(drift) - {"ignore", "severity"})
    if unknown:
        raise StubgenError(
            f"{where}: [tool.mcp-stubgen.drift] has unknown key {unknown[0]!r}{_closest(unknown[0], ('ignore', 'severity'))}"
        )
    raw_ignores = drift.get("ignore", [])
    if not isinstance(raw_ignores, list):
        raise StubgenError(f"{where}: drift.ignore must be an array of tables ([[tool.mcp-stubgen.drift.ignore]])")
    return DriftPolicy(
        renames,
        tuple(_parse_ignore(raw, f"{where}: drift.ignore[{i}]") for i, raw in enumerate(raw_ignores)),
        _parse_severities(drift.get("severity", {}), f"{where}: [tool.mcp-stubgen.drift.severity]"),
    )


def _closest(word: str, known: Iterable[str]) -> str:
    """`; did you mean 'x'?` when a known word is close to `word`, else the list of known words."""
    choices = sorted(known)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(choices)})"


def _parse_severities(raw: Any, where: str) -> dict[str, Severity]:
    """`rule = "breaking"` lines: how seriously this project takes a rule, applied before `--fail-on`."""
    if not isinstance(raw, dict):
        raise StubgenError(f'{where} must be a table of rule = severity, e.g. in-bound-added = "breaking"')
    levels = [severity.value for severity in Severity]
    severities = {}
    for rule, value in raw.items():
        if rule not in RULES:
            raise StubgenError(f"{where}: unknown rule {rule!r}{_closest(rule, RULES)}")
        if value not in levels:
            shown = value if isinstance(value, str) else str(value)
            close = _closest(shown, levels) if isinstance(value, str) else f" (known: {', '.join(levels)})"
            raise StubgenError(f"{where}: {rule} = {value!r} is not a severity{close}")
        severities[rule] = Severity(value)
    return severities


def apply_severities(findings: Iterable[Finding], severities: Mapping[str, Severity]) -> list[Finding]:
    """Each finding at the severity the project gives its rule (the rule's own when it gives none)."""
    return [
        dataclasses.replace(finding, configured=severities[finding.rule]) if finding.rule in severities else finding
        for finding in findings
    ]


def _parse_ignore(raw: Any, where: str) -> Ignore:
    if not isinstance(raw, dict):
        raise StubgenError(f"{where}: must be a table with rule, name (or server) and reason")
    unknown = sorted(set(raw) - _IGNORE_KEYS)
    if unknown:
        raise StubgenError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_IGNORE_KEYS))})")
    for key in ("rule", "reason"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise StubgenError(f"{where}: `{key}` is required and must be a non-empty string")
    if raw["rule"] not in RULES or raw["rule"] == "ignore-unused":
        raise StubgenError(f"{where}: unknown rule {raw['rule']!r}; see the rule table in docs/drift.md")
    server, name = raw.get("server"), raw.get("name")
    if server is not None and (not isinstance(server, str) or not server.strip()):
        raise StubgenError(f"{where}: `server` must be a non-empty string")
    if name is None and server is None:
        raise StubgenError(
            f"{where}: give `name` (one entity), or `server` alone to ignore the rule across that server"
        )
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise StubgenError(f"{where}: `name` must be a non-empty string")
    return Ignore(raw["rule"], name, raw["reason"], server)


@dataclass(frozen=True)
class Filtered:
    kept: list[Finding]
    ignored: list[Finding]


def apply_ignores(findings: Iterable[Finding], ignores: Iterable[Ignore], servers: Iterable[str]) -> Filtered:
    """Drop ignored findings; add an `ignore-unused` finding for each entry that matched nothing among
    the compared `servers` (an entry for a server not compared this run cannot be judged)."""
    entries = list(ignores)
    used: set[int] = set()
    kept: list[Finding] = []
    ignored: list[Finding] = []
    for finding in findings:
        matched = [index for index, entry in enumerate(entries) if entry.matches(finding)]
        used.update(matched)
        (ignored if matched else kept).append(finding)
    compared = set(servers)
    for index, entry in enumerate(entries):
        if index in used or (entry.server is not None and entry.server not in compared):
            continue
        message = (
            f"ignore entry for {entry.rule} {entry.describe()} matched nothing; remove it (reason was: {entry.reason})"
        )
        kept.append(
            Finding(
                "ignore-unused",
                "server",
                entry.server or ",".join(sorted(compared)),
                " ".join(message.split()),
                "",
                {"rule": entry.rule, "name": entry.name, "reason": entry.reason, "server": entry.server},
                None,
                server=entry.server or "",
            )
        )
    return Filtered(kept, ignored)
