"""Gmail (`type = "gmail"`) through google-api-python-client: `messages.get(format="raw")`, history-id sync.

- A full sync lists the messages that match `query` (and, when `labels` is set, carry one of those labels;
  each label is listed on its own, so the labels are "any of", not "all of"), and fetches each new one in raw
  format, so the one MIME parser (`connectors.email.mime`) and threading (`connectors.email.threads`, with
  Gmail's thread ids) serve Gmail as they serve mbox and IMAP. It records the mailbox's history id from before
  the listing, so nothing that arrives meanwhile is missed.
- Later syncs read `users.history.list` from that id: messages added (kept when they match the labels and, when a
  query is set, the query: checked by one `messages.list` over their `rfc822msgid:` per 20 messages), deleted,
  moved to the trash or spam, or losing their last configured label (deleted from the index). Gmail keeps
  history for about a week: when the id is too old it answers 404, and brief lists the mailbox again in full,
  fetching only messages it has not seen (a Gmail message's content never changes) and deleting what is gone.
- A message that no longer matches a time-relative query (`newer_than:90d`) stays indexed until a full sync
  (`brief ingest NAME --full`, or a history id too old) reconciles the listing.
The cursor holds the history id and each Gmail message id's Message-ID (the ref: `email:<Message-ID>`).
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
from collections.abc import Iterator, Sequence
from typing import Any

from briefing.errors import ConfigError, SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, RawRecord
from briefing.registry import SourceContext
from connectors.email import GmailSource
from connectors.email.mime import fallback_id, message_id_of, raw_to_data
from connectors.email.threads import normalise
from connectors.google_api import GMAIL_SCOPE, Caller, build_service, check_url, credentials_path, load_credentials
from connectors.google_api import layer_for as _layer_for
from connectors.http import is_fatal

_HIDDEN = frozenset({"TRASH", "SPAM"})
_QUERY_CHUNK = 20
_HISTORY_TYPES = ["messageAdded", "messageDeleted", "labelAdded", "labelRemoved"]


class GmailCursor(Cursor):
    history_id: str | None = None
    # Gmail message id -> the message's key (its Message-ID); what the index holds from this mailbox.
    ids: dict[str, str] = {}


class _NotFound(Exception):
    """history.list answered 404: the start history id is older than Gmail keeps."""


def _decode_raw(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def _key_of(raw: bytes) -> str:
    headers = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
    return message_id_of(headers.get("Message-ID")) or fallback_id(raw)


class GmailConnector:
    """One Gmail mailbox (`userId = "me"`: the authorised user, or the delegated user of a service account)."""

    def __init__(
        self,
        name: str,
        service: Any,
        call: Caller,
        *,
        query: str = "",
        labels: Sequence[str] = (),
        page_size: int = 100,
        full: bool = False,
    ) -> None:
        self.name = name
        self.service = service
        self.call = call
        self.query = query.strip()
        self.labels = list(labels)
        self.page_size = max(1, min(page_size, 500))
        self.full = full
        self._label_names: dict[str, str] = {}
        self._wanted: set[str] = set()

    def initial_cursor(self) -> GmailCursor:
        return GmailCursor()

    def load_cursor(self, data: JSON) -> GmailCursor:
        return GmailCursor.model_validate(data)

    def check(self) -> None:
        """One authenticated call (`brief doctor`): the mailbox profile."""
        self.call("the mailbox profile", self.service.users().getProfile(userId="me"))

    # -- labels ----------------------------------------------------------------------------------------------
    def _resolve_labels(self) -> None:
        users = self.service.users()
        found = self.call("the label list", users.labels().list(userId="me")).get("labels", [])
        self._label_names = {str(label["id"]): str(label.get("name") or label["id"]) for label in found}
        by_name = {name.lower(): lid for lid, name in self._label_names.items()}
        wanted: set[str] = set()
        for label in self.labels:
            lid = label if label in self._label_names else by_name.get(label.lower())
            if lid is None:
                known = ", ".join(sorted(self._label_names.values())[:12])
                raise ConfigError(
                    f"sources.{self.name}.labels: the mailbox has no label '{label}' (it has: {known}): fix the name"
                )
            wanted.add(lid)
        self._wanted = wanted

    def _folder(self, label_ids: Sequence[str]) -> str:
        for lid in label_ids:
            if lid in self._wanted:
                return self._label_names.get(lid, lid)
        for lid in label_ids:
            if lid.startswith("Label_"):
                return self._label_names.get(lid, lid)
        return (
            "INBOX"
            if "INBOX" in label_ids
            else (self._label_names.get(label_ids[0], "Gmail") if label_ids else "Gmail")
        )

    def _kept(self, label_ids: Sequence[str]) -> bool:
        if _HIDDEN & set(label_ids):
            return False
        return not self._wanted or bool(self._wanted & set(label_ids))

    # -- collection ------------------------------------------------------------------------------------------
    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        previous = cursor if isinstance(cursor, GmailCursor) and not self.full else GmailCursor()
        self._resolve_labels()
        if previous.history_id:
            try:
                yield from self._incremental(previous)
                return
            except _NotFound:
                pass  # history too old: list the mailbox again (only unseen messages are fetched)
        yield from self._full(previous)

    def _list_ids(self, label: str | None) -> Iterator[list[tuple[str, str]]]:
        users = self.service.users()
        token: str | None = None
        while True:
            params: dict[str, Any] = {"userId": "me", "maxResults": self.page_size}
            if self.query:
                params["q"] = self.query
            if label:
                params["labelIds"] = [label]
            if token:
                params["pageToken"] = token
            page = self.call("the message list", users.messages().list(**params))
            yield [(str(m["id"]), str(m.get("threadId", ""))) for m in page.get("messages", []) or []]
            token = page.get("nextPageToken")
            if not token:
                return

    def _full(self, previous: GmailCursor) -> Iterator[Batch]:
        users = self.service.users()
        profile = self.call("the mailbox profile", users.getProfile(userId="me"))
        start_history = str(profile.get("historyId") or "")
        known = dict(previous.ids) if not self.full else {}
        state: dict[str, str] = {}
        listed: set[str] = set()
        labels: list[str | None] = [*sorted(self._wanted)] or [None]
        for label in labels:
            for page in self._list_ids(label):
                batch = Batch()
                for gid, _thread in page:
                    if gid in listed:
                        continue
                    listed.add(gid)
                    if gid in known:
                        state[gid] = known[gid]
                        continue
                    record = self._get(gid, batch)
                    if record is not None:
                        state[gid] = record.key
                        batch.records.append(record)
                batch.cursor = GmailCursor(history_id=None, ids={**previous.ids, **state})
                yield batch
        gone = [key for gid, key in previous.ids.items() if gid not in state]
        yield Batch(deleted=_unshared(gone, state), cursor=GmailCursor(history_id=start_history, ids=state))

    def _get(self, gid: str, batch: Batch, *, check_labels: bool = False) -> RawRecord | None:
        from googleapiclient.errors import HttpError

        users = self.service.users()
        request = users.messages().get(userId="me", id=gid, format="raw")
        try:
            message = self.call.run(f"message {gid}", lambda: _execute_keep_404(request, HttpError))
        except SourceError as exc:
            if is_fatal(exc):
                raise
            batch.failures.append(Failure(f"gmail:{gid}", str(exc)))
            return None
        if message is None:
            return None  # deleted between the listing and the fetch: the history will say so
        label_ids = [str(x) for x in message.get("labelIds", []) or []]
        if check_labels and not self._kept(label_ids):
            return None
        raw_value = message.get("raw")
        if not isinstance(raw_value, str) or not raw_value:
            batch.failures.append(Failure(f"gmail:{gid}", "Gmail returned the message without its raw content"))
            return None
        try:
            raw = _decode_raw(raw_value)
        except (ValueError, TypeError):
            batch.failures.append(Failure(f"gmail:{gid}", "the raw content is not valid base64url"))
            return None
        data: JSON = {
            **raw_to_data(raw),
            "folder": self._folder(label_ids),
            "thread_id": str(message.get("threadId", "")),
            "gmail_id": gid,
            "internal_date": str(message.get("internalDate", "") or ""),
            "labels": [self._label_names.get(x, x) for x in label_ids],
        }
        return RawRecord(key=_key_of(raw), kind="message", data=data)

    def _incremental(self, previous: GmailCursor) -> Iterator[Batch]:
        users = self.service.users()
        token: str | None = None
        latest = previous.history_id
        added: dict[str, list[str] | None] = {}  # id -> its label ids when the history says them
        removed: set[str] = set()
        while True:
            params: dict[str, Any] = {
                "userId": "me",
                "startHistoryId": previous.history_id,
                "historyTypes": _HISTORY_TYPES,
                "maxResults": 500,
            }
            if token:
                params["pageToken"] = token
            page = self._history_page(users.history().list(**params))
            for entry in page.get("history", []) or []:
                for change in entry.get("messagesAdded", []) or []:
                    message = change.get("message", {})
                    gid = str(message.get("id"))
                    added[gid] = [str(x) for x in message.get("labelIds", []) or []]
                    removed.discard(gid)
                for change in entry.get("messagesDeleted", []) or []:
                    gid = str(change.get("message", {}).get("id"))
                    removed.add(gid)
                    added.pop(gid, None)
                for name in ("labelsAdded", "labelsRemoved"):
                    for change in entry.get(name, []) or []:
                        message = change.get("message", {})
                        gid = str(message.get("id"))
                        if gid not in removed:
                            added[gid] = [str(x) for x in message.get("labelIds", []) or []]
            latest = str(page.get("historyId") or latest)
            token = page.get("nextPageToken")
            if not token:
                break
        state = dict(previous.ids)
        gone: list[str] = []
        for gid in removed:
            if gid in state:
                gone.append(state.pop(gid))
        batch = Batch()
        fresh: list[RawRecord] = []
        for gid, label_ids in sorted(added.items()):
            if label_ids is not None and not self._kept(label_ids):
                if gid in state:
                    gone.append(state.pop(gid))
                continue
            if gid in state:
                continue  # known, still kept: a Gmail message's content never changes
            record = self._get(gid, batch, check_labels=True)
            if record is not None:
                fresh.append(record)
        for record in self._matching(fresh):
            state[str(record.data["gmail_id"])] = record.key
            batch.records.append(record)
        batch.deleted = _unshared(gone, state)
        batch.cursor = GmailCursor(history_id=latest, ids=state)
        yield batch

    def _history_page(self, request: Any) -> Any:
        from googleapiclient.errors import HttpError

        def run() -> Any:
            try:
                return request.execute()
            except HttpError as exc:
                if int(exc.resp.status) == 404:
                    raise _NotFound from None
                raise

        return self.call.run("the mailbox history", run)

    def _matching(self, records: list[RawRecord]) -> list[RawRecord]:
        """The records whose message matches `query` (all of them when no query is set)."""
        if not self.query or not records:
            return records
        users = self.service.users()
        keep: set[str] = set()
        for start in range(0, len(records), _QUERY_CHUNK):
            part = records[start : start + _QUERY_CHUNK]
            ids = " ".join(f"rfc822msgid:{r.key}" for r in part)
            request = users.messages().list(userId="me", q=f"({self.query}) {{{ids}}}", maxResults=500)
            page = self.call("the message list", request)
            keep |= {str(m["id"]) for m in page.get("messages", []) or []}
        return [r for r in records if str(r.data["gmail_id"]) in keep]

    # -- normalisation ---------------------------------------------------------------------------------------
    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        return normalise(records, source_type="email")


def _execute_keep_404(request: Any, http_error: type[Exception]) -> Any:
    try:
        return request.execute()
    except http_error as exc:
        if int(getattr(getattr(exc, "resp", None), "status", 0)) == 404:
            return None
        raise


def _unshared(keys: list[str], state: dict[str, str]) -> list[str]:
    """Keys another Gmail message still holds (the same Message-ID twice) are not deleted."""
    return sorted(set(keys) - set(state.values()))


def build(ctx: SourceContext) -> GmailConnector:
    """The registry's factory for `type = "gmail"`."""
    config: GmailSource = ctx.config
    setting = f"sources.{ctx.name}.credentials_file"
    if config.base_url:
        check_url(config.base_url, f"sources.{ctx.name}.base_url")
    path = credentials_path(ctx, config.credentials_file)
    credentials = load_credentials(path, setting=setting, scopes=[GMAIL_SCOPE], delegated_user=config.delegated_user)
    layer = _layer_for(
        ctx.name, "Gmail", config.base_url, setting, config, f"check sources.{ctx.name}.query and labels"
    )
    service = build_service(
        "gmail", "v1", credentials=credentials, layer=layer, base_url=config.base_url, timeout_s=config.timeout_s
    )
    return GmailConnector(
        ctx.name,
        service,
        Caller(layer, setting),
        query=config.query,
        labels=config.labels,
        page_size=config.page_size,
        full=ctx.options.full,
    )
