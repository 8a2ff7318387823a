"""The fake's HTTP handler: the OAuth token endpoint, bearer-token checks, rate limits and routing."""

from __future__ import annotations

import base64
import json
import re
import time
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from briefing.devserver.google.calendar import events
from briefing.devserver.google.gmail import gmail
from briefing.devserver.google.shapes import error
from briefing.devserver.google.state import JSON, GoogleFake, Logged

_GMAIL = "/gmail/v1/users/me"
_EVENTS = re.compile(r"^/calendar/v3/calendars/([^/]+)/events$")
_JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"


def _unb64(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


class Handler(BaseHTTPRequestHandler):
    """One request to the fake: POST /token grants, GET reaches Gmail or Calendar with a granted bearer token."""

    server: Any

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        return

    @property
    def fake(self) -> GoogleFake:
        fake: GoogleFake = self.server.fake
        return fake

    def _send(self, status: int, body: JSON, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode()
        parts = urlsplit(self.path)
        self.fake.log.append(Logged("POST", parts.path, parse_qs(body), self.headers.get("Authorization", ""), body))
        if parts.path != "/token":
            self._send(404, error(404, "NOT_FOUND", "notFound", "Not Found"))
            return
        form = {k: v[0] for k, v in parse_qs(body).items()}
        if not self._grant_ok(form):
            self._send(400, {"error": "invalid_grant", "error_description": "Bad Request"})
            return
        self._send(200, {"access_token": self.fake.grant(), "expires_in": 3599, "token_type": "Bearer"})

    def _grant_ok(self, form: dict[str, str]) -> bool:
        fake = self.fake
        if form.get("grant_type") == "refresh_token":
            return (form.get("client_id"), form.get("client_secret"), form.get("refresh_token")) == (
                fake.client_id,
                fake.client_secret,
                fake.refresh_token,
            )
        if form.get("grant_type") == _JWT_GRANT and fake._key is not None:
            from cryptography.exceptions import InvalidSignature
            from cryptography.hazmat.primitives import hashes
            from cryptography.hazmat.primitives.asymmetric import padding

            try:
                head, payload, signature = form.get("assertion", "").split(".")
                fake._key.public_key().verify(
                    _unb64(signature), f"{head}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256()
                )
                claims = json.loads(_unb64(payload))
            except (ValueError, InvalidSignature):
                return False
            # google-auth addresses the assertion to Google's token endpoint whatever token_uri says, as Google expects.
            audiences = {f"{fake.url}/token", "https://oauth2.googleapis.com/token"}
            return bool(claims.get("aud") in audiences and claims.get("exp", 0) > time.time())
        return False

    def do_GET(self) -> None:  # noqa: N802
        fake = self.fake
        parts = urlsplit(self.path)
        params = parse_qs(parts.query)
        auth = self.headers.get("Authorization", "")
        fake.log.append(Logged("GET", parts.path, params, auth))
        if fake.redirect_to:
            self.send_response(302)
            self.send_header("Location", fake.redirect_to + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if not fake.authorised(auth):
            self._send(
                401,
                error(401, "UNAUTHENTICATED", "authError", "Request had invalid authentication credentials."),
                {"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'},
            )
            return
        if fake.take_rate_limit():
            if fake.rate_limit_403:
                body = error(403, "PERMISSION_DENIED", "rateLimitExceeded", "Rate Limit Exceeded")
                self._send(403, body, {"Retry-After": fake.retry_after})
            else:
                body = error(429, "RESOURCE_EXHAUSTED", "rateLimitExceeded", "Quota exceeded")
                self._send(429, body, {"Retry-After": fake.retry_after})
            return
        one = {k: v[0] for k, v in params.items()}
        with fake._lock:
            if parts.path.startswith(_GMAIL):
                status, body = gmail(fake, parts.path[len(_GMAIL) :], one, params)
            elif _EVENTS.match(parts.path):
                calendar = _EVENTS.match(parts.path).group(1)  # type: ignore[union-attr]
                from urllib.parse import unquote

                status, body = events(fake, unquote(calendar), one)
            else:
                status, body = 404, error(404, "NOT_FOUND", "notFound", "Not Found")
        self._send(status, body)
