"""A long answer over stdio: `python benchmarks/stdio_answer.py [--megabytes N ...] [--runs N]`.

A tool that reads a file or takes a screenshot answers with megabytes in one JSON-RPC line. The
generated clients' stdio transport (`_mcp_runtime/_stdio.py`) reads a line in time linear in its
length; the SDK's `stdio_client` joins the line read so far with every 64 KiB chunk, so its time
grows with the square of the length. Both sides here are the SDK's `Client` and a raw `call_tool`
of `tests/servers/hostile_server.py`'s `echo`, which sends the text back; only the transport
differs. Each figure is the median of `--runs`, the two sides taken in turn.
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


async def _echo_seconds(megabytes: int, ours: bool) -> float:
    from mcp import Client, StdioServerParameters

    parameters = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    text = "0123456789abcdef" * (megabytes << 16)
    async with Client(stdio_transport(parameters, "echo") if ours else parameters) as client:
        started = time.perf_counter()
        result = await client.call_tool("echo", {"text": text})
        seconds = time.perf_counter() - started
    assert result.content[0].text == text  # type: ignore[union-attr]
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--megabytes", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    print("| answer | generated client's transport | SDK's stdio_client | ratio |")
    print("|---|---|---|---|")
    for megabytes in options.megabytes:
        ours: list[float] = []
        theirs: list[float] = []
        for run in range(options.runs):
            for side in (True, False) if run % 2 == 0 else (False, True):
                (ours if side else theirs).append(anyio.run(_echo_seconds, megabytes, side))
        mine, sdk = statistics.median(ours), statistics.median(theirs)
        print(f"| {megabytes} MiB | {mine:.2f} s | {sdk:.2f} s | {mine / sdk:.3f} |")


if __name__ == "__main__":
    main()
