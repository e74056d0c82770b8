"""A package redone from its last render for the tools whose text changed (`last_render`) is the
package a whole render makes, byte for byte; anything a redo cannot vouch for renders whole."""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.catalog import make_tools
from codegen import console
from codegen.errors import StubgenError
from codegen.generate import Cache, pipeline, render_snapshot
from codegen.generate.last_render import LastRender
from codegen.generate.pipeline import PackageInputs, Rendered, publish_rendered, render_current
from codegen.generate.publish import read_tree
from codegen.identifiers import NAMING_RULES
from codegen.snapshot import Snapshot, load_snapshot, parse_snapshot
from tests.conftest import PYTHON, SERVERS, write_config
from tests.regen_goldens import GOLDEN

REPO = Path(__file__).resolve().parent.parent
MORE = REPO / "tests" / "fixtures" / "catalogs" / "more"
CATALOGS = {
    **{
        name: GOLDEN / name / "snapshot.json"
        for name in ("catalog", "everything", "shapes", "later_unicode", "weather")
    },
    **{name: MORE / f"{name}.json" for name in ("browser", "chrome_devtools", "github")},
}
"""The goldens' catalogs and three real servers' (read with the newest naming rules, which a snapshot
taken today records: a file of older rules is always rendered whole)."""

JSON = dict[str, Any]


def _described(tool: JSON) -> None:
    tool["description"] = (tool.get("description") or "") + " Changed."


def _retitled(tool: JSON) -> None:
    tool["title"] = "A title of its own"


def _optional_argument(tool: JSON) -> None:
    tool["inputSchema"].setdefault("properties", {})["added_flag"] = {"type": "boolean", "description": "New."}


def _required_argument(tool: JSON) -> None:
    tool["inputSchema"].setdefault("properties", {})["added_count"] = {"type": "integer"}
    tool["inputSchema"]["required"] = [*tool["inputSchema"].get("required", []), "added_count"]


def _output_schema(tool: JSON) -> None:
    tool["outputSchema"] = {"type": "object", "properties": {"done": {"type": "boolean"}}, "required": ["done"]}


def _untyped(tool: JSON) -> None:
    tool["inputSchema"].setdefault("properties", {})["broken"] = {"type": "string", "minLength": "x"}


def _untyped_output(tool: JSON) -> None:
    tool["outputSchema"] = {"type": "object", "properties": {"done": {"$ref": "#/$defs/gone"}}}


def _task(tool: JSON) -> None:
    tool["execution"] = {"taskSupport": "optional"}


CHANGES: dict[str, Callable[[JSON], None]] = {
    "described": _described,
    "retitled": _retitled,
    "optional argument": _optional_argument,
    "required argument": _required_argument,
    "output schema": _output_schema,
    "untyped": _untyped,
    "task": _task,
}
REDONE = {"described", "retitled", "optional argument", "required argument"}
"""Changes these catalogs' packages read nothing of outside the changed tool (each has other tools
with optional arguments): redone, never rendered whole. Each other change renders whole here."""


def newest_rules(snapshot: Snapshot) -> Snapshot:
    return dataclasses.replace(snapshot, naming_rules=NAMING_RULES)


def with_tools(snapshot: Snapshot, tools: list[JSON]) -> Snapshot:
    return dataclasses.replace(snapshot, tools=tuple(tools))


