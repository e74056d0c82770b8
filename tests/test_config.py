"""Configuration a user writes by hand, or copies from another MCP client, is read as they meant it:
a wrong type or a misspelt key is one clear error, and keys other clients write are understood or
set aside with a notice."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codegen.config import expand_secrets
from codegen.errors import StubgenError
from tests.conftest import EXAMPLE_SERVER, PYTHON, SERVERS, write_config

PY = PYTHON


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ") and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.mark.parametrize(
    ("body", "pattern"),
    [
        ('[tool.mcp-stubgen]\nhub = "no"\n', r"pyproject.toml: hub: expected true or false"),
        ("[tool.mcp-stubgen]\nservers_file = 1\n", r"servers_file: expected a string"),
        ("[tool.mcp-stubgen]\nmax_pages = 2.5\n", r"max_pages: expected a positive whole number"),
        ('[tool.mcp-stubgen]\nmethod_names = "x"\n', r"\[tool.mcp-stubgen.method_names\] must be a table"),
        (
            '[tool.mcp-stubgen]\nsnapshot = "snaps"\n',
            r"\[tool.mcp-stubgen\]: unknown key 'snapshot'; did you mean 'snapshots'\?",
        ),
        ("[tool.mcp-stubgen]\nhubb = true\n", r"unknown key 'hubb'; did you mean 'hub'\?"),
        ("[tool.mcp-stubgen]\nzzz = 1\n", r"unknown key 'zzz'; known keys: code_mode, connect_timeout, drift, hub, "),
        (
            '[tool.mcp-stubgen.servers.a]\ncomand = "x"\n',
            r"servers.a\]: unknown key 'comand'; did you mean 'command'\?",
        ),
        ('[tool.mcp-stubgen.servers.a]\nurl = "http://h"\ntype = ["http"]\n', r"servers.a\]: type: expected a string"),
        (
            '[tool.mcp-stubgen.servers.a]\ncommand = ["npx", "-y", "server"]\n',
            r"servers.a\]: command: expected a string, the program alone; its arguments go in `args`",
        ),
        (
            '[tool.mcp-stubgen.servers.a]\nurl = "ftp://h/mcp"\n',
            r"servers.a\]: url: expected an http:// or https:// URL, not ftp://",
        ),
        (
            '[tool.mcp-stubgen.servers.a]\nurl = "localhost:8000/mcp"\n',
            r"servers.a\]: url: the URL has no scheme; write it as http://\.\.\. or https://\.\.\.",
        ),
        ('[tool.mcp-stubgen.servers.a]\nurl = "http:///mcp"\n', r"servers.a\]: url: the URL names no host"),
        (
            '[tool.mcp-stubgen.servers.a]\ncommand = "x"\nclient_capabilities = ["sampling", "tools"]\n',
            r"servers.a\]: client_capabilities: unknown capability 'tools'; choose from elicitation, roots, sampling",
        ),
        (
            '[tool.mcp-stubgen.servers.a]\ncommand = "x"\nclient_capabilities = "sampling"\n',
            r"servers.a\]: client_capabilities: expected a list of strings",
        ),
        (
            '[tool.mcp-stubgen.servers.a]\ncommand = "x"\nparse_text_json = "yes"\n',
            r"servers.a\]: parse_text_json: expected true or false",
        ),
        (
            '[tool.mcp-stubgen.servers.a]\ncommand = "x"\nclient_capability = ["roots"]\n',
            r"servers.a\]: unknown key 'client_capability'; did you mean 'client_capabilities'\?",
        ),
        (  # HTTP header names ignore case: one of the two would be sent, or both, as the transport chose
            '[tool.mcp-stubgen.servers.a]\nurl = "http://h/mcp"\n'
            '[tool.mcp-stubgen.servers.a.headers]\nAuthorization = "Bearer a"\nX-Trace = "1"\nauthorization = "Bearer b"\n',
            r"^error: \S*pyproject.toml: \[tool.mcp-stubgen.servers.a\]: headers: 'Authorization' and 'authorization' "
            r"are one header \(HTTP header names ignore case\); keep one of them$",
        ),
    ],
)
def test_config_values_are_type_checked_and_keys_spelt_right(body: str, pattern: str, tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("generate", "--config", write_config(tmp_path, body))
    assert result.exit_code == 2
    assert re.search(pattern, one_error_line(result.stderr)), result.stderr
    assert not (tmp_path / "hub").exists()


ENV_SERVER = """
import os
from mcp.server.mcpserver import MCPServer

names = ("FROM_FILE", "FROM_ENV", "WITH_DEFAULT", "OVERRIDDEN")
server = MCPServer("env", instructions=" ".join(f"{name}={os.environ.get(name)}" for name in names))


@server.tool()
def ping() -> str:
    return "pong"


