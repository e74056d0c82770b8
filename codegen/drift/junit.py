"""The drift report as JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure).

One test suite per server, one test case per finding: a finding that fails the gate (`--fail-on`,
less breaking changes nothing uses under `--usage`) is a failure, the others pass with their message
as output; a server with no finding is one passing case, and a server that could not be checked is an error.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Sequence

from codegen.drift.findings import Finding, Severity, fails_gate
from codegen.errors import one_line


def render_junit(
    findings: Sequence[Finding], servers: Sequence[str], unchecked: Sequence[str], threshold: Severity | None
) -> str:
    suites = ElementTree.Element("testsuites", name="mcp-stubgen drift")
    by_server: dict[str, list[Finding]] = {server: [] for server in servers}
    for finding in findings:
        by_server.setdefault(finding.server or "config", []).append(finding)
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for server in sorted(by_server):
        suite = ElementTree.SubElement(suites, "testsuite", name=f"drift: {one_line(server)}")
        cases = by_server[server]
        failures = 0
        named: Counter[str] = Counter()
        for finding in cases:
            case = ElementTree.SubElement(
                suite, "testcase", classname=one_line(server), name=_case_name(finding, named)
            )
            detail = f"{finding.severity}: {finding.message}" + (f" (at {finding.path})" if finding.path else "")
            if finding.unused:
                detail += " (no scanned source uses it)"
            if fails_gate(finding, threshold):
                failures += 1
                failure = ElementTree.SubElement(
                    case, "failure", type=finding.rule, message=one_line(f"{finding.severity}: {finding.message}")
                )
                failure.text = one_line(detail)
            else:
                ElementTree.SubElement(case, "system-out").text = one_line(detail)
        if not cases:
            ElementTree.SubElement(suite, "testcase", classname=one_line(server), name="no drift")
        tests = max(len(cases), 1)
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        totals["tests"] += tests
        totals["failures"] += failures
    if unchecked:
        suite = ElementTree.SubElement(suites, "testsuite", name="drift: not checked")
        for server in unchecked:
            case = ElementTree.SubElement(suite, "testcase", classname=one_line(server), name="checked")
            ElementTree.SubElement(case, "error", message="could not be checked; see the errors in the log")
        suite.set("tests", str(len(unchecked)))
        suite.set("failures", "0")
        suite.set("errors", str(len(unchecked)))
        totals["tests"] += len(unchecked)
        totals["errors"] += len(unchecked)
    for key, value in totals.items():
        suites.set(key, str(value))
    return _xml(suites)


def _case_name(finding: Finding, named: Counter[str]) -> str:
    """Rule, entity and JSON pointer, numbered from the second finding that has all three alike (two
    union branches added at one place): CI report views key a case by its name and merge namesakes."""
    entity = f"{finding.kind} {finding.name}" if finding.kind != "server" else "server"
    name = one_line(f"{finding.rule}: {entity}" + (f" at {finding.path}" if finding.path else ""))
    named[name] += 1
    return name if named[name] == 1 else f"{name} ({named[name]})"


def render_junit_failure(message: str) -> str:
    """A run that could not start: one case in error, with the error as its message."""
    counts = {"tests": "1", "failures": "0", "errors": "1"}
    suites = ElementTree.Element("testsuites", {"name": "mcp-stubgen drift", **counts})
    suite = ElementTree.SubElement(suites, "testsuite", {"name": "drift: not run", **counts})
    case = ElementTree.SubElement(suite, "testcase", classname="mcp-stubgen drift", name="run")
    ElementTree.SubElement(case, "error", message=one_line(message))
    return _xml(suites)


def _xml(suites: ElementTree.Element) -> str:
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
