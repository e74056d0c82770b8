"""Generate a catalog of wide enums: `python benchmarks/wide_enums.py [--runs N] [--tools N] [--values N]`.

Each of 40 tools takes one argument that is a 500-value string enum (under naming rules 11's 1,000, so
each stays a `Literal`). black laid out each such `Literal` in the method, its sync twin and code
mode's two stubs, which took most of the run; the templates now write it in black's layout. Prints the
median wall and CPU time (the process and its workers) of `generate --no-cache`, alone and with
`--hub --code-mode`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run import Sample, generate_command, snapshot_of, timed  # noqa: E402
from codegen.snapshot import write_snapshot  # noqa: E402


def wide_tools(tools: int, values: int) -> list[dict[str, object]]:
    """`tools` tools, each with one required argument that is a `values`-value string enum."""
    return [
        {
            "name": f"pick_{tool:02d}",
            "description": f"Pick a zone of region {tool}.",
            "inputSchema": {
                "type": "object",
                "properties": {"zone": {"type": "string", "enum": [f"zone-{tool:02d}-{i:04d}" for i in range(values)]}},
                "required": ["zone"],
            },
        }
        for tool in range(tools)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tools", type=int, default=40)
    parser.add_argument("--values", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        snapshot = work / "wide.json"
        write_snapshot(snapshot, snapshot_of(wide_tools(args.tools, args.values)))
        for label, flags in (("generate", ()), ("generate --hub --code-mode", ("--hub", "--code-mode"))):
            samples: list[Sample] = []
            for run in range(args.runs):
                command = generate_command(snapshot, work / f"out{run}{len(flags)}", "--no-cache", "-q", *flags)
                samples.append(timed(command, accept=(0,)))
            wall = statistics.median(sample.wall for sample in samples)
            cpu = statistics.median(sample.cpu for sample in samples)
            print(f"{label}, {args.tools} tools x {args.values} values: {wall:.2f} s wall, {cpu:.2f} s CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
