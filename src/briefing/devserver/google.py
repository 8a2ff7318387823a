"""A local Google API server for tests: OAuth token endpoint, Gmail v1 and Calendar v3, with Google's shapes.

- `/token`: the OAuth 2.0 token endpoint a credentials file names as `token_uri`. It grants access tokens for
  an authorized-user refresh token (`grant_type=refresh_token` with the client id and secret) and for a
  service account's signed JWT (`urn:ietf:params:oauth:grant-type:jwt-bearer`, the RS256 signature checked
  against the key pair the fake made; `aud` is Google's token endpoint, as google-auth addresses it, or this
  one). Errors are RFC 6749 JSON.
- `/gmail/v1/users/me/...`: `profile`, `labels`, `messages` (with `q`, `labelIds`, `maxResults`, `pageToken`),
  `messages/{id}?format=raw` (base64url), `history` (`startHistoryId`, `historyTypes`, paging; 404 below the
  oldest history id kept). Queries understand the operators the tests use: words, `"phrases"`, `from:`,
  `to:`, `subject:`, `label:`, `in:`, `category:`, `rfc822msgid:`, `newer_than:`/`older_than:` (d, m, y),
  `-negation`, `(...)` and `{...}` (any of).
- `/calendar/v3/calendars/{id}/events`: unexpanded listing with `nextSyncToken`; a `syncToken` lists what changed
  since, deleted events as `{"id", "status": "cancelled"}`; 410 for a token older than `token_floor`.

Every API call needs `Authorization: Bearer <a token this server granted>` (401 otherwise, with Google's error
body). Switches: `rate_limit` (calls answering 429, or 403 `rateLimitExceeded` when `rate_limit_403`, with
`Retry-After`), `revoke()` (granted tokens stop working, so the client must refresh), `redirect_to` (answer
every API call with a 302 there). Every request lands in `log`.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from briefing.devserver._http import running

JSON = dict[str, Any]
_GMAIL = "/gmail/v1/users/me"
_EVENTS = re.compile(r"^/calendar/v3/calendars/([^/]+)/events$")
_JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"


@dataclass
class Logged:
    method: str
    path: str
    params: dict[str, list[str]]
    authorization: str
    body: str = ""


@dataclass
class GmailMessage:
    id: str
    thread_id: str
    raw: bytes
    labels: list[str]
    internal: datetime
    history_id: int


@dataclass
class GoogleFake:
    """The fake's state; `serve()` runs it on 127.0.0.1 and sets `url`."""

    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    client_id: str = "brief-test.apps.googleusercontent.example"
    client_secret: str = "client-secret-value-0001"
    refresh_token: str = "1//refresh-token-value-0001"
    page_size: int = 100  # the most a page holds, whatever maxResults asks
    rate_limit: int = 0
    rate_limit_403: bool = False
    retry_after: str = "3"
    redirect_to: str | None = None
    log: list[Logged] = field(default_factory=list)
    url: str = ""
    # Gmail
    messages: dict[str, GmailMessage] = field(default_factory=dict)
    labels: dict[str, str] = field(
        default_factory=lambda: {"INBOX": "INBOX", "SENT": "SENT", "TRASH": "TRASH", "SPAM": "SPAM"}
    )
    history: list[JSON] = field(default_factory=list)
    history_id: int = 1000
    history_floor: int = 0  # history ids below this are forgotten: history.list answers 404
    # Calendar: calendar id -> {"summary", "timeZone", "events": {id: event}}; event -> change number
    calendars: dict[str, JSON] = field(default_factory=dict)
    changes: dict[tuple[str, str], int] = field(default_factory=dict)
    change: int = 0
    token_floor: int = 0  # sync tokens of changes below this are expired: 410
    _added: int = 0
    _tokens: set[str] = field(default_factory=set)
    _issued: int = 0
    _key: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- credentials files -----------------------------------------------------------------------------------
    def authorized_user(self) -> JSON:
        """An OAuth authorized-user file whose token_uri is this server."""
        return {
            "type": "authorized_user",
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "refresh_token": self.refresh_token,
            "token_uri": f"{self.url}/token",
        }

    def service_account(self) -> JSON:
        """A service-account key file (a fresh RSA key pair) whose token_uri is this server."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        if self._key is None:
            self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = self._key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        return {
            "type": "service_account",
            "project_id": "brief-test",
            "private_key_id": "0123456789abcdef",
            "private_key": pem,
            "client_email": "reader@brief-test.iam.gserviceaccount.example",
            "client_id": "1234567890",
            "token_uri": f"{self.url}/token",
        }

    def revoke(self) -> None:
        """Every access token granted so far stops working (the client must refresh)."""
        with self._lock:
            self._tokens.clear()

    # -- Gmail state -----------------------------------------------------------------------------------------
    def _record(self, kind: str, message: GmailMessage, labels: list[str] | None = None) -> None:
        self.history_id += 1
        entry: JSON = {"id": str(self.history_id), "messages": [{"id": message.id, "threadId": message.thread_id}]}
        body: JSON = {"message": {"id": message.id, "threadId": message.thread_id, "labelIds": list(message.labels)}}
        if labels is not None:
            body["labelIds"] = labels
        entry[kind] = [body]
        self.history.append(entry)
        message.history_id = self.history_id

    def add_message(
        self, raw: bytes, labels: list[str] | None = None, thread_id: str | None = None, when: datetime | None = None
    ) -> str:
        """A message arrives (`when`: its internal date, default `now`); returns its Gmail id."""
        with self._lock:
            self._added += 1
            gid = f"{0x18A0000000 + self._added:x}"
            message = GmailMessage(gid, thread_id or gid, raw, list(labels or ["INBOX"]), when or self.now, 0)
            self.messages[gid] = message
            self._record("messagesAdded", message)
            return gid

    def delete_message(self, gid: str) -> None:
        with self._lock:
            message = self.messages.pop(gid)
            self._record("messagesDeleted", message)

    def relabel(self, gid: str, add: list[str] = (), remove: list[str] = ()) -> None:  # type: ignore[assignment]
        with self._lock:
            message = self.messages[gid]
            if add:
                message.labels = [*message.labels, *[x for x in add if x not in message.labels]]
                self._record("labelsAdded", message, list(add))
            if remove:
                message.labels = [x for x in message.labels if x not in remove]
                self._record("labelsRemoved", message, list(remove))

    # -- Calendar state --------------------------------------------------------------------------------------
    def add_calendar(self, calendar_id: str, summary: str, zone: str) -> None:
        self.calendars[calendar_id] = {"summary": summary, "timeZone": zone, "events": {}}

    def put_event(self, calendar_id: str, event: JSON) -> None:
        with self._lock:
            events = self.calendars[calendar_id]["events"]
            event = {"kind": "calendar#event", "etag": f'"{self.change + 1}"', **event}
            event.setdefault("iCalUID", f"{event['id']}@google.com")
            event.setdefault("status", "confirmed")
            event.setdefault("updated", self.now.isoformat().replace("+00:00", "Z"))
            event.setdefault("created", event["updated"])
            events[event["id"]] = event
            self.change += 1
            self.changes[(calendar_id, event["id"])] = self.change

    def delete_event(self, calendar_id: str, event_id: str) -> None:
        """Deleted as Google deletes: a tombstone that a sync token lists, with the series' instances."""
        with self._lock:
            events = self.calendars[calendar_id]["events"]
            for eid, event in list(events.items()):
                if eid == event_id or event.get("recurringEventId") == event_id:
                    events[eid] = {"kind": "calendar#event", "id": eid, "status": "cancelled", "_deleted": True}
                    self.change += 1
                    self.changes[(calendar_id, eid)] = self.change

    # -- serving ---------------------------------------------------------------------------------------------
    def take_rate_limit(self) -> bool:
        with self._lock:
            if self.rate_limit == 0:
                return False
            if self.rate_limit > 0:
                self.rate_limit -= 1
            return True

    def grant(self) -> str:
        with self._lock:
            self._issued += 1
            token = f"ya29.fake-access-token-{self._issued:04d}"
            self._tokens.add(token)
            return token

    def authorised(self, header: str) -> bool:
        with self._lock:
            return header.startswith("Bearer ") and header[7:] in self._tokens


