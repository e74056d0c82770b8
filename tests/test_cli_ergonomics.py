"""The command line does what a user typing it would expect: an ad hoc command without `--name`
still works, a failure names its real cause, and paths are printed the same way by every command."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegen import cli as cli_module
from codegen.config import ServerConfig, load_config
from codegen.snapshot import Snapshot
from codegen.snapshot.command import derived_server_id
from codegen.snapshot.take import listed_nothing
from tests.conftest import EXAMPLE_SERVER, PYTHON, REPO, SERVERS, write_config
from tests.regen_goldens import GOLDEN

PY = PYTHON


def test_ad_hoc_snapshot_without_name_takes_it_from_the_command(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot", "--", PY, EXAMPLE_SERVER)
    assert result.exit_code == 0, result.stderr
    assert "note: no --name given; calling the server 'weather_server' (from its command)" in result.stderr
    assert "weather_server: wrote weather_server.json (" in result.stderr
    assert json.loads((tmp_path / "weather_server.json").read_text())["server"] == "weather_server"


def test_ad_hoc_snapshot_of_a_packages_entry_point_is_named_after_the_package(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """`node node_modules/@antv/mcp-server-chart/build/index.js` is `mcp-server-chart` (it was
    `node_modules`: the `@` of the scope's folder was taken for a version's)."""
    entry = tmp_path / "node_modules" / "@acme" / "weather-mcp" / "build" / "index.py"
    entry.parent.mkdir(parents=True)
    shutil.copy(EXAMPLE_SERVER, entry)
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot", "--", PY, "node_modules/@acme/weather-mcp/build/index.py")
    assert result.exit_code == 0, result.stderr
    assert "note: no --name given; calling the server 'weather-mcp' (from its command)" in result.stderr
    assert json.loads((tmp_path / "weather-mcp.json").read_text())["server"] == "weather-mcp"


def test_an_npm_packages_file_is_named_after_the_package_whatever_the_file_is_called() -> None:
    """@mastra/mcp-docs-server 1.2.27 starts as `node node_modules/@mastra/mcp-docs-server/dist/stdio.js`,
    which was called `stdio`; a `.bin/` link keeps its own name."""
    assert derived_server_id(("node", "node_modules/@mastra/mcp-docs-server/dist/stdio.js")) == "mcp-docs-server"
    assert derived_server_id(("node", "/srv/node_modules/next-devtools-mcp/dist/cli.mjs")) == "next-devtools-mcp"
    assert derived_server_id(("/srv/node_modules/.bin/azmcp", "server", "start")) == "azmcp"


def test_a_scoped_npm_package_whose_name_says_only_mcp_is_named_with_its_scope(tmp_path: Path) -> None:
    """@currents/mcp 2.1.1, started as `npx -y @currents/mcp` or by its `node_modules/.bin/mcp` link,
    was called `mcp` (a snapshot `mcp.json`, a package `mcp`, hub names `mcp__...`), as were
    @eslint/mcp and @azure/mcp; @sentry/mcp-server was `mcp-server`, as every such server would be."""
    entry = tmp_path / "node_modules" / "@currents" / "mcp" / "build" / "index.js"
    entry.parent.mkdir(parents=True)
    entry.write_text("")
    link = tmp_path / "node_modules" / ".bin" / "mcp"
    link.parent.mkdir()
    link.symlink_to(Path("..") / "@currents" / "mcp" / "build" / "index.js")
    assert derived_server_id((str(link),)) == "currents-mcp"
    assert derived_server_id(("npx", "-y", "@currents/mcp")) == "currents-mcp"
    assert derived_server_id(("npx", "-y", "@sentry/mcp-server@0.39.0", "--access-token=x")) == "sentry-mcp-server"
    assert derived_server_id(("node", "node_modules/@eslint/mcp/src/mcp-cli.js")) == "eslint-mcp"
    assert derived_server_id(("npx", "-y", "@scope/server-x@1.2")) == "server-x"  # a name that says which


def test_an_npm_package_of_one_platforms_binary_is_named_without_its_platform() -> None:
    """onshape-mcp 0.5.2 (`@onshape-mcp/linux-x64/bin/onshape-mcp`) was called `linux-x64`, and
    falconer-mcp and git-library-mcp (`@falconer/mcp-linux-x64/falconer-mcp`,
    `@git-library/mcp-linux-x64/bin/git-library-mcp`) were both `mcp-linux-x64`, each one's snapshot
    written over the other's."""
    cases = {
        "node_modules/@onshape-mcp/linux-x64/bin/onshape-mcp": "onshape-mcp",
        "node_modules/@falconer/mcp-linux-x64/falconer-mcp": "falconer-mcp",
        "node_modules/@git-library/mcp-linux-x64/bin/git-library-mcp": "git-library-mcp",
        "node_modules/kubernetes-mcp-server-linux-amd64/bin/kubernetes-mcp-server": "kubernetes-mcp-server",
        "node_modules/@tool/darwin-arm64/bin/tool": "tool",
        "npx -y @azure/mcp-win32-x64": "azure-mcp",
        "npx -y @kanoniv/mcp-linux-x64-musl@0.3.7": "kanoniv-mcp",
    }
    assert {line: derived_server_id(tuple(line.split())) for line in cases} == cases
    assert derived_server_id(("npx", "-y", "@scope/linux-tools")) == "linux-tools"  # not a platform


