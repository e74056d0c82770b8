"""What a generated method returns when no model describes the result, and how declared client
capabilities reach the catalog and the generated `connect`: `mcp-stubgen sync` against real
servers over stdio, then calls through the packages it wrote."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import StdioServerParameters
from mcp.client.session import ClientRequestContext
from mcp.types import (
    INVALID_REQUEST,
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    ErrorData,
    ImageContent,
    TextContent,
)

from tests.conftest import NPM_SERVERS, PYTHON, SERVERS, forget_generated, import_generated, write_config

TEXT_JSON_SERVER = SERVERS / "text_json_server.py"
EVERYTHING = NPM_SERVERS / "node_modules" / ".bin" / "mcp-server-everything"


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, ModuleType]]]:
    """One project, synced once: the text-JSON server with `parse_text_json` and sampling declared
    (over `server/discover`) and with neither (over `initialize`), and server-everything with and
    without declared client capabilities; its packages imported."""
    from codegen.cli import main

    if not EVERYTHING.exists():
        pytest.skip("server-everything is not installed (npm ci --prefix tests/npm)")
    folder = tmp_path_factory.mktemp("results")
    python = json.dumps(PYTHON)
    script = json.dumps(str(TEXT_JSON_SERVER))
    write_config(
        folder,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"
output = "clients"

[tool.mcp-stubgen.servers.lenient]
command = {python}
args = [{script}]
parse_text_json = true
client_capabilities = ["sampling"]

[tool.mcp-stubgen.servers.strict_json]
command = {python}
args = [{script}]
protocol = "legacy"

[tool.mcp-stubgen.servers.plain]
command = {json.dumps(str(EVERYTHING))}

[tool.mcp-stubgen.servers.declared]
command = {json.dumps(str(EVERYTHING))}
client_capabilities = ["sampling", "roots"]
""",
    )
    with pytest.raises(SystemExit) as exit_:
        main(["sync", "--config", str(folder / "pyproject.toml")])
    assert exit_.value.code == 0
    names = ("lenient", "strict_json", "plain", "declared")
    try:
        yield folder, {name: import_generated(folder / "clients", name) for name in names}
    finally:
        forget_generated(folder / "clients")


def stdio(script: Path) -> StdioServerParameters:
    return StdioServerParameters(command=PYTHON, args=[str(script)])


async def test_typed_content_blocks_and_one_clear_error_for_a_missing_structured_content(synced: Any) -> None:
    _, packages = synced
    package = packages["strict_json"]
    async with package.StrictJsonClient.connect(stdio(TEXT_JSON_SERVER)) as client:
        result = await client.mixed()
        with pytest.raises(package.NoStructuredContentError) as missing:
            await client.report()

    assert isinstance(result, package.ToolResult)
    assert result.text == "first\nsecond"
    assert [image.mime_type for image in result.images] == ["image/png"]
    assert [clip.mime_type for clip in result.audio] == ["audio/wav"]
    assert [str(block.resource.uri) for block in result.resources] == ["memo://note"]
    assert [str(link.uri) for link in result.resource_links] == ["memo://other"]
    assert [block.type for block in result.content] == [
        "text", "image", "audio", "resource", "resource_link", "text"
    ]  # fmt: skip
    assert result.raw.content == result.content and result.raw.is_error is False
    with pytest.raises(package.ToolContentError) as not_one_block:
        result.json()
    assert str(not_one_block.value) == (
        "tool 'mixed': expected one JSON text block, got 6 block(s) (text, image, audio, resource, resource_link, text)"
    )

    assert str(missing.value) == (
        "tool 'report' declares an outputSchema but its result has no structuredContent; if server 'strict_json' "
        "sends the result as JSON text instead, set `parse_text_json = true` in its config and run `mcp-stubgen sync`"
    )
    assert isinstance(missing.value, package.ToolResultError)


async def refuse(context: ClientRequestContext, params: CreateMessageRequestParams) -> ErrorData:
    return ErrorData(code=INVALID_REQUEST, message="no model here")


async def test_parse_text_json_reads_the_result_from_its_json_text(synced: Any) -> None:
    folder, packages = synced
    snapshot = json.loads((folder / "snapshots" / "lenient.json").read_text(encoding="utf-8"))
    assert snapshot["parseTextJson"] is True
    assert "parse_text_json = True" in (folder / "clients" / "lenient" / "client.py").read_text(encoding="utf-8")
    async with packages["lenient"].LenientClient.connect(stdio(TEXT_JSON_SERVER), sampling_callback=refuse) as client:
        report = await client.report()
        assert isinstance(report, packages["lenient"].ReportOutput)
        assert (report.city, report.celsius) == ("Oslo", 4.5)
        with pytest.raises(packages["lenient"].ToolContentError, match=r"tool 'garbled': its text is not JSON"):
            await client.garbled()


