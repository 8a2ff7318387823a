"""Slack shapes to the project's model, shared by the export and the Web API connectors.

Both connectors cache the same raw records: `message` (the vendor message plus `"_channel": {"id", "name"}`),
`user` (a users.list / users.json member) and `channel` (a conversations.list / channels.json entry), so one
`normalise_records` serves both. Message text is rendered from Slack mrkdwn into plain readable text: mentions
become names, links keep label and address, entities are unescaped.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from briefing.model import (
    JSON,
    MEMBERS,
    Document,
    Failure,
    Item,
    Normalised,
    Person,
    RawRecord,
    reader_id,
    utc,
)

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
# What Slack puts in `text` when a message is made of blocks only.
_PLACEHOLDER_TEXTS = frozenset({"This content can't be displayed.", "This message contains interactive elements."})

_ANGLE = re.compile(r"<([^<>\n]+)>")
_WORKSPACE = re.compile(r"^(https://[a-z0-9-]+(?:\.enterprise)?\.slack\.com/)")
_TITLE_WORDS = 8
# *bold*, _italic_ and ~strike~ around a phrase, as Slack reads them: the same marker on both sides, the opening
# one followed and the closing one preceded by a non-space ("foo * bar * baz" is plain text), neither glued to
# a word (snake_case and 2*3*4 are not emphasis). Markers may nest ("*bold _and italic_*").
_EMPHASIS = re.compile(r"(?<![\w*_~])([*_~])(?![\s*_~])((?:(?!\1)[^\n])*?[^\s*_~])\1(?!\w)")
# What emphasis never touches: ```preformatted``` blocks, `code` spans and <...> entities (links, mentions),
# whose labels are cleaned on their own and whose addresses may hold underscores.
_PROTECTED = re.compile(r"```.*?```|`[^`\n]+`|<[^<>\n]+>", re.DOTALL)
_SLOT = re.compile("\ue000(\\d+)\ue001")
_LINK_TARGET = re.compile(r"\s*\(https?://[^)\s]+\)")  # the "(url)" after a link label, noise in a title


# --------------------------------------------------------------------------------------------- validation

# Slack timestamps are "<unix seconds>.<microseconds>"; anything else (1e300, inf, -1, a list) is hostile or broken.
_TS = re.compile(r"\d{1,11}(?:\.\d{1,9})?")
_MAX_TS = 4_102_444_800.0  # 2100-01-01: later stamps are corrupt, and would overflow date arithmetic downstream
_OPTIONAL_TYPES: dict[str, tuple[type, ...]] = {
    "text": (str,),
    "user": (str,),
    "username": (str,),
    "subtype": (str,),
    "bot_id": (str,),
    "permalink": (str,),
    "latest_reply": (str,),
    "blocks": (list,),
    "attachments": (list,),
    "files": (list,),
    "edited": (dict,),
    "bot_profile": (dict,),
    "user_profile": (dict,),
}


def valid_ts(value: Any) -> bool:
    """Whether `value` is a Slack timestamp string within the range real messages have."""
    return isinstance(value, str) and _TS.fullmatch(value) is not None and float(value) < _MAX_TS


def _kind_of(value: Any) -> str:
    return type(value).__name__


def message_problem(message: Any) -> str | None:
    """Why a raw message cannot be used (one line), or None; checked before it is cached and again on reading."""
    if not isinstance(message, dict):
        return f"message is a JSON {_kind_of(message)}, not an object"
    ts = message.get("ts")
    if not valid_ts(ts):
        return f"message has an invalid ts ({str(ts)[:40]!r}): expected seconds.micros"
    thread_ts = message.get("thread_ts")
    if thread_ts is not None and not valid_ts(thread_ts):
        return f"message {ts} has an invalid thread_ts ({str(thread_ts)[:40]!r})"
    count = message.get("reply_count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
        return f"message {ts} has an invalid reply_count ({str(count)[:40]!r}): expected a whole number"
    for key, types in _OPTIONAL_TYPES.items():
        value = message.get(key)
        if value is not None and not isinstance(value, types):
            return f"message {ts} has {key} of type {_kind_of(value)}, expected {types[0].__name__}"
    return None


def user_problem(user: Any) -> str | None:
    """Why a users.list / users.json member cannot be used, or None."""
    if not isinstance(user, dict):
        return f"user is a JSON {_kind_of(user)}, not an object"
    if not isinstance(user.get("id"), str) or not user["id"]:
        return "user without a string id"
    profile = user.get("profile")
    if profile is not None and not isinstance(profile, dict):
        return f"user {user['id']} has a profile of type {_kind_of(profile)}, expected an object"
    for key in ("name", "real_name"):
        if user.get(key) is not None and not isinstance(user[key], str):
            return f"user {user['id']} has {key} of type {_kind_of(user[key])}"
    for key in ("real_name", "display_name", "email"):
        if isinstance(profile, dict) and profile.get(key) is not None and not isinstance(profile[key], str):
            return f"user {user['id']} has profile.{key} of type {_kind_of(profile[key])}"
    return None


def channel_problem(channel: Any) -> str | None:
    """Why a conversations.list / channels.json entry cannot be used, or None."""
    if not isinstance(channel, dict):
        return f"channel is a JSON {_kind_of(channel)}, not an object"
    if not isinstance(channel.get("id"), str) or not channel["id"]:
        return "channel without a string id"
    if channel.get("name") is not None and not isinstance(channel["name"], str):
        return f"channel {channel['id']} has a name of type {_kind_of(channel['name'])}"
    members = channel.get("members")
    if members is not None and not (isinstance(members, list) and all(isinstance(m, str) for m in members)):
        return f"channel {channel['id']} has members that are not a list of ids"
    return None


# --------------------------------------------------------------------------------------------- rendering


def render_mrkdwn(text: str, users: Mapping[str, str] | None = None, channels: Mapping[str, str] | None = None) -> str:
    """Slack mrkdwn as readable text: `<@U1>` -> `@Name`, `<#C1|x>` -> `#x`, `<url|label>` -> `label (url)`.

    Emphasis markers are removed from prose and link labels only; code spans and blocks keep every character.
    """
    users = users or {}
    channels = channels or {}

    def entity(body: str) -> str:
        target, _, label = body.partition("|")
        if target.startswith("@"):
            uid = target[1:]
            return "@" + (users.get(uid) or label.lstrip("@") or uid)
        if target.startswith("#"):
            cid = target[1:]
            return "#" + (label or channels.get(cid) or cid)
        if target.startswith("!"):
            return _special(target[1:], label)
        return _link(html.unescape(target), strip_emphasis(html.unescape(label)))

    slots: list[str] = []

    def protect(match: re.Match[str]) -> str:
        piece = match.group(0)
        if piece.startswith("<"):
            slots.append(entity(piece[1:-1]))
        else:  # code: entities inside still stand for names and links (Slack encodes them there too)
            slots.append(_ANGLE.sub(lambda m: entity(m.group(1)), piece))
        return f"\ue000{len(slots) - 1}\ue001"

    hidden = _PROTECTED.sub(protect, text)
    prose = strip_emphasis(hidden)
    return html.unescape(_SLOT.sub(lambda m: slots[int(m.group(1))], prose))


def strip_emphasis(text: str) -> str:
    """`text` without Slack's *bold*, _italic_ and ~strike~ markers; other asterisks and underscores stay."""
    for _ in range(4):  # one pass per nesting level; real messages nest two deep at most
        stripped = _EMPHASIS.sub(r"\2", text)
        if stripped == text:
            break
        text = stripped
    return text