def test_a_launchers_option_value_is_not_taken_for_the_server() -> None:
    """A launcher's option that takes a value was read as the server: GitHub's own `docker run -i
    --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr.io/github/github-mcp-server` was called
    `GITHUB_PERSONAL_ACCESS_TOKEN`, `npx --prefix /tmp/realnew4/npm context7-mcp` `npm`, `uvx --with
    httpx mcp-server-fetch` `httpx`, and `uvx --python 3.12 mcp-server-time` asked for a name."""
    cases = {
        "docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr.io/github/github-mcp-server": "github-mcp-server",
        "docker run -i --rm -v /srv/data:/data --name fs mcp/filesystem /data": "filesystem",
        "podman run -i --rm --env-file .env -p 8080:80 mcp/fetch:latest": "fetch",
        "npx --prefix /tmp/realnew4/npm context7-mcp": "context7-mcp",
        "npx -y -p @upstash/context7-mcp@4.1.1 context7-mcp": "context7-mcp",
        "uvx --with httpx mcp-server-fetch": "mcp-server-fetch",
        "uvx --python 3.12 mcp-server-time --local-timezone UTC": "mcp-server-time",
        "uvx --from mcp-server-git==2026.10.19 mcp-server-git": "mcp-server-git",
        "uv tool run --python 3.12 arxiv-mcp-server": "arxiv-mcp-server",
        "uv run --with mcp --directory /srv/weather weather_server.py": "weather_server",
        "pipx run --spec biomcp-cli==0.9.3 biomcp mcp": "biomcp",
        "python -X utf8 -W ignore -m mcp_server_time": "mcp_server_time",
        "node --require ./trace.cjs build/weather.js": "weather",
        "deno run --config deno.json -A jsr:@acme/weather-mcp": "weather-mcp",
        # a JVM, .NET or Go server was named after its runtime (`java`, `dotnet`, `go`)
        "java -Xmx512m -jar build/libs/weather-mcp-1.0.0-SNAPSHOT.jar": "weather-mcp",
        "java -cp lib/app.jar -Dlog=off com.acme.WeatherMcp": "WeatherMcp",
        "dotnet run --project src/WeatherMcp -c Release": "WeatherMcp",
        "dotnet bin/Release/net9.0/WeatherMcp.dll --stdio": "WeatherMcp",
        "go run ./cmd/weather-mcp": "weather-mcp",
        "go run -tags netgo github.com/acme/weather-mcp@latest": "weather-mcp",
    }
    assert {command: derived_server_id(tuple(command.split())) for command in cases} == cases
    assert derived_server_id(("python", "-c", "import server; server.main()")) is None


