"""OAuth for MCP servers: the token store `mcp-stubgen auth login` writes, and `stored_auth`, which
lets an application reuse what is stored there (`Client.connect(url, auth=stored_auth("weather"))`).

Tokens live in the OS keyring when the optional `keyring` package is installed and works, and
otherwise in `tokens.json` under the user's config folder (`MCP_STUBGEN_CONFIG_DIR`, else
`$XDG_CONFIG_HOME/mcp-stubgen` or the platform's equivalent), written with mode 0600. Records are
keyed by server URL and client identity; a token is only ever sent to the origin it was issued for.
This file is part of mcp-stubgen's runtime: it needs only `mcp` and the standard library.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import tempfile
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from ._http import authorization_server_failing, status_line
from ._runtime import AuthError, remember_sent_token

STORE_VARIABLE = "MCP_STUBGEN_TOKEN_STORE"
"""`file` keeps tokens in the 0600 file even when a keyring is available; `keyring` requires one."""
CONFIG_DIR_VARIABLE = "MCP_STUBGEN_CONFIG_DIR"
KEYRING_SERVICE = "mcp-stubgen"
REGISTERED = "registered"
"""The client identity of a client the authorization server registered for us (its id comes later)."""


def _now() -> float:
    """Seconds since the epoch (not `time.time`: a generated package may itself be named `time`)."""
    return datetime.now().timestamp()


def config_dir() -> Path:
    """The user's mcp-stubgen config folder, which holds the token file."""
    chosen = os.environ.get(CONFIG_DIR_VARIABLE)
    if chosen:
        return Path(chosen)
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "mcp-stubgen"


def origin(url: str) -> tuple[str, str]:
    """Scheme and host:port, lower-cased: a token is sent only to requests of its own origin."""
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


@dataclass
class StoredEntry:
    """What is kept for one server URL and client identity. `tokens` and `client_info` are secret."""

    server: str
    url: str
    client: str
    scope: str | None = None
    expires_at: float | None = None
    """Seconds since the epoch when the access token expires, as the server said; None: not said."""
    tokens: dict[str, Any] | None = None
    client_info: dict[str, Any] | None = None

    @property
    def key(self) -> str:
        return f"{self.url} {self.client}"


@dataclass
class TokenStore:
    """The records of every server, in the keyring (secrets) plus the 0600 file (the rest), or in the
    file alone."""

    folder: Path = field(default_factory=config_dir)

    @property
    def path(self) -> Path:
        return self.folder / "tokens.json"

    @property
    def location(self) -> str:
        """Where the secrets are, for people: the keyring's name or the file's path."""
        keyring = _keyring()
        return (
            f"the OS keyring ({type(keyring.get_keyring()).__name__})"
            if keyring is not None
            else str(self.path)
        )

    def entries(self) -> list[StoredEntry]:
        keyring = _keyring()
        entries = []
        for raw in self._read().values():
            entry = StoredEntry(**raw)
            if keyring is not None and entry.tokens is None and entry.client_info is None:
                secret = keyring.get_password(KEYRING_SERVICE, entry.key)
                if secret:
                    entry.tokens, entry.client_info = json.loads(secret)
            entries.append(entry)
        return sorted(entries, key=lambda entry: (entry.server, entry.key))

    def find(self, url: str, client: str) -> StoredEntry | None:
        return next(
            (entry for entry in self.entries() if (entry.url, entry.client) == (url, client)), None
        )

    def save(self, entry: StoredEntry) -> None:
        records = self._read()
        keyring = _keyring()
        record = asdict(entry)
        if keyring is not None:
            keyring.set_password(
                KEYRING_SERVICE, entry.key, json.dumps([entry.tokens, entry.client_info])
            )
            record["tokens"] = record["client_info"] = None
        records[entry.key] = record
        self._write(records)

    def remove(self, server: str) -> list[StoredEntry]:
        """Forget every record of `server`; returns what was removed."""
        records = self._read()
        removed = [StoredEntry(**raw) for raw in records.values() if raw["server"] == server]
        keyring = _keyring()
        for entry in removed:
            del records[entry.key]
            if keyring is not None:
                with contextlib.suppress(Exception):
                    keyring.delete_password(KEYRING_SERVICE, entry.key)
        if removed:
            self._write(records)
        return removed

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            raise OAuthFlowError(
                f"cannot read the token store {self.path} ({type(error).__name__})"
            ) from None
        records = document.get("entries", {}) if isinstance(document, dict) else {}
        return records if isinstance(records, dict) else {}

    def _write(self, records: dict[str, dict[str, Any]]) -> None:
        """Atomically, readable by the user alone: the file never exists with wider permissions."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = json.dumps({"version": 1, "entries": records}, indent=2, sort_keys=True) + "\n"
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".tokens-", suffix=".tmp")
        try:
            os.chmod(temporary, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _keyring() -> Any:
    """The `keyring` module when it is installed, usable and not turned off; else None."""
    choice = os.environ.get(STORE_VARIABLE, "")
    if choice == "file":
        return None
    try:
        keyring = importlib.import_module("keyring")
        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001  # any keyring that cannot load means the file store
        backend = None
    usable = (
        backend is not None
        and getattr(backend, "priority", 0) > 0
        and "fail" not in type(backend).__module__
    )
    if not usable:
        if choice == "keyring":
            raise OAuthFlowError(f"{STORE_VARIABLE}=keyring, but no usable keyring is installed")
        return None
    return keyring


class StoredTokens:
    """The SDK's `TokenStorage` over one record of the store."""

    def __init__(self, store: TokenStore, server: str, url: str, client: str) -> None:
        self.store, self.server, self.url, self.client = store, server, url, client

    def _entry(self) -> StoredEntry:
        return self.store.find(self.url, self.client) or StoredEntry(
            self.server, self.url, self.client
        )

    async def get_tokens(self) -> OAuthToken | None:
        entry = self._entry()
        if entry.tokens is None:
            return None
        token = OAuthToken.model_validate(entry.tokens)
        if entry.expires_at is not None:
            token.expires_in = max(0, int(entry.expires_at - _now()))
        return token

    async def set_tokens(self, tokens: OAuthToken) -> None:
        entry = self._entry()
        entry.server = self.server
        entry.tokens = tokens.model_dump(mode="json", exclude_none=True)
        entry.scope = tokens.scope
        entry.expires_at = _now() + tokens.expires_in if tokens.expires_in is not None else None
        self.store.save(entry)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        info = self._entry().client_info
        return OAuthClientInformationFull.model_validate(info) if info is not None else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        entry = self._entry()
        entry.client_info = client_info.model_dump(mode="json", exclude_none=True)
        self.store.save(entry)


