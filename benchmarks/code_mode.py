"""Code mode's benchmark (issue 26): `python benchmarks/code_mode.py [--runs N] [--smoke]`.

A scripted agent (no model: fixed code strings) over two generated hubs with code mode on:

- the bundled example servers (`golden/weather`, `golden/notes` snapshots; the servers themselves
  run over stdio behind `tests/servers/counting_relay.py`, which counts the requests that reach them);
- real catalogs, the snapshots the tests use: server-everything and mcp-server-time (`golden/`),
  fetch and Playwright (`tests/fixtures/catalogs/`), with the two examples.

It prints, per hub, the tokens a model reads: every tool definition (as `tools/list` gives them, output
schemas included, and as a model's tool list takes them, `Hub.tool_definitions("anthropic")`, which
has no output schemas) against the code-mode surface (all stubs, result types included; `AGENTS.md`
with `index.md`, what an agent reads first; one `search_tools` answer). Tokens are counted as `generate` reports them
(tiktoken's `o200k_base` when installed, else the documented approximation in
`codegen/generate/code_mode.py`). Then, for the example servers: the time from the `run_code` call to
its result for each script beside the same calls made directly by `hub.call`, the time to reject a
wrong script, and the requests that reached the servers for each (zero for a wrong script). For the
real catalogs, whose servers are not started: the time to reject a wrong script against their stubs.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codegen.generate.code_mode import count_tokens  # noqa: E402
from codegen.snapshot import load_snapshot  # noqa: E402

PYTHON = sys.executable
EXAMPLES = {"weather": ROOT / "examples" / "weather_server.py", "notes": ROOT / "examples" / "notes_server.py"}
EXAMPLE_SNAPSHOTS = [ROOT / "golden" / "weather" / "snapshot.json", ROOT / "golden" / "notes" / "snapshot.json"]
REAL_SNAPSHOTS = [
    ROOT / "golden" / "everything" / "snapshot.json",
    ROOT / "golden" / "time" / "snapshot.json",
    ROOT / "tests" / "fixtures" / "catalogs" / "fetch.json",
    ROOT / "tests" / "fixtures" / "catalogs" / "playwright.json",
    *EXAMPLE_SNAPSHOTS,
]
RELAY = ROOT / "tests" / "servers" / "counting_relay.py"
TASK = "what is the weather going to be in Oslo"
"""The request the `search_tools` figure answers."""

SCRIPTS = {
    "one call": (
        'import weather\n(await weather.get_forecast(city="Oslo"))["temperature"]\n',
        [("weather__get_forecast", {"city": "Oslo"})],
    ),
    "four calls, three at once": (
        "import asyncio\nimport notes\nimport weather\n\n"
        'cities = await weather.search(query="o")\n'
        "forecasts = await asyncio.gather(*[weather.get_forecast(city=city) for city in cities])\n"
        'travel = await notes.search(text="", tag="travel")\n'
        '[len(forecasts), len(travel["notes"])]\n',
        [
            ("weather__search", {"query": "o"}),
            ("weather__get_forecast", {"city": "New York"}),
            ("weather__get_forecast", {"city": "Oslo"}),
            ("notes__search", {"text": "", "tag": "travel"}),
        ],
    ),
}
WRONG_SCRIPTS = {
    "unknown tool": "import weather\nawait weather.get_forecasts(city='Oslo')\n",
    "wrong argument": "import weather\nawait weather.get_forecast(town='Oslo')\n",
    "bad enum value": "import weather\nawait weather.get_forecast(city='Oslo', units='kelvin')\n",
    "wrong result key": "import weather\n(await weather.get_forecast(city='Oslo'))['temp']\n",
}
REAL_WRONG_SCRIPT = "import playwright\nawait playwright.browser_navigate(link='https://example.com')\n"


@dataclass(frozen=True)
class Timing:
    figure: str
    seconds: float
    baseline: str
    baseline_seconds: float | None
    requests: int | None
    """`tools/call` requests that reached the servers during one run of the figure."""


def generate(snapshots: list[Path], out: Path) -> tuple[Any, Any]:
    """`generate --hub --code-mode` into `out`; the imported code-mode package and hub."""
    command = [PYTHON, "-m", "codegen", "generate", "--hub", "--code-mode", "--out", str(out), *map(str, snapshots)]
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    sys.path.insert(0, str(out.parent))
    return importlib.import_module(f"{out.name}.code_mode"), importlib.import_module(f"{out.name}.hub")


def token_rows(label: str, code_mode: Any, hub_module: Any, snapshots: list[Path]) -> tuple[list[tuple[str, int]], str]:
    """The token figures of one hub, and how they were counted."""
    folder = Path(code_mode.__file__).parent
    listed = [tool for path in snapshots for tool in load_snapshot(path).tools]
    definitions, method = count_tokens(json.dumps(listed, ensure_ascii=False))
    sent = hub_module.Hub.tool_definitions("anthropic")
    stubs = "".join(code_mode.stubs().values())
    first_read = (folder / "AGENTS.md").read_text() + (folder / "index.md").read_text()
    found = code_mode.search_tools(TASK, detail="stubs", limit=5)
    rows = [
        (f"{label}: every tool definition as tools/list gives it ({len(listed)} tools)", definitions),
        (
            f"{label}: every tool definition in a model's tool list (Anthropic format)",
            count_tokens(json.dumps(sent))[0],
        ),
        (f"{label}: every stub (all `<module>.pyi`)", count_tokens(stubs)[0]),
        (f"{label}: AGENTS.md and index.md", count_tokens(first_read)[0]),
        (f"{label}: search_tools({TASK!r}), 5 stubs", count_tokens(found)[0]),
    ]
    return rows, method


def relayed(folder: Path, name: str) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(
        command=PYTHON, args=[str(RELAY), str(folder / f"{name}.json"), PYTHON, str(EXAMPLES[name])]
    )


def sent(folder: Path) -> int:
    """`tools/call` requests that reached either example server so far."""
    return sum(json.loads((folder / f"{name}.json").read_text()).get("tools/call", 0) for name in EXAMPLES)


async def median_seconds(runs: int, action: Callable[[], Awaitable[Any]]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def example_timings(code_mode: Any, hub_module: Any, runs: int, folder: Path) -> list[Timing]:
    """The scripts through `run_code` beside the same calls by `hub.call`, and the wrong scripts."""
    timings = []
    servers = {name: relayed(folder, name) for name in EXAMPLES}
    async with hub_module.Hub.connect(**servers) as hub:
        for name, (code, calls) in SCRIPTS.items():

            async def sandboxed(code: str = code) -> Any:
                return await code_mode.run_code(code, hub=hub, approve="allow")

            async def direct(calls: list[tuple[str, dict[str, Any]]] = calls) -> None:
                for tool, arguments in calls:
                    await hub.call(tool, arguments)

            await sandboxed()  # the first run pays the checker's and the worker's start-up once
            before = sent(folder)
            await sandboxed()
            requests = sent(folder) - before
            ours = await median_seconds(runs, sandboxed)
            theirs = await median_seconds(runs, direct)
            timings.append(Timing(f"run_code: {name}", ours, "the same calls by hub.call", theirs, requests))
        for name, code in WRONG_SCRIPTS.items():

            async def rejected(code: str = code, name: str = name) -> None:
                try:
                    await code_mode.run_code(code, hub=hub, approve="allow")
                except code_mode.ScriptRejected:
                    return
                raise SystemExit(f"the wrong script ({name}) was not rejected")

            before = sent(folder)
            seconds = await median_seconds(runs, rejected)
            timings.append(Timing(f"run_code rejects: {name}", seconds, "-", None, sent(folder) - before))
    return timings


async def real_timing(code_mode: Any, runs: int) -> Timing:
    """A wrong script against the real catalogs' stubs: rejected before any server is needed."""

    async def rejected() -> None:
        try:
            await code_mode.run_code(REAL_WRONG_SCRIPT, hub=None)
        except code_mode.ScriptRejected:
            return
        raise SystemExit("the wrong Playwright script was not rejected")

    seconds = await median_seconds(runs, rejected)
    return Timing("run_code rejects a wrong argument (Playwright)", seconds, "-", None, 0)


