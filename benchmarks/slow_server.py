"""A light JSON-RPC stdio MCP server that sleeps before answering: `python benchmarks/slow_server.py DELAY`.

It imports nothing but the standard library, so the "8 slow-starting servers" row measures how well
snapshotting overlaps their start-up, not how long eight interpreters take to import the SDK. It speaks
the legacy handshake (`server/discover` is answered "method not found") and lists three tools.
"""

from __future__ import annotations

import json
import sys
import time

VERSION = "2025-06-18"
TOOLS = [
    {"name": name, "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
    for name in ("alpha", "bravo", "charlie")
]


def reply(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    time.sleep(float(sys.argv[1]))
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue
        if method == "initialize":
            result = {
                "protocolVersion": VERSION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "slow", "version": "1.0.0"},
            }
            reply({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "tools/list":
            reply({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
        elif method == "ping":
            reply({"jsonrpc": "2.0", "id": request_id, "result": {}})
        else:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            reply({"jsonrpc": "2.0", "id": request_id, "error": error})


if __name__ == "__main__":
    main()
