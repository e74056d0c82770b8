"""`mcp-stubgen inspect` and `mcp-stubgen list`: what a user reads about a catalog and a project,
from golden snapshots and from the example server's own snapshot."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

from codegen.fsutil import what_to_check
from tests.conftest import EXAMPLE_SERVER, PYTHON, REPO, write_config
from tests.regen_goldens import GOLDEN

PY = PYTHON

WEATHER_VIEW = """\
weather  (snapshot.json)
  server weather 1.0.0, protocol 2026-07-28; client WeatherClient in package weather
  instructions: Forecasts for any city, in either unit.

tools (4)
  celsius_to_fahrenheit -> float  [destructive] [open-world]
      Convert a temperature from Celsius to Fahrenheit.
      celsius: float  required
      extra: more arguments by wire name, as the schema allows
  get_forecast -> GetForecastOutput  [destructive] [open-world]
      Get the forecast for a city.
      city: str  required
      days: int  default 1
      units: Literal["metric", "imperial"]  default "metric"
      extra: more arguments by wire name, as the schema allows
  search -> list[str]  [destructive] [open-world]
      Find the cities with a forecast whose name contains the query.
      query: str  required
      extra: more arguments by wire name, as the schema allows
  send_alert -> str  [destructive] [open-world]
      Raise an alert; fails for an empty message.
      message: str  required
      severity: int  default 1
      extra: more arguments by wire name, as the schema allows

resources (1)
  read_stations  weather://stations  application/json
      All weather stations.

templates (1)
  read_latest_reading  weather://stations/{station_id}/latest  text/plain
      The latest reading of one station.
      station_id: str  required

prompts (1)
  prompt_packing_list  (prompt "packing_list")
      Ask for a packing list for a trip.
      city: str  required
      days: str
