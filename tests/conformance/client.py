"""The client command the MCP conformance runner starts for each client scenario.

    python tests/conformance/client.py --workdir DIR [--protocol VERSION] SERVER_URL

The runner starts the scenario's mock server, sets `MCP_CONFORMANCE_SCENARIO` (and, for some
scenarios, `MCP_CONFORMANCE_CONTEXT`), appends the server's URL, and judges what reaches its server.
This command does what a user does: `mcp-stubgen snapshot` the server, `mcp-stubgen generate` a
package from that snapshot, then perform the scenario through the generated client. What each
scenario expects is described by the SDK's own conformance client
(`modelcontextprotocol/python-sdk`, `.github/actions/conformance/client.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import re
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.context import ClientRequestContext
from mcp.shared.auth import AuthorizationCodeResult
from mcp.types import (
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    ListRootsResult,
    TextContent,
)

from codegen.cli import main as stubgen
from codegen.identifiers import class_name, package_name, snake_case
from codegen.snapshot.format import load_snapshot


@dataclass(frozen=True)
class Scenario:
    """What one scenario needs: the capabilities to declare, and what to do with the generated client."""

    perform: Callable[[Run], Awaitable[None]]
    client_capabilities: tuple[str, ...] = ()


@dataclass
class Run:
    """One scenario's generated client class, where it came from, and the runner's context."""

    client_class: Any
    package: ModuleType
    snapshot_path: Path
    url: str
    context: Mapping[str, Any]
    server: str

    def connect(self, **handlers: Any) -> Any:
        """Connect the generated client; a protected server with the tokens `snapshot` stored."""
        if self.server.startswith("auth-"):
            browser = BrowserStandIn()
            handlers["auth"] = self.package.stored_auth(
                self.server, redirect_handler=browser.open, callback_handler=browser.come_back
            )
        return self.client_class.connect(self.url, **handlers)


async def answer_sampling(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=""), model="conformance")


async def answer_roots(context: ClientRequestContext) -> ListRootsResult:
    return ListRootsResult(roots=[])


async def accept_defaults(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    """Accept an elicitation with the defaults its form schema gives (SEP-1034)."""
    content: dict[str, Any] = {}
    if isinstance(params, ElicitRequestFormParams):
        for name, schema in params.requested_schema.get("properties", {}).items():
            if "default" in schema:
                content[name] = schema["default"]
    return ElicitResult(action="accept", content=content)


async def confirm(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="accept", content={"confirmed": True})


async def initialize(run: Run) -> None:
    async with run.connect() as client:
        await client.verify()


async def add_numbers(run: Run) -> None:
    async with run.connect() as client:
        result = await client.add_numbers(a=5, b=3)
        assert "8" in result.text, result.text


async def no_network_refs(run: Run) -> None:
    """SEP-2106: neither snapshot, generate nor the generated client's argument check fetches the
    schema's network `$ref` (the runner's canary); its same-document `$ref` still checks `id`."""
    async with run.connect() as client:
        await client.verify()
        try:
            await client.lookup_user(arguments={"id": "Not an id!"})
        except run.package.ToolArgumentsError:
            pass
        else:
            raise AssertionError("lookup_user sent an id its schema's pattern refuses")


async def reconnect_for_answer(run: Run) -> None:
    """SEP-1699: the tool call's event stream gives an event id and `retry`, then closes without the
    answer; the client waits `retry` and resumes with GET and `Last-Event-ID`, where the answer comes.

    The runner takes the first GET after the call's POST for the resumption: the SDK opens the session's
    own GET stream in a task of its own once `initialized` is sent, and on a busy machine that GET
    could land beside the call and be taken for a resumption 50 ms early (about one run in sixteen).
    A listing first, as a client checking its catalog does, leaves that stream opened before the call."""
    async with run.connect() as client:
        await client.verify()
        result = await client.test_reconnection()
        assert "Reconnection test completed successfully" in result.text, result.text


async def request_metadata(run: Run) -> None:
    """SEP-2575: every request carries `_meta` and `MCP-Protocol-Version`, with every capability
    declared; the server lists nothing, so the generated client's one request is `verify()`'s listing."""
    handlers = {
        "sampling_callback": answer_sampling,
        "list_roots_callback": answer_roots,
        "elicitation_callback": accept_defaults,
    }
    async with run.connect(**handlers) as client:
        await client.verify()


async def elicitation_defaults(run: Run) -> None:
    async with run.connect(elicitation_callback=accept_defaults) as client:
        await client.test_client_elicitation_defaults()


async def request_state(run: Run) -> None:
    """SEP-2322: each call answered `input_required` is retried with the answers and the state echoed."""
    async with run.connect(elicitation_callback=confirm) as client:
        await client.test_mrtr_echo_state()
        await client.test_mrtr_unrelated()
        await client.test_mrtr_no_state()
        await client.test_mrtr_no_result_type()


async def standard_headers(run: Run) -> None:
    """SEP-2243: every kind of request that names something sends `Mcp-Method` and `Mcp-Name`."""
    async with run.connect() as client:
        await client.my_hyphenated_tool()
        await client.test_headers()
        await client.read_file_with_spaces()
        await client.read_resource_with_query_string()
        await client.prompt_test_prompt()


async def custom_headers(run: Run) -> None:
    """SEP-2243: make the runner's calls right after connecting, with no `tools/list` first: the
    `Mcp-Param-*` headers must come from the snapshot's `x-mcp-header` annotations.

    The runner gives arguments by wire name, which here are the methods' keyword names; its `null`
    for a parameter that is not nullable is an argument left out (the header is omitted either way).
    """
    calls = {call["name"]: call["arguments"] for call in run.context["toolCalls"]}
    given = {
        name: {key: value for key, value in arguments.items() if value is not None} for name, arguments in calls.items()
    }
    async with run.connect() as client:
        await client.test_custom_headers(**given["test_custom_headers"])
        await client.test_custom_headers_null(**given["test_custom_headers_null"])


async def valid_tool_only(run: Run) -> None:
    """SEP-2243: the tools whose `x-mcp-header` annotations are invalid never became methods; the valid one did."""
    async with run.connect() as client:
        invalid = sorted(name for name in dir(client) if name.startswith("invalid_"))
        assert not invalid, f"methods for tools with invalid x-mcp-header annotations: {invalid}"
        await client.valid_tool(region="us-west1")


async def echo_schema(run: Run) -> None:
    """SEP-1613: send the focal tool's input schema, as the snapshot recorded it, back to the server."""
    snapshot = load_snapshot(run.snapshot_path)
    focal = next(tool for tool in snapshot.tools if tool["name"] == "json_schema_2020_12_tool")
    async with run.connect() as client:
        await client.json_schema_echo(schema=focal["inputSchema"])


