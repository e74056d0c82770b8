"""client.py is formatted in pieces: batches split back exactly, the template already writes black's
layout, each piece is formatted once, and catalog text cannot pose as a piece."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from codegen.errors import StubgenError
from codegen.generate import parallel, piecewise_black, render_snapshot, templating, tool_workers
from codegen.generate.build import build_package
from codegen.generate.cache import Cache
from codegen.generate.formatting import LINE_LENGTH
from codegen.generate.piecewise_black import PieceKind, black_batch, black_leaves_alone, formatted_without_black
from codegen.generate.spec import Import, PackageSpec
from codegen.generate.templating import model_import, tool_members
from codegen.snapshot import JSON, Snapshot, load_snapshot
from tests.hostile.strategies import catalogs, snapshot_of
from tests.regen_goldens import case_renames, cases

CASES = cases()


def members_and_imports(package: PackageSpec) -> tuple[list[str], list[str]]:
    helpers = templating.method_macros()
    members = [
        member
        for sync in (False, True)
        for member in [
            *(member for tool in package.tools for member in tool_members(tool, sync)),
            *(str(helpers.resource_method(entry, sync)) for entry in package.resources),
            *(str(helpers.template_method(entry, sync)) for entry in package.templates),
            *(str(helpers.prompt_method(entry, sync)) for entry in package.prompts),
            *(str(helpers.alias_method(alias, sync)) for alias in package.aliases),
        ]
    ]
    imports = [model_import(entry) + "\n" for entry in package.model_imports if entry.module.startswith(".")]
    return members, imports


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_batch_formats_to_the_same_bytes_as_its_pieces_one_by_one(case: Path) -> None:
    members, imports = members_and_imports(
        build_package(load_snapshot(case / "snapshot.json"), renames=case_renames(case))
    )
    for kind, pieces in (("member", members), ("import", imports)):
        assert pieces
        assert black_batch(kind, pieces) == [black_batch(kind, [piece])[0] for piece in pieces]  # type: ignore[arg-type]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_template_writes_black_layout_so_black_changes_nothing(case: Path) -> None:
    """black formats in two passes when it changes anything, so a method it leaves alone costs half;
    only lines too long for the template's fixed layout (a long import) are left to black."""
    members, _ = members_and_imports(build_package(load_snapshot(case / "snapshot.json"), renames=case_renames(case)))
    changed = 0
    for member in members:
        after = black_batch("member", [member])[0]
        if after != member:
            changed += 1
            rewritten = set(member.splitlines()) - set(after.splitlines())
            assert all(len(line) > LINE_LENGTH for line in rewritten), f"black rewrote lines that fit:\n{member}"
    assert changed <= 2  # one method with a long annotation, and its sync twin


