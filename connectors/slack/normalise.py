"""Cached Slack records as Documents: one per channel (its unthreaded messages) and one per thread.

Both connectors cache the same raw records: `message` (the vendor message plus `"_channel": {"id", "name"}`),
`user` (a users.list / users.json member) and `channel` (a conversations.list / channels.json entry), so one
`normalise_records` serves both; `connectors.slack.mrkdwn` renders each message's text.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from briefing.model import (
    JSON,
    MEMBERS,
    Document,
    Failure,
    Item,
    Normalised,
    RawRecord,
    RecordSource,
    reader_id,
    utc,
)
from connectors.slack.checks import channel_problem, message_problem, user_problem
from connectors.slack.mrkdwn import file_names, message_text
from connectors.slack.people import message_author, user_name, user_to_person

SOURCE_TYPE = "slack"

# Membership and integration notices: they say who joined, not what anyone said.
NOISE_SUBTYPES = frozenset(
    {
        "channel_join",
        "channel_leave",
        "group_join",
        "group_leave",
        "bot_add",
        "bot_remove",
        "message_deleted",
        "message_changed",
        "tombstone",
    }
)
_WORKSPACE = re.compile(r"^(https://[a-z0-9-]+(?:\.enterprise)?\.slack\.com/)")
_TITLE_WORDS = 8
_LINK_TARGET = re.compile(r"\s*\(https?://[^)\s]+\)")  # the "(url)" after a link label, noise in a title


def workspace_url_from(messages: Iterable[JSON]) -> str | None:
    """Guess `https://<team>.slack.com/` from file permalinks (exports carry no team URL of their own)."""
    for message in messages:
        for f in message.get("files") or []:
            match = _WORKSPACE.match(str((f or {}).get("permalink") or "")) if isinstance(f, dict) else None
            if match:
                return match.group(1)
    return None


def permalink(workspace_url: str | None, channel_id: str, ts: str, thread_ts: str | None = None) -> str:
    if not workspace_url:
        return ""
    url = f"{workspace_url.rstrip('/')}/archives/{channel_id}/p{ts.replace('.', '')}"
    if thread_ts and thread_ts != ts:
        url += f"?thread_ts={thread_ts}&cid={channel_id}"
    return url


def _ts_key(ts: str) -> tuple[float, str]:
    return (float(ts), ts)


@dataclass
class _Context:
    users: dict[str, str]
    channels: dict[str, str]
    workspace_url: str | None


def message_to_item(
    message: JSON, channel_id: str, channel_name: str, ctx: _Context, *, in_thread: bool
) -> Item | None:
    """One message as an Item, or None when it carries no content (joins, empty messages)."""
    ts = message.get("ts")
    if not isinstance(ts, str) or not ts:
        raise ValueError("message has no ts")
    if message.get("subtype") in NOISE_SUBTYPES or message.get("hidden"):
        return None
    text = message_text(message, ctx.users, ctx.channels)
    if not text:
        return None
    thread_ts = message.get("thread_ts")
    edited = message.get("edited") or {}
    return Item(
        ref=f"slack:{channel_id}:{ts}",
        source_type=SOURCE_TYPE,
        kind="message",
        text=text,
        occurred_at=utc(ts),
        author=message_author(message, ctx.users),
        container=channel_name,
        thread=thread_ts if in_thread else None,
        url=message.get("permalink") or permalink(ctx.workspace_url, channel_id, ts, thread_ts),
        metadata={
            "channel_id": channel_id,
            "ts": ts,
            "thread_ts": thread_ts,
            "subtype": message.get("subtype"),
            "reply_count": int(message.get("reply_count") or 0),
            # The edit's own ts; the cached text is already the latest version.
            "edited": edited.get("ts") if isinstance(edited, dict) else None,
            "files": file_names(message),
        },
    )


def channel_readers(channel: JSON | None) -> tuple[str, ...] | None:
    """Who may read a conversation (briefing.access): a public channel, every member of the workspace; a private
    channel, group DM or DM, its members (an export's groups.json / mpims.json / dms.json list them, the Web API
    connector reads conversations.members on every sync into `_members`). None when unknown: the owner only."""
    if not isinstance(channel, dict):
        return None
    kind = channel.get("_kind")
    private = kind in ("group", "mpim", "dm") or any(
        bool(channel.get(flag)) for flag in ("is_private", "is_im", "is_mpim", "is_group")
    )
    if not private:
        return (MEMBERS,)
    members = channel.get("_members") if kind is None else channel.get("members")
    if not isinstance(members, list):
        return None
    return tuple(reader_id(f"slack:{m}") for m in members if isinstance(m, str) and m)


def channel_name(channel: JSON, users: Mapping[str, str]) -> str:
    """A channel's name; direct messages get `dm-<person>-<person>` from their members."""
    if channel.get("name"):
        return str(channel["name"])
    members = channel.get("members") or ([channel["user"]] if channel.get("user") else [])
    if members:
        return "dm-" + "-".join(users.get(m, m) for m in members)
    return str(channel.get("id", ""))


