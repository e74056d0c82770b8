"""The drift report as SARIF 2.1.0, for code scanning (GitHub's `upload-sarif`, IDE viewers).

Every rule is listed, with or without results, so an alert whose cause was fixed closes rather than
lingers. A result points at the line of the snapshot file where the changed entity is written
(computed from the canonical layout every snapshot file has), and with `--usage`, a breaking change
also gets a result at each call site that uses it.
"""

from __future__ import annotations

import hashlib
import json
import re
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from codegen import __version__
from codegen.drift.findings import RULES, CallSite, Finding, Severity
from codegen.drift.rule_help import RULE_HELP
from codegen.errors import EXIT_ERROR, one_line
from codegen.snapshot import Snapshot

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {Severity.BREAKING: "error", Severity.DANGEROUS: "warning", Severity.SAFE: "note"}
_LISTS = {
    "tool": ("tools", "name"),
    "resource": ("resources", "uri"),
    "template": ("resourceTemplates", "uriTemplate"),
    "prompt": ("prompts", "name"),
}
"""Each kind's list in the snapshot file, and the key that names an entry."""

_BRACKET = re.compile(r"(\\*)([\[\]])")


def _plain(text: str) -> str:
    """Text (which quotes server text: names, descriptions) as a SARIF plain-text message: one
    printable line (`one_line`), as every report shows server text, with each square bracket
    escaped, and the backslashes before one doubled, so no tool named `[click](https://…)` becomes
    a link in code scanning (SARIF 2.1.0, 3.11.6)."""
    return _BRACKET.sub(lambda match: match[1] * 2 + "\\" + match[2], one_line(text))


SnapshotFiles = Mapping[str, Sequence[tuple[str, Snapshot]]]
"""server -> the snapshot files its findings can point at (path as shown, contents), preferred first."""


def render_sarif(
    findings: Sequence[Finding],
    files: SnapshotFiles,
    severities: Mapping[str, Severity],
    ignore_list: tuple[str, int] | None = None,
    unchecked: Mapping[str, str] | None = None,
) -> str:
    """`ignore_list` is where the config's ignore list starts (file, line): an `ignore-unused` result
    points there. A server that could not be checked (`unchecked`, server -> why) makes the run's
    invocation unsuccessful, with the reason, so the report does not read as a clean run."""
    rule_ids = list(RULES)
    rules = [_rule(rule, severities.get(rule, RULES[rule])) for rule in rule_ids]
    located = _Locator(files, ignore_list)
    results: list[dict[str, Any]] = []
    for finding in findings:
        found = located.find(finding)
        where = _physical(*found) if found is not None else None
        level = "warning" if finding.unused and finding.severity is Severity.BREAKING else _LEVEL[finding.severity]
        text = f"{_entity(finding)}: {finding.message}" + (f" (at {finding.path})" if finding.path else "")
        if finding.unused:
            text += " (no scanned source uses it, so it does not fail the gate)"
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "ruleIndex": rule_ids.index(finding.rule),
            "level": level,
            "message": {"text": _plain(text)},
            "locations": [where] if where else [],
            "partialFingerprints": {"mcpStubgenFinding/v1": _fingerprint(finding)},
            "properties": {"severity": finding.severity.value, "server": finding.server, "kind": finding.kind},
        }
        callers = finding.callers or ()
        if callers:
            result["relatedLocations"] = [_call_site(site, index) for index, site in enumerate(callers, 1)]
        results.append(result)
        if finding.severity is Severity.BREAKING:
            for site in callers:
                results.append(
                    {
                        **result,
                        "message": {"text": _plain(f"uses {_entity(finding)}, which changed: {finding.message}")},
                        "locations": [_call_site(site)],
                        "relatedLocations": [where] if where else [],
                        "partialFingerprints": {"mcpStubgenFinding/v1": _fingerprint(finding, site)},
                    }
                )
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "mcp-stubgen", "version": __version__, "rules": rules}},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if unchecked:
        reasons = [f"server {server} not checked: {reason}" for server, reason in unchecked.items()]
        run["invocations"] = [_failed_invocation(reasons, EXIT_ERROR)]
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, sort_keys=True) + "\n"


def _failed_invocation(errors: Sequence[str], exit_code: int) -> dict[str, Any]:
    """An invocation that did not do all it was asked (SARIF 2.1.0, 3.20.14 and 3.20.21), each error a notification."""
    notifications = [{"level": "error", "message": {"text": _plain(error)}} for error in errors]
    return {"executionSuccessful": False, "exitCode": exit_code, "toolExecutionNotifications": notifications}


def render_sarif_failure(message: str, exit_code: int) -> str:
    """A run that could not start: no results and no rules (so no alert reads as fixed), and an
    unsuccessful invocation carrying the error (SARIF 2.1.0, 3.20.14 and 3.20.21)."""
    run = {
        "tool": {"driver": {"name": "mcp-stubgen", "version": __version__}},
        "invocations": [_failed_invocation([message], exit_code)],
        "results": [],
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, sort_keys=True) + "\n"


