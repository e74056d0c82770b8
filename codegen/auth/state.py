"""What is stored for a server's OAuth login, for people and as JSON (`auth status`, `list`); never
a token or a secret."""

from __future__ import annotations

import time
from typing import Any

from codegen.config import ServerConfig
from codegen.runtime._auth import REGISTERED, StoredEntry, TokenStore

__all__ = ["login_state", "stored_entries"]


def stored_entries(store: TokenStore, server: ServerConfig) -> list[StoredEntry]:
    return [entry for entry in store.entries() if entry.server == server.name and entry.url == server.url]


def login_state(server: ServerConfig, store: TokenStore) -> tuple[str, dict[str, Any]]:
    """What is stored for a server with an `auth` table, for people and as JSON; never a token."""
    assert server.auth is not None
    entries = [entry for entry in stored_entries(store, server) if entry.tokens is not None]
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
