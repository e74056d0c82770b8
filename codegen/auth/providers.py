"""The `httpx2.Auth` a server's `[auth]` config asks for: the SDK's OAuth providers over our token
store (`codegen/runtime/_auth.py`), a loopback redirect for the browser, and a bearer token from the
environment. Discovery passes it to the HTTP client, so every command that connects uses it."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
import threading
import warnings
import webbrowser
from collections.abc import Generator
from typing import Literal, TypeVar
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.abc
import httpx2
from mcp.client.auth import OAuthFlowError
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import AnyUrl

from codegen import console
from codegen.config import AuthConfig, ServerConfig, expand_secrets
from codegen.errors import StubgenError
from codegen.redact import Secrets
from codegen.runtime._auth import REGISTERED, StoredAuthMixin, StoredEntry, StoredTokens, TokenStore, origin
from codegen.runtime._runtime import AuthError
from codegen.snapshot.deadlines import paused

INTERACTIVE_VARIABLE = "MCP_STUBGEN_INTERACTIVE"
"""`1` lets a run without a terminal open the browser (`BROWSER` chooses which); `0` never does."""
CALLBACK_TIMEOUT = 300.0
"""Seconds `auth login` waits for the browser to come back to the loopback redirect."""
_Tokens = TypeVar("_Tokens", OAuthToken, OAuthToken | None)
_VARIABLE_NAME = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)")


def interactive() -> tuple[bool, str]:
    """Whether a browser may be opened, and if not, why (for the error line)."""
    chosen = os.environ.get(INTERACTIVE_VARIABLE)
    if chosen in ("0", "1"):
        return chosen == "1", f"{INTERACTIVE_VARIABLE}={chosen}"
    if os.environ.get("CI"):
        return False, "CI is set"
    if not sys.stdin.isatty():  # run by an editor's task or make: the person may well be there
        return False, f"no terminal; {INTERACTIVE_VARIABLE}=1 opens it anyway"
    return True, ""


def secret_values(server: ServerConfig) -> list[str]:
    """The expanded secrets of a server's auth config, and the tokens and registered client secret
    its flow has stored, for `codegen.redact` to keep out of every output: a server may echo the
    token it was sent into an error or its catalog."""
    auth = server.auth
    if auth is None:
        return []
    values = {"client_secret": auth.client_secret, "private_key": auth.private_key, "token": auth.token}
    present = {key: value for key, value in values.items() if value is not None}
    try:
        configured = list(expand_secrets(present, server.name, "auth").values())
    except StubgenError:
        configured = []  # `auth_for` reports the missing variable
    return configured + _stored_secrets(server)


def _stored_secrets(server: ServerConfig) -> list[str]:
    """The access and refresh tokens and the client secret stored for the server's URL."""
    found: list[object] = []
    with contextlib.suppress(OAuthFlowError):  # `auth_for` reports a store that cannot be read
        for entry in TokenStore().entries():
            if entry.url == server.url:
                tokens, client = entry.tokens or {}, entry.client_info or {}
                found += [tokens.get("access_token"), tokens.get("refresh_token"), client.get("client_secret")]
    return [value for value in found if isinstance(value, str) and value]


def auth_for(server: ServerConfig, *, store: TokenStore | None = None) -> httpx2.Auth | None:
    """The auth for `server`'s HTTP client, or None when it has no `[auth]` table."""
    auth = server.auth
    if auth is None or server.url is None:
        return None
    store = store or TokenStore()
    if auth.mode == "token":
        return BearerToken(_expanded(server, "token", auth.token), server.url)
    if auth.mode == "client_credentials":
        return _client_credentials(server, auth, store)
    fallback = _optional(server, auth.token)
    if fallback:
        return BearerToken(fallback, server.url)
    return _browser(server, auth, store)


def _expanded(server: ServerConfig, key: str, value: str | None) -> str:
    assert value is not None  # config.py checked the mode has it
    return expand_secrets({key: value}, server.name, f"auth.{key}")[key]


