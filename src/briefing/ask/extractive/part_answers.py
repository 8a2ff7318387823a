"""A two-part question answered part by part: one answer line per part, or a line saying its sources do not say."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.extractors import answer_span
from briefing.ask.extractive.followups import shared_line
from briefing.ask.extractive.refusal import unsupported
from briefing.ask.extractive.render import label
from briefing.ask.extractive.selection import newest_part, redundant
from briefing.ask.extractive.windowed import in_window
from briefing.model import Chunk
from briefing.question.answer_type import extra_of
from briefing.question.model import Question

if TYPE_CHECKING:
    from briefing.ask.vocabulary import Spread
    from briefing.view import View

# A part of a two-part question too weak on its own words is answered from the line that answers another part when
# that line is among its own best lines.
PART_SHARED = 3


class Scorer(Protocol):
    """What a part is scored and judged with: the extractive answerer's scoring, confidence and window settings."""

    windowed: bool
    inside_close: float

    def score(
        self,
        question: Question,
        evidence: list[Evidence],
        context: Sequence[Chunk],
        *,
        window: tuple[datetime, datetime] | None = None,
        spread: dict[str, Spread] | None = None,
        view: View | None = None,
    ) -> dict[str, float]: ...

    def confidence(self, features: dict[str, float]) -> float: ...

    def refuse_below(self) -> float: ...

    def rescore(self, question: Question, evidence: list[Evidence]) -> bool: ...


def answer_parts(
    answerer: Scorer,
    question: Question,
    evidence: list[Evidence],
    context: Sequence[Chunk],
    *,
    window: tuple[datetime, datetime] | None,
    view: View | None,
    whole: float = 0.0,
) -> tuple[list[Evidence], list[tuple[str, Evidence | None]], bool]:
    """One answer line per part of a two-part question, or a line saying the sources do not cover that part.
    A part is refused only when its own evidence does not support it (`refusal.unsupported`), or when its
    confidence is below the answerer's threshold and neither the whole question (`whole`, caps applied: a cap that
    one part sets lets no other part through) nor the line that answers another part (when it is among this part's
    PART_SHARED best lines) carries it: a follow-on part ("and what did it add?"), or a part whose words the
    answering line paraphrases, reads as a near miss on its own words alone. Each part is answered from the asked
    window like the whole (`windowed.in_window`); True when a part's window held nothing on it."""
    refuse_below = answerer.refuse_below()
    readings = []
    outside = False
    for part in extra_of(question)["part_readings"]:
        scored_as = part.as_scored(question)
        scored = [replace(e) for e in evidence]
        # As of the question's `now`, like the whole question's score: the vocabulary counts no later chunk.
        features = answerer.score(scored_as, scored, context, window=window, view=view)
        scored.sort(key=lambda e: (-e.score, e.n))
        low = answerer.confidence(features) < refuse_below
        if scored and not low and answerer.rescore(scored_as, scored):
            scored.sort(key=lambda e: (-e.score, e.n))
        if answerer.windowed:
            scored, missed = in_window(scored, window, question.now, close=answerer.inside_close)
            outside = outside or missed
        readings.append((part, scored, low, unsupported(features)))
    chosen: list[Evidence] = []
    tops: dict[int, Evidence] = {}
    for i, (part, scored, low, _) in enumerate(readings):
        if scored and not low:
            shared = shared_line(part.text, readings[0][0].text, scored, chosen) if i > 0 else None
            newest = newest_part(scored, part, question)
            first = shared or newest or next((e for e in scored if not redundant(e, chosen)), scored[0])
            tops[i] = first
            if not any(c.ref == first.ref and c.text == first.text for c in chosen):
                chosen.append(first)
    head: list[tuple[str, Evidence | None]] = []
    for i, (part, scored, _, capped) in enumerate(readings):
        name = label(part.text)
        top = tops.get(i)
        if top is None and scored and not capped:
            best = {(e.ref, e.text) for e in scored[:PART_SHARED]}
            shared = next((t for t in tops.values() if (t.ref, t.text) in best), None)
            top = scored[0] if whole >= refuse_below and shared is None else shared
            if top is not None and not any(c.ref == top.ref and c.text == top.text for c in chosen):
                chosen.append(top)
        if top is None:
            head.append((f"{name}: the sources do not say.", None))
            continue
        answered_as = part.as_answered(question)
        span = answer_span(answered_as, extra_of(answered_as)["span_kind"], top, context)
        head.append((f"{name}: {span}" if span else f"{name}:", top))
    return chosen, head, outside
