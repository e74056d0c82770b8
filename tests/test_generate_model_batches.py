"""Tools' models are generated many per datamodel-code-generator call and split back per tool: each
tool's module is byte for byte the module it gets when its catalog holds nothing else."""

from __future__ import annotations

import io
import json
import sys
import tokenize
from dataclasses import replace
from typing import Any

import pytest

from codegen import console
from codegen.generate import model_batches, render_snapshot
from codegen.generate.modelgen import TOO_DEEP
from codegen.snapshot import Snapshot, load_snapshot
from tests.conftest import REPO


@pytest.fixture(autouse=True)
def _every_tool_to_datamodel_code_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about groups: the tools `plain_models` would write itself go to
    datamodel-code-generator too (that the two agree is `tests/test_plain_models.py`)."""
    monkeypatch.setattr(model_batches, "plain_source", lambda job, entry: None)


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def _snapshot(tools: list[dict[str, Any]]) -> Snapshot:
    return Snapshot(server="batch", protocol_version="2026-07-28", capabilities={"tools": {}}, tools=tuple(tools))


def _models(files: dict[str, bytes]) -> dict[str, str]:
    """Each tool's models module without the header, whose fingerprint names the whole snapshot."""
    prefix = "_models/"
    return {
        name.removeprefix(prefix): data.decode().split("\nfrom __future__", 1)[1]
        for name, data in files.items()
        if name.startswith(prefix) and not name.endswith("__init__.py")
    }


def _plain(index: int) -> dict[str, Any]:
    paging = _object(cursor={"type": ["string", "null"]}, limit={"type": "integer", "minimum": 1})
    schema = {**_object(query={"type": "string"}, paging={"$ref": "#/$defs/Paging"}), "$defs": {"Paging": paging}}
    return {"name": f"search_{index:02d}", "inputSchema": schema, "outputSchema": _object(total={"type": "integer"})}


# `mix_a` and `mix_b` both have an `allOf` model datamodel-code-generator names after their property
# (`Shared`; in one call the second would be `Shared1`), which only the tool's stem tells apart; the
# classes of `get` and `get_user` start alike (`GetUser...`, `GetUserInput`).
COLLIDING = [
    {"name": "get", "inputSchema": _object(user=_object(id={"type": "string"}))},
    {"name": "get_user", "inputSchema": _object(id={"type": "integer"})},
    *(
        {
            "name": name,
            "inputSchema": _object(shared={"allOf": [_object(a={"type": "string"}), _object(b={"type": "integer"})]}),
        }
        for name in ("mix_a", "mix_b")
    ),
    *(_plain(index) for index in range(14)),
]


def test_tools_whose_class_names_would_collide_in_one_call_get_the_models_they_get_alone() -> None:
    together = _models(render_snapshot(_snapshot(COLLIDING)))
    assert len(together) == len(COLLIDING)
    for tool in COLLIDING:
        [(module, alone)] = _models(render_snapshot(_snapshot([tool]))).items()
        assert together[module] == alone, tool["name"]
    assert "class GetInputUser(BaseModel)" in together["get.py"]
    assert "class MixBShared(BaseModel)" in together["mix_b.py"]  # not MixBShared1


def test_the_catalog_order_and_neighbours_do_not_change_a_tools_models() -> None:
    forward = _models(render_snapshot(_snapshot(COLLIDING)))
    assert _models(render_snapshot(_snapshot(COLLIDING[::-1]))) == forward
    assert _models(render_snapshot(_snapshot(COLLIDING[4:]))) == {
        module: text for module, text in forward.items() if module.startswith("search_")
    }


REWRITTEN = {
    "const_default": _object(ratio={"const": 1.5}),
    "recursive_array": {"type": "array", "items": {"$ref": "#"}},
    "pattern_keys": {"type": "object", "patternProperties": {"^name": {"type": "string"}}},
    "self_union": {"type": ["array", "string"], "minItems": 1, "items": {"$ref": "#"}},
}
"""Shapes from datamodel-code-generator's tests whose modules `modelgen`'s passes rewrite: a `const`
number not required (its `= None` gets `| None`), an array of itself (a bare `list`), keys a pattern
constrains (`constr(...)`), and a union with itself (`Union["A", ...]`)."""