class StoredAuthMixin(OAuthClientProvider):
    """What every provider of ours adds to the SDK's: a stored token's expiry is honoured (so it is
    refreshed, not sent stale), the token goes only to the server's own origin, a failure says
    which step of the flow failed, and the request after a failure reads the store again (a new
    `auth login` may have renewed what failed)."""

    server_name: str = ""
    step: str = "metadata discovery"
    refresh_refused: bool = False
    """The authorization server refused this flow's refresh: the stored login no longer works."""

    async def _initialize(self) -> None:
        await super()._initialize()
        if (
            self.context.current_tokens is not None
            and self.context.current_tokens.expires_in is not None
        ):
            self.context.update_token_expiry(self.context.current_tokens)

    def _add_auth_header(self, request: httpx2.Request) -> None:
        if origin(str(request.url)) == origin(self.context.server_url):
            super()._add_auth_header(request)
            tokens = self.context.current_tokens
            if tokens is not None and tokens.access_token:
                remember_sent_token(tokens.access_token)

    async def _perform_authorization(self) -> httpx2.Request:
        self.step = "authorization"
        self._refuse_a_grant_not_offered()
        return await super()._perform_authorization()

    def _refuse_a_grant_not_offered(self) -> None:
        """Raise `AuthError` when the authorization server's metadata lists the grants it takes and
        the one this flow uses (the first its client declares) is not among them: before a browser
        opens or a client is registered, not after the token endpoint refuses the grant. Metadata
        that lists none takes `authorization_code` by default (RFC 8414), so nothing is refused."""
        metadata = self.context.oauth_metadata
        offered = metadata.grant_types_supported if metadata is not None else None
        needed = self.context.client_metadata.grant_types[0]
        if offered is None or needed in offered:
            return
        raise AuthError(
            self.server_name, "authorization", _grant_not_offered(self.server_name, needed, offered)
        )

    def _refuse_a_registration_elsewhere(self, registration: httpx2.Request) -> None:
        """Raise `AuthError` when the authorization server's metadata names no registration endpoint
        and the SDK's fallback would register at another origin (the MCP server's own `/register`):
        the authorization server would not know that client id, its page would never send the
        browser back, and the login would wait the whole callback timeout for it."""
        metadata = self.context.oauth_metadata
        if metadata is None or metadata.registration_endpoint is not None:
            return
        issuer = str(metadata.issuer)
        if origin(str(registration.url)) == origin(issuer):
            return
        raise AuthError(
            self.server_name,
            "registration",
            f"the authorization server {issuer.rstrip('/')[:200]!r} registers no clients itself (its "
            "metadata has no registration_endpoint); register a client with it, then set client_id "
            "(and client_secret, if it gave one) under "
            f"[tool.mcp-stubgen.servers.{self.server_name}.auth]",
        )

    def _step_of(self, request: httpx2.Request) -> str:
        path = request.url.path
        if "/.well-known/" in path:
            return "metadata discovery"
        if request.method == "POST" and b"grant_type=refresh_token" in request.content:
            return "refresh"
        if request.method == "POST" and b"grant_type=" in request.content:
            return "token exchange"
        metadata = self.context.oauth_metadata
        registration = (
            str(metadata.registration_endpoint)
            if metadata and metadata.registration_endpoint
            else None
        )
        if request.method == "POST" and (
            str(request.url) == registration or path.endswith("/register")
        ):
            return "registration"
        return self.step

    async def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow, each failure labelled with its step. A request the server answers
        `insufficient_scope` right after the flow got its first token is run through the flow once
        more, which steps the scope up: the SDK steps up only on the first answer, so the request
        (a `server/discover` probe) would otherwise fail and the handshake fall back to `initialize`."""
        flow = super()._auth_flow(request)
        response: httpx2.Response | None = None
        self.step = "metadata discovery"
        self.refresh_refused = authorized = stepped_up = refreshed = False
        try:
            while True:
                try:
                    outgoing = await (
                        flow.__anext__() if response is None else flow.asend(response)
                    )
                except StopAsyncIteration:
                    if not (authorized and not stepped_up and _insufficient_scope(response)):
                        return
                    await flow.aclose()
                    flow, response, stepped_up = super()._auth_flow(request), None, True
                    continue
                except Exception as error:  # every failure is one AuthError line
                    self._initialized = False  # the next request loads the stored tokens again
                    if isinstance(error, AuthError):
                        raise
                    raise AuthError(
                        self.server_name, self.step, _advice(self.server_name, self.step, error)
                    ) from None
                if outgoing is not request:
                    self.step = self._step_of(outgoing)
                    if self.step == "registration":
                        self._refuse_a_grant_not_offered()
                        self._refuse_a_registration_elsewhere(outgoing)
                    authorized = True
                elif refreshed and response is not None and response.status_code == 200:
                    # The SDK sends a just-refreshed token only if it still looks unexpired: a machine
                    # that stalled past a short lifetime would send the request bare, and its 401
                    # would start a new authorization (a browser, or a new grant) for no reason.
                    self._add_auth_header(request)
                response = yield outgoing
                refreshed = outgoing is not request and self.step == "refresh"
                if refreshed and _server_failed(response):
                    # Not a refusal: the SDK would drop the login and authorize again. The next
                    # request loads the stored login again and retries its refresh.
                    self._initialized = False
                    advice = authorization_server_failing(self.step, status_line(response))
                    raise AuthError(self.server_name, self.step, advice)
                if refreshed and response.status_code != 200:
                    self.refresh_refused = True
        finally:
            await flow.aclose()  # it may hold the provider's lock


def _server_failed(response: httpx2.Response) -> bool:
    """Whether the authorization server failed (a 5xx) or asked to be left alone (429), rather than
    refused."""
    return response.status_code >= 500 or response.status_code == 429


def _insufficient_scope(response: httpx2.Response | None) -> bool:
    challenge = response.headers.get("www-authenticate", "") if response is not None else ""
    return (
        response is not None and response.status_code == 403 and "insufficient_scope" in challenge
    )


_OTHER_GRANTS = (
    "the jwt-bearer and token-exchange grants of enterprise-managed authorization and workload "
    "identity federation are not supported (docs/authentication.md)"
)
UNSUPPORTED_GRANT = (
    "the authorization server does not take the grants mcp-stubgen uses (authorization_code in a "
    f"browser, client_credentials); {_OTHER_GRANTS}"
)
"""What to do when the token endpoint answers `unsupported_grant_type`: no credential or login of
ours would help, so the line says which grants are missing rather than to check the credentials."""


_GRANT_MODES = {"authorization_code": "browser", "client_credentials": "client_credentials"}
"""The grants mcp-stubgen gets tokens with, and the `auth` mode that uses each."""


def _grant_not_offered(server: str, needed: str, offered: list[str]) -> str:
    """What to do when the authorization server's metadata does not offer the grant the server's
    auth mode uses: the other mode, when its grant is offered; else a token got another way. The
    grants are the server's text, each quoted (`repr`) so none can break the line."""
    listed = ", ".join(repr(grant[:100]) for grant in offered[:10]) or "none"
    said = (
        f"the authorization server offers the grants {listed} (its metadata's grant_types_supported), "
        f"not {needed}, which {_GRANT_MODES[needed]} mode uses; mcp-stubgen gets tokens with "
        "authorization_code (browser mode) and client_credentials (client_credentials mode)"
    )
    other = next(grant for grant in _GRANT_MODES if grant != needed)
    if other in offered:
        login = (
            f" and run `mcp-stubgen auth login {server}`" if other == "authorization_code" else ""
        )
        return f'{said}; set mode = "{_GRANT_MODES[other]}" in the server\'s auth config{login}'
    return f'{said}; {_OTHER_GRANTS}; get a token another way and set mode = "token"'


