"""The Google fake's state: granted tokens, Gmail messages and history, calendars and their change numbers."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

JSON = dict[str, Any]


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