def test_a_package_made_in_groups_is_the_package_made_tool_by_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file, the client's annotations included: the first group is plain (read where it was
    cut), the second holds the tools the passes rewrite (each finished and read on its own)."""
    rewritten = [
        {"name": name, "inputSchema": _object(value=schema), "outputSchema": schema}
        for name, schema in REWRITTEN.items()
    ]
    tools = [*(_plain(index) for index in range(18)), *rewritten]
    grouped = render_snapshot(_snapshot(tools))
    monkeypatch.setattr(model_batches, "GROUP_SIZE", 1)
    alone = render_snapshot(_snapshot(tools))
    assert grouped.keys() == alone.keys()
    for name, data in alone.items():
        assert grouped[name] == data, name
    assert "Annotated[str, StringConstraints(pattern=" in _models(alone)["pattern_keys.py"]


def test_a_real_catalog_whose_models_black_reformats_is_made_in_groups_as_tool_by_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """excel-mcp-server's tools, some of whose modules the built-in formatter leaves for black
    (`modelgen.needs_black`) beside ones it does not: a group holding both gives each tool's module
    as made alone."""
    tools = load_snapshot(REPO / "tests" / "fixtures" / "catalogs" / "more" / "excel.json").tools[:20]
    grouped = render_snapshot(_snapshot(list(tools)))
    monkeypatch.setattr(model_batches, "GROUP_SIZE", 1)
    assert render_snapshot(_snapshot(list(tools))) == grouped


@pytest.mark.parametrize("naming_rules", [4, 5])
def test_union_members_renamed_by_the_naming_rules_are_made_in_groups_as_tool_by_tool(
    monkeypatch: pytest.MonkeyPatch, naming_rules: int
) -> None:
    """Naming rules 4 and 5 rename a union's members (`member_names`), which the group's module does
    not have yet: notion's tools, with `$defs` unions, tagged ones among them, and tools with a
    tagged and an untagged union give each tool's module as made alone."""
    notion = load_snapshot(REPO / "tests" / "fixtures" / "catalogs" / "more" / "notion.json").tools
    united = [tool for tool in notion if '"oneOf"' in json.dumps(tool)][:8]
    plain = {"oneOf": [_object(city={"type": "string"}), _object(zip={"type": "integer"})]}
    tagged = {
        "oneOf": [
            {**_object(kind={"const": "a"}, x={"type": "number"}), "required": ["kind"]},
            {**_object(kind={"const": "b"}), "required": ["kind"]},
        ]
    }
    tools = [
        *united,
        *({"name": f"pick_{index}", "inputSchema": {"type": "object", **plain}} for index in range(10)),
        *({"name": f"draw_{index}", "inputSchema": _object(shape=tagged)} for index in range(6)),
    ]
    snapshot = replace(_snapshot(tools), naming_rules=naming_rules)
    grouped = render_snapshot(snapshot)
    modules = _models(grouped)
    everything = "".join(modules.values())
    assert ("ParentRequestVariant1(BaseModel)" in everything) == (naming_rules == 4)
    assert ("ParentRequestPageId(BaseModel)" in everything) == (naming_rules == 5)
    assert "class Pick9InputVariant1(BaseModel)" in modules["pick_9.py"]
    assert ("class Draw5InputShapeB(BaseModel)" in modules["draw_5.py"]) == (naming_rules == 5)
    monkeypatch.setattr(model_batches, "GROUP_SIZE", 1)
    assert render_snapshot(snapshot) == grouped


