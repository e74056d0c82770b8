"""The generate cache never changes a byte: cached, incremental and concurrent runs equal a cold run.

Also holds every generated file (but the verbatim runtimes) to being a black fixed point, which is
what lets the client be formatted piece by piece.
"""

from __future__ import annotations

import copy
import os
import subprocess
from pathlib import Path
from typing import Any

import black
import jinja2
import pytest

from benchmarks.catalog import changed, make_tools
from codegen.generate import Cache, generate_package, pipeline, render_snapshot
from codegen.generate.formatting import black_mode
from codegen.generate.proof import RenderKey, rendered_before
from codegen.generate.publish import read_tree
from codegen.generate.runtime_folder import RUNTIME_PACKAGE
from codegen.generate.template_cache import TemplateBytecodeCache
from codegen.snapshot import Snapshot, load_snapshot, write_snapshot
from tests.conftest import PYTHON
from tests.regen_goldens import GOLDEN, OUTPUT

REPO = Path(__file__).resolve().parent.parent
CATALOG = GOLDEN / "catalog" / "snapshot.json"
GENERATED = sorted(path for path in OUTPUT.iterdir() if path.name != RUNTIME_PACKAGE)
"""The golden packages and hub; the runtime beside them is mcp-stubgen's own source, not generated."""
TOOLS = 20
"""Enough tools that models and black run in worker processes, as on a real catalog."""


def bench_snapshot(tools: list[dict[str, Any]]) -> Snapshot:
    return Snapshot(server="bench", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))


def one_changed(snapshot: Snapshot) -> Snapshot:
    """The snapshot with one tool's description and arguments changed, the rest as they were."""
    tools = [copy.deepcopy(tool) for tool in snapshot.tools]
    tool = tools[len(tools) // 2]
    tool["description"] = "Changed. " + tool.get("description", "")
    tool["inputSchema"].setdefault("properties", {})["added_flag"] = {"type": "boolean"}
    return Snapshot(
        server=snapshot.server,
        protocol_version=snapshot.protocol_version,
        capabilities=snapshot.capabilities,
        server_info=snapshot.server_info,
        instructions=snapshot.instructions,
        tools=tuple(tools),
        resources=snapshot.resources,
        resource_templates=snapshot.resource_templates,
        prompts=snapshot.prompts,
    )


@pytest.mark.parametrize("source", ["catalog", "bench"])
def test_cached_and_incremental_runs_equal_cold_runs(source: str, tmp_path: Path) -> None:
    before = load_snapshot(CATALOG) if source == "catalog" else bench_snapshot(make_tools(TOOLS))
    after = one_changed(before)
    cache = Cache(tmp_path / "cache")

    cold = render_snapshot(before, cache=cache)
    assert cold == render_snapshot(before)  # the cache only ever stores what a cacheless run makes
    assert render_snapshot(before, cache=cache) == cold  # everything cached

    incremental = render_snapshot(after, cache=cache)
    assert incremental != cold
    assert incremental == render_snapshot(after, cache=Cache(tmp_path / "fresh"))
    assert incremental == render_snapshot(after)


def entries(folder: Path) -> dict[Path, bytes]:
    """Every entry in a cache folder (its shards, not its ledger), by path."""
    return {path: path.read_bytes() for path in folder.glob("v1/*/*")}


@pytest.mark.performance_guard
def test_a_tool_is_one_cache_entry_read_back_whole_by_the_next_run(tmp_path: Path) -> None:
    """A tool's models, spec, contract and formatted methods are one entry (creating a file cost more
    than anything else in storing a piece), and a run with nothing in memory reads them back to the
    cold bytes without storing anything again."""
    snapshot = bench_snapshot(make_tools(TOOLS))
    cold = render_snapshot(snapshot, cache=Cache(tmp_path / "cache"))
    stored = entries(tmp_path / "cache")
    tool_entries = [data for data in stored.values() if data.startswith(b'{"classes": ')]
    assert len(tool_entries) == TOOLS
    assert len(stored) - TOOLS <= 3, "beside the tools' entries, only the client's head pieces"
    assert render_snapshot(snapshot, cache=Cache(tmp_path / "cache")) == cold == render_snapshot(snapshot)
    assert entries(tmp_path / "cache") == stored


@pytest.mark.parametrize("damage", ["cut short", "garbage", "empty"])
def test_a_damaged_tool_entry_is_built_again(tmp_path: Path, damage: str) -> None:
    snapshot = bench_snapshot(make_tools(TOOLS))
    cold = render_snapshot(snapshot, cache=Cache(tmp_path / "cache"))
    damaged = {path: data for path, data in entries(tmp_path / "cache").items() if data.startswith(b'{"classes": ')}
    for path, data in damaged.items():
        path.write_bytes({"cut short": data[: len(data) - 7], "garbage": b"\x00garbage\n", "empty": b""}[damage])
    assert render_snapshot(snapshot, cache=Cache(tmp_path / "cache")) == cold
    assert render_snapshot(snapshot, cache=Cache(tmp_path / "cache")) == cold


def cli(*args: str | Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "codegen.cli", "generate", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "MCP_STUBGEN_CACHE_DIR": str(cache)},
        timeout=300,
    )


