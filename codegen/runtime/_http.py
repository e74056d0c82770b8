"""The Streamable HTTP transport of generated clients and hubs: the SDK's, over an HTTP client that
turns what a server does wrong at the HTTP level into the error answer of the one request concerned.

The SDK's transport, given a URL, ended the whole session when one request failed below HTTP (a
reset connection, a response header past 100 KB): a hub lost every server. It read a JSON answer of
any size into memory (a 1 MB gzip body that expands to a gigabyte), waited for ever on a JSON answer
carrying another request's id, took an event-stream answer carrying another request's id as this
request's, logged a traceback for an answer that is not JSON-RPC (with a pydantic report of many
lines as the error), and reported an HTTP error page as "Server returned an error response" without
its status. Here each is that request's JSON-RPC error answer, one line saying what the server did
(`ServerError`); the session goes on. So is a request's authorization failure: the server refusing
its credentials (401, 403 `insufficient_scope`), or the `auth` flow failing (a refused refresh ended
the whole session); the runtime raises that answer as `UnauthorizedError`, an `AuthError`.

This file is copied verbatim into each output folder's runtime (`_mcp_runtime/`). It imports only
the standard library here; `httpx2` and `mcp` load when a connection opens.
"""

from __future__ import annotations

import contextvars
import functools
import json
import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from ._stdio import NOT_JSON

if TYPE_CHECKING:
    import httpx2
    from mcp.client._transport import TransportStreams

    from ._runtime import AuthError

MAX_ANSWER_BYTES = 64 << 20
"""The most a JSON answer may hold once decoded (a gzip body that expands past it fails its request),
and one event of a Streamable HTTP event stream (the SDK's own limit, 1 MiB, refused ToolUniverse's
2,720 tools in one `tools/list` answer, which stdio and a JSON answer carry)."""
HTTP_STATUS_KEY = "httpStatus"
"""The key of an error answer's `data` (made here of an HTTP error page) that holds its status."""
RETRY_AFTER_KEY = "retryAfter"
"""The key of `data` that holds the error page's `Retry-After`, when it has one."""
AUTH_STEP_KEY = "authStep"
"""The key of `data` that names the OAuth step of a request's authorization failure. These three
names are read by the runtime (`UnauthorizedError`) and by mcp-stubgen's `snapshot`, from here."""
_ERROR_PAGE_BYTES = 1 << 16
"""How much of an HTTP error's body is read, for the JSON-RPC error a server may put there."""
_CONNECTION_CLOSED = -32000
_INVALID_REQUEST = -32600
_METHOD_NOT_FOUND = -32601
_INTERNAL_ERROR = -32603
_PARSE_ERROR = -32700
BATCH = (
    "its answer is a JSON-RPC batch (a JSON array), which MCP has not allowed since 2025-06-18 "
    "and the MCP SDK does not read"
)
"""What an answer sent in a batch fails its request with, over Streamable HTTP and stdio alike."""
_LINE_END = re.compile(rb"\r\n|\r|\n")
_MESSAGE_HEAD = re.compile(
    rb'\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*(?:"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,\s*)?"(method|result|error)"'
)

_log = logging.getLogger(__name__)
_DRIVING_AUTH = contextvars.ContextVar("_DRIVING_AUTH", default=False)
"""Whether this task is inside an `auth` flow that the HTTP client below reports the failures of."""


