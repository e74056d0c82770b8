"""Every third-party server the test command installs, synced together as a user would: one project
config, one `mcp-stubgen sync` (which lists the servers concurrently), one `mypy --strict` over all
the generated packages; each package is imported and every tool of its snapshot must have become a
typed method. `mcp-server-duckdb` (mcp 1.x, from PyPI in its own venv) is also called on a temporary
database through its generated client."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters

from codegen.generate.runtime_folder import RUNTIME_PACKAGE
from codegen.snapshot import parse_snapshot
from codegen.snapshot.audit import catalog_findings
from tests.conftest import npm_server, write_config
from tests.hostile.corpus import run_mypy

OUTPUT = "realclients"
"""The folder the packages are generated into, imported as a namespace package (`realclients.time`
cannot shadow the standard library's `time`)."""
NPM = ("everything", "filesystem", "github", "memory", "sequential-thinking")
SERVERS = (*NPM, "duckdb", "sqlite", "time")
MISSING_TEMPLATES = (
    "warning: server '{}': resources/templates/list is declared but not implemented "
    "(-32601 Method not found); recorded as empty"
)


@dataclass(frozen=True)
class Synced:
    project: Path
    stderr: str
    snapshots: dict[str, dict[str, Any]]
    """Each server's snapshot as written, by server id."""
    clients: dict[str, type]
    """Each server's generated client class, imported, by server id (its `server_name`)."""


@pytest.fixture(scope="module")
def synced(
    tmp_path_factory: pytest.TempPathFactory, sqlite_server: Path, duckdb_server: Path, time_server: str
) -> Iterator[Synced]:
    project = tmp_path_factory.mktemp("real-servers")
    (project / "files").mkdir()
    launches = {name: {"command": str(npm_server(f"mcp-server-{name}"))} for name in NPM}
    launches["filesystem"]["args"] = [str(project / "files")]
    launches["memory"]["env"] = {"MEMORY_FILE_PATH": str(project / "memory.jsonl")}
    launches["duckdb"] = {"command": str(duckdb_server), "args": ["--db-path", str(project / "test.duckdb")]}
    launches["sqlite"] = {"command": str(sqlite_server), "args": ["--db-path", str(project / "test.db")]}
    launches["time"] = {"command": time_server}
    servers = "".join(
        f"[tool.mcp-stubgen.servers.{name}]\n" + "".join(f"{key} = {toml(value)}\n" for key, value in launch.items())
        for name, launch in sorted(launches.items())
    )
    write_config(project, f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "{OUTPUT}"\n{servers}')
    result = subprocess.run(
        [sys.executable, "-m", "codegen.cli", "sync"],
        cwd=project,
        env={**os.environ, "MCP_STUBGEN_CACHE_DIR": str(project / "cache")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    snapshots = {path.stem: json.loads(path.read_text()) for path in (project / "snaps").glob("*.json")}
    sys.path.insert(0, str(project))
    try:
        packages = [path for path in (project / OUTPUT).iterdir() if path.name != RUNTIME_PACKAGE]
        modules = [importlib.import_module(f"{OUTPUT}.{path.name}.client") for path in packages]
        clients = {client.server_name: client for client in map(client_class, modules)}
        yield Synced(project, result.stderr, snapshots, clients)
    finally:
        sys.path.remove(str(project))
        for module in [module for module in sys.modules if module.split(".")[0] == OUTPUT]:
            del sys.modules[module]


def toml(value: object) -> str:
    """A TOML value for strings, lists of strings and tables of strings (JSON's strings are TOML's)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {json.dumps(item)}" for key, item in value.items()) + " }"
    return json.dumps(value)


def client_class(module: ModuleType) -> Any:
    """The async client class a generated `client` module exports (its sync twin is the other)."""
    (name,) = (name for name in module.__all__ if not name.endswith("SyncClient"))
    return getattr(module, name)


def test_one_sync_writes_a_snapshot_and_a_package_for_every_server(synced: Synced) -> None:
    assert sorted(synced.snapshots) == sorted(synced.clients) == sorted(SERVERS)
    # sqlite and duckdb declare resources but not templates; no other warning (an untyped tool would be one)
    warnings = [line for line in synced.stderr.splitlines() if line.startswith("warning:")]
    assert sorted(warnings) == [MISSING_TEMPLATES.format("duckdb"), MISSING_TEMPLATES.format("sqlite")]
    assert {name: len(snapshot["tools"]) for name, snapshot in synced.snapshots.items()} == {
        "duckdb": 1, "everything": 13, "filesystem": 14, "github": 26, "memory": 9, "sequential-thinking": 1,
        "sqlite": 6, "time": 2,
    }  # fmt: skip


def test_the_catalog_audit_finds_nothing_in_these_honest_servers(synced: Synced) -> None:
    """The audit's false-positive rate on real catalogs, as docs/drift.md publishes it: zero."""
    for server, document in sorted(synced.snapshots.items()):
        assert catalog_findings(parse_snapshot(json.dumps(document), server)) == [], server
    assert "read like a prompt injection" not in synced.stderr


@pytest.mark.generated_mypy
def test_every_generated_package_passes_mypy_strict(synced: Synced) -> None:
    packages = sorted(path for path in (synced.project / OUTPUT).iterdir() if path.name != RUNTIME_PACKAGE)
    assert len(packages) == len(SERVERS)
    assert run_mypy(packages, synced.project / OUTPUT) == ""


def test_every_tool_of_every_server_is_a_typed_method(synced: Synced) -> None:
    """A method per tool, named by the line its docstring ends with; typed means its models module is
    not the untyped fallback and, where the tool declares an output schema, it returns more than the
    untyped `ToolResult`."""
    problems: list[str] = []
    for server, snapshot in sorted(synced.snapshots.items()):
        client = synced.clients[server]
        found = tool_methods(client)
        methods = dict(found)
        tools = {tool["name"]: tool for tool in snapshot["tools"]}
        if len(found) != len(tools):
            problems.append(f"{server}: {len(tools)} tools but {len(found)} tool methods")
        problems += [f"{server}: tool {name!r} has no method" for name in sorted(tools.keys() - methods.keys())]
        for name, method in sorted(methods.items()):
            package = client.__module__.removesuffix(".client")
            models = importlib.import_module(f"{package}._models.{models_module(method)}")
            returns = inspect.signature(method).return_annotation
            if hasattr(models, "UNTYPED_REASON"):
                problems.append(f"{server}: tool {name!r} is untyped: {models.UNTYPED_REASON}")
            elif "outputSchema" in tools.get(name, {}) and returns == "ToolResult":
                problems.append(f"{server}: tool {name!r} declares an outputSchema but returns ToolResult")
    assert not problems, "\n".join(problems)


def tool_methods(client: type) -> list[tuple[str, Any]]:
    """The client's tool methods, each with the tool's wire name, which its docstring names."""
    found: list[tuple[str, Any]] = []
    for member in vars(client).values():
        called = re.search(
            r"^\s*Calls the tool '(.+?)'(?: as a task \(.+\) and waits for its result)?\.$",
            getattr(member, "__doc__", None) or "",
            re.M,
        )
        if inspect.iscoroutinefunction(member) and called:
            found.append((called[1], member))
    return found


def models_module(method: Any) -> str:
    (module,) = set(re.findall(r"\b_models\.(\w+)\._CONTRACT\b", inspect.getsource(method)))
    return module


def test_duckdb_records_its_missing_templates_and_its_query_tool_runs_on_a_temporary_database(
    synced: Synced, duckdb_server: Path
) -> None:
    """It answers resources/list and prompts/list with empty lists and resources/templates/list with
    -32601: the snapshot notes the missing method and keeps the rest."""
    snapshot = synced.snapshots["duckdb"]
    assert snapshot["missingMethods"] == ["resources/templates/list"]
    assert {"prompts", "resources", "tools"} <= snapshot["capabilities"].keys()
    assert (snapshot["resources"], snapshot["resourceTemplates"], snapshot["prompts"]) == ([], [], [])
    assert [tool["name"] for tool in snapshot["tools"]] == ["query"]

    server = StdioServerParameters(command=str(duckdb_server), args=["--db-path", str(synced.project / "test.duckdb")])

    async def query_cities() -> Any:
        async with synced.clients["duckdb"].connect(server) as db:
            await db.query(query="CREATE TABLE city (name TEXT)")
            await db.query(query="INSERT INTO city VALUES ('Oslo'), ('Lima')")
            rows = await db.query(query="SELECT name FROM city ORDER BY name")
            await db.verify()
        return rows

    rows = anyio.run(query_cities)
    assert (rows.raw.is_error, rows.text) == (False, "[('Lima',), ('Oslo',)]")