SCENARIOS: dict[str, Scenario] = {
    "initialize": Scenario(initialize),
    "tools_call": Scenario(add_numbers),
    "request-metadata": Scenario(request_metadata, ("elicitation", "roots", "sampling")),
    "http-standard-headers": Scenario(standard_headers),
    "http-custom-headers": Scenario(custom_headers),
    "http-invalid-tool-headers": Scenario(valid_tool_only),
    "json-schema-ref-no-deref": Scenario(no_network_refs),
    "json-schema-2020-12-preservation": Scenario(echo_schema),
    "elicitation-sep1034-client-defaults": Scenario(elicitation_defaults, ("elicitation",)),
    "sep-2322-client-request-state": Scenario(request_state, ("elicitation",)),
    "sse-retry": Scenario(reconnect_for_answer),
}


class BrowserStandIn:
    """A person who consents, for the generated client's re-authorization (a scope step-up): opens the
    authorization URL and reads the code from the authorization server's redirect."""

    def __init__(self) -> None:
        self.result: AuthorizationCodeResult | None = None

    async def open(self, url: str) -> None:
        async with httpx2.AsyncClient(timeout=30) as http:
            answer = await http.get(url)
        query = {key: values[0] for key, values in parse_qs(urlsplit(answer.headers["location"]).query).items()}
        self.result = AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    async def come_back(self) -> AuthorizationCodeResult:
        assert self.result is not None, "the browser was not opened"
        return self.result


async def call_first_tool(run: Run) -> None:
    """List the tools, then call the first through its generated method, as an application would; the
    call's own outcome is the server's business (some scenarios answer it with an error)."""
    snapshot = load_snapshot(run.snapshot_path)
    async with run.connect() as client:
        await client.verify()
        if snapshot.tools:
            method = getattr(client, snake_case(snapshot.tools[0]["name"], "tool"))
            with contextlib.suppress(run.package.StubgenClientError):
                await method()


AUTH_SCENARIO = Scenario(call_first_tool)
"""Every `auth/*` scenario: a protected server to snapshot and then call (issue 24)."""


