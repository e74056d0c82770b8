"""Drift: classify every change between two snapshots of a server and gate CI on the result."""

from codegen.drift.compare import compare_snapshots
from codegen.drift.findings import CATALOG, EXTENSIONS, RULES, CallSite, Finding, Severity, fails_gate, sort_findings
from codegen.drift.policy import DriftPolicy, Ignore, apply_ignores, apply_severities, parse_policy
from codegen.drift.report import FORMATS, render

__all__ = [
    "CATALOG",
    "EXTENSIONS",
    "FORMATS",
    "RULES",
    "CallSite",
    "DriftPolicy",
    "Finding",
    "Ignore",
    "Severity",
    "apply_ignores",
    "apply_severities",
    "compare_snapshots",
    "fails_gate",
    "parse_policy",
    "render",
    "sort_findings",
]
