"""One malformed entry in a list answer (a tool whose `inputSchema` is a string, a prompt without a
name) is left out with one warning naming the server, the list method, the entry and what is wrong;
the rest of the server's catalog, and a hub's other servers, stay. The SDK's check of a whole page
refused the page, so one bad tool took down `snapshot`, `verify()`, every server of a hub, and a call
in whose midst the SDK session lists the tools (after -32020, or to learn a tool's output schema).

`tests/servers/malformed_entries_server.py` serves them over stdio, in both protocol eras."""

from __future__ import annotations

import importlib
import json
import logging
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.runtime import _runtime
from codegen.snapshot import Snapshot, load_snapshot, parse_snapshot
from codegen.snapshot.discovery import connect, list_catalog
from tests.conftest import PYTHON, REPO, SERVERS, forget_generated, import_generated
from tests.servers.json_http import JsonHttpHandler
from tests.servers.malformed_entries_server import HEADER_MISMATCH, OBJECT, REGIONAL, reply

MALFORMED = SERVERS / "malformed_entries_server.py"
NOTES = REPO / "examples" / "notes_server.py"
ERAS = {"legacy": "2025-06-18", "modern": "2026-07-28"}
NOT_A_SCHEMA = "Input should be a valid dictionary or instance of InputSchema"
LEFT_OUT = [
    f"tools/list: tool 'string_schema' is not valid MCP (/inputSchema: {NOT_A_SCHEMA})",
    f"tools/list: tool 'number_schema' is not valid MCP (/inputSchema: {NOT_A_SCHEMA})",
    "tools/list: tool 'no_schema' is not valid MCP (/inputSchema: Field required)",
    "tools/list: the entry at index 4 of page 1 is not valid MCP (/name: Field required)",
    "tools/list: the entry at index 0 of page 2 is not valid MCP (/name: Input should be a valid string)",
    "tools/list: tool 'array_output' is not valid MCP "
    "(/outputSchema: Input should be a valid dictionary or instance of OutputSchema)",
    "tools/list: tool 'string_annotations' is not valid MCP "
    "(/annotations: Input should be a valid dictionary or instance of ToolAnnotations)",
]
"""Every tool the server lists in a form that is not valid MCP, and why, in listing order."""
ADVICE = " (ask the server's authors to fix it; until then it cannot be used)"
"""What every warning of an entry left out says to do."""
OTHER_LISTS_LEFT_OUT = [
    "resources/list: resource 'no_uri' is not valid MCP (/uri: Field required)",
    "resources/templates/list: resource template 'bad_template' is not valid MCP (/uriTemplate: Input should be a valid string)",
    "prompts/list: the entry at index 1 of page 1 is not valid MCP (/name: Field required)",
]


def config(era: str) -> ServerConfig:
    return ServerConfig(name="malformed", command=PYTHON, args=(str(MALFORMED), "--era", era))


def stdio(script: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=PYTHON, args=[str(script), *args])


def names(snapshot: Snapshot) -> dict[str, list[str]]:
    document = snapshot.to_json()
    return {
        key: [entry["name"] for entry in document[key]]
        for key in ("tools", "resources", "resourceTemplates", "prompts")
    }


KEPT = {
    "tools": ["echo", "grow", "regional"],
    "resources": ["readme"],
    "resourceTemplates": ["page"],
    "prompts": ["summarize"],
}


@pytest.mark.parametrize("era", ERAS)
def test_snapshot_leaves_out_each_malformed_entry_with_one_warning(era: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "malformed.json"
    result = run_cli("snapshot", "--name", "malformed", "--out", out, "--", PYTHON, MALFORMED, "--era", era)
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: server 'malformed': {line}; it is left out of the snapshot{ADVICE}"
        for line in LEFT_OUT + OTHER_LISTS_LEFT_OUT
    ]
    snapshot = load_snapshot(out)
    assert snapshot.protocol_version == ERAS[era]
    assert names(snapshot) == KEPT
    first = out.read_bytes()
    assert (
        run_cli("snapshot", "--name", "malformed", "--out", out, "--", PYTHON, MALFORMED, "--era", era).exit_code == 0
    )
    assert out.read_bytes() == first


