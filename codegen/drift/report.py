"""Render findings for people (text, Markdown) and machines (JSON, GitHub Actions annotations, SARIF, JUnit).

Descriptions under review may be hostile (that is the rug-pull this stage exists to catch), so every
reporter escapes control characters and markup instead of printing server text verbatim: each piece
of server text stays on one line in every format, and Markdown shows it only inside code spans,
where an `@mention` does not ping and a URL does not link.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

import click

from codegen import console
from codegen.drift.findings import RULES, Finding, Severity
from codegen.drift.junit import render_junit, render_junit_failure
from codegen.drift.sarif import SnapshotFiles, render_sarif, render_sarif_failure, snapshot_lines
from codegen.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, one_line

REPORT_FORMAT = 1
"""Version of the JSON report's shape; bumped only on an incompatible change."""

FORMATS = ("text", "json", "markdown", "github", "sarif", "junit")
_COLOURS = {Severity.BREAKING: "red", Severity.DANGEROUS: "yellow", Severity.SAFE: "green"}
_ANNOTATION = {Severity.BREAKING: "error", Severity.DANGEROUS: "warning", Severity.SAFE: "notice"}
_SHOWN = 160
"""Characters of an old or new value shown inline; the JSON report always has them whole."""
_TEXT_RULES = frozenset(
    {
        "description-changed",
        "prompt-description-changed",
        "instructions-changed",
        "schema-text-changed",
        "title-changed",
    }
)
"""Rules about text a model or a person reads: shown as a word-level diff, never cut short."""
_CONTEXT_WORDS = 6
"""Unchanged words kept on each side of a change in a diff; longer unchanged runs are elided."""
_REWRITTEN = 0.5
"""When fewer than this share of the shorter text's words survive, the text was rewritten: the diff
shows old and new whole rather than a confetti of one-word changes."""
GROUP_AT = 3
"""Findings alike but for a number in their names (`test://static/resource/1`...) are one line from this many."""
_EXAMPLES = 3
_DIGITS = re.compile(r"\d+")


def summary(findings: Sequence[Finding], ignored: int = 0) -> dict[str, int]:
    counts = {severity.value: 0 for severity in Severity}
    for finding in findings:
        counts[finding.severity.value] += 1
    return {**counts, "ignored": ignored}


def render(
    findings: Sequence[Finding],
    fmt: str,
    ignored: int = 0,
    unchecked: Mapping[str, str] | None = None,
    *,
    servers: Sequence[str] = (),
    files: SnapshotFiles | None = None,
    threshold: Severity | None = Severity.BREAKING,
    severities: Mapping[str, Severity] | None = None,
    ignore_list: tuple[str, int] | None = None,
) -> str:
    """The whole report as one string ending in a newline (empty for `github` with nothing to say).

    `unchecked` maps each server that could not be compared to why (each already reported as an
    error): no report then claims there is no drift; JSON, annotations and SARIF (an unsuccessful
    invocation) give the reasons. SARIF locates findings in `files` (an unused ignore entry at `ignore_list`, the
    config file and line where the ignore list starts) and describes every rule at its project
    severity (`severities`); JUnit has a suite per compared server (`servers`) and fails the
    findings at or above `threshold`.
    """
    unchecked = dict(sorted((unchecked or {}).items()))
    if fmt == "sarif":
        return render_sarif(findings, files or {}, severities or {}, ignore_list, unchecked)
    if fmt == "junit":
        return render_junit(findings, servers, list(unchecked), threshold)
    if fmt == "json":
        return render_json(findings, ignored, unchecked)
    if fmt == "markdown":
        return render_markdown(findings, ignored, unchecked)
    if fmt == "github":
        return render_github(findings, unchecked, files or {}, ignore_list)
    return render_text(findings, ignored, unchecked)


