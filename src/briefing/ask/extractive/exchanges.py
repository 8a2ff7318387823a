"""In a chat channel's own stream (no threads), the reply addressed to the asker answers, not the asker's message.

What a reply is: `briefing.retrieve.exchanges` (a message by someone else that opens with the asker's name).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from briefing.ask.extractive.evidence import Evidence, unit_text
from briefing.ask.extractive.ranking import holding
from briefing.retrieve.exchanges import REPLY_HOURS, addresses, asks, channel_kind, continuation

# The addressed reply leads whatever it scores: a reply shares few of the question's words ("@Ana yes, that is the
# default"), and the asker's own message, which restates them, is never what the channel answered.
ADDRESSED_FLOOR = 0.0


def _at(e: Evidence) -> datetime | None:
    try:
        return datetime.fromisoformat(e.at_iso) if e.at_iso else None
    except ValueError:
        return None


def replies_to(e: Evidence, ranked: list[Evidence]) -> list[Evidence]:
    """The lines of `ranked` (in its order) that answer `e`'s message in its channel: by someone else, opening
    with the name of `e`'s author, within REPLY_HOURS after it, and not a holding reply."""
    asked_at = _at(e)
    if asked_at is None or not e.author or not channel_kind(e.chunk.kind):
        return []
    out: list[Evidence] = []
    for r in ranked:
        at = _at(r)
        if r.chunk.doc_key != e.chunk.doc_key or not r.author or r.author == e.author or at is None:
            continue
        if asked_at < at <= asked_at + timedelta(hours=REPLY_HOURS) and addresses(unit_text(r), e.author):
            if not holding(r):
                out.append(r)
    return out


def addressed_reply_leads(ranked: list[Evidence], *, fix: bool) -> None:
    """When the best line of `ranked` (best first) is a channel message that asks, or `fix` (the question asks
    for the fix), and a reply addressed to its author follows it there (the rule above), move the best such reply
    to the front (the earliest, when there are several) with the messages that continue it, in place: the asker's
    message says what was asked, the reply what was answered."""
    if len(ranked) < 2:
        return
    top = ranked[0]
    if not (fix or asks(unit_text(top))):
        return
    replies = [r for r in replies_to(top, ranked) if r.score >= top.score * ADDRESSED_FLOOR]
    if not replies:
        return
    first = min(replies, key=lambda r: r.at_iso or "")  # the first reply answers; later ones discuss it
    ranked.insert(0, ranked.pop(ranked.index(first)))
    # Its continuation is the same reply: its best line of each message follows it, scored as the reply.
    for n, ref in enumerate(_continuing(first, ranked), 1):
        line = next((r for r in ranked if r.ref == ref and not holding(r)), None)
        if line is not None:
            line.score = max(line.score, first.score)
            ranked.insert(n, ranked.pop(ranked.index(line)))


def _continuing(reply: Evidence, ranked: list[Evidence]) -> list[str]:
    """The refs of the messages that continue `reply` (`retrieve.exchanges.continuation`), read from the chunks of
    its channel among `ranked` (a reply's next message may open the channel's next chunk)."""
    read = {u.ref: u for r in ranked if r.chunk.doc_key == reply.chunk.doc_key for u in r.chunk.units if u.at}
    units = sorted(read.values(), key=lambda u: (u.at, u.ref))
    pos = next((n for n, u in enumerate(units) if u.ref == reply.ref), None)
    return [] if pos is None else [units[n].ref for n in continuation(units, pos)]