def changed(snapshot: Snapshot, change: Callable[[JSON], None], *indexes: int) -> Snapshot:
    tools = [copy.deepcopy(tool) for tool in snapshot.tools]
    for index in indexes or (len(tools) // 2,):
        change(tools[index])
    return with_tools(snapshot, tools)


def inputs(snapshot: Snapshot | bytes) -> PackageInputs:
    source = snapshot if isinstance(snapshot, bytes) else snapshot.canonical_bytes()
    return PackageInputs(source, "snapshot.json", {}, {})


def generated(snapshot: Snapshot | bytes, out: Path, cache: Cache) -> Rendered:
    rendered = render_current(inputs(snapshot), out, cache)
    publish_rendered(rendered, cache)
    return rendered


@pytest.fixture(scope="module")
def rendered_once(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Snapshot, Path]]:
    """Each catalog generated once into a folder with its cache, for the tests to copy."""
    done = {}
    for name, path in CATALOGS.items():
        base = tmp_path_factory.mktemp(f"base-{name}")
        snapshot = newest_rules(load_snapshot(path))
        generated(snapshot, base / "out", Cache(base / "cache"))
        done[name] = (snapshot, base)
    return done


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("catalog", CATALOGS)
def test_a_package_redone_for_changed_tools_is_what_a_whole_render_makes(
    catalog: str, change: str, rendered_once: dict[str, tuple[Snapshot, Path]], tmp_path: Path
) -> None:
    snapshot, base = rendered_once[catalog]
    shutil.copytree(base, tmp_path, dirs_exist_ok=True)
    cache = Cache(tmp_path / "cache")
    after = changed(snapshot, CHANGES[change])

    rendered = render_current(inputs(after), tmp_path / "out", cache)

    assert rendered.files == render_snapshot(after, cache=cache)
    assert (rendered.folder is not None) == (change in REDONE), "redone from the last render, or rendered whole"
    publish_rendered(rendered, cache)
    again = render_current(inputs(after), tmp_path / "out", cache)
    assert again.files is None, "what was redone is proven current next time"


def test_several_changed_tools_are_redone_together_and_a_redone_render_is_recorded_too(
    rendered_once: dict[str, tuple[Snapshot, Path]], tmp_path: Path
) -> None:
    snapshot, base = rendered_once["everything"]
    shutil.copytree(base, tmp_path, dirs_exist_ok=True)
    cache = Cache(tmp_path / "cache")
    first = changed(snapshot, _described, 0, 3, 16)
    second = changed(first, _retitled, 3, 7)

    for after in (first, second, snapshot):
        rendered = generated(after, tmp_path / "out", cache)
        assert rendered.folder is not None
        assert read_tree(tmp_path / "out" / "everything") == render_snapshot(after, cache=cache)