def _error(code: int, status: str, reason: str, message: str) -> JSON:
    return {
        "error": {
            "code": code,
            "message": message,
            "errors": [{"message": message, "domain": "global", "reason": reason}],
            "status": status,
        }
    }


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


# -- Gmail search ----------------------------------------------------------------------------------------------
_TOKEN = re.compile(r'-?\{|\}|-?\(|\)|-?(?:[\w.]+:)?"[^"]*"|[^\s{}()]+')


def _parse(tokens: list[str], pos: int, closer: str | None) -> tuple[tuple[str, list[Any]], int]:
    terms: list[Any] = []
    while pos < len(tokens):
        tok = tokens[pos]
        if closer is not None and tok == closer:
            return ("or" if closer == "}" else "and", terms), pos + 1
        neg = tok.startswith("-") and len(tok) > 1
        body = tok[1:] if neg else tok
        if body in ("{", "("):
            group, pos = _parse(tokens, pos + 1, "}" if body == "{" else ")")
            terms.append(("not", [group]) if neg else group)
            continue
        if tok.upper() == "OR" and terms and pos + 1 < len(tokens):
            nxt, _ = _parse(tokens[pos + 1 : pos + 2], 0, None)
            terms[-1] = ("or", [terms[-1], nxt])
            pos += 2
            continue
        term = ("term", [body])
        terms.append(("not", [term]) if neg else term)
        pos += 1
    return ("and", terms), pos


