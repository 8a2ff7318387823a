"""What the question asks the index for: its hard filter, and the topic left once its constraints are read."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from briefing.index import Filter
from briefing.model import Chunk
from briefing.settings import RetrievalSettings

if TYPE_CHECKING:
    from briefing.question.constraints import Constraints

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.'-]*")


FILLER = frozenset(
    """what happened happen happening changed change changes new news update updates status going on did do does
    was were is are the a an in on at of to for from with about any anything everything all there this that last
    past week weeks month months day days year today yesterday since recently recent lately give me tell show
    summary summarize summarise recap digest overview brief briefing and or our team please""".split()
)


def residual_query(question: str, constraints: Constraints | None) -> str:
    """The question without the constraint spans, for deciding whether anything topical is left."""
    text = question
    if constraints is not None:
        # A version is the topic ("what went into v0.9.2"), not a narrowing of it.
        for _, span in sorted((s for s in constraints.spans if s[0] != "version"), key=lambda s: -s[1].start):
            text = text[: span.start] + " " + text[span.end :]
    words = [w for w in WORD.findall(text.lower()) if w not in FILLER]
    return " ".join(words)


def hard_filter(
    constraints: Constraints | None, settings: RetrievalSettings, now: datetime
) -> tuple[Filter, dict[str, Any]]:
    """The filter the question's hard constraints make, and its description for the trace.

    "As of now" is the View's: nothing written after the question's `now` exists yet (matters for --now and
    evaluation); the description still names it.
    """
    flt = Filter()
    described: dict[str, Any] = {"as_of": now.isoformat()}
    if constraints is None:
        return flt, described
    hard = set(constraints.hard)
    if settings.constraint_mode == "filter":
        hard |= {"time", "source", "person", "channel", "ticket"}
    if "source" in hard and constraints.sources:
        flt = replace(flt, source_types=tuple(constraints.sources))
        described["source_type"] = list(constraints.sources)
    if "time" in hard and constraints.time is not None:
        flt = replace(flt, start=constraints.time.start, end=constraints.time.end)
        described["time"] = [constraints.time.start.isoformat(), constraints.time.end.isoformat()]
    if "person" in hard and constraints.people:
        flt = replace(flt, authors=tuple(constraints.people))
        described["authors"] = list(constraints.people)
    if "channel" in hard and (constraints.channels or constraints.projects):
        values = list(constraints.channels) + list(constraints.projects)
        flt = replace(flt, containers=tuple(values))
        described["container"] = values
    if "ticket" in hard and constraints.tickets:
        flt = replace(flt, tickets=tuple(constraints.tickets))
        described["tickets"] = list(constraints.tickets)
    return flt, described


def overlaps(chunk: Chunk, start: datetime, end: datetime) -> bool:
    return chunk.end >= start and chunk.start < end
