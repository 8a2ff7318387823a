"""IMAP mailboxes (`type = "email"` with `host`), read with imapclient over TLS, incrementally by UID.

The cursor keeps, per folder, its UIDVALIDITY and the UID -> Message-ID of every message seen. A sync lists the
folder's UIDs, fetches the new ones in pages (`BODY.PEEK[]`, so nothing is marked read; flags are ignored) and
lists messages whose UID vanished (expunged) as deleted. A changed UIDVALIDITY means the server renumbered the
folder: it is read again from scratch. A folder added to `folders` later is read in full on the next sync.
"""

from __future__ import annotations

import email.parser
import email.policy
import ssl
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from briefing.errors import AuthError, SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, RawRecord
from briefing.registry import SourceContext
from briefing.sources import secret
from connectors.email import EmailSource
from connectors.email.mime import fallback_id, message_id_of, raw_to_data
from connectors.email.threads import normalise


class FolderState(Cursor):
    uidvalidity: int
    uids: dict[int, str] = {}


class ImapCursor(Cursor):
    folders: dict[str, FolderState] = {}


def _message_id(raw: bytes) -> str:
    headers = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
    return message_id_of(headers.get("Message-ID")) or fallback_id(raw)


class ImapConnector:
    """One IMAP account; `connect` returns a logged-in `imapclient.IMAPClient` (tests point it at a local server)."""

    def __init__(
        self, name: str, connect: Callable[[], Any], folders: Sequence[str], *, page_size: int = 200, full: bool = False
    ) -> None:
        self.name = name
        self.connect = connect
        self.folders = list(folders)
        self.page_size = max(1, page_size)
        self.full = full

    def initial_cursor(self) -> ImapCursor:
        return ImapCursor()

    def load_cursor(self, data: JSON) -> ImapCursor:
        return ImapCursor.model_validate(data)

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        previous = {} if self.full or not isinstance(cursor, ImapCursor) else dict(cursor.folders)
        state: dict[str, FolderState] = {k: v for k, v in previous.items() if k in self.folders}
        client = self.connect()
        try:
            for folder in self.folders:
                yield from self._folder(client, folder, previous.get(folder), state)
            # Folders dropped from the config leave with their messages.
            dropped = [k for name, f in previous.items() if name not in self.folders for k in f.uids.values()]
            yield Batch(deleted=self._unshared(dropped, state), cursor=ImapCursor(folders=dict(state)))
        finally:
            try:
                client.logout()
            except Exception:  # noqa: BLE001, S110 - the session is over either way
                pass

    def _unshared(self, keys: list[str], state: dict[str, FolderState]) -> list[str]:
        """Keys still held by some folder (a message copied to two folders) are not deleted."""
        held = {k for f in state.values() for k in f.uids.values()}
        return sorted(set(keys) - held)

    def _folder(
        self, client: Any, folder: str, old: FolderState | None, state: dict[str, FolderState]
    ) -> Iterator[Batch]:
        from imapclient.exceptions import IMAPClientError

        try:
            info = client.select_folder(folder, readonly=True)
        except IMAPClientError as exc:
            yield Batch(failures=[Failure(f"folder:{folder}", f"folder cannot be opened: {exc}")])
            return
        validity = int(info.get(b"UIDVALIDITY", 0))
        if old is not None and old.uidvalidity != validity:
            old = None  # renumbered: every UID we knew is meaningless now
        known = dict(old.uids) if old is not None else {}
        current = {int(u) for u in client.search("ALL")}
        gone = [known.pop(uid) for uid in sorted(set(known) - current)]
        if old is None and folder in state:
            gone += list(state[folder].uids.values())
        state[folder] = FolderState(uidvalidity=validity, uids=dict(known))
        new = sorted(current - set(known))
        first = True
        for start in range(0, max(len(new), 1), self.page_size):
            page = new[start : start + self.page_size]
            batch = Batch()
            if page:
                try:
                    fetched = client.fetch(page, ["BODY.PEEK[]", "INTERNALDATE"])
                except IMAPClientError as exc:
                    batch.failures.append(Failure(f"folder:{folder}", f"messages {page[0]}..{page[-1]}: {exc}"))
                    fetched = {}
                for uid in page:
                    raw = (fetched.get(uid) or {}).get(b"BODY[]")
                    if not isinstance(raw, bytes) or not raw.strip():
                        batch.failures.append(Failure(f"{folder}/{uid}", "the server returned no message body"))
                        continue
                    key = _message_id(raw)
                    known[uid] = key
                    data: JSON = {**raw_to_data(raw), "folder": folder}
                    arrived = _internal_ms((fetched.get(uid) or {}).get(b"INTERNALDATE"))
                    if arrived:
                        # The server's arrival time dates a message whose Date header is unusable.
                        data["internal_date"] = arrived
                    batch.records.append(RawRecord(key=key, kind="message", data=data))
            state[folder] = FolderState(uidvalidity=validity, uids=dict(known))
            if first:
                batch.deleted = self._unshared(gone, state)
                first = False
            batch.cursor = ImapCursor(folders=dict(state))
            yield batch

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        return normalise(records, source_type="email")


def _internal_ms(value: object) -> str:
    """IMAP INTERNALDATE (imapclient gives a datetime, naive in local time) as epoch milliseconds, or ""."""
    if not isinstance(value, datetime):
        return ""
    aware = value if value.tzinfo else value.astimezone()
    return str(int(aware.timestamp() * 1000))


def build(ctx: SourceContext) -> ImapConnector:
    """The factory for `type = "email"` with `host`: TLS always (implicit on 993, or STARTTLS)."""
    config: EmailSource = ctx.config
    user = secret(config.user_env, setting=f"sources.{ctx.name}.user_env")
    password = secret(config.token_env, setting=f"sources.{ctx.name}.token_env")
    host = str(config.host)
    ca_file = ctx.resolve(Path(config.ca_file)) if config.ca_file else None

    def connect() -> Any:
        from imapclient import IMAPClient
        from imapclient.exceptions import LoginError

        context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
        try:
            if config.tls == "starttls":
                client = IMAPClient(host, port=config.port, ssl=False, timeout=config.timeout_s)
                client.starttls(context)
            else:
                client = IMAPClient(host, port=config.port, ssl=True, ssl_context=context, timeout=config.timeout_s)
        except (OSError, ssl.SSLError) as exc:  # timeouts are OSErrors too
            raise SourceError(
                f"source '{ctx.name}': cannot reach IMAP server {host}:{config.port} over TLS ({exc}): "
                f"check sources.{ctx.name}.host, port and tls"
            ) from None
        try:
            client.login(user.get_secret_value(), password.get_secret_value())
        except LoginError:
            raise AuthError(
                f"source '{ctx.name}': the IMAP server rejected the login from {config.user_env} / {config.token_env}"
            ) from None
        return client

    return ImapConnector(ctx.name, connect, config.folders, page_size=config.page_size, full=ctx.options.full)
