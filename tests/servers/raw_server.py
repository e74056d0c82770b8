"""A hand-written JSON-RPC stdio server that speaks only the legacy handshake, and can misbehave.

It exists because the SDK's own servers always answer `server/discover`; this one answers it with
-32601 like pre-2026 servers do, and each `--mode` breaks the protocol in one specific way. Mode
`dual-era` speaks both eras the way some SDKs' servers do: it answers `server/discover`, and still
answers a later `initialize` as a legacy server, on the same connection (`dual-era-anonymous`: with
no `serverInfo`; `dual-era-calls-need-initialize`: lists its tools in a 2026-07-28 session, but
refuses every call there for want of `initialize`, as kglite 0.21.2 does). Mode `empty` declares no
capabilities, so it lists nothing. Mode `probe-kills-reader` is a Python SDK 1.6 server (chroma-mcp
0.2.6): `server/discover` fails its request validation, which ends its reading task without an
answer, and the next line it is sent ends the process. Mode `probe-exits` is an rmcp 1.x server
(cortex-mcp 0.9.1): `server/discover` before `initialize` makes it say so on stderr and exit
(`probe-unparsed`: an rmcp 0.x server, es-mcp 0.2.2, says the line fits no message type of its own). Mode
`serves-http` is officeagent-mcp 1.2.0 without `--stdio`: it serves HTTP, says so on stdout, and
answers nothing on stdin (`serves-http-endpoint`: financial-modeling-prep-mcp-server 2.5.3, an
HTTP server alone, which names its health URL before its MCP one; `serves-http-silently`:
lucide-icons-mcp 0.1.67, whose child process listens on a port and which says nothing; `waits-for-sign-in`:
@a-bonus/google-docs-mcp 1.11.3 with no stored token, which listens on a loopback port for the
redirect of the sign-in URL it prints to stderr, and answers nothing until a browser comes back;
`names-metrics-url`: a stdio server that names an HTTP page of its own on stderr and answers;
`command-bridge`: mcp-compressor 0.38.2 in `--cli-mode`, no MCP server at all, which names the URL of
a command bridge that answers 404). Mode `probe-answered-with-another-id` is effect-mcp 0.1.16 (Effect's `McpServer`): it refuses
`server/discover` with an error whose `id` is its error code, not the request's.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import time
from urllib.parse import quote

LEGACY_VERSION = "2025-06-18"
MODERN_VERSION = "2026-07-28"
PROTOCOL_META = "io.modelcontextprotocol/protocolVersion"
PAGE_SIZE = 2


def tool(name: str) -> dict[str, object]:
    return {
        "name": name,
        "description": f"The {name} tool.",
        "inputSchema": {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]},
    }


TOOLS = [tool(name) for name in ("alpha", "bravo", "charlie", "delta", "echo")]


def deep_tool(levels: int) -> dict[str, object]:
    """A tool whose input schema nests an object property `levels` times: 2 JSON levels each."""
    schema: dict[str, object] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"inner": schema}}
    return {"name": "deep", "inputSchema": schema}


ECHOES = {
    "echo-secret-catalog": lambda key: key,
    "echo-secret-base64": lambda key: base64.b64encode(key.encode()).decode(),
    "echo-secret-in-base64": lambda key: base64.urlsafe_b64encode(f"user=bob;key={key};".encode()).decode(),
    "echo-secret-hex": lambda key: key.encode().hex(),
    "echo-secret-reversed": lambda key: key[::-1],
    "echo-secret-zero-width": lambda key: "\u200b".join(key),
}
"""The `--mode`s that put the server's API key into its instructions, and how each spells it."""


FIELDS = {"summary", "status", "assignee", "reporter", "priority", "labels", "created", "updated"}
"""Mode `set-order`'s instructions list these in the order the set iterates in."""


def obj_with_maximum(bound: object) -> dict[str, object]:
    return {"type": "object", "properties": {"count": {"type": "integer", "maximum": bound}}}


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


_modern_request = False
"""Whether the request being answered carries 2026-07-28 `_meta` (mode `dual-era` only)."""


