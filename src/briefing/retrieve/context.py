"""What joins the answer stage's context after the strongest chunks: the best single messages and thread openings.

The context is the strongest chunks as ranked (`[answer] max_context_chunks`). Units are added after them (the hit
list does not change), each cut to the one unit that earns its place, so that its chunk's other messages do not
compete with those already there, and marked `ADDED_TO_CONTEXT`, so that the answer stage's rank prior and word
rarities stay those of the strongest chunks: a candidate whose best unit ranks among the unit list's first
UNIT_CONTEXT, in the conversation (thread or channel log) of one of the first UNIT_CONTEXT_FROM context chunks. The
message that answers ("fixed in `2.1.1`") shares the question's rarest words and little else, so it ranks high by
its own text and low by its chunk's. Then the opening message of the thread that the first OPENING_FROM context
chunks continue, when their header restates it: a thread's later chunks carry only the opening's first sentence,
and what it asked or offered in its later words is in its own chunk. An added opening gives the answer stage the
thread's structure (who asked, what was asked); unless it restates the question, it does not promote a reply
that holds none of the question's words (`ask/extractive/openings.py`). Last, in a chat channel's own stream (no
threads), the replies that address by name the askers of the first ADDRESSED_FROM context chunks' questions: such a
reply ("@Ana this is caused by an outdated tools.reader") shares few of the question's words and may lie in a later
chunk of the channel, after a silence (`ask/extractive/exchanges.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from briefing.model import ADDED_TO_CONTEXT, Chunk
from briefing.retrieve.exchanges import ChannelReader, addressed_replies, only
from briefing.retrieve.model import Hit
from briefing.retrieve.units import restates, threaded, unit_context

UNIT_CONTEXT = 2
UNIT_CONTEXT_FROM = 3
OPENING_FROM = 1
ADDRESSED_FROM = 2


def answer_context(
    candidates: Sequence[Hit], strongest: Sequence[Chunk], channel: ChannelReader | None = None
) -> list[Chunk]:
    """`strongest` followed by the best units, the thread opening it lacks and, when `channel` reads the index, the
    replies addressed to its first channel questions' askers (each cut to that unit)."""
    out = [*strongest, *best_units(candidates, strongest, UNIT_CONTEXT)]
    out += [_added(c) for c in thread_openings(candidates, out, OPENING_FROM)]
    if channel is not None:
        out += [_added(c) for c in addressed_replies(out, channel, ADDRESSED_FROM)]
    return out


def _added(chunk: Chunk) -> Chunk:
    """`chunk` marked as added after the strongest chunks."""
    return replace(chunk, metadata={**chunk.metadata, ADDED_TO_CONTEXT: True})


def best_units(candidates: Sequence[Hit], taken: Sequence[Chunk], n: int) -> list[Chunk]:
    """The best units of the unit list's `n` best candidates whose chunks are not in `taken`, in a conversation of
    `taken`'s first chunks; a near repeat of a better hit is not one (it says what that hit says)."""
    have = {c.chunk_id for c in taken}
    near = {c.doc_key for c in taken[:UNIT_CONTEXT_FROM]}
    best = sorted(
        (h for h in candidates if h.unit_rank is not None and h.unit_rank <= n), key=lambda h: h.unit_rank or 0
    )
    return [
        _added(only(h.chunk, {h.chunk.units[h.unit_pos].ref}) if h.unit_pos is not None else h.chunk)
        for h in best
        if h.chunk.chunk_id not in have and h.duplicate_of is None and h.chunk.doc_key in near
    ]


def thread_openings(candidates: Sequence[Hit], taken: Sequence[Chunk], top: int) -> list[Chunk]:
    """The opening messages of the threads that `taken`'s first `top` chunks continue, when the opening's chunk is
    a candidate and not in `taken`, and the continuing chunk's header restates the opening (not a mail's subject)."""
    have = {c.chunk_id for c in taken}
    later = {c.doc_key: unit_context(c) for c in reversed(taken[:top]) if c.ordinal > 0 and threaded(c.kind)}
    out: list[Chunk] = []
    for hit in candidates:
        opening = hit.chunk
        header = later.get(opening.doc_key)
        if opening.ordinal != 0 or not header or opening.chunk_id in have or not opening.units:
            continue
        if restates(header, opening.units[0].text):
            out.append(only(opening, {opening.units[0].ref}))
            have.add(opening.chunk_id)
    return out
