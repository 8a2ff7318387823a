"""Sources that disagree: the best lines about the asked subject that state different values, newest first; or,
for a role several people hold at once, its holders."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime

from briefing.ask.extractive.evidence import Evidence, presentation, unit_text
from briefing.ask.extractive.extractors import extractor_kind, stated_value
from briefing.ask.extractive.ranking import holding
from briefing.ask.extractive.selection import after, payload
from briefing.model import Chunk
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.terms import GENERIC, content_words

# The kinds of value two sources can state differently about one thing: a date, a version, a status, an owner.
# Quantities (a number, an amount, a duration) are left out: a line holds many, about different aspects, and with
# looser cutoffs every duration pair the dev sets gave was two lengths of two different things.
DIFFER_KINDS = frozenset({"version", "time", "status", "person"})
# A rival line scores within this share of the best line ...
DIFFER_CLOSE = 0.9
# ... and is about the same subject: its sentence and title hold at least this share (and at least two) of the
# question's words that the best line's hold. Different values about different things stay a single answer.
DIFFER_SUBJECT = 0.75
DIFFER_MIN_WORDS = 2
DIFFER_SIDES = 3
# Sentence text: a month's name and a day number, either way round ("9 June", "Jun 9th"), or an ISO day.
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()
_DAY_MONTH = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]{3})|([a-z]{3})[a-z]*\.?\s+(\d{1,2})", re.I)
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def _subject(ev: Evidence, q_words: set[str]) -> set[str]:
    """The question's words the line is about: those of its sentence and of its chunk's title."""
    return q_words & (ev.words | content_words(ev.text) | content_words(ev.chunk.title))


def _names(ev: Evidence, named: Sequence[str]) -> bool:
    """Whether the line's unit or title names one of the items the question names (a ticket key, a PR number):
    a line about PR #948 says nothing of PR #1047's author. True when the question names none."""
    if not named:
        return True
    about = f"{unit_text(ev)}\n{ev.chunk.title}"
    # Unit text and title: the key or number itself, not inside another ("#10470", "PLAT-1200").
    return any(re.search(rf"(?<![\w.]){re.escape(n.lstrip('#'))}(?![\w])", about, re.I) for n in named)


def _other_source(ev: Evidence, side: Evidence) -> bool:
    """Another source than `side`'s: another document, or another person's message in a conversation. Two values
    in one document (the release that had the bug, the one that fixed it) are one source's account, not a
    disagreement."""
    if ev.chunk.doc_key != side.chunk.doc_key:
        return True
    return presentation(ev.chunk).conversational and bool(ev.author) and ev.author != side.author


def normalised(kind: str, value: str) -> str:
    """A value as compared: a version without its "v", a date as month and day, a name or state in lower case."""
    low = " ".join(value.lower().split())
    if kind == "version":
        return low.lstrip("v")
    if kind == "time":
        iso = _ISO.search(low)
        if iso:
            return f"{int(iso[2])}-{int(iso[3])}"
        m = _DAY_MONTH.search(low)
        if m:
            day, month = (m[1], m[2]) if m[1] else (m[4], m[3])
            if month[:3] in _MONTHS:
                return f"{_MONTHS.index(month[:3]) + 1}-{int(day)}"
    if kind == "status":
        return low.replace("re-opened", "reopened").replace("won't", "wont")
    return low.replace(" ", "")


def disagreeing(
    question: Question,
    kind: str,
    top: Evidence,
    ranked: Sequence[Evidence],
    context: Sequence[Chunk],
    now: datetime | None,
) -> list[tuple[str, Evidence]]:
    """The values the best lines state for what is asked, newest first, each with its line, when lines close to
    `top` in score and about the same subject state different ones (at most DIFFER_SIDES); empty when they agree,
    when the value is not one sources can differ on, or when only one line states it. For a role with several
    holders (`holders_asked`) the values are its holders, best line first."""
    extractor = extractor_kind(question, kind)
    if extractor not in DIFFER_KINDS:
        return []
    value = stated_value(question, kind, top, context)
    q_words = set(extra_of(question)["words"]) - GENERIC
    subject = _subject(top, q_words)
    if not value or len(subject) < DIFFER_MIN_WORDS:
        return []
    need = max(DIFFER_MIN_WORDS, math.ceil(DIFFER_SUBJECT * len(subject)))
    named = [*question.keys, *extra_of(question)["numbers"]]
    sides = [(value, top)]
    seen = {normalised(extractor, value)}
    for ev in ranked:
        if ev.score < top.score * DIFFER_CLOSE or len(sides) >= DIFFER_SIDES:
            break
        if not all(_other_source(ev, e) for _, e in sides):
            continue
        if ev.lexical <= 0 or holding(ev) or payload(ev) or after(ev, now):
            continue
        if len(_subject(ev, q_words) & subject) < need or not _names(ev, named):
            continue
        other = stated_value(question, kind, ev, context)
        if other and normalised(extractor, other) not in seen:
            sides.append((other, ev))
            seen.add(normalised(extractor, other))
    if len(sides) < 2:
        return []
    if holders_asked(question, kind):
        return sides  # each holder is an answer: best line first
    return sorted(sides, key=lambda side: side[1].at_iso or "", reverse=True)


def holders_asked(question: Question, kind: str) -> bool:
    """Whether the question asks for the people of a role several hold at once (reviewers, approvers, testers,
    attendees, participants, those who replied; `briefing.question.asked.role_holders`): two lines naming two
    reviewers are two answers, not sources that differ; two owners or assignees stay a disagreement (or a change)."""
    return extractor_kind(question, kind) == "person" and extra_of(question).get("role_holders") == "many"


def with_sides(chosen: list[Evidence], sides: Sequence[tuple[str, Evidence]]) -> list[Evidence]:
    """The quoted lines: each side's line, newest first, then the rest of `chosen` (one line per unit)."""
    lines = [ev for _, ev in sides]
    rest = [e for e in chosen if not any(e.n == s.n and e.unit == s.unit for s in lines)]
    return [*lines, *rest]
