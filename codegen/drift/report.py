"""Render findings for people (text, Markdown) and machines (JSON, GitHub Actions annotations).

Descriptions under review may be hostile (that is the rug-pull this stage exists to catch), so every
reporter escapes control characters and markup instead of printing server text verbatim: each piece
of server text stays on one line in every format, and Markdown shows it only inside code spans,
where an `@mention` does not ping and a URL does not link.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import click

from codegen.drift.findings import Finding, Severity
from codegen.errors import one_line

REPORT_FORMAT = 1
"""Version of the JSON report's shape; bumped only on an incompatible change."""

FORMATS = ("text", "json", "markdown", "github")
_COLOURS = {Severity.BREAKING: "red", Severity.DANGEROUS: "yellow", Severity.SAFE: "green"}
_ANNOTATION = {Severity.BREAKING: "error", Severity.DANGEROUS: "warning", Severity.SAFE: "notice"}
_SHOWN = 160
"""Characters of an old or new value shown inline; the JSON report always has them whole."""


def summary(findings: Sequence[Finding], ignored: int = 0) -> dict[str, int]:
    counts = {severity.value: 0 for severity in Severity}
    for finding in findings:
        counts[finding.severity.value] += 1
    return {**counts, "ignored": ignored}


def render(findings: Sequence[Finding], fmt: str, ignored: int = 0) -> str:
    """The whole report as one string ending in a newline (empty for `github` with no findings)."""
    if fmt == "json":
        return render_json(findings, ignored)
    if fmt == "markdown":
        return render_markdown(findings, ignored)
    if fmt == "github":
        return render_github(findings)
    return render_text(findings, ignored)


def render_json(findings: Sequence[Finding], ignored: int = 0) -> str:
    document = {
        "format": REPORT_FORMAT,
        "findings": [finding.to_json() for finding in findings],
        "summary": summary(findings, ignored),
    }
    # ASCII only: a terminal escape, a bidi control or U+2028 in a value stays a JSON escape
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def _summary_line(findings: Sequence[Finding], ignored: int) -> str:
    counts = summary(findings, ignored)
    line = f"{counts['breaking']} breaking, {counts['dangerous']} dangerous, {counts['safe']} safe"
    return line + (f" ({ignored} ignored)" if ignored else "")


def _entity(finding: Finding) -> str:
    server = f"{finding.server}: " if finding.server and finding.kind != "server" else ""
    return f"{server}{finding.kind} {finding.name}"


def render_text(findings: Sequence[Finding], ignored: int = 0) -> str:
    """Grouped by severity, worst first; styled with ANSI codes that `click.echo` strips off a terminal."""
    if not findings:
        return f"no drift ({_summary_line(findings, ignored)})\n"
    lines: list[str] = []
    for severity in Severity:
        group = [finding for finding in findings if finding.severity is severity]
        if not group:
            continue
        lines.append(click.style(f"{severity.value} ({len(group)})", fg=_COLOURS[severity], bold=True))
        for finding in group:
            rule = click.style(finding.rule, fg=_COLOURS[severity])
            where = f" at {one_line(finding.path)}" if finding.path else ""
            lines.append(f"  {rule}  {one_line(_entity(finding))}{where}")
            lines.append(f"      {one_line(finding.message)}")
            if isinstance(finding.old, str) or isinstance(finding.new, str):
                lines.append(f"      old: {_shown(finding.old)}")
                lines.append(f"      new: {_shown(finding.new)}")
        lines.append("")
    lines.append(_summary_line(findings, ignored))
    return "\n".join(lines) + "\n"


def render_markdown(findings: Sequence[Finding], ignored: int = 0) -> str:
    """A pull-request comment: a summary heading, then one table per severity; safe changes folded."""
    lines = [f"### MCP catalog drift: {_summary_line(findings, ignored)}", ""]
    if not findings:
        lines.append("No changes to the committed catalogs.")
        return "\n".join(lines) + "\n"
    for severity in Severity:
        group = [finding for finding in findings if finding.severity is severity]
        if not group:
            continue
        title = f"{severity.value.capitalize()} ({len(group)})"
        if severity is Severity.SAFE:
            lines += [f"<details><summary>{title}</summary>", ""]
        else:
            lines += [f"#### {title}", ""]
        lines += ["| rule | entity | where | change |", "|---|---|---|---|"]
        for finding in group:
            cells = [
                _md_code(finding.rule),
                _md_code(_entity(finding)),
                _md_code(finding.path) if finding.path else "",
                _md_code(finding.message),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        if severity is Severity.SAFE:
            lines += ["</details>", ""]
    return "\n".join(lines)


def render_github(findings: Sequence[Finding]) -> str:
    """Workflow commands: breaking as `::error`, dangerous as `::warning`, safe as `::notice`."""
    lines = []
    for finding in findings:
        title = _gh_property(f"{finding.rule}: {_entity(finding)}")
        message = finding.message + (f" (at {finding.path})" if finding.path else "")
        lines.append(f"::{_ANNOTATION[finding.severity]} title={title}::{_gh_data(message)}")
    return "".join(line + "\n" for line in lines)


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = one_line(text)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _md_code(text: str) -> str:
    """A code span that no backtick in `text` can close early: markup, mentions and links in it are
    shown as typed. `|` is escaped for the table it sits in."""
    cleaned = one_line(text).replace("|", "\\|")
    if not cleaned:
        return ""
    fence = "`" * (max((len(run) for run in re.findall("`+", cleaned)), default=0) + 1)
    padding = " " if "`" in cleaned or cleaned.startswith(" ") else ""
    return f"{fence}{padding}{cleaned}{padding}{fence}"


def _gh_data(text: str) -> str:
    """Workflow command data: one line (so no second command can start), `%` encoded."""
    return one_line(text).replace("%", "%25")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")