def _special(command: str, label: str) -> str:
    if command in ("here", "channel", "everyone"):
        return "@" + command
    if command.startswith("subteam^"):
        return label if label.startswith("@") else "@" + (label or command.partition("^")[2])
    if command.startswith("date^"):
        return label or command
    return label or "@" + command


def _link(url: str, label: str) -> str:
    if url.startswith("mailto:"):
        return label or url[len("mailto:") :]
    bare = re.sub(r"^[a-z]+://", "", url)
    # Slack shows long addresses shortened; a label that is (a prefix of) the address adds nothing.
    if not label or url.startswith(label) or bare.startswith(label):
        return url
    return f"{label} ({url})"


def _dicts(value: Any) -> list[JSON]:
    """The objects in a list-valued field; anything else in it (or a non-list) is no content."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _str(value: Any) -> str:
    """A text field's value; numbers are shown as written, other shapes are no text."""
    if isinstance(value, str):
        return value
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else ""


def _count(value: Any) -> int:
    """A small non-negative count (list indent, start offset); a malformed one counts as 0."""
    try:
        number = int(value or 0)
    except (TypeError, ValueError, OverflowError):
        return 0
    return min(max(number, 0), 1000)


def _inline(elements: Any, users: Mapping[str, str], channels: Mapping[str, str]) -> str:  # rich_text_section elements
    parts: list[str] = []
    for el in _dicts(elements):
        kind = el.get("type")
        if kind == "text":
            parts.append(_str(el.get("text")))
        elif kind == "link":
            parts.append(_link(_str(el.get("url")), _str(el.get("text"))))
        elif kind == "user":
            uid = _str(el.get("user_id"))
            parts.append("@" + (users.get(uid) or uid))
        elif kind == "channel":
            cid = _str(el.get("channel_id"))
            parts.append("#" + (channels.get(cid) or cid))
        elif kind == "usergroup":
            parts.append("@" + _str(el.get("usergroup_id")))
        elif kind == "broadcast":
            parts.append("@" + (_str(el.get("range")) or "here"))
        elif kind == "emoji":
            parts.append(f":{_str(el.get('name'))}:")
        elif kind == "date":
            parts.append(_str(el.get("fallback")) or _str(el.get("timestamp")))
        elif kind in ("color", "team"):
            parts.append(_str(el.get("value")) or _str(el.get("team_id")))
    return "".join(parts)


