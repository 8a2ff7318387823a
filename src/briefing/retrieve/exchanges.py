"""Exchanges in a chat channel's own stream (no threads): a reply is the message that addresses its asker by name,
or the first message of the one a question addressed.

Older Slack workspaces (and IRC-style channels) answer in the channel itself. Someone asks, other talk goes on, and
the answer comes minutes or hours later, opening with the asker's name ("@Ana this is caused by an outdated
tools.reader"); a question put to someone by name ("@Sam how do I pin it?") is answered by their next message. The
channel has no thread to say which message answers which; the address does. Such a reply shares
few of the question's words and may lie in a later chunk of the channel, after a silence, so the answer context
reads it from the index (`retrieve.context`) and the answer stage lets it lead over the asker's own message
(`ask/extractive/exchanges.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime, timedelta

from briefing.asof import cut
from briefing.model import Chunk, Unit

# A reply addresses a question asked at most this long before it (a night's silence ends an exchange).
REPLY_HOURS = 12
# A question addressed to someone ("@Sam how do I ...?") is answered by their first message within this many hours.
ADDRESSEE_HOURS = 1
# At most this many replies join the answer context.
ADDRESSED_MAX = 3
# A reply often runs over several messages ("@Ana it is an outdated tools.reader", "add 1.2.1 to your deps", "or
# upgrade whatever brings the old one"): its author's next messages, each within this many minutes of the one
# before and addressing no one else, continue it.
CONTINUE_MINUTES = 3
# Message text: a report of a problem ("I have an issue with ...", "the build fails with ...", "can't connect").
_PROBLEM = re.compile(
    r"\b(?:error|issue|problem|fail(?:s|ed|ing|ure)?|crash\w*|not working|unable|can'?t|cannot|stuck|bug|wrong)\b", re.I
)
# What reads a channel's chunks by document key over a time range (a view of the index as of the question's now).
ChannelReader = Callable[[str, datetime, datetime], list[Chunk]]


def addresses(text: str, name: str) -> bool:
    """Whether message `text` opens by addressing `name` ("@Ana Lima, ..."), not someone whose name only starts
    the same way ("@Ana Limarez")."""
    lead = text.lstrip()
    if not name or not lead.startswith("@" + name):
        return False
    rest = lead[len(name) + 1 :]
    return not rest[:1].isalnum()


def channel_kind(kind: str) -> bool:
    """Whether chunks of `kind` are a chat channel's own stream of top-level messages (its descriptor says so)."""
    from briefing import registry
    from briefing.errors import BriefError

    try:
        return registry.kind(kind).stream
    except BriefError:
        return False


def asks(text: str) -> bool:
    """Whether a message asks something: it holds a question mark outside a link, or it reports a problem and is not
    itself a reply to someone ("I have an issue with 1.9.946", not "@Ana the error is in your deps")."""
    if "?" in " ".join(w for w in text.split() if "://" not in w):
        return True
    return not text.lstrip().startswith("@") and bool(_PROBLEM.search(text))


def addressee(text: str, names: AbstractSet[str]) -> str:
    """The one of `names` that message `text` opens by addressing ("@Sam Ortiz how do I ...?"), the longest when
    several fit, or ""."""
    if not text.lstrip().startswith("@"):
        return ""
    return max((n for n in names if addresses(text, n)), key=len, default="")


def reply_positions(units: Sequence[Unit], pos: int) -> list[int]:
    """The positions in `units` (a channel's messages in time order) of the replies to the message at `pos`: the
    messages by someone else that open with its author's name, within REPLY_HOURS; and, when it opens by addressing
    someone ("@Sam how do I ...?"), that person's first message after it, within ADDRESSEE_HOURS, unless it
    addresses a third person."""
    asked = units[pos]
    if not asked.author or asked.at is None:
        return []
    to = addressee(asked.text, {u.author for u in units if u.author and u.author != asked.author})
    out: list[int] = []
    heard = False  # the addressee has spoken since
    for n in range(pos + 1, len(units)):
        unit = units[n]
        if unit.at is None or unit.at > asked.at + timedelta(hours=REPLY_HOURS):
            break
        if not unit.author or unit.author == asked.author:
            continue
        if addresses(unit.text, asked.author):
            out.append(n)
        elif to and unit.author == to and not heard:
            soon = unit.at <= asked.at + timedelta(hours=ADDRESSEE_HOURS)
            if soon and not unit.text.lstrip().startswith("@"):
                out.append(n)
        heard = heard or unit.author == to
    return out


