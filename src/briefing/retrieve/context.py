"""What joins the answer stage's context after the strongest chunks: the best single messages and thread openings.

The context is the strongest chunks as ranked (`[answer] max_context_chunks`). Units are added after them (the hit
list does not change), each cut to the one unit that earns its place, so that its chunk's other messages do not
compete with those already there:
- a candidate whose best unit ranks among the unit list's first UNIT_CONTEXT, in the conversation (thread or
  channel log) of one of the first UNIT_CONTEXT_FROM context chunks: the message that answers ("fixed in `2.1.1`")
  shares the question's rarest words and little else, so it ranks high by its own text and low by its chunk's;
- (off by default: OPENING_FROM = 0) the opening message of the thread that the first OPENING_FROM context chunks
  continue, when it is a post rather than a question: a thread's later chunks carry only the opening's first
  sentence in their header, and what it offered in its later words (the company of a job post) is in its own
  chunk. On the seven dev sets it changed only the answer it was written for, so it stays off.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from briefing.asof import cut
from briefing.model import Chunk
from briefing.retrieve.model import Hit
from briefing.retrieve.units import restates, threaded, unit_context

UNIT_CONTEXT = 2
UNIT_CONTEXT_FROM = 3
OPENING_FROM = 0
# An opening that asks or reports a problem (the cues the answer stage reads a help thread by): the question is the
# user's own, the header already stands for it, and its replies answer; only a post (an offer, an announcement, a
# release) holds the answer in its own words.
ASKS = re.compile(
    r"\?|\b(?:help|how (?:can|do|to|should)|any idea|anyone|unable|can'?t|cannot|not working|error|issue|"
    r"problem|wrong|bug|strange|weird|(?:un)?expected|incorrect\w*|not (?:\w+ )?(?:correctly|right)|"
    r"fail(?:s|ed|ing|ure)?|crash\w*|stuck|trying|wondering|question|is there|hi team|hey team|hello|hi all)\b",
    re.I,
)


def answer_context(candidates: Sequence[Hit], strongest: Sequence[Chunk]) -> list[Chunk]:
    """`strongest` followed by the best units and the thread opening it lacks (each cut to that unit)."""
    out = list(strongest)
    out += best_units(candidates, out, UNIT_CONTEXT)
    out += thread_openings(candidates, out, OPENING_FROM)
    return out


def _only(chunk: Chunk, pos: int) -> Chunk:
    """`chunk` cut to its unit at `pos` (the whole chunk when that leaves nothing)."""
    return cut(chunk, [n != pos for n in range(len(chunk.units))]) or chunk


def best_units(candidates: Sequence[Hit], taken: Sequence[Chunk], n: int) -> list[Chunk]:
    """The best units of the unit list's `n` best candidates whose chunks are not in `taken`, in a conversation of
    `taken`'s first chunks; a near repeat of a better hit is not one (it says what that hit says)."""
    have = {c.chunk_id for c in taken}
    near = {c.doc_key for c in taken[:UNIT_CONTEXT_FROM]}
    best = sorted(
        (h for h in candidates if h.unit_rank is not None and h.unit_rank <= n), key=lambda h: h.unit_rank or 0
    )
    return [
        _only(h.chunk, h.unit_pos) if h.unit_pos is not None else h.chunk
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
        root = opening.units[0].text
        if restates(header, root) and not ASKS.search(root):
            out.append(_only(opening, 0))
            have.add(opening.chunk_id)
    return out
