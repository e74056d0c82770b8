"""`drift --usage PATH...` on a sample project: calls through the generated client and `hub.call`
names decide whether a breaking change fails the gate."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from codegen.snapshot import load_snapshot, parse_snapshot, write_snapshot
from tests.conftest import REPO, write_config

WEATHER = REPO / "golden" / "weather" / "snapshot.json"
CONFIG = """
[tool.mcp-stubgen]
output = "clients"
hub = true

[tool.mcp-stubgen.servers.weather]
command = "/nonexistent/server"
"""
SOURCES = {
    "app/forecasts.py": """
        from clients.weather import WeatherClient


        async def tomorrow(client: WeatherClient) -> object:
            return await client.get_forecast(city="Oslo", days=1)
    """,
    "app/agent.py": """
        from clients.hub import Hub


        async def look_up(hub: Hub) -> object:
            await hub.weather.read_stations()
            return await hub.call("weather__search", {"query": "os"})
    """,
    "app/unrelated.py": """
        class Pager:
            def send_alert(self) -> None: ...


        Pager().send_alert()  # this file imports no generated package: not a use
    """,
    # the generated packages themselves are not the project's code
    "clients/weather/__init__.py": """
        from .client import WeatherClient

        SEND = WeatherClient.send_alert
    """,
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_config(tmp_path, CONFIG)
    for name, text in SOURCES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    write_snapshot(tmp_path / "old.json", load_snapshot(WEATHER))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def without(project: Path, *tools: str, resources: tuple[str, ...] = ()) -> str:
    document: dict[str, Any] = json.loads(WEATHER.read_text(encoding="utf-8"))
    document["tools"] = [entry for entry in document["tools"] if entry["name"] not in tools]
    document["resources"] = [entry for entry in document["resources"] if entry["uri"] not in resources]
    write_snapshot(project / "new.json", parse_snapshot(json.dumps(document), "new.json"))
    return "new.json"


def test_a_breaking_change_nothing_uses_is_reported_but_does_not_fail(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    new = without(project, "send_alert")
    assert run_cli("drift", "old.json", new).exit_code == 1  # without --usage the gate cannot know
    result = run_cli("drift", "old.json", new, "--usage", "app", "--usage", "clients")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "tool-removed  weather: tool send_alert" in result.stdout
    assert "unused: no scanned source uses it; not counted by --fail-on" in result.stdout

    report = json.loads(run_cli("drift", "old.json", new, "--usage", "app", "--format", "json").stdout)
    assert [(finding["rule"], finding["callers"]) for finding in report["findings"]] == [("tool-removed", [])]


def test_a_breaking_change_to_a_called_method_fails_and_names_the_call(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    new = without(project, "get_forecast", "send_alert")
    result = run_cli("drift", "old.json", new, "--usage", "app")
    assert result.exit_code == 1
    assert (
        "tool-removed  weather: tool get_forecast\n      tool 'get_forecast' was removed\n      used at app/forecasts.py:5\n"
        in result.stdout
    )


def test_hub_call_names_and_hub_attributes_are_uses(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("drift", "old.json", without(project, "search"), "--usage", "app", "--format", "json")
    assert result.exit_code == 1
    (finding,) = json.loads(result.stdout)["findings"]
    assert (finding["name"], finding["callers"]) == ("search", [{"path": "app/agent.py", "line": 6}])

    resource = run_cli("drift", "old.json", without(project, resources=("weather://stations",)), "--usage", "app")
    assert resource.exit_code == 1
    assert "used at app/agent.py:5" in resource.stdout


def test_names_held_in_constants_and_methods_picked_by_getattr_are_uses(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    """A hub tool's name kept in a constant and a method picked with `getattr` reach the tool as a
    literal call does; both were "unused", so removing the tool passed the gate."""
    (project / "app" / "routes.py").write_text(
        textwrap.dedent(
            """
            from clients.hub import Hub

            ALERT = "weather__send_alert"


            async def alert(hub: Hub) -> object:
                return await hub.call(ALERT, {"message": "hot"})
            """
        ).lstrip(),
        encoding="utf-8",
    )
    (project / "app" / "dispatch.py").write_text(
        textwrap.dedent(
            """
            from clients.weather import WeatherClient


            def pick(client: WeatherClient, name: str = "celsius_to_fahrenheit") -> object:
                return getattr(client, "celsius_to_fahrenheit")
            """
        ).lstrip(),
        encoding="utf-8",
    )
    result = run_cli(
        "drift",
        "old.json",
        without(project, "send_alert", "celsius_to_fahrenheit"),
        "--usage",
        "app",
        "--format",
        "json",
    )
    assert result.exit_code == 1, result.stdout + result.stderr
    callers = {finding["name"]: finding["callers"] for finding in json.loads(result.stdout)["findings"]}
    assert callers == {
        "send_alert": [{"path": "app/routes.py", "line": 3}],
        "celsius_to_fahrenheit": [{"path": "app/dispatch.py", "line": 5}],  # the default string is not a use
    }


def test_sarif_also_points_at_the_breaking_call_sites(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(
        "drift", "old.json", without(project, "get_forecast", "send_alert"), "--usage", "app", "--format", "sarif"
    )
    results = json.loads(result.stdout)["runs"][0]["results"]
    located = sorted(
        (entry["level"], entry["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], entry["message"]["text"])
        for entry in results
    )
    assert [(level, uri) for level, uri, _ in located] == [
        ("error", "app/forecasts.py"),  # the call that breaks
        ("error", "old.json"),  # get_forecast, where the old snapshot (the only one holding it) lists it
        ("warning", "old.json"),  # send_alert, used nowhere: not an error
    ]
    call = next(
        entry
        for entry in results
        if entry["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "app/forecasts.py"
    )
    assert call["locations"][0]["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 18}
    assert call["message"]["text"].startswith(
        "uses weather: tool get_forecast, which changed: tool 'get_forecast' was removed"
    )


def test_renamed_methods_from_the_config_are_followed(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    write_config(project, CONFIG + '\n[tool.mcp-stubgen.method_names.weather]\nsend_alert = "page_someone"\n')
    (project / "app" / "pager.py").write_text(
        "from clients import weather\n\nweather.WeatherClient.page_someone\n", encoding="utf-8"
    )
    result = run_cli("drift", "old.json", without(project, "send_alert"), "--usage", "app")
    assert result.exit_code == 1
    assert "used at app/pager.py:3" in result.stdout


def test_a_source_that_does_not_parse_is_one_clear_error(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "app" / "broken.py").write_text("def (:\n", encoding="utf-8")
    result = run_cli("drift", "old.json", without(project, "send_alert"), "--usage", "app")
    assert result.exit_code == 2
    assert (
        result.stderr
        == "error: --usage: app/broken.py:1 is not valid Python (invalid syntax); fix it or leave it out\n"
    )
    missing = run_cli("drift", "old.json", "new.json", "--usage", "nowhere")
    assert missing.exit_code == 2 and "'nowhere' does not exist" in missing.stderr


def test_a_type_checking_import_is_enough(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "app" / "alerts.py").write_text(
        textwrap.dedent(
            """
            from typing import TYPE_CHECKING

            if TYPE_CHECKING:
                from clients.weather import WeatherClient


            async def page(client: "WeatherClient") -> None:
                await client.send_alert(message="hot")
            """
        ).lstrip(),
        encoding="utf-8",
    )
    result = run_cli("drift", "old.json", without(project, "send_alert"), "--usage", "app")
    assert result.exit_code == 1
    assert "used at app/alerts.py:8" in result.stdout
