"""Atlassian Connect JWTs on JIRA webhooks: HS256 with the shared secret, bound to the request by its `qsh` claim.

A Connect app's webhooks carry `Authorization: JWT <token>` (or a `jwt` query parameter). The token must be signed
with HS256 and the shared secret, carry `iat`, `exp` and `qsh`, be issued no later than `SKEW_S` seconds from now
and expire no earlier than `SKEW_S` seconds ago, live at most `MAX_LIFETIME_S`, and its `qsh` must be the SHA-256
of this request's canonical form (method, path, sorted query without `jwt`), so a token taken from one request
opens no other. The path is the one `brief serve` receives: register the app with a base URL that maps onto it.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import jwt

from briefing.model import WebhookRefused, WebhookRequest

SKEW_S = 60  # how far the sender's clock may be from this one
MAX_LIFETIME_S = 3600  # Atlassian issues tokens valid for minutes; a longer one widens a replay window
METHOD = "POST"  # webhooks are POSTed


def _encode(value: str) -> str:
    return quote(value, safe="-._~")  # RFC 3986 unreserved kept; a space is %20, `*` %2A, `+` %2B


def canonical_request(method: str, target: str, base_path: str = "") -> str:
    """`METHOD&path&query` as Atlassian Connect signs it (`target` is the path and query as sent)."""
    parts = urlsplit(target)
    path = parts.path
    if base_path and path.startswith(base_path):
        path = path[len(base_path) :]
    path = path.rstrip("/") or "/"
    if not path.startswith("/"):
        path = "/" + path
    values: dict[str, list[str]] = {}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key != "jwt":
            values.setdefault(_encode(key), []).append(value)
    query = "&".join(f"{key}={','.join(_encode(v) for v in sorted(values[key]))}" for key in sorted(values))
    return f"{method.upper()}&{path.replace('&', '%26')}&{query}"


def query_hash(method: str, target: str, base_path: str = "") -> str:
    """The `qsh` claim of a request: the hex SHA-256 of its canonical form."""
    return hashlib.sha256(canonical_request(method, target, base_path).encode()).hexdigest()


def _token(request: WebhookRequest) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme == "JWT" and value.strip():
        return value.strip()
    for key, value in parse_qsl(urlsplit(request.target).query):
        if key == "jwt" and value:
            return value
    raise WebhookRefused("the JIRA webhook carries no JWT (Authorization: JWT ...): nothing was stored")


def claims(token: str, secret: str) -> dict[str, Any]:
    """The token's claims once its HS256 signature checks out with `secret` (its times are checked by `verify`)."""
    try:
        decoded: dict[str, Any] = jwt.decode(
            token,
            secret,
            algorithms=["HS256"],
            options={"verify_exp": False, "verify_iat": False, "verify_nbf": False, "verify_aud": False},
        )
    except jwt.InvalidTokenError as exc:
        raise WebhookRefused(f"the JIRA webhook's JWT was refused ({type(exc).__name__}): nothing was stored") from None
    return decoded


def verify(request: WebhookRequest) -> None:
    """Raise `WebhookRefused` unless the request carries a valid, current token bound to this request."""
    found = claims(_token(request), request.secret)
    iat, exp, qsh = found.get("iat"), found.get("exp"), found.get("qsh")
    if not isinstance(iat, int | float) or not isinstance(exp, int | float) or not isinstance(qsh, str):
        raise WebhookRefused("the JIRA webhook's JWT lacks iat, exp or qsh: nothing was stored")
    if exp < request.now - SKEW_S:
        raise WebhookRefused("the JIRA webhook's JWT has expired: nothing was stored")
    if iat > request.now + SKEW_S or exp < iat or exp - iat > MAX_LIFETIME_S:
        raise WebhookRefused("the JIRA webhook's JWT is issued in the future or lives too long: nothing was stored")
    if not hmac.compare_digest(qsh, query_hash(METHOD, request.target or "/")):
        raise WebhookRefused("the JIRA webhook's JWT was made for another request (qsh): nothing was stored")