def _age(value: str) -> timedelta | None:
    found = re.fullmatch(r"(\d+)([dmy])", value.lower())
    if not found:
        return None
    n = int(found.group(1))
    return timedelta(days=n * {"d": 1, "m": 30, "y": 365}[found.group(2)])


def _matches(node: Any, message: GmailMessage, fake: GoogleFake) -> bool:
    kind, args = node
    if kind == "and":
        return all(_matches(a, message, fake) for a in args)
    if kind == "or":
        return any(_matches(a, message, fake) for a in args)
    if kind == "not":
        return not _matches(args[0], message, fake)
    text: str = args[0]
    key, sep, value = text.partition(":")
    value = value.strip('"').lower()
    if not sep:
        value = text.strip('"').lower()
    headers = email.parser.BytesParser(policy=email.policy.default).parsebytes(message.raw)
    names = {lid: name.lower() for lid, name in fake.labels.items()}
    label_names = {names.get(x, x.lower()) for x in message.labels} | {x.lower() for x in message.labels}
    key = key.lower() if sep else ""
    if key == "rfc822msgid":
        return str(headers.get("Message-ID", "")).strip().strip("<>").lower() == value.strip("<>")
    if key in ("from", "to", "subject"):
        return value in str(headers.get(key, "")).lower()
    if key in ("label", "in"):
        return value.replace("-", " ") in {n.replace("-", " ") for n in label_names} or value in label_names
    if key == "category":
        return f"category_{value}" in label_names
    if key in ("newer_than", "older_than"):
        age = _age(value)
        if age is None:
            return False
        newer = message.internal >= fake.now - age
        return newer if key == "newer_than" else not newer
    if key == "has" or key == "is":
        return False
    needle = value if not sep else text.lower()
    return needle in message.raw.decode("utf-8", "replace").lower()


def search(fake: GoogleFake, query: str) -> list[GmailMessage]:
    tree, _ = _parse(_TOKEN.findall(query), 0, None)
    return [m for m in fake.messages.values() if _matches(tree, m, fake)]


# -- the handler -----------------------------------------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
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
            self._send(404, _error(404, "NOT_FOUND", "notFound", "Not Found"))
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
                _error(401, "UNAUTHENTICATED", "authError", "Request had invalid authentication credentials."),
                {"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'},
            )
            return
        if fake.take_rate_limit():
            if fake.rate_limit_403:
                body = _error(403, "PERMISSION_DENIED", "rateLimitExceeded", "Rate Limit Exceeded")
                self._send(403, body, {"Retry-After": fake.retry_after})
            else:
                body = _error(429, "RESOURCE_EXHAUSTED", "rateLimitExceeded", "Quota exceeded")
                self._send(429, body, {"Retry-After": fake.retry_after})
            return
        one = {k: v[0] for k, v in params.items()}
        with fake._lock:
            if parts.path.startswith(_GMAIL):
                status, body = _gmail(fake, parts.path[len(_GMAIL) :], one, params)
            elif _EVENTS.match(parts.path):
                calendar = _EVENTS.match(parts.path).group(1)  # type: ignore[union-attr]
                from urllib.parse import unquote

                status, body = _events(fake, unquote(calendar), one)
            else:
                status, body = 404, _error(404, "NOT_FOUND", "notFound", "Not Found")
        self._send(status, body)


def _page(items: list[Any], one: dict[str, str], cap: int) -> tuple[list[Any], str | None]:
    size = min(int(one.get("maxResults") or cap), cap)
    start = int(one.get("pageToken") or 0)
    chunk = items[start : start + size]
    return chunk, (str(start + size) if start + size < len(items) else None)