def _advice(server: str, step: str, error: Exception) -> str:
    """The SDK's reason, and what to do: a refusal for safety (another server's name in the metadata
    or the redirect) is for the server's operator to fix; nothing was sent to the stranger."""
    detail = (
        str(error).strip().splitlines()[0][:300] if str(error).strip() else type(error).__name__
    )
    if "mismatch" in detail or "does not match" in detail or "missing iss" in detail:
        return f"{detail}; refused for safety (no token or secret went to the server named), ask the server's operator"
    if step == "token exchange" and "unsupported_grant_type" in detail:
        return f"{detail}; {UNSUPPORTED_GRANT}"
    login = f"run `mcp-stubgen auth login {server}` again"
    what_to_do = {
        "metadata discovery": "check that the server's OAuth metadata is published and names this URL",
        "registration": "set a pre-registered client_id (and client_secret) in the server's auth config",
        "authorization": login,
        "token exchange": "check the client credentials in the server's auth config, or " + login,
        "refresh": login,
    }.get(step, "check the server's auth config")
    return f"{detail}; {what_to_do}"


class _StoredLogin(StoredAuthMixin):
    """A provider for an application: it refreshes what `auth login` stored, and authorizes again
    (a lost grant, a scope step-up) only through handlers the application gives."""

    async def _perform_authorization(self) -> httpx2.Request:
        if self.context.redirect_handler is None:
            self.step = "refresh" if self.refresh_refused else "authorization"
            reason = (
                "the stored login expired and the authorization server refused to refresh it"
                if self.refresh_refused
                else "the stored token is not enough"
            )
            raise AuthError(
                self.server_name,
                self.step,
                f"{reason}; run `mcp-stubgen auth login {self.server_name}` and retry",
            )
        return await super()._perform_authorization()


