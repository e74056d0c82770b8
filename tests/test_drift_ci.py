"""The GitHub Action (`action.yml`), run step by step as a runner would, and the pre-commit hooks
(`.pre-commit-hooks.yaml`), run by their entries: on a project with the example server, its snapshot
and its generated client committed to git."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from codegen.snapshot import load_snapshot
from tests.conftest import EXAMPLE_SERVER, PYTHON, REPO, write_config
from tests.test_drift_formats import sarif_schema

BIN = Path(sys.executable).parent
CONFIG = f"""
[tool.mcp-stubgen]
snapshots = "mcp/snapshots"
output = "clients"

[tool.mcp-stubgen.servers.weather]
command = {json.dumps(PYTHON)}
args = [{json.dumps(str(EXAMPLE_SERVER))}]
"""
OFFLINE_CONFIG = CONFIG.replace(json.dumps(PYTHON), '"/nonexistent/server-that-must-not-start"')
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def git(repo: Path, *args: str) -> None:
    identity = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
    identity |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", *args], cwd=repo, env={**os.environ, **identity}, check=True, capture_output=True)


def environment(**extra: str) -> dict[str, str]:
    """This interpreter's scripts (mcp-stubgen) first on PATH, as after `pip install mcp-stubgen`."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **extra}


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One generate cache for this module's runs: the pieces of the client `synced` generated, so a
    check proves the committed package current without rendering it again, as a warm CI cache would."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> Path:
    """The project after `mcp-stubgen sync`, committed; copied by each test."""
    root = tmp_path_factory.mktemp("project")
    write_config(root, CONFIG)
    result = subprocess.run(
        ["mcp-stubgen", "sync"], cwd=root, env=environment(MCP_STUBGEN_CACHE_DIR=str(cache)), capture_output=True
    )
    assert result.returncode == 0, result.stderr
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "snapshot and client")
    return root


