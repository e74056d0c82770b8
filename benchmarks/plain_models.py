"""How many tools' models `plain_models` writes itself, whether every one is what datamodel-code-generator
makes, and the CPU each way.

Every typable tool of every catalog in the repository (the golden snapshots, `tests/fixtures/catalogs/`
with `more/`) and of the benchmark's synthetic catalog, at each catalog's naming rules and the
current ones: `plain_source`, then the same tools through datamodel-code-generator in groups as a
cold run makes them (`model_batches.grouped_sources` with the plain path off). Prints, per catalog,
the plain share and any tool whose two modules differ (there should be none), and the CPU per tool of
each path. `tests/test_plain_models.py` runs a sample of the same comparison. `--external DIR`
adds schemas nobody here wrote, each one tool's input and output schema: every `.json` file of DIR
(datamodel-code-generator's test schemas, `../shared/external-schemas/dmcg`) and every test group's
schema of DIR's `draft2020-12` and `draft7` (the JSON-Schema-Test-Suite,
`../shared/external-schemas/jsts`). `--bfcl` adds every function of BFCL v4's question files (the
`bfcl-eval` data the hub's benchmark reads), its parameters read as JSON Schema (BFCL writes Python's
type names: `dict` is `object`, `float` is `number`, `tuple` an array, `any` no type).

    python benchmarks/plain_models.py [--catalog NAME ...] [--external DIR ...] [--bfcl]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.catalog import make_tools  # noqa: E402
from codegen.errors import StubgenError  # noqa: E402
from codegen.generate import model_batches  # noqa: E402
from codegen.generate.guard import check_tool_schemas  # noqa: E402
from codegen.generate.modelgen import ModelJob, datamodel_entry, model_source  # noqa: E402
from codegen.generate.package_plan import plan_package  # noqa: E402
from codegen.generate.plain_models import plain_source  # noqa: E402
from codegen.identifiers import NAMING_RULES  # noqa: E402
from codegen.snapshot import Snapshot, load_snapshot  # noqa: E402

CATALOGS = sorted(
    [
        *(ROOT / "golden").glob("*/snapshot.json"),
        *(ROOT / "tests" / "fixtures" / "catalogs").glob("*.json"),
        *(ROOT / "tests" / "fixtures" / "catalogs" / "more").glob("*.json"),
    ]
)


def benchmark_catalog(count: int) -> Snapshot:
    return Snapshot(
        server="bench", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(make_tools(count))
    )


def external_catalog(folder: Path) -> Snapshot:
    """One tool per schema found under `folder` (see the module's docstring), named by its place."""
    schemas: list[tuple[str, object]] = []
    for path in sorted(folder.glob("*.json")):
        with contextlib.suppress(ValueError):  # a few of datamodel-code-generator's are not strict JSON
            schemas.append((path.stem, _strict_json(path)))
    for draft in ("draft2020-12", "draft7"):
        for path in sorted((folder / draft).glob("*.json")):
            groups = _strict_json(path)
            schemas += [(f"{draft}_{path.stem}_{index}", group["schema"]) for index, group in enumerate(groups)]
    tools = tuple(
        {"name": f"t{index:04d}", "description": name, "inputSchema": schema, "outputSchema": schema}
        for index, (name, schema) in enumerate(schemas)
        if isinstance(schema, dict)
    )
    return Snapshot(server=folder.name, protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tools)


BFCL_TYPES = {"dict": "object", "float": "number", "tuple": "array", "list": "array", "int": "integer"}
"""BFCL's type names that are not JSON Schema's, and theirs (`any`, no type, is left out)."""


def bfcl_catalog() -> Snapshot:
    """One tool per function name found in BFCL v4's question files, the first definition seen."""
    from benchmarks.bfcl_shortlist import data_dir, json_lines

    functions: dict[str, dict[str, Any]] = {}
    for path in sorted(data_dir().glob("BFCL_v4_*.json")):
        try:
            entries = json_lines(path)
        except ValueError:  # a file of other data than questions
            continue
        for entry in entries:
            for function in entry.get("function", []) if isinstance(entry, dict) else []:
                functions.setdefault(function["name"], function)
    tools = tuple(
        {"name": f"f{index:05d}", "description": name, "inputSchema": _json_schema(function["parameters"])}
        for index, (name, function) in enumerate(sorted(functions.items()))
        if isinstance(function.get("parameters"), dict)
    )
    return Snapshot(server="bfcl", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tools)


def _json_schema(node: Any) -> Any:
    """A BFCL parameter schema with JSON Schema's type names."""
    if not isinstance(node, dict):
        return node
    schema: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            if value != "any":
                schema[key] = BFCL_TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            schema[key] = {name: _json_schema(inner) for name, inner in value.items()}
        elif key in ("items", "additionalProperties"):
            schema[key] = _json_schema(value)
        else:
            schema[key] = value
    return schema


def _strict_json(path: Path) -> Any:
    """A file's JSON, refusing what no snapshot holds (NaN, infinities, numbers past a float)."""
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=_not_json, parse_float=_finite)


