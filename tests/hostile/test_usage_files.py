"""`drift --usage` reads only what can be source code (issue 22): a `.py` name on a link to
`/dev/zero`, on a FIFO or on a file past the size cap is skipped and named, never read until memory
runs out or waited on forever, and the rest of the project is still scanned."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.drift.usage import MAX_SOURCE_BYTES
from codegen.snapshot import load_snapshot, parse_snapshot, write_snapshot
from tests.conftest import REPO, write_config

WEATHER = REPO / "golden" / "weather" / "snapshot.json"


def at_most_two_gigabytes() -> None:
    """The child's address space is capped, so a scan that reads without end fails instead of
    exhausting the machine's memory."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def plant(app: Path, kind: str) -> str:
    """A `.py` name in `app` on something that is not a source file to read; what skipping it says."""
    if kind == "link-to-dev-zero":
        (app / "zero.py").symlink_to("/dev/zero")
        return "--usage: skipped app/zero.py: not a regular file"
    if kind == "fifo":
        os.mkfifo(app / "pipe.py")
        return "--usage: skipped app/pipe.py: not a regular file"
    if kind == "fifo-named-to-break-lines":  # its name on a line of its own would be a workflow command
        os.mkfifo(app / "pipe\n::error::forged.py")
        return "--usage: skipped app/pipe\\n::error::forged.py: not a regular file"
    (app / "huge.py").write_text("#" * MAX_SOURCE_BYTES + "\n", encoding="utf-8")  # valid Python, one byte too many
    return f"--usage: skipped app/huge.py: larger than {MAX_SOURCE_BYTES:,} bytes"


@pytest.mark.skipif(not Path("/dev/zero").exists() or not hasattr(os, "mkfifo"), reason="needs /dev/zero and FIFOs")
@pytest.mark.parametrize("kind", ["link-to-dev-zero", "fifo", "fifo-named-to-break-lines", "past-the-size-cap"])
def test_usage_skips_and_names_what_is_not_a_regular_source_file(kind: str, tmp_path: Path) -> None:
    write_config(
        tmp_path, '[tool.mcp-stubgen]\noutput = "clients"\n[tool.mcp-stubgen.servers.weather]\ncommand = "x"\n'
    )
    write_snapshot(tmp_path / "old.json", load_snapshot(WEATHER))
    document: dict[str, Any] = json.loads(WEATHER.read_text(encoding="utf-8"))
    document["tools"] = [entry for entry in document["tools"] if entry["name"] != "send_alert"]
    write_snapshot(tmp_path / "new.json", parse_snapshot(json.dumps(document), "new.json"))
    app = tmp_path / "app"
    app.mkdir()
    (app / "alerts.py").write_text(
        "from clients.weather import WeatherClient\n\n\nasync def page(client: WeatherClient) -> None:\n"
        '    await client.send_alert(message="down")\n',
        encoding="utf-8",
    )
    skipped = plant(app, kind)

    result = subprocess.run(
        [sys.executable, "-m", "codegen.cli", "drift", "old.json", "new.json", "--usage", "app"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=at_most_two_gigabytes,
    )

    assert result.returncode == 1, result.stderr  # the breaking change is used in app/alerts.py
    assert "app/alerts.py:5" in result.stdout, result.stdout
    assert skipped in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not any(line.startswith("::") for line in result.stderr.splitlines())