@pytest.fixture
def project(synced: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(synced, copy)
    return copy


def retire_a_tool(project: Path) -> None:
    """Add a tool to the committed snapshot that the live server lacks: live, it is a breaking removal,
    and the committed package no longer matches the snapshot."""
    path = project / "mcp" / "snapshots" / "weather.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["tools"].append({"name": "retired", "inputSchema": {"type": "object"}})
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")


@dataclass
class ActionRun:
    """What a runner would have: each step's outputs, the job summary, and the steps it skipped."""

    workspace: Path
    temp: Path
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    uses: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    exit_code: int = 0
    log: str = ""

    @property
    def summary(self) -> str:
        path = self.temp / "summary.md"
        return path.read_text(encoding="utf-8") if path.exists() else ""


def _evaluate(expression: str, inputs: Mapping[str, str], outputs: Mapping[str, Mapping[str, str]]) -> str:
    """The few expressions action.yml may use: inputs, step outputs, `==` against a literal, `&&`."""
    terms = [term.strip() for term in expression.split("&&")]
    if len(terms) > 1:
        return "true" if all(_evaluate(term, inputs, outputs) == "true" for term in terms) else "false"
    if "==" in expression:
        left, right = (side.strip() for side in expression.split("=="))
        return "true" if _evaluate(left, inputs, outputs) == right.strip("'") else "false"
    if expression.startswith("inputs."):
        return inputs[expression.removeprefix("inputs.")]
    match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
    assert match, f"action.yml uses an expression this test cannot evaluate: {expression}"
    return outputs.get(match.group(1), {}).get(match.group(2), "")


def run_action(
    workspace: Path,
    temp: Path,
    cache: Path,
    action_path: Path = REPO,
    runner_env: Mapping[str, str] | None = None,
    **given: str,
) -> ActionRun:
    """Run the action checked out at `action_path` with the `given` inputs; `runner_env` adds to the runner's environment."""
    action: dict[str, Any] = yaml.safe_load((action_path / "action.yml").read_text(encoding="utf-8"))
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    assert set(given) <= set(inputs), f"not inputs of the action: {set(given) - set(inputs)}"
    inputs |= given
    temp.mkdir(parents=True, exist_ok=True)
    run = ActionRun(workspace, temp)
    path_additions: list[str] = []
    for index, step in enumerate(action["runs"]["steps"]):

        def substitute(text: str) -> str:
            return _EXPRESSION.sub(lambda match: _evaluate(match.group(1), inputs, run.outputs), text)

        if "if" in step and _evaluate(step["if"], inputs, run.outputs) != "true":
            continue
        if "uses" in step:
            run.uses.append((step["uses"], {key: substitute(str(value)) for key, value in step["with"].items()}))
            continue
        assert "${{" not in step["run"], "a run script must read inputs from env, never expand them in place"
        assert step["shell"] == "bash"
        output_file = temp / f"output-{index}"
        output_file.write_text("")
        env = environment(
            RUNNER_TEMP=str(temp),
            GITHUB_WORKSPACE=str(workspace),
            GITHUB_ACTION_PATH=str(action_path),
            GITHUB_STEP_SUMMARY=str(temp / "summary.md"),
            GITHUB_OUTPUT=str(output_file),
            GITHUB_PATH=str(temp / "path"),
            MCP_STUBGEN_CACHE_DIR=str(cache),
            **(runner_env or {}),
            **{key: substitute(str(value)) for key, value in step.get("env", {}).items()},
        )
        env["PATH"] = os.pathsep.join([*path_additions, env["PATH"]])
        cwd = workspace / substitute(step.get("working-directory", "."))
        script = temp / f"step-{index}.sh"
        script.write_text(step["run"], encoding="utf-8")
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        run.log += result.stdout + result.stderr
        lines = output_file.read_text(encoding="utf-8").splitlines()
        run.outputs[step.get("id", str(index))] = dict(line.split("=", 1) for line in lines)
        if (temp / "path").exists():
            path_additions = (temp / "path").read_text(encoding="utf-8").split()
        if result.returncode != 0:
            run.exit_code = result.returncode
            break
    return run


def test_the_action_passes_a_clean_project_and_writes_the_summary(project: Path, tmp_path: Path, cache: Path) -> None:
    run = run_action(project, tmp_path / "runner", cache, install="false")
    assert run.exit_code == 0, run.log
    assert run.outputs["drift"]["exit-code"] == "0" and run.outputs["check"]["exit-code"] == "0"
    assert run.summary == (
        "### MCP catalog drift: 0 breaking, 0 dangerous, 0 safe\n\n"
        "No changes to the committed catalogs.\n"
        "Generated packages: up to date.\n"
    )
    assert run.uses == []  # no SARIF upload unless asked


def test_the_action_fails_on_breaking_drift_and_a_stale_package(project: Path, tmp_path: Path, cache: Path) -> None:
    retire_a_tool(project)
    run = run_action(project, tmp_path / "runner", cache, install="false", sarif="true", servers="weather")
    assert run.exit_code == 1, run.log
    assert (run.outputs["drift"]["exit-code"], run.outputs["check"]["exit-code"]) == ("1", "1")
    assert run.summary.startswith("### MCP catalog drift: 1 breaking, 0 dangerous, 0 safe\n")
    assert "| `tool-removed` | `weather: tool retired` |" in run.summary
    assert run.summary.endswith(
        "Generated packages: **out of date**; run `mcp-stubgen generate` and commit the result (the diff is in the job's log).\n"
    )
    assert ",title=tool-removed%3A weather%3A tool retired::tool 'retired' was removed" in run.log
    annotation = next(line for line in run.log.splitlines() if "tool retired::" in line)
    # the line of the tool's entry in the snapshot as written (canonically: tools sorted by name)
    canonical = load_snapshot(project / "mcp" / "snapshots" / "weather.json").canonical_bytes().decode().splitlines()
    retired_at = canonical.index('      "name": "retired"') - 3
    assert canonical[retired_at - 1] == "    {"
    assert annotation.startswith(f"::error file=mcp/snapshots/weather.json,line={retired_at},")
    assert "::error::MCP catalog drift at or above the fail-on threshold" in run.log
    ((action, arguments),) = run.uses
    assert action.startswith("github/codeql-action/upload-sarif@")
    sarif = json.loads(Path(arguments["sarif_file"]).read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(sarif_schema()).validate(sarif)
    (result,) = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "mcp/snapshots/weather.json"


def test_the_action_follows_fail_on_and_against(project: Path, tmp_path: Path, cache: Path) -> None:
    retire_a_tool(project)
    write_config(project, OFFLINE_CONFIG)  # --against starts no server: there is none to start
    run = run_action(
        project, tmp_path / "runner", cache, install="false", against="HEAD", **{"check-generated": "false"}
    )
    assert run.exit_code == 0, run.log  # against HEAD, the committed snapshot gained a tool: safe
    assert "tool-added" in run.summary and "Generated packages" not in run.summary
    dangerous = run_action(
        project,
        tmp_path / "runner2",
        cache,
        install="false",
        against="HEAD",
        **{"fail-on": "any", "check-generated": "false"},
    )
    assert dangerous.exit_code == 1


def test_the_action_passes_usage_paths_to_drift(project: Path, tmp_path: Path, cache: Path) -> None:
    write_config(project, OFFLINE_CONFIG)
    (project / "app").mkdir()
    (project / "app" / "main.py").write_text(
        "from clients.weather import WeatherClient\n\n\nasync def find(client: WeatherClient) -> object:\n"
        '    return await client.search(query="os")\n',
        encoding="utf-8",
    )
    path = project / "mcp" / "snapshots" / "weather.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["tools"] = [tool for tool in document["tools"] if tool["name"] != "celsius_to_fahrenheit"]
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    given = {"install": "false", "against": "HEAD", "check-generated": "false", "usage": "app clients"}
    unused = run_action(project, tmp_path / "runner", cache, **given)
    assert unused.exit_code == 0, unused.log  # the removed tool is called nowhere
    assert "unused: no scanned source uses it; not counted by --fail-on" in unused.summary

    document["tools"] = [tool for tool in document["tools"] if tool["name"] != "search"]
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    used = run_action(project, tmp_path / "runner2", cache, **given)
    assert used.exit_code == 1, used.log
    assert "used at app/main.py:5" in used.summary


def test_the_action_reports_a_run_that_could_not_start(project: Path, tmp_path: Path, cache: Path) -> None:
    write_config(project, CONFIG + "\n[tool.mcp-stubgen.drift]\nignroe = []\n")
    run = run_action(project, tmp_path / "runner", cache, install="false")
    assert run.exit_code == 2, run.log
    assert run.summary.startswith("### MCP catalog drift could not run (exit 2); the errors are in the job's log\n")
    assert "has unknown key 'ignroe'; did you mean 'ignore'?" in run.log


def test_a_report_that_could_not_check_a_server_is_not_uploaded(project: Path, tmp_path: Path, cache: Path) -> None:
    """With a server that did not start, the SARIF report held the others' results alone, and was
    uploaded: code scanning closes every alert a new analysis lacks, so that server's open alerts
    were closed as fixed, to reopen on the next run that reached it."""
    retire_a_tool(project)
    write_config(project, CONFIG + '\n[tool.mcp-stubgen.servers.notes]\ncommand = "/nonexistent/notes-server"\n')
    run = run_action(project, tmp_path / "runner", cache, install="false", sarif="true", **{"check-generated": "false"})
    assert run.exit_code == 2, run.log
    assert run.outputs["drift"]["exit-code"] == "2"
    assert "tool-removed" in run.summary  # the servers it reached are still reported
    assert run.uses == []
    assert "::warning::the SARIF report is not uploaded: drift could not check every server" in run.log


def action_checkout(folder: Path, version: str) -> Path:
    """The action as a workflow's `uses: OWNER/mcp-stubgen@TAG` checks it out, at a version no index has."""
    shutil.copytree(
        REPO,
        folder,
        ignore=shutil.ignore_patterns(
            ".git", ".venv*", "node_modules", ".test-deps", "build", "*.egg-info", "__pycache__", ".*_cache", "golden",
            "benchmarks", "tests", "clients", "snapshots",
        ),
    )  # fmt: skip
    stated = folder / "codegen" / "__init__.py"  # the one statement of the version (pyproject.toml reads it)
    text = stated.read_text(encoding="utf-8")
    stated.write_text(text.replace('\n__version__ = "', f'\n__version__ = "{version}"  # was "', 1), encoding="utf-8")
    return folder


def requirements(distribution: str, extras: Collection[str] = ()) -> list[Requirement]:
    """What installing `distribution` with `extras` here requires."""
    return [
        requirement
        for requirement in map(Requirement, importlib.metadata.requires(distribution) or [])
        if requirement.marker is None or any(requirement.marker.evaluate({"extra": e}) for e in ("", *extras))
    ]


def with_dependencies_installed(venv: Path) -> None:
    """The runner's environment as an earlier use of the action in the job left it: mcp-stubgen's
    dependencies installed, copied with their records from this environment, where pip installed the
    same requirements from the same pyproject.toml (downloading and unpacking them again took 40 s)."""
    site_packages = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    wanted = requirements("mcp-stubgen")
    done: set[tuple[str, frozenset[str]]] = set()
    copied: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        if (name, frozenset(requirement.extras)) in done:
            continue
        done.add((name, frozenset(requirement.extras)))
        wanted += requirements(name, requirement.extras)
        if name in copied:
            continue
        copied.add(name)
        distribution = importlib.metadata.distribution(name)
        for file in distribution.files or []:
            source = Path(distribution.locate_file(file))
            if file.parts[0] != ".." and source.is_file():  # not the scripts in bin/
                (site_packages / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, site_packages / file)


def test_the_action_installs_its_own_checkout_or_a_release_from_the_index(
    project: Path, tmp_path: Path, cache: Path
) -> None:
    """By default the tool's version is the action's tag, whatever the newest release is; `install:
    index` installs the `version` asked for from the package index. Both runs are the action used
    again in the same job (one `RUNNER_TEMP`), so they find an environment with the dependencies
    installed, and must still install the tool, then replace it with the release asked for."""
    write_config(project, OFFLINE_CONFIG)
    given = {"against": "HEAD", "check-generated": "false"}
    # pip byte-compiling every installed distribution proves nothing here (PIP_NO_COMPILE=1 would turn it on)
    runner = {"PIP_COMPILE": "false"}
    action = action_checkout(tmp_path / "action", "0.1.0.post7")
    with_dependencies_installed(tmp_path / "runner" / "mcp-stubgen-venv")
    own = run_action(project, tmp_path / "runner", cache, action, runner_env=runner, **given)
    assert own.exit_code == 0, own.log
    assert "mcp-stubgen, version 0.1.0.post7" in own.log
    installed = (tmp_path / "runner" / "mcp-stubgen-venv").glob("lib/python*/site-packages/mcp_stubgen-*.dist-info")
    (dist_info,) = installed
    assert json.loads((dist_info / "direct_url.json").read_text())["url"] == action.as_uri()

    # a release on an index (here a folder of wheels the runner's pip is pointed at)
    release = action_checkout(tmp_path / "release", "0.1.0.post8")
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheels), str(release)],
        check=True,
        capture_output=True,
    )
    links = " ".join(filter(None, [os.environ.get("PIP_FIND_LINKS"), str(wheels)]))
    indexed = run_action(
        project, tmp_path / "runner", cache, action, runner_env={**runner, "PIP_FIND_LINKS": links}, install="index",
        version="0.1.0.post8", **given,
    )  # fmt: skip
    assert indexed.exit_code == 0, indexed.log
    assert "mcp-stubgen, version 0.1.0.post8" in indexed.log


