"""Our own microseconds per call, with no transport: `python benchmarks/call_overhead.py [--calls N]`.

The 10,000-call rows of `run.py` time calls to an in-process server, where the SDK's own work is
most of a call and load on a shared machine moves the ratio by more than our share of it. Here the
SDK client is replaced by one whose `call_tool` returns a ready result at once (its session already
lists the tool, as a real session does after the first call), so what is left is the generated
client's own cost: building and checking the arguments, checking the result and building the output
model (async method), plus running the call on the client's private event loop (sync twin, called
from this thread, which has no event loop).

Each cost is measured two ways. "Hot": calls back to back, the fastest of many rounds, the sides
taken in turn; the CPU's caches then hold nothing but our code and data, so this is the floor.
"After a round trip": each timed call follows one real `client.call_tool` round trip to the
in-process server, as every call in the 10,000-call row follows the SDK's and the server's work on
the call before (about a million instructions), which evicts our code and data from the caches;
the median of every call, the sides taken in turn call by call. The same instructions take about
twice as long there, and this figure, not the hot one, is the row's difference per call.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run import ECHO, echo_server  # noqa: E402
from codegen.generate import generate_package  # noqa: E402
from codegen.snapshot import Snapshot  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="Calls per hot round (40 rounds).")
    parser.add_argument("--round-trips", type=int, default=3000, help="Timed calls after a round trip, per side.")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcp-stubgen-overhead-") as work:
        generate_package(
            Snapshot(server="echo", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=(ECHO,)),
            Path(work) / "overhead",
        )
        sys.path.insert(0, work)
        from mcp import Client, types
        from overhead._mcp_runtime._runtime import SessionLoop  # type: ignore[import-not-found]
        from overhead.echo import EchoClient, EchoSyncClient  # type: ignore[import-not-found]

        result = types.CallToolResult(
            content=[types.TextContent(type="text", text="hello")], structured_content={"echo": "hello", "count": 1}
        )

        class Instant:
            """An opened SDK client whose `call_tool` answers at once; its session (itself) has listed the tool."""

            def __init__(self) -> None:
                self._tool_output_schemas = {"echo": None}

            @property
            def session(self) -> Instant:
                return self

            async def call_tool(self, name: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
                return result

        raw = Instant()
        typed = EchoClient(raw)
        loop = SessionLoop("the benchmark")
        sync_client = EchoSyncClient(typed, loop)

        async def per_call(call: Callable[[], Awaitable[Any]]) -> float:
            start = time.perf_counter()
            for _ in range(options.calls):
                await call()
            return (time.perf_counter() - start) / options.calls * 1e6

        def sync_per_call() -> float:
            start = time.perf_counter()
            for _ in range(options.calls):
                sync_client.echo(text="hello", times=2)
            return (time.perf_counter() - start) / options.calls * 1e6

        async def after_round_trips() -> tuple[float, float]:
            """The median microseconds of a generated call and of a bare one, each right after a real round trip."""
            ours: list[float] = []
            bare: list[float] = []
            async with Client(echo_server()) as client:
                EchoClient(client)  # the SDK session as a generated client leaves it, as in the row
                for _ in range(options.round_trips):
                    await client.call_tool("echo", {"text": "hello", "times": 2})
                    start = time.perf_counter()
                    await typed.echo(text="hello", times=2)
                    ours.append(time.perf_counter() - start)
                    await client.call_tool("echo", {"text": "hello", "times": 2})
                    start = time.perf_counter()
                    await raw.call_tool("echo", {"text": "hello", "times": 2})
                    bare.append(time.perf_counter() - start)
            return statistics.median(ours) * 1e6, statistics.median(bare) * 1e6

        best = {"bare call_tool": float("inf"), "generated method": float("inf"), "sync twin": float("inf")}
        runner = asyncio.Runner()
        sync_client.echo(text="warm", times=1)
        for _ in range(40):
            best["bare call_tool"] = min(
                best["bare call_tool"],
                runner.run(per_call(lambda: raw.call_tool("echo", {"text": "hello", "times": 2}))),
            )
            best["generated method"] = min(
                best["generated method"], runner.run(per_call(lambda: typed.echo(text="hello", times=2)))
            )
            best["sync twin"] = min(best["sync twin"], sync_per_call())
        cold, cold_bare = runner.run(after_round_trips())
        runner.close()
        loop.close()
    for name, micros in best.items():
        print(f"{name:>17}: {micros:6.2f} us a call (hot)")
    print(f"the generated method's own cost: {best['generated method'] - best['bare call_tool']:.2f} us a call (hot)")
    print(f"the sync twin's own cost on top: {best['sync twin'] - best['generated method']:.2f} us a call (hot)")
    print(
        f"after a round trip: generated method {cold:.2f} us, bare call_tool {cold_bare:.2f} us; "
        f"the generated method's own cost: {cold - cold_bare:.2f} us a call (what the 10,000-call row sees)"
    )


if __name__ == "__main__":
    main()
