"""A third-party server end to end: `@modelcontextprotocol/server-memory` (npm, legacy handshake,
an outputSchema on every tool, a property named `from`) is synced, and its generated client is
imported and called in a fresh interpreter against the real server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_config

CALLS = """
import asyncio, json, sys
from mcp import StdioServerParameters
from clients.memory import MemoryClient
from clients.memory.models import CreateEntitiesInputEntity, CreateRelationsInputRelation

async def main() -> None:
    server = StdioServerParameters(command=sys.argv[1], env={"MEMORY_FILE_PATH": sys.argv[2]})
    async with MemoryClient.connect(server) as memory:
        await memory.create_entities(entities=[
            CreateEntitiesInputEntity(name="Oslo", entity_type="city", observations=["rainy"]),
            CreateEntitiesInputEntity(name="Norway", entity_type="country", observations=[]),
        ])
        created = await memory.create_relations(
            relations=[CreateRelationsInputRelation(from_="Oslo", to="Norway", relation_type="is capital of")]
        )
        graph = await memory.read_graph()
        await memory.verify()
    print(json.dumps({
        "created_from": created.relations[0].from_,
        "entities": sorted(entity.name for entity in graph.entities),
        "relation": [graph.relations[0].from_, graph.relations[0].relation_type, graph.relations[0].to],
        "graph_type": type(graph).__name__,
    }))

asyncio.run(main())
"""


def test_server_memory_synced_imported_and_called(tmp_path: Path, run_cli, memory_server: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "memory.jsonl"
    write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snaps"
output = "clients"
[tool.mcp-stubgen.servers.memory]
command = {json.dumps(str(memory_server))}
env = {{ MEMORY_FILE_PATH = {json.dumps(str(store))} }}
""",
    )
    result = run_cli("sync")
    assert result.exit_code == 0, result.stderr
    snapshot = json.loads((tmp_path / "snaps" / "memory.json").read_text())
    assert snapshot["protocolVersion"] < "2026-07-28"
    assert all("outputSchema" in tool for tool in snapshot["tools"])

    called = subprocess.run(
        [sys.executable, "-c", CALLS, str(memory_server), str(store)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == {
        "created_from": "Oslo",
        "entities": ["Norway", "Oslo"],
        "relation": ["Oslo", "is capital of", "Norway"],
        "graph_type": "ReadGraphOutput",
    }
    # the server stored the wire name `from`, not the Python name `from_`
    assert '"from":"Oslo"' in store.read_text().replace(" ", "")
