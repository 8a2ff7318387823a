"""A channel's own stream (no threads) joined by its exchanges: a reply belongs to the question it answers.

A stream gives one conversation per chunk, and one per burst of it (`gather.bursts`); a reply that comes after a
silence ("@Ana this is caused by an outdated tools.reader", two hours later) opens another. What a reply is:
`briefing.retrieve.exchanges.replied_to` (a message that opens with a name answers that person's latest message;
one addressed by name is answered by its addressee's next message). A reply to a message that asks (the latest of
its addressee's that does) moves, with its continuation, to the asking message's conversation; the rest of the
conversation it was in stays where it was. Moving the whole of a conversation that a reply opens was measured too:
in a busy channel a chain of replies then makes one conversation of half a day, and the replies were shown beside
their questions less often.
"""

from __future__ import annotations

from briefing.digest.conversation import Conversation, Seen
from briefing.retrieve.exchanges import continuation, replied_to


def join_exchanges(conversations: list[Conversation]) -> list[Conversation]:
    """`conversations` (in order) with each stream's replies joined to the messages they answer, in place; those
    left with no unit are dropped."""
    streams: dict[str, list[Conversation]] = {}
    for conv in conversations:
        if conv.stream:
            streams.setdefault(conv.doc_key, []).append(conv)
    for group in streams.values():
        if len(group) > 1:
            _join(group)
    return [conv for conv in conversations if conv.units]


def _join(group: list[Conversation]) -> None:
    """Move the replies to questions among one channel's conversations `group` to their questions' conversations."""
    held = {s.unit.ref: (s, conv) for conv in group for s in conv.units}
    ordered = sorted(held.values(), key=lambda sc: (sc[0].at, sc[0].unit.ref))
    units = [s.unit for s, _ in ordered]
    owner = {s.unit.ref: conv for s, conv in ordered}
    for pos, unit in enumerate(units):
        target = replied_to(units, pos, asking=True)
        if target is None:
            continue
        home = owner[units[target].ref]
        for ref in (unit.ref, *(units[m].ref for m in continuation(units, pos))):
            other = owner[ref]
            if other is not home:
                moved = [s for s in other.units if s.unit.ref == ref]
                other.units = [s for s in other.units if s.unit.ref != ref]
                home.units = sorted([*home.units, *moved], key=_order)
                owner[ref] = home


def _order(seen: Seen) -> tuple[object, str]:
    return seen.at, seen.unit.ref