"""


def test_inspect_a_snapshot_file(run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(GOLDEN / "weather")
    result = run_cli("inspect", "snapshot.json")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == WEATHER_VIEW


def test_inspect_shows_wire_names_badges_and_escapes_server_text(run_cli) -> None:  # type: ignore[no-untyped-def]
    catalog = run_cli("inspect", GOLDEN / "catalog" / "snapshot.json").stdout
    assert '  api_get_user  (tool "API-get-user") -> ToolResult  [destructive] [open-world]\n' in catalog
    assert '      per_page: int  default 20  (wire "perPage")\n' in catalog
    assert '      from_: str  required  (wire "from")\n' in catalog
    # The description holds a carriage return and U+2028: both shown escaped, on the one line.
    assert "\\r and \\u2028 line." in catalog
    assert all(line.isprintable() for line in catalog.splitlines())
    everything = run_cli("inspect", GOLDEN / "everything" / "snapshot.json").stdout
    assert "  echo -> ToolResult  [read-only] [idempotent]\n      title: Echo Tool\n" in everything
    instructions = next(line for line in everything.splitlines() if line.startswith("  instructions: "))
    assert instructions.endswith("…") and len(instructions) < 200  # long text is cut; JSON has it whole


def test_inspect_leaves_out_an_empty_server_version(run_cli) -> None:  # type: ignore[no-untyped-def]
    """markitdown-mcp and awslabs.aws-documentation-mcp-server send `"version": ""`: the heading said
    `server markitdown , protocol ...`."""
    shown = run_cli("inspect", REPO / "tests" / "fixtures" / "catalogs" / "more" / "awsdocs.json").stdout
    assert "  server awslabs.aws-documentation-mcp-server, protocol 2026-07-28; " in shown


def test_inspect_shows_server_text_as_the_docstrings_do(run_cli) -> None:  # type: ignore[no-untyped-def]
    """awslabs.aws-documentation-mcp-server's instructions and descriptions (and nx-mcp 0.25.0's
    instructions) start with a line break and are indented like Python source: `inspect` showed
    `instructions: \\n    # AWS Documentation MCP Server\\n\\n    This server ...`."""
    shown = run_cli("inspect", REPO / "tests" / "fixtures" / "catalogs" / "more" / "awsdocs.json").stdout
    assert "  instructions: # AWS Documentation MCP Server\\n\\nThis server provides tools" in shown
    assert "      Fetch and convert an AWS documentation page to markdown format.\\n\\n## Usage\\n\\nThis tool" in shown


def test_inspect_json_has_every_field_whole(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("inspect", GOLDEN / "everything" / "snapshot.json", "--format", "json")
    [view] = [json.loads(line) for line in result.stdout.splitlines()]
    snapshot = json.loads((GOLDEN / "everything" / "snapshot.json").read_text())
    assert (view["format"], view["command"], view["server"], view["status"]) == (1, "inspect", "everything", "ok")
    assert view["instructions"] == snapshot["instructions"]
    tools = {tool["name"]: tool for tool in view["tools"]}
    assert set(tools) == {tool["name"] for tool in snapshot["tools"]}
    message = tools["get-annotated-message"]
    assert message["method"] == "get_annotated_message" and message["badges"] == ["read-only", "idempotent"]
    first = message["parameters"][0]
    assert (first["python"], first["wire"], first["required"]) == ("message_type", "messageType", True)
    assert tools["get-structured-content"]["returns"] == "GetStructuredContentOutput"
    assert len(view["resources"]) == len(snapshot["resources"])
    assert len(view["templates"]) == len(snapshot["resourceTemplates"])
    assert len(view["prompts"]) == len(snapshot["prompts"])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli) -> Path:  # type: ignore[no-untyped-def]
    """The example weather server snapshotted live, and `notes`, configured but never snapshotted."""
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n'
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(EXAMPLE_SERVER))}]\n\n"
        '[tool.mcp-stubgen.servers.notes]\ncommand = "notes-server"\n\n'
        '[tool.mcp-stubgen.method_names.weather]\nsearch = "find_city"\n',
    )
    monkeypatch.chdir(tmp_path)
    assert run_cli("snapshot", "weather").exit_code == 0
    return tmp_path


def test_inspect_a_configured_server_uses_its_method_names(project: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("inspect", "weather")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("weather  (snaps/weather.json)\n")
    assert '  find_city  (tool "search") -> list[str]  [destructive] [open-world]\n' in result.stdout
    missing = run_cli("inspect")  # every configured server: notes has no snapshot
    assert missing.exit_code == 2
    assert "weather  (snaps/weather.json)" in missing.stdout
    assert "error: " in missing.stderr and "snaps/notes.json: no such snapshot" in missing.stderr
    unknown = run_cli("inspect", "nowhere")
    assert (unknown.exit_code, unknown.stderr) == (2, "error: unknown server 'nowhere' (configured: notes, weather)\n")


def test_list_shows_missing_current_and_stale(project: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    before = run_cli("list")
    assert before.exit_code == 0, before.stderr
    assert before.stdout == (
        "notes: snapshot snaps/notes.json missing; package clients/notes missing\n"
        "weather: snapshot snaps/weather.json (4 tools, 1 resource, 1 template, 1 prompt; protocol 2026-07-28); "
        "package clients/weather missing\n"
    )
    assert run_cli("generate", "weather").exit_code == 0
    current = [json.loads(line) for line in run_cli("list", "--format", "json").stdout.splitlines()]
    assert current[1] == {
        "format": 1,
        "command": "list",
        "server": "weather",
        "status": "ok",
        "snapshot": "snaps/weather.json",
        "snapshot_state": "present",
        "counts": {"tools": 4, "resources": 1, "templates": 1, "prompts": 1},
        "package": "clients/weather",
        "package_state": "current",
    }
    client = project / "clients" / "weather" / "client.py"
    client.write_text(client.read_text() + "# edited\n")
    assert "package clients/weather stale" in run_cli("list").stdout
    shutil.rmtree(project / "clients" / "weather")
    (project / "snaps" / "weather.json").write_text("{not json")
    assert "weather: snapshot snaps/weather.json invalid; package clients/weather missing" in run_cli("list").stdout


def test_list_names_a_symbolic_link_loop_rather_than_calling_it_missing(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A snapshot file or a package folder that is a looping link exists (`generate` fails on it), but
    `Path.exists` and `is_dir` say False for it, so `list` called it missing."""
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n'
        '[tool.mcp-stubgen.servers.weather]\ncommand = "weather-server"\n\n'
        '[tool.mcp-stubgen.servers.notes]\ncommand = "notes-server"\n',
    )
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snaps").mkdir()
    (tmp_path / "clients").mkdir()
    shutil.copy(GOLDEN / "weather" / "snapshot.json", tmp_path / "snaps" / "weather.json")
    (tmp_path / "clients" / "weather").symlink_to("weather")
    (tmp_path / "snaps" / "notes.json").symlink_to("notes.json")
    (tmp_path / "clients" / "notes").symlink_to("notes")
    result = run_cli("list", "--format", "json")
    assert result.exit_code == 0, result.stderr
    notes, weather = (json.loads(line) for line in result.stdout.splitlines())
    loop = "Too many levels of symbolic links"
    assert (notes["snapshot_state"], notes["package_state"]) == ("invalid", "unchecked")
    assert notes["error"] == f"snaps/notes.json: cannot read snapshot ({loop})"
    assert (weather["snapshot_state"], weather["package_state"]) == ("present", "unchecked")
    assert (
        weather["error"]
        == f"clients/weather: cannot read the package folder ({loop}); {what_to_check(OSError(errno.ELOOP, loop))}"
    )
    assert "a symbolic link" in weather["error"]


