"""The generated clients' stdio transport against the SDK's: `python benchmarks/stdio_transport.py
[--megabytes N ...] [--calls N] [--runs N]`.

A tool that reads a file or takes a screenshot answers with megabytes in one JSON-RPC line. The
generated clients' stdio transport (`_mcp_runtime/_stdio.py`) reads a line in time linear in its
length; the SDK's `stdio_client` joins the line read so far with every 64 KiB chunk, so its time
grows with the square of the length. The last row is the time per call of `--calls` small calls
back to back, where the transport's own cost per message shows. Both sides are the SDK's `Client`
and a raw `call_tool` of `tests/servers/hostile_server.py`'s `echo`, which sends the text back; only
the transport differs. Each figure is the median of `--runs`, the two sides taken in turn.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codegen.runtime._stdio import stdio_transport  # noqa: E402

SERVER = ROOT / "tests" / "servers" / "hostile_server.py"


async def _echo_seconds(text: str, calls: int, ours: bool) -> float:
    """Seconds per `echo` of `text`, over `calls` calls after a first one."""
    from mcp import Client, StdioServerParameters

    parameters = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    async with Client(stdio_transport(parameters, "echo") if ours else parameters) as client:
        if calls > 1:
            await client.call_tool("echo", {"text": text})
        started = time.perf_counter()
        for _ in range(calls):
            result = await client.call_tool("echo", {"text": text})
        seconds = (time.perf_counter() - started) / calls
    assert result.content[0].text == text  # type: ignore[union-attr]
    return seconds


def _paired(runs: int, text: str, calls: int) -> tuple[float, float]:
    ours: list[float] = []
    theirs: list[float] = []
    for run in range(runs):
        for side in (True, False) if run % 2 == 0 else (False, True):
            (ours if side else theirs).append(anyio.run(_echo_seconds, text, calls, side))
    return statistics.median(ours), statistics.median(theirs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--megabytes", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    print("| figure | generated client's transport | SDK's stdio_client | ratio |")
    print("|---|---|---|---|")
    for megabytes in options.megabytes:
        mine, sdk = _paired(options.runs, "0123456789abcdef" * (megabytes << 16), 1)
        print(f"| an answer of {megabytes} MiB | {mine:.2f} s | {sdk:.2f} s | {mine / sdk:.3f} |")
    mine, sdk = _paired(options.runs, "hi", options.calls)
    print(f"| {options.calls:,} small calls, per call | {mine * 1e6:.0f} us | {sdk * 1e6:.0f} us | {mine / sdk:.3f} |")


if __name__ == "__main__":
    main()
