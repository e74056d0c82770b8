"""What a new user met in their first week (issue 28): names, messages, partial failures."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from codegen.config import load_config
from codegen.identifiers import hub_attribute, package_name
from tests.conftest import EXAMPLE_SERVER, PYTHON, REPO, SERVERS, interrupt_after_line, write_config
from tests.regen_goldens import GOLDEN

WEATHER = GOLDEN / "weather" / "snapshot.json"


def renamed_snapshot(folder: Path, server: str) -> Path:
    """The weather golden snapshot under another server id."""
    document = json.loads(WEATHER.read_text(encoding="utf-8"))
    document["server"] = server
    path = folder / f"{server}.json"
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def test_digits_stay_where_the_server_id_has_them() -> None:
    assert [package_name(server) for server in ("context7", "k8s", "ec2", "EC2", "mcp-server-time")] == [
        "context7",
        "k8s",
        "ec2",
        "ec2",
        "mcp_server_time",
    ]
    assert package_name("ec2Client") == "ec2_client"
    assert hub_attribute("context7") == "context7"


def test_a_server_id_with_digits_gives_that_package_class_and_hub_keyword(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\n\n'
                 '[tool.mcp-stubgen.servers.context7]\ncommand = "context7-mcp"\n')  # fmt: skip
    (tmp_path / "snaps").mkdir()
    renamed_snapshot(tmp_path / "snaps", "context7")

    result = run_cli("generate", "--config", tmp_path / "pyproject.toml")

    assert result.exit_code == 0, result.stderr
    assert sorted(path.name for path in (tmp_path / "clients").iterdir() if not path.name.startswith("_")) == [
        "context7",
        "hub",
    ]
    assert "class Context7Client(" in (tmp_path / "clients" / "context7" / "client.py").read_text()
    hub_client = (tmp_path / "clients" / "hub" / "client.py").read_text()
    assert "context7: Context7Client" in hub_client and "context_7" not in hub_client


PY = PYTHON
RAW = str(SERVERS / "raw_server.py")


def two_servers(folder: Path, second: str = "", hub: bool = True) -> None:
    """`weather` (the example server) and `legacy` (the raw server, with `second` as its extra args)."""
    args = json.dumps([RAW, *second.split()])
    write_config(
        folder,
        f'[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = {str(hub).lower()}\n\n'
        f"[tool.mcp-stubgen.servers.legacy]\ncommand = {json.dumps(PY)}\nargs = {args}\n\n"
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(EXAMPLE_SERVER))}]\n",
    )


def test_generate_and_check_go_on_past_a_server_without_a_snapshot(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path)
    (tmp_path / "snaps").mkdir()
    (tmp_path / "snaps" / "weather.json").write_bytes(WEATHER.read_bytes())

    generated = run_cli("generate", "--format", "json")

    assert generated.exit_code == 2
    missing = "snaps/legacy.json: no such snapshot; run `mcp-stubgen snapshot` first"
    assert generated.stderr.splitlines() == [
        f"error: {missing}",
        "weather: generated clients/weather (9 file(s) written, 0 removed)",
        "hub: generated clients/hub (4 file(s) written, 0 removed)",
        "_mcp_runtime: generated clients/_mcp_runtime (15 file(s) written, 0 removed)",
        f"error: hub: built without 'legacy': {missing}",
    ]
    objects = [json.loads(line) for line in generated.stdout.splitlines()]
    assert [(item["server"], item["status"]) for item in objects] == [
        ("legacy", "error"),
        ("weather", "generated"),
        (None, "generated"),
        (None, "generated"),  # the output folder's runtime
        (None, "error"),
    ]
    assert objects[0]["error"] == missing
    assert objects[4]["package"] == "clients/hub" and objects[4]["error"].startswith("hub: built without 'legacy'")
    assert (tmp_path / "clients" / "weather" / "client.py").is_file()
    assert "WeatherClient" in (tmp_path / "clients" / "hub" / "client.py").read_text()

    checked = run_cli("generate", "--check")
    assert checked.exit_code == 2
    assert checked.stdout == ""
    assert checked.stderr.splitlines() == [
        f"error: {missing}",
        f"error: hub: built without 'legacy': {missing}",
        "2 generated package(s) up to date; 2 could not be checked",
    ]


def test_a_hub_with_no_snapshot_yet_says_to_snapshot(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`generate` before any `snapshot`: the servers are configured, so the hub's line says what is missing."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path)
    for args in (("generate",), ("generate", "--check")):
        result = run_cli(*args)
        assert result.exit_code == 2
        assert "configure at least one" not in result.stderr
        assert result.stderr.splitlines()[-1].startswith(
            "error: hub: no server has a usable snapshot to build it from; run `mcp-stubgen snapshot` first"
        )


def test_sync_builds_the_hub_from_the_servers_that_started(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The hub's line for the server that failed says so, not to run `mcp-stubgen snapshot` first, which
    fails as `sync` just did (a wrong port in the twenty-third round)."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode crash-start")

    result = run_cli("sync")

    assert result.exit_code == 2
    assert "error: server 'legacy': the server closed the connection during start-up" in result.stderr
    assert result.stderr.splitlines()[-3:] == [
        "hub: generated clients/hub (4 file(s) written, 0 removed)",
        "_mcp_runtime: generated clients/_mcp_runtime (15 file(s) written, 0 removed)",
        "error: hub: built without 'legacy', whose snapshot failed (above)",
    ]
    imported = subprocess.run(
        [PY, "-c", "from clients.hub import Hub; print(sorted(Hub.tools))"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "'weather__get_forecast'" in imported.stdout and "legacy__" not in imported.stdout


def test_sync_of_one_server_succeeds_while_others_have_no_snapshot_yet(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A user adding servers one at a time runs `sync NAME` for each: the server named is synced and the
    hub built from what exists, with one warning naming those it lacks and what to run (it exited 2
    with an `error: hub: built without ...` line for every server not snapshotted yet)."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path)

    result = run_cli("sync", "weather")

    assert result.exit_code == 0, result.stderr
    assert "error:" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        "warning: hub: built without 'legacy', which has no snapshot yet; run `mcp-stubgen sync legacy` to add it"
    )
    assert (tmp_path / "snaps" / "weather.json").is_file() and not (tmp_path / "snaps" / "legacy.json").exists()
    assert "WeatherClient" in (tmp_path / "clients" / "hub" / "client.py").read_text()

    (tmp_path / "snaps" / "legacy.json").write_text("{", encoding="utf-8")  # there, but broken: still an error
    broken = run_cli("sync", "weather")
    assert broken.exit_code == 2
    assert "error: hub: kept as it was, not built without 'legacy'" in broken.stderr


def test_generate_of_one_server_succeeds_while_others_have_no_snapshot_yet(
    run_cli, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """`generate NAME` says it as `sync NAME` does: the hub is built from what exists, with one warning
    naming the servers not snapshotted yet (it exited 2 with an error line for each), and --check
    passes; a broken snapshot is still an error."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path)
    assert run_cli("sync", "weather").exit_code == 0

    for args in (("generate", "weather"), ("generate", "--check", "weather")):
        result = run_cli(*args)
        assert result.exit_code == 0, result.stderr
        assert "error:" not in result.stderr
        assert (
            "warning: hub: built without 'legacy', which has no snapshot yet; run `mcp-stubgen sync legacy` to add it"
            in result.stderr.splitlines()
        )

    (tmp_path / "snaps" / "legacy.json").write_text("{", encoding="utf-8")
    assert run_cli("generate", "weather").exit_code == 2