def _title_words(text: str) -> str:
    words = _LINK_TARGET.sub("", text).split()
    head = " ".join(words[:_TITLE_WORDS])
    return head + ("..." if len(words) > _TITLE_WORDS else "")


def normalise_records(records: Sequence[RawRecord], *, workspace_url: str | None = None) -> Normalised:
    """Cached Slack records -> one document per channel (unthreaded messages) and one per thread."""
    out = Normalised()
    usable = usable_records(records, out.failures)
    messages = [r for r in usable if r.kind == "message"]
    ctx, channel_records = context_of(usable, out, workspace_url, messages)
    by_channel: dict[str, list[RawRecord]] = defaultdict(list)
    for record in messages:
        channel_id = record_channel(record, out.failures)
        if channel_id is not None:
            by_channel[channel_id].append(record)
    for channel_id in sorted(by_channel):
        out.documents.extend(channel_documents(channel_id, by_channel[channel_id], ctx, channel_records, out.failures))
    return out


_CHECKS = {"user": user_problem, "channel": channel_problem, "message": message_problem}


def usable_records(records: Iterable[RawRecord], failures: list[Failure]) -> list[RawRecord]:
    """The records that pass their kind's checks; each other one is a counted failure."""
    usable: list[RawRecord] = []
    for record in records:
        check = _CHECKS.get(record.kind)
        problem = check(record.data) if check else None
        if problem is not None:
            # Cached before these checks existed (or by a damaged run): one counted failure, never a crash.
            failures.append(Failure(record.key, problem))
            continue
        usable.append(record)
    return usable


def context_of(
    meta: Sequence[RawRecord], out: Normalised, workspace_url: str | None, messages: Iterable[RawRecord]
) -> tuple[_Context, dict[str, JSON]]:
    """Names of users and channels and the workspace URL (from `messages` when no record names it); the people
    go into `out`. `messages` is read only as far as the first file permalink."""
    user_records = [r.data for r in meta if r.kind == "user"]
    users = {u["id"]: user_name(u) for u in user_records}
    channel_records = {r.data["id"]: r.data for r in meta if r.kind == "channel"}
    channels = {cid: channel_name(c, users) for cid, c in channel_records.items()}
    # The API connector caches auth.test's team URL as a `workspace` record; exports carry none.
    stored_url = next(
        (r.data.get("url") for r in meta if r.kind == "workspace" and isinstance(r.data.get("url"), str)), None
    )
    workspace_url = workspace_url or stored_url or workspace_url_from(r.data for r in messages)
    out.people = [user_to_person(u) for u in user_records]
    return _Context(users, channels, workspace_url), channel_records


def record_channel(record: RawRecord, failures: list[Failure]) -> str | None:
    """The channel id a cached message names, or None (a counted failure)."""
    chan = record.data.get("_channel")
    if not isinstance(chan, dict) or not isinstance(chan.get("id"), str) or not chan["id"]:
        failures.append(Failure(record.key, "message record without _channel.id"))
        return None
    return str(chan["id"])


def channel_documents(
    channel_id: str,
    records: list[RawRecord],
    ctx: _Context,
    channel_records: Mapping[str, JSON],
    failures: list[Failure],
) -> list[Document]:
    """The documents of one channel's messages (all of them: its unthreaded messages are one document)."""
    name = ctx.channels.get(channel_id) or records[0].data["_channel"].get("name") or channel_id
    docs = _channel_documents(channel_id, name, records, ctx, failures)
    readers = channel_readers(channel_records.get(channel_id))
    for doc in docs:
        doc.readers = readers
    return docs