def replied_to(units: Sequence[Unit], pos: int, *, asking: bool = False) -> int | None:
    """The position in `units` (a channel's messages in time order) of the message the one at `pos` replies to:
    for a message that opens with a name, that person's latest message within REPLY_HOURS before it; else, when a
    message within ADDRESSEE_HOURS before it opened with its author's name and they have not spoken since, that
    message; else None. With `asking`, only a message that asks (`asks`) is replied to: the latest that does."""
    unit = units[pos]
    if not unit.author or unit.at is None:
        return None
    earlier = [(n, u) for n, u in enumerate(units[:pos]) if u.at is not None and u.author]
    to = addressee(unit.text, {u.author for _, u in earlier if u.author and u.author != unit.author})
    if to:
        since = unit.at - timedelta(hours=REPLY_HOURS)
        said = ((n, u) for n, u in reversed(earlier) if u.author == to and u.at and u.at >= since)
        return next((n for n, u in said if not asking or asks(u.text)), None)
    for n, u in reversed(earlier):
        if u.author == unit.author or (u.at and u.at < unit.at - timedelta(hours=ADDRESSEE_HOURS)):
            return None  # they spoke since, or it is too long ago
        if addresses(u.text, unit.author):
            return n if not asking or asks(u.text) else None
    return None


def continuation(units: Sequence[Unit], pos: int) -> list[int]:
    """The positions in `units` (a channel's messages in time order) of the messages that continue the reply at
    `pos`."""
    out: list[int] = []
    prev = units[pos]
    for n in range(pos + 1, len(units)):
        unit = units[n]
        if unit.author != prev.author or unit.at is None or prev.at is None or unit.text.lstrip().startswith("@"):
            break
        if unit.at - prev.at > timedelta(minutes=CONTINUE_MINUTES):
            break
        out.append(n)
        prev = unit
    return out


def only(chunk: Chunk, refs: AbstractSet[str]) -> Chunk:
    """`chunk` cut to its units of `refs` (the whole chunk when that leaves nothing)."""
    return cut(chunk, [u.ref not in refs for u in chunk.units]) or chunk


def addressed_replies(taken: Sequence[Chunk], channel: ChannelReader, top: int) -> list[Chunk]:
    """The replies (`reply_positions`) to the questions asked in the channel chunks among `taken`'s first `top`
    chunks, each with its continuation, read by `channel` and not in `taken` (a reply in `taken` may bring its
    continuation from the next chunk): at most ADDRESSED_MAX, earliest first."""
    held = {u.ref for c in taken for u in c.units}
    asked = [(c.doc_key, u) for c in taken[:top] if channel_kind(c.kind) for u in c.units if u.author and asks(u.text)]
    out: list[Chunk] = []
    for key in dict.fromkeys(k for k, _ in asked):
        questions = [u for k, u in asked if k == key and u.at is not None]
        if not questions:
            continue
        start = min(u.at for u in questions if u.at is not None)
        end = max(u.at for u in questions if u.at is not None) + timedelta(hours=REPLY_HOURS)
        # The channel's messages in time order, each with the chunk it is read from.
        read = {u.ref: (u, c) for c in channel(key, start, end) for u in c.units if u.at is not None}
        ordered = sorted(read.values(), key=lambda uc: (uc[0].at, uc[0].ref))
        units = [u for u, _ in ordered]
        asked_refs = {u.ref for u in questions}
        for pos, (unit, _) in enumerate(ordered):
            if unit.ref not in asked_refs:
                continue
            for reply in reply_positions(units, pos):
                run = (reply, *continuation(units, reply))
                new = [ordered[n] for n in run if ordered[n][0].ref not in held]
                chunks = {c.chunk_id: c for _, c in new}
                for cid, chunk in chunks.items():
                    out.append(only(chunk, {u.ref for u, c in new if c.chunk_id == cid}))
                held |= {u.ref for u, _ in new}
    out.sort(key=lambda c: c.start)
    return out[:ADDRESSED_MAX]