class _ReportedAuthFailures(logging.Filter):
    """Leaves out the SDK's OAuth records that carry a traceback ("OAuth flow error") while the flow
    is one whose failure the caller gets as one `AuthError` line: an application that configures no
    logging would print the traceback on stderr."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.exc_info is None or not _DRIVING_AUTH.get()


@asynccontextmanager
async def http_transport(
    url: str, server_name: str, auth: httpx2.Auth | None = None, **client_options: Any
) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP to `url` (with every request authenticated by `auth`, if given): the SDK's
    transport, over the client `_guarded_client_class` makes with `client_options` (mcp-stubgen's
    own sessions give their configured headers, timeouts and a response hook), by default with the
    SDK's timeouts."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    client_class = _guarded_client_class()
    client_options.setdefault("timeout", httpx2.Timeout(30.0, read=300.0))
    async with (
        client_class(server_name, auth=auth, **client_options) as http,
        streamable_http_client(
            url, http_client=http, max_sse_event_size=MAX_ANSWER_BYTES
        ) as streams,
    ):
        yield streams


@functools.cache
def _guarded_client_class() -> Callable[..., httpx2.AsyncClient]:
    """The client class, made on first use (this module imports only the standard library)."""
    import httpx2

    from ._runtime import AuthError

    logging.getLogger("mcp.client.auth.oauth2").addFilter(_ReportedAuthFailures())

    class FailingAsAuthError(httpx2.Auth):
        """`auth`, whose flow's own failure raises `AuthError` whatever it was (the SDK's providers
        raise their own errors, an application's `httpx2.Auth` anything); a failure to send one of
        its requests is the client's to report (`_unsent_auth_request`)."""

        def __init__(self, auth: httpx2.Auth, server_name: str) -> None:
            self.auth = auth
            self.server_name = server_name

        async def async_auth_flow(
            self, request: httpx2.Request
        ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            flow = self.auth.async_auth_flow(request)
            response: httpx2.Response | None = None
            try:
                while True:
                    driving = _DRIVING_AUTH.set(True)
                    try:
                        outgoing = await (
                            flow.__anext__() if response is None else flow.asend(response)
                        )
                    except StopAsyncIteration:
                        return
                    except AuthError:
                        raise
                    except Exception as error:  # noqa: BLE001  # any failure of the flow is one line
                        advice = (
                            f"auth= could not authorize the request ({_transport_failure(error)})"
                        )
                        raise AuthError(self.server_name, "authorization", advice) from None
                    finally:
                        _DRIVING_AUTH.reset(driving)
                    response = yield outgoing
            finally:
                await flow.aclose()

    class GuardedClient(httpx2.AsyncClient):
        """An `httpx2.AsyncClient` whose answer to a JSON-RPC request POST is one the SDK reads: a
        failure below HTTP, an HTTP error, a JSON body that is too large, not JSON-RPC or another
        request's answer, a body of another type and the `auth` flow's failure (`AuthError`) become
        the request's JSON-RPC error answer; an event stream is passed on event by event, each
        checked (`_EventCheck`). Other requests (the GET stream, DELETE, OAuth's) are sent as they
        are."""

        def __init__(
            self,
            server_name: str,
            auth: httpx2.Auth | None = None,
            on_unreadable: Callable[[bytes], None] | None = None,
            **options: Any,
        ) -> None:
            super().__init__(**options)
            self.server_name = server_name
            self.on_unreadable = on_unreadable
            """Told the text of each answer the SDK's JSON parser refuses (discovery names the
            entry and the JSON pointer of a lone surrogate in it, as it does over stdio)."""
            self.given_auth = auth
            """The `auth` given, which the messages of a refusal of its credentials name."""
            if auth is not None:
                self.auth = FailingAsAuthError(auth, server_name)

        async def send(self, request: httpx2.Request, **options: Any) -> httpx2.Response:
            json_rpc, request_id = _sent_message(request)
            if not json_rpc:
                response = await super().send(request, **options)
                if (
                    request.method == "GET"
                    and response.status_code == 200
                    and _media_type(response) == "text/event-stream"
                ):
                    return _checked_stream(response, None, self.server_name)
                return response
            try:
                response = await super().send(request, **options)
            except httpx2.TransportError as error:
                unreachable = self._unsent_auth_request(request, error)
                if unreachable is not None:
                    return self._auth_failure(request, request_id, unreachable)
                if request_id is None:  # a notification or an answer: the SDK ignores its failure
                    _log.warning(
                        "%s: a message to the server was lost (%s)",
                        self.server_name,
                        _transport_failure(error),
                    )
                    return httpx2.Response(502, request=request)
                return _error_answer(request, request_id, _CONNECTION_CLOSED, _unanswered(error))
            except AuthError as error:
                return self._auth_failure(request, request_id, error)
            if (
                request_id is None
                or response.status_code == 202
                or 300 <= response.status_code < 400
            ):
                return response  # what the SDK reads as it is: no answer, a redirect
            try:
                if response.status_code >= 400:
                    return await _http_error(request, request_id, response, self.given_auth)
                media_type = _media_type(response)
                if media_type == "text/event-stream":
                    return _checked_stream(
                        response, request_id, self.server_name, self.on_unreadable
                    )
                if media_type != "application/json":
                    await response.aclose()
                    shown = (
                        f"Content-Type {_clip(media_type, 60)}" if media_type else "no Content-Type"
                    )
                    return _error_answer(
                        request,
                        request_id,
                        _INVALID_REQUEST,
                        f"its answer has {shown}, not application/json or text/event-stream",
                    )
                return await _json_answer(request, request_id, response, self.on_unreadable)
            except httpx2.RequestError as error:  # the body broke off, or cannot be decoded
                await response.aclose()
                code = (
                    _CONNECTION_CLOSED if isinstance(error, httpx2.TransportError) else _PARSE_ERROR
                )
                return _error_answer(request, request_id, code, _transport_failure(error))

        def _auth_failure(
            self, request: httpx2.Request, request_id: Any, error: AuthError
        ) -> httpx2.Response:
            """The request's error answer for its authorization failure (`auth_failure_error`);
            for a notification, a warning."""
            failure = auth_failure_error(error)
            if request_id is None:
                _log.warning(
                    "%s: a message to the server was lost (%s)",
                    self.server_name,
                    failure["message"],
                )
                return httpx2.Response(502, request=request)
            return _error_answer(
                request, request_id, failure["code"], failure["message"], failure["data"]
            )

        def _unsent_auth_request(
            self, request: httpx2.Request, error: httpx2.TransportError
        ) -> AuthError | None:
            """The `AuthError` for a failure to send a request of the `auth` flow's own (a token
            refresh to an authorization server that is down), naming its step; None when the request
            that failed is the one given."""
            try:
                failed = error.request
            except RuntimeError:  # httpx knows no request for it
                return None
            if self.given_auth is None or failed is request:
                return None
            from ._auth import StoredAuthMixin

            step = "authorization"
            if isinstance(self.given_auth, StoredAuthMixin):
                step = self.given_auth._step_of(failed)
            why = _transport_failure(error)
            advice = authorization_server_failing(step, why)
            if step == "metadata discovery":
                # A URL the server named, which need not be an authorization server's.
                url = failed.url
                shown = _clip(f"{url.scheme}://{url.netloc.decode('ascii')}{url.path}", 200)
                advice = (
                    f"{shown} cannot be reached ({why}); retry, and if it persists ask the "
                    "server's operator"
                )
            return AuthError(self.server_name, step, advice)

    return GuardedClient


def auth_failure_error(error: AuthError) -> dict[str, Any]:
    """The JSON-RPC error that stands for a request whose `auth` flow failed: the step in `data`,
    what to do in the message (`OAuth <step> failed: <advice>`)."""
    message = f"OAuth {error.step} failed: {error.advice}"
    return {"code": _INTERNAL_ERROR, "message": message, "data": {AUTH_STEP_KEY: error.step}}


def authorization_server_failing(step: str, why: str) -> str:
    """What to do when the authorization server could not be reached, or failed (a 5xx), rather than
    refused: nothing about the login is wrong, and a new login would fail alike."""
    what = ", so the expired login could not be refreshed" if step == "refresh" else ""
    return (
        f"the authorization server is unreachable or failing ({why}){what}; retry, and if it "
        "persists check that it is up"
    )


def status_line(response: httpx2.Response) -> str:
    """`HTTP 503 Service Unavailable`: the status and its phrase."""
    status = response.status_code
    return f"HTTP {status} {response.reason_phrase or _standard_phrase(status)}".strip()


def _sent_message(request: httpx2.Request) -> tuple[bool, Any]:
    """Whether a POST carries a JSON-RPC message, and the id of the request it is (None for a
    notification or an answer). The SDK's messages begin `{"jsonrpc":"2.0","id":1,"method":`: read
    there, a large request is not parsed again; any other body is parsed whole."""
    if request.method != "POST" or not request.headers.get("content-type", "").startswith(
        "application/json"
    ):
        return False, None
    try:
        body = request.content
    except Exception:  # noqa: BLE001  # a body not read yet: not one of the SDK's messages
        return False, None
    head = _MESSAGE_HEAD.match(body, 0, 200)
    if head is not None:
        request_id = head[1] if head[2] == b"method" else None
        return True, None if request_id is None else json.loads(request_id)
    try:
        message = json.loads(body)
    except ValueError:
        return False, None
    if not isinstance(message, dict) or "jsonrpc" not in message:
        return False, None
    return True, message.get("id") if "method" in message else None


def _media_type(response: httpx2.Response) -> str:
    return response.headers.get("content-type", "").partition(";")[0].strip().lower()


def _transport_failure(error: Exception) -> str:
    return _clip(f"{type(error).__name__}: {error}".splitlines()[0], 200)


def _unanswered(error: Exception) -> str:
    """A request's failure below HTTP; where nothing accepted the connection, or its TLS handshake
    failed, what to check."""
    said = _transport_failure(error)
    if type(error).__name__ not in ("ConnectError", "ConnectTimeout"):
        return said
    tls = tls_failure(said)
    if tls is None:
        return f"{said}; is the server running?"
    words, plain = tls
    advice = "; if the server speaks plain HTTP, use its http:// URL" if plain else ""
    return f"{type(error).__name__}: the TLS handshake failed ({words}){advice}"


_TLS_FAILURE = re.compile(r"\[SSL(?:: (?P<code>[A-Z_]+))?\][^()]*[^() ]")
"""OpenSSL's words in a failed handshake, `[SSL: WRONG_VERSION_NUMBER] wrong version number`, up to
the bracket of the C file's line, or of our own message around them."""
_PLAIN_HTTP_ANSWER = frozenset(("WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "HTTP_REQUEST"))
"""What OpenSSL calls a plain HTTP answer to its handshake, by version."""


def tls_failure(detail: str) -> tuple[str, bool] | None:
    """OpenSSL's words where a connection failed in its TLS handshake, and whether they say the server
    answered in plain HTTP (an `https://` URL of a server that speaks `http://`, which was "is the
    server running?" of a server that was); None for any other failure."""
    found = _TLS_FAILURE.search(detail)
    return None if found is None else (found.group(), found.group("code") in _PLAIN_HTTP_ANSWER)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _error_answer(
    request: httpx2.Request,
    request_id: Any,
    code: int,
    message: str,
    data: Any = None,
    status: int = 200,
    headers: httpx2.Headers | None = None,
) -> httpx2.Response:
    """A JSON-RPC error answering `request_id`, as the body of an HTTP answer the SDK reads."""
    import httpx2

    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
    kept = [
        (name, value)
        for name, value in _body_headers_left_out(headers or httpx2.Headers())
        if name.lower() != "content-type"
    ]
    return httpx2.Response(
        status,
        headers=[*kept, ("content-type", "application/json")],
        content=body,
        request=request,
    )


async def _read(response: httpx2.Response, limit: int) -> bytes | None:
    """The body, decoded, unless it holds more than `limit` bytes (then None, the rest unread)."""
    parts: list[bytes] = []
    size = 0
    async for part in response.aiter_bytes():
        size += len(part)
        if size > limit:
            await response.aclose()
            return None
        parts.append(part)
    return b"".join(parts)


async def _http_error(
    request: httpx2.Request, request_id: Any, response: httpx2.Response, auth: httpx2.Auth | None
) -> httpx2.Response:
    """An HTTP error's answer: the JSON-RPC error in its body if it holds one, else one that names the
    status (with the codes the SDK gives one: -32601 for a 404 outside a session, -32600 for a 404
    of the session, -32603 otherwise) and `data` {"httpStatus", and "retryAfter" when given}. A
    refusal of the request's credentials (`_refusal`) names the step in `data` ("authStep") and says
    what to do, whatever its body holds."""
    status = response.status_code
    refusal = _refusal(response, auth)
    body = await _read(response, _ERROR_PAGE_BYTES)
    if refusal is None and body is not None and _media_type(response) == "application/json":
        from mcp.types import JSONRPCError

        if isinstance(_parsed(body), JSONRPCError):  # the SDK raises it as it is
            return _passed_on(request, response, body)
    message = status_line(response)
    data: dict[str, Any] = {HTTP_STATUS_KEY: status}
    code = _INTERNAL_ERROR
    in_session = "mcp-session-id" in request.headers
    if refusal is not None:
        data[AUTH_STEP_KEY], advice = refusal
        message += f": {advice}"
    elif status == 404 and in_session:
        code = _INVALID_REQUEST
        message += ": the server no longer knows this session (it ended, or the server restarted); connect again"
    elif status == 404:
        code = _METHOD_NOT_FOUND
    retry_after = response.headers.get("retry-after")
    if retry_after:
        data[RETRY_AFTER_KEY] = _clip(retry_after, 40)
        message += asks_to_wait(retry_after)
    return _error_answer(request, request_id, code, message, data, status, response.headers)


def asks_to_wait(retry_after: str) -> str:
    """`; it asks to retry after 30 s`, for an answer's `Retry-After` (seconds, or a date)."""
    wait = f"{retry_after} s" if retry_after.isdigit() else _clip(retry_after, 40)
    return f"; it asks to retry after {wait}"


TRY_LATER = (429, 503)
"""The HTTP statuses that say "not now" (Too Many Requests, Service Unavailable): without a
`Retry-After`, the handshake's error says to retry later."""


def says_nothing_of_the_era(data: Any) -> bool:
    """Whether the `data` of an error answer made here of an HTTP error page, answered to `auto`'s
    `server/discover` probe, says nothing of which protocol the server speaks: a 408, a 429 or a
    5xx is a server (or a proxy) failing or asking to wait, and a refusal of the credentials (a 401,
    a 403 `insufficient_scope`) comes from an authorization layer before any method is read; the
    `auth` flow has already re-authorized as often as it will, so `initialize` after it would only
    spend another authorization on a legacy guess. The spec's backward-compatibility rule reads a
    legacy server's refusal in a 4xx (400, 404, 405) without a modern JSON-RPC error, so
    `initialize` after any other answer would be a guess, and a rate-limited modern server would be
    spoken to as a legacy one. A JSON-RPC error in the page's body is the server's own answer."""
    if not isinstance(data, dict):
        return False
    if AUTH_STEP_KEY in data:
        return True
    status = data.get(HTTP_STATUS_KEY)
    return isinstance(status, int) and (status in (408, 429) or 500 <= status <= 599)


def retry_advice(data: Any) -> str:
    """`; retry later` for a `TRY_LATER` error answer that does not say when (no `Retry-After`)."""
    if (
        isinstance(data, dict)
        and data.get(HTTP_STATUS_KEY) in TRY_LATER
        and RETRY_AFTER_KEY not in data
    ):
        return "; retry later"
    return ""


def endpoint_advice(data: Any) -> str:
    """What to do when the handshake's POST was answered with an error page that says the URL is
    not an MCP endpoint: a 405 is an SSE server's event-stream URL, which takes only GET
    (fastapi-mcp 0.4's `mount()`, the SDK 1.x `/sse`); a 404 outside a session, a mistyped path
    (FastMCP's `/wrong` for `/mcp`)."""
    status = data.get(HTTP_STATUS_KEY) if isinstance(data, dict) else None
    if status == 405:
        return "; if the server speaks the older SSE transport, connect with sse_client(url) from mcp.client.sse"
    if status == 404:
        return "; check the URL: nothing answers MCP at its path"
    return ""


DPOP_UNSUPPORTED = (
    "the server asks for a DPoP-bound token (WWW-Authenticate: DPoP), and mcp-stubgen sends bearer "
    "tokens only: DPoP is not supported (docs/authentication.md)"
)
"""What a refusal that asks for DPoP alone says: no login or renewed bearer token would be taken."""
_BEARER_CHALLENGE = re.compile(r"(?:^|,)\s*bearer(?:\s|,|$)", re.IGNORECASE)


def asks_for_dpop(challenge: str) -> bool:
    """Whether a 401's `WWW-Authenticate` asks for a DPoP-bound token (RFC 9449) and offers no
    Bearer challenge beside it."""
    return challenge.lstrip().lower().startswith("dpop") and not _BEARER_CHALLENGE.search(challenge)


def _refusal(response: httpx2.Response, auth: httpx2.Auth | None) -> tuple[str, str] | None:
    """The OAuth step and what to do, for an answer refusing the credentials of the `auth` given (a
    401, or a 403 whose challenge is `insufficient_scope`); None for any other answer."""
    challenge = response.headers.get("www-authenticate") or ""
    if response.status_code == 403 and "insufficient_scope" in challenge:
        step = "insufficient scope"
    elif response.status_code == 401:
        step = "authorization"
    else:
        return None
    if step == "authorization" and asks_for_dpop(challenge):
        return step, DPOP_UNSUPPORTED
    if auth is None and step == "insufficient scope":
        return step, "the server wants a token with more scopes; connect with auth="
    if auth is None:
        unnamed = "" if challenge else " and names no way to get them (no WWW-Authenticate)"
        return step, f"the server wants credentials{unnamed}; connect with auth="
    from ._auth import StoredAuthMixin

    login = auth.server_name if isinstance(auth, StoredAuthMixin) else ""
    if step == "insufficient scope":
        fix = "authorize again with it and retry"
        if login:
            fix = f"add it to `scopes` in the server's auth config, run `mcp-stubgen auth login {login}` and retry"
        return (
            step,
            f"the token auth= sent lacks a scope the server asks for (insufficient_scope); {fix}",
        )
    fix = f"run `mcp-stubgen auth login {login}` and retry" if login else "renew them and retry"
    return step, f"the server refused the credentials auth= sent (revoked, or expired); {fix}"


def _standard_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _passed_on(request: httpx2.Request, response: httpx2.Response, body: bytes) -> httpx2.Response:
    """The answer as it came, its body read already (and decoded)."""
    import httpx2

    headers = _body_headers_left_out(response.headers)
    return httpx2.Response(response.status_code, headers=headers, content=body, request=request)


def _body_headers_left_out(headers: httpx2.Headers) -> list[tuple[str, str]]:
    """The headers of an answer passed on decoded: without those that describe the body as sent."""
    framing = ("content-length", "content-encoding", "transfer-encoding")
    return [(name, value) for name, value in headers.multi_items() if name.lower() not in framing]


async def _json_answer(
    request: httpx2.Request,
    request_id: Any,
    response: httpx2.Response,
    on_unreadable: Callable[[bytes], None] | None = None,
) -> httpx2.Response:
    """A JSON answer, read whole up to `MAX_ANSWER_BYTES`, if it is this request's JSON-RPC answer;
    else the error answer saying what it is (a body the SDK's parser refuses is told to
    `on_unreadable` first)."""
    body = await _read(response, MAX_ANSWER_BYTES)
    if body is None:
        return _error_answer(
            request,
            request_id,
            _PARSE_ERROR,
            f"its answer is larger than {MAX_ANSWER_BYTES >> 20} MiB once decoded; not read",
        )
    from mcp.types import JSONRPCError, JSONRPCResponse

    message = _parsed(body)
    if isinstance(message, str):
        if on_unreadable is not None and message.startswith(NOT_JSON):
            on_unreadable(body)
        return _error_answer(request, request_id, _PARSE_ERROR, message)
    if isinstance(message, JSONRPCError) and message.id is None:
        error = message.error  # the server could not read the request's id: it answers this one
        return _error_answer(request, request_id, error.code, error.message, error.data)
    if not isinstance(message, JSONRPCResponse | JSONRPCError):
        kind = "request" if hasattr(message, "id") else "notification"
        return _error_answer(
            request, request_id, _PARSE_ERROR, f"its answer is a JSON-RPC {kind}, not an answer"
        )
    other = _other_id(message, request_id)
    if other is not None:
        return _error_answer(request, request_id, _PARSE_ERROR, f"its answer {other}")
    return _passed_on(request, response, body)


def _other_id(message: Any, request_id: Any) -> str | None:
    """How an answer says it is another request's, else None (an error without an id answers the
    request whose stream or body it came in)."""
    from mcp.types import JSONRPCError, JSONRPCResponse

    if not isinstance(message, JSONRPCResponse | JSONRPCError) or message.id is None:
        return None
    if str(message.id) == str(request_id):
        return None
    return f"carries id {_clip(repr(message.id), 40)}, not this request's {request_id!r}"


def _parsed(data: bytes | str) -> Any:
    """The JSON-RPC message in `data`, or a sentence saying why there is none."""
    from mcp.types import jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        return jsonrpc_message_adapter.validate_json(data, by_name=False)
    except ValidationError as error:
        problem = error.errors()[0]
        if problem["type"] == "json_invalid":
            from ._stdio import unreadable_answer

            return unreadable_answer(data, problem["msg"])
        if isinstance(problem.get("input"), list):
            return BATCH
        return "its answer is JSON but not a JSON-RPC message"


def _checked_stream(
    response: httpx2.Response,
    request_id: Any,
    server_name: str,
    on_unreadable: Callable[[bytes], None] | None = None,
) -> httpx2.Response:
    """The event stream `response` with each event checked as it arrives (`_EventCheck`)."""
    import httpx2

    check = _EventCheck(request_id, server_name, on_unreadable)

    class Checked(httpx2.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for part in response.aiter_bytes():
                passed = check.feed(part)
                if passed:
                    yield passed
            rest = check.end()
            if rest:
                yield rest

        async def aclose(self) -> None:
            await response.aclose()

    headers = _body_headers_left_out(response.headers)
    return httpx2.Response(
        response.status_code, headers=headers, stream=Checked(), request=response.request
    )


class _EventCheck:
    """Reads an event stream line by line and passes each event on once whole, unless its data is
    not a JSON-RPC message (on a request's stream, when it answers that request or may, the
    request's error answer takes its place; a request or notification of the server's, another
    request's answer, and anything on the GET stream is left out) or is another request's answer
    on a request's stream (left out: the SDK would take it as this request's). A warning names the
    server for each event left out. An event larger than the transport reads (`MAX_ANSWER_BYTES`) is
    passed on unread, for the SDK to refuse."""

    LIMIT = MAX_ANSWER_BYTES

    def __init__(
        self,
        request_id: Any,
        server_name: str,
        on_unreadable: Callable[[bytes], None] | None = None,
    ) -> None:
        self.request_id = request_id
        self.server_name = server_name
        self.on_unreadable = on_unreadable
        self.pending = bytearray()
        """What arrived after the last whole line."""
        self.lines: list[bytes] = []
        """The whole lines of the event being read, as they arrived."""
        self.size = 0
        self.unread = False
        """An event too large to check: everything from there on is passed on as it arrives."""

    def feed(self, part: bytes) -> bytes:
        if self.unread:
            return part
        scanned = max(len(self.pending) - 1, 0)  # held back: a CR that may begin a CR LF
        self.pending += part
        passed = bytearray()
        start = 0
        for end in _LINE_END.finditer(self.pending, scanned):
            if end.group() == b"\r" and end.end() == len(self.pending):
                break  # a CR LF may be cut in two
            line = bytes(self.pending[start : end.end()])
            start = end.end()
            if line.strip(b"\r\n"):
                self.lines.append(line)
                self.size += len(line)
            else:
                passed += self._event()
        del self.pending[:start]
        if self.size + len(self.pending) > self.LIMIT:
            self.unread = True
            passed += b"".join(self.lines) + bytes(self.pending)
            self.lines, self.pending = [], bytearray()
        return bytes(passed)

    def end(self) -> bytes:
        """What is left when the stream ends: a CR held back ends its line (it could have begun a CR
        LF); an event without its closing blank line is not one."""
        return self.feed(b"\n") if not self.unread and self.pending.endswith(b"\r") else b""

    def _event(self) -> bytes:
        lines = [line.rstrip(b"\r\n") + b"\n" for line in self.lines]  # a CR alone ends a line too
        self.lines, self.size = [], 0
        kind, data = "message", []
        for line in lines:
            name, _, value = line.removesuffix(b"\n").partition(b":")
            value = value.removeprefix(b" ")
            if name == b"event":
                kind = value.decode("utf-8", "replace")
            elif name == b"data":
                data.append(value)
        whole = b"".join(lines) + b"\n"
        text = b"\n".join(data)
        if kind != "message" or not text:  # no data: a priming event, which only gives an id
            return whole
        message = _parsed(text)
        if isinstance(message, str) and self._answers(text):
            if message.startswith(NOT_JSON) and self.on_unreadable is not None:
                self.on_unreadable(text)
            error = {"code": _PARSE_ERROR, "message": message}
            answer = json.dumps({"jsonrpc": "2.0", "id": self.request_id, "error": error})
            kept = [line for line in lines if not line.startswith(b"data")]
            return b"".join(kept) + b"data: " + answer.encode() + b"\n\n"
        if isinstance(message, str):
            where = (
                "its own stream"
                if self.request_id is None
                else f"the stream of request {self.request_id!r}"
            )
            reason = message.removeprefix("its answer ")
            _log.warning("%s: an event on %s is left out: it %s", self.server_name, where, reason)
            return b""
        other = None if self.request_id is None else _other_id(message, self.request_id)
        if other is not None:
            _log.warning(
                "%s: an event on the stream of request %r is left out: it %s",
                self.server_name,
                self.request_id,
                other,
            )
            return b""
        return whole  # the answer (the SDK gives it this request's id), a request or notification

    def _answers(self, data: bytes) -> bool:
        """Whether an event the SDK cannot read answers this request, or may: then it is this
        request's error answer. One that is a request or notification of the server's, or another
        request's answer, is left out, and the stream goes on (`_stdio.answers_one_of`)."""
        from ._stdio import answers_one_of, read_refused

        return self.request_id is not None and answers_one_of(read_refused(data), {self.request_id})
