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

from mcp.client.context import ClientRequestContext
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
from codegen.identifiers import class_name, package_name
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

    def connect(self, **handlers: Any) -> Any:
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
}
AUTH_SCENARIO = Scenario(initialize)
"""Every `auth/*` scenario: a protected server to snapshot and then call (issue 24)."""


def server_id(scenario: str) -> str:
    """The config's server id for a scenario (`auth/metadata-default` -> `auth-metadata-default`)."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", scenario)


def write_config(workdir: Path, server: str, url: str, capabilities: tuple[str, ...]) -> Path:
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
    config = write_config(workdir, server, options.url, scenario.client_capabilities)

    pin = ["--protocol", options.protocol] if options.protocol else []
    run_cli("snapshot", "--config", str(config), *pin, server)
    run_cli("generate", "--config", str(config), server)

    sys.path.insert(0, str(workdir / "clients"))
    package = importlib.import_module(package_name(server))
    client_class = getattr(package, class_name(server, "Client"))
    run = Run(client_class, package, workdir / "snapshots" / f"{server}.json", options.url, context)
    asyncio.run(scenario.perform(run))


if __name__ == "__main__":
    main()
