"""Tools of real servers' catalogs (snapshotted offline into `tests/fixtures/catalogs/more/`) whose
models once came out unclean under a user's black or `ruff`, generated into one package that must be
what black and `ruff format` write and pass ruff's default rules, as the golden packages are: datamodel-code-generator's own formatter left a
long annotation on one line (a `Literal` of many values, a long `list[...] | None`) and a description
holding both kinds of quotes in single quotes, or a field's value in parentheses black does not
write, which `ruff format` (and black) rewrite; typed extras spelt with `typing.Dict` and a union of
`Literal`s, which ruff's default rules reject (UP006, UP035, PYI030). Each tool is copied from its
server's snapshot as it is, into one package, beside four of our own (`WIDE`, `TASK_WITH_A_HANDLE`,
`CONSTRAINED_OR_NULL`, `LONG_DEFAULTS`).

The fixtures were made by `mcp-stubgen snapshot --name <id> -- <command>` on 2026-12-02. From PyPI:
`excel` (excel-mcp-server 2.2.2: long `Literal`s and `Field(...)` calls, dict defaults, strings
holding both quotes, an `anyOf` of two enums), `arxiv` (arxiv-mcp-server 0.8.2: a tool whose
contract line is 89 characters long) and, on 2026-12-02 too, `awsdocs`
(awslabs.aws-documentation-mcp-server 1.2.3: `exclusiveMinimum` and `exclusiveMaximum` on one
integer, which no other fixture has). From npm, each server installed with `npm install --ignore-scripts` and listing with no network access (fake credentials
where it asks for one to start): `onmcp` (`0nmcp` 4.22.0), `azure` (`@azure/mcp` 2.0.5,
`azmcp server start --mode all`), `photoshop` (`00bx-photoshop-mcp` 1.1.2: its Python server
`mcp/ps-mcp.py`, under `mcp` 1.x, as its npm launcher only prints that installation is incomplete),
`supabase` (`@supabase/mcp-server-supabase` 0.13.0 with `--access-token` and `--features` leaving out
`docs`, which fetches a schema), `chart` (`@antv/mcp-server-chart` 0.9.10), `firecrawl`
(`firecrawl-mcp` 3.26.0), `browser` (`@agent-infra/mcp-server-browser` 1.2.29 `--headless`), `tavily`
(`tavily-mcp` 0.2.22), `jira` (`@aashari/mcp-server-atlassian-jira` 3.3.0), `context7`
(`@upstash/context7-mcp` 4.1.1), `exa` (`exa-mcp-server` 3.4.1), `desktop`
(`@wonderwhy-er/desktop-commander` 0.2.52), `mongodb` (`mongodb-mcp-server` 3.0.4), `kubernetes`
(`mcp-server-kubernetes` 4.1.7), `sentry` (`@sentry/mcp-server` 0.39.0 `--access-token=...`) and,
on 2026-12-02 too, `gitmcp` (`@cyanheads/git-mcp-server` 2.15.3, `MCP_TRANSPORT_TYPE=stdio`: string
constraints on array items and union members, which no other fixture has). On 2026-12-03, from
PyPI, `biomcp` (biomcp-cli 0.9.3, a Rust binary, `biomcp mcp`: `type: ["string", "array"]` with
string constraints on the items, which datamodel-code-generator makes a `TypeAliasType` of a list of
`RootModel[str]`s). On 2026-12-04, from PyPI under `mcp<2`, `harbor` (harbormaster-mcp 27.1.2: an
argument named `output` of a tool whose result is wrapped) and `unity` (mcpforunityserver 10.3.0:
`anyOf` an integer and a number, which a keyword typed `int | float` spells as ruff's PYI041 rejects).
On 2026-12-04 too, from npm, `apify` (`@apify/actors-mcp-server` 0.10.6 `--tools
actors,docs,runs,storage,add-actor`: typed extras in a module that imports nothing else from `typing`,
whose emptied import left two blank lines, which ruff's isort rule (I001) rejects). On 2026-12-04,
from PyPI, `yfmcp` (yfmcp 0.14.0, FastMCP 1 on mcp 1.x: a result that may be the MCP SDK's
`ImageContent`, whose `Annotations.priority` is a bounded number or null with a `null` default, which
datamodel-code-generator makes a `RootModel[float]` whose root is `float | None`). On 2026-12-04,
from PyPI, `dynamodb` (awslabs.dynamodb-mcp-server 2.1.8, FastMCP 3.4 on mcp 1.26, fake AWS keys: a
`oneOf` of `$ref`s whose members are told apart by a `const` that is also the property's default). On
2026-12-04, from PyPI, `phocinae` (phocinae-mcp 0.2.6, protocol 2026-07-28: an output's `type: "array"`
whose `const` is an array, which datamodel-code-generator typed as a list or an `Enum` whose member
is the list, a mutable class attribute ruff's default rules reject, RUF012)."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import black
import pytest
from pydantic import ValidationError

from codegen.generate import generate_package, render_snapshot
from codegen.generate.formatting import LINE_LENGTH, black_mode
from codegen.generate.modelgen import ModelJob, model_source
from codegen.snapshot import Snapshot, load_snapshot
from tests.conftest import REPO

MORE = REPO / "tests" / "fixtures" / "catalogs" / "more"
PICKED = {
    "browser": ("browser_press_key",),  # @agent-infra/mcp-server-browser: a `Literal` of 39 key names
    "firecrawl": ("firecrawl_parse",),  # firecrawl-mcp: `list[Literal[...]] | None`
    "chart": ("generate_organization_chart",),  # @antv/mcp-server-chart: a long class name in `list[...] | None`
    "supabase": ("create_project",),  # @supabase/mcp-server-supabase: a `Literal` of 16 regions with a `Field`
    "azure": ("marketplace_product_list", "pricing_get"),  # @azure/mcp: `"` and `'` in one description
    "onmcp": ("landing_pages_generate",),  # 0nmcp: an object with properties and `additionalProperties: {}`
    "kubernetes": ("kubectl_rollout",),
    "phocinae": (
        "score",
    ),  # phocinae-mcp: an array `const` beside `type: "array"` in the output  # mcp-server-kubernetes: `x: Literal[...] = (` where black hugs `Field(`
    "mongodb": ("find",),  # mongodb-mcp-server: an `anyOf` of six `const`s, `Literal[1] | Literal[-1] | ...`
    "notion": ("API-move-page", "API-patch-page"),  # @notionhq/notion-mcp-server: 21 of its 24 modules failed,
    # among them a union in a class's bases split where it fits
    "excel": (
        "add_conditional_format",  # an anyOf of two enums (PYI030); a string holding both quotes
        "create_chart",  # a long Literal; a long Field(...) after a wrapped annotation
        "create_pivot_table",
        "describe_sheet",  # an output default that is a long dict
        "describe_workbook",
        "set_sheet_layout",
        "set_table",
        "write_range",  # a description black quotes the other way
    ),
    "arxiv": ("list_watches",),  # `_CONTRACT = '...'` one character over the line
    "awsdocs": ("read_documentation",),  # exclusive bounds on both sides of an integer; a description
    # indented as the server's Python docstring was
    "gitmcp": ("git_branch", "git_checkout", "git_commit"),  # @cyanheads/git-mcp-server: constrained
    # strings as array items and union members, which datamodel-code-generator makes `RootModel[str]`s
    "biomcp": ("search",),  # biomcp-cli: `disease` is a string or an array of constrained strings, an alias
    # of `list[SearchInputDiseaseArraySearchInputDiseaseArrayItem]` in the models
    "harbor": ("record_delegation_result",),  # harbormaster-mcp: an argument `output`, a wrapped `str` result
    "unity": ("manage_asset", "manage_components"),  # mcpforunityserver: `anyOf` integer and number (PYI041)
    "apify": ("get-actor-run",),  # @apify/actors-mcp-server: typed extras, the module's only `typing` import
    "yfmcp": ("yfinance_get_price_history",),  # yfmcp: a bounded, nullable number with a `null` output default
    "dynamodb": ("compute_performances_and_costs",),  # awslabs.dynamodb-mcp-server: a `oneOf` of `$ref`s
    # told apart by a `const` property that is also its default
}

WIDE = {
    "name": "pick_city",
    "inputSchema": {
        "type": "object",
        "properties": {
            "city": {
                "type": "string",
                "enum": [
                    "東京都庁",
                    "大阪府庁",
                    "京都府庁",
                    "北海道庁",
                    "沖縄県庁",
                    "福岡県庁",
                    "愛知県庁",
                    "広島県庁",
                ],
            }
        },
        "required": ["city"],
    },
}
"""Under `LINE_LENGTH` characters on one line, over it in the columns black and ruff count (two for
each East Asian wide character)."""

TASK_WITH_A_HANDLE = {
    "name": "render_report",
    "execution": {"taskSupport": "optional"},
    "inputSchema": {"type": "object", "properties": {"handle": {"type": "string"}}, "required": ["handle"]},
    "outputSchema": {
        "type": "object",
        "properties": {"result": {"type": "string"}},
        "required": ["result"],
        "x-fastmcp-wrap-result": True,
    },
}
"""A task tool with an argument named as the local its `start_...` method once kept the handle in."""

CONSTRAINED_OR_NULL = {
    "name": "constrained_or_null",
    "inputSchema": {"type": "object"},
    "outputSchema": {
        "type": "object",
        "properties": {
            name: {"anyOf": [value, {"type": "null"}], "default": None}
            for name, value in {
                "count": {"type": "integer", "minimum": 1},
                "code": {"type": "string", "pattern": "^[a-z]+$"},
                "label": {"type": "string", "minLength": 1},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            }.items()
        },
    },
}
"""yfmcp's `priority` in the other types datamodel-code-generator makes a root model of the same way
(a constrained branch of an `anyOf` with `null`, default `null`), whose roots admit `None`."""

ATTRIBUTION = (
    "Data sourced from the Australian Bureau of Statistics (ABS) under a Creative Commons Attribution 4.0 "
    "International licence. See https://www.abs.gov.au/website-privacy-copyright-and-disclaimer"
)
"""182 characters, as abs-mcp 0.13.15's outputs' `attribution` default (found in the twenty-second round)."""

LONG_DEFAULTS = {
    "name": "long_defaults",
    "inputSchema": {"type": "object", "properties": {"note": {"type": "string", "default": ATTRIBUTION}}},
    "outputSchema": {
        "type": "object",
        "properties": {
            "attribution": {"type": "string", "default": ATTRIBUTION},
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": ATTRIBUTION},
            "described": {"type": "string", "default": ATTRIBUTION, "description": "Where the data is from."},
            "population_of_the_commonwealth_counted_at_the_census_in_every_state_and_territory": {
                "type": "integer",
                "default": 10**40,
            },
            "counted": {"type": "integer", "default": -(10**95)},
            "sources": {"type": "array", "items": {"type": "string"}, "default": ATTRIBUTION.split(" ")[:12]},
        },
    },
}
"""Output defaults too long for a field's line: a string with no description (abs-mcp's), one beside
null, one with a description, a long number with a long name, a number too long for any line, a list;
and an input default, which the models leave out."""


def picked_snapshot() -> Snapshot:
    catalogs = {server: load_snapshot(MORE / f"{server}.json") for server in PICKED}
    tools = [
        entry
        for server, names in PICKED.items()
        for entry in catalogs[server].tools
        if entry["name"] in names
    ]  # fmt: skip
    assert sorted(entry["name"] for entry in tools) == sorted(name for names in PICKED.values() for name in names)
    tools += [WIDE, TASK_WITH_A_HANDLE, CONSTRAINED_OR_NULL, LONG_DEFAULTS]
    tools.sort(key=lambda entry: str(entry["name"]))
    return Snapshot(server="picked", protocol_version="2025-11-25", capabilities={"tools": {}}, tools=tuple(tools))


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("real") / "realclients"
    generate_package(picked_snapshot(), out)
    return out / "picked"


def ruff(package: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """ruff as a user runs it: its default rules, nothing of this repository's configuration."""
    command = [sys.executable, "-m", "ruff", *arguments, "--isolated", "--no-cache", "--line-length", str(LINE_LENGTH)]
    return subprocess.run([*command, package.name], capture_output=True, text=True, cwd=package.parent, timeout=120)


