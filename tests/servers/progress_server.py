"""An MCP server that reports progress, honours cancellation and shows the request's `_meta`
(issue 16: per-call options). Runs over stdio.

`wait` reports progress once it has started, so a client knows the call arrived, then sleeps until
cancelled; `cancellations` lists the labels of the calls the server saw cancelled. `log_later` sends
a log message after its call has returned (on the legacy handshake, whose log messages need no
request), and `ask` asks the client to sample a message within its call.
"""

from __future__ import annotations

import asyncio
import json
import warnings

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import SamplingMessage, TextContent

warnings.filterwarnings("ignore", message="The (logging|sampling) capability is deprecated")  # legacy-era tools
server = MCPServer("progress", version="1.0.0")
cancelled: list[str] = []
later: set[asyncio.Task[None]] = set()


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


@server.tool(description="Return at once, then send the log message `message` after `seconds`.")
async def log_later(message: str, seconds: float, ctx: Context) -> str:
    session = ctx.session

    async def send() -> None:
        await anyio.sleep(seconds)
        await session.send_log_message(level="info", data=message)

    task = asyncio.get_running_loop().create_task(send())
    later.add(task)
    task.add_done_callback(later.discard)
    return "scheduled"


@server.tool(description="Ask the client to sample a reply to `question`, and return its text.")
async def ask(question: str, ctx: Context) -> str:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=question))
    reply = await ctx.session.create_message(messages=[message], max_tokens=10)
    return reply.content.text if isinstance(reply.content, TextContent) else ""


@server.resource("progress://slow", description="A resource that takes a minute.")
async def slow() -> str:
    await anyio.sleep(60)
    return "late"


if __name__ == "__main__":
    server.run()
