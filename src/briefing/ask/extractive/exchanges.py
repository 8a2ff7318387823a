"""In a chat channel's own stream (no threads), the reply addressed to the asker answers, not the asker's message.

What a reply is: `briefing.retrieve.exchanges` (a message by someone else that opens with the asker's name, or the
first message of the one the question addressed).
"""

from __future__ import annotations

from briefing.ask.extractive.evidence import Evidence, unit_text
from briefing.ask.extractive.ranking import holding
from briefing.model import Unit
from briefing.retrieve.exchanges import asks, channel_kind, continuation, reply_positions


def _channel(e: Evidence, ranked: list[Evidence]) -> list[Unit]:
    """The messages of `e`'s channel that the chunks of `ranked` hold, in time order."""
    read = {u.ref: u for r in ranked if r.chunk.doc_key == e.chunk.doc_key for u in r.chunk.units if u.at}
    return sorted(read.values(), key=lambda u: (u.at, u.ref))


def replies_to(e: Evidence, ranked: list[Evidence]) -> list[Evidence]:
    """The best line of each reply to `e`'s message in its channel (`retrieve.exchanges.reply_positions`, read from
    the chunks of `ranked`), not a holding one, in reply order."""
    if not e.author or not channel_kind(e.chunk.kind):
        return []
    units = _channel(e, ranked)
    pos = next((n for n, u in enumerate(units) if u.ref == e.ref), None)
    if pos is None:
        return []
    out: list[Evidence] = []
    for n in reply_positions(units, pos):
        line = next((r for r in ranked if r.ref == units[n].ref), None)
        if line is not None and not holding(line):
            out.append(line)
    return out


def addressed_reply_leads(ranked: list[Evidence], *, fix: bool) -> None:
    """When the best line of `ranked` (best first) is a channel message that asks, or `fix` (the question asks
    for the fix) and it is no reply itself, and a reply to it follows there (`replies_to`), move the first reply
    to the front with the messages that continue it, in place: the asker's message says what was asked, the reply
    what was answered."""
    if len(ranked) < 2:
        return
    top = ranked[0]
    said = unit_text(top)
    # A message that opens by addressing someone answers them unless it asks ("@Sam how do I ...?").
    if not (asks(said) or (fix and not said.lstrip().startswith("@"))):
        return
    # The reply leads whatever it scores: it shares few of the question's words ("@Ana yes, that is the default"),
    # and the asker's own message, which restates them, is never what the channel answered (a floor of 0.4 or 0.15
    # of the asker's line kept that line in the lead on the Clojurians channel probes).
    replies = replies_to(top, ranked)
    if not replies:
        return
    first = replies[0]  # the first reply answers; later ones discuss it
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
    units = _channel(reply, ranked)
    pos = next((n for n, u in enumerate(units) if u.ref == reply.ref), None)
    return [] if pos is None else [units[n].ref for n in continuation(units, pos)]