def answer(request_id: object, result: dict[str, object]) -> None:
    if _modern_request:  # the fields every 2026-07-28 result has
        result = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public", **result}
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def fail(request_id: object, code: int, message: str, data: object = None) -> None:
    error: dict[str, object] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    send({"jsonrpc": "2.0", "id": request_id, "error": error})


def tools_page(mode: str, cursor: str | None) -> dict[str, object]:
    if mode == "cursor-loop":
        return {"tools": TOOLS[:1], "nextCursor": "again"}
    if mode == "empty-cursor":  # every page, the last too, ends with "" (higress's MCP servers did)
        return {"tools": TOOLS, "nextCursor": ""}
    if mode == "endless-cursor":  # a fresh cursor every time: only a page limit stops the listing
        return {"tools": TOOLS[:1], "nextCursor": str(int(cursor or 0) + 1)}
    start = int(cursor or 0)
    if mode == "crash-mid-list" and start > 0:
        sys.stderr.write("worker died while listing page 2\n")
        sys.stderr.flush()
        sys.exit(7)
    if mode in ("duplicate", "duplicate-logging") and start > 0:
        return {"tools": [TOOLS[0]]}
    page: dict[str, object] = {"tools": TOOLS[start : start + PAGE_SIZE]}
    if start + PAGE_SIZE < len(TOOLS):
        page["nextCursor"] = str(start + PAGE_SIZE)
    return page


