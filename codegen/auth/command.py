"""`mcp-stubgen auth login|status|logout`: get, show and forget the OAuth tokens of configured servers.

`status` shows what is stored (scopes, expiry), never a token or a secret."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import anyio
import click

from codegen import console
from codegen.auth.state import login_state, stored_entries
from codegen.config import ServerConfig
from codegen.errors import EXIT_OK, StubgenError
from codegen.options import config_options, load_project
from codegen.runtime._auth import TokenStore


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
    previous = stored_entries(store, server)
    for entry in previous:
        store.save(dataclasses.replace(entry, tokens=None, scope=None, expires_at=None))  # a registration is kept
    # The browser is what a login is for: the token a CI run would use instead does not apply.
    fresh = dataclasses.replace(server, auth=dataclasses.replace(server.auth, token=None))

    from codegen.snapshot.discovery import connect  # the SDK's transports load only when needed

    async def handshake() -> None:
        async with connect(fresh):
            pass

    try:
        anyio.run(handshake)
    except BaseException:
        # A login that did not finish (no browser could open, the server is down, Ctrl-C) leaves the
        # login it would have replaced, which later runs still use.
        for entry in previous:
            store.save(entry)
        raise
    stored = [entry for entry in stored_entries(store, server) if entry.tokens is not None]
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
