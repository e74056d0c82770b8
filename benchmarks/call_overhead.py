"""Our own microseconds per call, with no transport: `python benchmarks/call_overhead.py [--calls N]`.

The 10,000-call rows of `run.py` time calls to an in-process server, where the SDK's own work is
most of a call and load on a shared machine moves the ratio by more than our share of it. Here the
SDK client is replaced by one whose `call_tool` returns a ready result at once, so what is left is
the generated client's own cost: building and checking the arguments, checking the result and
building the output model (async method), plus running the call on the client's private event loop
(sync twin, called from this thread, which has no event loop). Each figure is the fastest of many
rounds, the sides taken in turn.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run import ECHO  # noqa: E402
from codegen.generate import generate_package  # noqa: E402
from codegen.snapshot import Snapshot  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="Calls per round (40 rounds).")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcp-stubgen-overhead-") as work:
        generate_package(
            Snapshot(server="echo", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=(ECHO,)),
            Path(work) / "overhead",
        )
        sys.path.insert(0, work)
        from mcp import types
        from overhead._mcp_runtime._runtime import SessionLoop  # type: ignore[import-not-found]
        from overhead.echo import EchoClient, EchoSyncClient  # type: ignore[import-not-found]

        result = types.CallToolResult(
            content=[types.TextContent(type="text", text="hello")], structured_content={"echo": "hello", "count": 1}
        )

        class Instant:
            """An SDK client whose `call_tool` answers at once."""

            async def call_tool(self, name: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
                return result

        raw = Instant()
        typed = EchoClient(raw)
        loop = SessionLoop()
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
        runner.close()
        loop.close()
    for name, micros in best.items():
        print(f"{name:>17}: {micros:6.2f} us a call")
    print(f"the generated method's own cost: {best['generated method'] - best['bare call_tool']:.2f} us a call")
    print(f"the sync twin's own cost on top: {best['sync twin'] - best['generated method']:.2f} us a call")


if __name__ == "__main__":
    main()