def test_ad_hoc_snapshot_asks_for_a_name_it_cannot_tell(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot", "--", "node", "build/index.js")
    assert result.exit_code == 2
    assert "cannot tell a server id from the command 'node'; pass --name NAME" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_ad_hoc_snapshot_gives_the_server_the_variables_named_by_env(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A stdio server sees only a few variables of the shell (gitlab-mcp would not start and
    mcp-atlassian listed no tools though the user had exported their settings): `--env NAME` passes
    one on, `--env NAME=VALUE` sets one."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRIFT_CATALOG", "v2")
    server = ("--", PY, SERVERS / "drift_server.py")
    unpassed = run_cli("snapshot", "--name", "unpassed", *server)
    passed = run_cli("snapshot", "--name", "passed", "--env", "DRIFT_CATALOG", *server)
    monkeypatch.delenv("DRIFT_CATALOG")
    given = run_cli("snapshot", "--name", "given", "--env", "DRIFT_CATALOG=v2", *server)
    assert [unpassed.exit_code, passed.exit_code, given.exit_code] == [0, 0, 0], passed.stderr + given.stderr
    versions = {name: json.loads((tmp_path / f"{name}.json").read_text())["serverInfo"]["version"] for name in ("unpassed", "passed", "given")}  # fmt: skip
    assert versions == {"unpassed": "1.0.0", "passed": "2.0.0", "given": "2.0.0"}


def test_ad_hoc_snapshot_declares_the_client_capabilities_given(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A server may list some tools only to a client that declares a capability (`sampled`, to one
    that declares sampling): a config says so with `client_capabilities`, and an ad hoc command line
    had no way to, so its snapshot lacked the tool."""
    monkeypatch.chdir(tmp_path)
    server = ("--", PY, SERVERS / "text_json_server.py")
    plain = run_cli("snapshot", "--name", "plain", *server)
    declared = run_cli("snapshot", "--name", "declared", "--client-capability", "sampling", *server)
    assert [plain.exit_code, declared.exit_code] == [0, 0], plain.stderr + declared.stderr
    snapshots = {name: json.loads((tmp_path / f"{name}.json").read_text()) for name in ("plain", "declared")}
    assert "sampled" in [tool["name"] for tool in snapshots["declared"]["tools"]]
    assert "sampled" not in [tool["name"] for tool in snapshots["plain"]["tools"]]
    assert snapshots["declared"]["clientCapabilities"] == ["sampling"]
    unknown = run_cli("snapshot", "--name", "x", "--client-capability", "tools", *server)
    assert unknown.exit_code == 2 and "'tools' is not one of 'elicitation', 'roots', 'sampling'" in unknown.stderr
    assert not (tmp_path / "x.json").exists()


def test_ad_hoc_env_of_an_unset_variable_is_one_line_naming_it(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STUBGEN_TEST_UNSET", raising=False)
    result = run_cli(
        "snapshot", "--name", "drifty", "--env", "STUBGEN_TEST_UNSET", "--", PY, SERVERS / "drift_server.py"
    )
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: server 'drifty': environment variable STUBGEN_TEST_UNSET (used in env) is not set; export it and retry"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_server_that_lists_nothing_is_written_with_a_warning_saying_what_it_may_miss(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """mcp-atlassian started without its settings answers the handshake and lists nothing: a
    snapshot of it said only `0 tools` and exited 0."""
    server = tmp_path / "bare_server.py"
    server.write_text("from mcp.server.mcpserver import MCPServer\n\nMCPServer('bare').run()\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot", "--name", "bare", "--", PY, server)
    assert result.exit_code == 0, result.stderr
    assert (
        "warning: server 'bare' listed no tools, resources, templates or prompts, as a server missing a setting or "
        "credential often does: a stdio server sees only HOME, LOGNAME, PATH, SHELL, TERM and USER of this "
        "environment, and what --env NAME or --env NAME=VALUE gives it"
    ) in result.stderr.splitlines()
    assert json.loads((tmp_path / "bare.json").read_text())["tools"] == []


def test_an_http_server_that_lists_nothing_is_told_to_check_its_headers_or_auth_or_header() -> None:
    """Ad hoc over --url there is no `headers` table, and a configured server cannot take --header:
    each warning names what its user can set, and only that."""
    server = ServerConfig(name="remote", url="http://127.0.0.1:1/mcp")
    snapshot = Snapshot(server="remote", protocol_version="2026-07-28", capabilities={"tools": {}})
    assert listed_nothing(server, snapshot) == (
        "server 'remote' listed no tools, resources, templates or prompts; check its `headers` or `auth`"
    )
    assert listed_nothing(dataclasses.replace(server, ad_hoc=True), snapshot) == (
        "server 'remote' listed no tools, resources, templates or prompts; check the credentials it needs "
        "(--header 'Name: value')"
    )


def test_a_server_that_declares_no_list_is_told_so_not_sent_after_a_credential(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A server whose handshake declares no tools, resources or prompts is asked for none: the
    warning blamed a setting or credential the server may miss, which is never the cause."""
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot", "--name", "raw", "--", PY, SERVERS / "raw_server.py", "--mode", "empty")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[1:] == [
        "warning: server 'raw' declared none of the tools, resources and prompts capabilities in its handshake, "
        "so nothing was listed (a client lists only what a server declares); the server has to declare what it offers"
    ]


def test_a_command_that_is_not_executable_is_reported_as_such(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "server.py"
    script.write_text(EXAMPLE_SERVER.read_text())
    script.chmod(0o644)
    result = run_cli("snapshot", "--name", "weather", "--out", tmp_path / "weather.json", "--", script)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [
        f"error: server 'weather': command '{script}' is not executable; make it so "
        f"(`chmod +x {script}`) or run it through its interpreter (python, node, ...) with the file as its "
        "first argument"
    ]
    assert not (tmp_path / "weather.json").exists()


def test_a_command_that_is_a_folder_is_named_a_folder_not_a_missing_program(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """An npm server's install folder given as the command was "not found; install it, or give the
    program's full path" to a user who had given a full path (found in the fifteenth round, an ad hoc
    `snapshot -- /tmp/srv/_mui_mcp/`); the interpreter advice named `command = python`, a config key,
    to an ad hoc command line."""
    folder = tmp_path / "mui-mcp"
    (folder / "node_modules" / ".bin").mkdir(parents=True)
    result = run_cli("snapshot", "--name", "mui", "--out", tmp_path / "mui.json", "--", f"{folder}/")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: server 'mui': command '{folder}/' is a folder, not a program; give the program in it "
        "(an npm package's is under node_modules/.bin/, a venv's under bin/)"
    ]
    assert not (tmp_path / "mui.json").exists()


def test_a_path_to_no_program_says_so_not_to_give_the_full_path(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """A mistyped path (`snapshot -- /tmp/srv/venv/bin/server-mpc`) was "not found; install it, or give
    the program's full path" to a user who had given one (found in the sixteenth round)."""
    missing = tmp_path / "venv" / "bin" / "server-mpc"
    result = run_cli("snapshot", "--name", "srv", "--out", tmp_path / "srv.json", "--", missing)
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: server 'srv': command '{missing}' does not exist; check the path"
    ]
    assert not (tmp_path / "srv.json").exists()


def test_a_relative_command_is_found_from_the_servers_cwd(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`command = "./run.sh"` beside `cwd = "svc"` starts `svc/run.sh`, as the process started in `cwd`
    reads it; it was looked for from where mcp-stubgen ran, so `snapshot` in the project's root said
    "not found" for a server that starts (found in the sixteenth round)."""
    script = tmp_path / "svc" / "run.sh"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\nexec {PY} {EXAMPLE_SERVER}\n")
    script.chmod(0o755)
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\n\n[tool.mcp-stubgen.servers.weather]\ncommand = "./run.sh"\ncwd = "svc"\n',
    )
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot")
    assert result.exit_code == 0, result.stderr
    assert json.loads((tmp_path / "snaps" / "weather.json").read_text())["tools"]


def test_a_command_with_its_arguments_in_it_says_to_move_them_to_args(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`command = "server serve"` (a launcher's one-line form) said "does not exist; check the path",
    and `command = "npx -y pkg"` "not found; install it", of programs that are there (found in the
    twentieth round, with bangc-mcp-server's `serve`)."""
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\n\n'
        f'[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(f"{PY} {EXAMPLE_SERVER}")}\nargs = ["--stdio"]\n\n'
        '[tool.mcp-stubgen.servers.module]\ncommand = "python3 -m some_server"\n',
    )
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot")
    assert result.exit_code == 2
    assert sorted(result.stderr.splitlines()) == [
        "error: server 'module': command 'python3 -m some_server' is a program and its arguments; give the program "
        'alone in `command` and the rest in `args`: command = "python3", args = ["-m", "some_server"]',
        f"error: server 'weather': command '{PY} {EXAMPLE_SERVER}' is a program and its arguments; give the "
        f'program alone in `command` and the rest in `args`: command = "{PY}", args = ["{EXAMPLE_SERVER}", "--stdio"]',
    ]
    ad_hoc = run_cli("snapshot", "--name", "weather", "--", f"{PY} {EXAMPLE_SERVER}")
    assert ad_hoc.stderr.splitlines() == [
        f"error: server 'weather': command '{PY} {EXAMPLE_SERVER}' is a program and its arguments; give them as "
        f"separate words after --: -- {PY} {EXAMPLE_SERVER}"
    ]


def test_a_program_and_its_arguments_in_command_are_told_apart_in_paths_with_spaces(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch
) -> None:
    """`command = "/x/my servers/fast venv/bin/python /x/my servers/server.py"` said "does not exist;
    check the path", of a program that is there: the split at the first space named no program (found
    in the twenty-first round). The words that name the program, and each argument that names a
    file, are kept whole, and the ad hoc form quotes them."""
    folder = tmp_path / "my servers"
    (folder / "fast venv").mkdir(parents=True)
    (folder / "fast venv" / "python").symlink_to(PY)
    shutil.copy(EXAMPLE_SERVER, folder / "weather server.py")
    program, script = folder / "fast venv" / "python", folder / "weather server.py"
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\n\n'
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(f'{program} {script} --units metric')}\n",
    )
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot")
    assert result.exit_code == 2
    # paths are shown relative to the working folder, as every line shows them
    program, script = Path("my servers/fast venv/python"), Path("my servers/weather server.py")
    assert result.stderr.splitlines() == [
        f"error: server 'weather': command '{program} {script} --units metric' is a program and its arguments; "
        f'give the program alone in `command` and the rest in `args`: command = "{program}", '
        f'args = ["{script}", "--units", "metric"]'
    ]
    ad_hoc = run_cli("snapshot", "--name", "weather", "--", f"{program} {script}")
    assert ad_hoc.stderr.splitlines() == [
        f"error: server 'weather': command '{program} {script}' is a program and its arguments; give them as "
        f"separate words after --: -- '{program}' '{script}'"
    ]


