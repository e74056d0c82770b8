"""The performance benchmark of issue 5: `python benchmarks/run.py [--smoke] [--runs N] [--tools N] [--generate-only]`
(`--peer-only`: one catalog end to end against mcporter, `benchmarks/peer_sync.py`).

Every figure is measured beside its baseline in the same run (medians over `--runs`), so a busy
machine slows both sides alike. `--smoke` runs the 10-tool catalog once and only prints the table.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402

from benchmarks.catalog import changed, make_tools  # noqa: E402
from codegen.snapshot import Snapshot, load_snapshot, write_snapshot  # noqa: E402

PYTHON = sys.executable
# One option beyond the defaults: `format: email` stays `str`, as in the generated package. As
# `EmailStr` the module needs email-validator, and without it the baseline import died at the first
# such model, so the baseline timed a failed import (imports must now exit 0).
BARE_DCG = """
import sys, warnings
from pathlib import Path
from datamodel_code_generator import InputFileType, generate
from datamodel_code_generator.enums import DataModelType
from datamodel_code_generator.format import Formatter
warnings.simplefilter("ignore")
source = generate(Path(sys.argv[1]).read_text(), input_file_type=InputFileType.MCPTools,
    output_model_type=DataModelType.PydanticV2BaseModel, formatters=[Formatter.BUILTIN], disable_timestamp=True,
    type_mappings=["string+email=string"])
Path(sys.argv[2]).write_text(source)
"""
PEAK = """
import resource, sys
from codegen.cli import main
try:
    main(sys.argv[1:])  # not the console script's `run`: that ends the process before the figures print
except SystemExit:
    pass
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"PEAK {own} {workers}", file=sys.stderr)
"""


@dataclass(frozen=True)
class Sample:
    """One command's wall time and CPU time: the CPU of the process and of every worker it started
    (user plus system, from `RUSAGE_CHILDREN`), so a generate that forks a worker per core shows
    what it costs beside a baseline that runs in one process."""

    wall: float
    cpu: float


@dataclass
class Row:
    figure: str
    value: float | Sample
    baseline: str
    base: float | Sample
    target: str
    check: Callable[[float, float], bool]
    judged: str = "wall"
    """Which ratio the target judges: "wall", "CPU" (a cold generate's workers use every core where
    its baseline uses one, so its target is stated in CPU), or "both" (the larger)."""

    def cells(self, assess: bool) -> list[str]:
        value, base = _wall(self.value), _wall(self.base)
        ratio = value / base if base else float("inf")
        cpu_ratio = _cpu_ratio(self.value, self.base)
        ratios = {"wall": ratio, "CPU": cpu_ratio or ratio, "both": max(ratio, cpu_ratio or ratio)}
        met = (
            ("met" if self.check(value, ratios[self.judged]) else "NOT met")
            if assess and self.target != "(info)"
            else "-"
        )
        return [
            self.figure, _seconds(value), _cpu(self.value), self.baseline, _seconds(base), _cpu(self.base),
            f"{ratio:.3f}", "-" if cpu_ratio is None else f"{cpu_ratio:.3f}", self.target, met,
        ]  # fmt: skip


def _cpu_ratio(value: float | Sample, base: float | Sample) -> float | None:
    """CPU over the baseline's CPU, for two rows measured as commands."""
    if isinstance(value, Sample) and isinstance(base, Sample) and base.cpu:
        return value.cpu / base.cpu
    return None


def _wall(value: float | Sample) -> float:
    return value.wall if isinstance(value, Sample) else value


def _cpu(value: float | Sample) -> str:
    """CPU seconds, for the rows measured as commands (the in-process rows have none)."""
    return _seconds(value.cpu) if isinstance(value, Sample) else "-"


