"""The hub's benchmark (issue 15): `python benchmarks/hub.py [--smoke] [--catalogs DIR]`.

Prints shortlist latency per query (median and 95th percentile over the evaluation set's tasks in
`tests/shortlist_eval.py`, repeated) at the size of a hub over the golden servers and at 10,000 tools,
the one-off cost of building the search index, the time to import a hub over 50 servers beside
importing one server's package, and, over real catalogs (the golden snapshots, the ones in
`tests/fixtures/catalogs/`, and every snapshot in each `--catalogs DIR`), the time `generate --hub`
takes once the servers' packages exist, the hub's size, and its import time. `--smoke` uses 1,000
tools, 5 servers and the golden hub's two servers, and prints no verdicts.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.catalog import make_tools  # noqa: E402
from benchmarks.run import Sample, timed  # noqa: E402
from codegen.generate import Cache, generate_package  # noqa: E402
from codegen.generate.hub import generate_hub  # noqa: E402
from codegen.identifiers import package_name  # noqa: E402
from codegen.runtime._hub_catalog import HubTool  # noqa: E402
from codegen.runtime._hub_search import SearchIndex  # noqa: E402
from codegen.snapshot import Snapshot, load_snapshot, write_snapshot  # noqa: E402
from tests.shortlist_eval import TASKS  # noqa: E402

GOLDEN = ROOT / "golden"
QUERIES = [task for task, _ in TASKS]
SERVER_CASE = GOLDEN / "weather" / "snapshot.json"
"""Each of the many servers of the import figure has this catalog (4 tools), under its own id."""
REAL_CATALOGS = sorted([*GOLDEN.glob("*/snapshot.json"), *(ROOT / "tests" / "fixtures" / "catalogs").glob("*.json")])
"""The real catalogs in the repository: the golden snapshots and the held-out search's fixtures."""
SMOKE_CATALOGS = [GOLDEN / "notes" / "snapshot.json", GOLDEN / "weather" / "snapshot.json"]


def golden_tools() -> list[HubTool]:
    """Every tool of the golden snapshots (the hub case's servers and the single-server cases)."""
    paths = sorted({*GOLDEN.glob("*/snapshot.json"), *GOLDEN.glob("hub/snapshots/*.json")})
    return [hub_tool(snapshot.server, tool) for snapshot in map(load_snapshot, paths) for tool in snapshot.tools]


def synthetic_tools(count: int, servers: int) -> list[HubTool]:
    return [hub_tool(f"server{index % servers}", tool) for index, tool in enumerate(make_tools(count))]


def hub_tool(server: str, tool: dict[str, object]) -> HubTool:
    name = str(tool["name"])
    schema = tool["inputSchema"]
    assert isinstance(schema, dict)
    description = tool.get("description")
    return HubTool(f"{server}__{name}", server, server, name, str(description) if description else None, schema)


def shortlist_latency(tools: list[HubTool], repeats: int) -> tuple[float, float, float]:
    """Seconds: building the index, then the median and 95th percentile of one query."""
    started = time.perf_counter()
    index = SearchIndex(tools)
    build = time.perf_counter() - started
    times = []
    for _ in range(repeats):
        for query in QUERIES:
            started = time.perf_counter()
            index.search(query, 10)
            times.append(time.perf_counter() - started)
    return build, statistics.median(times), statistics.quantiles(times, n=20)[-1]