def _gmail(fake: GoogleFake, path: str, one: dict[str, str], params: dict[str, list[str]]) -> tuple[int, JSON]:
    if path == "/profile":
        return 200, {
            "emailAddress": "manager@kestrelpay.example",
            "messagesTotal": len(fake.messages),
            "historyId": str(fake.history_id),
        }
    if path == "/labels":
        return 200, {
            "labels": [{"id": k, "name": v, "type": "system" if k == v else "user"} for k, v in fake.labels.items()]
        }
    if path == "/messages":
        found = search(fake, one.get("q", "")) if one.get("q") else list(fake.messages.values())
        wanted = params.get("labelIds", [])
        found = [m for m in found if all(x in m.labels for x in wanted)]
        if one.get("includeSpamTrash", "false") != "true":
            found = [m for m in found if not {"TRASH", "SPAM"} & set(m.labels)]
        found.sort(key=lambda m: m.history_id, reverse=True)
        chunk, token = _page(found, one, fake.page_size)
        body: JSON = {"resultSizeEstimate": len(found)}
        if chunk:
            body["messages"] = [{"id": m.id, "threadId": m.thread_id} for m in chunk]
        if token:
            body["nextPageToken"] = token
        return 200, body
    if path.startswith("/messages/"):
        message = fake.messages.get(path.rsplit("/", 1)[1])
        if message is None:
            return 404, _error(404, "NOT_FOUND", "notFound", "Requested entity was not found.")
        if one.get("format") != "raw":
            return 400, _error(400, "INVALID_ARGUMENT", "invalidArgument", "this fake serves format=raw only")
        return 200, {
            "id": message.id,
            "threadId": message.thread_id,
            "labelIds": message.labels,
            "snippet": "",
            "historyId": str(message.history_id),
            "internalDate": str(int(message.internal.timestamp() * 1000)),
            "sizeEstimate": len(message.raw),
            "raw": _b64url(message.raw),
        }
    if path == "/history":
        start = int(one.get("startHistoryId") or 0)
        if start < fake.history_floor:
            return 404, _error(404, "NOT_FOUND", "notFound", "Requested entity was not found.")
        kinds = set(params.get("historyTypes", [])) or None
        entries = []
        for entry in fake.history:
            if int(entry["id"]) <= start:
                continue
            if kinds is not None:
                entry = {k: v for k, v in entry.items() if k in ("id", "messages") or _history_type(k) in kinds}
            entries.append(entry)
        chunk, token = _page(entries, one, fake.page_size)
        body = {"historyId": str(fake.history_id)}
        if chunk:
            body["history"] = chunk
        if token:
            body["nextPageToken"] = token
        return 200, body
    return 404, _error(404, "NOT_FOUND", "notFound", "Not Found")


def _history_type(key: str) -> str:
    """`messagesAdded` (a history record's key) -> `messageAdded` (its `historyTypes` value)."""
    return key.replace("messages", "message").replace("labels", "label")


def _events(fake: GoogleFake, calendar_id: str, one: dict[str, str]) -> tuple[int, JSON]:
    calendar = fake.calendars.get(calendar_id)
    if calendar is None:
        return 404, _error(404, "NOT_FOUND", "notFound", "Not Found")
    if one.get("singleEvents") == "true":
        return 400, _error(400, "INVALID_ARGUMENT", "invalid", "this fake serves unexpanded listings only")
    sync = one.get("syncToken")
    events = calendar["events"]
    if sync:
        if any(k in one for k in ("timeMin", "timeMax", "q", "orderBy", "updatedMin")):
            return 400, _error(400, "INVALID_ARGUMENT", "invalid", "syncToken cannot be combined with those")
        since = int(sync.removeprefix("sync-"))
        if since < fake.token_floor:
            return 410, _error(
                410, "GONE", "fullSyncRequired", "Sync token is no longer valid, a full sync is required."
            )
        chosen = [e for eid, e in events.items() if fake.changes[(calendar_id, eid)] > since]
    else:
        shown = one.get("showDeleted") == "true"
        chosen = [e for e in events.values() if shown or not e.get("_deleted")]
    chosen.sort(key=lambda e: fake.changes[(calendar_id, e["id"])])
    chunk, token = _page(chosen, one, fake.page_size)
    body: JSON = {
        "kind": "calendar#events",
        "summary": calendar["summary"],
        "timeZone": calendar["timeZone"],
        "updated": fake.now.isoformat().replace("+00:00", "Z"),
        "accessRole": "reader",
        "items": [{k: v for k, v in e.items() if not k.startswith("_")} for e in chunk],
    }
    if token:
        body["nextPageToken"] = token
    else:
        body["nextSyncToken"] = f"sync-{fake.change}"
    return 200, body


@contextmanager
def serve(fake: GoogleFake) -> Iterator[GoogleFake]:
    """Serve `fake` on 127.0.0.1 for the block; `fake.url` is its base URL (no trailing slash)."""
    with running(_Handler, fake) as port:
        fake.url = f"http://127.0.0.1:{port}"
        yield fake
