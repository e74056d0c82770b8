"""A hand-written JSON-RPC stdio server (protocol 2025-11-25) whose tools run as MCP tasks and declare
output schemas, which `server-everything`'s task tool does not: typed task results are tested here.

It exists because the Python SDK's servers do not implement tasks. Each task works for
`TASK_SECONDS` and asks to be polled every `POLL_MS`; its status message counts the `tasks/get`
requests seen, so a test can tell that the client honoured the interval. `tasks/result` is answered
once the task has ended, as the spec has it. `--poll-ms N` asks for another interval (any integer).
`--forget-tasks` answers every `tasks/get` with an error, as a restarted server would; `--bad-status`
with a status MCP does not have.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

VERSION = "2025-11-25"
TASK_SECONDS = 0.5
POLL_MS = 50

TOOLS: list[dict[str, Any]] = [
    {
        "name": "forecast",
        "description": "Daily highs for a city; may run as a task.",
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city", "days"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "highs": {"type": "array", "items": {"type": "number"}}},
            "required": ["city", "highs"],
        },
        "execution": {"taskSupport": "optional"},
    },
    {
        "name": "multiply",
        "description": "Multiply two numbers; runs only as a task, and fails for a negative product.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "number"}},
            "required": ["result"],
            "x-fastmcp-wrap-result": True,
        },
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "clock",
        "description": "The time; lists itself as able to run as a task, but answers `tools/call` plainly.",
        "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "optional"},
    },
]


def outcome(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's `CallToolResult`; the city `Atlantis` breaks `forecast`'s output schema, and
    `Pixelville` adds an image whose base64 lacks its padding."""
    if name == "clock":
        return {"content": [{"type": "text", "text": "12:00"}]}
    if name == "forecast":
        highs: Any = [20.5 + day for day in range(arguments["days"])]
        if arguments["city"] == "Atlantis":
            highs = "underwater"
        structured = {"city": arguments["city"], "highs": highs}
    else:
        product = arguments["a"] * arguments["b"]
        if product < 0:
            return {"content": [{"type": "text", "text": "negative products are not supported"}], "isError": True}
        structured = {"result": product}
    content = [{"type": "text", "text": json.dumps(structured)}]
    if arguments.get("city") == "Pixelville":
        content.append({"type": "image", "data": "aGVsbG8gd29ybGQ", "mimeType": "image/png"})
    return {"content": content, "structuredContent": structured}


class Task:
    def __init__(self, task_id: str, name: str, arguments: dict[str, Any]) -> None:
        self.task_id = task_id
        self.created = time.monotonic()
        self.result = outcome(name, arguments)
        self.cancelled = False
        self.polls = 0

    def status(self) -> str:
        if self.cancelled:
            return "cancelled"
        if time.monotonic() - self.created < TASK_SECONDS:
            return "working"
        return "failed" if self.result.get("isError") else "completed"

    def wire(self) -> dict[str, Any]:
        stamp = "2026-01-01T00:00:00Z"
        return {
            "taskId": self.task_id,
            "status": self.status(),
            "statusMessage": f"polled {self.polls} times",
            "createdAt": stamp,
            "lastUpdatedAt": stamp,
            "ttl": 60_000,
            "pollInterval": int(sys.argv[sys.argv.index("--poll-ms") + 1]) if "--poll-ms" in sys.argv else POLL_MS,
        }


tasks: dict[str, Task] = {}


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request_id: Any, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def fail(request_id: Any, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def handle(request_id: Any, method: str, params: dict[str, Any]) -> None:
    if method == "initialize":
        capabilities = {"tools": {}, "tasks": {"cancel": {}, "list": {}, "requests": {"tools": {"call": {}}}}}
        answer(
            request_id,
            {
                "protocolVersion": VERSION,
                "capabilities": capabilities,
                "serverInfo": {"name": "tasks", "version": "1.0.0"},
            },
        )
    elif method == "tools/list":
        answer(request_id, {"tools": TOOLS})
    elif method == "tools/call":
        name, arguments = params["name"], params.get("arguments") or {}
        if "task" not in params or name == "clock":
            if name == "multiply":
                fail(request_id, -32601, "tool multiply requires task augmentation (taskSupport: 'required')")
            else:
                answer(request_id, outcome(name, arguments))
            return
        task_id = f"task-{len(tasks) + 1}"
        task = tasks[task_id] = Task(task_id, name, arguments)
        answer(request_id, {"task": task.wire()})
    elif method in ("tasks/get", "tasks/result", "tasks/cancel"):
        task = tasks.get(params.get("taskId", ""))
        if method == "tasks/get" and "--forget-tasks" in sys.argv:  # a server restarted since the task began
            fail(request_id, -32602, f"no task {params.get('taskId')!r}")
        elif method == "tasks/get" and "--bad-status" in sys.argv and task is not None:
            answer(request_id, {**task.wire(), "status": "exploded"})
        elif task is None:
            fail(request_id, -32602, f"no task {params.get('taskId')!r}")
        elif method == "tasks/get":
            task.polls += 1
            answer(request_id, task.wire())
        elif method == "tasks/cancel":
            task.cancelled = task.status() == "working"
            answer(request_id, task.wire())
        elif task.cancelled:
            fail(request_id, -32602, f"task {task.task_id!r} was cancelled")
        else:
            time.sleep(max(TASK_SECONDS - (time.monotonic() - task.created), 0.0))
            answer(request_id, task.result)
    elif method == "ping":
        answer(request_id, {})
    else:
        fail(request_id, -32601, f"Method not found: {method}")


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        if "id" in message and "method" in message:
            handle(message["id"], message["method"], message.get("params") or {})


if __name__ == "__main__":
    main()