def test_relative_paths_of_a_configured_server_are_read_from_its_config_in_a_subfolder_too(  # type: ignore[no-untyped-def]
    tmp_path: Path, run_cli, monkeypatch
) -> None:
    """A server without `cwd` started where mcp-stubgen ran, so `args = ["weather_server.py"]` and
    `command = "./run.sh"`, right from the project's root, failed from a subfolder ("can't open file",
    "does not exist; check the path") though the config was found and its other paths read from its
    folder (this repository's own `examples/` servers too; found in the twentieth round)."""
    shutil.copy(EXAMPLE_SERVER, tmp_path / "weather_server.py")
    (tmp_path / "run.sh").write_text(f"#!/bin/sh\nexec {PY} weather_server.py\n")
    (tmp_path / "run.sh").chmod(0o755)
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\n\n'
        f'[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = ["weather_server.py"]\n\n'
        '[tool.mcp-stubgen.servers.script]\ncommand = "./run.sh"\n',
    )
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    result = run_cli("snapshot")
    assert result.exit_code == 0, result.stderr
    assert (
        [tool["name"] for tool in json.loads((tmp_path / "snaps" / "weather.json").read_text())["tools"]]
        == [tool["name"] for tool in json.loads((tmp_path / "snaps" / "script.json").read_text())["tools"]]
        != []
    )