server.run()
"""


def test_servers_file_as_vs_code_and_other_clients_write_it(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A real stdio server started from a VS Code `.vscode/mcp.json`: `envFile` (with
    `${workspaceFolder}`), `${env:X}` and `${X:-default}` reach it; other clients' keys are set aside
    with a notice, and a disabled server is skipped."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONFIG_TEST_TOKEN", "from-the-shell")
    monkeypatch.delenv("CONFIG_TEST_UNSET", raising=False)
    (tmp_path / "env_server.py").write_text(ENV_SERVER, encoding="utf-8")
    (tmp_path / ".env").write_text(
        '# local settings\nexport FROM_FILE="file value"\nOVERRIDDEN=from-file\n\n', encoding="utf-8"
    )
    (tmp_path / ".vscode").mkdir()
    servers = {
        "env": {
            "type": "stdio",
            "command": PY,
            "args": [str(tmp_path / "env_server.py")],
            "envFile": "${workspaceFolder}/.env",
            "env": {
                "FROM_ENV": "${env:CONFIG_TEST_TOKEN}",
                "WITH_DEFAULT": "${CONFIG_TEST_UNSET:-fallback}",
                "OVERRIDDEN": "from-env",
            },
            "autoApprove": ["ping"],
            "alwaysAllow": ["ping"],
            "timeout": 60,
        },
        "weather": {"command": PY, "args": [str(EXAMPLE_SERVER)], "disabled": True},
    }
    (tmp_path / ".vscode" / "mcp.json").write_text(json.dumps({"servers": servers}), encoding="utf-8")
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\nservers_file = ".vscode/mcp.json"\n')
    result = run_cli("snapshot")
    assert result.exit_code == 0, result.stderr
    assert ".vscode/mcp.json: server 'env': ignoring alwaysAllow, autoApprove, timeout" in result.stderr
    # named as the user wrote it, as the pyproject.toml is (it was the file's absolute path)
    assert "note: .vscode/mcp.json: server 'weather' is disabled there; skipped" in result.stderr.splitlines()
    assert sorted(path.name for path in (tmp_path / "snaps").iterdir()) == ["env.json"]
    instructions = json.loads((tmp_path / "snaps" / "env.json").read_text())["instructions"]
    assert instructions == "FROM_FILE=file value FROM_ENV=from-the-shell WITH_DEFAULT=fallback OVERRIDDEN=from-env"


@pytest.mark.parametrize(
    ("server", "pattern"),
    [
        (
            {"command": "x", "env": {"TOKEN": "${input:api-token}"}},
            r"\.mcp\.json: server 'a': env uses \$\{input:api-token\}, a value VS Code prompts for, which "
            r"mcp-stubgen cannot ask; write \$\{env:NAME\} instead and export NAME",
        ),
        ({"command": PY, "envFile": "missing.env"}, r"server 'a': envFile .*missing\.env not found"),
        ({"command": "x", "disabled": "yes"}, r"server 'a': disabled: expected true or false"),
    ],
)
def test_servers_file_errors(server: dict[str, object], pattern: str, tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"a": server}}), encoding="utf-8")
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\nservers_file = ".mcp.json"\n')
    result = run_cli("snapshot")
    assert result.exit_code == 2
    assert re.search(pattern, one_error_line(result.stderr)), result.stderr


def test_a_variable_in_a_servers_files_args_is_named_as_passed_as_written(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Claude Code expands `${VAR}` in `args`; mcp-stubgen does not (jupyter-mcp-server, handed
    `--jupyter-token ${TOKEN}` as written, never answered the handshake), so it says so."""
    monkeypatch.chdir(tmp_path)
    server = {"command": "jupyter-mcp-server", "args": ["start", "--jupyter-token", "${TOKEN}", "${env:HOME}/nb"]}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"jup": server}}), encoding="utf-8")
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\nservers_file = ".mcp.json"\n')
    result = run_cli("list")
    assert result.exit_code == 0, result.stderr
    assert (
        ".mcp.json: server 'jup': command and args are passed as written, ${TOKEN}, ${env:HOME} included "
        "(mcp-stubgen expands variables in env and headers only: pass the value through env)"
    ) in result.stderr