@pytest.mark.parametrize(
    ("runner_os", "scripts", "python"), [("Windows", "Scripts", "python"), ("Linux", "bin", "python3")]
)
def test_the_action_finds_its_environment_where_the_runner_os_puts_it(
    tmp_path: Path, runner_os: str, scripts: str, python: str
) -> None:
    """A virtual environment's programs are in `Scripts` on Windows, where setup-python's Python is
    `python` (no `python3`); the action ran `.venv/bin/pip`, which is not there. Run with stand-ins
    that lay the environment out as `runner_os` does, and fail as the other OS's Python would."""
    stand_ins = tmp_path / "stand-ins"
    stand_ins.mkdir()
    venv_maker = f"""#!/bin/bash
[ "$1 $2" = "-m venv" ] || exit 9
mkdir -p "$3/{scripts}"
printf '#!/bin/bash\\necho "pip $*" >> "$RUNNER_TEMP/pip.log"\\n' > "$3/{scripts}/pip"
printf '#!/bin/bash\\necho "mcp-stubgen $*"\\n' > "$3/{scripts}/mcp-stubgen"
chmod +x "$3/{scripts}/pip" "$3/{scripts}/mcp-stubgen"
"""
    for name in ("python", "python3"):
        (stand_ins / name).write_text(
            venv_maker if name == python else f"#!/bin/bash\necho '{name}: not on {runner_os}' >&2\nexit 127\n"
        )
        (stand_ins / name).chmod(0o755)
    (tmp_path / "project").mkdir()
    runner = {"RUNNER_OS": runner_os, "PATH": f"{stand_ins}{os.pathsep}{os.environ['PATH']}"}
    run = run_action(tmp_path / "project", tmp_path / "runner", tmp_path / "cache", runner_env=runner)
    assert run.exit_code == 0, run.log
    venv = tmp_path / "runner" / "mcp-stubgen-venv"
    assert (tmp_path / "runner" / "path").read_text().split() == [f"{venv}/{scripts}"]
    assert (tmp_path / "runner" / "pip.log").read_text().endswith(f" {REPO}\n")
    assert "mcp-stubgen --version" in run.log  # the install step's check ran the environment's program
    assert "mcp-stubgen drift --format github" in run.log and "mcp-stubgen generate --check" in run.log