def _too_deep(depth: int = 200) -> dict[str, Any]:
    """Arrays nested past what datamodel-code-generator can parse (it raises an error for the schema)."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return schema


def test_a_schema_that_fails_in_a_batch_is_reported_by_tool_and_the_others_are_typed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    console.begin()  # an earlier in-process command of this worker may have left `--quiet` on
    tools = [_plain(index) for index in range(20)]
    tools.insert(7, {"name": "nested_too_deep", "inputSchema": _object(rows=_too_deep())})
    # How deep datamodel-code-generator nests is bounded by the recursion limit, which an earlier test
    # of this worker may have raised (hypothesis does); at the default, `_too_deep` is too deep.
    raised = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        files = render_snapshot(_snapshot(tools))
    finally:
        sys.setrecursionlimit(raised)
    warning = capsys.readouterr().err
    # The same words on every Python: 3.11 runs out of stack parsing the schema, 3.13 rendering it.
    assert f"tool 'nested_too_deep': /inputSchema: {TOO_DEEP}; its method takes" in warning
    assert warning.count("tool '") == 1
    client = files["client.py"].decode()
    assert "async def nested_too_deep(\n        self,\n        *,\n        arguments: dict[str, Any]," in client
    for index in range(20):
        assert f") -> Search{index:02d}Output:" in client
    models = _models(files)
    alone = _models(render_snapshot(_snapshot([_plain(3)])))
    assert models["search_03.py"] == alone["search_03.py"]


def test_catalog_text_that_looks_like_a_fingerprint_stand_in_is_written_as_given() -> None:
    """The client's head is formatted with stand-ins for its fingerprints (`~` and 15 digits); text
    of the catalog's own that looks the same stays, and the fingerprints are the real ones."""
    snapshot = Snapshot(
        server="batch",
        protocol_version="2026-07-28",
        capabilities={"tools": {}},
        tools=(_plain(0),),
        instructions="Say ~000000000000001 and ~000000000000000.",
    )
    client = render_snapshot(snapshot)["client.py"].decode()
    assert 'instructions = "Say ~000000000000001 and ~000000000000000."' in client
    assert f'snapshot_fingerprint = "{snapshot.fingerprint}"' in client
    assert f'"search_00": "{snapshot.tool_fingerprints["search_00"]}",' in client


QUOTED_TEXTS = [
    "it's",
    'say "hi"',
    "both ' and \"",
    "ends in a backslash \\",
    "a \\' escaped quote",
    "# not a comment, 'quoted'",
    "'''triple''' and \"\"\"triple\"\"\"",
    "ünïcödé 'ﬁeld' \uff02",
    "a\ttab",
    "a\rcarriage return",
    "line\\\ncontinued",
    "if'a'",
]