def test_generate_unchanged_and_one_changed_write_the_cold_bytes(tmp_path: Path) -> None:
    tools = make_tools(TOOLS)
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    write_snapshot(before, bench_snapshot(tools))
    write_snapshot(after, bench_snapshot(changed(tools, 1)))
    cache = tmp_path / "cache"

    assert cli(before, "--out", tmp_path / "out", cache=cache).returncode == 0
    first = read_tree(tmp_path / "out")
    again = cli(before, "--out", tmp_path / "out", cache=cache)
    assert again.returncode == 0 and "bench: unchanged " in again.stderr
    assert read_tree(tmp_path / "out") == first

    assert cli(after, "--out", tmp_path / "out", cache=cache).returncode == 0
    assert cli(after, "--out", tmp_path / "cold", cache=tmp_path / "fresh-cache").returncode == 0
    assert read_tree(tmp_path / "out") == read_tree(tmp_path / "cold")


def test_a_changed_tool_refused_in_an_incremental_run_is_reported_as_in_a_cold_one(tmp_path: Path) -> None:
    """An incremental run makes a changed tool's models beside its own process (`parallel.warm_up`): a
    schema refused there is the same one line and exit code as in a cold run, and nothing is written."""
    tools = make_tools(TOOLS)
    broken = copy.deepcopy(tools)
    broken[3]["inputSchema"]["properties"]["code"] = {"$ref": "#/properties/code/examples/0", "examples": [{}]}
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    write_snapshot(before, bench_snapshot(tools))
    write_snapshot(after, bench_snapshot(broken))
    cache = tmp_path / "cache"
    assert cli(before, "--out", tmp_path / "out", cache=cache).returncode == 0
    first = read_tree(tmp_path / "out")

    incremental = cli(after, "--out", tmp_path / "out", cache=cache)
    cold = cli(after, "--out", tmp_path / "cold", cache=tmp_path / "fresh-cache")
    assert incremental.returncode == cold.returncode == 2
    assert incremental.stderr == cold.stderr
    assert f"tool {broken[3]['name']!r}: /inputSchema/properties/code/$ref: " in incremental.stderr
    assert "Traceback" not in incremental.stderr
    assert read_tree(tmp_path / "out") == first


def test_a_hand_edit_is_regenerated_even_with_everything_cached(tmp_path: Path) -> None:
    snapshot = tmp_path / "snapshot.json"
    write_snapshot(snapshot, load_snapshot(CATALOG))
    cache = tmp_path / "cache"
    assert cli(snapshot, "--out", tmp_path / "out", cache=cache).returncode == 0
    expected = read_tree(tmp_path / "out")
    client = tmp_path / "out" / "catalog" / "client.py"
    client.write_bytes(client.read_bytes() + b"# a hand edit\n")
    result = cli(snapshot, "--out", tmp_path / "out", cache=cache)
    assert result.returncode == 0 and "1 file(s) written" in result.stderr
    assert read_tree(tmp_path / "out") == expected