def test_the_workflow_uses_the_local_action() -> None:
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "self-test-action.yml").read_text(encoding="utf-8"))
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    local = [step for step in steps if step.get("uses") == "./"]
    assert len(local) == 2
    action_inputs = set(yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))["inputs"])
    assert all(set(step["with"]) <= action_inputs for step in local)


def hook_command(hook_id: str) -> list[str]:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = [hook for hook in hooks if hook["id"] == hook_id]
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    return shlex.split(hook["entry"]) + list(hook.get("args", []))


@pytest.mark.parametrize("hook_id", ["mcp-stubgen-check", "mcp-stubgen-drift"])
def test_pre_commit_hooks_run_offline(project: Path, cache: Path, hook_id: str) -> None:
    write_config(project, OFFLINE_CONFIG)  # the hooks must never start a server
    command = hook_command(hook_id)

    def run_hook() -> subprocess.CompletedProcess[str]:
        env = environment(MCP_STUBGEN_CACHE_DIR=str(cache))
        return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=300)

    clean = run_hook()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    path = project / "mcp" / "snapshots" / "weather.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["tools"] = [tool for tool in document["tools"] if tool["name"] != "search"]
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    stale = run_hook()
    assert stale.returncode == 1, stale.stdout + stale.stderr
    if hook_id == "mcp-stubgen-drift":
        assert "tool-removed  weather: tool search" in stale.stdout
    else:
        assert "1 generated package(s) out of date" in stale.stderr