@pytest.mark.performance_guard
def test_each_tools_method_and_import_are_formatted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A performance guard, not a behaviour test: it counts the pieces black formats, the client's in
    `black_pieces` and each tool's methods where the tool is built (`tool_workers`): no piece formatted
    twice, methods black would leave alone never formatted, which the output cannot show; what the
    user sees is held by its last line and the golden trees."""
    monkeypatch.setattr(parallel, "_workers", lambda: 1)  # in-process, so every black call is counted
    formatted: Counter[str] = Counter()
    seen: Counter[tuple[PieceKind, str]] = Counter()
    original = piecewise_black.black_pieces

    def counting(kind: PieceKind, sources: Sequence[str]) -> list[str]:
        formatted.update(kind for _ in sources)
        seen.update((kind, source) for source in sources)
        return original(kind, sources)

    monkeypatch.setattr(piecewise_black, "black_pieces", counting)
    monkeypatch.setattr(tool_workers, "black_batch", counting)
    snapshot = load_snapshot(Path("golden/catalog/snapshot.json"))
    files = render_snapshot(snapshot)
    helpers_members = len(snapshot.resources) + len(snapshot.resource_templates) + len(snapshot.prompts)
    # a tool whose annotations use none of its models (no output schema, plain parameters) has no import
    imports = sum(line.startswith("    from ._models.") for line in files["client.py"].decode().splitlines())
    assert 0 < imports < len(snapshot.tools)
    # each method twice (the client's and its sync twin's), a task tool's `start_...` method too; the
    # modules: the head around the imports, the twin's class
    task_tools = sum(
        tool.get("execution", {}).get("taskSupport") in ("optional", "required") for tool in snapshot.tools
    )
    members = 2 * (len(snapshot.tools) + task_tools + helpers_members)
    written = [
        line for line in files["client.py"].decode().splitlines() if line.startswith(("    def ", "    async def "))
    ]
    assert len(written) == members + 1  # and the client's `connect_sync`
    # a piece black would leave as it is (`formatted_without_black`) never reaches it; every other
    # piece reaches it once, in the renderer or (a tool's methods) where the tool is built
    assert max(seen.values()) == 1
    assert formatted["module"] == 3 and formatted["import"] == 0
    assert 0 < formatted["member"] < members
    assert files == render_snapshot(snapshot, cache=Cache.disabled())


def test_server_instructions_cannot_pose_as_the_clients_model_imports(tmp_path: Path) -> None:
    """The head's model imports are found by their lines; instructions (the `instructions` attribute) may hold any line."""
    lines = [  # the docstring indents every line after the first by four spaces, as the imports are
        "Hello.",
        "from mcp.types import GetPromptResult, ReadResourceResult",
        "from ._models.evil import Evil",
        "",
        "from ._models.also_evil import AlsoEvil",
    ]
    snapshot = Snapshot(
        server="posing",
        protocol_version="2025-06-18",
        capabilities={"tools": {}},
        instructions="\n".join(lines),
        tools=(
            {
                "name": "echo",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
                "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            },
        ),
    )
    client = render_snapshot(snapshot)["client.py"].decode()
    head, _, body = client.partition("__all__")
    assert "    from ._models.echo import EchoOutput\n\n" in head
    assert "evil" not in head.lower()
    assert "\n    from ._models.evil import Evil\n" not in body  # kept as text, inside one string literal
    namespace: dict[str, object] = {}
    source = client.replace("from .._mcp_runtime._runtime", "from codegen.runtime._runtime")
    exec(compile(source.replace("from . import _models\n", ""), "client.py", "exec"), namespace)  # no package here
    posing: Any = namespace["PosingClient"]
    # prose addressed to a model is the `instructions` attribute; both classes' docstrings stay neutral
    assert posing.instructions == "\n".join(lines)
    assert posing.__doc__.startswith("A typed client for the MCP server 'posing'.") and "vil" not in posing.__doc__
    assert "vil" not in str(namespace["PosingSyncClient"].__doc__)  # type: ignore[attr-defined]


def test_model_imports_are_the_lines_the_template_writes() -> None:
    entry = Import("._models.tool", ("ToolInput", "ToolOutput"))
    assert model_import(entry) == "    from ._models.tool import ToolInput, ToolOutput"


def members_left_alone(package: PackageSpec) -> list[str]:
    """Every method and sync twin of the package that `black_leaves_alone` passes unformatted."""
    return [member for member in members_and_imports(package)[0] if black_leaves_alone(member)]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_method_passed_without_black_is_what_black_writes(case: Path) -> None:
    package = build_package(load_snapshot(case / "snapshot.json"), renames=case_renames(case))
    alone = members_left_alone(package)
    ascii_members = [member for member in members_and_imports(package)[0] if member.isascii()]
    assert len(alone) > len(ascii_members) / 2  # most methods skip black (one in other scripts never does)
    assert black_batch("member", alone) == alone


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_model_import_passed_without_black_is_what_black_writes(case: Path) -> None:
    _, imports = members_and_imports(build_package(load_snapshot(case / "snapshot.json"), renames=case_renames(case)))
    assert [formatted_without_black("import", line) for line in imports] == black_batch("import", imports)


def test_a_model_import_too_long_for_one_line_is_split_as_black_splits_it() -> None:
    imports = [
        model_import(Import("._models.tool", tuple(f"ToolOutputPart{index}" for index in range(count)))) + "\n"
        for count in (1, 3, 4, 8)
    ]
    imports.append(model_import(Import("._models.tool", ("X" * 120,))) + "\n")
    imports.append(model_import(Import(f"._models.{'m' * 100}", ("Short", "Names"))) + "\n")
    formatted = black_batch("import", imports)
    too_long = [len(line) > LINE_LENGTH + 1 for line in imports]
    assert [text != line for text, line in zip(formatted, imports, strict=True)] == too_long
    assert 0 < sum(too_long) < len(imports)
    assert [formatted_without_black("import", line) for line in imports] == formatted


def test_a_wide_enum_keyword_is_written_as_black_splits_it_so_its_method_skips_black() -> None:
    """40 tools with a 500-value enum each took 12.5 s to generate, 9 s of it black laying out each
    `Literal` in the method and again in its sync twin. The template writes a `Literal` of strings too
    long for one line in black's layout, one value per line, required or not, so black has nothing to
    change; one that fits on its own line inside the brackets is still left to black. Either way the
    bytes are what black makes of the keyword written on one line."""

    def tool(name: str, body: int, indent: int, required: bool) -> JSON:
        """A tool whose one `Literal`, its values joined on one line at `indent`, is `body` characters."""
        values = [f"v{index:03d}" for index in range((body - indent - 30) // 8)]
        values.append("w" * (body - indent - sum(len(value) + 4 for value in values) - 2))
        schema = {"type": "object", "properties": {"pick": {"type": "string", "enum": values}}}
        return {"name": name, "inputSchema": {**schema, "required": ["pick"]} if required else schema}

    tools = [
        tool(f"t{body}_{required}", body, 12 if required else 16, required)
        for body in (99, 100, 101, 160, 1000)
        for required in (True, False)
    ]
    package = build_package(
        Snapshot(server="wide", protocol_version="2025-06-18", capabilities={"tools": {}}, tools=tuple(tools))
    )
    for spec in package.tools:
        (parameter,) = spec.parameters
        laid_out = templating.keyword_parameter(parameter)
        default = "" if parameter.required else " | NotGiven = NOT_GIVEN"
        one_line = f"{parameter.python}: {parameter.annotation}{default},"
        assert one_line.startswith("pick: Literal[")
        members = [*tool_members(spec, False), *tool_members(spec, True)]
        black_made = black_batch("member", [member.replace(laid_out, one_line) for member in members])
        assert black_batch("member", members) == black_made, spec.wire
        wide = int(spec.wire.split("_")[0][1:]) > LINE_LENGTH
        assert (black_made == members) == wide, spec.wire
        assert all(black_leaves_alone(member) for member in members) == wide, spec.wire


def test_catalog_text_black_would_respell_sends_its_method_through_black() -> None:
    """Catalog text of the kinds `_BLACK_REWRITES` names, or too long, in a method: black changes a
    string holding both quotes, so such a method must not skip it; the other kinds are refused as
    cheaply, whether or not black would change them there."""
    rewritten = {
        "quotes": {"name": "it's \"quoted", "inputSchema": {"type": "object"}},
    }
    others = {
        "wide": {"name": "名前", "inputSchema": {"type": "object"}},
        "exponent": {"name": "v1e+5", "inputSchema": {"type": "object"}},
        "long": {"name": "long", "inputSchema": {"type": "object", "properties": {"x" * 95: {"type": "string"}}}},
    }
    snapshot = Snapshot(
        server="respelled",
        protocol_version="2025-06-18",
        capabilities={"tools": {}},
        tools=tuple([*rewritten.values(), *others.values()]),
    )
    package = build_package(snapshot)
    by_wire = {tool.wire: tool_members(tool)[0] for tool in package.tools}
    for tool in [*rewritten.values(), *others.values()]:
        assert not black_leaves_alone(by_wire[tool["name"]]), tool["name"]
    for tool in rewritten.values():
        method = by_wire[tool["name"]]
        assert black_batch("member", [method])[0] != method, tool["name"]


@settings(
    max_examples=25,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(catalogs())
def test_on_hostile_catalogs_a_method_passed_without_black_is_what_black_writes(document: JSON) -> None:
    try:
        package = build_package(snapshot_of(document))
    except StubgenError:
        return
    alone = members_left_alone(package)
    assert black_batch("member", alone) == alone


def test_the_heads_fingerprint_entries_that_fit_plainly_are_not_sent_through_black(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The client's `tool_fingerprints` entries that black leaves as they are are put back after it
    formats the rest of the head (a thousand took it a tenth of a second); a name black would respell,
    or a line too long, sends the whole head through it. Either way the client is black's."""
    import black

    from codegen.generate.formatting import black_mode

    seen: list[str] = []
    original = piecewise_black.black_pieces

    def recording(kind: PieceKind, sources: Sequence[str]) -> list[str]:
        seen.extend(sources)
        return original(kind, sources)

    monkeypatch.setattr(piecewise_black, "black_pieces", recording)
    plain = [{"name": f"plain-tool-{index}", "inputSchema": {"type": "object"}} for index in range(4)]
    for odd in (None, "it's", 'say "hi"', "back\\slash", "é", "x" * 120):
        seen.clear()
        tools = [*plain, *([{"name": odd, "inputSchema": {"type": "object"}}] if odd else [])]
        snapshot = Snapshot(
            server="entries", protocol_version="2025-06-18", capabilities={"tools": {}}, tools=tuple(tools)
        )
        client = render_snapshot(snapshot)["client.py"].decode()
        assert black.format_str(client, mode=black_mode()) == client
        assert all(f'"{tool["name"]}": "' in client for tool in plain)
        heads = [source for source in seen if "tool_fingerprints" in source]
        assert len(heads) == 1
        assert ('"plain-tool-3"' in heads[0]) == (odd is not None), odd
