"""An MCP server that reports progress, honours cancellation and shows the request's `_meta`
(issue 16: per-call options). Runs over stdio.

`wait` reports progress once it has started, so a client knows the call arrived, then sleeps until
cancelled; `cancellations` lists the labels of the calls the server saw cancelled.
"""

from __future__ import annotations

import json

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("progress", version="1.0.0")
cancelled: list[str] = []


@server.tool(description="Count to `steps`, reporting progress after each step.")
async def count(steps: int, ctx: Context) -> int:
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return steps


@server.tool(description="Report that the call started, then wait until cancelled (or `seconds` pass).")
async def wait(label: str, ctx: Context, seconds: float = 60.0) -> str:
    await ctx.report_progress(0, None, "started")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        cancelled.append(label)
        raise
    return "done"


@server.tool(description="The labels of the calls the server saw cancelled.")
def cancellations() -> list[str]:
    return list(cancelled)


@server.tool(description="The request's `_meta` as the server received it, in JSON.")
def request_meta(ctx: Context) -> str:
    return json.dumps(ctx.request_context.meta or {}, sort_keys=True)


@server.tool(description="Echo a parameter whose name is the generated methods' own `call_options`.")
def echo_options(call_options: str) -> str:
    return call_options


@server.resource("progress://slow", description="A resource that takes a minute.")
async def slow() -> str:
    await anyio.sleep(60)
    return "late"


if __name__ == "__main__":
    server.run()