def test_concurrent_runs_on_one_cache_agree(tmp_path: Path) -> None:
    """Two generate processes filling the same (empty) cache at once: both packages, and a third run
    that reads only what they cached, are byte for byte what a cacheless run writes."""
    snapshot = tmp_path / "snapshot.json"
    write_snapshot(snapshot, bench_snapshot(make_tools(TOOLS)))
    cache = tmp_path / "cache"
    environment = {**os.environ, "MCP_STUBGEN_CACHE_DIR": str(cache)}
    processes = [
        subprocess.Popen(
            [PYTHON, "-m", "codegen.cli", "generate", str(snapshot), "--out", str(tmp_path / name)],
            cwd=REPO,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("one", "two")
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stderr
    assert cli(snapshot, "--out", tmp_path / "three", cache=cache).returncode == 0

    expected = render_snapshot(load_snapshot(snapshot))
    for name in ("one", "two", "three"):
        assert read_tree(tmp_path / name / "bench") == expected
    assert not [path for path in cache.rglob("*") if path.name.endswith(".tmp")], "a temporary entry was left"
    for path in (tmp_path / "three" / "bench").rglob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")


@pytest.mark.parametrize("package", GENERATED, ids=[package.name for package in GENERATED])
def test_every_generated_file_is_a_black_fixed_point(package: Path) -> None:
    mode = black_mode()
    for path in sorted(package.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert black.format_str(source, mode=mode) == source, f"{path.relative_to(GOLDEN)} is not black-formatted"


def test_an_unchanged_package_is_proven_from_the_snapshot_bytes_without_parsing(
    tmp_path: Path,
    run_cli,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    snapshot = tmp_path / "snapshot.json"
    write_snapshot(snapshot, load_snapshot(CATALOG))
    monkeypatch.setenv("MCP_STUBGEN_CACHE_DIR", str(tmp_path / "cache"))
    assert run_cli("generate", snapshot, "--out", tmp_path / "out").exit_code == 0
    written = read_tree(tmp_path / "out")

    def no_parsing(*_: object) -> None:
        raise AssertionError("an unchanged package was parsed")

    monkeypatch.setattr(pipeline, "parse_snapshot", no_parsing)
    (tmp_path / "out" / "catalog" / "__pycache__").mkdir()
    (tmp_path / "out" / "catalog" / "__pycache__" / "client.cpython-311.pyc").write_bytes(b"bytecode")
    again = run_cli("generate", snapshot, "--out", tmp_path / "out")
    assert again.exit_code == 0 and "catalog: unchanged " in again.stderr
    assert read_tree(tmp_path / "out") == written


@pytest.mark.parametrize("change", ["edit", "extra", "missing", "method_names", "snapshot", "no-cache", "damaged"])
def test_anything_but_the_same_bytes_into_the_same_tree_is_not_proven_unchanged(tmp_path: Path, change: str) -> None:
    snapshot = load_snapshot(CATALOG)
    cache = Cache(tmp_path / "cache")
    out = tmp_path / "out"
    published = generate_package(snapshot, out, cache=cache)
    source, method_names = snapshot.canonical_bytes(), {}
    assert rendered_before(RenderKey(source, method_names), out, cache) == (published.path, "catalog")
    if change == "edit":
        (published.path / "models.py").write_text("# edited\n")
    elif change == "extra":
        (published.path / "_models" / "stray.py").write_text("")
    elif change == "missing":
        (published.path / "py.typed").unlink()
    elif change == "method_names":
        method_names = {"tree": "grow"}
    elif change == "snapshot":
        source = source.replace(b'"catalog"', b'"catalog-2"', 1)
    elif change == "damaged":
        for entry in (tmp_path / "cache").rglob("*"):
            if entry.is_file() and entry.read_text(encoding="utf-8").startswith('["catalog"'):
                entry.write_text('["../catalog"', encoding="utf-8")
        cache = Cache(tmp_path / "cache")  # a new run: nothing in memory
    else:
        cache = Cache.disabled()
    assert rendered_before(RenderKey(source, method_names), out, cache) is None


def test_compiled_templates_are_cached_and_a_damaged_entry_is_compiled_again(tmp_path: Path) -> None:
    """The templates' compiled code is kept in the cache folder; garbage in its place, or an entry left
    empty or cut short (as a crash can leave one, since it is written without an fsync), gives the
    same package, exit 0, and is replaced by good code."""
    snapshot = GOLDEN / "weather" / "snapshot.json"
    cache = tmp_path / "cache"
    assert cli(snapshot, "--out", tmp_path / "first", "--no-cache", cache=cache).returncode == 0
    compiled = sorted((cache / "templates-v1").iterdir())
    assert len(compiled) >= 3, "no compiled template was cached"
    damaged = {}
    for index, entry in enumerate(compiled):
        good = entry.read_bytes()
        damaged[entry] = [b"\x00garbage" * 10, b"", good[: len(good) // 2]][index % 3]
        entry.write_bytes(damaged[entry])
    again = cli(snapshot, "--out", tmp_path / "second", "--no-cache", cache=cache)
    assert again.returncode == 0, again.stderr
    assert read_tree(tmp_path / "second") == read_tree(tmp_path / "first")
    assert all(entry.read_bytes() != damaged[entry] for entry in compiled)


def test_a_compiled_template_is_stored_without_waiting_for_the_disk(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Compiled code can always be compiled again, also from an entry a crash left empty or torn
    (above), so it is written without an fsync: a cold run waited about 5 ms for each template."""
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    templates = jinja2.DictLoader({"sum.jinja": "{{ 1 + 1 }}"})
    environment = jinja2.Environment(loader=templates, bytecode_cache=TemplateBytecodeCache(tmp_path))
    assert environment.get_template("sum.jinja").render() == "2"
    assert len(list((tmp_path / "templates-v1").iterdir())) == 1
    assert synced == []


@pytest.fixture(scope="module")
def cache_a_module_fixture_sees() -> str | None:
    return os.environ.get("MCP_STUBGEN_CACHE_DIR")


def test_a_module_fixture_generates_into_the_sessions_cache_not_the_users(
    cache_a_module_fixture_sees: str | None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Module fixtures are set up before the per-test cache: they once wrote to `~/.cache/mcp-stubgen`."""
    assert cache_a_module_fixture_sees is not None
    assert Path(cache_a_module_fixture_sees).is_relative_to(tmp_path_factory.getbasetemp())


@pytest.mark.parametrize("distribution", ["black", "datamodel-code-generator"])
def test_the_versions_that_key_the_cache_are_the_installed_ones(
    monkeypatch: pytest.MonkeyPatch, distribution: str
) -> None:
    """A version read from its `dist-info` folder's name is what `importlib.metadata` says, and one no
    folder on `sys.path` names (another kind of install) is asked of it."""
    from importlib import metadata

    from codegen.generate.cache import installed_version

    assert installed_version(distribution) == metadata.version(distribution)
    asked: list[str] = []
    monkeypatch.setattr("sys.path", [])
    monkeypatch.setattr(metadata, "version", lambda name: asked.append(name) or "9.9")
    assert installed_version(distribution) == "9.9"
    assert asked == [distribution]