def server_id(scenario: str) -> str:
    """The config's server id for a scenario (`auth/metadata-default` -> `auth-metadata-default`)."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", scenario)


BROWSER_STANDIN = Path(__file__).resolve().parent.parent / "browser_standin.py"
CIMD_URL = "https://conformance-test.local/client-metadata.json"
"""The client ID metadata document URL the runner's authorization servers accept (auth/basic-cimd)."""


def auth_table(scenario: str, context: Mapping[str, Any]) -> list[str]:
    """The `[auth]` table a user would write for the scenario's server, its secrets read from
    variables this command exports from the runner's context, as CI would from its secrets."""
    if not scenario.startswith("auth/"):
        return []
    secrets = {
        "CONFORMANCE_CLIENT_SECRET": context.get("client_secret"),
        "CONFORMANCE_PRIVATE_KEY": context.get("private_key_pem"),
    }
    os.environ.update({name: value for name, value in secrets.items() if value})
    table: dict[str, str] = {}
    if context.get("client_id"):
        table["client_id"] = context["client_id"]
    if context.get("client_secret"):
        table["client_secret"] = "${CONFORMANCE_CLIENT_SECRET}"
    if scenario.startswith("auth/client-credentials-"):
        table["mode"] = "client_credentials"
        if context.get("private_key_pem"):
            table |= {
                "private_key": "${CONFORMANCE_PRIVATE_KEY}",
                "signing_algorithm": context.get("signing_algorithm", "ES256"),
            }
    else:
        table |= {"mode": "browser", "client_metadata_url": CIMD_URL}
        # The browser, with no person to click: it follows the redirect back to the loopback callback.
        os.environ["MCP_STUBGEN_INTERACTIVE"] = "1"
        os.environ["BROWSER"] = f"{sys.executable} {BROWSER_STANDIN} %s"
    return [f"{key} = {json.dumps(value)}" for key, value in table.items()]


def write_config(workdir: Path, server: str, url: str, capabilities: tuple[str, ...], auth: list[str]) -> Path:
    config = workdir / "pyproject.toml"
    lines = [
        "[tool.mcp-stubgen]",
        'snapshots = "snapshots"',
        'output = "clients"',
        f"[tool.mcp-stubgen.servers.{server}]",
        f"url = {json.dumps(url)}",
    ]
    if capabilities:
        lines.append(f"client_capabilities = {json.dumps(list(capabilities))}")
    if auth:
        lines += [f"[tool.mcp-stubgen.servers.{server}.auth]", *auth]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def run_cli(*args: str) -> None:
    """Run `mcp-stubgen ARGS...` as the command line does; stop this command if it fails."""
    print(f"$ mcp-stubgen {' '.join(args)}", file=sys.stderr, flush=True)
    try:
        stubgen(list(args))
    except SystemExit as exit_:
        if exit_.code not in (0, None):
            sys.exit(f"mcp-stubgen {args[0]} exited with {exit_.code}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, required=True, help="where the config, snapshot and package go")
    parser.add_argument("--protocol", help="pass --protocol VERSION to `mcp-stubgen snapshot`")
    parser.add_argument("url")
    options = parser.parse_args()

    scenario_name = os.environ["MCP_CONFORMANCE_SCENARIO"]
    scenario = AUTH_SCENARIO if scenario_name.startswith("auth/") else SCENARIOS[scenario_name]
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    server = server_id(scenario_name)
    workdir: Path = options.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    # The token store of this run alone, in a file (never the keyring of whoever runs the tests).
    os.environ["MCP_STUBGEN_CONFIG_DIR"] = str(workdir / "user-config")
    os.environ["MCP_STUBGEN_TOKEN_STORE"] = "file"
    config = write_config(
        workdir, server, options.url, scenario.client_capabilities, auth_table(scenario_name, context)
    )

    pin = ["--protocol", options.protocol] if options.protocol else []
    run_cli("snapshot", "--config", str(config), *pin, server)
    run_cli("generate", "--config", str(config), server)

    # A generated package imports its output folder's runtime relatively: import it through the folder.
    sys.path.insert(0, str(workdir))
    package = importlib.import_module(f"clients.{package_name(server)}")
    snapshot_path = workdir / "snapshots" / f"{server}.json"
    client_class = getattr(package, class_name(server, "Client", load_snapshot(snapshot_path).naming_rules))
    run = Run(client_class, package, snapshot_path, options.url, context, server)
    asyncio.run(scenario.perform(run))


if __name__ == "__main__":
    main()