def render_failure(fmt: str, message: str, exit_code: int, *, file: bool = False) -> str:
    """What the report says when the whole run failed (bad config or input, a git ref git does not
    know, a usage error) or was interrupted, so a script parsing a machine format sees the failure
    rather than an empty stdout or no file: JSON is the object every command's `--format json`
    prints (`error`, or `interrupted`), SARIF an unsuccessful invocation, JUnit a case in error,
    `github` an `::error`. On stdout text and Markdown say nothing more than the line on stderr; a
    `--output` `file` has no stderr beside it, so there they say it themselves."""
    if fmt == "json":
        if exit_code in (EXIT_INTERRUPTED, EXIT_TERMINATED):
            return console.json_line("drift", None, "interrupted", exit_code=exit_code) + "\n"
        return console.json_line("drift", None, "error", error=message, exit_code=exit_code) + "\n"
    if fmt == "sarif":
        return render_sarif_failure(message, exit_code)
    if fmt == "junit":
        return render_junit_failure(message)
    if fmt == "github":
        return f"::error title={_gh_property('drift: not run')}::{_gh_data(message)}\n"
    if not file:
        return ""
    if fmt == "markdown":  # a comment or job summary: the reasons stay in the log, as an unchecked server's do
        stopped = "was interrupted" if exit_code in (EXIT_INTERRUPTED, EXIT_TERMINATED) else "could not run"
        return f"### MCP catalog drift {stopped} (exit {exit_code}); the errors are in the job's log\n"
    return f"drift: not run: {one_line(message)}\n"