async def test_a_tool_listed_only_to_a_sampling_client_is_generated_and_answered_by_its_handler(
    synced: Any,
) -> None:
    folder, packages = synced
    plain = json.loads((folder / "snapshots" / "plain.json").read_text(encoding="utf-8"))
    declared = json.loads((folder / "snapshots" / "declared.json").read_text(encoding="utf-8"))
    assert "clientCapabilities" not in plain
    assert declared["clientCapabilities"] == ["roots", "sampling"]
    plain_tools = {tool["name"] for tool in plain["tools"]}
    assert {tool["name"] for tool in declared["tools"]} - plain_tools == {"get-roots-list", "trigger-sampling-request"}
    assert not hasattr(packages["plain"].PlainClient, "trigger_sampling_request")

    asked: list[str] = []

    async def sample(context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        asked.append(params.messages[0].content.text)  # type: ignore[union-attr]
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text="42"), model="stub-model")

    async def roots(context: ClientRequestContext) -> Any:
        from mcp.types import ListRootsResult, Root

        return ListRootsResult(roots=[Root(uri="file:///work", name="work")])

    everything = StdioServerParameters(command=str(EVERYTHING))
    client_class = packages["declared"].DeclaredClient
    async with client_class.connect(everything, sampling_callback=sample, list_roots_callback=roots) as client:
        await client.verify()  # the live catalog, listed to a client declaring both, is the snapshot's
        result = await client.trigger_sampling_request(prompt="the answer?", max_tokens=5)
        listed = await client.get_roots_list()
    assert asked == ["Resource trigger-sampling-request context: the answer?"]
    assert '"text": "42"' in result.text and '"model": "stub-model"' in result.text
    assert "file:///work" in listed.text

    with pytest.raises(packages["declared"].MissingHandlerError) as error:
        client_class.connect(everything, sampling_callback=sample)
    assert str(error.value) == (
        "server 'declared' was snapshotted declaring the client capability 'roots', so this client has tools "
        "the server lists only to clients that declare it: pass list_roots_callback= to connect()"
    )


async def test_images_of_a_real_server_are_typed(synced: Any) -> None:
    _, packages = synced
    async with packages["plain"].PlainClient.connect(StdioServerParameters(command=str(EVERYTHING))) as client:
        result = await client.get_tiny_image()
    assert [type(image) for image in result.images] == [ImageContent]
    assert result.images[0].mime_type == "image/png"


def test_declared_capabilities_are_used_in_both_handshakes_and_drift_reports_a_change(
    synced: Any, run_cli: Any, tmp_path: Path
) -> None:
    folder, _ = synced
    lenient = json.loads((folder / "snapshots" / "lenient.json").read_text(encoding="utf-8"))
    strict = json.loads((folder / "snapshots" / "strict_json.json").read_text(encoding="utf-8"))
    assert (lenient["protocolVersion"], lenient["clientCapabilities"]) == ("2026-07-28", ["sampling"])
    assert strict["protocolVersion"] != "2026-07-28" and "clientCapabilities" not in strict
    assert {tool["name"] for tool in lenient["tools"]} - {tool["name"] for tool in strict["tools"]} == {"sampled"}

    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "strict_json.json").write_text(json.dumps(strict), encoding="utf-8")
    config = write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"

[tool.mcp-stubgen.servers.strict_json]
command = {json.dumps(PYTHON)}
args = [{json.dumps(str(TEXT_JSON_SERVER))}]
protocol = "legacy"
client_capabilities = ["sampling"]
""",
    )
    result = run_cli("drift", "--config", config, "--format", "json", "--fail-on", "dangerous")
    assert result.exit_code == 1, result.stderr
    findings = {(finding["rule"], finding["name"]): finding for finding in json.loads(result.stdout)["findings"]}
    assert set(findings) == {("client-capabilities-changed", "strict_json"), ("tool-added-destructive", "sampled")}
    changed = findings["client-capabilities-changed", "strict_json"]
    assert (changed["severity"], changed["old"], changed["new"]) == ("dangerous", [], ["sampling"])
    assert changed["message"].startswith(
        "the client capabilities declared in the handshake changed from none to sampling"
    )


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("NaN", "its text is not JSON (NaN is not a JSON number): NaN"),
        ('{"celsius": -Infinity}', "its text is not JSON (-Infinity is not a JSON number): "),
        ("[" * 100_000 + "]" * 100_000, "its JSON text is nested too deeply to read: "),
    ],
)
def test_a_results_json_is_json_or_a_content_error(text: str, error: str) -> None:
    """A server's text that Python's parser takes but JSON does not (`NaN`) came back as a float, and
    text nested past the parser's depth raised `RecursionError` from `.json()` (and from a
    `parse_text_json` method): both are the one `ToolContentError` a caller catches."""
    from codegen.runtime._runtime import ToolContentError, ToolResult

    result = ToolResult("report", CallToolResult(content=[TextContent(type="text", text=text)]))
    with pytest.raises(ToolContentError) as refused:
        result.json()
    assert str(refused.value).startswith(f"tool 'report': {error}")