def _thread_roots(messages: Iterable[JSON]) -> set[str]:
    """thread_ts values that really are threads: a reply points at them, or the root counts replies."""
    roots: set[str] = set()
    for m in messages:
        thread_ts, ts = m.get("thread_ts"), m.get("ts")
        if thread_ts and (thread_ts != ts or int(m.get("reply_count") or 0) > 0):
            roots.add(thread_ts)
    return roots


def _channel_documents(
    channel_id: str, name: str, records: list[RawRecord], ctx: _Context, failures: list[Failure]
) -> list[Document]:
    roots = _thread_roots(r.data for r in records)
    loose: list[Item] = []
    threads: dict[str, list[Item]] = defaultdict(list)
    for record in records:
        message = record.data
        thread_ts = message.get("thread_ts")
        in_thread = bool(thread_ts) and thread_ts in roots
        try:
            item = message_to_item(message, channel_id, name, ctx, in_thread=in_thread)
        except Exception as exc:  # one odd message (a shape no check foresaw) must not lose its channel
            failures.append(Failure(record.key, f"unreadable message: {type(exc).__name__}: {exc}"[:300]))
            continue
        if item is None:
            continue
        (threads[str(thread_ts)] if in_thread else loose).append(item)

    def order(items: list[Item]) -> list[Item]:
        return sorted(items, key=lambda i: _ts_key(i.metadata["ts"]))

    base_meta = {"channel_id": channel_id, "channel_name": name}
    docs: list[Document] = []
    if loose:
        docs.append(
            Document(
                key=f"slack:{channel_id}",
                kind="slack_channel",
                source_type=SOURCE_TYPE,
                title=f"#{name}",
                items=order(loose),
                url=f"{ctx.workspace_url.rstrip('/')}/archives/{channel_id}" if ctx.workspace_url else "",
                container=name,
                metadata={**base_meta, "thread_ts": None},
            )
        )
    for thread_ts in sorted(threads, key=_ts_key):
        items = order(threads[thread_ts])
        root = next((i for i in items if i.metadata["ts"] == thread_ts), None)
        opening = root or items[0]
        docs.append(
            Document(
                key=f"slack:{channel_id}/{thread_ts}",
                kind="slack_thread",
                source_type=SOURCE_TYPE,
                title=f"#{name} thread: {_title_words(opening.text)}",
                items=items,
                url=root.url if root else permalink(ctx.workspace_url, channel_id, thread_ts),
                container=name,
                metadata={
                    **base_meta,
                    "thread_ts": thread_ts,
                    "root_author": root.author if root else None,
                    "root_missing": root is None,
                },
            )
        )
    return docs


def normalise_parts(records: RecordSource) -> Iterator[Normalised]:
    """`normalise`, one channel at a time: users and channels first, then each channel's messages.

    Memory holds the users, the channel list and one channel's messages, never the whole export. Keys are
    `user/ID`, `channel/ID` and `CHANNEL_ID/ts` (see `fetch`), so a channel's messages are read by key.
    """
    keys = sorted(records.keys())
    by_channel: dict[str, list[str]] = {}
    meta_keys: list[str] = []
    for key in keys:
        prefix, sep, _ = key.partition("/")
        if not sep or prefix in ("user", "channel"):
            meta_keys.append(key)
        else:
            by_channel.setdefault(prefix, []).append(key)
    first = Normalised()
    meta = usable_records(records.read(meta_keys), first.failures)

    def messages() -> Iterator[RawRecord]:  # read only as far as the first file permalink
        for key_list in by_channel.values():
            for record in records.read(key_list):
                if record.kind == "message" and message_problem(record.data) is None:
                    yield record

    ctx, channel_records = context_of(meta, first, None, messages())
    yield first
    for channel_id, key_list in by_channel.items():
        part = Normalised()
        usable = [r for r in usable_records(records.read(key_list), part.failures) if r.kind == "message"]
        mine: list[RawRecord] = []
        for record in usable:
            named = record_channel(record, part.failures)
            if named == channel_id:
                mine.append(record)
            elif named is not None:
                part.failures.append(Failure(record.key, f"message record cached under {channel_id} names {named}"))
        if mine:
            part.documents = channel_documents(channel_id, mine, ctx, channel_records, part.failures)
        yield part
