"""A rename stated in `[tool.mcp-stubgen.renames.<server>]` keeps the old method name in the
regenerated client as a deprecated alias: mypy flags its callers, it still calls the new tool at run
time (with a DeprecationWarning), and it goes away with the entry."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from tests.conftest import EXAMPLE_SERVER, PYTHON, forget_generated, import_generated, write_config
from tests.regen_goldens import GOLDEN

PY = PYTHON
RENAMES = """
[tool.mcp-stubgen.renames.weather]
forecast = "get_forecast"
"old\\"name\\n" = "send_alert"
read_stations = "search"
"""
"""`forecast` and a hostile old name become aliases; `read_stations` is a resource's method, so no alias."""


def project(folder: Path, renames: str) -> Path:
    write_config(
        folder,
        '[tool.mcp-stubgen]\nsnapshots = "snaps"\noutput = "clients"\n\n'
        f"[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(EXAMPLE_SERVER))}]\n"
        + renames,
    )
    (folder / "snaps").mkdir(exist_ok=True)
    shutil.copy(GOLDEN / "weather" / "snapshot.json", folder / "snaps" / "weather.json")
    return folder


@pytest.fixture
def generated(tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(project(tmp_path, RENAMES))
    result = run_cli("generate")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith(
        "warning: server 'weather': renames: the old name 'read_stations' of tool 'search' would be the method "
        "'read_stations', which another member has; no alias is kept for it\n"
    )
    return tmp_path


@pytest.fixture
def weather_package(generated: Path) -> Iterator[Any]:
    try:
        yield import_generated(generated / "clients", "weather")
    finally:
        forget_generated(generated / "clients")


@pytest.mark.generated_mypy
def test_mypy_flags_a_caller_of_the_alias_and_not_of_the_new_name(generated: Path) -> None:
    # The error code is enabled in the file, not with `--enable-error-code`: a command-line option
    # invalidates the worker's shared mypy cache (pydantic, mcp) for this run and the next one.
    (generated / "caller.py").write_text(
        '# mypy: enable-error-code="deprecated"\n'
        "from clients.weather import WeatherClient, GetForecastOutput\n\n\n"
        "async def old(client: WeatherClient) -> GetForecastOutput:\n"
        '    return await client.forecast(city="Oslo")\n\n\n'
        "async def new(client: WeatherClient) -> GetForecastOutput:\n"
        '    return await client.get_forecast(city="Oslo")\n\n\n'
        "async def hostile(client: WeatherClient) -> str:\n"
        '    return await client.old_name(message="storm")\n',
        encoding="utf-8",
    )
    result = subprocess.run(
        [PY, "-m", "mypy", "--strict", "--config-file", "/dev/null", "caller.py"],
        capture_output=True,
        text=True,
        cwd=generated,
        env={"MYPYPATH": str(generated), "PATH": "/usr/bin:/bin", "MYPY_CACHE_DIR": os.environ["MYPY_CACHE_DIR"]},
        timeout=300,
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert errors == [
        "caller.py:6: error: function clients.weather.client.WeatherClient.forecast is deprecated: The server renamed the tool "
        "'forecast' to 'get_forecast'; call get_forecast() instead.  [deprecated]",
        "caller.py:14: error: function clients.weather.client.WeatherClient.old_name is deprecated: The server renamed the "
        "tool 'old\"name\\n' to 'send_alert'; call send_alert() instead.  [deprecated]",
    ], result.stdout


async def test_the_alias_calls_the_new_tool_with_a_deprecation_warning(weather_package: Any) -> None:
    server = StdioServerParameters(command=PY, args=[str(EXAMPLE_SERVER)])
    async with weather_package.WeatherClient.connect(server) as weather:
        with pytest.warns(DeprecationWarning, match=r"renamed the tool 'forecast' to 'get_forecast'"):
            forecast = await weather.forecast(city="Oslo", units="imperial")
        assert forecast == await weather.get_forecast(city="Oslo", units="imperial")
        with pytest.warns(DeprecationWarning):
            assert await weather.old_name(message="storm") == "alert sent (1): storm"
    assert not hasattr(weather_package.WeatherClient, "read_stations_")


def test_the_alias_lives_until_the_entry_is_removed(generated: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    client = generated / "clients" / "weather" / "client.py"
    assert "    async def forecast(\n" in client.read_text()
    view = run_cli("inspect", "weather").stdout
    assert '  forecast  (old tool "forecast") -> calls get_forecast\n' in view
    assert '  old_name  (old tool "old\\"name\\n") -> calls send_alert\n' in view
    assert run_cli("generate", "--check").exit_code == 0
    project(generated, "")
    stale = run_cli("generate", "--check")  # the package proven for the old entries is not proven now
    assert stale.exit_code == 1 and "-    async def forecast(\n" in stale.stdout
    assert run_cli("generate").exit_code == 0
    assert "forecast(" not in client.read_text().replace("get_forecast(", "")
    assert "typing_extensions" not in client.read_text()