def test_a_description_in_a_servers_file_is_set_aside(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """@kimuson/modular-mcp 0.0.5's config is an `mcpServers` file with a `description` per server
    (Gemini CLI's has one too); pointed at it, `servers_file` stopped every command with "unknown key
    'description'" (the twenty-first round)."""
    monkeypatch.chdir(tmp_path)
    server = {"description": "Use when you need to search the web.", "command": "mcp-server-brave-search"}
    (tmp_path / "modular-mcp.json").write_text(json.dumps({"mcpServers": {"brave": server}}), encoding="utf-8")
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\nservers_file = "modular-mcp.json"\n')
    result = run_cli("list")
    assert result.exit_code == 0, result.stderr
    assert "modular-mcp.json: server 'brave': ignoring description (settings of other MCP clients)" in result.stderr


def test_a_server_named_twice_in_a_servers_file_is_refused(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """JSON keeps the last of two equal keys silently: a server named twice in `mcpServers` ran the
    second entry (a program that does not exist), and the first, the one meant, was gone without a
    word (the twenty-third round; TOML refuses the same in `pyproject.toml`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".mcp.json").write_text(
        '{"mcpServers": {"te": {"command": "mcp-text-editor"}, "te": {"command": "y"}}}', encoding="utf-8"
    )
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\nservers_file = ".mcp.json"\n')
    result = run_cli("list")
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: .mcp.json: 'te' is written twice in one object; keep one of them"


def test_env_file_values_are_secrets_too(tmp_path: Path, run_cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A value read from `envFile` reaches the server and is scrubbed from what its stderr shows."""
    monkeypatch.chdir(tmp_path)
    secret = "s3cret-from-the-env-file"
    (tmp_path / "secrets.env").write_text(f"API_KEY={secret}\n", encoding="utf-8")
    raw = str(SERVERS / "raw_server.py")
    leaky = {"command": PY, "args": [raw, "--mode", "leak-secret"], "envFile": "secrets.env"}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"leaky": leaky}}), encoding="utf-8")
    write_config(tmp_path, '[tool.mcp-stubgen]\nsnapshots = "snaps"\nservers_file = ".mcp.json"\n')
    result = run_cli("snapshot")
    assert result.exit_code == 2
    assert "server 'leaky'" in result.stderr and "API_KEY=***" in result.stderr
    assert secret not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("body", "pattern"),
    [
        ('strict = "yes"\n', r"pyproject.toml: strict: expected true or false"),
        (
            "[tool.mcp-stubgen.method_names]\nweather = 1\n",
            r"pyproject.toml: \[tool.mcp-stubgen.method_names.weather\] must map tool names to method names",
        ),
        ("hub_separator = 1\n", r"pyproject.toml: hub_separator must be a string such as '__'"),
        ('hub_separator = "/"\n', r"pyproject.toml: hub_separator '/' must be one to four of '_', '-' and '\.'"),
        ('hub_live_tools = "all"\n', r"pyproject.toml: hub_live_tools must be one of 'ignore', 'callable', 'offer'"),
        (
            '[tool.mcp-stubgen.hub_filters.weather]\ninclude = "get_*"\n',
            r"pyproject.toml: \[tool.mcp-stubgen.hub_filters.weather\]: include must be a list of glob patterns",
        ),
        (
            "[tool.mcp-stubgen.renames]\nweather = 1\n",
            r"pyproject.toml: \[tool.mcp-stubgen.renames.weather\] must map old names to new names",
        ),
    ],
)
@pytest.mark.parametrize("command", ["snapshot", "generate", "sync", "drift"])
def test_generate_settings_are_checked_by_every_command(  # type: ignore[no-untyped-def]
    command: str, body: str, pattern: str, tmp_path: Path, run_cli
) -> None:
    """A bad generate setting is reported when the config is read, not only once `generate` runs."""
    config = write_config(
        tmp_path, f"[tool.mcp-stubgen]\n{body}[tool.mcp-stubgen.servers.weather]\ncommand = {json.dumps(PY)}\n"
    )
    result = run_cli(command, "--config", config)
    assert result.exit_code == 2
    assert re.search(pattern, one_error_line(result.stderr)), result.stderr


@pytest.mark.parametrize(
    ("text", "expanded"),
    [
        ("${SET}", "set"),
        ("${env:SET}-${UNSET:-fallback}", "set-fallback"),
        ("${UNSET:-${SET}}", "set"),  # docker compose's nested default
        ("${UNSET:-${EMPTY:-${SET}}}/x", "set/x"),
        ("${SET:-${UNSET}}", "set"),  # an unused default's variable need not be set
        ("Bearer ${UNSET:-}", "Bearer "),
        ("${UNSET:-open", "${UNSET:-open"),  # never closed: kept as written
        ("${UNSET:-a}b}", "ab}"),
    ],
)
def test_variables_expand_with_nested_defaults(monkeypatch: pytest.MonkeyPatch, text: str, expanded: str) -> None:
    monkeypatch.setenv("SET", "set")
    monkeypatch.setenv("EMPTY", "")
    monkeypatch.delenv("UNSET", raising=False)
    assert expand_secrets({"key": text}, "api", "headers") == {"key": expanded}


def test_a_variable_in_a_used_default_must_be_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNSET", raising=False)
    monkeypatch.delenv("ALSO_UNSET", raising=False)
    with pytest.raises(
        StubgenError, match=r"^server 'api': environment variable ALSO_UNSET \(used in headers\) is not set"
    ):
        expand_secrets({"key": "${UNSET:-${ALSO_UNSET}}"}, "api", "headers")