def handle(mode: str, message: dict[str, object], delay: float = 0.0) -> None:
    method, request_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    assert isinstance(params, dict)
    if request_id is None:  # a notification
        return
    global _modern_request
    _modern_request = mode.startswith("dual-era") and PROTOCOL_META in (params.get("_meta") or {})
    if method == "server/discover" and mode.startswith("dual-era"):
        capabilities = {"tools": {"listChanged": True}, "prompts": {}}
        result: dict[str, object] = {"supportedVersions": [MODERN_VERSION], "capabilities": capabilities}
        if mode == "dual-era":  # the serverInfo stamp is optional in 2026-07-28
            result["_meta"] = {"io.modelcontextprotocol/serverInfo": {"name": "raw-dual", "version": "0.3.0"}}
        answer(request_id, result)
    elif method == "server/discover" and mode == "probe-answered-with-another-id":
        error = {
            "_tag": "Defect",
            "code": 1,
            "message": "A defect occurred",
            "data": "Unknown request tag: server/discover",
        }
        send({"jsonrpc": "2.0", "id": -32603, "error": error})
    elif method == "server/discover":
        if mode == "noisy-probe":
            sys.stderr.write("warning: unrelated noise while probing server/discover\n")
            sys.stderr.flush()
        fail(request_id, -32601, "Method not found: server/discover")
    elif method == "initialize":
        if mode == "slow-handshake":
            time.sleep(delay)
        if mode == "garbage":
            sys.stdout.write("Starting server... this line is not JSON-RPC\n")
        if mode == "echo-secret-stdout":
            sys.stdout.write(f"logged in as {os.environ.get('API_KEY')}\n")
        if mode == "bad-json":
            sys.stdout.write('{"jsonrpc": "2.0", "id": \n')
            sys.stdout.flush()
            return
        if mode == "huge-line":
            sys.stdout.write("x" * (50 * 1024 * 1024) + "\n")
        if mode == "mismatched-id":
            answer(12345, {})
            return
        if mode == "dies-quietly":  # says why as it starts, then exits at the next request without a word
            sys.stderr.write("Error: This command expects an MCP client on stdin (initialize handshake).\n")
            sys.stderr.flush()
        answer(
            request_id,
            {
                "protocolVersion": LEGACY_VERSION,
                "capabilities": {} if mode == "empty" else {"tools": {"listChanged": True}, "prompts": {}},
                "serverInfo": {"name": "raw-legacy", "version": "0.3.0"},
                "instructions": f"Your key is {ECHOES[mode](os.environ.get('API_KEY', ''))}."
                if mode in ECHOES
                # a set's order follows the process's hash seed, as mcp-atlassian's default `fields` do
                else f"Default fields: {','.join(FIELDS)}."
                if mode == "set-order"
                else "A legacy server for tests.",
            },
        )
    elif method == "tools/list":
        if mode == "dies-quietly":
            os._exit(1)
        if mode == "ref-into-data":  # a `$ref` into instance data: no package can be generated
            broken = tool("broken")
            properties = {"x": {"$ref": "#/properties/y/enum/0"}, "y": {"enum": [{"type": "string"}]}}
            broken["inputSchema"] = {"type": "object", "properties": properties}
            answer(request_id, {"tools": [broken]})
            return
        if mode == "deep-schema":  # over the 200 levels the SDK's JSON parser reads in one message
            answer(request_id, {"tools": [deep_tool(150)]})
            return
        if mode in ("long-integer", "infinite-maximum"):  # numbers Python cannot hold as sent
            number = "9" * 5000 if mode == "long-integer" else "1e999"
            bounded = {"name": "bounded", "inputSchema": obj_with_maximum("NUMBER")}
            line = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [tool("plain"), bounded]}})
            sys.stdout.write(line.replace('"NUMBER"', number) + "\n")
            sys.stdout.flush()
            return
        if mode == "latin-1":  # a description written in Latin-1, not UTF-8: 'caf\xe9'
            latin = {"name": "latin", "description": "LATIN", "inputSchema": {"type": "object"}}
            line = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [tool("plain"), latin]}})
            sys.stdout.buffer.write(line.encode().replace(b"LATIN", "café".encode("latin-1")) + b"\n")
            sys.stdout.flush()
            return
        if mode == "invalid-result":  # a page, not one entry, that is not valid MCP
            answer(request_id, {"tools": {"name": "broken", "inputSchema": {"type": "object"}}})
            return
        if mode == "hang-after-handshake":
            hang()
        if mode == "slow-list" and not params.get("cursor"):
            time.sleep(delay)
        if mode == "list-error":
            fail(request_id, -32603, "database unavailable")
            return
        if mode == "batch-list":  # the answer as a JSON-RPC batch of one, which MCP allowed only in 2025-03-26
            sys.stdout.write(json.dumps([{"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}}]) + "\n")
            sys.stdout.flush()
            return
        if mode == "noisy-probe":
            sys.stderr.write("error: table 'tools' is locked\n")
            sys.stderr.flush()
            fail(request_id, -32603, "database unavailable")
            return
        if mode == "hostile-error":
            fail(request_id, -32603, "failed\n::notice title=pwned::owned\x1b]8;;https://evil.example\x07link")
            return
        if mode == "tools-not-implemented":
            fail(request_id, -32601, "Method not found")
            return
        answer(request_id, tools_page(mode, params.get("cursor")))  # type: ignore[arg-type]
    elif method == "tools/call":  # `alpha` fails with a JSON-RPC error, the others echo their value
        arguments = params.get("arguments") or {}
        assert isinstance(arguments, dict)
        if mode == "dual-era-calls-need-initialize" and _modern_request:  # kglite 0.21.2 (rmcp 3.5)
            fail(request_id, -32600, "initialize is required")
        elif params.get("name") == "alpha":
            fail(request_id, -32603, "database unavailable", {"retry_after": 5})
        else:
            answer(
                request_id, {"content": [{"type": "text", "text": f"{params.get('name')}: {arguments.get('value')}"}]}
            )
    elif method == "prompts/list":
        if mode == "prompts-list-error":  # terraform-mcp-server 0.13.0's resources/list, in kind
            fail(request_id, -32603, "Missing or invalid 'uri' parameter in prompts/list request")
            return
        if mode == "prompts-list-hang":
            hang()
        if mode == "prompts-list-invalid":  # a page whose prompts are not a list
            answer(request_id, {"prompts": {"description": "nameless"}})
            return
        answer(request_id, {"prompts": [{"name": "summarize", "arguments": [{"name": "text", "required": True}]}]})
    elif method == "ping":
        answer(request_id, {})
    else:
        fail(request_id, -32601, f"Method not found: {method}")


def hang() -> None:
    """Answer nothing and ignore a closed stdin, as a stuck server does, so the client's shutdown must
    stop it; but only while the process that started this one lives: a test killed mid-way (and its
    client with it) must not leave a server behind, and an hour's sleep did. `RAW_SERVER_HANGING_FILE`,
    when set, is created first: it tells a test the client is now waiting on this server."""
    if os.environ.get("RAW_SERVER_HANGING_FILE"):
        open(os.environ["RAW_SERVER_HANGING_FILE"], "w").close()
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.2)
    sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds slow-handshake and slow-list wait")
    parser.add_argument("--log", help="a file to append the method of every message received to, one a line")
    parser.add_argument("--start-delay", type=float, default=0.0, help="seconds to wait before reading stdin")
    options = parser.parse_args()
    mode = options.mode
    if mode == "byte-order-mark":  # a .NET console with a UTF-8 output encoding: a BOM before the first answer
        sys.stdout.write("\ufeff")
    if mode == "leak-secret":
        sys.stdout.write(f"logging in with {os.environ.get('API_KEY')}\n")
        sys.stderr.write(f"cannot log in with API_KEY={os.environ.get('API_KEY')}\n")
        sys.exit(4)
    if mode == "leak-secret-spellings":
        secret = os.environ.get("API_KEY", "")
        half = len(secret) // 2
        sys.stderr.write(json.dumps({"api_key": secret}) + "\n")
        sys.stderr.write(f"config={ {'api_key': secret}!r}\n")
        sys.stderr.write(f"GET /login?key={quote(secret, safe='')}\n")
        sys.stderr.write(f"token: {secret[:half]}\n{secret[half:]} was rejected\n")
        sys.exit(4)
    if mode == "leak-secret-at-cut":
        secret = os.environ.get("API_KEY", "")
        sys.stderr.write(f"cannot log in with {secret} " + "." * (600 - len(secret) // 2) + "\n")
        sys.exit(4)
    if mode == "duplicate-logging":  # metabase-ai-assistant 4.2.0: log lines on stdout and stderr as it starts
        sys.stdout.write("08:09:29 [info]: Metabase client initialized\n")
        sys.stderr.write("activity logger initialized\n")
        sys.stdout.flush()
    if mode == "exit-silently":  # minimax-mcp-js 0.0.18 without MINIMAX_API_KEY: no word anywhere
        sys.exit(1)
    if mode == "exit-done":  # @primeuix/mcp 1.0.1, a library whose command runs nothing: status 0
        sys.exit(0)
    if mode == "crash-start":
        sys.stderr.write("fatal: missing configuration file settings.ini\n")
        sys.exit(3)
    if mode == "usage-after-error":  # kubernetes-mcp-server: the cause first, then pages of usage text
        sys.stderr.write("Error: unable to create kubernetes target provider: no current-context\n")
        sys.stderr.write("Usage:\n  kubernetes-mcp-server [flags]\n\nFlags:\n")
        sys.stderr.writelines(f"  --flag-{number} string   what flag {number} does\n" for number in range(20))
        sys.exit(1)
    if mode == "node-uncaught":  # @azure-devops/mcp installed without its native keytar: Node's report
        sys.stderr.write(
            "node:internal/modules/cjs/loader:1207\n  const err = new Error(message);\n              ^\n\n"
            "Error: Cannot find module '../build/Release/keytar.node'\nRequire stack:\n"
            "- /srv/node_modules/keytar/lib/keytar.js\n"
            "    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n"
            "    at Module._load (node:internal/modules/cjs/loader:1038:27)\n"
            "    at cjsLoader (node:internal/modules/esm/translators:298:15) {\n  code: 'MODULE_NOT_FOUND',\n"
            "  requireStack: [ '/srv/node_modules/keytar/lib/keytar.js' ]\n}\n\nNode.js v20.20.2\n"
        )
        sys.exit(1)
    if mode == "node-message-next-line":  # agentdb 1.6.1 without sharp's binary: a warning, then an Error
        # whose message begins with a line break, so Node prints `Error: ` alone above it
        sys.stderr.write(
            '\u26a0\ufe0f  Transformers.js initialization failed: \nSomething went wrong installing the "sharp" module\n'
            "   Falling back to mock embeddings for testing\n"
            "/srv/node_modules/sharp/lib/sharp.js:37\n  throw new Error(help.join('\\n'));\n        ^\n\n"
            'Error: \nSomething went wrong installing the "sharp" module\n\n'
            "Cannot find module '../build/Release/sharp-linux-x64.node'\nRequire stack:\n"
            "- /srv/node_modules/sharp/lib/sharp.js\n"
            "    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n"
            "    at Module._load (node:internal/modules/cjs/loader:1038:27)\n"
            "    at Module._compile (node:internal/modules/cjs/loader:1521:14)\n\nNode.js v20.20.2\n"
        )
        sys.exit(1)
    if mode == "wrapper-fatal-log":  # slack-mcp-server 1.3.0: its Go binary's JSON log, then its Node wrapper's throw
        stack = "github.com/korotovsky/slack-mcp-server/pkg/provider.New\\n\\t/src/pkg/provider/api.go:662" * 8
        cause = 'Post \\"https://slack.com/api/auth.test\\": dial tcp: lookup slack.com: network is unreachable'
        sys.stderr.write(
            f'{{"level":"error","message":"Request failed","error":"{cause}","stacktrace":"{stack}"}}\n'
            f'{{"level":"fatal","message":"Authentication failed - check your Slack tokens","error":"{cause}",'
            f'"stacktrace":"{stack}"}}\n'
            "node:child_process:930\n    throw err;\n    ^\n\n"
            "Error: Command failed: /srv/node_modules/slack-mcp-server-linux-amd64/bin/slack-mcp-server --transport stdio\n"
            "    at genericNodeError (node:internal/errors:984:15)\n"
            "    at checkExecSyncError (node:child_process:891:11)\n"
            "    at Object.execFileSync (node:child_process:927:15) {\n  status: 1,\n  signal: null,\n"
            "  output: [ null, null, null ],\n  pid: 19001,\n  stdout: null,\n  stderr: null\n}\n\nNode.js v20.20.2\n"
        )
        sys.exit(1)
    if mode == "fatal-log":  # slack-mcp-server 1.3.0's Go binary run alone, with no token: one JSON line, then exit
        stack = "github.com/korotovsky/slack-mcp-server/pkg/provider.New\\n\\t/src/pkg/provider/api.go:682" * 8
        sys.stderr.write(
            '{"level":"fatal","message":"Authentication required: Either SLACK_MCP_XOXP_TOKEN or SLACK_MCP_XOXB_TOKEN '
            f'must be provided","app":"slack-mcp-server","stacktrace":"{stack}"}}\n'
        )
        sys.exit(1)
    if mode == "rich-log":  # jupyter-mcp-server 2.2.4 with no Jupyter: its records wrapped by rich's RichHandler
        sys.stderr.write(
            "[12/05/26 02:59:39] INFO     Initializing MCP_SERVER mode  server_context.py:118\n"
            "                             with code_sandbox_url:                             \n"
            "                             http://localhost:8888                              \n"
            "                    WARNING  Anonymous XSRF cookie fetch    server_context.py:87\n"
            "                             failed for                                         \n"
            "                             http://localhost:8888,                             \n"
            "                             continuing without it:                             \n"
            "                             HTTPConnectionPool(host='local                     \n"
            "                             host', port=8888): Max retries                     \n"
            "                             exceeded with url: /login                          \n"
            "                    INFO     Server mode initialized:      server_context.py:219\n"
            "                             ServerMode.MCP_SERVER                              \n"
            "                    INFO     Shutting down                          utils.py:412\n"
            "                    INFO     Stopped                                utils.py:413\n"
            "[02:59:40.002] INFO (81): proxy stopped on 127.0.0.1:8080\n"  # pino-pretty's, not rich's
        )
        sys.exit(1)
    if mode == "python-traceback":  # mcp-tool-builder 0.1.0, written for mcp 1.x, under mcp 2.x
        sys.stderr.write(
            "Traceback (most recent call last):\n"
            '  File "/srv/bin/tool-builder", line 8, in <module>\n    sys.exit(run_server())\n'
            '  File "/srv/mcp_tool_builder/cli.py", line 5, in run_server\n    asyncio.run(main())\n'
            '  File "/srv/mcp_tool_builder/tool_builder_server.py", line 32, in __init__\n'
            "    self._register_handlers()\n"
            '  File "/srv/mcp_tool_builder/tool_builder_server.py", line 37, in _register_handlers\n'
            "    @self.server.list_tools()\n     ^^^^^^^^^^^^^^^^^^^^^^\n"
            "AttributeError: 'Server' object has no attribute 'list_tools'\n"
        )
        sys.exit(1)
    if mode == "python-exception-group":  # semgrep-mcp 0.9.0 without semgrep: its lifespan fails in a TaskGroup
        sys.stderr.write(
            "INFO:root:Starting Semgrep MCP server v0.9.0, Semgrep version vunknown\n"
            "  + Exception Group Traceback (most recent call last):\n"
            '  |   File "/srv/bin/semgrep-mcp", line 8, in <module>\n  |     sys.exit(main())\n'
            '  |   File "/srv/anyio/_backends/_asyncio.py", line 871, in __aexit__\n'
            "  |     raise BaseExceptionGroup(\n"
            "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
            "  +-+---------------- 1 ----------------\n"
            "    | Traceback (most recent call last):\n"
            '    |   File "/srv/semgrep_mcp/semgrep.py", line 149, in create_args\n'
            "    |     semgrep_path = await ensure_semgrep_available()\n"
            "    |                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
            '    |   File "/srv/semgrep_mcp/utilities/utils.py", line 164, in ensure_semgrep_available\n'
            "    |     raise McpError(\n"
            "    | mcp.shared.exceptions.McpError: Semgrep is not installed or not in your PATH.\n"
            "    +------------------------------------\n"
        )
        sys.exit(1)
    if mode == "warning-then-traceback":  # FastMCP 3.4: a tool name's warning, then the decorator's error
        sys.stderr.write(
            'Tool name validation warning for "在庫数":\n'
            "  - Tool name contains invalid characters: '在', '庫', '数'\n"
            "  - Allowed characters are: A-Z, a-z, 0-9, underscore (_), dash (-), and dot (.)\n"
            "Tool registration will proceed, but this may cause compatibility issues.\n"
            "Traceback (most recent call last):\n"
            '  File "/srv/shop.py", line 69, in <module>\n    @mcp.tool(name="cart.add-item")\n'
            '  File "/srv/fastmcp/tools/function_parsing.py", line 192, in from_function\n'
            "    raise ValueError(\n"
            "ValueError: Functions with **kwargs are not supported as tools\n"
        )
        sys.exit(1)
    if mode == "coloured-exit":  # @stripe/mcp 0.3.3 offline: chalk's colours around its complaint
        sys.stderr.write("\x1b[33mThe --tools flag has been removed.\x1b[39m\n")
        sys.stderr.write("\x1b[31mHTTP transport error:\x1b[39m TypeError: fetch failed\n")
        sys.stdout.write("\x1b[1mStripe MCP\x1b[22m \x1b]8;;https://example.com\x1b\\docs\x1b]8;;\x1b\\\n")
        sys.exit(1)
    if mode == "deprecation-exit":  # @salesforce/mcp 0.30.15 on Node 20: a long warning, then oclif's error
        package = "/home/developer/projects/sales-tools/node_modules/@salesforce/metadata-enrichment/"
        sys.stderr.write(
            f'(node:13381) [DEP0151] DeprecationWarning: Package {package} has a "main" field set to "lib/index", '
            'excluding the full filename and extension to the resolved file at "lib/index.js", imported from '
            f"{package.replace('/metadata-enrichment/', '/mcp-provider-metadata-enrichment/')}"
            "dist/tools/enrich_metadata.js.\n"
            ' Automatic extension resolution of the "main" field is deprecated for ES modules.\n'
            "(Use `node --trace-deprecation ...` to show where the warning was created)\n"
            "    TypeError: Cannot read properties of undefined (reading 'bind')\n"
        )
        sys.exit(2)
    if mode == "stdout-banner-exit":  # 00bx-photoshop-mcp: its complaint on stdout, then exit
        sys.stdout.write("\n  example-mcp v1.0\n\n  To complete installation:\n    example-mcp-install\n")
        sys.stdout.write("  Installation not complete. Run: example-mcp-install\n")
        sys.exit(1)
    if mode == "hang":
        hang()
    if mode == "serves-http-endpoint":  # financial-modeling-prep-mcp-server 2.5.3, whatever it is given
        for line in (
            "[FmpMcpServer] 🚀 MCP Server started successfully on port 8080",
            "[FmpMcpServer] 🏥 Health endpoint available at http://localhost:8080/healthcheck",
            "[FmpMcpServer] 🔌 MCP endpoint available at http://localhost:8080/mcp",
        ):
            sys.stdout.write(line + "\n")
        sys.stdout.flush()
        hang()
    if mode == "serves-http-silently":  # lucide-icons-mcp 0.1.67 without --stdio: a child listens, says nothing
        import subprocess

        listen = "import socket, sys; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); sys.stdin.read()"
        subprocess.Popen([sys.executable, "-c", listen], stdin=subprocess.PIPE)  # it ends when this process does
        hang()
    if mode == "waits-for-sign-in":  # @a-bonus/google-docs-mcp 1.11.3 with no stored token
        import socket

        callback = socket.socket()
        callback.bind(("127.0.0.1", 0))
        callback.listen()
        redirect = quote(f"http://localhost:{callback.getsockname()[1]}", safe="")
        sys.stderr.write("[INFO] No saved token found. Starting interactive authentication flow...\n")
        sys.stderr.write(
            "[INFO] Authorize this app by visiting this url: https://accounts.example.com/o/oauth2/v2/auth"
            f"?access_type=offline&client_id=demo&redirect_uri={redirect}&response_type=code\n"
        )
        sys.stderr.flush()
        hang()
    if mode == "command-bridge":  # mcp-compressor 0.38.2 --cli-mode: no MCP server, a command bridge on HTTP
        import threading
        from http.server import BaseHTTPRequestHandler, HTTPServer

        class NoMcpHere(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.send_error(404)

            do_GET = do_POST

        bridge = HTTPServer(("127.0.0.1", 0), NoMcpHere)
        threading.Thread(target=bridge.serve_forever, daemon=True).start()
        sys.stderr.write(f"CLI bridge listening on http://127.0.0.1:{bridge.server_port}\n")
        sys.stderr.flush()
        hang()
    if mode == "serves-http":  # officeagent-mcp 1.2.0 without --stdio: ASP.NET serves HTTP, logs to stdout
        for line in ("Now listening on: http://localhost:5000", "Application started. Press Ctrl+C to shut down."):
            sys.stdout.write(f"info: Microsoft.Hosting.Lifetime[14]\n      {line}\n")
        sys.stdout.write("info: Microsoft.Hosting.Lifetime[0]\n      Hosting environment: Production\n")
        sys.stdout.flush()
        hang()
    if mode == "init-watchdog":  # biomcp 0.9.3 (rmcp): exits unless a request arrives within `--delay` seconds
        import select

        if not select.select([sys.stdin], [], [], options.delay)[0]:
            sys.stderr.write("Error: This command expects an MCP client on stdin (initialize handshake).\n")
            sys.exit(1)
    if mode == "names-metrics-url":  # a stdio server with an HTTP page on the side, which it names on stderr
        sys.stderr.write("Metrics server listening on http://127.0.0.1:9464/metrics\n")
        sys.stderr.flush()
    time.sleep(options.start_delay)
    reading = True
    for line in sys.stdin:
        if line.strip():
            if not reading:
                sys.stderr.write("ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n")
                sys.exit(1)
            message = json.loads(line)
            if options.log:
                with open(options.log, "a", encoding="utf-8") as log:
                    log.write(f"{message.get('method')}\n")
            if mode == "probe-exits" and message.get("method") == "server/discover":  # rmcp 1.x: cortex-mcp 0.9.1
                sys.stderr.write(
                    "Error: expect initialized request, but received: Some(Request(JsonRpcRequest { "
                    'method: "server/discover", params: Some(Object {}) }))\n'
                )
                sys.exit(1)
            if mode == "probe-unparsed" and message.get("method") == "server/discover":  # rmcp 0.x: es-mcp 0.2.2
                sys.stderr.write(
                    "ERROR rmcp::transport::async_rw: Error reading from stream: serde error data did not match "
                    "any variant of untagged enum JsonRpcMessage\n"
                    'ERROR elasticsearch_core_mcp_server: serving error: ConnectionClosed("initialized request")\n'
                    "Error: connection closed: initialized request\n"
                )
                sys.exit(1)
            if mode == "probe-kills-reader" and message.get("method") == "server/discover":
                reading = False
                continue
            handle(mode, message, options.delay)


if __name__ == "__main__":
    main()