def render_json(findings: Sequence[Finding], ignored: int = 0, unchecked: Mapping[str, str] | None = None) -> str:
    document = {
        "format": REPORT_FORMAT,
        "findings": [finding.to_json() for finding in findings],
        "summary": summary(findings, ignored),
        "unchecked": [{"server": server, "reason": reason} for server, reason in (unchecked or {}).items()],
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


def _unchecked_line(unchecked: Mapping[str, str]) -> str:
    return f"not checked (see the errors above): {', '.join(unchecked)}"


def render_text(findings: Sequence[Finding], ignored: int = 0, unchecked: Mapping[str, str] | None = None) -> str:
    """Grouped by severity, worst first; styled with ANSI codes that `click.echo` strips off a terminal."""
    unchecked = unchecked or {}
    lines: list[str] = []
    if not findings:
        # After a failure, "no drift" would read as a verdict on every server: only the counts are said.
        lines.append(
            f"{_summary_line(findings, ignored)} in the servers checked"
            if unchecked
            else f"no drift ({_summary_line(findings, ignored)})"
        )
    for severity in Severity:
        group = [finding for finding in findings if finding.severity is severity]
        if not group:
            continue
        lines.append(click.style(f"{severity.value} ({len(group)})", fg=_COLOURS[severity], bold=True))
        for item in _bulk(group):
            finding = item.first
            rule = click.style(finding.rule, fg=_COLOURS[severity])
            where = f" at {one_line(finding.path)}" if finding.path else ""
            lines.append(f"  {rule}  {one_line(item.entity)}{where}{_configured(finding)}")
            lines.append(f"      {one_line(item.message)}")
            usage = _usage(item)
            if usage:
                lines.append(f"      {one_line(usage)}")
            diff = _diff(finding)
            if diff is not None:
                styles = {"-": ("[-", "-]", "red"), "+": ("{+", "+}", "green")}
                shown = "".join(
                    one_line(text)
                    if op == "="
                    else click.style(styles[op][0] + one_line(text) + styles[op][1], fg=styles[op][2])
                    for op, text in diff
                )
                lines.append(f"      diff: {shown}")
            elif item.count == 1 and (isinstance(finding.old, str) or isinstance(finding.new, str)):
                lines.append(f"      old: {_shown(finding.old)}")
                lines.append(f"      new: {_shown(finding.new)}")
        lines.append("")
    if findings:
        lines.append(_summary_line(findings, ignored))
    if unchecked:
        lines.append(_unchecked_line(unchecked))
    return "\n".join(lines) + "\n"


def render_markdown(findings: Sequence[Finding], ignored: int = 0, unchecked: Mapping[str, str] | None = None) -> str:
    """A pull-request comment: a summary heading, then one table per severity; safe changes folded."""
    unchecked = unchecked or {}
    lines = [f"### MCP catalog drift: {_summary_line(findings, ignored)}", ""]
    if unchecked:
        names = ", ".join(_md_code(name) for name in unchecked)
        lines += [f"Not checked (the errors are in the job's log): {names}", ""]
    if not findings:
        if not unchecked:
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
        for item in _bulk(group):
            finding = item.first
            change = _md_code(item.message)
            diff = _diff(finding)
            if diff is not None:
                tags = {"=": ("", ""), "-": ("<del>", "</del>"), "+": ("<ins>", "</ins>")}
                change += "<br>" + "".join(tags[op][0] + _md_code(text) + tags[op][1] for op, text in diff)
            usage = _usage(item)
            if usage:
                change += "<br>" + _md_code(usage)
            cells = [
                _md_code(finding.rule) + _configured(finding),
                _md_code(item.entity),
                _md_code(finding.path) if finding.path else "",
                change,
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        if severity is Severity.SAFE:
            lines += ["</details>", ""]
    return "\n".join(lines)


def render_github(
    findings: Sequence[Finding],
    unchecked: Mapping[str, str] | None = None,
    files: SnapshotFiles | None = None,
    ignore_list: tuple[str, int] | None = None,
) -> str:
    """Workflow commands: breaking as `::error`, dangerous as `::warning`, safe as `::notice`, each at
    the snapshot line SARIF points at (`files`); with `--usage`, a breaking change nothing uses is a
    warning, and each use of one is an error at its line. A server that could not be checked is an
    `::error` with the reason, after the findings."""
    lines = []
    locate = snapshot_lines(files or {}, ignore_list)
    for item in _bulk(findings):
        finding = item.first
        title = _gh_property(f"{finding.rule}: {item.entity}")
        message = item.message + (f" (at {finding.path})" if finding.path else "")
        diff = _diff(finding)
        if diff is not None:
            marks = {"=": ("", ""), "-": ("[-", "-]"), "+": ("{+", "+}")}
            message += "; diff: " + "".join(marks[op][0] + text + marks[op][1] for op, text in diff)
        usage = _usage(item)
        if usage:
            message += f"; {usage}"
        level = _ANNOTATION[finding.severity]
        if finding.severity is Severity.BREAKING and all(each.unused for each in item.findings):
            level = "warning"
        found = locate(finding)
        at = f"file={_gh_property(found[0])},line={found[1]}," if found is not None else ""
        lines.append(f"::{level} {at}title={title}::{_gh_data(message)}")
        if finding.severity is Severity.BREAKING:
            for site in sorted({site for each in item.findings for site in each.callers or ()}):
                where = f"file={_gh_property(site.path)},line={site.line},col={site.column + 1}"
                lines.append(f"::error {where},title={title}::{_gh_data('uses a changed entity: ' + item.message)}")
    for server, reason in (unchecked or {}).items():
        lines.append(f"::error title={_gh_property(f'drift: server {server} not checked')}::{_gh_data(reason)}")
    return "".join(line + "\n" for line in lines)


def _configured(finding: Finding) -> str:
    """Marks a severity the project's config set, so a reader knows why a rule reads differently here."""
    if finding.configured is None or finding.configured is RULES[finding.rule]:
        return ""
    return f" (severity set in config; the rule's own is {RULES[finding.rule]})"


_SITES_SHOWN = 3


def _usage(item: _Bulk) -> str:
    """Where the scanned sources use the changed entities (`drift --usage`), or that nothing does."""
    if any(finding.callers is None for finding in item.findings):
        return ""
    sites = sorted({site for finding in item.findings for site in finding.callers or ()})
    if not sites:
        gate = "; not counted by --fail-on" if item.first.severity is Severity.BREAKING else ""
        return f"unused: no scanned source uses it{gate}"
    shown = ", ".join(f"{site.path}:{site.line}" for site in sites[:_SITES_SHOWN])
    more = f" and {len(sites) - _SITES_SHOWN} more" if len(sites) > _SITES_SHOWN else ""
    return f"used at {shown}{more}"


@dataclass(frozen=True)
class _Bulk:
    """Findings alike but for a number in their names, shown as one line; a lone finding is a bulk of one."""

    findings: tuple[Finding, ...]
    pattern: str

    @property
    def first(self) -> Finding:
        return self.findings[0]

    @property
    def count(self) -> int:
        return len(self.findings)

    @property
    def entity(self) -> str:
        if self.count == 1:
            return _entity(self.first)
        server = f"{self.first.server}: " if self.first.server and self.first.kind != "server" else ""
        return f"{server}{self.first.kind} {self.pattern} (x{self.count})"

    @property
    def message(self) -> str:
        if self.count == 1:
            return self.first.message
        names = sorted((finding.name for finding in self.findings), key=_natural)
        shown = ", ".join(names[:_EXAMPLES]) + (", ..." if len(names) > _EXAMPLES else "")
        return f"{self.count} alike, e.g. {shown}; the first: {self.first.message} (every one in --format json)"


def _bulk(findings: Sequence[Finding]) -> Iterator[_Bulk]:
    """Group findings of one rule, server, kind and path whose names differ only in their numbers."""
    groups: dict[tuple[str, str, str, str, str], list[Finding]] = {}
    for finding in findings:
        pattern = _DIGITS.sub("{n}", finding.name)
        groups.setdefault((finding.rule, finding.server, finding.kind, finding.path, pattern), []).append(finding)
    shown: set[tuple[str, str, str, str, str]] = set()
    for finding in findings:
        key = (finding.rule, finding.server, finding.kind, finding.path, _DIGITS.sub("{n}", finding.name))
        group = groups[key]
        if len(group) < GROUP_AT or finding.name == key[4]:
            yield _Bulk((finding,), finding.name)
        elif key not in shown:
            shown.add(key)
            yield _Bulk(tuple(sorted(group, key=lambda item: _natural(item.name))), key[4])


def _natural(name: str) -> tuple[tuple[int, str], ...]:
    """Sort key that puts `resource/2` before `resource/10`."""
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"(\d+)", name))


