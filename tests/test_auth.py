"""OAuth against a real protected server on 127.0.0.1 (`tests/servers/oauth_server.py`, its own
authorization server): client credentials and a token from the environment (the CI paths), login
through a browser stand-in, refresh, a refused resource, the generated client's `connect(auth=)`,
and that no token or secret reaches a file we write or any output."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from codegen.config import ServerConfig
from codegen.generate import generate_package
from codegen.generate.hub import generate_hub
from codegen.snapshot.discovery import snapshot_server
from tests.conftest import (
    PYTHON,
    REPO,
    SERVERS,
    forget_generated,
    free_port,
    import_generated,
    wait_for_port,
    write_config,
)

STANDIN = Path(__file__).resolve().parent / "browser_standin.py"
HOSTILE = str(SERVERS / "hostile_server.py")
CLIENT_SECRET = "ci-secret-7f3a9c2e"
HTTP_SECONDS = 30
"""How long a test's own request to the server may take (httpx's default, 5 s, a loaded CI machine can
pass), as the browser stand-in waits."""


@contextmanager
def oauth_server(folder: Path, *options: str, port: int | None = None) -> Iterator[tuple[str, Path]]:
    """The protected server on a free port (or `port`); yields its MCP URL and the log of what reached it."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "server-log.jsonl"
    port = port or free_port()
    process = subprocess.Popen(
        [PYTHON, str(SERVERS / "oauth_server.py"), str(port), str(log), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        process.terminate()
        process.wait(timeout=10)


def server_log(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


@pytest.fixture(autouse=True)
def token_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A token store of the test's own, in the file (never the developer's keyring); no CI, no browser."""
    folder = tmp_path / "user-config"
    monkeypatch.setenv("MCP_STUBGEN_CONFIG_DIR", str(folder))
    monkeypatch.setenv("MCP_STUBGEN_TOKEN_STORE", "file")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("MCP_STUBGEN_INTERACTIVE", raising=False)
    monkeypatch.setenv("CI_SECRET", CLIENT_SECRET)
    return folder


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> None:
    """A person at a browser who consents: the stand-in follows the redirect to our loopback callback."""
    monkeypatch.setenv("MCP_STUBGEN_INTERACTIVE", "1")
    monkeypatch.setenv("BROWSER", f"{sys.executable} {STANDIN} %s")


def project(folder: Path, url: str, auth: str, output: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_config(
        folder,
        "[tool.mcp-stubgen]\n"
        + ('output = "clients"\n' if output else "")
        + f'[tool.mcp-stubgen.servers.remote]\nurl = "{url}"\n[tool.mcp-stubgen.servers.remote.auth]\n{auth}\n',
    )
    return folder


CLIENT_CREDENTIALS = 'client_id = "ci-client"\nclient_secret = "${CI_SECRET}"'


def expire_stored_logins(store: Path) -> None:
    """Every login in the token store under `store` expired a minute ago: set in the file, not waited
    for, so a loaded machine cannot leave a stored token looking fresh for a second longer."""
    path = store / "tokens.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    for entry in document["entries"].values():
        entry["expires_at"] = time.time() - 60
    path.write_text(json.dumps(document), encoding="utf-8")


def test_client_credentials_snapshot_requests_a_token_for_the_server_and_stores_it(
    tmp_path: Path, run_cli, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, CLIENT_CREDENTIALS)
        monkeypatch.chdir(folder)
        result = run_cli("snapshot")
        assert result.exit_code == 0, result.stderr
        assert json.loads((folder / "mcp/snapshots/remote.json").read_text())["tools"][0]["name"] == "echo"
        token_requests = [entry for entry in server_log(log) if entry["path"] == "/token"]
        assert token_requests == [
            {"path": "/token", "grant_type": "client_credentials", "resource": url, "scope": "mcp"}
        ]
        again = run_cli("snapshot")
        assert again.exit_code == 0, again.stderr
        assert len([entry for entry in server_log(log) if entry["path"] == "/token"]) == 1  # the stored token is reused
    store = token_store / "tokens.json"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE(token_store.stat().st_mode) == 0o700


def test_a_token_refreshed_after_a_stall_past_its_lifetime_is_still_sent(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token whose lifetime is over by the time the request goes out (a machine stalled under load,
    here a server that grants 0 seconds): each request after the first refreshes it and sends the
    new token, rather than going out bare and answering the 401 with a whole new grant."""
    with oauth_server(tmp_path / "server", "--expires-in", "0") as (url, log):
        folder = project(tmp_path / "project", url, CLIENT_CREDENTIALS)
        monkeypatch.chdir(folder)
        result = run_cli("snapshot")
        assert result.exit_code == 0, result.stderr
        entries = server_log(log)
    grants = [entry["grant_type"] for entry in entries if entry["path"] == "/token"]
    assert grants[0] == "client_credentials" and grants[1:] and set(grants[1:]) == {"refresh_token"}, grants
    sent = [entry["token"] for entry in entries if entry["path"] == "/mcp"]
    assert sent[0] is None and None not in sent[1:], sent


def test_token_from_the_environment_is_sent_and_nothing_is_stored(
    tmp_path: Path, run_cli, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with oauth_server(tmp_path / "server") as (url, log):
        issued = httpx2.post(
            url.replace("/mcp", "/token"),
            data={"grant_type": "client_credentials", "resource": url},
            auth=("ci-client", CLIENT_SECRET),
            timeout=HTTP_SECONDS,
        ).json()["access_token"]
        monkeypatch.setenv("REMOTE_TOKEN", issued)
        folder = project(tmp_path / "project", url, 'token = "${REMOTE_TOKEN}"')
        monkeypatch.chdir(folder)
        result = run_cli("snapshot")
        assert result.exit_code == 0, result.stderr
        assert {entry.get("token") for entry in server_log(log) if entry["path"] == "/mcp"} == {issued}
    assert not (token_store / "tokens.json").exists()


@pytest.mark.parametrize("command", ["snapshot", "watch"])
def test_a_run_that_needs_a_browser_in_ci_fails_at_once_naming_the_variable(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """`watch` took the line for a failed connection and tried again at 1, 2, 4 ... 60 s until the
    CI job was killed."""
    monkeypatch.setenv("CI", "true")
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, 'mode = "browser"\ntoken = "${REMOTE_TOKEN}"')
        monkeypatch.chdir(folder)
        result = run_cli(command)
        assert result.exit_code == 2
        assert result.stderr.count("\n") == 1
        assert "server 'remote'" in result.stderr and "needs a browser" in result.stderr
        assert "export REMOTE_TOKEN" in result.stderr and "CI is set" in result.stderr
        assert server_log(log) == []  # at once: nothing was sent


def test_login_with_the_browser_then_status_snapshot_in_ci_and_logout(
    tmp_path: Path, run_cli, browser: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, 'mode = "browser"')
        monkeypatch.chdir(folder)
        login = run_cli("auth", "login", "remote")
        assert login.exit_code == 0, login.stderr
        assert "remote: logged in" in login.stderr
        entries = server_log(log)
        registered = next(entry for entry in entries if entry["path"] == "/register")
        (redirect,) = registered["redirect_uris"]  # type: ignore[misc]
        assert redirect.startswith("http://127.0.0.1:") and redirect.endswith("/callback")
        authorize = next(entry for entry in entries if entry["path"] == "/authorize")
        assert authorize["resource"] == url and authorize["redirect_uri"] == redirect

        status = run_cli("auth", "status")
        assert status.exit_code == 0
        assert status.stdout.startswith("remote: browser; logged in (registered client); scopes: mcp; expires in ")

        monkeypatch.setenv("CI", "true")  # CI uses what the login stored, without a browser
        monkeypatch.delenv("MCP_STUBGEN_INTERACTIVE")
        snapshot = run_cli("snapshot")
        assert snapshot.exit_code == 0, snapshot.stderr
        assert len([entry for entry in server_log(log) if entry["path"] == "/authorize"]) == 1

        logout = run_cli("auth", "logout", "remote")
        assert logout.exit_code == 0 and "remote: logged out" in logout.stderr
        assert "not logged in" in run_cli("auth", "status").stdout
        after = run_cli("snapshot")
        assert after.exit_code == 2 and "needs a browser" in after.stderr


def test_a_login_that_cannot_finish_keeps_the_login_it_would_have_replaced(
    tmp_path: Path, run_cli, browser: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`auth login` forgot the stored tokens before it found that no browser could open (run where
    stdin is no terminal, or in CI), so a refused login also logged the user out (found in the
    twentieth round, against FastMCP's in-memory OAuth provider)."""
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, 'mode = "browser"')
        monkeypatch.chdir(folder)
        assert run_cli("auth", "login", "remote").exit_code == 0
        monkeypatch.setenv("CI", "true")
        monkeypatch.delenv("MCP_STUBGEN_INTERACTIVE")
        again = run_cli("auth", "login", "remote")
        assert again.exit_code == 2 and "needs a browser" in again.stderr and "CI is set" in again.stderr
        assert run_cli("auth", "status").stdout.startswith("remote: browser; logged in (registered client)")
        snapshot = run_cli("snapshot")
        assert snapshot.exit_code == 0, snapshot.stderr
        assert len([entry for entry in server_log(log) if entry["path"] == "/authorize"]) == 1


def test_a_login_refused_for_want_of_a_terminal_names_the_variable_that_allows_it(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`auth login` run where stdin is no terminal (an editor's task, make) said to run `auth login`
    where a browser can open, the command the user had just run (found in the twentieth round)."""
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, 'mode = "browser"')
        monkeypatch.chdir(folder)
        result = run_cli("auth", "login", "remote")
        assert result.exit_code == 2
        assert "cannot open one (no terminal; MCP_STUBGEN_INTERACTIVE=1 opens it anyway)" in result.stderr
        assert server_log(log) == []


def test_a_login_may_take_longer_than_connect_timeout(
    tmp_path: Path, run_cli, browser: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The time a person took in the browser counted against `connect_timeout` (30 s), so a login
    that took longer failed with "refused access (HTTP 401); check the credentials in its `headers`"
    (found in the twentieth round, against FastMCP's in-memory OAuth provider)."""
    monkeypatch.setenv("BROWSER_STANDIN_SECONDS", "4")
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, 'mode = "browser"')
        config = folder / "pyproject.toml"
        config.write_text(
            config.read_text().replace("[tool.mcp-stubgen]\n", "[tool.mcp-stubgen]\nconnect_timeout = 3\n")
        )
        monkeypatch.chdir(folder)
        login = run_cli("auth", "login", "remote")
        assert login.exit_code == 0, login.stderr
        assert "remote: logged in" in login.stderr
        assert len([entry for entry in server_log(log) if entry["path"] == "/authorize"]) == 1


def test_an_expired_token_is_refreshed_without_asking(
    tmp_path: Path, run_cli, browser: None, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, 'mode = "browser"')
        monkeypatch.chdir(folder)
        assert run_cli("auth", "login", "remote").exit_code == 0
        expire_stored_logins(token_store)
        assert "expired; refreshed on next use" in run_cli("auth", "status").stdout
        monkeypatch.setenv("CI", "true")
        monkeypatch.delenv("MCP_STUBGEN_INTERACTIVE")
        result = run_cli("snapshot")
        assert result.exit_code == 0, result.stderr
        grants = [entry["grant_type"] for entry in server_log(log) if entry["path"] == "/token"]
        assert grants[0] == "authorization_code" and "refresh_token" in grants[1:]
        assert len([entry for entry in server_log(log) if entry["path"] == "/authorize"]) == 1


def test_a_server_whose_metadata_names_another_resource_gets_no_token(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    with oauth_server(tmp_path / "server", "--resource", "http://127.0.0.1:9/elsewhere") as (url, log):
        folder = project(tmp_path / "project", url, CLIENT_CREDENTIALS)
        monkeypatch.chdir(folder)
        result = run_cli("snapshot")
        assert result.exit_code == 2
        assert result.stderr.startswith("error: server 'remote': OAuth metadata discovery failed: Protected resource")
        assert "does not match" in result.stderr
        entries = server_log(log)
        assert not [entry for entry in entries if entry["path"] == "/token"]
        assert not [entry for entry in entries if entry["path"] == "/mcp" and entry["token"]]


def test_a_refused_token_or_secret_is_never_reported_as_a_wrong_url(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    with oauth_server(tmp_path / "server") as (url, _):
        monkeypatch.setenv("REMOTE_TOKEN", "at-not-issued-1234")
        folder = project(tmp_path / "token", url, 'token = "${REMOTE_TOKEN}"')
        monkeypatch.chdir(folder)
        refused = run_cli("snapshot")
        assert refused.exit_code == 2
        assert "refused the token it was sent (HTTP 401)" in refused.stderr
        assert "check the token its auth.token reads" in refused.stderr
        monkeypatch.setenv("CI_SECRET", "wrong-secret-1234")
        folder = project(tmp_path / "secret", url, CLIENT_CREDENTIALS)
        monkeypatch.chdir(folder)
        wrong = run_cli("snapshot")
        assert wrong.exit_code == 2
        assert "OAuth token exchange failed" in wrong.stderr and "check the client credentials" in wrong.stderr
        for result in (refused, wrong):
            assert "check the URL" not in result.stderr and "wrong-secret-1234" not in result.stderr


def test_an_authorization_server_without_our_grants_says_so_rather_than_to_check_the_credentials(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An authorization server that takes only the jwt-bearer grant (enterprise-managed authorization,
    workload identity federation) answers the client credentials grant `unsupported_grant_type`: the
    line said to check the client credentials, which were right; now it names the grants mcp-stubgen
    uses and what it does not support. (Its metadata lists no grants, so the token endpoint is the
    first to say.)"""
    monkeypatch.setenv("CI_SECRET", "ci-secret-7f3a9c2e")
    jwt_bearer_only = ("--grants", "urn:ietf:params:oauth:grant-type:jwt-bearer", "--grants-unlisted")
    with oauth_server(tmp_path / "server", *jwt_bearer_only) as (url, _):
        monkeypatch.chdir(project(tmp_path / "project", url, CLIENT_CREDENTIALS))
        result = run_cli("snapshot")
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: server 'remote': OAuth token exchange failed: "), line
    assert line.endswith(
        'unsupported_grant_type"}; the authorization server does not take the grants mcp-stubgen uses '
        "(authorization_code in a browser, client_credentials); the jwt-bearer and token-exchange grants of "
        "enterprise-managed authorization and workload identity federation are not supported "
        "(docs/authentication.md)"
    ), line


JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def test_a_login_to_an_authorization_server_without_the_code_grant_is_refused_before_the_browser(
    tmp_path: Path, run_cli, browser: None, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conformance runner's enterprise-managed and workload identity mocks list only the
    jwt-bearer grant in their metadata: `auth login` registered a client and sent the user through
    the browser, and only the token endpoint's `unsupported_grant_type` said it could never work."""
    with oauth_server(tmp_path / "server", "--grants", JWT_BEARER) as (url, log):
        monkeypatch.chdir(project(tmp_path / "project", url, 'mode = "browser"'))
        result = run_cli("auth", "login", "remote")
        entries = server_log(log)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line == (
        f"error: server 'remote': OAuth authorization failed: the authorization server offers the grants "
        f"'{JWT_BEARER}' (its metadata's grant_types_supported), not authorization_code, which browser mode "
        "uses; mcp-stubgen gets tokens with authorization_code (browser mode) and client_credentials "
        "(client_credentials mode); the jwt-bearer and token-exchange grants of enterprise-managed "
        "authorization and workload identity federation are not supported (docs/authentication.md); get a "
        'token another way and set mode = "token"'
    )
    assert {entry["path"] for entry in entries} == {"/mcp"}  # no client registered, no browser sent
    assert not (token_store / "tokens.json").exists()


def test_a_login_to_an_authorization_server_that_registers_no_clients_needs_a_client_id_at_once(
    tmp_path: Path, run_cli, browser: None, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An authorization server elsewhere whose metadata has no registration_endpoint, and no client_id
    configured: the SDK registered at the MCP server's own `/register` instead, sent the browser to the
    authorization server with that client id, which it does not know (its page never comes back), and
    `auth login` waited 300 s for the browser."""
    monkeypatch.setattr("codegen.auth.providers.CALLBACK_TIMEOUT", 15.0)  # main's wait, shortened
    with ExitStack() as stack:
        issuer_url, issuer_log = stack.enter_context(oauth_server(tmp_path / "issuer", "--no-registration"))
        issuer = issuer_url.removesuffix("/mcp")
        url, log = stack.enter_context(oauth_server(tmp_path / "server", "--authorization-server", issuer))
        monkeypatch.chdir(project(tmp_path / "project", url, 'mode = "browser"'))
        result = run_cli("auth", "login", "remote")
        reached = {entry["path"] for entry in server_log(log) + server_log(issuer_log)}
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: server 'remote': OAuth registration failed: the authorization server {issuer!r} registers "
        "no clients itself (its metadata has no registration_endpoint); register a client with it, then set "
        "client_id (and client_secret, if it gave one) under [tool.mcp-stubgen.servers.remote.auth]"
    ]
    assert reached == {"/mcp"}  # no client registered anywhere, no browser sent
    assert not (token_store / "tokens.json").exists()


def test_client_credentials_against_an_authorization_server_without_that_grant_are_refused_before_sending(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server whose metadata offers the code grant and not client credentials: the line says to log
    in with the browser instead, and the secret is never sent."""
    with oauth_server(tmp_path / "server", "--grants", "authorization_code", "refresh_token") as (url, log):
        monkeypatch.chdir(project(tmp_path / "project", url, CLIENT_CREDENTIALS))
        result = run_cli("snapshot")
        entries = server_log(log)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "error: server 'remote': OAuth authorization failed: the authorization server offers the grants "
        "'authorization_code', 'refresh_token' (its metadata's grant_types_supported), not client_credentials"
    ), line
    assert line.endswith('set mode = "browser" in the server\'s auth config and run `mcp-stubgen auth login remote`'), (
        line
    )
    assert not [entry for entry in entries if entry["path"] == "/token"]


def test_stored_auth_with_a_redirect_handler_is_refused_before_it_is_called(tmp_path: Path, token_store: Path) -> None:
    """A generated client's interactive `auth=` (`stored_auth` with the application's handlers) whose
    stored token is refused authorizes again: where the metadata offers no code grant, the
    application's UI was sent through a whole authorization first."""
    from codegen.runtime._auth import StoredEntry, TokenStore, stored_auth
    from codegen.runtime._runtime import AuthError

    with oauth_server(tmp_path / "server", "--grants", JWT_BEARER) as (url, log):
        redirect = "http://127.0.0.1:9/callback"
        TokenStore().save(
            StoredEntry(
                "remote", url, "registered", tokens={"access_token": "at-revoked", "token_type": "Bearer"},
                client_info={"client_id": "dyn-earlier", "redirect_uris": [redirect]},
            )
        )  # fmt: skip
        redirected: list[str] = []

        async def redirect_handler(authorization_url: str) -> None:
            redirected.append(authorization_url)

        async def callback_handler() -> Any:
            raise AssertionError("the authorization was never to start")

        async def request() -> None:
            auth = stored_auth("remote", redirect_handler=redirect_handler, callback_handler=callback_handler)
            async with httpx2.AsyncClient(auth=auth, timeout=HTTP_SECONDS) as http:
                await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})

        with pytest.raises(AuthError, match=r"offers the grants '[^']*jwt-bearer' .* not authorization_code"):
            anyio.run(request)
        entries = server_log(log)
    assert redirected == []
    assert {entry["path"] for entry in entries} == {"/mcp"}


def test_metadata_that_lists_no_grants_takes_the_code_grant(
    tmp_path: Path, run_cli, browser: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RFC 8414: without `grant_types_supported` the authorization server takes `authorization_code`,
    so a login goes ahead as before."""
    with oauth_server(tmp_path / "server", "--grants-unlisted") as (url, log):
        monkeypatch.chdir(project(tmp_path / "project", url, 'mode = "browser"'))
        result = run_cli("auth", "login", "remote")
        assert result.exit_code == 0, result.stderr
        grants = [entry["grant_type"] for entry in server_log(log) if entry["path"] == "/token"]
    assert grants == ["authorization_code"]


def test_auth_config_is_checked_when_it_is_loaded(tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = {
        'mode = "client_credentials"\nclient_id = "x"': 'client_auth "client_secret_basic" needs client_secret',
        'mode = "token"': 'mode "token" needs token',
        'clinet_id = "x"': "unknown key 'clinet_id'; did you mean 'client_id'?",
        'mode = "device"': "mode must be one of browser, client_credentials, token",
    }
    for number, (auth, message) in enumerate(cases.items()):
        folder = project(tmp_path / str(number), "http://127.0.0.1:9/mcp", auth)
        monkeypatch.chdir(folder)
        result = run_cli("list")
        assert result.exit_code == 2 and message in result.stderr, result.stderr
        assert "[tool.mcp-stubgen.servers.remote].auth" in result.stderr


def test_no_token_or_secret_reaches_a_file_we_write_or_any_output(
    tmp_path: Path, run_cli, browser: None, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs: list[str] = []
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, CLIENT_CREDENTIALS, output=True)
        (folder / "pyproject.toml").write_text(
            (folder / "pyproject.toml").read_text()
            + f'[tool.mcp-stubgen.servers.interactive]\nurl = "{url}"\nauth = {{ mode = "browser" }}\n'
        )
        monkeypatch.chdir(folder)
        for args in (
            ("-v", "auth", "login", "interactive"),
            ("-v", "sync"),
            ("-v", "snapshot", "--format", "json"),
            ("-v", "drift", "--format", "json"),
            ("-v", "drift", "--format", "sarif", "--output", "junit=drift.xml"),
            ("-v", "auth", "status", "--format", "json"),
            ("-v", "list", "--format", "json"),
        ):
            if (token_store / "tokens.json").exists():
                expire_stored_logins(token_store)  # every run refreshes an expired token
            result = run_cli(*args)
            assert result.exit_code in (0, 1), (args, result.stderr)
            outputs += [result.stdout, result.stderr]
        issued = [entry for entry in server_log(log) if entry["path"] == "issued"]
    secrets = {CLIENT_SECRET} | {str(entry[key]) for entry in issued for key in ("access_token", "refresh_token")}
    assert len(secrets) > 6  # logins, client credentials and refreshes all issued tokens
    written = [path for path in folder.rglob("*") if path.is_file()]
    assert any(path.name == "client.py" for path in written) and any(path.suffix == ".json" for path in written)
    for secret in secrets:
        for path in written:
            assert secret not in path.read_text(encoding="utf-8", errors="replace"), (secret, path)
        for text in outputs:
            assert secret not in text


@pytest.mark.parametrize("echoed", ["catalog", "error"])
def test_a_token_the_server_echoes_reaches_no_snapshot_and_no_output(
    echoed: str, tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that repeats the OAuth token it was sent, in its catalog or in an error answer: only
    the configured secrets were kept out, so the token got by the flow was written into the snapshot
    (and a warning line), or shown in the error line and its JSON, on a fresh runner as on a later run."""
    with oauth_server(tmp_path / "server", "--echo-token", echoed) as (url, log):
        folder = project(tmp_path / "project", url, CLIENT_CREDENTIALS)
        monkeypatch.chdir(folder)
        results = [run_cli("snapshot", "--format", "json") for _run in range(2)]  # a fresh store, then a stored token
        sent = {entry["token"] for entry in server_log(log) if entry["path"] == "/mcp" and entry["token"]}
    assert len(sent) == 1
    expected = {
        "catalog": "server 'remote': the catalog contains the value of one of its secrets (`env`, `headers`, `auth` "
        "or an OAuth token) at /tools/0/description; the snapshot was not written. Have the server stop echoing "
        "it, and rotate the secret if it was shared",
        "error": "server 'remote': tools/list failed: backend refused token *** (code -32603)",
    }[echoed]
    for result in results:
        assert result.exit_code == 2
        assert result.stderr == f"error: {expected}\n"
        assert json.loads(result.stdout)["error"] == expected
    assert not (folder / "mcp/snapshots/remote.json").exists()


def test_generated_client_connects_with_the_stored_login(
    tmp_path: Path, run_cli, browser: None, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, 'mode = "browser"', output=True)
        monkeypatch.chdir(folder)
        assert run_cli("auth", "login", "remote").exit_code == 0
        assert run_cli("sync").exit_code == 0
        expire_stored_logins(token_store)  # the app meets an expired token: stored_auth refreshes it
        script = (
            "import asyncio\n"
            "from clients.remote import RemoteClient, stored_auth\n"
            "async def main():\n"
            f"    async with RemoteClient.connect({url!r}, auth=stored_auth('remote')) as client:\n"
            "        print(await client.echo(text='hello'))\n"
            "asyncio.run(main())\n"
        )
        environment = {**os.environ, "PYTHONPATH": str(folder)}  # import through the output folder
        run = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=environment, timeout=120
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == "hello"
        grants = [entry["grant_type"] for entry in server_log(log) if entry["path"] == "/token"]
        assert grants.count("refresh_token") >= 1
        # Another origin never gets the token: the app's auth is bound to the URL it was stored for.
        other = (
            "import asyncio, httpx2\nfrom clients.remote import stored_auth\n"
            "seen = []\n"
            "def answer(request):\n"
            "    if request.url.host == 'elsewhere.example':\n"
            "        seen.append(request.headers.get('authorization'))\n"
            "    return httpx2.Response(200)\n"
            "async def main():\n"
            "    transport = httpx2.MockTransport(answer)\n"
            "    async with httpx2.AsyncClient(auth=stored_auth('remote'), transport=transport) as http:\n"
            "        await http.get('http://elsewhere.example/mcp')\n"
            "    print(seen)\n"
            "asyncio.run(main())\n"
        )
        elsewhere = subprocess.run(
            [sys.executable, "-c", other], capture_output=True, text=True, env=environment, timeout=120
        )
        assert elsewhere.returncode == 0, elsewhere.stderr
        assert elsewhere.stdout.strip() == "[None]"


def test_a_token_a_server_echoes_into_an_error_is_not_in_the_generated_clients_message(
    tmp_path: Path, run_cli, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generated client's error quotes the server's answer, which an application logs: a server
    that repeated the token it was sent put the application's live bearer token in its logs. The
    attribute keeps the answer as sent."""
    with oauth_server(tmp_path / "server", "--echo-token", "call") as (url, log):
        folder = project(tmp_path / "project", url, CLIENT_CREDENTIALS, output=True)
        monkeypatch.chdir(folder)
        assert run_cli("sync").exit_code == 0
        script = (
            "import asyncio\n"
            "from clients.remote import RemoteClient, ServerError, stored_auth\n"
            "async def main():\n"
            f"    async with RemoteClient.connect({url!r}, auth=stored_auth('remote')) as client:\n"
            "        try:\n"
            "            await client.echo(text='hello')\n"
            "        except ServerError as error:\n"
            "            print(error)\n"
            "            print(error.message.startswith('backend refused token ') and '***' not in error.message)\n"
            "asyncio.run(main())\n"
        )
        environment = {**os.environ, "PYTHONPATH": str(folder)}
        run = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=environment, timeout=120
        )
        sent = {entry["token"] for entry in server_log(log) if entry["path"] == "/mcp" and entry["token"]}
    assert run.returncode == 0, run.stderr
    assert sent and not any(token in run.stdout + run.stderr for token in sent)
    assert run.stdout.splitlines() == [
        "server 'remote': tool 'echo' failed: backend refused token *** (code -32603)",
        "True",
    ]


def test_watch_refreshes_the_token_in_a_long_session(tmp_path: Path, token_store: Path) -> None:
    """The token expires every second; `watch` polls for minutes in real use. Each poll after an
    expiry refreshes the token (never a new client credentials grant while the refresh token
    works), and a change made long after the first token expired is still published."""
    with oauth_server(tmp_path / "server", "--expires-in", "1", "--polled") as (url, log):
        folder = project(tmp_path / "project", url, CLIENT_CREDENTIALS)
        environment = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        first = [PYTHON, "-m", "codegen.cli", "snapshot"]
        assert subprocess.run(first, cwd=folder, env=environment, capture_output=True, timeout=120).returncode == 0
        watcher = subprocess.Popen(
            [PYTHON, "-m", "codegen.cli", "watch", "--interval", "0.3", "--max-changes", "1"],
            cwd=folder,
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and watcher.poll() is None:
                grants = [entry["grant_type"] for entry in server_log(log) if entry["path"] == "/token"]
                if grants.count("refresh_token") >= 2:
                    break
                time.sleep(0.2)
            if grants.count("refresh_token") < 2:  # say why: the watcher's own words, if it ended
                watcher.kill()
                pytest.fail(f"refreshes {grants} by exit {watcher.wait()}; watch said: {watcher.stderr.read()}")
            token = httpx2.post(
                url.replace("/mcp", "/token"),
                data={"grant_type": "client_credentials"},
                auth=("ci-client", CLIENT_SECRET),
                timeout=HTTP_SECONDS,
            ).json()["access_token"]

            async def add_tool() -> None:
                http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
                async with http, Client(streamable_http_client(url, http_client=http)) as client:
                    await client.call_tool("add_tools", {"names": ["second"]})

            anyio.run(add_tool)
            _, stderr = watcher.communicate(timeout=60)
        finally:
            watcher.kill()
        assert watcher.returncode == 0, stderr
        assert "remote:" in stderr and "stopped after 1 published change" in stderr
        tools = json.loads((folder / "mcp/snapshots/remote.json").read_text())["tools"]
        assert [tool["name"] for tool in tools] == ["add_tools", "first", "second"]
        grants = [entry["grant_type"] for entry in server_log(log) if entry["path"] == "/token"]
        # The snapshot's grant and the test's own: watch used the stored token and only refreshed it.
        assert grants[0] == "client_credentials" and grants.count("client_credentials") == 2


def test_a_scope_step_up_at_connect_keeps_the_protocol_the_server_speaks(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server wants a scope its first challenge did not name: the flow asks again for both, and
    the snapshot records 2026-07-28, not the `initialize` fallback of a probe that got a 403."""
    with oauth_server(tmp_path / "server", "--required-scope", "admin") as (url, log):
        folder = project(tmp_path / "project", url, CLIENT_CREDENTIALS)
        monkeypatch.chdir(folder)
        result = run_cli("snapshot")
        assert result.exit_code == 0, result.stderr
        assert json.loads((folder / "mcp/snapshots/remote.json").read_text())["protocolVersion"] == "2026-07-28"
        scopes = [entry["scope"] for entry in server_log(log) if entry["path"] == "/token"]
        assert scopes == ["mcp", "mcp admin"]


def test_list_and_auth_status_show_the_login_and_a_keyring_keeps_tokens_out_of_the_file(
    tmp_path: Path, run_cli, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a usable keyring the tokens go there; the file keeps only what `auth status` shows."""
    kept: dict[tuple[str, str], str] = {}
    backend = types.SimpleNamespace(priority=1)
    keyring = types.SimpleNamespace(
        get_keyring=lambda: backend,
        get_password=lambda service, key: kept.get((service, key)),
        set_password=lambda service, key, value: kept.__setitem__((service, key), value),
        delete_password=lambda service, key: kept.pop((service, key)),
    )
    monkeypatch.setitem(sys.modules, "keyring", keyring)
    monkeypatch.delenv("MCP_STUBGEN_TOKEN_STORE")
    with oauth_server(tmp_path / "server") as (url, log):
        folder = project(tmp_path / "project", url, CLIENT_CREDENTIALS)
        monkeypatch.chdir(folder)
        assert "auth client_credentials; not logged in" in run_cli("list").stdout
        assert run_cli("snapshot").exit_code == 0
        issued = next(entry for entry in server_log(log) if entry["path"] == "issued")
        listed = run_cli("list", "--format", "json")
        assert json.loads(listed.stdout.splitlines()[0])["auth"].startswith(
            "client_credentials; logged in (client ci-client); scopes: mcp; expires in 59m"
        )
        status = run_cli("auth", "status", "--format", "json")
        assert json.loads(status.stdout)["scopes"] == ["mcp"]
        assert "tokens are stored in the OS keyring" in status.stderr
    assert any(str(issued["access_token"]) in value for value in kept.values())
    assert str(issued["access_token"]) not in (token_store / "tokens.json").read_text()
    assert run_cli("auth", "logout").exit_code == 0
    assert kept == {}


def test_auth_login_names_a_server_without_an_auth_table(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path, '[tool.mcp-stubgen.servers.plain]\nurl = "http://127.0.0.1:9/mcp"\n')
    monkeypatch.chdir(tmp_path)
    result = run_cli("auth", "login", "plain")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: server 'plain' has no [tool.mcp-stubgen.servers.plain.auth] table; add one to use OAuth "
        "(see docs/authentication.md)\n"
    )


def test_a_refused_refresh_in_ci_names_the_variable_to_set(
    tmp_path: Path, run_cli, browser: None, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server forgot every grant (restarted), the stored token has expired: the refresh is
    refused, and with no browser the line says what to set instead of trying one."""
    port = free_port()
    folder = project(
        tmp_path / "project", f"http://127.0.0.1:{port}/mcp", 'mode = "browser"\ntoken = "${REMOTE_TOKEN}"'
    )
    monkeypatch.chdir(folder)
    with oauth_server(tmp_path / "before", port=port):
        assert run_cli("auth", "login", "remote").exit_code == 0
    expire_stored_logins(token_store)
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("MCP_STUBGEN_INTERACTIVE")
    with oauth_server(tmp_path / "after", port=port) as (_, log):
        result = run_cli("snapshot")
        grants = [entry["grant_type"] for entry in server_log(log) if entry["path"] == "/token"]
    assert result.exit_code == 2
    assert result.stderr == (
        "error: server 'remote': OAuth authorization failed: the stored login no longer works, and a new one needs "
        "a browser, and this run cannot open one (CI is set); export REMOTE_TOKEN (the token its auth.token reads); "
        "or run `mcp-stubgen auth login remote` where a browser can open\n"
    )
    assert grants == ["refresh_token"]


@pytest.mark.parametrize("outage", ["503", "refused"])
def test_a_refresh_the_authorization_server_cannot_answer_fails_the_snapshot_naming_the_step(
    outage: str, tmp_path: Path, run_cli, browser: None, token_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The stored login has expired and its refresh meets a token endpoint answering 503, or no
    server at all: the 503 was taken for a refusal (and a browser opened for a new login, which
    failed at the same endpoint), the refused connection said `cannot connect`. Now one line names
    the server and the refresh step and says to retry; the previous snapshot is kept."""
    port = free_port()
    folder = project(tmp_path / "project", f"http://127.0.0.1:{port}/mcp", 'mode = "browser"')
    monkeypatch.chdir(folder)
    previous = folder / "mcp" / "snapshots" / "remote.json"
    with oauth_server(tmp_path / "server", port=port) as (url, _log):
        assert run_cli("auth", "login", "remote").exit_code == 0
        assert run_cli("snapshot").exit_code == 0
        written = previous.read_bytes()
        expire_stored_logins(token_store)
        if outage == "503":
            token_outage(url, 503)
            result = run_cli("snapshot")
    if outage == "refused":
        result = run_cli("snapshot")
    why = "HTTP 503 Service Unavailable" if outage == "503" else "ConnectError: All connection attempts failed"
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: server 'remote': OAuth refresh failed: the authorization server is unreachable or failing ({why}), "
        "so the expired login could not be refreshed; retry, and if it persists check that it is up\n",
    )
    assert previous.read_bytes() == written


def test_metadata_a_challenge_names_where_nothing_answers_is_named_not_the_authorization_server(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The 401's `resource_metadata` names a URL where nothing listens: the line blamed "the
    authorization server", which no metadata had named yet; it names the URL that failed."""
    nowhere = f"http://127.0.0.1:{free_port()}/.well-known/oauth-protected-resource/mcp"
    with oauth_server(tmp_path / "server", "--metadata-url", nowhere) as (url, _log):
        monkeypatch.chdir(project(tmp_path / "project", url, CLIENT_CREDENTIALS))
        result = run_cli("snapshot")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: server 'remote': OAuth metadata discovery failed: {nowhere} cannot be reached (ConnectError: All "
        "connection attempts failed); retry, and if it persists ask the server's operator\n",
    )


def token_outage(url: str, status: int) -> None:
    """From now on the authorization server answers every `/token` request with `status` (0: it is back)."""
    outage = httpx2.post(url.replace("/mcp", "/token-outage"), params={"status": status}, timeout=HTTP_SECONDS)
    assert outage.status_code == 200


@pytest.fixture(scope="module")
def midsession(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Any, Any]]:
    """The output folder `midsession` holding `remote` (the protected server's catalog) and a hub over
    it and `hostile` (tests/servers/hostile_server.py over stdio), generated once; its two packages
    imported, and forgotten afterwards."""
    folder = tmp_path_factory.mktemp("generated")
    with oauth_server(folder / "server") as (url, _log):
        grant = {"grant_type": "client_credentials", "resource": url}
        token = httpx2.post(
            url.replace("/mcp", "/token"), data=grant, auth=("ci-client", CLIENT_SECRET), timeout=HTTP_SECONDS
        )
        bearer = {"Authorization": f"Bearer {token.json()['access_token']}"}
        remote = anyio.run(snapshot_server, ServerConfig(name="remote", url=url, headers=bearer))
    hostile = anyio.run(snapshot_server, ServerConfig(name="hostile", command=PYTHON, args=(HOSTILE,)))
    out = folder / "midsession"
    generate_package(remote, out)
    generate_package(hostile, out)
    generate_hub([(remote, {}), (hostile, {})], out)
    try:
        yield out, import_generated(out, "remote"), import_generated(out, "hub")
    finally:
        forget_generated(out)


def log_in(folder: Path) -> None:
    """`mcp-stubgen auth login remote` in the project `folder`, in its own process, as a person would
    while the application runs."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    login = [PYTHON, "-m", "codegen.cli", "auth", "login", "remote"]
    subprocess.run(login, cwd=folder, env=environment, capture_output=True, timeout=120, check=True)


def logged_in(folder: Path, url: str) -> Path:
    """A project whose server `remote` at `url` is logged in through the browser stand-in."""
    project(folder, url, 'mode = "browser"')
    log_in(folder)
    return folder


def revoke_every_grant(url: str) -> None:
    assert httpx2.post(url.replace("/mcp", "/revoke-all"), timeout=HTTP_SECONDS).status_code == 200


def issued_secrets(log: Path) -> set[str]:
    return {
        str(entry[key])
        for entry in server_log(log)
        if entry["path"] == "issued"
        for key in ("access_token", "refresh_token")
    }


REVOKED = (
    "server 'remote': tool 'echo' failed: OAuth authorization failed: the stored token is not enough; "
    "run `mcp-stubgen auth login remote` and retry (code -32603)"
)


def test_a_login_revoked_mid_session_fails_only_the_calls_until_the_next_login(
    tmp_path: Path, browser: None, midsession: tuple[Path, Any, Any]
) -> None:
    """The server revokes every grant while an application (logging nothing itself) is connected
    with `stored_auth`: the flow's `AuthError` ended the whole session, the block died with it (an
    `except` around the call never saw it) and the SDK printed a traceback. Now that call raises
    `UnauthorizedError` (an `AuthError`, and a `ServerError`) and nothing is printed; once
    `auth login` stored a new login, the next call over the same session is answered. The async
    client and its sync twin alike; no token in any output."""
    out, _remote, _hub = midsession
    script = (
        "import asyncio, subprocess, sys, httpx2\n"
        "from midsession.remote import AuthError, RemoteClient, ServerError, stored_auth\n"
        "url, project, python = sys.argv[1:]\n"
        "def revoke():\n"
        f"    httpx2.post(url.replace('/mcp', '/revoke-all'), timeout={HTTP_SECONDS})\n"
        "def login():\n"
        "    command = [python, '-m', 'codegen.cli', 'auth', 'login', 'remote']\n"
        "    done = subprocess.run(command, cwd=project, capture_output=True, text=True)\n"
        "    if done.returncode:\n"
        "        sys.exit(f'auth login failed: {done.stderr}')\n"
        "def report(error):\n"
        "    print(type(error).__name__, isinstance(error, ServerError), error.step, error, sep=' | ')\n"
        "async def main():\n"
        "    async with RemoteClient.connect(url, auth=stored_auth('remote')) as client:\n"
        "        print(await client.echo(text='one'))\n"
        "        revoke()\n"
        "        try:\n"
        "            await client.echo(text='two')\n"
        "        except AuthError as error:\n"
        "            report(error)\n"
        "        login()\n"
        "        print(await client.echo(text='three'))\n"
        "asyncio.run(main())\n"
        "with RemoteClient.connect_sync(url, auth=stored_auth('remote')) as client:\n"
        "    print(client.echo(text='four'))\n"
        "    revoke()\n"
        "    try:\n"
        "        client.echo(text='five')\n"
        "    except AuthError as error:\n"
        "        report(error)\n"
        "    login()\n"
        "    print(client.echo(text='six'))\n"
    )
    with oauth_server(tmp_path / "server") as (url, log):
        folder = logged_in(tmp_path / "project", url)
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join((str(out.parent), str(REPO)))}
        run = subprocess.run(
            [sys.executable, "-c", script, url, str(folder), PYTHON],
            capture_output=True,
            text=True,
            env=environment,
            timeout=180,
        )
        secrets = issued_secrets(log)
    refused = f"UnauthorizedError | True | authorization | {REVOKED}"
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.splitlines() == ["one", refused, "three", "four", refused, "six"]
    assert len(secrets) >= 6  # three logins
    assert not [secret for secret in secrets if secret in run.stdout + run.stderr]


async def test_a_refresh_refused_mid_session_fails_only_that_call(
    tmp_path: Path, browser: None, midsession: tuple[Path, Any, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """The token expires every second, and the server forgets every grant: the refresh is refused,
    and with no person to authorize again the call fails naming the refresh step, only that call;
    the next login serves the next call over the same session, and the SDK's traceback is not logged."""
    _out, remote, _hub = midsession
    with oauth_server(tmp_path / "server", "--expires-in", "1") as (url, log), anyio.fail_after(120):
        folder = logged_in(tmp_path / "project", url)
        async with remote.RemoteClient.connect(url, auth=remote.stored_auth("remote")) as client:
            assert await client.echo(text="one") == "one"
            revoke_every_grant(url)
            await anyio.sleep(1.1)
            with pytest.raises(remote.AuthError) as refused:
                await client.echo(text="two")
            await anyio.to_thread.run_sync(log_in, folder)
            assert await client.echo(text="three") == "three"
        grants = [entry["grant_type"] for entry in server_log(log) if entry["path"] == "/token"]
        secrets = issued_secrets(log)
    assert str(refused.value) == (
        "server 'remote': tool 'echo' failed: OAuth refresh failed: the stored login expired and the authorization "
        "server refused to refresh it; run `mcp-stubgen auth login remote` and retry (code -32603)"
    )
    assert (refused.value.server, refused.value.step) == ("remote", "refresh")
    assert "refresh_token" in grants
    assert not [record for record in caplog.records if record.exc_info]
    said = [str(refused.value), *(record.getMessage() for record in caplog.records)]
    assert not [secret for secret in secrets for text in said if secret in text]


TOKEN_ENDPOINT_DOWN = (
    r"server 'remote': tool 'echo' failed: OAuth refresh failed: the authorization server is unreachable or failing "
    r"\((?P<why>.*)\), so the expired login could not be refreshed; retry, and if it persists check that it is up "
    r"\(code -32603\)"
)


async def test_a_refresh_the_token_endpoint_fails_mid_session_fails_only_that_call(
    tmp_path: Path, browser: None, midsession: tuple[Path, Any, Any], caplog: pytest.LogCaptureFixture
) -> None:
    """The token expires every second and the token endpoint answers 503: the refresh's failure was
    taken for a refusal (`run mcp-stubgen auth login`, which would fail alike). Now the call raises
    `UnauthorizedError` naming the refresh step and saying to retry; once the endpoint is back the
    next call over the same session is answered, with no new login."""
    _out, remote, _hub = midsession
    with oauth_server(tmp_path / "server", "--expires-in", "1") as (url, log), anyio.fail_after(120):
        logged_in(tmp_path / "project", url)
        async with remote.RemoteClient.connect(url, auth=remote.stored_auth("remote")) as client:
            assert await client.echo(text="one") == "one"
            token_outage(url, 503)
            await anyio.sleep(1.1)
            with pytest.raises(remote.AuthError) as failed:
                await client.echo(text="two")
            token_outage(url, 0)
            assert await client.echo(text="three") == "three"
        secrets = issued_secrets(log)
    said = re.fullmatch(TOKEN_ENDPOINT_DOWN, str(failed.value))
    assert said is not None and said["why"] == "HTTP 503 Service Unavailable", str(failed.value)
    assert isinstance(failed.value, remote.ServerError) and failed.value.step == "refresh"
    assert not [record for record in caplog.records if record.exc_info]
    assert not [secret for secret in secrets if secret in str(failed.value)]


async def test_a_refresh_that_cannot_reach_the_authorization_server_fails_each_call_alone(
    tmp_path: Path, browser: None, midsession: tuple[Path, Any, Any]
) -> None:
    """The token has expired and the authorization server is gone (connection refused): the call
    failed with the generic `ServerError` -32000 `ConnectError: ...`. Now `UnauthorizedError` naming
    the refresh step and saying to retry, and the next call over the same session says the same."""
    _out, remote, _hub = midsession
    with ExitStack() as running, anyio.fail_after(120):
        url, _log = running.enter_context(oauth_server(tmp_path / "server", "--expires-in", "1"))
        logged_in(tmp_path / "project", url)
        async with remote.RemoteClient.connect(url, auth=remote.stored_auth("remote")) as client:
            assert await client.echo(text="one") == "one"
            running.close()  # the authorization server stops, and the token expires
            await anyio.sleep(1.1)
            for text in ("two", "three"):
                with pytest.raises(remote.AuthError) as failed:
                    await client.echo(text=text)
                said = re.fullmatch(TOKEN_ENDPOINT_DOWN, str(failed.value))
                assert said is not None and said["why"].startswith("ConnectError: "), str(failed.value)
                assert isinstance(failed.value, remote.ServerError) and failed.value.step == "refresh"


async def test_a_hub_keeps_its_other_server_while_a_token_endpoint_fails(
    tmp_path: Path, browser: None, midsession: tuple[Path, Any, Any]
) -> None:
    """A hub over the protected server, whose token endpoint answers 503 once the token expired, and
    a stdio server: the protected server's call fails alone with the refresh step, the other server
    answers, and once the endpoint is back the protected one answers again."""
    _out, remote, hub = midsession
    hostile = StdioServerParameters(command=PYTHON, args=[HOSTILE])
    with oauth_server(tmp_path / "server", "--expires-in", "1") as (url, _log), anyio.fail_after(120):
        logged_in(tmp_path / "project", url)
        transport = remote.authorized_transport(url, remote.stored_auth("remote"))
        async with hub.Hub.connect(remote=transport, hostile=hostile) as connected:
            assert (await connected.call("remote__echo", {"text": "one"})).structured_content == {"result": "one"}
            token_outage(url, 503)
            await anyio.sleep(1.1)
            with pytest.raises(hub.AuthError) as failed:
                await connected.call("remote__echo", {"text": "two"})
            assert (await connected.call("hostile__echo", {"text": "still here"})).content[0].text == "still here"
            token_outage(url, 0)
            assert (await connected.call("remote__echo", {"text": "three"})).structured_content == {"result": "three"}
    said = re.fullmatch(TOKEN_ENDPOINT_DOWN, str(failed.value))
    assert said is not None and said["why"] == "HTTP 503 Service Unavailable", str(failed.value)
    assert isinstance(failed.value, hub.ServerError) and failed.value.step == "refresh"


async def test_a_hub_keeps_its_other_server_when_one_login_is_revoked(
    tmp_path: Path, browser: None, midsession: tuple[Path, Any, Any]
) -> None:
    """A hub over the protected server (`stored_auth`) and a stdio server: the revoked login ended
    the hub's whole session, every server with it. Now the protected server's calls fail alone, the
    other server answers, and after the next login the protected one answers again."""
    _out, remote, hub = midsession
    hostile = StdioServerParameters(command=PYTHON, args=[HOSTILE])
    with oauth_server(tmp_path / "server") as (url, log), anyio.fail_after(120):
        folder = logged_in(tmp_path / "project", url)
        transport = remote.authorized_transport(url, remote.stored_auth("remote"))
        async with hub.Hub.connect(remote=transport, hostile=hostile) as connected:
            assert (await connected.call("remote__echo", {"text": "one"})).structured_content == {"result": "one"}
            revoke_every_grant(url)
            with pytest.raises(hub.AuthError) as refused:
                await connected.call("remote__echo", {"text": "two"})
            assert (await connected.call("hostile__echo", {"text": "still here"})).content[0].text == "still here"
            await anyio.to_thread.run_sync(log_in, folder)
            assert (await connected.call("remote__echo", {"text": "three"})).structured_content == {"result": "three"}
        secrets = issued_secrets(log)
    assert str(refused.value) == REVOKED
    assert isinstance(refused.value, hub.ServerError)
    assert not [secret for secret in secrets if secret in str(refused.value)]