def measure(runs: int, real_catalogs: bool = True) -> tuple[list[tuple[str, int]], str, list[Timing]]:
    """The token figures (and how they were counted) and the timings; `real_catalogs=False` leaves
    out the hub of real catalogs."""
    with tempfile.TemporaryDirectory(prefix="mcp-stubgen-code-mode-") as work:
        folder = Path(work)
        examples = generate(EXAMPLE_SNAPSHOTS, folder / "examples_out" / "bench_examples")
        tokens, method = token_rows("examples", *examples, EXAMPLE_SNAPSHOTS)
        timings = asyncio.run(example_timings(*examples, runs, folder))
        if real_catalogs:
            real = generate(REAL_SNAPSHOTS, folder / "real_out" / "bench_real")
            tokens += token_rows("real catalogs", *real, REAL_SNAPSHOTS)[0]
            timings.append(asyncio.run(real_timing(real[0], runs)))
    wrong = [timing for timing in timings if timing.figure.startswith("run_code rejects") and timing.requests]
    if wrong:
        raise SystemExit(f"a rejected script sent requests: {wrong}")
    return tokens, method, timings


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9, help="Runs per timing; the median is reported.")
    parser.add_argument("--smoke", action="store_true", help="One run per timing (for CI).")
    options = parser.parse_args()
    tokens, method, timings = measure(1 if options.smoke else options.runs)
    print(f"| surface | tokens ({method}) |\n|---|---|")
    for figure, count in tokens:
        print(f"| {figure} | {count:,} |")
    print("\n| figure | value | baseline | baseline value | tools/call requests on the wire |\n|---|---|---|---|---|")
    for timing in timings:
        requests = "-" if timing.requests is None else str(timing.requests)
        print(
            f"| {timing.figure} | {_ms(timing.seconds)} | {timing.baseline} | {_ms(timing.baseline_seconds)} | {requests} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