def _diff(finding: Finding) -> list[tuple[str, str]] | None:
    """A word-level diff of a changed text as (op, text) runs, op `=`, `-` or `+`; None when the finding
    is not about text or the text was added or removed whole. Long unchanged runs are elided so an
    appended sentence shows however long the description is."""
    if finding.rule not in _TEXT_RULES or not isinstance(finding.old, str) or not isinstance(finding.new, str):
        return None
    old, new = _words(finding.old), _words(finding.new)
    matcher = SequenceMatcher(None, [w.strip() for w in old], [w.strip() for w in new], autojunk=False)
    kept = sum(block.size for block in matcher.get_matching_blocks())
    if kept < _REWRITTEN * min(len(old), len(new)):
        return [("-", finding.old), ("+", finding.new)]
    runs: list[tuple[str, str]] = []
    opcodes = matcher.get_opcodes()
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":  # the new text's spacing, so an appended word is not glued to the last one
            runs.append(("=", _elide(new[j1:j2], first=index == 0, last=index == len(opcodes) - 1)))
            continue
        if i2 > i1:
            runs.append(("-", "".join(old[i1:i2])))
        if j2 > j1:
            runs.append(("+", "".join(new[j1:j2])))
    return runs


def _words(text: str) -> list[str]:
    """Words with the space after each (compared without it), so a diff aligns on words, not spaces."""
    return re.findall(r"^\s+|\S+\s*", text)


def _elide(tokens: list[str], *, first: bool, last: bool) -> str:
    """Unchanged words around a change: a few beside it, the rest as `...`."""
    keep = _CONTEXT_WORDS
    if len(tokens) <= keep * (1 if first or last else 2):
        return "".join(tokens)
    head = "" if first else "".join(tokens[:keep])
    tail = "" if last else "".join(tokens[-keep:])
    return head + "..." + (" " + tail if tail else "")


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