def test_every_file_is_a_black_fixed_point(package: Path) -> None:
    mode = black_mode()
    unformatted = [
        path.relative_to(package).as_posix()
        for path in sorted(package.rglob("*.py"))
        if black.format_str(source := path.read_text(encoding="utf-8"), mode=mode) != source
    ]
    assert not unformatted


def test_the_models_of_real_tools_are_what_ruff_format_writes(package: Path) -> None:
    formatted = ruff(package, "format", "--check")
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_the_models_of_real_tools_pass_ruffs_default_rules(package: Path) -> None:
    checked = ruff(package, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_union_of_literals_is_one_literal_in_the_model_and_the_method(package: Path) -> None:
    values = 'Literal[1, -1, "asc", "desc", "ascending", "descending"] | FindInputSort'
    assert values in (package / "_models" / "find.py").read_text(encoding="utf-8")
    assert values in (package / "client.py").read_text(encoding="utf-8")


def test_a_constrained_string_in_an_array_or_a_union_is_a_plain_str_keyword(
    package: Path, rules_5_package: dict[str, bytes]
) -> None:
    """datamodel-code-generator makes a `RootModel[str]` for a string with `minLength` that is an
    array's item or a union's member; git-mcp-server's keywords took those (`target: GitCheckoutInputTarget
    | GitCheckoutInputTarget1`), so `git_checkout(target="main")` failed a caller's `mypy --strict`.
    Rules 1 to 5 keep the classes in the models, rules 6 write the values where they are used."""
    keywords = (
        "        target: str,\n",
        "        paths: list[str] | NotGiven = NOT_GIVEN,\n",
        "        files_to_stage: list[str] | NotGiven = NOT_GIVEN,\n",
        "        merged: bool | str | NotGiven = NOT_GIVEN,\n",
    )
    rules_5_client, rules_5_models = _rules_5_files(rules_5_package, "git_checkout")
    client, models = _files(package, "git_checkout")
    assert [line in rules_5_client for line in keywords] == [line in client for line in keywords] == [True] * 4
    assert "(RootModel[str])" in rules_5_models
    assert "RootModel" not in models and "Annotated[str, Field(description='File path" in models, models


def test_an_alias_of_a_list_of_constrained_strings_is_a_plain_list_keyword(
    package: Path, rules_5_package: dict[str, bytes]
) -> None:
    """biomcp's `search` takes `disease` as `type: ["string", "array"]` with `minLength` on the items:
    the models name the array `SearchInputDiseaseArray`, a `TypeAliasType` of a list of `RootModel[str]`,
    so `search(entity="article", disease=["melanoma"])` failed a caller's `mypy --strict`. By rules 6 the
    alias is of `list[Annotated[str, ...]]`, which a `list[str]` is to a type checker."""
    client, models = _rules_5_files(rules_5_package, "search")
    assert "        disease: SearchInputDiseaseString | list[str] | NotGiven = NOT_GIVEN,\n" in client, client
    assert (
        "        drug: SearchInputDiseaseString | list[str] | NotGiven = NOT_GIVEN,\n".replace("Disease", "Drug")
        in client
    )
    assert "SearchInputDiseaseArray" in models
    client, models = _files(package, "search")
    assert "        disease: SearchInputDiseaseString | SearchInputDiseaseArray | NotGiven = NOT_GIVEN,\n" in client
    assert "class SearchInputDiseaseArraySearchInputDiseaseArrayItem" not in models
    assert re.search(
        r"SearchInputDiseaseArray = TypeAliasType\(\s+\"SearchInputDiseaseArray\",\s+Annotated\[\s+list\[Annotated\[str,",
        models,
    ), models


def test_a_union_members_constant_with_its_default_is_a_required_field(
    package: Path, rules_5_package: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """awslabs.dynamodb-mcp-server 2.1.8's `compute_performances_and_costs` takes access patterns, a
    `oneOf` of ten `$ref`s told apart by `operation` (`const: "GetItem"`, `default: "GetItem"`, as
    pydantic writes `operation: Literal["GetItem"] = "GetItem"`). The models typed it `Literal["GetItem"]
    | None = None`, and an item built without it, which mypy accepted, matched several members and every
    call was refused before sending (found in the sixteenth round). By rules 8 it is required."""
    _, models = _files(package, "compute_performances_and_costs")
    assert 'operation: Literal["GetItem"] = Field(..., title="Operation")' in models, models
    spec = importlib.util.spec_from_file_location(
        "dynamodb_models", package / "_models" / "compute_performances_and_costs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # pydantic resolves the annotations there
    spec.loader.exec_module(module)
    get_item = module.ComputePerformancesAndCostsInputGetItemAccessPattern
    fields = {"description": "a user", "item_size_bytes": 200, "pattern": "AP1", "rps": 10, "table": "users"}
    with pytest.raises(ValidationError, match="operation"):
        get_item(**fields)
    assert get_item(operation="GetItem", **fields).operation == "GetItem"
    _, earlier = _rules_5_files(rules_5_package, "compute_performances_and_costs")
    assert 'operation: Literal["GetItem"] | None = Field(default=None, title="Operation")' in earlier


def test_an_array_constant_is_typed_as_its_list_not_an_enum_of_it(
    package: Path, rules_5_package: dict[str, bytes]
) -> None:
    """phocinae-mcp 0.2.6's `score` returns `range`, `type: "array"` and `const: [2, 10]`: its model
    was `range: list[Any] | ScoreOutputRange`, an `Enum` whose one member is the list, which ruff's
    default rules reject (RUF012, found in the seventeenth round). By rules 9 it is `list[int]`;
    earlier rules keep the `Enum`, so a committed package does not change."""
    _, models = _files(package, "score")
    assert "    range: list[int]\n" in models and "Enum" not in models, models
    _, earlier = _rules_5_files(rules_5_package, "score")
    assert "range: list[Any] | ScoreOutputRange" in earlier


def test_an_output_default_too_long_for_its_line_is_a_field_default(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """abs-mcp 0.13.15's outputs' 182-character `attribution` default, with no description, was
    `attribution: str = (` with the string on the next line: black's layout, which `ruff format`
    rewrites (it takes the parentheses away), so no package of it passed both (found in the
    twenty-second round). By naming rules 12 such a value is `Field(default=...)`, which both leave
    alone (`test_the_models_of_real_tools_are_what_ruff_format_writes`,
    `test_every_file_is_a_black_fixed_point`), and the model's default is still the server's."""
    _, models = _files(package, "long_defaults")
    assert f'    attribution: str = Field(\n        default="{ATTRIBUTION}"\n    )\n' in models, models
    assert "    counted: int = Field(\n        default=-1000" in models, models
    assert " = (\n" not in models, models
    spec = importlib.util.spec_from_file_location("long_defaults_models", package / "_models" / "long_defaults.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    output = module.LongDefaultsOutput()
    assert (output.attribution, output.maybe, output.counted) == (ATTRIBUTION, ATTRIBUTION, -(10**95))


def test_by_naming_rules_11_a_long_output_default_keeps_its_layout() -> None:
    """A snapshot of rules 1 to 11 keeps the bytes its package was made with: black's parentheses."""
    source = model_source("picked", ModelJob(LONG_DEFAULTS, "LongDefaults", 11))
    assert f'    attribution: str = (\n        "{ATTRIBUTION}"\n    )\n' in source, source
    assert f'    maybe: str | None = (\n        "{ATTRIBUTION}"\n    )\n' in source, source
    assert "    counted: int = (\n        -1000" in source, source


def test_no_method_rebinds_one_of_its_arguments(package: Path) -> None:
    """harbormaster-mcp's `record_delegation_result` takes `output` and returns a wrapped `str`: its
    method kept the wrapper in a local `output`, the argument's name, which `mypy --strict` rejects
    (an assignment of the wrong type, and `.result` read off a `str`); a task's `start_...` method
    did the same with `handle`."""
    client = ast.parse((package / "client.py").read_text(encoding="utf-8"))
    rebound = {
        (method.name, target.id)
        for method in ast.walk(client)
        if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
        for statement in ast.walk(method)
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name) and target.id in {argument.arg for argument in method.args.kwonlyargs}
    }
    assert rebound == set()
    assert {"record_delegation_result", "start_render_report"} <= {
        node.name for node in ast.walk(client) if isinstance(node, ast.AsyncFunctionDef)
    }


def _files(package: Path, tool: str) -> tuple[str, str]:
    """The package's client and one tool's models module."""
    return (package / "client.py").read_text(encoding="utf-8"), (package / "_models" / f"{tool}.py").read_text("utf-8")


@pytest.fixture(scope="module")
def rules_5_package() -> dict[str, bytes]:
    """The files of the package a rules-5 snapshot of the tools gives, rendered once for the tests that read it."""
    return render_snapshot(replace(picked_snapshot(), naming_rules=5))


def _rules_5_files(rules_5_package: dict[str, bytes], tool: str) -> tuple[str, str]:
    """The rules-5 package's client and one tool's models module."""
    return rules_5_package["client.py"].decode(), rules_5_package[f"_models/{tool}.py"].decode()


def test_a_bounded_number_or_null_with_a_null_default_is_a_value_not_a_root_model(package: Path) -> None:
    """yfmcp's `yfinance_get_price_history` may return the MCP SDK's `ImageContent`, whose
    `Annotations.priority` is `anyOf` a number from 0 to 1 and null, default null: the models had
    `class ...Priority(RootModel[float])` with `root: float | None = Field(None, ...)`, which failed
    `mypy --strict` over the package (a root that is not its base's type)."""
    source = (package / "_models" / "yfinance_get_price_history.py").read_text(encoding="utf-8")
    assert "RootModel" not in source, source
    assert re.search(r"priority: Annotated\[float, Field\(ge=0\.0, le=1\.0[^)]*\)\] \| None = Field\(", source), source


def test_by_old_naming_rules_a_bounded_number_or_null_keeps_its_class_typed_as_its_root(
    rules_5_package: dict[str, bytes],
) -> None:
    """Naming rules 1 to 5 keep yfmcp's `...Priority` class (a package keeps its names), whose root is
    `float | None`: its type parameter says so too, or `mypy --strict` fails on the package."""
    _, models = _rules_5_files(rules_5_package, "yfinance_get_price_history")
    assert (
        "class YfinanceGetPriceHistoryOutputAnnotationsPriority(RootModel[float | None]):\n"
        "    root: float | None = Field(None, ge=0.0, le=1.0"
    ) in models, models


def test_exclusive_bounds_are_strict_bounds_of_the_field(package: Path) -> None:
    source = (package / "_models" / "read_documentation.py").read_text(encoding="utf-8")
    assert re.search(r"max_length: int \| None = Field\([^)]*\bgt=0,[^)]*\blt=1000000,", source), source


def test_a_description_taken_from_an_indented_python_docstring_is_not_indented_in_the_method(package: Path) -> None:
    """awslabs.aws-documentation-mcp-server sends its functions' docstrings with their indentation:
    every line after the first sat one level deeper than the method's docstring, a code block in an
    editor's hover."""
    client = ast.parse((package / "client.py").read_text(encoding="utf-8"))
    method = next(
        node
        for node in ast.walk(client)
        if isinstance(node, ast.AsyncFunctionDef) and node.name == "read_documentation"
    )
    shown = ast.get_docstring(method) or ""
    assert shown.startswith("Fetch and convert an AWS documentation page to markdown format.\n\n## Usage\n"), shown


def test_typed_extras_are_a_builtin_dict_and_still_typed(package: Path) -> None:
    source = (package / "_models" / "landing_pages_generate.py").read_text(encoding="utf-8")
    assert '"__pydantic_extra__": dict[str, Any]' in source
    assert re.search(r"\bDict\b", source) is None, source


CALLER = """\
from realclients.picked import PickedClient


async def use(client: PickedClient) -> None:
    await client.git_checkout(target="main", paths=["a.txt"])
    await client.git_commit(message="m", files_to_stage=["a.txt"])
    await client.git_branch(merged="main")
    await client.search(entity="article", disease=["melanoma"], drug="dabrafenib")
    done: str = await client.record_delegation_result(job_id="j", status="completed", output="42")
    report: str = await (await client.start_render_report(handle="h")).result()
    await client.manage_asset(action="search", path="Assets", page_number=2, page_size=0.5)
    history = await client.yfinance_get_price_history(symbol="AAPL", chart_type="vwap")
    if not isinstance(history.result, str) and history.result.annotations is not None:
        priority: float | None = history.result.annotations.priority
"""
"""A user's code: plain strings where the wire takes strings, and still the JSON Schema's
`minLength` checked before sending."""


@pytest.mark.generated_mypy
def test_the_package_of_real_tools_passes_mypy_strict(package: Path, rules_5_package: dict[str, bytes]) -> None:
    """The package, the one its tools give by naming rules 5 (whose root models of a constrained
    value or null, default null, failed), and a caller passing plain strings to keywords whose strings
    are constrained."""
    (package.parent / "caller.py").write_text(CALLER, encoding="utf-8")
    for name, data in rules_5_package.items():
        written = package.parent / "picked_rules_5" / name
        written.parent.mkdir(parents=True, exist_ok=True)
        written.write_bytes(data)
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            "/dev/null",
            "-p",
            f"{package.parent.name}.picked",
            "-p",
            f"{package.parent.name}.picked_rules_5",
            "-m",
            f"{package.parent.name}.caller",
        ],
        cwd=package.parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
