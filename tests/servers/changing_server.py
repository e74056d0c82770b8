"""A low-level SDK server whose tools change when its `add_tools` tool is called, for `watch` tests.

Served over Streamable HTTP on 127.0.0.1 so that a test can change the catalog from its own client
while the watcher holds a separate session. Each added tool is notified on its own, so one call
with several names is a burst of notifications; they go to every other session, in whichever era
that session speaks:

- 2026-07-28: a `ToolsListChanged` event on the shared subscription bus, which the SDK fans out to
  every open `subscriptions/listen` stream;
- legacy: `notifications/tools/list_changed`, sent by hand on every session that has listed the
  tools, since the SDK sends a legacy notification only on the session it is given.

With `--no-list-changed` it serves no `subscriptions/listen` and declares no `listChanged` in
either era, so a watcher has to poll it.

    python changing_server.py PORT [--no-list-changed] [--tools NAME,...]
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio
import uvicorn
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

_ADD_TOOLS = types.Tool(
    name="add_tools",
    description="Add tools with the given names to this server's catalog, notifying after each.",
    input_schema={
        "type": "object",
        "properties": {"names": {"type": "array", "items": {"type": "string"}}},
        "required": ["names"],
    },
)


def _tool(name: str) -> types.Tool:
    return types.Tool(
        name=name,
        description=f"The {name} tool.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )


class _ChangingServer(Server[Any]):
    """Declares `tools.listChanged` to legacy clients too, which the low-level server leaves to its caller."""

    def __init__(self, list_changed: bool, **handlers: Any) -> None:
        super().__init__("changing", version="1.0.0", **handlers)
        self._list_changed = list_changed

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        options = notification_options or NotificationOptions(tools_changed=self._list_changed)
        return super().create_initialization_options(options, experimental_capabilities, extensions)


def build_server(list_changed: bool, tools: list[str]) -> Server[Any]:
    catalog = {tool.name: tool for tool in [_ADD_TOOLS, *map(_tool, tools)]}
    bus = InMemorySubscriptionBus()
    legacy_sessions: dict[int, ServerSession] = {}

    async def list_tools(
        context: ServerRequestContext[Any, Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if context.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            legacy_sessions[id(context.session)] = context.session
        return types.ListToolsResult(tools=list(catalog.values()))

    async def call_tool(
        context: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name != "add_tools":
            return types.CallToolResult(content=[types.TextContent(text=f"called {params.name}")])
        names = [str(name) for name in (params.arguments or {})["names"]]
        for name in names:
            catalog[name] = _tool(name)
            if list_changed:
                await notify(context.session)
        return types.CallToolResult(content=[types.TextContent(text=f"added {', '.join(names)}")])

    async def notify(caller: ServerSession) -> None:
        await bus.publish(ToolsListChanged())
        for key, session in list(legacy_sessions.items()):
            if session is caller:
                continue
            try:
                await session.send_tool_list_changed()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                legacy_sessions.pop(key, None)

    return _ChangingServer(
        list_changed,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=ListenHandler(bus) if list_changed else None,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--no-list-changed", action="store_true")
    parser.add_argument("--tools", default="", help="Comma-separated names of tools to start with.")
    arguments = parser.parse_args()
    tools = [name for name in arguments.tools.split(",") if name]
    app = build_server(not arguments.no_list_changed, tools).streamable_http_app()
    uvicorn.run(app, host="127.0.0.1", port=arguments.port, log_level="warning")


if __name__ == "__main__":
    main()
