"""Every shape, every tool (issue 12): `python benchmarks/dmcg_schemas.py [--schemas DIR] [--keep DIR]`.

Each of datamodel-code-generator's own test schemas (read from `DIR`, by default
`../shared/external-schemas/dmcg/` beside the repository; never copied into it) becomes one
server with one tool whose input and output schema it is. Each server is generated, its package
imported in one interpreter, and all packages type-checked with one `mypy --strict` run. Printed:
how many generated (typed or with degraded tools), how many were refused and why, and how many
failed to import or to type-check.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codegen.errors import StubgenError  # noqa: E402
from codegen.generate import Cache  # noqa: E402
from codegen.generate.build import build_package  # noqa: E402
from codegen.generate.render import render_package  # noqa: E402
from codegen.generate.runtime_folder import publish_runtime  # noqa: E402
from codegen.snapshot import Snapshot  # noqa: E402

DEFAULT_SCHEMAS = ROOT.parent / "shared" / "external-schemas" / "dmcg"

REASONS = (
    (r"points outside the schema", "reference outside the document"),
    (r"points at nothing in the schema", "reference to nothing in the document"),
    (r"must be \"object\"|must be a JSON Schema object", "root is not an object schema"),
    (r"both need a model named", "model name collision"),
    (r"regular expression", "pattern no engine compiles"),
    (r"not valid JSON Schema|not a usable JSON Schema", "invalid JSON Schema"),
    (r"work than mcp-stubgen spends", "past the work budget"),
    (r"is not one object with exactly", "root shape not one object"),
)


def reason(message: str) -> str:
    for pattern, label in REASONS:
        if re.search(pattern, message):
            return label
    return "other: " + re.sub(r"^server '[^']*': tool '[^']*': ", "", message)[:90]


def snapshot_for(index: int, path: Path, schema: dict[str, object]) -> Snapshot:
    tool = {"name": path.stem, "inputSchema": schema, "outputSchema": schema}
    return Snapshot(server=f"s{index:03d}", protocol_version="2025-11-25", capabilities={"tools": {}}, tools=(tool,))


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is not a finite number")
    return value


def generate_one(job: tuple[int, str, str]) -> tuple[str, str, str, list[str]]:
    """(file name, outcome, detail, degraded tools) for one schema, its package written under the folder."""
    index, name, out = job
    path = Path(name)
    try:
        schema = json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, UnicodeDecodeError):
        return path.name, "skipped", "not JSON", []
    if not isinstance(schema, dict):
        return path.name, "skipped", "not a JSON object", []
    try:
        snapshot = snapshot_for(index, path, schema)
        cache = Cache.disabled()  # holds what the build made for the render, writes nothing
        spec = build_package(snapshot, cache=cache)
        files = render_package(spec, cache)
    except StubgenError as error:
        return path.name, "refused", str(error), []
    except Exception as error:  # a bug: counted, never hidden
        return path.name, "crashed", f"{type(error).__name__}: {error}"[:200], []
    target = Path(out) / f"s{index:03d}"
    for relative, data in files.items():
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_bytes(data)
    degraded = [tool.wire for tool in spec.tools if getattr(tool, "untyped_reason", None)]
    return path.name, "generated", "", degraded


IMPORT_ALL = """
import importlib, json, pkgutil, sys
failed = {}
for package in sys.argv[1:]:
    try:
        importlib.import_module(package + ".client")
        for module in pkgutil.iter_modules(importlib.import_module(package + "._models").__path__):
            importlib.import_module(f"{package}._models.{module.name}")
    except Exception as error:
        failed[package] = f"{type(error).__name__}: {error}"[:200]
print(json.dumps(failed))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schemas", type=Path, default=DEFAULT_SCHEMAS)
    parser.add_argument("--keep", type=Path, help="write the packages here (default: a temporary folder)")
    parser.add_argument("-v", "--verbose", action="store_true", help="name every schema that failed")
    args = parser.parse_args()
    files = sorted(path for path in args.schemas.iterdir() if path.suffix == ".json")
    with tempfile.TemporaryDirectory() as temporary:
        out = args.keep or Path(temporary)
        out.mkdir(parents=True, exist_ok=True)
        jobs = [(index, str(path), str(out)) for index, path in enumerate(files)]
        with multiprocessing.get_context("fork").Pool() as pool:
            results = pool.map(generate_one, jobs, chunksize=4)
        generated = {
            f"s{index:03d}": name for index, (name, outcome, _, _) in enumerate(results) if outcome == "generated"
        }
        publish_runtime(out)
        packages = [f"{out.name}.{package}" for package in generated]  # they import the folder's runtime relatively
        imported = subprocess.run(
            [sys.executable, "-c", IMPORT_ALL, *packages], cwd=out.parent, capture_output=True, text=True, check=True
        )
        import_failures: dict[str, str] = {
            package.rpartition(".")[2]: error for package, error in json.loads(imported.stdout).items()
        }
        checked = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *(f"-p{package}" for package in packages)],
            cwd=out.parent,
            capture_output=True,
            text=True,
        )
        mypy_failures = collections.Counter(
            line.split("/")[1] for line in checked.stdout.splitlines() if re.match(r"[^/]+/s\d{3}/.*: error:", line)
        )
    refused = collections.Counter(reason(detail) for _, outcome, detail, _ in results if outcome == "refused")
    skipped = collections.Counter(detail for _, outcome, detail, _ in results if outcome == "skipped")
    degraded = [name for name, _, _, tools in results if tools]
    crashed = [(name, detail) for name, outcome, detail, _ in results if outcome == "crashed"]
    print(f"schemas: {len(files)}")
    print(f"skipped (not a JSON Schema object): {sum(skipped.values())} {dict(skipped)}")
    print(f"generated: {len(generated)} (with a degraded tool: {len(degraded)})")
    print(f"refused: {sum(refused.values())}")
    for label, count in refused.most_common():
        print(f"  {count:4d}  {label}")
    print(f"crashed (internal error): {len(crashed)}")
    print(f"import failures: {len(import_failures)}")
    print(f"mypy --strict failures: {len(mypy_failures)}")
    if args.verbose:
        for name, detail in crashed:
            print(f"crashed  {name}: {detail}")
        for name, outcome, detail, tools in results:
            if outcome == "refused":
                print(f"refused  {name}: {detail[:200]}")
            elif tools:
                print(f"degraded {name}")
        for package, error in sorted(import_failures.items()):
            print(f"import   {generated[package]} ({package}): {error}")
        for package in sorted(mypy_failures):
            print(f"mypy     {generated[package]} ({package}): {mypy_failures[package]} error(s)")


if __name__ == "__main__":
    main()