@pytest.mark.parametrize("text", QUOTED_TEXTS)
def test_strings_are_quoted_as_black_quotes_them(text: str) -> None:
    """The models module's strings get black's quotes by a scan of its own (datamodel-code-generator's
    `use_double_quotes` walks every token of the module, and keeps single quotes where black would not:
    a body ending in a backslash, or as many backslashes either way); the module is the one that
    option writes with each string as black quotes it, byte for byte, whatever quotes, backslashes,
    tabs or comment marks the catalog's text holds."""
    import warnings

    from datamodel_code_generator import generate

    from codegen.generate.modelgen import ModelJob, datamodel_entry, datamodel_options, run_datamodel
    from codegen.identifiers import NAMING_RULES

    tool = {
        "name": "quoted",
        "description": text,
        "inputSchema": {
            **_object(
                value={"type": "string", "description": text, "enum": [text, "plain"]},
                pattern={"type": "string", "pattern": "^[a-z']+$"},
            ),
            "title": text,
        },
        "outputSchema": _object(note={"type": "string", "description": text}),
    }
    entries = [datamodel_entry(ModelJob(tool, "Quoted", NAMING_RULES))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = generate(entries, **datamodel_options(), use_double_quotes=True)
    assert run_datamodel(entries) == black_quoted(expected)


def black_quoted(module: str) -> str:
    """Each string of a module in the quotes black gives it (black's own `normalize_string_quotes`)."""
    from black.strings import normalize_string_quotes

    lines = module.splitlines(keepends=True)
    strings = [
        found for found in tokenize.generate_tokens(io.StringIO(module).readline) if found.type == tokenize.STRING
    ]
    for found in reversed(strings):
        (row, start), (end_row, end) = found.start, found.end
        assert row == end_row
        lines[row - 1] = lines[row - 1][:start] + normalize_string_quotes(found.string) + lines[row - 1][end:]
    return "".join(lines)


def test_a_module_the_quote_scan_cannot_vouch_for_gets_datamodel_code_generators_own_pass() -> None:
    """`double_quoted` declines (and datamodel-code-generator quotes the module itself) where a token
    round trip would respell the module or the scan cannot tell a string from a name."""
    from codegen.generate.modelgen import double_quoted

    declined = ["x = 1 + \\\n    2\n", "x = f'{a}'\n", "x = 'a'\ty = 1\n", "if'a' in x:\n    pass\n", "x = ('a'\n"]
    assert [double_quoted(source) for source in declined] == [None] * len(declined)
    source = "x = 'a'  # it's\ny = '\"'\nz = rb'c'\nw = '\\\\'\n"
    assert double_quoted(source) == 'x = "a"  # it\'s\ny = \'"\'\nz = rb"c"\nw = "\\\\"\n'


def _down(depth: int) -> int:
    return 0 if depth == 0 else 1 + _down(depth - 1)


def _recursions_across_chunk_boundaries() -> int:
    """Recursions from 1 to 400 calls deep, 20 times each: about three of CPython's 16 KB data-stack
    chunks, so every depth past a boundary crosses it on the way down and back up."""
    return sum(_down(depth) for depth in range(1, 401) for _ in range(20))


def _page_faults(work: Any) -> int:
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    work()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@pytest.mark.skipif(sys.platform != "linux", reason="counts the kernel's page faults")
def test_datamodel_code_generator_runs_on_a_data_stack_chunk_of_its_own() -> None:
    """A recursion that keeps crossing a data-stack chunk's boundary has CPython map a fresh chunk
    (and fault its page in) each time it crosses and unmap it when it returns; datamodel-code-generator
    did that about a hundred times a tool in the workers. Under `_with_stack_room`, which every call of
    it goes through, the same recursions stay inside one chunk."""
    from codegen.generate import modelgen

    crossing = _page_faults(_recursions_across_chunk_boundaries)
    roomy = _page_faults(lambda: modelgen._with_stack_room(_recursions_across_chunk_boundaries))
    assert crossing > 2_000, crossing  # the chunk's page, faulted in again after each unmap
    assert roomy < 200, roomy
    assert modelgen._with_stack_room(_down, 300) == 300


@pytest.mark.parametrize("naming_rules", [5, 6])
def test_constrained_plain_values_are_made_in_groups_as_tool_by_tool(
    monkeypatch: pytest.MonkeyPatch, naming_rules: int
) -> None:
    """Naming rules 6 write a constrained array item or union member where it is used, which the
    group's module, clean as it is, does not yet: grouped generation gives each tool's module as made
    alone, by rules 5 with the classes and by rules 6 without."""
    item = {"type": "integer", "minimum": 1}
    tools = [
        *(
            {"name": f"read_{index}", "inputSchema": _object(pages={"type": "array", "items": item})}
            for index in range(10)
        ),
        *({"name": f"plain_{index}", "inputSchema": _object(text={"type": "string"})} for index in range(6)),
    ]
    snapshot = replace(_snapshot(tools), naming_rules=naming_rules)
    grouped = render_snapshot(snapshot)
    modules = _models(grouped)
    assert ("class Read9InputPage(RootModel[int])" in modules["read_9.py"]) == (naming_rules == 5)
    assert ("pages: list[Annotated[int, Field(ge=1)]] | None" in modules["read_9.py"]) == (naming_rules == 6)
    monkeypatch.setattr(model_batches, "GROUP_SIZE", 1)
    assert render_snapshot(snapshot) == grouped


@pytest.mark.parametrize("naming_rules", [11, 12])
def test_long_output_defaults_are_made_in_groups_as_tool_by_tool(
    monkeypatch: pytest.MonkeyPatch, naming_rules: int
) -> None:
    """Naming rules 12 write an output default too long for its line as `Field(default=...)` after the
    passes the group's module is checked against (`modelgen.cleaned_source`): grouped generation gives
    each tool's module as made alone, by rules 11 with black's parentheses and by rules 12 without."""
    note = {"type": "string", "default": "a long default " * 9}
    tools = [
        *(
            {"name": f"note_{index}", "inputSchema": _object(), "outputSchema": _object(note=note)}
            for index in range(10)
        ),
        *({"name": f"plain_{index}", "inputSchema": _object(text={"type": "string"})} for index in range(6)),
    ]
    snapshot = replace(_snapshot(tools), naming_rules=naming_rules)
    grouped = render_snapshot(snapshot)
    modules = _models(grouped)
    assert ("    note: str = (\n" in modules["note_9.py"]) == (naming_rules == 11)
    assert ("    note: str = Field(\n        default=" in modules["note_9.py"]) == (naming_rules == 12)
    monkeypatch.setattr(model_batches, "GROUP_SIZE", 1)
    assert render_snapshot(snapshot) == grouped
