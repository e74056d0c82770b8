"""What a new user met in their first week (issue 28): names, messages, partial failures."""

from __future__ import annotations

import json
from pathlib import Path

from codegen.identifiers import hub_attribute, package_name
from tests.conftest import write_config
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