def _optional(server: ServerConfig, value: str | None) -> str | None:
    """A `${VAR}` value that may be unset: None then, not an error."""
    if value is None:
        return None
    try:
        return expand_secrets({"value": value}, server.name, "auth")["value"] or None
    except StubgenError:
        return None


def _scopes(auth: AuthConfig) -> str | None:
    return " ".join(auth.scopes) or None


def _client_credentials(server: ServerConfig, auth: AuthConfig, store: TokenStore) -> httpx2.Auth:
    assert server.url is not None
    client_id = _expanded(server, "client_id", auth.client_id)
    issuer = _optional(server, auth.issuer)
    storage = _ScrubbedTokens(store, server.name, server.url, client_id)
    provider: StoredAuthMixin
    if auth.client_auth == "private_key_jwt":
        assertion = SignedJWTParameters(
            issuer=client_id,
            subject=client_id,
            signing_key=_expanded(server, "private_key", auth.private_key),
            signing_algorithm=auth.signing_algorithm,
        ).create_assertion_provider()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            provider = _PrivateKeyJWT(server.url, storage, client_id, assertion, _scopes(auth), issuer)
    else:
        method: Literal["client_secret_basic", "client_secret_post"] = (
            "client_secret_post" if auth.client_auth == "client_secret_post" else "client_secret_basic"
        )
        secret = _expanded(server, "client_secret", auth.client_secret)
        with warnings.catch_warnings():  # `issuer` is optional in the config: docs/authentication.md says why to set it
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            provider = _ClientCredentials(server.url, storage, client_id, secret, method, _scopes(auth), issuer)
    provider.server_name = server.name
    return provider


def _browser(server: ServerConfig, auth: AuthConfig, store: TokenStore) -> httpx2.Auth:
    assert server.url is not None
    client_id = _optional(server, auth.client_id)
    storage = _ScrubbedTokens(store, server.name, server.url, client_id or REGISTERED)
    entry = store.find(server.url, storage.client)
    allowed, why_not = interactive()
    if not allowed and (entry is None or entry.tokens is None):
        raise StubgenError(f"server {server.name!r}: OAuth authorization {_needs_browser(server, why_not)}")
    callback = LoopbackCallback(server, auth.redirect_port or _stored_port(entry), allowed, why_not)
    redirect = [AnyUrl(callback.redirect_uri)]
    provider = _Browser(
        server_url=server.url,
        client_metadata=OAuthClientMetadata(
            client_name="mcp-stubgen",
            redirect_uris=redirect,
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope=_scopes(auth),
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=callback.open_browser,
        callback_handler=callback.wait,
        client_metadata_url=auth.client_metadata_url,
    )
    provider.server_name = server.name
    if client_id is not None:
        secret = _optional(server, auth.client_secret)
        provider.preregistered = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=secret,
            redirect_uris=redirect,
            token_endpoint_auth_method=auth.client_auth if secret else "none",
            issuer=_optional(server, auth.issuer),
        )
    return provider


def _stored_port(entry: StoredEntry | None) -> int:
    """The port a stored registration's redirect URI names: the authorization server may hold us to it."""
    info = (entry.client_info if entry is not None else None) or {}
    ports = [urlsplit(str(uri)).port for uri in info.get("redirect_uris") or []]
    return next((port for port in ports if port), 0)


def _needs_browser(server: ServerConfig, why_not: str) -> str:
    """What to do where a login is needed and no browser can open: the variable to set, by name."""
    auth = server.auth
    assert auth is not None
    named = _VARIABLE_NAME.findall(auth.token or "")
    if named:
        what = f"export {named[0]} (the token its auth.token reads)"
    else:
        variable = re.sub(r"[^A-Z0-9]", "_", server.name.upper()) + "_TOKEN"
        what = (
            f'set token = "${{{variable}}}" under [tool.mcp-stubgen.servers.{server.name}.auth] and export '
            f"{variable}, or configure client credentials"
        )
    return (
        f"needs a browser, and this run cannot open one ({why_not}); "
        f"{what}; or run `mcp-stubgen auth login {server.name}` where a browser can open"
    )


