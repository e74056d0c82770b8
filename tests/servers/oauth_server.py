"""An MCP server behind OAuth 2.1, with its own minimal authorization server, on 127.0.0.1.

Usage: oauth_server.py PORT LOG [--expires-in N] [--resource URL] [--required-scope S]
    [--client-secret SECRET] [--public-key PEM_FILE] [--polled] [--echo-token catalog|error|call]
    [--metadata-url URL] [--grants GRANT ...] [--grants-unlisted] [--no-registration]
    [--authorization-server URL]

It publishes protected resource metadata (RFC 9728) and authorization server metadata (RFC 8414),
registers clients dynamically, runs the authorization code grant with PKCE (the authorize endpoint
redirects straight back, as a browser whose user consents would), the client credentials grant
(`ci-client` with client_secret_basic, or with a private_key_jwt assertion signed by the key whose
public half is `--public-key`) and refresh, and revokes every token it issued on `POST /revoke-all`
(an operator who revokes the grants mid-session), and answers every `/token` request with the
status N from `POST /token-outage?status=N` on, until `?status=0` (an authorization server that is
down). `/mcp` takes only an unexpired token issued for its resource. Every request is appended to LOG as one JSON line, so tests can see what reached it.
With `--polled` the MCP server is `changing_server.py`'s without `listChanged` (`watch` polls it,
and its `add_tools` tool changes its catalog) instead of the one-tool `echo` server. With
`--echo-token`, `tools/list` repeats the bearer token it was sent (in the catalog, or in an error), or
`tools/call` does (in an error). With `--grants`, its metadata and token endpoint take only those
grant types (`urn:ietf:params:oauth:grant-type:jwt-bearer` alone: an enterprise-managed server);
with `--grants-unlisted` its metadata leaves `grant_types_supported` out (RFC 8414's default then
says `authorization_code`), so a client learns which grants it takes only from the token endpoint.
With `--no-registration` it registers no clients (no `registration_endpoint`, no `/register`), as an
authorization server whose clients are registered by hand. With `--authorization-server`, its resource
metadata names that authorization server (another of these servers) instead of its own.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import secrets
import time
from typing import Any
from urllib.parse import urlencode

import jwt
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

LEEWAY = 300
"""The server honours a token this long past the `expires_in` it announced: the tests' clients
refresh because the token looks expired to them, never because a request raced its expiry."""

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("log")
parser.add_argument("--expires-in", type=int, default=3600)
parser.add_argument("--resource")
parser.add_argument("--required-scope")
parser.add_argument("--client-secret", default="ci-secret-7f3a9c2e")
parser.add_argument("--public-key")
parser.add_argument("--polled", action="store_true")
parser.add_argument("--metadata-url", help="the resource_metadata its 401 challenge names (default: its own)")
parser.add_argument(
    "--echo-token",
    choices=["catalog", "error", "call"],
    help="tools/list (or with `call`, tools/call) repeats the bearer token it was sent",
)
parser.add_argument("--grants", nargs="+", default=["authorization_code", "refresh_token", "client_credentials"])
parser.add_argument("--grants-unlisted", action="store_true", help="its metadata has no grant_types_supported")
parser.add_argument("--authorization-server", help="the authorization server its metadata names (default: itself)")
parser.add_argument(
    "--no-registration", action="store_true", help="no dynamic registration: no registration_endpoint, no /register"
)
options = parser.parse_args()

BASE = f"http://127.0.0.1:{options.port}"
RESOURCE = f"{BASE}/mcp"
ANNOUNCED_RESOURCE = options.resource or RESOURCE
clients: dict[str, dict[str, Any]] = {}
codes: dict[str, dict[str, Any]] = {}
tokens: dict[str, dict[str, Any]] = {}
refresh_tokens: dict[str, dict[str, Any]] = {}
token_outage = {"status": 0}
"""While not 0, the HTTP status every `/token` request is answered with (`POST /token-outage?status=N`)."""

server = MCPServer("protected", version="1.0.0")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


def log(entry: dict[str, Any]) -> None:
    with open(options.log, "a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")


async def resource_metadata(request: Request) -> Response:
    issuer = options.authorization_server or BASE
    return JSONResponse(
        {"resource": ANNOUNCED_RESOURCE, "authorization_servers": [issuer], "scopes_supported": ["mcp"]}
    )


async def server_metadata(request: Request) -> Response:
    return JSONResponse(
        {
            "issuer": BASE,
            "authorization_endpoint": f"{BASE}/authorize",
            "token_endpoint": f"{BASE}/token",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "private_key_jwt"],
        }
        | ({} if options.grants_unlisted else {"grant_types_supported": options.grants})
        | ({} if options.no_registration else {"registration_endpoint": f"{BASE}/register"})
    )


async def register(request: Request) -> Response:
    metadata = await request.json()
    client_id = f"dyn-{secrets.token_hex(8)}"
    clients[client_id] = metadata
    log({"path": "/register", "redirect_uris": metadata.get("redirect_uris")})
    return JSONResponse({**metadata, "client_id": client_id, "token_endpoint_auth_method": "none"}, status_code=201)


async def authorize(request: Request) -> Response:
    query = dict(request.query_params)
    log({"path": "/authorize", **{key: query.get(key) for key in ("client_id", "redirect_uri", "resource", "scope")}})
    client = clients.get(query.get("client_id", ""))
    if client is None or query.get("redirect_uri") not in client.get("redirect_uris", []):
        return JSONResponse({"error": "invalid_client"}, status_code=400)
    code = f"code-{secrets.token_hex(8)}"
    codes[code] = query
    back = {"code": code, "state": query.get("state", ""), "iss": BASE}
    return RedirectResponse(f"{query['redirect_uri']}?{urlencode(back)}", status_code=302)


def issue(client_id: str, resource: str | None, scope: str | None) -> Response:
    access = f"at-{secrets.token_hex(16)}"
    refresh = f"rt-{secrets.token_hex(16)}"
    grant = {"client_id": client_id, "resource": resource, "scope": scope, "issued": time.time()}
    tokens[access] = grant
    refresh_tokens[refresh] = grant
    log({"path": "issued", "access_token": access, "refresh_token": refresh})
    body = {"access_token": access, "token_type": "Bearer", "expires_in": options.expires_in, "refresh_token": refresh}
    if scope:
        body["scope"] = scope
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


def client_credentials_client(request: Request, form: dict[str, str]) -> str | None:
    header = request.headers.get("authorization", "")
    if header.startswith("Basic "):
        client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
        return client_id if (client_id, secret) == ("ci-client", options.client_secret) else None
    assertion = form.get("client_assertion")
    if assertion and options.public_key:
        with open(options.public_key, encoding="utf-8") as file:
            key = file.read()
        try:
            claims = jwt.decode(assertion, key, algorithms=["RS256", "ES256"], audience=BASE)
        except jwt.PyJWTError:
            return None
        return str(claims["sub"]) if claims.get("sub") == "ci-client" else None
    return None


async def token(request: Request) -> Response:
    form = {key: str(value) for key, value in (await request.form()).items()}
    log({"path": "/token", **{key: form.get(key) for key in ("grant_type", "resource", "scope")}})
    if token_outage["status"]:
        page = b"<html><body><h1>Service Unavailable</h1></body></html>"
        return Response(page, status_code=token_outage["status"], media_type="text/html")
    grant_type = form.get("grant_type")
    if grant_type not in options.grants:
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
    if grant_type == "authorization_code":
        query = codes.pop(form.get("code", ""), None)
        verifier = form.get("code_verifier", "")
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
        if query is None or challenge != query.get("code_challenge"):
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        return issue(query["client_id"], form.get("resource"), query.get("scope"))
    if grant_type == "refresh_token":
        grant = refresh_tokens.pop(form.get("refresh_token", ""), None)
        if grant is None:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        return issue(grant["client_id"], form.get("resource") or grant["resource"], grant["scope"])
    if grant_type == "client_credentials":
        client_id = client_credentials_client(request, form)
        if client_id is None:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        return issue(client_id, form.get("resource"), form.get("scope"))
    return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)


async def revoke_all(request: Request) -> Response:
    log({"path": "/revoke-all"})
    tokens.clear()
    refresh_tokens.clear()
    return Response(status_code=200)


async def set_token_outage(request: Request) -> Response:
    token_outage["status"] = int(request.query_params.get("status", "0"))
    log({"path": "/token-outage", "status": token_outage["status"]})
    return Response(status_code=200)


def challenge(status: int, error: str | None = None) -> Response:
    value = f'Bearer resource_metadata="{options.metadata_url or f"{BASE}/.well-known/oauth-protected-resource/mcp"}"'
    if error:
        value += f', error="{error}"'
        if options.required_scope:
            value += f', scope="{options.required_scope}"'
    return Response(status_code=status, headers={"WWW-Authenticate": value})


if options.polled:
    from changing_server import build_server  # this script's folder is on the import path

    app = build_server(False, ["first"]).streamable_http_app(host="127.0.0.1")
else:
    app = server.streamable_http_app(host="127.0.0.1")
app.router.routes[0:0] = [
    Route("/.well-known/oauth-protected-resource/mcp", resource_metadata),
    Route("/.well-known/oauth-protected-resource", resource_metadata),
    Route("/.well-known/oauth-authorization-server", server_metadata),
    *([] if options.no_registration else [Route("/register", register, methods=["POST"])]),
    Route("/authorize", authorize),
    Route("/token", token, methods=["POST"]),
    Route("/revoke-all", revoke_all, methods=["POST"]),
    Route("/token-outage", set_token_outage, methods=["POST"]),
]


async def echoing_token(token: str, scope: dict[str, Any], receive: Any, send: Any) -> Any:
    """`--echo-token`: a `tools/list` is answered with the token in its one tool's description, or
    in an error (with `call`, a `tools/call` in an error); None then, else a `receive` that replays
    the request for the MCP server."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    request = json.loads(body) if body else {}
    echoed = "tools/call" if options.echo_token == "call" else "tools/list"
    if isinstance(request, dict) and request.get("method") == echoed:
        if options.echo_token in ("error", "call"):
            answer: dict[str, Any] = {"error": {"code": -32603, "message": f"backend refused token {token}"}}
        else:
            tool = {"name": "echo", "description": f"Pass {token} along.", "inputSchema": {"type": "object"}}
            answer = {"result": {"tools": [tool], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}}
        await JSONResponse({"jsonrpc": "2.0", "id": request["id"], **answer})(scope, receive, send)
        return None
    replayed = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Any:
        return replayed.pop() if replayed else await receive()

    return replay


def guarded(inner: Any) -> Any:
    async def guard(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/mcp"):
            headers = {key.decode().lower(): value.decode() for key, value in scope["headers"]}
            sent = headers.get("authorization", "").removeprefix("Bearer ")
            grant = tokens.get(sent)
            log({"path": "/mcp", "token": sent or None})
            fresh = grant is not None and time.time() < grant["issued"] + options.expires_in + LEEWAY
            if not fresh or grant is None or grant["resource"] not in (None, RESOURCE):
                await challenge(401)(scope, receive, send)
                return
            if options.required_scope and options.required_scope not in (grant["scope"] or "").split():
                await challenge(403, "insufficient_scope")(scope, receive, send)
                return
            if options.echo_token:
                receive = await echoing_token(sent, scope, receive, send)
                if receive is None:
                    return
        await inner(scope, receive, send)

    return guard


if __name__ == "__main__":
    # A client still connected (a hub whose server a test stops) holds it open a second at most.
    uvicorn.run(guarded(app), host="127.0.0.1", port=options.port, log_level="warning", timeout_graceful_shutdown=1)
