"""A stdio relay that counts the JSON-RPC requests reaching the server behind it, by method.

`python counting_relay.py COUNTS.json SERVER_COMMAND...` starts the server, passes every line both
ways unchanged, and rewrites COUNTS.json (`{"tools/call": 2, ...}`) before forwarding each request,
so a test reads what reached the server's standard input, not what a client says it sent.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path


def record(counts_file: Path, counts: Counter[str]) -> None:
    """Replace the counts file whole, so a reader never sees half of it."""
    partial = counts_file.with_suffix(".partial")
    partial.write_text(json.dumps(counts, sort_keys=True))
    partial.replace(counts_file)


def main() -> int:
    counts_file, command = Path(sys.argv[1]), sys.argv[2:]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    counts: Counter[str] = Counter()
    record(counts_file, counts)

    def answers() -> None:
        for line in server.stdout:  # type: ignore[union-attr]
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()

    threading.Thread(target=answers, daemon=True).start()
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and "method" in message:
            counts[message["method"]] += 1
            record(counts_file, counts)
        server.stdin.write(line)
        server.stdin.flush()
    server.stdin.close()
    return server.wait()


if __name__ == "__main__":
    sys.exit(main())