def import_time(work: Path, servers: int, runs: int) -> tuple[float, float]:
    """Median seconds to import a generated hub over `servers` servers, and one server's package alone."""
    template = load_snapshot(SERVER_CASE)
    snapshots = [replace(template, server=f"server{index:02d}") for index in range(servers)]
    out = work / "clients"
    cache = Cache(work / "cache")
    for snapshot in snapshots:
        generate_package(snapshot, out, cache=cache)
    generate_hub([(snapshot, {}) for snapshot in snapshots], out, cache)

    def timed(module: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {module}"], cwd=work, check=True)
        return time.perf_counter() - started

    one_server = f"clients.{package_name(snapshots[0].server)}"
    timed("clients.hub")  # compiles every module once, so the runs below time imports, not compiling
    hub = statistics.median(timed("clients.hub") for _ in range(runs))
    one = statistics.median(timed(one_server) for _ in range(runs))
    return hub, one


def real_snapshots(paths: list[Path]) -> list[Snapshot]:
    """The snapshots under distinct server ids: a later one named like an earlier one gets its file's name."""
    snapshots: dict[str, Snapshot] = {}
    for path in paths:
        snapshot = load_snapshot(path)
        server = snapshot.server if snapshot.server not in snapshots else f"{path.parent.name}-{path.stem}"
        snapshots[server] = replace(snapshot, server=server)
    return list(snapshots.values())


def hub_generate(work: Path, snapshots: list[Snapshot], runs: int) -> tuple[Sample, dict[str, int], Sample, Sample]:
    """`mcp-stubgen generate --hub` over a project of these servers once their packages exist (median
    of `runs`, each from the cache the packages left, without the hub's entries); the hub's file
    sizes in bytes; and the median import of the hub, alone and with its catalog read."""
    servers = ""
    for snapshot in snapshots:
        (work / "snaps").mkdir(exist_ok=True)
        write_snapshot(work / "snaps" / f"{snapshot.server}.json", snapshot)
        servers += f'[tool.mcp-stubgen.servers.{json.dumps(snapshot.server)}]\ncommand = "unused"\n'
    (work / "pyproject.toml").write_text(f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n{servers}')
    command = [sys.executable, "-m", "codegen.cli", "generate"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MCP_STUBGEN_CACHE_DIR": str(work / "packages-cache")}
    timed(command, env, work, accept=(0,))
    samples = []
    for _ in range(runs):
        shutil.rmtree(work / "clients" / "hub", ignore_errors=True)
        shutil.rmtree(work / "cache", ignore_errors=True)
        shutil.copytree(work / "packages-cache", work / "cache")
        samples.append(timed([*command, "--hub"], {**env, "MCP_STUBGEN_CACHE_DIR": str(work / "cache")}, work, (0,)))
    sizes = {
        path.name: path.stat().st_size for path in sorted((work / "clients" / "hub").iterdir()) if path.stat().st_size
    }
    python = [sys.executable, "-c"]
    timed([*python, "import clients.hub"], cwd=work, accept=(0,))  # compiles every module once
    imported = [timed([*python, "import clients.hub"], cwd=work, accept=(0,)) for _ in range(runs)]
    used = "from clients.hub import Hub; Hub.tool_definitions()"
    read = [timed([*python, used], cwd=work, accept=(0,)) for _ in range(runs)]
    return median_sample(samples), sizes, median_sample(imported), median_sample(read)


def median_sample(samples: list[Sample]) -> Sample:
    return Sample(statistics.median(sample.wall for sample in samples), statistics.median(s.cpu for s in samples))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="1,000 tools, 5 servers, one run, no verdicts.")
    parser.add_argument(
        "--catalogs",
        type=Path,
        action="append",
        default=[],
        help="A folder of more real snapshots for the hub over real catalogs (e.g. a `test_real_servers` run's).",
    )
    options = parser.parse_args()
    large, servers, runs, repeats = (1000, 5, 1, 1) if options.smoke else (10_000, 50, 5, 5)
    verdict = (lambda met: "-") if options.smoke else (lambda met: "met" if met else "NOT met")

    golden = golden_tools()
    rows = []
    build, median, p95 = shortlist_latency(golden, repeats)
    rows.append((f"shortlist, {len(golden)} tools (golden servers): median", median, "< 5 ms", verdict(median < 0.005)))
    rows.append((f"shortlist, {len(golden)} tools: 95th percentile", p95, "(info)", "-"))
    rows.append((f"search index build, {len(golden)} tools (first query only)", build, "(info)", "-"))
    build, median, p95 = shortlist_latency(synthetic_tools(large, servers), repeats)
    rows.append((f"shortlist, {large:,} tools: median", median, "< 25 ms", verdict(median < 0.025)))
    rows.append((f"shortlist, {large:,} tools: 95th percentile", p95, "(info)", "-"))
    rows.append((f"search index build, {large:,} tools (first query only)", build, "(info)", "-"))
    with tempfile.TemporaryDirectory(prefix="mcp-stubgen-hub-bench-") as folder:
        hub, one = import_time(Path(folder), servers, runs)
    rows.append((f"import the hub over {servers} servers ({servers * 4} tools)", hub, "(info)", "-"))
    rows.append(("import one server's package", one, "(info)", "-"))
    paths = (
        SMOKE_CATALOGS
        if options.smoke
        else [*REAL_CATALOGS, *(p for d in options.catalogs for p in sorted(d.glob("*.json")))]
    )
    snapshots = real_snapshots(paths)
    tools = sum(len(snapshot.tools) for snapshot in snapshots)
    with tempfile.TemporaryDirectory(prefix="mcp-stubgen-hub-bench-") as folder:
        generated, sizes, imported, read = hub_generate(Path(folder), snapshots, runs)
    real = f"{len(snapshots)} real catalogs ({tools} tools)"
    rows.append((f"generate --hub over {real}, packages present", generated, "< 2 s", verdict(generated.wall < 2)))
    rows.append((f"import the hub over {real}", imported, "(info)", "-"))
    rows.append((f"import the hub over {real} and list its tool definitions", read, "(info)", "-"))

    print("| figure | value | CPU | target | status |\n|---|---|---|---|---|")
    for figure, value, target, status in rows:
        cpu = duration(value.cpu) if isinstance(value, Sample) else "-"
        wall = value.wall if isinstance(value, Sample) else value
        print(f"| {figure} | {duration(wall)} | {cpu} | {target} | {status} |")
    print(f"\nThe hub over {real}: " + ", ".join(f"{name} {size:,} bytes" for name, size in sizes.items()))
    return 0


def duration(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


if __name__ == "__main__":
    sys.exit(main())