def _rich_text(block: JSON, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    out: list[str] = []
    for el in _dicts(block.get("elements")):
        kind = el.get("type")
        if kind == "rich_text_section":
            out.append(_inline(el.get("elements"), users, channels))
        elif kind == "rich_text_list":
            indent = "  " * min(_count(el.get("indent")), 8)
            start = _count(el.get("offset")) + 1
            for n, item in enumerate(_dicts(el.get("elements")), start=start):
                marker = f"{n}." if el.get("style") == "ordered" else "-"
                out.append(f"{indent}{marker} {_inline(item.get('elements'), users, channels)}")
        elif kind == "rich_text_quote":
            quoted = _inline(el.get("elements"), users, channels)
            out.append("\n".join("> " + line for line in quoted.split("\n")))
        elif kind == "rich_text_preformatted":
            out.append("```\n" + _inline(el.get("elements"), users, channels).strip("\n") + "\n```")
    # Sections often end with their own newline; avoid doubling it when joining.
    return "\n".join(part.rstrip("\n") for part in out)


def _text_object(obj: Any, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    if not isinstance(obj, dict):
        return ""
    text = _str(obj.get("text"))
    return render_mrkdwn(text, users, channels) if obj.get("type") == "mrkdwn" else text


def render_blocks(blocks: Any, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    """The readable text of a message's `blocks` (rich text, sections, headers, context)."""
    out: list[str] = []
    for block in _dicts(blocks):
        kind = block.get("type")
        if kind == "rich_text":
            out.append(_rich_text(block, users, channels))
        elif kind in ("section", "header"):
            out.append(_text_object(block.get("text"), users, channels))
            out.extend(_text_object(field, users, channels) for field in _dicts(block.get("fields")))
        elif kind == "context":
            out.extend(
                _text_object(el, users, channels) or _str(el.get("alt_text")) for el in _dicts(block.get("elements"))
            )
    return "\n".join(part for part in out if part.strip())


def render_attachments(attachments: Any, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    """Legacy attachments: pretext, title, text and fields, else the fallback."""
    out: list[str] = []
    for att in _dicts(attachments):
        parts = [_str(att.get("pretext")), _str(att.get("title")), _str(att.get("text"))]
        parts += [f"{_str(f.get('title'))}: {_str(f.get('value'))}" for f in _dicts(att.get("fields"))]
        body = "\n".join(render_mrkdwn(p, users, channels) for p in parts if p)
        out.append(body or render_mrkdwn(_str(att.get("fallback")), users, channels))
    return "\n".join(part for part in out if part.strip())


def file_names(message: JSON) -> list[str]:
    """Names (titles where set) of the files a message shares."""
    names: list[str] = []
    for f in _dicts(message.get("files")):
        name = _str(f.get("title")) or _str(f.get("name")) or _str(f.get("id"))
        if name:
            names.append(name)
    return names


def message_text(message: JSON, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    """A message's readable text: `text`, else its blocks, else its attachments, else its files."""
    raw = _str(message.get("text"))
    if raw.strip() and raw.strip() not in _PLACEHOLDER_TEXTS:
        return render_mrkdwn(raw, users, channels).strip()
    for text in (
        render_blocks(message.get("blocks"), users, channels),
        render_attachments(message.get("attachments"), users, channels),
    ):
        if text.strip():
            return text.strip()
    names = file_names(message)
    return ", ".join(f"[file: {name}]" for name in names)


# --------------------------------------------------------------------------------------------- people


def user_name(user: JSON) -> str:
    """The name people know a user by: real name, else display name, else handle."""
    profile = user.get("profile") or {}
    return str(
        user.get("real_name")
        or profile.get("real_name")
        or profile.get("display_name")
        or user.get("name")
        or user.get("id", "")
    )


def user_to_person(user: JSON) -> Person:
    profile = user.get("profile") or {}
    handles = tuple(dict.fromkeys(h for h in (user.get("name"), profile.get("display_name")) if h))
    emails = tuple(e for e in (profile.get("email"),) if e)
    return Person(id=f"slack:{user['id']}", name=user_name(user), handles=handles, emails=emails)


def message_author(message: JSON, users: Mapping[str, str]) -> str | None:
    """The resolved author: a known user, else the message's own profile, else the bot's name, else the id.

    Bots post with a `bot_id` (and often a bot user's id that users.list does not resolve); their name is in
    `username` or `bot_profile.name`. A legacy `file_comment` names its author in `comment.user`.
    """
    comment = message.get("comment")
    uid = _str(message.get("user")) or (_str(comment.get("user")) if isinstance(comment, dict) else "")
    bot = message.get("bot_profile")
    bot_name = _str(bot.get("name")) if isinstance(bot, dict) else ""
    username, bot_id = _str(message.get("username")), _str(message.get("bot_id"))
    if message.get("subtype") == "bot_message" or (bot_id and not uid):
        found = username or bot_name or bot_id
    elif uid:
        profile = message.get("user_profile")
        profile = profile if isinstance(profile, dict) else {}
        found = (
            users.get(uid)
            or _str(profile.get("real_name"))
            or _str(profile.get("display_name"))
            or bot_name
            or (username if bot_id else "")
            or uid
        )
    else:
        found = username
    return found or None


# --------------------------------------------------------------------------------------------- messages


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