def test_a_redo_neither_parses_the_snapshot_nor_builds_the_package(
    rendered_once: dict[str, tuple[Snapshot, Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The point of the record: a 1,000-tool catalog with one tool changed took 0.8 s rendered whole."""
    snapshot, base = rendered_once["github"]
    shutil.copytree(base, tmp_path, dirs_exist_ok=True)
    after = changed(snapshot, _described)
    expected = render_snapshot(after, cache=Cache(tmp_path / "cache"))

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a redo does this for no tool but the changed one")

    monkeypatch.setattr(pipeline, "parse_snapshot", refused)
    monkeypatch.setattr(pipeline, "_render", refused)
    rendered = render_current(inputs(after), tmp_path / "out", Cache(tmp_path / "cache"))
    assert rendered.files == expected


@pytest.mark.parametrize(
    "edit", ["a hand edit", "a new file", "the record damaged", "a chunk's length retyped", "a tool's names retyped"]
)
def test_a_folder_not_as_recorded_is_rendered_whole(
    edit: str, rendered_once: dict[str, tuple[Snapshot, Path]], tmp_path: Path
) -> None:
    snapshot, base = rendered_once["catalog"]
    shutil.copytree(base, tmp_path, dirs_exist_ok=True)
    package = tmp_path / "out" / "catalog"
    if edit == "a hand edit":
        model = sorted((package / "_models").glob("[!_]*.py"))[0]
        model.write_text(model.read_text() + "# mine\n")
    elif edit == "a new file":
        (package / "notes.txt").write_text("mine\n")
    else:  # the record is JSON the cache holds, which a hand may have damaged: a miss, never a traceback
        [(entry, record)] = [
            (entry, record)
            for entry in (tmp_path / "cache").rglob("*")
            if entry.is_file() and entry.read_text(errors="replace").startswith('["catalog",')
            for record in [json.loads(entry.read_text())]
            if len(record) == len(dataclasses.fields(LastRender))
        ]
        if edit == "a chunk's length retyped":
            record[5][0][2] = str(record[5][0][2])
        elif edit == "a tool's names retyped":
            record[4][0][7] = [["a", "b"]]
        entry.write_text("[" if edit == "the record damaged" else json.dumps(record))
    after = changed(snapshot, _described)

    rendered = render_current(inputs(after), tmp_path / "out", Cache(tmp_path / "cache"))

    assert rendered.folder is None
    assert rendered.files == render_snapshot(after, cache=Cache(tmp_path / "cache"))


def test_a_snapshot_file_not_as_written_is_rendered_whole(
    rendered_once: dict[str, tuple[Snapshot, Path]], tmp_path: Path
) -> None:
    """A tool whose keys a hand edit left out of order, with its `required` names not sorted, is the
    catalog the reader sorts: the record cannot vouch for such a file, which is read whole."""
    snapshot, base = rendered_once["weather"]
    shutil.copytree(base, tmp_path, dirs_exist_ok=True)
    after = changed(snapshot, _required_argument)
    document = json.loads(after.canonical_bytes())
    index = len(after.tools) // 2
    tool = document["tools"][index]
    tool["inputSchema"]["required"] = sorted(tool["inputSchema"]["required"], reverse=True)
    document["tools"][index] = dict(reversed(tool.items()))
    unsorted = (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()
    assert unsorted != after.canonical_bytes()

    rendered = render_current(inputs(unsorted), tmp_path / "out", Cache(tmp_path / "cache"))

    assert rendered.folder is None
    assert rendered.files == render_snapshot(after, cache=Cache(tmp_path / "cache"))


def test_a_changed_tool_no_package_can_be_made_from_is_refused_as_by_a_whole_render(tmp_path: Path) -> None:
    """The same one line and exit code, a redo or not, and nothing written."""
    tools = make_tools(12)
    snapshot = Snapshot(server="bench", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))
    broken = copy.deepcopy(tools)
    broken[5]["inputSchema"]["properties"]["code"] = {"$ref": "#/properties/code/examples/0", "examples": [{}]}
    (tmp_path / "before.json").write_bytes(snapshot.canonical_bytes())
    (tmp_path / "after.json").write_bytes(with_tools(snapshot, broken).canonical_bytes())

    def cli(source: str, out: str, cache: str) -> subprocess.CompletedProcess[str]:
        command = [PYTHON, "-m", "codegen.cli", "generate", source, "--out", out]
        env = {"MCP_STUBGEN_CACHE_DIR": str(tmp_path / cache), "PATH": "/usr/bin:/bin"}
        return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env, check=False)

    assert cli("before.json", "out", "cache").returncode == 0
    first = read_tree(tmp_path / "out" / "bench")
    redone = cli("after.json", "out", "cache")
    whole = cli("after.json", "cold", "fresh")
    assert redone.returncode == whole.returncode == 2
    assert redone.stderr == whole.stderr
    assert read_tree(tmp_path / "out" / "bench") == first


@pytest.mark.parametrize("untyped", [_untyped, _untyped_output], ids=["untyped", "untyped output"])
def test_untyped_tools_are_warned_of_in_a_redo_as_in_a_whole_render(
    untyped: Callable[[JSON], None], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool whose arguments or (naming rules 13) output schema alone are untyped is warned of again
    by a redo for another tool's change, as a whole render warns of it."""
    tools = make_tools(12)
    untyped(tools[2])
    snapshot = Snapshot(server="bench", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))
    after = changed(snapshot, _described, 7)
    cache = Cache(tmp_path / "cache")
    generated(snapshot, tmp_path / "out", cache)

    def warned(render: Callable[[], object]) -> list[str]:
        console.begin()  # a fresh command: nothing warned of yet
        capsys.readouterr()
        render()
        return [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]

    rendered: list[Rendered] = []
    redone = warned(lambda: rendered.append(render_current(inputs(after), tmp_path / "out", cache)))
    whole = warned(lambda: render_snapshot(after, cache=cache))
    assert rendered[0].folder is not None
    assert redone == whole
    assert len(whole) == 1 and f"tool {tools[2]['name']!r}" in whole[0]
    assert ("its method returns `ToolResult`" in whole[0]) == (untyped is _untyped_output)


def _weather_folder(rendered_once: dict[str, tuple[Snapshot, Path]], tmp_path: Path) -> tuple[Snapshot, Cache]:
    """The weather catalog generated into `tmp_path/out` with its cache in `tmp_path/cache`."""
    snapshot, base = rendered_once["weather"]
    shutil.copytree(base, tmp_path, dirs_exist_ok=True)
    return snapshot, Cache(tmp_path / "cache")


@pytest.mark.parametrize("sync_client", [True, False])
def test_method_names_and_sync_client_settings_are_redone_as_rendered_whole(sync_client: bool, tmp_path: Path) -> None:
    tools = make_tools(12)
    snapshot = newest_rules(
        Snapshot(server="bench", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))
    )
    names = {tools[3]["name"]: "chosen_name", tools[7]["name"]: "another_choice"}
    cache = Cache(tmp_path / "cache")

    def settings(source: Snapshot, chosen: dict[str, str]) -> PackageInputs:
        return PackageInputs(source.canonical_bytes(), "snapshot.json", chosen, {}, sync_client)

    publish_rendered(render_current(settings(snapshot, names), tmp_path / "out", cache), cache)
    for index, chosen in ((3, names), (5, names), (5, {})):
        after = changed(snapshot, _described, index)
        rendered = render_current(settings(after, chosen), tmp_path / "out", cache)
        assert rendered.files == render_snapshot(after, chosen, cache=Cache(tmp_path / "cold"), sync_client=sync_client)
        assert (rendered.folder is not None) == (chosen == names), "other settings are not the recorded render's"


def _crlf(source: bytes) -> bytes:
    return source.replace(b"\n", b"\r\n")


def _bom(source: bytes) -> bytes:
    return b"\xef\xbb\xbf" + source


def _spaced_tool(source: bytes) -> bytes:
    """One tool's `"name": ` written with two spaces after its colon, as a hand edit might."""
    return source.replace(b'"name": "', b'"name":  "', 1)


def _no_tools(source: bytes) -> bytes:
    document = json.loads(source)
    document["tools"] = []
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


def _local_icon(source: bytes) -> bytes:
    """An icon naming a file on the server's machine, which reading the file leaves out."""
    document = json.loads(source)
    document["tools"][0]["icons"] = [{"src": "file:///home/me/icon.png"}, {"src": "https://example.com/i.png"}]
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


@pytest.mark.parametrize("edit", [_crlf, _bom, _spaced_tool, _no_tools, _local_icon], ids=lambda edit: edit.__name__)
def test_a_snapshot_file_a_redo_cannot_vouch_for_gives_what_reading_it_whole_gives(
    edit: Callable[[bytes], bytes], rendered_once: dict[str, tuple[Snapshot, Path]], tmp_path: Path
) -> None:
    snapshot, cache = _weather_folder(rendered_once, tmp_path)
    source = edit(changed(snapshot, _described).canonical_bytes())

    def rendered_from(render: Callable[[], Any]) -> Any:
        try:
            return render()
        except StubgenError as error:
            return str(error)

    redone = rendered_from(lambda: render_current(inputs(source), tmp_path / "out", cache))
    whole = rendered_from(lambda: render_snapshot(parse_snapshot(source, "snapshot.json"), cache=Cache.disabled()))
    if isinstance(whole, str):
        assert redone == whole
    else:
        assert redone.folder is None
        assert redone.files == whole


def test_a_package_folder_holding_a_symlink_is_rendered_whole(
    rendered_once: dict[str, tuple[Snapshot, Path]], tmp_path: Path
) -> None:
    snapshot, cache = _weather_folder(rendered_once, tmp_path)
    (tmp_path / "secret").write_text("not for a diff\n")
    (tmp_path / "out" / "weather" / "notes.py").symlink_to(tmp_path / "secret")
    after = changed(snapshot, _described)

    rendered = render_current(inputs(after), tmp_path / "out", cache)

    assert rendered.folder is None
    assert rendered.files == render_snapshot(after, cache=Cache(tmp_path / "cold"))
    publish_rendered(rendered, cache)
    assert read_tree(tmp_path / "out" / "weather") == rendered.files


def _project(folder: Path, snapshots: dict[str, Snapshot]) -> None:
    """A project of these servers' snapshot files, with a hub and chosen method names for one tool."""
    tables = "".join(f'[tool.mcp-stubgen.servers.{name}]\ncommand = "unused"\n' for name in snapshots)
    first = snapshots["bench"].tools[4]["name"]
    write_config(
        folder,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\n\n'
        f'{tables}\n[tool.mcp-stubgen.method_names.bench]\n"{first}" = "chosen_name"\n',
    )
    (folder / "snaps").mkdir(exist_ok=True)
    for name, snapshot in snapshots.items():
        (folder / "snaps" / f"{name}.json").write_bytes(snapshot.canonical_bytes())


@pytest.fixture
def redone(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The server of each package redone from its last render in the test, in order."""
    from codegen.generate import last_render

    servers: list[str] = []
    original = last_render.redo_changed_tools

    def spied(*args: Any) -> Any:
        result = original(*args)
        servers.extend([result.server] if result is not None else [])
        return result

    monkeypatch.setattr(last_render, "redo_changed_tools", spied)
    return servers


def test_generate_and_check_redo_one_changed_package_beside_another_and_a_hub_as_rendered_whole(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch, redone: list[str]
) -> None:  # type: ignore[no-untyped-def]
    """Two servers and a hub in one config, one tool of one server changed: `generate --check` prints
    the diff a whole render prints, and `generate` writes the files a whole render writes, and says so
    in the same words."""

    catalogs = {
        name: newest_rules(
            Snapshot(server=name, protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))
        )
        for name, tools in (("bench", make_tools(12)), ("other", make_tools(5)))
    }
    changed_catalogs = {**catalogs, "bench": changed(catalogs["bench"], _described, 4)}
    outputs: dict[str, list[Any]] = {}
    for run, cache in (("redone", []), ("whole", ["--no-cache"])):
        folder = tmp_path / run
        folder.mkdir()
        monkeypatch.chdir(folder)
        _project(folder, catalogs)
        assert run_cli("generate").exit_code == 0
        _project(folder, changed_catalogs)
        check = run_cli("generate", "--check", *cache)
        generate = run_cli("generate", *cache)
        outputs[run] = [
            check.exit_code,
            check.stdout,
            generate.exit_code,
            generate.stderr,
            read_tree(folder / "clients"),
        ]
        assert run_cli("generate", "--check").exit_code == 0
    assert redone == ["bench", "bench"], "--check and generate each redid the changed package"
    assert outputs["redone"] == outputs["whole"]
    assert outputs["whole"][0] == 1 and "+" in outputs["whole"][1]


def test_sync_redoes_the_one_tool_a_stdio_server_changed_as_rendered_whole(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch, redone: list[str]
) -> None:  # type: ignore[no-untyped-def]

    monkeypatch.chdir(tmp_path)
    table = f'[tool.mcp-stubgen.servers.paging]\ncommand = {json.dumps(PYTHON)}\nargs = ["{SERVERS / "paging_server.py"}"]\n'
    config = '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n' + table
    write_config(tmp_path, config)
    assert run_cli("sync").exit_code == 0
    write_config(tmp_path, config + 'env = { PAGING_SERVER_REVISED = "5" }\n')

    result = run_cli("sync")

    assert result.exit_code == 0, result.stderr
    assert redone == ["paging"]
    snapshot = load_snapshot(tmp_path / "snaps" / "paging.json")
    assert "Revised." in snapshot.tools[5]["description"]
    assert read_tree(tmp_path / "clients" / "paging") == render_snapshot(snapshot, cache=Cache(tmp_path / "cold"))
    assert run_cli("generate", "--check").exit_code == 0


def test_a_redo_refuses_a_changed_tool_only_after_it_knows_it_can_redo_the_others(tmp_path: Path) -> None:
    """Tool `b` renamed `a` (no redo can follow a rename) and tool `c` given an output schema that is no
    object: a whole render refuses `a` first, the first in the catalog, and a redo must say the same,
    not `c`, which it reached while planning the changed tools."""
    tools = [{"name": name, "inputSchema": {"type": "object"}} for name in "bcd"]
    snapshot = newest_rules(
        Snapshot(server="bench", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))
    )
    cache = Cache(tmp_path / "cache")
    generated(snapshot, tmp_path / "out", cache)
    broken = [dict(tool, outputSchema="none") for tool in tools[:2]]
    after = with_tools(snapshot, [{**broken[0], "name": "a"}, broken[1], tools[2]])

    with pytest.raises(StubgenError) as whole:
        render_snapshot(after)
    with pytest.raises(StubgenError) as redone:
        render_current(inputs(after), tmp_path / "out", cache)

    assert "tool 'a'" in str(whole.value)
    assert str(redone.value) == str(whole.value)


def test_a_snapshot_file_nested_too_deep_before_its_tools_is_refused_in_one_line_with_a_cache(
    rendered_once: dict[str, tuple[Snapshot, Path]], tmp_path: Path
) -> None:
    """A redo reads the server's name from what precedes the tools: nested past Python's recursion
    limit there, it raised `RecursionError` (a traceback) where reading the file whole names the file."""
    snapshot, cache = _weather_folder(rendered_once, tmp_path)
    source = changed(snapshot, _described).canonical_bytes()
    depth = 100_000
    deep = source.replace(b'"capabilities": {', b'"capabilities": {"deep": ' + b"[" * depth + b"]" * depth + b",", 1)
    assert deep != source

    with pytest.raises(StubgenError) as whole:
        parse_snapshot(deep, "snapshot.json")
    with pytest.raises(StubgenError) as redone:
        render_current(inputs(deep), tmp_path / "out", cache)

    assert "nested deeper than" in str(whole.value)
    assert str(redone.value) == str(whole.value)


def test_two_snapshot_files_of_one_server_leave_the_package_of_the_last_as_rendered_whole(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """`generate a.json b.json`, both of one server, each with another tool changed: every package is
    rendered before any is published, so b's redo was made from the folder as it was before a's was
    published into it, and publishing it linked a's changed models module into b's package."""
    monkeypatch.chdir(tmp_path)
    snapshot = newest_rules(
        Snapshot(server="bench", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(make_tools(6)))
    )
    (tmp_path / "base.json").write_bytes(snapshot.canonical_bytes())
    (tmp_path / "a.json").write_bytes(changed(snapshot, _described, 1).canonical_bytes())
    last = changed(snapshot, _described, 4)
    (tmp_path / "b.json").write_bytes(last.canonical_bytes())
    assert run_cli("generate", "base.json", "--out", "out").exit_code == 0

    result = run_cli("generate", "a.json", "b.json", "--out", "out")

    assert result.exit_code == 0, result.stderr
    assert read_tree(tmp_path / "out" / "bench") == render_snapshot(last, cache=Cache(tmp_path / "cold"))


def test_a_redo_loads_neither_pydantic_nor_datamodel_code_generator_nor_black(tmp_path: Path) -> None:
    """A plain changed tool is redone with the standard library, Jinja and our own code: importing
    pydantic-core alone was 20 ms of a redo a tenth of a cold run allows (about a third of a second)."""
    tools = make_tools(12)
    snapshot = Snapshot(server="bench", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))
    (tmp_path / "before.json").write_bytes(snapshot.canonical_bytes())
    (tmp_path / "after.json").write_bytes(changed(snapshot, _described, 7).canonical_bytes())
    script = (
        "import atexit, sys\n"
        "roots = ('pydantic', 'pydantic_core', 'datamodel_code_generator', 'black')\n"
        "atexit.register(lambda: print(sorted({m.split('.')[0] for m in sys.modules} & set(roots))))\n"
        "from codegen.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    env = {"MCP_STUBGEN_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}

    def generate(source: str) -> str:
        command = [PYTHON, "-c", script, "generate", source, "--out", "out"]
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert generate("before.json") != "[]"  # a whole render loads them
    assert generate("after.json") == "[]"
    assert read_tree(tmp_path / "out" / "bench") == render_snapshot(
        parse_snapshot((tmp_path / "after.json").read_bytes(), "after.json")
    )