def _seconds(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


Measured = TypeVar("Measured", float, Sample)


def _middle(values: list[Measured]) -> Measured:
    """The median of floats, or of samples' wall and CPU times each."""
    if isinstance(values[0], Sample):
        samples = [value for value in values if isinstance(value, Sample)]
        return Sample(statistics.median(s.wall for s in samples), statistics.median(s.cpu for s in samples))
    return statistics.median(values)


def median(runs: int, measure: Callable[[], Measured]) -> Measured:
    return _middle([measure() for _ in range(runs)])


def paired(runs: int, ours: Callable[[], Measured], baseline: Callable[[], Measured]) -> tuple[Measured, Measured]:
    """Medians of both sides, measured in turn, and each pair in the other order than the one before
    (ours then baseline, baseline then ours, ...): a load that comes or goes during the run slows both
    alike, and neither side always runs first (a warm disk cache, a CPU that has just turbo-boosted)."""
    mine: list[Measured] = []
    theirs: list[Measured] = []
    for run in range(runs):
        if run % 2 == 0:
            mine.append(ours())
            theirs.append(baseline())
        else:
            theirs.append(baseline())
            mine.append(ours())
    return _middle(mine), _middle(theirs)


def timed(
    command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None, accept: tuple[int, ...] = (0, 1)
) -> Sample:
    """Wall and CPU time of one command; `accept` lists the exit codes that count as a run (`--check` exits 1)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode not in accept:
        raise SystemExit(f"{command[:4]} failed:\n{result.stderr[-2000:]}")
    return Sample(elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


QUICK_RUNS = 5
"""The fewest runs whose median a row of a command that finds nothing to do is: `--runs 1` once read
one 247 ms sample of a no-op generate whose next 15 runs took 158-163 ms."""


def installed_like(env: dict[str, str], work: Path) -> dict[str, str]:
    """Our side runs with its bytecode cached, as an installed package's is (pip compiles it), not
    recompiling every module from source as a shell with `PYTHONDONTWRITEBYTECODE` would; the cache
    goes to the work folder, so the source tree stays as it is. The first (unmeasured) run writes it."""
    return {**{key: value for key, value in env.items() if key != "PYTHONDONTWRITEBYTECODE"},
            "PYTHONPYCACHEPREFIX": str(work / "pycache")}  # fmt: skip


def snapshot_of(tools: list[dict[str, Any]]) -> Snapshot:
    return Snapshot(server="bench", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))


def generate_command(snapshot: Path, out: Path, *flags: str) -> list[str]:
    return [PYTHON, "-m", "codegen.cli", "generate", str(snapshot), "--out", str(out), *flags]


def generate_rows(work: Path, count: int, runs: int, targets: bool, smoke: bool = False) -> tuple[list[Row], str]:
    """The generate and import rows for one catalog size; `targets` is False for the sizes the issue
    sets no target for (its targets are stated for 1,000 tools), which are printed for information.
    `smoke` (no verdicts) times the bare baseline once, for both rows that compare with it."""
    tools = make_tools(count)
    snap = work / "snap.json"
    write_snapshot(snap, snapshot_of(tools))
    (work / "tools.json").write_text(json.dumps(tools))
    env = installed_like(dict(os.environ), work)

    def bare() -> Sample:
        return timed([PYTHON, "-c", BARE_DCG, str(work / "tools.json"), str(work / "bare_models.py")])

    def fresh_cache() -> dict[str, str]:
        return {**env, "MCP_STUBGEN_CACHE_DIR": tempfile.mkdtemp(dir=work)}

    def cold() -> Sample:
        shutil.rmtree(work / "out", ignore_errors=True)
        return timed(generate_command(snap, work / "out"), fresh_cache())

    cold()  # unmeasured: compiles every module our side imports into the bytecode cache `env` names
    cold_time, baseline = paired(runs, cold, bare)
    warm_env = fresh_cache()
    timed(generate_command(snap, work / "out"), warm_env)
    # A tenth of a second each: one slow sample (a scheduler's hiccup) would decide the row alone.
    quick_runs = runs if smoke else max(runs, QUICK_RUNS)
    warm = median(quick_runs, lambda: timed(generate_command(snap, work / "out"), warm_env))
    check_warm = median(quick_runs, lambda: timed(generate_command(snap, work / "out", "--check"), warm_env))

    # A fresh clone in CI: the package is committed, the cache is empty, so --check renders it.
    def check_cold_run() -> Sample:
        return timed(generate_command(snap, work / "out", "--check"), fresh_cache())

    check_cold, check_baseline = (check_cold_run(), baseline) if smoke else paired(runs, check_cold_run, bare)

    one = work / "one.json"
    write_snapshot(one, snapshot_of(changed(tools, 1)))

    def one_changed() -> Sample:
        """Each run from a copy of the warm cache: a run that kept the changed tool in the cache would
        let the next one skip the very work this row measures."""
        shutil.rmtree(work / "inc", ignore_errors=True)
        shutil.copytree(work / "out", work / "inc")
        cache = fresh_cache()
        shutil.copytree(warm_env["MCP_STUBGEN_CACHE_DIR"], cache["MCP_STUBGEN_CACHE_DIR"], dirs_exist_ok=True)
        return timed(generate_command(one, work / "inc"), cache)

    incremental = median(runs, one_changed)

    peak = subprocess.run(
        [PYTHON, "-c", PEAK, "generate", str(snap), "--out", str(work / "peak")],
        capture_output=True,
        text=True,
        env=fresh_cache(),
    ).stderr
    own, workers = (int(part) for part in peak.rsplit("PEAK ", 1)[1].split())
    memory = f"peak memory of a cold {count}-tool generate: main process {own / 1024:.0f} MiB, largest worker {workers / 1024:.0f} MiB"

    import_package = [PYTHON, "-c", "import out.bench"]
    import_bare = [PYTHON, "-c", "import bare_models"]
    first_use = [PYTHON, "-c", _FIRST_USE]
    package_import, bare_import = paired(
        runs,
        lambda: timed(import_package, cwd=work, accept=(0,)),
        lambda: timed(import_bare, cwd=work, accept=(0,)),
    )
    use = median(runs, lambda: timed(first_use, cwd=work, accept=(0,)))

    def target(text: str, check: Callable[[float, float], bool]) -> tuple[str, Callable[[float, float], bool]]:
        return (text, check) if targets else ("(info)", lambda v, r: True)

    rows = [
        Row(f"generate, {count} tools, nothing cached", cold_time, "bare datamodel-code-generator", baseline, *target("<= 1.0 (CPU)", lambda v, r: r <= 1.0), judged="CPU"),
        Row("generate again, catalog unchanged", warm, "cold generate", cold_time, *target("<= 0.05", lambda v, r: r <= 0.05)),
        Row("generate --check, up to date, empty cache", check_cold, "bare datamodel-code-generator", check_baseline, *target("<= 1.0 (CPU)", lambda v, r: r <= 1.0), judged="CPU"),
        Row("generate --check, up to date, warm cache", check_warm, "bare datamodel-code-generator", baseline, *target("<= 0.1", lambda v, r: r <= 0.1)),
        Row("generate, one tool changed", incremental, "cold generate", cold_time, *target("<= 0.1 (wall and CPU)", lambda v, r: r <= 0.1), judged="both"),
        Row("import the generated package", package_import, "import the bare DCG module", bare_import, *target("<= 0.2", lambda v, r: r <= 0.2)),
        Row("import + first use of one tool's models", use, "import the bare DCG module", bare_import, "(info)", lambda v, r: True),
    ]  # fmt: skip
    return rows, memory


_FIRST_USE = """
import out.bench
from out.bench import models
model = models.__all__[0]
cls = getattr(models, model)
try:
    cls.model_validate({"definitely_not_a_field": object()})
except Exception:
    pass
"""

ECHO = {
    "name": "echo",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}, "times": {"type": "integer", "minimum": 0}},
        "required": ["text"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"echo": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["echo", "count"],
    },
}


def echo_server() -> Any:
    """The in-process server the call rows talk to: `ECHO`, answered at once with structured content."""
    from mcp import types
    from mcp.server.lowlevel import Server

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = str((params.arguments or {}).get("text", ""))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content={"echo": text, "count": 1}
        )

    async def list_tools(_context: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool.model_validate(ECHO)])

    return Server("echo", on_list_tools=list_tools, on_call_tool=call_tool)


def call_rows(work: Path, calls: int, runs: int) -> list[Row]:
    """10,000 calls through a generated method vs `client.call_tool`, and through its sync twin vs the
    async method, against an in-process server (the sync client runs it on its own event loop)."""
    from mcp import Client

    from codegen.generate import generate_package

    generate_package(
        Snapshot(server="echo", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=(ECHO,)),
        work / "calls",
    )
    sys.path.insert(0, str(work))
    from calls.echo import EchoClient  # type: ignore[import-not-found]

    server = echo_server()

    async def measure() -> tuple[float, float]:
        """The generated method's calls and `client.call_tool`'s on one connection, in alternating
        blocks of 500, so both sides share the same moments of load (whole runs in turn let a load
        that came or went between them decide the ratio)."""
        spent = [0.0, 0.0]
        async with Client(server) as client:
            typed = EchoClient(client)
            # Both sides warm up first: the models' one-time import and build belong to the
            # "first use" row, not to the steady cost of a call.
            await client.call_tool("echo", {"text": "warm", "times": 1})
            await typed.echo(text="warm", times=1)
            for _ in range(max(1, calls // 500)):
                start = time.perf_counter()
                for _ in range(min(calls, 500)):
                    await typed.echo(text="hello", times=2)
                middle = time.perf_counter()
                for _ in range(min(calls, 500)):
                    await client.call_tool("echo", {"text": "hello", "times": 2})
                spent[0] += middle - start
                spent[1] += time.perf_counter() - middle
        return spent[0], spent[1]

    def measure_sync() -> tuple[float, float]:
        """The sync client's calls and the async method's, in alternating blocks of 500 in one run, so
        both sides share the same moments of load. The sync client is called as a script calls it,
        from a thread with no event loop; the async client runs on an `asyncio.Runner` of that
        thread, its connection held open by a task between its blocks."""
        spent = [0.0, 0.0]

        async def hold(opened: asyncio.Future[Any], leave: asyncio.Event) -> None:
            async with Client(server) as client:
                opened.set_result(EchoClient(client))
                await leave.wait()

        async def async_block(typed: Any, count: int) -> float:
            start = time.perf_counter()
            for _ in range(count):
                await typed.echo(text="hello", times=2)
            return time.perf_counter() - start

        with asyncio.Runner() as runner, EchoClient.connect_sync(server) as sync_client:
            opened, leave = runner.get_loop().create_future(), asyncio.Event()
            holder = runner.get_loop().create_task(hold(opened, leave))
            typed = runner.run(asyncio.wait_for(opened, 30))
            sync_client.echo(text="warm", times=1)
            runner.run(async_block(typed, 1))
            for _ in range(max(1, calls // 500)):
                start = time.perf_counter()
                for _ in range(min(calls, 500)):
                    sync_client.echo(text="hello", times=2)
                spent[0] += time.perf_counter() - start
                spent[1] += runner.run(async_block(typed, min(calls, 500)))
            leave.set()
            runner.run(asyncio.wait_for(holder, 30))
        return spent[0], spent[1]

    typed_runs = [anyio.run(measure) for _ in range(runs)]
    typed, raw = (statistics.median(run[side] for run in typed_runs) for side in (0, 1))
    sync_runs = [measure_sync() for _ in range(runs)]
    sync, typed_again = (statistics.median(run[side] for run in sync_runs) for side in (0, 1))
    return [
        Row(f"{calls:,} generated method calls", typed, "raw client.call_tool", raw, "<= 1.10", lambda v, r: r <= 1.10),
        Row(f"{calls:,} sync client calls", sync, "the async method", typed_again, "< 1.5", lambda v, r: r < 1.5),
    ]  # fmt: skip


def drift_row(work: Path, count: int, runs: int) -> Row:
    from codegen.drift import compare_snapshots, render

    tools = make_tools(count)
    old, new = work / "old.json", work / "new.json"
    write_snapshot(old, snapshot_of(tools))
    write_snapshot(new, snapshot_of(changed(tools, min(50, count))))

    def drift() -> float:
        start = time.perf_counter()
        render(compare_snapshots(load_snapshot(old), load_snapshot(new)), "text")
        return time.perf_counter() - start

    def load_both() -> float:
        start = time.perf_counter()
        for path in (old, new):
            with open(path, encoding="utf-8") as handle:
                json.load(handle)
        return time.perf_counter() - start

    ours, baseline = paired(runs, drift, load_both)
    return Row(f"drift, {count} tools, {min(50, count)} changed", ours, "json.load of both", baseline, "< 1 s absolute", lambda v, r: v < 1.0)  # fmt: skip


def _server(name: str, count: int) -> Any:
    from codegen.config import parse_server

    args = [str(ROOT / "benchmarks" / "server.py"), str(count)]
    return parse_server(name, {"command": PYTHON, "args": args}, "benchmark", ROOT)


def _slow_server(name: str, delay: float) -> Any:
    """A standard-library-only server sleeping `delay` s before it answers: what is measured is how
    snapshotting overlaps eight start-ups, not eight interpreters importing the SDK."""
    from codegen.config import parse_server

    args = [str(ROOT / "benchmarks" / "slow_server.py"), str(delay)]
    return parse_server(name, {"command": PYTHON, "args": args}, "benchmark", ROOT)


def snapshot_rows(count: int, runs: int) -> list[Row]:
    from mcp import Client, StdioServerParameters

    from codegen.snapshot.discovery import snapshot_servers

    async def hand_loop() -> None:
        parameters = StdioServerParameters(command=PYTHON, args=[str(ROOT / "benchmarks" / "server.py"), str(count)])
        async with Client(parameters) as client:
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor)
                cursor = page.next_cursor
                if cursor is None:
                    break

    def ours(servers: list[Any]) -> float:
        start = time.perf_counter()
        results = snapshot_servers(servers)
        elapsed = time.perf_counter() - start
        failures = [str(result) for result in results.values() if not isinstance(result, Snapshot)]
        if failures:
            raise SystemExit("\n".join(failures))
        return elapsed

    def hand() -> float:
        start = time.perf_counter()
        anyio.run(hand_loop)
        return time.perf_counter() - start

    paged, baseline = paired(runs, lambda: ours([_server("bench", count)]), hand)
    slow = [_slow_server(f"slow-{index}", 0.5) for index in range(8)]
    eight, single = paired(runs, lambda: ours(slow), lambda: ours(slow[:1]))
    return [
        Row(f"snapshot, {count} tools paged 50", paged, "hand-written SDK loop", baseline, "<= 1.2", lambda v, r: r <= 1.2),
        Row("snapshot, 8 servers starting in 0.5 s", eight, "the slowest single one", single, "<= 1.5", lambda v, r: r <= 1.5),
    ]  # fmt: skip


MANY_SOURCES = [
    *sorted((ROOT / "golden").glob("*/snapshot.json")),
    *sorted((ROOT / "tests" / "fixtures" / "catalogs").glob("*.json")),
]
"""The real catalogs the tests use (the golden cases' and the fixtures'), each configured twice."""


def many_rows(work: Path, runs: int) -> list[Row]:
    """`generate --check` over the packages of the real catalogs the tests use (each configured twice)
    and a hub, with a warm cache, and `generate` of the hub alone once its servers' packages exist:
    absolute targets (a CI job checks many servers at once)."""
    import dataclasses

    project = work / "many"
    (project / "snaps").mkdir(parents=True)
    names = []
    for copy in ("", "_2"):
        for source in MANY_SOURCES:
            snapshot = load_snapshot(source)
            name = f"{snapshot.server}{copy}"
            names.append(name)
            write_snapshot(project / "snaps" / f"{name}.json", dataclasses.replace(snapshot, server=name))
    servers = "".join(f'[tool.mcp-stubgen.servers.{name}]\ncommand = "true"\n' for name in names)
    config = f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\n{servers}'
    (project / "pyproject.toml").write_text(config)
    env = {**os.environ, "MCP_STUBGEN_CACHE_DIR": str(work / "many-cache")}
    command = [PYTHON, "-m", "codegen.cli", "generate"]
    timed(command, env, cwd=project, accept=(0,))

    def hub_alone() -> Sample:
        shutil.rmtree(project / "clients" / "hub")
        return timed(command, env, cwd=project, accept=(0,))

    check = median(runs, lambda: timed([*command, "--check"], env, cwd=project, accept=(0,)))
    hub = median(runs, hub_alone)
    tools = sum(len(load_snapshot(project / "snaps" / f"{name}.json").tools) for name in names)
    label = f"{len(names)} packages and a hub ({tools} tools)"
    return [
        Row(f"generate --check, {label}, warm cache", check, "(absolute)", 2.0, "< 2 s", lambda v, r: v < 2.0),
        Row(f"generate, {label}: the hub alone", hub, "(absolute)", 2.0, "< 2 s", lambda v, r: v < 2.0),
    ]  # fmt: skip


def code_mode_row(runs: int) -> Row:
    """A script of four calls run by `run_code` (type check, sandbox, calls over stdio) beside the same
    calls by `hub.call` (`benchmarks/code_mode.py` has the token and wrong-script figures); it stops
    the run when a wrong script sends anything."""
    from benchmarks.code_mode import measure

    timing = next(t for t in measure(runs, real_catalogs=False)[2] if t.figure == "run_code: four calls, three at once")
    assert timing.baseline_seconds is not None
    return Row(timing.figure, timing.seconds, timing.baseline, timing.baseline_seconds, "(info)", lambda v, r: True)


def table(rows: list[Row], assess: bool) -> str:
    header = [
        "figure",
        "value",
        "CPU",
        "baseline",
        "baseline value",
        "baseline CPU",
        "ratio (wall)",
        "ratio (CPU)",
        "target",
        "status",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row.cells(assess)) + " |" for row in rows]
    return "\n".join(lines)


def peer_rows(work: Path, runs: int) -> list[Row]:
    from benchmarks.peer_sync import peer_rows as rows  # it imports this module

    (work / "peer").mkdir()
    return rows(work / "peer", runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="10 tools, one run, no verdicts (for CI).")
    parser.add_argument("--runs", type=int, default=3, help="Runs per figure; the median is reported.")
    parser.add_argument("--tools", type=int, default=1000, help="Catalog size of the large rows.")
    parser.add_argument("--generate-only", action="store_true", help="Only the generate rows of the large catalog.")
    parser.add_argument("--calls-only", action="store_true", help="Only the 10,000-call rows (async and sync).")
    parser.add_argument("--many-only", action="store_true", help="Only the rows over many packages and a hub.")
    parser.add_argument("--peer-only", action="store_true", help="Only the one-catalog rows against mcporter.")
    options = parser.parse_args()
    count, runs, calls = (10, 1, 200) if options.smoke else (options.tools, options.runs, 10_000)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="mcp-stubgen-bench-") as folder:
        work = Path(folder)
        if options.calls_only:
            print(table(call_rows(work, calls, runs), assess=True))
            return 0
        if options.many_only:
            print(table(many_rows(work, runs), assess=True))
            return 0
        if options.peer_only:
            print(table(peer_rows(work, runs), assess=True))
            return 0
        for size in [count] if options.smoke or options.generate_only else [10, 100, count]:
            (work / str(size)).mkdir()
            size_rows, memory = generate_rows(work / str(size), size, runs, targets=size == count, smoke=options.smoke)
            rows += size_rows
        if not options.generate_only:
            rows += many_rows(work, runs)
            rows += call_rows(work, calls, runs)
            rows.append(drift_row(work, count, runs))
            rows += snapshot_rows(count, runs)
            rows.append(code_mode_row(runs))
        if not options.smoke and not options.generate_only:  # the smoke run installs no peer
            rows += peer_rows(work, runs)
    print(table(rows, assess=not options.smoke))
    print(f"\n{memory}; maxrss of this process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    print_bfcl_shortlist()
    return 0


def print_bfcl_shortlist() -> None:
    """The hub shortlist's quality on BFCL v4 (issue 25), when the data's package is installed."""
    from benchmarks import bfcl_shortlist

    if importlib.util.find_spec("bfcl_eval") is None:
        print(f"\nBFCL v4 shortlist: not measured, bfcl-eval is not installed ({bfcl_shortlist.INSTALL})")
        return
    print("\n" + "\n".join(bfcl_shortlist.table()))


if __name__ == "__main__":
    sys.exit(main())