def _not_json(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def catalog_name(path: Path) -> str:
    return path.parent.name if path.name == "snapshot.json" else path.stem


def model_jobs(snapshot: Snapshot) -> Iterator[ModelJob]:
    """The jobs `tool_workers` gives `grouped_sources`: each typable tool that takes an object."""
    for tool in plan_package(snapshot).tools:
        try:
            findings = check_tool_schemas(snapshot.server, tool.tool)
        except StubgenError:
            continue
        kind = tool.tool["inputSchema"].get("type", "object")
        if findings.untypable is None and "object" in (kind if isinstance(kind, list) else [kind]):
            yield ModelJob(tool.tool, tool.stem, tool.naming_rules)


def at_rules(snapshot: Snapshot, rules: int) -> Snapshot:
    return dataclasses.replace(snapshot, naming_rules=rules)


def compared(jobs: list[ModelJob]) -> tuple[list[tuple[ModelJob, str, str]], float, float]:
    """Each plain job with its two modules (plain, datamodel-code-generator's), and the CPU seconds of
    `plain_source` over all jobs and of datamodel-code-generator over the plain ones."""
    start = time.process_time()
    written = [(job, plain_source(job, datamodel_entry(job))) for job in jobs]
    plain_cpu = time.process_time() - start
    plain = [(job, source) for job, source in written if source is not None]
    original = model_batches.plain_source
    model_batches.plain_source = lambda job, entry: None
    try:
        start = time.process_time()
        made = model_batches.grouped_sources([job for job, _ in plain])
        dcg_cpu = time.process_time() - start
    finally:
        model_batches.plain_source = original
    pairs = [
        (job, source, expected.source if expected is not None else model_source("s", job))
        for (job, source), expected in zip(plain, made, strict=True)
    ]
    return pairs, plain_cpu, dcg_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", action="append", help="only the catalogs of this name (repeatable)")
    parser.add_argument("--external", action="append", type=Path, default=[], help="a folder of schemas (repeatable)")
    parser.add_argument("--bfcl", action="store_true", help="add BFCL v4's functions")
    args = parser.parse_args()
    catalogs: list[tuple[str, Snapshot]] = [(catalog_name(path), load_snapshot(path)) for path in CATALOGS]
    catalogs.append(("benchmark (1,000)", benchmark_catalog(1000)))
    catalogs += [(f"external {folder.name}", external_catalog(folder)) for folder in args.external]
    catalogs += [("external BFCL v4", bfcl_catalog())] if args.bfcl else []
    if args.catalog:
        catalogs = [(name, snapshot) for name, snapshot in catalogs if name in args.catalog]
    totals = {"jobs": 0, "plain": 0, "differ": 0, "plain_cpu": 0.0, "dcg_cpu": 0.0}
    real = {"jobs": 0, "plain": 0}
    print(f"{'catalog':<24} {'rules':>5} {'tools':>6} {'plain':>6} {'differ':>6}")
    for name, snapshot in catalogs:
        for rules in sorted({snapshot.naming_rules, NAMING_RULES}):
            jobs = list(model_jobs(at_rules(snapshot, rules)))
            pairs, plain_cpu, dcg_cpu = compared(jobs)
            differ = [job.stem for job, source, expected in pairs if source != expected]
            print(f"{name:<24} {rules:>5} {len(jobs):>6} {len(pairs):>6} {len(differ):>6}  {' '.join(differ[:5])}")
            totals["jobs"] += len(jobs)
            totals["plain"] += len(pairs)
            totals["differ"] += len(differ)
            totals["plain_cpu"] += plain_cpu
            totals["dcg_cpu"] += dcg_cpu
            if not name.startswith(("benchmark", "external")) and rules == NAMING_RULES:
                real["jobs"] += len(jobs)
                real["plain"] += len(pairs)
    plain, jobs = totals["plain"], totals["jobs"]
    print(f"\nall: {plain:,} of {jobs:,} jobs plain, {totals['differ']} differ")
    print(f"real catalogs at the current naming rules: {real['plain']:,} of {real['jobs']:,} tools plain "
          f"({real['plain'] / max(real['jobs'], 1):.0%})")  # fmt: skip
    print(f"CPU: plain_source {1000 * totals['plain_cpu'] / max(jobs, 1):.2f} ms a job (all jobs tried); "
          f"datamodel-code-generator in groups {1000 * totals['dcg_cpu'] / max(plain, 1):.2f} ms a plain tool")  # fmt: skip


if __name__ == "__main__":
    main()
