"""A later part of a two-part question that refers back to the first part's answer reads that answer's line first."""

from __future__ import annotations

import re
from collections.abc import Sequence

from briefing.ask.extractive.evidence import Evidence
from briefing.question.terms import GENERIC, content_words

# Part text: a later part that points back at what the first part asks for ("and what options did it add?", "and
# what got better in it?", "and who fixed them?"): the thing it asks about is named by the first part's answer.
_REFERS_BACK = re.compile(r"\b(?:it|its|they|them|their|that|this|those|these)\b", re.I)


def refers_back(part: str) -> bool:
    """Whether a later part's text points back at the first part's subject with a pronoun."""
    return bool(_REFERS_BACK.search(part))


# The first part's line answers a later part that refers back when it is among the part's SHARED_TOP best lines
# and scores within SHARED_CLOSE of its best.
SHARED_TOP = 3
SHARED_CLOSE = 0.9


def shared_line(part: str, first: str, scored: Sequence[Evidence], chosen: Sequence[Evidence]) -> Evidence | None:
    """The line that answers the first part (`first`), for a later part that refers back to it (`refers_back`),
    when that line is close to the part's best (SHARED_TOP, SHARED_CLOSE) and holds a word of the part's own: one
    line ("Toolbox 0.1.8 is out. Dataloader got a lot of bugs fixed, and pipelines now have better error reporting")
    answers "which version came out" and "what got better in it", and a line of another message ("I'll push the new
    version this week") does not. A line without the part's own words ("how was it caught" over the release note
    that answered "what was wrong") does not answer it twice."""
    if not scored or not refers_back(part):
        return None
    own = content_words(part) - GENERIC - content_words(first)
    for ev in scored[:SHARED_TOP]:
        if ev.score < scored[0].score * SHARED_CLOSE:
            break
        if any(c.ref == ev.ref and c.text == ev.text for c in chosen) and own & ev.words:
            return ev
    return None
