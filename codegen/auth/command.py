"""`mcp-stubgen auth login|status|logout`: get, show and forget the OAuth tokens of configured servers.

`status` shows what is stored (scopes, expiry), never a token or a secret."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import anyio
import click

from codegen import console
from codegen.config import ServerConfig
from codegen.errors import EXIT_OK, StubgenError
from codegen.options import config_options, load_project
from codegen.runtime._auth import REGISTERED, StoredEntry, TokenStore


@click.group("auth")
def auth() -> None:
    """Log in to OAuth-protected servers, see what is stored, log out."""


def _oauth_servers(servers: list[ServerConfig], named: bool) -> list[ServerConfig]:
    chosen = [server for server in servers if server.auth is not None]
    if named:
        for server in servers:
            if server.auth is None:
                raise StubgenError(
                    f"server {server.name!r} has no [tool.mcp-stubgen.servers.{server.name}.auth] table; "
                    "add one to use OAuth (see docs/authentication.md)"
                )
    return chosen


def _entries(store: TokenStore, server: ServerConfig) -> list[StoredEntry]:
    return [entry for entry in store.entries() if entry.server == server.name and entry.url == server.url]


@auth.command("login")
@click.argument("server_name", metavar="SERVER")
@config_options
def login(server_name: str, config_path: Path | None, servers_file: Path | None) -> int:
    """Authorize SERVER (in the browser, or with its client credentials) and store its tokens."""
    config = load_project(config_path, servers_file)
    (server,) = _oauth_servers(config.select((server_name,)), named=True)
    assert server.auth is not None
    if server.auth.mode == "token":
        raise StubgenError(
            f"server {server.name!r}: its auth mode is token (from the environment); there is nothing to log in to"
        )
    store = TokenStore()
    for entry in _entries(store, server):
        entry.tokens = entry.scope = entry.expires_at = None  # a login starts afresh; a registration is kept
        store.save(entry)
    # The browser is what a login is for: the token a CI run would use instead does not apply.
    fresh = dataclasses.replace(server, auth=dataclasses.replace(server.auth, token=None))

    from codegen.snapshot.discovery import connect  # the SDK's transports load only when needed

    async def handshake() -> None:
        async with connect(fresh):
            pass

    anyio.run(handshake)
    stored = [entry for entry in _entries(store, server) if entry.tokens is not None]
    scope = stored[0].scope if stored else None
    console.note(
        f"{server.name}: logged in; tokens stored in {store.location}" + (f" (scopes: {scope})" if scope else "")
    )
    return EXIT_OK


@auth.command("status")
@click.argument("servers", nargs=-1)
@config_options
@console.format_option
def status(servers: tuple[str, ...], config_path: Path | None, servers_file: Path | None) -> int:
    """Show the stored OAuth state of each server (or those named): scopes and expiry, never a token."""
    config = load_project(config_path, servers_file)
    store = TokenStore()
    for server in _oauth_servers(config.select(servers), named=bool(servers)):
        assert server.auth is not None
        state, details = login_state(server, store)
        console.result(f"{server.name}: {server.auth.mode}; {state}")
        console.emit(server.name, "ok", mode=server.auth.mode, **details)
    console.note(f"tokens are stored in {store.location}")
    return EXIT_OK


def login_state(server: ServerConfig, store: TokenStore) -> tuple[str, dict[str, Any]]:
    """What is stored for a server with an `auth` table, for people and as JSON; never a token."""
    assert server.auth is not None
    entries = [entry for entry in _entries(store, server) if entry.tokens is not None]
    if server.auth.mode == "token":
        return "token from the environment (nothing stored)", {"stored": False}
    if not entries:
        return f"not logged in; run `mcp-stubgen auth login {server.name}`", {"stored": False}
    entry = entries[0]
    client = "registered client" if entry.client == REGISTERED else f"client {entry.client}"
    details = {
        "stored": True,
        "client": entry.client,
        "scopes": (entry.scope or "").split(),
        "expires_at": entry.expires_at,
    }
    return f"logged in ({client}); scopes: {entry.scope or 'none stated'}; {_expiry(entry)}", details


def _expiry(entry: StoredEntry) -> str:
    refreshable = entry.tokens is not None and "refresh_token" in entry.tokens
    if entry.expires_at is None:
        return "no expiry stated"
    left = entry.expires_at - time.time()
    if left <= 0:
        return "expired; " + ("refreshed on next use" if refreshable else "log in again")
    minutes = int(left // 60)
    span = f"{minutes // 60}h {minutes % 60}m" if minutes >= 60 else f"{minutes}m" if minutes else f"{int(left)}s"
    return f"expires in {span}" + ("; refreshed on next use after that" if refreshable else "")


@auth.command("logout")
@click.argument("servers", nargs=-1)
@config_options
def logout(servers: tuple[str, ...], config_path: Path | None, servers_file: Path | None) -> int:
    """Forget the stored tokens and registration of each server (or those named)."""
    config = load_project(config_path, servers_file)
    store = TokenStore()
    for server in _oauth_servers(config.select(servers), named=bool(servers)):
        removed = store.remove(server.name)
        console.note(f"{server.name}: " + ("logged out" if removed else "nothing was stored"))
    return EXIT_OK