@pytest.mark.parametrize(
    ("servers_file", "start_in"), [(".mcp.json", "."), (".vscode/mcp.json", "."), ("tools/servers.json", "tools")]
)
def test_a_servers_file_server_starts_in_its_workspace(servers_file: str, start_in: str, tmp_path: Path) -> None:
    """A server listed in a servers file starts where its client starts it: VS Code in the workspace
    (the folder above `.vscode/`), others in the file's folder; a `url` server has no folder."""
    listed = tmp_path / servers_file
    listed.parent.mkdir(exist_ok=True)
    listed.write_text(
        json.dumps({"servers": {"local": {"command": "srv"}, "remote": {"url": "http://127.0.0.1:9/mcp"}}})
    )
    write_config(tmp_path, f"[tool.mcp-stubgen]\nservers_file = {json.dumps(servers_file)}\n")
    servers = load_config(tmp_path / "pyproject.toml").servers
    assert (servers["local"].cwd, servers["remote"].cwd) == ((tmp_path / start_in).resolve(), None)


@pytest.mark.parametrize("cwd", ["services/weather", "pyproject.toml"])
def test_a_cwd_that_is_no_folder_is_blamed_not_the_command(  # type: ignore[no-untyped-def]
    cwd: str, tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `cwd` that does not exist (or is a file) said "cannot start 'python' (No such file or
    directory); check that the command is a program", sending the user to a command that is fine."""
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\n\n'
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(EXAMPLE_SERVER))}]\n"
        f"cwd = {json.dumps(cwd)}\n",
    )
    monkeypatch.chdir(tmp_path)
    result = run_cli("snapshot")
    assert result.exit_code == 2
    reason = "No such file or directory" if cwd.startswith("services") else "Not a directory"
    assert result.stderr.splitlines() == [
        f"error: server 'weather': cannot start it in {cwd} ({reason}); fix `cwd` in the config (a folder, "
        "relative to the config file)"
    ]


