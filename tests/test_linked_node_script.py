"""A Node script that serves only when run as its own file (responsible-vibe-mcp 0.1.10) exits at once
with status 0 when started through npm's node_modules/.bin/ link. `snapshot` said to run it through
node (test_snapshot_errors.py); a generated client's `connect` and a hub's said only "the server
exited or closed the connection before answering". All three say it alike now, by one rule
(`_stdio.linked_node_script`), over real stdio."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from mcp import StdioServerParameters

from tests.conftest import SERVERS, forget_generated, import_generated, write_config
from tests.regen_goldens import OUTPUT

SCRIPT = SERVERS / "main_guard_server.mjs"


@pytest.fixture
def link(tmp_path: Path) -> Path:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    linked = tmp_path / "node_modules" / ".bin" / "main-guard"
    linked.parent.mkdir(parents=True)
    linked.symlink_to(SCRIPT)
    return linked


@pytest.fixture
def golden() -> Iterator[tuple[ModuleType, ModuleType]]:
    """The golden weather package and hub, imported afresh."""
    forget_generated(OUTPUT)
    try:
        yield import_generated(OUTPUT, "weather"), import_generated(OUTPUT, "hub")
    finally:
        forget_generated(OUTPUT)


def runtime_advice(script: Path) -> str:
    return (
        "server 'weather': the handshake failed: Connection closed; the server exited with status 0 before "
        f"answering; its command is a link to the Node script {script}, and a script that serves only when run "
        f"as its own file exits so when started through a link: try StdioServerParameters(command='node', "
        f"args=['{script}', '--stdio']) (code -32000)"
    )


async def test_a_generated_client_started_through_the_link_is_told_to_run_it_through_node(
    link: Path, golden: tuple[ModuleType, ModuleType]
) -> None:
    weather, _hub = golden
    with pytest.raises(weather.ServerError) as closed:
        async with weather.WeatherClient.connect(StdioServerParameters(command=str(link), args=["--stdio"])):
            pass
    assert str(closed.value) == runtime_advice(SCRIPT)

    async with weather.WeatherClient.connect(
        StdioServerParameters(command="node", args=[str(SCRIPT)]), mode="legacy"
    ) as client:
        assert client.mcp_client is not None  # the advice's command connects


async def test_a_hub_started_through_the_link_is_told_to_run_it_through_node(
    link: Path, tmp_path: Path, golden: tuple[ModuleType, ModuleType]
) -> None:
    _weather, hub = golden
    with pytest.raises(hub.HubError) as given:
        async with hub.Hub.connect(weather=StdioServerParameters(command=str(link), args=["--stdio"])):
            pass
    assert str(given.value) == (
        f"hub: server 'weather' could not connect (ServerError: {runtime_advice(SCRIPT)}); none of the servers "
        "stays open"
    )

    config = write_config(
        tmp_path, f"[tool.mcp-stubgen]\n[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(str(link))}\n"
    )
    with pytest.raises(hub.HubError) as configured:
        async with hub.Hub.connect_from_config(config, servers=["weather"]):
            pass
    assert (
        f'its command is a link to the Node script {SCRIPT}, and a script that serves only when run as its own file exits so when started through a link: try command = "node", args = ["{SCRIPT}"]'
        in str(configured.value)
    )
