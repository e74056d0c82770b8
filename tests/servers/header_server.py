"""A low-level SDK server over Streamable HTTP whose tools mirror a parameter into an `Mcp-Param-*`
header (`x-mcp-header`, SEP-2243), which the SDK's server enforces on 2026-07-28 calls: a call
without the header is refused with HTTP 400 and -32020.

- `query` mirrors `region` into `Mcp-Param-Region` and answers with text;
- `count` mirrors `region` too, declares an output schema and answers with JSON text only (no
  `structuredContent`), so a client reads it with `parse_text_json`;
- `broken` annotates a `number` parameter, which the spec does not allow: clients drop the tool;
- `confirm` declares an output schema and answers with JSON text only too, but first asks the client
  to confirm (`input_required`, SEP-2322: an elicitation embedded in the result, answered by
  calling again with the answer).

Every HTTP request is appended to the `--log` file as `<Mcp-Method header> <status>`.

    python header_server.py PORT --log FILE
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import uvicorn
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

REGION = {"type": "string", "description": "Where the data lives.", "x-mcp-header": "Region"}
TOOLS = [
    types.Tool(
        name="query",
        description="Run a query in one region.",
        input_schema={
            "type": "object",
            "properties": {"region": REGION, "sql": {"type": "string"}},
            "required": ["region", "sql"],
        },
    ),
    types.Tool(
        name="count",
        description="Count the rows of one region.",
        input_schema={"type": "object", "properties": {"region": REGION}, "required": ["region"]},
        output_schema={"type": "object", "properties": {"rows": {"type": "integer"}}, "required": ["rows"]},
    ),
    types.Tool(
        name="confirm",
        description="Ask the user before going on.",
        input_schema={"type": "object", "properties": {"action": {"type": "string"}}, "required": ["action"]},
        output_schema={"type": "object", "properties": {"confirmed": {"type": "boolean"}}, "required": ["confirmed"]},
    ),
    types.Tool(
        name="broken",
        description="Its header annotation is on a number, which the spec forbids.",
        input_schema={"type": "object", "properties": {"limit": {"type": "number", "x-mcp-header": "Limit"}}},
    ),
]


def build_server() -> Server[Any]:
    async def list_tools(
        _context: ServerRequestContext[Any, Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(
        _context: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        arguments = params.arguments or {}
        if params.name == "confirm":
            answer = (params.input_responses or {}).get("proceed")
            if not isinstance(answer, types.ElicitResult) or params.request_state != "asked":
                question = types.ElicitRequest(
                    params=types.ElicitRequestFormParams(
                        message=f"Go on with {arguments['action']}?",
                        requested_schema={"type": "object", "properties": {"yes": {"type": "boolean"}}},
                    )
                )
                return types.InputRequiredResult(input_requests={"proceed": question}, request_state="asked")
            confirmed = answer.action == "accept" and bool((answer.content or {}).get("yes"))
            return types.CallToolResult(content=[types.TextContent(text=json.dumps({"confirmed": confirmed}))])
        if params.name == "count":
            text = json.dumps({"rows": len(str(arguments["region"]))})
        else:
            text = f"{params.name} in {arguments.get('region')}"
        return types.CallToolResult(content=[types.TextContent(text=text)])

    return Server("headers", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


class RequestLog:
    """ASGI middleware: one line per HTTP request, its `Mcp-Method` header and its response status."""

    def __init__(self, app: Any, path: str) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        method = headers.get(b"mcp-method", scope["method"].encode()).decode()

        async def logged(message: Any) -> None:
            if message["type"] == "http.response.start":
                with open(self.path, "a", encoding="utf-8") as log:
                    log.write(f"{method} {message['status']}\n")
            await send(message)

        await self.app(scope, receive, logged)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--log", required=True)
    arguments = parser.parse_args()
    app = RequestLog(build_server().streamable_http_app(), arguments.log)
    uvicorn.run(app, host="127.0.0.1", port=arguments.port, log_level="warning")


if __name__ == "__main__":
    main()