class _ScrubbedTokens(StoredTokens):
    """The store, with every token and client secret it hands out or takes kept out of log records
    (`-v` shows the SDK's and httpx's)."""

    async def get_tokens(self) -> OAuthToken | None:
        return _scrubbed(await super().get_tokens())

    async def set_tokens(self, tokens: OAuthToken) -> None:
        await super().set_tokens(_scrubbed(tokens))

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        Secrets([client_info.client_secret or ""])
        await super().set_client_info(client_info)


def _scrubbed(tokens: _Tokens) -> _Tokens:
    if tokens is not None:
        Secrets([tokens.access_token, tokens.refresh_token or ""])  # remembered by the log scrubber
    return tokens


class _Browser(StoredAuthMixin):
    """Authorization code + PKCE; a pre-registered client replaces dynamic registration."""

    preregistered: OAuthClientInformationFull | None = None

    async def _initialize(self) -> None:
        await super()._initialize()
        if self.preregistered is not None:
            self.context.client_info = self.preregistered


class _ClientCredentials(StoredAuthMixin, ClientCredentialsOAuthProvider):
    pass


class _PrivateKeyJWT(StoredAuthMixin, PrivateKeyJWTOAuthProvider):
    pass


class BearerToken(httpx2.Auth):
    """A token from the environment, sent only to the server's own origin."""

    def __init__(self, token: str, url: str) -> None:
        self._token, self._origin = token, origin(url)

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        if origin(str(request.url)) == self._origin:
            request.headers["Authorization"] = f"Bearer {self._token}"
        yield request


class LoopbackCallback:
    """The redirect target `http://127.0.0.1:<port>/callback`: opens the browser on the authorization
    URL, then waits for the browser to come back with the code."""

    def __init__(self, config: ServerConfig, port: int, allowed: bool, why_not: str) -> None:
        self.server, self.config, self.allowed, self.why_not = config.name, config, allowed, why_not
        self.port = port or _free_port()
        self._listener: anyio.abc.SocketListener | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    async def open_browser(self, url: str) -> None:
        if not self.allowed:
            # The stored grant stopped working (a refresh was refused) where no browser can open.
            advice = _needs_browser(self.config, self.why_not)
            raise AuthError(self.server, "authorization", f"the stored login no longer works, and a new one {advice}")
        try:
            listening = socket.create_server(("127.0.0.1", self.port))
            self._listener = await anyio.abc.SocketListener.from_socket(listening)
        except OSError as error:
            raise AuthError(
                self.server, "authorization", f"cannot listen on {self.redirect_uri} ({error.strerror}); free the port"
            ) from None
        console.note(f"{self.server}: opening the browser to authorize; if it does not open, visit {url}")
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    async def wait(self) -> AuthorizationCodeResult:
        assert self._listener is not None
        try:
            with paused(), anyio.fail_after(CALLBACK_TIMEOUT):
                while True:
                    result = await self._answer(await self._listener.accept())
                    if result is not None:
                        return result
        except TimeoutError:
            raise AuthError(
                self.server, "authorization", f"the browser did not come back within {CALLBACK_TIMEOUT:g}s; retry"
            ) from None
        finally:
            await self._listener.aclose()

    async def _answer(self, stream: anyio.abc.SocketStream) -> AuthorizationCodeResult | None:
        async with stream:
            request = b""
            with anyio.move_on_after(10):
                while b"\r\n\r\n" not in request and len(request) < 65536:
                    request += await stream.receive()
            target = request.split(b" ", 2)[1].decode("ascii", "replace") if request.count(b" ") >= 2 else ""
            parts = urlsplit(target)
            if parts.path != "/callback":
                await stream.send(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return None
            query = {key: values[0] for key, values in parse_qs(parts.query).items()}
            done = "error" not in query and "code" in query
            page = b"mcp-stubgen: " + (b"authorized; you can close this window." if done else b"authorization failed.")
            head = f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {len(page)}\r\nConnection: close\r\n\r\n"
            await stream.send(head.encode() + page)
        if not done:
            reason = query.get("error_description") or query.get("error") or "no code in the redirect"
            raise AuthError(self.server, "authorization", f"the authorization server said: {reason[:200]}")
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