def stored_auth(
    server: str,
    *,
    redirect_handler: Callable[[str], Awaitable[None]] | None = None,
    callback_handler: Callable[[], Awaitable[AuthorizationCodeResult]] | None = None,
    store: TokenStore | None = None,
) -> httpx2.Auth:
    """An `httpx2.Auth` for `server` (its mcp-stubgen id) that uses and refreshes the tokens
    `mcp-stubgen auth login` stored; pass it to a generated client's `connect(url, auth=...)`.

    Authorizing again (the server asks for more scopes, the grant was revoked) needs a person: an
    application that has one gives the SDK's `redirect_handler` and `callback_handler`, which then
    answer on the stored registration's redirect URI; without them that raises `AuthError`. Raises
    `AuthError` now when nothing is stored for the server."""
    store = store or TokenStore()
    entries = [
        entry for entry in store.entries() if entry.server == server and entry.tokens is not None
    ]
    if not entries:
        raise AuthError(
            server,
            "authorization",
            f"nothing is stored; run `mcp-stubgen auth login {server}` first",
        )
    entry = entries[0]
    info = (
        OAuthClientInformationFull.model_validate(entry.client_info) if entry.client_info else None
    )
    provider = _StoredLogin(
        server_url=entry.url,
        client_metadata=OAuthClientMetadata(
            redirect_uris=info.redirect_uris if info is not None else None,
            grant_types=["authorization_code", "refresh_token"],
            scope=entry.scope,
        ),
        storage=StoredTokens(store, server, entry.url, entry.client),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    provider.server_name = server
    return provider