def _rule(rule: str, severity: Severity) -> dict[str, Any]:
    configured = "" if severity is RULES[rule] else f" (set in the project's config; the rule's own is {RULES[rule]})"
    return {
        "id": rule,
        "shortDescription": {"text": RULE_HELP[rule]},
        "fullDescription": {"text": f"{RULE_HELP[rule]} Severity: {severity}{configured}."},
        "help": {"text": f"{RULE_HELP[rule]} Severity: {severity}{configured}. See the drift rule table in the docs."},
        "defaultConfiguration": {"level": _LEVEL[severity]},
        "properties": {"severity": severity.value, "tags": ["mcp", "drift", severity.value]},
    }


def _entity(finding: Finding) -> str:
    return f"{finding.server}: {finding.kind} {finding.name}" if finding.kind != "server" else f"server {finding.name}"


def _fingerprint(finding: Finding, site: CallSite | None = None) -> str:
    """Stable across runs and line moves, so code scanning tracks one alert per change."""
    parts = [finding.rule, finding.server, finding.kind, finding.name, finding.path]
    if site is not None:
        parts.append(site.path)
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:32]


def _call_site(site: CallSite, index: int | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(site.path)},
            "region": {"startLine": site.line, "startColumn": site.column + 1},
        }
    }
    if index is not None:
        location["id"] = index
        location["message"] = {"text": "used here"}
    return location


class _Locator:
    """Lines of entities in snapshot files, each file's layout computed once."""

    def __init__(self, files: SnapshotFiles, ignore_list: tuple[str, int] | None) -> None:
        self._files = files
        self._ignore_list = ignore_list
        self._layouts: dict[int, tuple[dict[tuple[str, ...], int], dict[tuple[str, str], tuple[str, ...]]]] = {}

    def find(self, finding: Finding) -> tuple[str, int] | None:
        """The first of the server's files that holds the entity (under its new or old name), at the
        line of the deepest part of the finding's path written there; else the first file's top. An
        unused ignore entry is a line of the config."""
        if finding.rule == "ignore-unused" and self._ignore_list is not None:
            return self._ignore_list
        candidates = self._files.get(finding.server, ())
        for path, snapshot in candidates:
            lines, entities = self._layout_of(snapshot)
            for name in (finding.name, finding.old_name):
                key = () if finding.kind == "server" else entities.get((finding.kind, name or ""))
                if key is None:
                    continue
                for part in _segments(finding.path):
                    if (*key, part) not in lines:
                        break
                    key = (*key, part)
                return path, lines[key]
        return (candidates[0][0], 1) if candidates else None

    def _layout_of(
        self, snapshot: Snapshot
    ) -> tuple[dict[tuple[str, ...], int], dict[tuple[str, str], tuple[str, ...]]]:
        """Each value's line, and each entity's key ((kind, wire name) -> ("tools", "3"))."""
        if id(snapshot) not in self._layouts:
            document = snapshot.to_json()
            lines: dict[tuple[str, ...], int] = {}
            _layout(document, (), 1, lines)
            entities: dict[tuple[str, str], tuple[str, ...]] = {
                (kind, entry[field]): (key, str(index))
                for kind, (key, field) in _LISTS.items()
                for index, entry in enumerate(document[key])
            }
            self._layouts[id(snapshot)] = (lines, entities)
        return self._layouts[id(snapshot)]


def snapshot_lines(
    files: SnapshotFiles, ignore_list: tuple[str, int] | None = None
) -> Callable[[Finding], tuple[str, int] | None]:
    """Where each finding is written (file as shown, line), as its SARIF result points: GitHub
    annotations point there too, so they mark the snapshot's line in a pull request's diff."""
    return _Locator(files, ignore_list).find


def _physical(path: str, line: int) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": _uri(path)}, "region": {"startLine": line}}}


def _uri(path: str) -> str:
    """A `/`-separated file path as the URI reference SARIF requires (3.10.2): a space, a `#`, a `%`
    or a letter outside ASCII percent-encoded (UTF-8), so `snap shots/ü.json` is one valid reference
    that code scanning decodes back to the file."""
    return urllib.parse.quote(path, safe="/")


def _segments(pointer: str) -> list[str]:
    if not pointer:
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]


def _layout(value: Any, key: tuple[str, ...], line: int, lines: dict[tuple[str, ...], int]) -> int:
    """Record the line each value starts on in the canonical layout (`canonical_json_bytes`: sorted
    keys, two-space indent, one scalar per line), and return how many lines `value` takes."""
    lines[key] = line
    if isinstance(value, dict) and value:
        children: list[tuple[str, Any]] = sorted(value.items())
    elif isinstance(value, list | tuple) and value:
        children = [(str(index), item) for index, item in enumerate(value)]
    else:
        return 1
    taken = 1
    for name, child in children:
        taken += _layout(child, (*key, name), line + taken, lines)
    return taken + 1