def test_generate_and_sync_print_paths_relative_to_the_working_directory(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n'
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(EXAMPLE_SERVER))}]\n",
    )
    (tmp_path / "snaps").mkdir()
    shutil.copy(GOLDEN / "weather" / "snapshot.json", tmp_path / "snaps" / "weather.json")
    monkeypatch.chdir(tmp_path)
    generated = run_cli("generate")
    assert generated.exit_code == 0, generated.stderr
    assert generated.stderr.startswith("weather: generated clients/weather ("), generated.stderr
    synced = run_cli("sync")
    assert synced.exit_code == 0, synced.stderr
    assert "weather: unchanged clients/weather" in synced.stderr
    again = run_cli("generate")
    assert again.stderr == "weather: unchanged clients/weather\n"


def drift_project(tmp_path: Path, monkeypatch, run_cli) -> Path:  # type: ignore[no-untyped-def]
    """`drifty` committed at catalog v1 and serving v2, beside `broken`, whose server exits at once."""
    config = write_config(
        tmp_path,
        f"""[tool.mcp-stubgen]
snapshots = "snapshots"

[tool.mcp-stubgen.servers.drifty]
command = {json.dumps(PY)}
args = [{json.dumps(str(SERVERS / "drift_server.py"))}]
env = {{ DRIFT_CATALOG = "${{DRIFT_CATALOG}}" }}

[tool.mcp-stubgen.servers.broken]
command = {json.dumps(PY)}
args = ["-c", "raise SystemExit(3)"]
""",
    )
    monkeypatch.setenv("DRIFT_CATALOG", "v1")
    assert run_cli("snapshot", "drifty", "--config", config).exit_code == 0
    monkeypatch.setenv("DRIFT_CATALOG", "v2")
    return config