def test_a_package_of_a_server_taken_out_of_the_config_is_named_not_kept_silently(project: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Removing (or renaming) a server left its package under `output`: `generate --check` passed
    and `list` showed nothing, so a package nothing regenerated or checked stayed in use unnoticed.
    It is kept (code may import it), named by `list` and in a note by `generate`, `--check` and `sync`."""
    assert run_cli("generate", "weather").exit_code == 0
    (project / "clients" / "helpers").mkdir()
    (project / "clients" / "helpers" / "client.py").write_text("# the project's own code, not generated\n")
    config = project / "pyproject.toml"
    config.write_text(
        config.read_text().replace("[tool.mcp-stubgen.servers.weather]", "[tool.mcp-stubgen.servers.forecast]")
    )
    listed = run_cli("list")
    assert listed.exit_code == 0, listed.stderr
    assert listed.stdout.splitlines()[-1] == (
        "weather: package clients/weather unconfigured (no configured server generates it)"
    )
    assert "helpers" not in listed.stdout
    note = (
        "note: clients/weather holds a generated package of no server in this config (removed, renamed, or "
        "another config's?); nothing here regenerates or checks it: delete it, and its snapshot, if that server "
        "is gone\n"
    )
    for command in (("generate",), ("generate", "--check"), ("sync",)):
        result = run_cli(*command)
        assert result.stderr.endswith(note), result.stderr
        assert "helpers" not in result.stderr
    assert (project / "clients" / "weather" / "client.py").is_file()
    assert note not in run_cli("generate", "notes").stderr  # a run over named servers does not judge the rest


def test_an_unchecked_hub_in_list_json_carries_the_reason(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """docs/cli.md: an `unchecked` state comes with `error`; the hub's line had none, so a script saw
    `unchecked` with no way to learn that the config's hub filters name a server it lacks."""
    config = write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\n\n'
        '[tool.mcp-stubgen.servers.weather]\ncommand = "unused"\n',
    )
    (tmp_path / "snaps").mkdir()
    shutil.copy(GOLDEN / "weather" / "snapshot.json", tmp_path / "snaps" / "weather.json")
    monkeypatch.chdir(tmp_path)
    assert run_cli("generate").exit_code == 0
    config.write_text(config.read_text() + '\n[tool.mcp-stubgen.hub_filters.wether]\nexclude = ["send_*"]\n')
    result = run_cli("list", "--format", "json")
    assert result.exit_code == 0, result.stderr
    hub = json.loads(result.stdout.splitlines()[-1])
    assert (hub["package_state"], hub["error"]) == (
        "unchecked",
        "hub: [tool.mcp-stubgen.hub_filters.wether] names no server of the hub; the servers are weather",
    )


def test_list_shows_the_code_mode_package_as_generate_check_proves_it(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With `code_mode = true`, `list` showed the hub's package but not the code-mode package beside
    it, so a stale `code_mode/` that `generate --check` fails on listed as nothing at all (found in
    the fifteenth round of real servers)."""
    write_config(
        tmp_path,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\nhub = true\ncode_mode = true\n\n'
        '[tool.mcp-stubgen.servers.weather]\ncommand = "unused"\n',
    )
    (tmp_path / "snaps").mkdir()
    shutil.copy(GOLDEN / "weather" / "snapshot.json", tmp_path / "snaps" / "weather.json")
    monkeypatch.chdir(tmp_path)
    assert run_cli("list").stdout.splitlines()[-1] == "code_mode: package clients/code_mode missing"
    assert run_cli("generate").exit_code == 0
    assert run_cli("list").stdout.splitlines()[-2:] == [
        "hub: package clients/hub current",
        "code_mode: package clients/code_mode current",
    ]
    stub = tmp_path / "clients" / "code_mode" / "weather.pyi"
    stub.write_text(stub.read_text() + "# edited\n")
    assert run_cli("generate", "--check").exit_code == 1
    stale = run_cli("list", "--format", "json")
    assert stale.exit_code == 0, stale.stderr
    assert json.loads(stale.stdout.splitlines()[-1]) == {
        "format": 1,
        "command": "list",
        "server": None,
        "status": "ok",
        "package": "clients/code_mode",
        "package_state": "stale",
    }
