"""The front page and docs/ stay true to the tool: every relative link resolves, the quick start is
what CI runs, and every command and code example is checked (commands against the CLI's own commands
and options, TOML through the config and drift-policy loaders, JSON and YAML parsed, Python run
against the bundled example server)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import click
import pytest
import yaml

from codegen.cli import cli
from codegen.config import _PROJECT_KEYS, _SERVER_KEYS, load_config
from codegen.drift.policy import parse_policy
from tests.conftest import FORKS, PYTHON

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
LINKING_PAGES = [*PAGES, REPO / "SECURITY.md", REPO / "benchmarks" / "README.md"]

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
# Paths to the repository's own code named in the docs; generated folders (examples/snapshots/...) are not in a clone.
REPO_PATH = re.compile(r"^(?:codegen|tests|benchmarks)/[\w./-]*$|^examples/\w+\.py$")


def _page_id(page: Path) -> str:
    return str(page.relative_to(REPO))


def _blocks(language: str) -> list[tuple[Path, str]]:
    return [(page, body) for page in PAGES for lang, body in FENCE.findall(page.read_text("utf-8")) if lang == language]


def _prose(text: str) -> str:
    """The page without its fenced blocks, where links and code spans live."""
    return FENCE.sub("", text)


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    anchors = set()
    for heading in HEADING.findall(_prose(page.read_text("utf-8"))):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


@pytest.mark.parametrize("page", LINKING_PAGES, ids=_page_id)
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in LINK.findall(CODE_SPAN.sub("", _prose(page.read_text("utf-8")))):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists() or (anchor and (resolved.suffix != ".md" or anchor not in _anchors(resolved))):
            broken.append(target)
    assert not broken, f"{_page_id(page)}: links to nothing: {broken}"


def test_every_docs_page_is_in_the_index_and_the_index_is_on_the_front_page() -> None:
    index = set(LINK.findall((DOCS / "README.md").read_text("utf-8")))
    assert {page.name for page in DOCS.glob("*.md")} - {"README.md"} <= index
    assert "docs/README.md" in LINK.findall((REPO / "README.md").read_text("utf-8"))


def test_front_page_stays_short() -> None:
    assert len((REPO / "README.md").read_text("utf-8").splitlines()) <= 300


def test_quick_start_test_command_is_what_ci_runs() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    quick_start = readme.split("## Quick start\n", 1)[1].split("\n## ", 1)[0]
    install, test = (body.strip() for _, body in FENCE.findall(quick_start))
    assert install.endswith("&& mcp-stubgen sync")
    assert test == (REPO / ".ci" / "run").read_text("utf-8").strip().splitlines()[-1]


def _commands() -> list[tuple[str, str]]:
    """Every `mcp-stubgen ...` command the docs show: console lines, workflow `run:` steps and code spans."""
    found: list[tuple[str, str]] = []
    for page in PAGES:
        text = page.read_text("utf-8")
        for language, body in FENCE.findall(text):
            lines = body.splitlines()
            if language == "yaml":
                lines = [
                    step["run"]
                    for job in yaml.safe_load(body).get("jobs", {}).values()  # a pre-commit config has none
                    for step in job["steps"]
                    if "run" in step
                ]
            for line in lines:
                if "mcp-stubgen " in line and (language != "console" or line.startswith(("$ ", "python3 "))):
                    found.append((_page_id(page), line[line.index("mcp-stubgen ") :]))
        for span in CODE_SPAN.findall(_prose(text)):
            if span.startswith("mcp-stubgen "):
                found.append((_page_id(page), span))
            elif re.match(rf"^(?:{'|'.join(cli.list_commands(click.Context(cli)))}) -", span):  # `generate --check`
                found.append((_page_id(page), f"mcp-stubgen {span}"))
    return found


def _options(command: click.Command) -> dict[str, click.Parameter]:
    return {name: param for param in command.params for name in (*param.opts, *param.secondary_opts)}


def _is_placeholder(value: str) -> bool:
    return value.isupper() or value.startswith(("[", "<", "$"))


@pytest.mark.parametrize(("page", "line"), _commands(), ids=lambda value: value.split("  #")[0].strip())
def test_every_documented_command_uses_real_commands_options_and_choices(page: str, line: str) -> None:
    words = shlex.split(line.replace("\n", " "), comments=True)
    for stop in ("&&", "|", ">", ";"):
        words = words[: words.index(stop)] if stop in words else words
    words = [word.strip("[]") for word in words[1:]]
    while words and words[0].startswith("-"):
        assert words.pop(0) in _options(cli), f"{page}: {line}"
    if not words:
        return
    context = click.Context(cli)
    command = cli.get_command(context, words[0])
    assert command is not None, f"{page}: no command {words[0]!r} in {line!r}"
    options = _options(command)
    rest = words[1:]
    for position, word in enumerate(rest):
        if word == "--":
            break
        if not word.startswith("-") or word == "-":
            continue
        name, _, inline_value = word.partition("=")
        assert name in options, f"{page}: {words[0]} has no option {name} ({line!r})"
        param = options[name]
        value = inline_value or (rest[position + 1] if position + 1 < len(rest) else "")
        if isinstance(param.type, click.Choice) and value and not _is_placeholder(value):
            assert set(value.split("|")) - {v for v in value.split("|") if v.isupper()} <= set(param.type.choices), (
                f"{page}: {line!r}: {value!r} is not one of {param.type.choices}"
            )


def _repo_paths() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for span in CODE_SPAN.findall(_prose(page.read_text("utf-8"))):
            path = span.split("::", 1)[0]
            if REPO_PATH.match(path):
                found.append((_page_id(page), span))
    return found


@pytest.mark.parametrize(("page", "span"), _repo_paths(), ids=lambda value: value)
def test_every_named_repository_file_exists(page: str, span: str) -> None:
    path, _, test_name = span.partition("::")
    assert (REPO / path).exists(), f"{page}: {path} does not exist"
    if test_name:
        assert f"def {test_name}(" in (REPO / path).read_text("utf-8"), f"{page}: no {test_name} in {path}"


@pytest.mark.parametrize(("page", "body"), _blocks("json"), ids=lambda value: getattr(value, "name", "json"))
def test_every_json_example_parses(page: Path, body: str) -> None:
    json.loads(body)


def test_every_config_key_is_on_the_configuration_page() -> None:
    page = (DOCS / "configuration.md").read_text("utf-8")
    named = set(re.findall(r"(\w+) = ", page)) | set(CODE_SPAN.findall(_prose(page)))
    undocumented = sorted((_PROJECT_KEYS | _SERVER_KEYS) - named)
    assert not undocumented, f"docs/configuration.md does not name {undocumented}"


def test_snapshot_example_names_the_fields_of_the_published_schema() -> None:
    example = next(body for page, body in _blocks("json") if page.name == "snapshot.md")
    schema = json.loads((REPO / "codegen" / "snapshot" / "snapshot.schema.json").read_text("utf-8"))
    assert set(schema["required"]) <= set(json.loads(example)) <= set(schema["properties"])


@pytest.mark.parametrize(("page", "body"), _blocks("toml"), ids=lambda value: getattr(value, "name", "toml"))
def test_every_toml_example_is_accepted_by_the_config_and_drift_policy_loaders(
    page: Path, body: str, tmp_path: Path
) -> None:
    settings = tomllib.loads(body)["tool"]["mcp-stubgen"]
    if "servers_file" in settings:
        (tmp_path / settings["servers_file"]).write_text('{"mcpServers": {}}', encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(body, encoding="utf-8")
    config = load_config(tmp_path / "pyproject.toml")
    parse_policy(config.settings)


def _client_snippets() -> list[tuple[Path, str]]:
    return [(page, body) for page, body in _blocks("python") if "asyncio.run(" not in body]


def test_every_python_example_is_run() -> None:
    """Snippets (top-level `async with`) run below; the whole scripts are the hub demo run by test_hub,
    the deferred-loading loops run by test_hub_providers, and the code-mode examples run by
    test_code_mode (in process) and test_sandbox (in the sandbox)."""
    scripts = [(page, body) for page, body in _blocks("python") if "asyncio.run(" in body]
    assert [page.name for page, _ in scripts] == ["code-mode.md", "code-mode.md", *["hub.md"] * 4]
    assert _client_snippets()


@pytest.mark.parametrize(("page", "body"), _client_snippets(), ids=lambda value: getattr(value, "name", "python"))
def test_client_snippet_runs_against_the_example_server(page: Path, body: str, tmp_path: Path) -> None:
    """Run from `examples/` as the snippet's launch command assumes, with the golden weather package.
    The snippet and the server its `python` starts both run as `PYTHON` ([A server of forks] in
    docs/development.md): forks of a process that imported the MCP SDK, not two fresh interpreters."""
    for folder in ("weather", "_mcp_runtime"):
        shutil.copytree(REPO / "golden" / "clients" / folder, tmp_path / "clients" / folder)
    script = tmp_path / "snippet.py"
    script.write_text(
        f"import asyncio\n\n\nasync def main() -> None:\n{textwrap.indent(body, '    ')}\n\nasyncio.run(main())\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "PATH": os.pathsep.join([str(FORKS), str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    result = subprocess.run(
        [PYTHON, str(script)], cwd=REPO / "examples", env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, f"{page.name}: {result.stderr}"


@pytest.mark.parametrize("page", ["snapshot.md", "configuration.md"])
def test_the_docs_name_exactly_the_variables_a_stdio_server_inherits(page: str) -> None:
    """The names live in one constant; a change there that the pages do not follow fails here."""
    from codegen.snapshot.stdio import INHERITED_ENVIRONMENT

    said = ", ".join(f"`{name}`" for name in INHERITED_ENVIRONMENT[:-1]) + f" and `{INHERITED_ENVIRONMENT[-1]}`"
    assert said in " ".join((DOCS / page).read_text(encoding="utf-8").split())