def test_ctrl_c_after_a_server_was_published_says_what_was_published(tmp_path: Path) -> None:
    two_servers(tmp_path, "--mode hang")
    process = subprocess.Popen(
        [PY, "-m", "codegen.cli", "sync"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    stderr = interrupt_after_line(process, "weather: generated")
    assert process.returncode == 130, stderr
    assert "weather: generated clients/weather (9 file(s) written, 0 removed)\n" in stderr
    assert (
        "published before the interrupt: weather (snapshot and package each); "
        "the hub was not regenerated (run `mcp-stubgen generate`)\n"
    ) in stderr
    assert "Traceback" not in stderr


def test_a_start_up_failure_shows_its_first_error_line(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode usage-after-error", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    assert "its first error line: Error: unable to create kubernetes target provider: no current-context; " in (
        result.stderr
    )
    assert "its last stderr lines: --flag-15 string   what flag 15 does | " in result.stderr


def test_a_start_up_failure_shows_the_error_node_threw(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Node prints an uncaught error's source line (`const err = new Error(message);`) before the
    error itself, and the first line that looked like an error was that source line: @azure-devops/mcp
    2.10.0 without its native keytar said only `its first error line: const err = new Error(message);`."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode node-uncaught", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    # its stack frames and properties are left out, so the error is among the last lines
    assert "| Error: Cannot find module '../build/Release/keytar.node' | Require stack: |" in result.stderr
    assert "new Error(message)" not in result.stderr and "MODULE_NOT_FOUND" not in result.stderr


def test_an_error_whose_message_starts_on_the_next_line_is_the_first_error_line(
    run_cli, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Node prints `Error: ` alone when an error's message begins with a line break (sharp's "Something
    went wrong installing" help), and agentdb 1.6.1 without sharp's binary was reported with its
    warning `Transformers.js initialization failed:` as the first error line instead."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode node-message-next-line", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    # its stack frames are left out, so the error is among the last lines
    assert 'lines: Error: Something went wrong installing the "sharp" module | Cannot find module' in result.stderr
    assert "Transformers.js" not in result.stderr


def test_a_fatal_json_log_line_is_the_first_error_over_a_launchers_throw(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """slack-mcp-server 1.3.0's Go binary logs why it gives up as a JSON line at level fatal, then its
    Node wrapper throws `Error: Command failed: <the binary's path>`, which was shown as the first
    error line: the cause, its tokens refused, was only in a stack-trace-long line the cut left out."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode wrapper-fatal-log", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    assert (
        "its first error line: Authentication failed - check your Slack tokens: "
        'Post "https://slack.com/api/auth.test": dial tcp: lookup slack.com: network is unreachable; '
    ) in result.stderr
    assert "Command failed" not in result.stderr.split("; its last stderr lines:")[0]


def test_a_fatal_json_log_line_among_the_last_lines_is_shown_once_by_its_message(
    run_cli, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """slack-mcp-server 1.3.0's Go binary, run with no token, logs one JSON line at level fatal and
    exits: the error named its message as the first error line, then repeated the whole JSON line,
    a Go stack trace with escaped line breaks, as its last stderr lines (found in the twenty-second
    round)."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode fatal-log", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    assert result.stderr.count("Authentication required") == 1, result.stderr
    assert "its first error line: Authentication required: Either SLACK_MCP_XOXP_TOKEN" in result.stderr
    assert "stacktrace" not in result.stderr and "its last stderr lines" not in result.stderr


def test_a_python_traceback_is_not_taken_for_its_first_error_line(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A Python server that dies at start-up prints `Traceback (most recent call last):` first and its
    error last: mcp-tool-builder 0.1.0 under mcp 2.x was reported with `its first error line:
    Traceback (most recent call last):`, a line that names no error, before the one that did."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode python-traceback", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    assert "Traceback" not in result.stderr
    assert "its first error line" not in result.stderr
    assert result.stderr.rstrip().endswith("AttributeError: 'Server' object has no attribute 'list_tools'")


def test_a_rich_log_record_is_read_as_one_line(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """rich's `RichHandler` (FastMCP's and many Python servers' logging) wraps each message into a
    column of a table 80 characters wide: jupyter-mcp-server 2.2.4 with no Jupyter to reach was
    reported with `its first error line: failed for`, a row of its warning (the twenty-third round)."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode rich-log", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    assert "its first error line" not in result.stderr
    assert (
        "its last stderr lines: WARNING  Anonymous XSRF cookie fetch failed for http://localhost:8888, continuing "
        "without it: HTTPConnectionPool(host='localhost', port=8888): Max retries exceeded with url: /login | "
        "INFO     Server mode initialized: ServerMode.MCP_SERVER | INFO     Shutting down | "
    ) in result.stderr
    assert "server_context.py" not in result.stderr
    assert result.stderr.rstrip().endswith("| [02:59:40.002] INFO (81): proxy stopped on 127.0.0.1:8080")


def test_a_python_exception_groups_frame_is_not_taken_for_its_lines(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A Python server whose start fails inside a TaskGroup (every mcp SDK server's lifespan) prints an
    exception group: semgrep-mcp 0.9.0 without semgrep was reported with `its first error line: +
    Exception Group Traceback (most recent call last):` and last lines ending in the group's `+---`
    rule, and the `| `-framed error that says why was not read as one (found in the sixteenth round)."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode python-exception-group", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    assert "its first error line" not in result.stderr
    assert "Exception Group Traceback" not in result.stderr and "+--" not in result.stderr
    assert result.stderr.rstrip().endswith(
        "raise McpError( | mcp.shared.exceptions.McpError: Semgrep is not installed or not in your PATH."
    )


def test_a_warning_before_a_traceback_is_not_taken_for_its_first_error_line(
    run_cli, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """FastMCP 3.4 warns about a tool name ("contains invalid characters") before a decorator's
    traceback, and that warning was shown as `its first error line`, ahead of the error that stopped
    the server, which the last lines already show."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode warning-then-traceback", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    assert "its first error line" not in result.stderr
    assert result.stderr.rstrip().endswith("ValueError: Functions with **kwargs are not supported as tools")


def test_a_start_up_failure_shows_the_servers_lines_without_their_colour_codes(
    run_cli, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """@stripe/mcp 0.3.3 colours its complaints with chalk, and the line quoted them as
    `\\x1b[31mHTTP transport error:\\x1b[39m TypeError: fetch failed`."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode coloured-exit", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    assert (
        "its last stderr lines: The --tools flag has been removed. | HTTP transport error: TypeError: fetch failed"
        in (result.stderr)
    )
    assert "its stdout lines that are not JSON-RPC: Stripe MCP docs;" in result.stderr
    assert "x1b" not in result.stderr and "\x1b" not in result.stderr


def test_a_start_up_failure_shows_whole_lines_of_what_the_server_said(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """@salesforce/mcp's last lines on Node 20 were over 600 characters, a long deprecation warning
    first, and the line began inside that warning's first word (`P0151] DeprecationWarning: ...`): the
    lines that fit are shown whole, the error last."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, "--mode deprecation-exit", hub=False)

    result = run_cli("snapshot", "legacy")

    assert result.exit_code == 2
    assert result.stderr.rstrip("\n").endswith(
        "its last stderr lines: "
        'Automatic extension resolution of the "main" field is deprecated for ES modules. | '
        "(Use `node --trace-deprecation ...` to show where the warning was created) | "
        "TypeError: Cannot read properties of undefined (reading 'bind')"
    ), result.stderr


def test_an_ad_hoc_command_that_is_missing_does_not_mention_a_config(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))

    result = run_cli("snapshot", "--name", "time", "--", "uvx", "mcp-server-time")

    assert result.exit_code == 2
    assert result.stderr == (
        "error: server 'time': command 'uvx' not found; install it, or give the program's full path\n"
    )


def test_a_misspelt_command_names_the_closest_one(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("snapshto")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "Error: No such command 'snapshto'. Did you mean 'snapshot'?"


def test_verbose_works_after_the_command_as_quiet_does(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`-v` after the command turns on debug records, as it does before the command."""
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, hub=False)
    for args in (["-v", "snapshot", "weather"], ["snapshot", "weather", "-v"], ["snapshot", "-q", "-v", "weather"]):
        result = subprocess.run(
            [PY, "-m", "codegen.cli", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        assert result.returncode == 0, result.stderr
        assert "asyncio: Using selector" in result.stderr, (args, result.stderr)


def test_without_a_usable_config_the_error_says_what_was_found(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    outside = run_cli("sync")  # no pyproject.toml here or above (tmp_path has none either)
    assert outside.exit_code == 2
    assert outside.stderr == (
        "error: no pyproject.toml in the working directory or any folder above it; create one "
        "(see docs/configuration.md) or pass --config FILE, and set `output` under [tool.mcp-stubgen] to sync\n"
    )

    (project / "pyproject.toml").write_text('[tool.mcp_stubgen]\noutput = "clients"\n')
    misspelt = run_cli("sync")
    assert misspelt.exit_code == 2
    assert misspelt.stderr == (
        "error: pyproject.toml: found [tool.mcp_stubgen], but the table is [tool.mcp-stubgen]; rename it\n"
    )

    (project / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    no_table = run_cli("list")
    assert no_table.exit_code == 2
    assert no_table.stderr == (
        "error: pyproject.toml: no [tool.mcp-stubgen] table; add one and configure servers under "
        "[tool.mcp-stubgen.servers]\n"
    )

    (project / "pyproject.toml").unlink()
    (project / "pyproject.toml").mkdir()
    folder = run_cli("generate", "--format", "json")
    assert folder.exit_code == 2
    message = (
        "pyproject.toml is a folder, but [tool.mcp-stubgen] is read from a pyproject.toml file; "
        "rename the folder, or pass --config FILE"
    )
    assert folder.stderr == f"error: {message}\n"
    assert json.loads(folder.stdout)["error"] == message


def test_the_quick_start_names_every_folder_sync_writes() -> None:
    """The README's quick start says what `mcp-stubgen sync` does with this repository's own config."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start\n", 1)[1].split("\n## ", 1)[0]
    config = load_config(REPO / "pyproject.toml")
    assert config.output is not None
    output = config.output.relative_to(REPO).as_posix()
    written = {f"{output}/{package_name(server)}/" for server in config.servers} | (
        {f"{output}/hub/"} if config.hub else set()
    )
    named = set(re.findall(rf"`({re.escape(output)}/\w+/)`", " ".join(quick_start.split())))
    assert named == written
    assert {f"`{config.servers[server].args[0]}`" for server in config.servers} <= set(
        re.findall(r"`[^`]+`", quick_start)
    )


def test_the_generate_snippet_runs_the_way_the_readme_says(tmp_path: Path) -> None:
    """The README says where its Generate snippet runs; run it exactly so, beside freshly generated clients."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    tour = readme.split("### Generate\n", 1)[1].split("\n### ", 1)[0]
    (instruction,) = re.findall(r"\(`(cd examples && [^`]+)`", " ".join(tour.split()))
    snippet = re.search(r"```python\n(.*?)```", tour, re.DOTALL)
    assert snippet is not None
    examples = tmp_path / "examples"
    shutil.copytree(REPO / "examples", examples, ignore=shutil.ignore_patterns("clients", "snapshots"))
    for package in ("weather", "_mcp_runtime"):  # the package and its output folder's runtime
        shutil.copytree(GOLDEN / "clients" / package, examples / "clients" / package)
    script = snippet.group(1).replace("\n", "\n    ")
    (examples / "your_script.py").write_text(
        f"import asyncio\n\n\nasync def main() -> None:\n    {script}\n    print(forecast.city)\n\nasyncio.run(main())\n"
    )
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(instruction, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Oslo\n"


def test_error_lines_show_paths_relative_to_the_working_directory(run_cli, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    two_servers(tmp_path, hub=False)
    missing = "snaps/{}.json: no such snapshot; run `mcp-stubgen snapshot` first"

    drift = run_cli("drift", "weather")
    assert drift.exit_code == 2
    assert drift.stderr.splitlines()[0] == f"error: {missing.format('weather')}"

    listed = run_cli("generate", "legacy", "--format", "json")
    assert listed.exit_code == 2
    assert listed.stderr == f"error: {missing.format('legacy')}\n"
    assert json.loads(listed.stdout)["error"] == missing.format("legacy")
    assert str(tmp_path) not in listed.stdout + drift.stderr