def test_live_drift_reports_the_other_servers_when_one_snapshot_is_unreadable(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    config = drift_project(tmp_path, monkeypatch, run_cli)
    (tmp_path / "snapshots" / "broken.json").write_text("{not json", encoding="utf-8")
    result = run_cli("drift", "--config", config, "--format", "json")
    assert result.exit_code == 2
    assert "broken.json" in result.stderr and "error:" in result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert {finding["server"] for finding in findings} == {"drifty"}
    assert "tool-removed" in {finding["rule"] for finding in findings}


def test_live_drift_claims_no_drift_only_for_the_servers_it_checked(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    config = drift_project(tmp_path, monkeypatch, run_cli)
    monkeypatch.setenv("DRIFT_CATALOG", "v1")
    shutil.copy(tmp_path / "snapshots" / "drifty.json", tmp_path / "snapshots" / "broken.json")
    result = run_cli("drift", "--config", config)
    assert result.exit_code == 2
    assert "error: server 'broken'" in result.stderr
    assert result.stdout == (
        "0 breaking, 0 dangerous, 0 safe in the servers checked\nnot checked (see the errors above): broken\n"
    )
    markdown = run_cli("drift", "--config", config, "--format", "markdown")
    assert "No changes to the committed catalogs" not in markdown.stdout
    assert "Not checked (the errors are in the job's log): `broken`" in markdown.stdout


def test_live_drift_json_and_annotations_name_the_servers_not_checked_and_why(
    tmp_path: Path, run_cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Red before: the JSON report listed findings only, so a failed server read as a clean one."""
    config = drift_project(tmp_path, monkeypatch, run_cli)
    monkeypatch.setenv("DRIFT_CATALOG", "v1")
    shutil.copy(tmp_path / "snapshots" / "drifty.json", tmp_path / "snapshots" / "broken.json")
    result = run_cli("drift", "--config", config, "--format", "json")
    assert result.exit_code == 2
    report = json.loads(result.stdout)
    assert report["findings"] == [] and report["summary"]["breaking"] == 0
    [unchecked] = report["unchecked"]
    assert unchecked["server"] == "broken"
    assert unchecked["reason"].startswith("server 'broken': ")
    assert f"error: {unchecked['reason']}" in result.stderr.splitlines()
    github = run_cli("drift", "--config", config, "--format", "github")
    assert github.exit_code == 2
    assert github.stdout.startswith("::error title=drift%3A server broken not checked::server 'broken': ")
    monkeypatch.setenv("DRIFT_CATALOG", "v1")
    clean = run_cli("drift", "drifty", "--config", config, "--format", "json")
    assert clean.exit_code == 0 and json.loads(clean.stdout)["unchecked"] == []


def test_a_ctrl_c_that_python_wraps_in_another_error_is_still_an_interrupt(
    run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """A SIGTERM or Ctrl-C while `snapshot` imports the SDK (its servers already started) can land in
    a class being created, and Python 3.11 reports it as `RuntimeError: Error calling __set_name__`,
    caused by the `KeyboardInterrupt`: the command said "internal error" and exited 2."""

    class InterruptedHere:
        def __set_name__(self, owner: type, name: str) -> None:
            raise KeyboardInterrupt

    def importing(**_options: object) -> None:
        type("MemoryObjectSendStream", (), {"_closed": InterruptedHere()})

    monkeypatch.setattr(cli_module.cli, "main", importing)
    result = run_cli("snapshot", "--name", "x", "--", "true")
    assert (result.exit_code, result.stderr) == (130, "interrupted; files already written are left as they were\n")


INTERRUPT_WHILE_LOADING = """
import os, signal, sys

class Interrupt:
    def find_spec(self, name, path, target=None):
        if name == "click":  # the first import of the command's own modules: the signal lands here
            if sys.argv[1] == "SIGTERM":
                os.kill(os.getpid(), signal.SIGTERM)
            else:
                raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupt())
from codegen.__main__ import run

run()
"""


@pytest.mark.parametrize(("stop", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_ctrl_c_while_the_command_is_still_loading_is_one_line_and_exit_130(
    tmp_path: Path, stop: str, code: int
) -> None:
    """On a loaded machine Python takes a second to load the command; a Ctrl-C then ended in a
    KeyboardInterrupt traceback from deep inside an import, and a SIGTERM without a word."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-c", INTERRUPT_WHILE_LOADING, stop]
    done = subprocess.run(command, cwd=tmp_path, env=environment, capture_output=True, text=True, check=False)
    assert done.returncode == code, done.stderr
    assert done.stderr == "interrupted; files already written are left as they were\n", done.stderr