@pytest.fixture
def malformed_http() -> Iterator[tuple[str, list[str]]]:
    """The server's answers over Streamable HTTP on 127.0.0.1 (JSON bodies), its era the URL's last
    part (`modern+tasks`: with the `tasks` capability); yields the URL and the requests answered so far, each its method, any error code and any
    `Mcp-Param-Region` header."""
    requests: list[str] = []

    class Handler(JsonHttpHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            headers = {name.lower(): value for name, value in self.headers.items()}
            era, _, tasks = self.path.rsplit("/", 1)[-1].partition("+")
            answer = reply(era, message, headers=headers, tasks=tasks == "tasks")
            if answer is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            error = answer.get("error")
            code = error.get("code") if isinstance(error, dict) else None
            line = message["method"] if code is None else f"{message['method']} {code}"
            region = headers.get("mcp-param-region")
            requests.append(line if region is None else f"{line} Region: {region}")
            self.send_json(answer, 400 if code == HEADER_MISMATCH else 200)  # as the SDK's servers answer it

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", requests
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("era", ERAS)
def test_snapshot_over_streamable_http_leaves_out_the_same_entries(
    era: str, malformed_http: tuple[str, list[str]], tmp_path: Path, run_cli
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "malformed.json"
    url, _requests = malformed_http
    result = run_cli("snapshot", "--name", "malformed", "--out", out, "--url", f"{url}/{era}")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: server 'malformed': {line}; it is left out of the snapshot{ADVICE}"
        for line in LEFT_OUT + OTHER_LISTS_LEFT_OUT
    ]
    assert load_snapshot(out).protocol_version == ERAS[era]
    assert names(load_snapshot(out)) == KEPT


@pytest.mark.parametrize("era", ERAS)
async def test_a_kept_session_lists_the_valid_entries_and_warns_of_the_rest(era: str) -> None:
    """The listing over the SDK's `Client` (HTTP servers, `watch`, the hub's config servers) does the same."""
    warnings: list[str] = []
    async with connect(config(era)) as client:
        snapshot = await list_catalog(client, config(era), warnings.append)
    assert names(snapshot) == KEPT
    assert warnings == [
        f"server 'malformed': {line}; it is left out of the snapshot{ADVICE}"
        for line in LEFT_OUT + OTHER_LISTS_LEFT_OUT
    ]


def listed(era: str) -> Snapshot:
    """The server's valid entries in `era`, as a snapshot records them (written out, so a test of the
    runtime does not depend on `snapshot` leaving out what is malformed)."""
    snapshot = Snapshot(
        server="malformed",
        protocol_version=ERAS[era],
        server_info={"name": "malformed", "version": "1.0.0"} if era == "legacy" else None,
        capabilities={"prompts": {}, "resources": {}, "tools": {"listChanged": True}},
        tools=(
            {"name": "echo", "description": "Echo the text.", "inputSchema": OBJECT},
            {"name": "grow", "description": "Add tools.", "inputSchema": {"type": "object"}},
            REGIONAL,
        ),
        resources=({"name": "readme", "uri": "file:///readme.md"},),
        resource_templates=({"name": "page", "uriTemplate": "file:///{page}"},),
        prompts=({"name": "summarize"},),
    )
    assert names(snapshot) == KEPT
    return snapshot


@pytest.fixture
def generated(tmp_path: Path) -> Iterator[Any]:
    """Generate snapshots' packages (and a hub over them) under `<tmp>/<name>/` and import a module of it."""
    outs: list[Path] = []

    def generate(name: str, snapshots: list[Snapshot], module: str) -> Any:
        out = tmp_path / name
        for snapshot in snapshots:
            generate_package(snapshot, out)
        if module == "hub":
            generate_hub([(snapshot, {}) for snapshot in snapshots], out)
        outs.append(out)
        return import_generated(out, module)

    yield generate
    for out in outs:
        forget_generated(out)


@pytest.mark.parametrize("era", ERAS)
async def test_a_hub_connects_a_server_with_malformed_tools_beside_its_other_servers(
    era: str, generated: Any, caplog: pytest.LogCaptureFixture
) -> None:
    notes = load_snapshot(REPO / "golden" / "notes" / "snapshot.json")
    hub_module = generated(f"badhub_{era}", [with_string_schema(listed(era)), notes], "hub")
    with caplog.at_level(logging.WARNING), anyio.fail_after(60):
        async with hub_module.Hub.connect(
            malformed=stdio(MALFORMED, "--era", era), notes=stdio(NOTES), live_tools="callable"
        ) as hub:
            assert {"malformed__echo", "malformed__grow", "notes__search"} <= set(hub.live_tools)
            assert (await hub.call("malformed__echo", {"text": "hi"})).content[0].text == "echo: hi"
            assert (await hub.call("notes__search", {"text": "x"})).is_error is not True
            warned = [record.getMessage() for record in caplog.records if "not valid MCP" in record.getMessage()]
            assert warned == [f"hub: server 'malformed': {line}; the hub leaves it out{ADVICE}" for line in LEFT_OUT]
            assert hub.difference().removed == ("malformed__string_schema",)
            with pytest.raises(hub_module.UnknownQualifiedToolError) as unusable:
                await hub.call("malformed__string_schema", {})
            assert str(unusable.value) == (
                "the hub cannot offer or call 'malformed__string_schema': its server 'malformed' lists it in a "
                f"form that is not valid MCP (/inputSchema: {NOT_A_SCHEMA})"
            )

            caplog.clear()  # a re-list after notifications/tools/list_changed reads entry by entry too
            await hub.call("malformed__grow", {})
            while "malformed__late" not in hub.live_tools:
                await anyio.sleep(0.05)
            assert "malformed__echo" in hub.live_tools
            warned = [record.getMessage() for record in caplog.records if "not valid MCP" in record.getMessage()]
            assert warned[-1] == (
                "hub: server 'malformed': tools/list: tool 'late_broken' is not valid MCP "
                f"(/inputSchema: Input should be a valid dictionary or instance of InputSchema); the hub leaves it out{ADVICE}"
            )


@pytest.mark.parametrize("era", ERAS)
async def test_verify_passes_when_only_tools_the_package_lacks_are_malformed(
    era: str, generated: Any, caplog: pytest.LogCaptureFixture
) -> None:
    package = generated(f"badclient_{era}", [listed(era)], "malformed")
    with caplog.at_level(logging.WARNING):
        async with package.MalformedClient.connect(stdio(MALFORMED, "--era", era)) as client:
            await client.verify()
    warned = [record.getMessage() for record in caplog.records if "not valid MCP" in record.getMessage()]
    assert warned == [f"malformed: {line}; it was left out{ADVICE}" for line in LEFT_OUT]


def with_string_schema(snapshot: Snapshot) -> Snapshot:
    """The snapshot with a valid `string_schema` tool, which the server now lists malformed."""
    document = json.loads(snapshot.canonical_bytes())
    document["tools"].append({"name": "string_schema", "inputSchema": {"type": "object"}})
    return parse_snapshot(json.dumps(document).encode(), "malformed")


@pytest.mark.parametrize("era", ERAS)
async def test_verify_reports_a_generated_tool_the_server_now_lists_malformed_as_missing(
    era: str, generated: Any
) -> None:
    package = generated(f"driftclient_{era}", [with_string_schema(listed(era))], "malformed")
    async with package.MalformedClient.connect(stdio(MALFORMED, "--era", era)) as client:
        with pytest.raises(package.CatalogDriftError) as drift:
            await client.verify()
    assert drift.value.missing == ("string_schema",)
    assert str(drift.value) == (
        "server 'malformed' changed since the client was generated (missing tools: 'string_schema'; "
        f"{LEFT_OUT[0]}); run `mcp-stubgen sync`"
    )


def before_headers(snapshot: Snapshot, parse_text_json: bool) -> Snapshot:
    """The snapshot as taken before the server mirrored `regional`'s `region` into a header."""
    document = json.loads(snapshot.canonical_bytes())
    for tool in document["tools"]:
        if tool["name"] == "regional":
            del tool["inputSchema"]["properties"]["region"]["x-mcp-header"]
    document["parseTextJson"] = parse_text_json
    return parse_snapshot(json.dumps(document).encode(), "malformed")


@pytest.mark.parametrize("parse_text_json", [False, True], ids=["sdk-call", "session-call"])
async def test_a_call_refused_for_its_headers_is_sent_again_after_a_listing_read_entry_by_entry(
    parse_text_json: bool, malformed_http: tuple[str, list[str]], generated: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A call the server refuses for an `Mcp-Param-*` header the snapshot did not know (-32020) is
    sent again once the tools are listed, page by page, up to the tool: on the SDK's call path by
    `mcp.Client.call_tool`, with `parse_text_json` by the runtime. Both listings leave out each
    malformed tool with a warning; the SDK's check of a whole page failed the call."""
    url, requests = malformed_http
    package = generated(
        f"headers_{parse_text_json}".lower(), [before_headers(listed("modern"), parse_text_json)], "malformed"
    )
    with caplog.at_level(logging.WARNING), anyio.fail_after(30):
        async with package.MalformedClient.connect(f"{url}/modern") as client:
            assert (await client.regional(region="eu")).region == "eu"
    assert [line for line in requests if line.startswith("tools/")] == [
        f"tools/call {HEADER_MISMATCH}",
        "tools/list",
        "tools/list",
        "tools/call Region: eu",
    ]
    warned = [record.getMessage() for record in caplog.records if "not valid MCP" in record.getMessage()]
    assert warned == [f"malformed: {line}; it was left out{ADVICE}" for line in LEFT_OUT]


async def test_a_task_call_refused_for_its_headers_says_to_sync_and_is_not_sent_again(
    malformed_http: tuple[str, list[str]], generated: Any
) -> None:
    """The 2026-07-28 spec has a call refused for its `Mcp-Param-*` headers (-32020) sent again after
    a listing, but its `tools/call` creates no task (tasks are an extension there): the 2025-11-25
    task-augmented call a server mixing the eras is sent is not retried, by the client or the hub,
    and the error says to run `mcp-stubgen sync` to pick up the annotation."""
    url, requests = malformed_http
    document = json.loads(before_headers(listed("modern"), parse_text_json=False).canonical_bytes())
    for tool in document["tools"]:
        if tool["name"] == "regional":
            tool["execution"] = {"taskSupport": "required"}
    snapshot = parse_snapshot(json.dumps(document).encode(), "malformed")
    hub_module = generated("taskheaders", [snapshot], "hub")
    package = importlib.import_module("taskheaders.malformed")
    message = (
        "server 'malformed': tool 'regional' failed: Mcp-Param-Region header does not match region 'eu'; "
        "the server wants other Mcp-Param-* headers than the tool's x-mcp-header annotations in the "
        f"snapshot give: run `mcp-stubgen sync` to pick up its current ones (code {HEADER_MISMATCH})"
    )
    with anyio.fail_after(30):
        async with package.MalformedClient.connect(f"{url}/modern+tasks") as client:
            with pytest.raises(package.ServerError) as refused:
                await client.regional(region="eu")
            assert str(refused.value) == message
            with pytest.raises(hub_module.ServerError) as through_hub:
                await hub_module.Hub(malformed=client).call("malformed__regional", {"region": "eu"})
            assert str(through_hub.value) == message
    assert [line for line in requests if line.startswith("tools/")] == 2 * [f"tools/call {HEADER_MISMATCH}"]


@pytest.mark.parametrize("era", ERAS)
async def test_a_hub_over_clients_it_never_listed_calls_past_malformed_tools(
    era: str, generated: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """`Hub(server=client)` lists no tools, and gives the SDK session the tool as the snapshot lists
    it, so its call lists none either. A call straight through the SDK client a generated client
    holds lists them, to check the result against the tool's output schema: that listing leaves out
    the malformed tools (with a warning) instead of failing the call."""
    hub_module = generated(f"rawhub_{era}", [listed(era)], "hub")
    package = importlib.import_module(f"rawhub_{era}.malformed")
    with caplog.at_level(logging.WARNING), anyio.fail_after(30):
        async with package.MalformedClient.connect(stdio(MALFORMED, "--era", era)) as client:
            hub = hub_module.Hub(malformed=client)
            assert (await hub.call("malformed__echo", {"text": "hi"})).content[0].text == "echo: hi"
        assert not [record for record in caplog.records if "not valid MCP" in record.getMessage()]
        async with package.MalformedClient.connect(stdio(MALFORMED, "--era", era)) as client:
            raw = await client.mcp_client.call_tool("echo", {"text": "raw"})
            assert raw.content[0].text == "echo: raw"
    warned = [record.getMessage() for record in caplog.records if "not valid MCP" in record.getMessage()]
    assert warned == [f"malformed: {line}; it was left out{ADVICE}" for line in LEFT_OUT[:4]]


async def test_a_hub_over_a_client_it_never_listed_sends_the_snapshots_headers_on_the_first_call(
    malformed_http: tuple[str, list[str]], generated: Any
) -> None:
    """The hub gives the SDK session the tool as its snapshot lists it, as a generated method does:
    the first call of `regional` carries its `Mcp-Param-Region` header, so the server neither refuses
    it (-32020, a refused request in its logs) nor is listed before it is sent again."""
    url, requests = malformed_http
    hub_module = generated("primedhub", [listed("modern")], "hub")
    package = importlib.import_module("primedhub.malformed")
    with anyio.fail_after(30):
        async with package.MalformedClient.connect(f"{url}/modern") as client:
            result = await hub_module.Hub(malformed=client).call("malformed__regional", {"region": "eu"})
    assert result.structured_content == {"region": "eu"}
    assert [line for line in requests if line.startswith("tools/")] == ["tools/call Region: eu"]


GOOD = {
    "tools/list": {"name": "good", "inputSchema": {"type": "object"}},
    "resources/list": {"name": "good", "uri": "file:///good"},
    "resources/templates/list": {"name": "good", "uriTemplate": "file:///{good}"},
    "prompts/list": {"name": "good"},
}
BAD = {
    "tools/list": [{"name": "bad", "inputSchema": {"type": "string"}}, "tool", {"name": ""}],
    "resources/list": [{"name": "bad", "uri": None}, {"uri": "file:///x"}],
    "resources/templates/list": [{"name": "bad"}, {"name": 5, "uriTemplate": "x"}],
    "prompts/list": [{"name": "bad", "arguments": "text"}, {"name": "bad2", "arguments": [{"required": True}]}],
}


@pytest.mark.parametrize("version", ERAS.values())
@pytest.mark.parametrize("method", BAD)
def test_each_list_kind_keeps_its_valid_entries_and_names_the_others(method: str, version: str) -> None:
    key = _runtime.LIST_ENTRIES[method]
    page = {key: [GOOD[method], *BAD[method], GOOD[method]], "nextCursor": "2"}
    kept, left_out = _runtime.valid_entries(method, version, page)
    assert kept == {key: [GOOD[method], GOOD[method]], "nextCursor": "2"}
    assert [entry.index for entry in left_out] == list(range(1, len(BAD[method]) + 1))
    for entry, bad in zip(left_out, BAD[method], strict=True):
        name = bad.get("name") if isinstance(bad, dict) else None
        assert entry.name == (name if isinstance(name, str) and name else None)
        assert entry.problem.startswith("/")
        assert "\n" not in entry.describe()


@pytest.mark.parametrize("page", [{"tools": "broken"}, {"tools": {"name": "a"}}, ["tools"], None])
def test_a_page_whose_entries_are_not_a_list_is_left_to_the_whole_page_check(page: Any) -> None:
    assert _runtime.valid_entries("tools/list", "2025-11-25", page) == (page, ())


REFUSED_PAGES = [
    # raw_server's `invalid-result` and hostile_server's `relist-invalid`: the tools are not a list
    (
        "tools/list",
        {"tools": {"name": "broken", "inputSchema": {"type": "object"}}},
        "/tools: Input should be a valid list",
    ),
    # raw_server's `prompts-list-invalid`
    ("prompts/list", {"prompts": {"description": "nameless"}}, "/prompts: Input should be a valid list"),
    ("tools/list", None, "/: Input should be a valid dictionary or instance of ListToolsResult"),
    # two problems, where the first is named and the rest counted in: not "/: it is none of the shapes MCP allows there"
    ("tools/list", {"tools": "broken", "nextCursor": 5}, "/nextCursor: Input should be a valid string; and more"),
]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(("method", "page", "problem"), REFUSED_PAGES)
def test_a_page_refused_whole_is_refused_for_what_is_wrong_with_it(
    era: str, method: str, page: Any, problem: str
) -> None:
    """A page no entry-by-entry reading can save still fails its server; the error names the place of
    the first problem and what is wrong there, as `snapshot` does, and whether there is more."""
    from pydantic import ValidationError

    if era == "modern" and isinstance(page, dict):
        page = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public", **page}
    with pytest.raises(ValidationError) as refused:
        _runtime.read_page(method, ERAS[era], page)
    error = _runtime._not_mcp("malformed", method, refused.value)
    assert str(error) == f"server 'malformed': {method} failed: its answer is not valid MCP ({problem}) (code -32700)"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            [{"type": "video", "url": "x"}],
            "/content/0: {'type': 'video', 'url': 'x'} is none of the shapes MCP allows there",
        ),
        (
            [{"type": "text", "text": "ok"}, {"type": "video"}, {"type": "text"}],
            "/content/1: {'type': 'video'} is none of the shapes MCP allows there; and more",
        ),
    ],
    ids=["one-block", "two-blocks"],
)
def test_a_value_that_fits_no_shape_is_named_by_its_own_place(content: list[Any], problem: str) -> None:
    """pydantic reports each shape of a union under the shape's name (`/content/0/TextContent/type`):
    the error names the value that fits none of them, not one of its fields, nor the list holding it."""
    from mcp.types import CallToolResult
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as refused:
        CallToolResult.model_validate({"content": content}, by_name=False)
    error = _runtime._not_mcp("malformed", "tool 'echo'", refused.value)
    assert (
        str(error) == f"server 'malformed': tool 'echo' failed: its answer is not valid MCP ({problem}) (code -32700)"
    )
