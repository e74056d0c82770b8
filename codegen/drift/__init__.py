"""Drift: classify every change between two snapshots of a server and gate CI on the result."""

from codegen.drift.compare import compare_snapshots
from codegen.drift.findings import CATALOG, EXTENSIONS, RULES, Finding, Severity, sort_findings
from codegen.drift.policy import DriftPolicy, Ignore, apply_ignores, parse_policy
from codegen.drift.report import FORMATS, render

__all__ = [
    "CATALOG",
    "EXTENSIONS",
    "FORMATS",
    "RULES",
    "DriftPolicy",
    "Finding",
    "Ignore",
    "Severity",
    "apply_ignores",
    "compare_snapshots",
    "parse_policy",
    "render",
    "sort_findings",
]
