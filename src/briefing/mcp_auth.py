"""A bearer token for `brief mcp` over HTTP: made at first start, kept mode 0600 under BRIEF_HOME, checked on
every request (any local process or user could otherwise read the workspace through the server)."""

from __future__ import annotations

import hmac
import json
import os
import secrets
import stat
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from briefing.errors import ConfigError

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
TOKEN_FILE = "mcp-token"  # noqa: S105 (a file name, not a secret)


def token_path(home: Path) -> Path:
    return home.expanduser() / TOKEN_FILE


def ensure_token(home: Path) -> tuple[str, Path, bool]:
    """(the token, its file, whether it was made now); a file others may read is tightened to 0600 first."""
    path = token_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            path.chmod(0o600)
        token = path.read_text(encoding="utf-8").strip()
        if len(token) < 32:
            raise ConfigError(
                f"{path}: the MCP token is too short or empty: delete the file to make a new one"
            ) from None
        return token, path, False
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token, path, True


class BearerAuth:
    """ASGI middleware: an HTTP request without `Authorization: Bearer <token>` gets 401 and reaches nothing."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan events carry no request
            return
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, self.expected):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized: send Authorization: Bearer <token from BRIEF_HOME/mcp-token>"})
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="brief"'),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body.encode()})


def authenticated_app(server: Any, token: str, host: str) -> BearerAuth:
    """The MCP server's streamable-HTTP app behind `BearerAuth` (its Host/Origin checks stay in place)."""
    return BearerAuth(server.streamable_http_app(host=host), token)
