"""Meetings by when they happen, read from the calendar rather than from sentences about them.

"What meetings do we have this week?", "Any 1:1s tomorrow?", "What's on the calendar next week?" list the
occurrences of scheduled kinds (calendar events) that start in the window, past or still to come (an event is
visible once it was put in the calendar), in time order, each with its time, organiser and place, cited by its own
event. A person the question names keeps the meetings that name them (organiser or attendee); "meetings about X"
keeps those that mention X. These are listed even where the sentences were refused: the calendar, not a sentence,
answers, and an empty window in a calendar that exists is said in words.

"When is the next standup?" is the first occurrence to come of the meetings whose title holds its words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from briefing import registry
from briefing.ask.extractive import _GENERIC, ExtractiveAnswer, _title, content_words
from briefing.ask.listing import cited, narrowed, period_words
from briefing.ask.segment import clean
from briefing.index import Filter
from briefing.model import Chunk
from briefing.question.words import MEETING_WORDS

if TYPE_CHECKING:
    from briefing.view import View

# A week of daily stand-ups and the rest fits; a month says how many more there are.
MAX_MEETINGS = 20


def agenda_topic(about: str) -> set[str]:
    """The topic words of "meetings about the cutover" (`about`: what follows "about"; "" for none)."""
    return content_words(about) - _GENERIC if about else set()


def _cancelled(chunk: Chunk) -> bool:
    return bool(registry.meta(chunk, "cancelled"))


def _scheduled_families() -> tuple[str, ...]:
    return tuple(
        name
        for name in registry.families()
        if (found := registry.family(name)) is not None and any(k.scheduled for k in found.kinds)
    )


def has_calendar(view: View) -> bool:
    """Whether the view holds any event of a scheduled kind (a calendar is configured and ingested)."""
    families = _scheduled_families()
    return bool(families) and view.count(Filter(source_types=families)) > 0


def listed_meetings(
    topic: set[str], window: tuple[datetime, datetime], view: View, people: Sequence[str] = ()
) -> list[Chunk]:
    """The occurrences of scheduled kinds that start in `window` and were in the calendar at the view's `now`, in
    time order: one chunk each (an occurrence's first), kept when they name every person asked and hold the `topic`
    words (of `agenda_topic`)."""
    families = _scheduled_families()
    if not families:
        return []
    first: dict[str, Chunk] = {}
    for chunk in view.chunks(Filter(source_types=families, start=window[0], end=window[1])):
        if not window[0] <= chunk.start < window[1]:
            continue  # overlapping the window is not starting in it (a leave that began last week)
        text = chunk.text.lower()
        if any(p.lower() not in text and p not in chunk.authors for p in people):
            continue
        if topic and topic - (content_words(chunk.text) | content_words(chunk.title)):
            continue
        key = chunk.refs[0] if chunk.refs else chunk.doc_key
        if key not in first or (chunk.ordinal, chunk.chunk_id) < (first[key].ordinal, first[key].chunk_id):
            first[key] = chunk
    return sorted(first.values(), key=lambda c: (c.start, c.title, c.doc_key))


def next_meeting(asked: str, view: View) -> Chunk | None:
    """The first occurrence starting after `now`, as the calendar held it at `now`, of the scheduled events whose
    title holds every word of "when is the next <asked>?"; None when none is found (within a year)."""
    families = _scheduled_families()
    if not families:
        return None
    words = content_words(asked) - _GENERIC - MEETING_WORDS
    if not words:
        return None
    now = view.now
    found: Chunk | None = None
    for chunk in view.chunks(Filter(source_types=families, start=now, end=now + timedelta(days=366))):
        # Begun before now is not to come, though the view holds it (it overlaps the year searched).
        if chunk.start < now or _cancelled(chunk):
            continue
        if words - content_words(chunk.title) or (found is not None and chunk.start >= found.start):
            continue
        found = chunk
    return found


def answer_next_meeting(
    asked: str, answer: ExtractiveAnswer, *, view: View, zone: ZoneInfo | None = None
) -> ExtractiveAnswer | None:
    """`answer` as the next occurrence of the meeting asked about ("When is the next standup?"), cited by its
    occurrence; None when the calendar holds none to come."""
    found = next_meeting(asked, view)
    if found is None:
        return None
    line = _meeting_line(found, zone or ZoneInfo("UTC"))
    ref, url = cited(found)
    return replace(answer, text=f"{line} [1]", cited={1: [ref]}, urls={1: url}, no_answer=False)


def _meeting_line(chunk: Chunk, zone: ZoneInfo) -> str:
    """ "Tue 16 Jun 13:00-15:00 UTC: Q3 planning (organiser Priya Raman)": when, what, by whom."""
    start, end = chunk.start.astimezone(zone), chunk.end.astimezone(zone)
    if registry.meta(chunk, "all_day"):
        when = f"{start:%a} {start.day} {start:%b}, all day"
    else:
        until = f"-{end:%H:%M}" if end > start and end.date() == start.date() else ""
        when = f"{start:%a} {start.day} {start:%b} {start:%H:%M}{until} {start.tzname() or 'UTC'}"
    title = clean(_title(chunk)[0], limit=160) or chunk.doc_key
    status = " (cancelled)" if _cancelled(chunk) else ""
    if not status and registry.meta(chunk, "changed_later"):  # its source keeps no earlier state (sources.ROLES)
        status = " (changed after this moment: details may be the later ones)"
    organiser = f" (organiser {chunk.authors[0]})" if chunk.authors else ""
    return f"{when}: {title}{status}{organiser}"


def render_meetings(
    meetings: Sequence[Chunk], period: str, zone: ZoneInfo, answer: ExtractiveAnswer, narrowing: str = ""
) -> ExtractiveAnswer:
    """Meetings as the answer: a lead with their number, what narrowed them (" with Ana", " about cutover") and
    the period, then one cited line each, in time order."""
    shown = meetings[:MAX_MEETINGS]
    more = f" ({len(meetings) - len(shown)} more not shown)" if len(meetings) > len(shown) else ""
    noun = "meeting" if len(meetings) == 1 else "meetings"
    lines = [f"{len(meetings)} {noun}{narrowing} {period}{more}, in time order:"]
    refs: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, chunk in enumerate(shown, 1):
        lines.append(f"- {_meeting_line(chunk, zone)} [{n}]")
        ref, urls[n] = cited(chunk)
        refs[n] = [ref]
    return replace(answer, text="\n".join(lines), cited=refs, urls=urls, no_answer=False)


def answer_agenda(
    about: str,
    answer: ExtractiveAnswer,
    *,
    window: tuple[datetime, datetime],
    label: str,
    week_of: str,
    view: View,
    people: Sequence[str] = (),
    zone: ZoneInfo | None = None,
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """`answer` as the meetings that start in the question's window, with their keys ("No meetings ..." in a
    calendar that has none there); None when no calendar is indexed."""
    window, narrowing = narrowed(window, week_of)
    period = period_words(label, narrowing)
    topic = agenda_topic(about)
    who = f" with {' and '.join(people)}" if people else ""
    narrowing = who + (f" about {' '.join(sorted(topic))}" if topic else "")
    meetings = listed_meetings(topic, window, view, people)
    if meetings:
        shown = render_meetings(meetings, period, zone or ZoneInfo("UTC"), answer, narrowing)
        return shown, list(dict.fromkeys(c.doc_key for c in meetings))
    if has_calendar(view):
        # An empty window in a calendar that exists is an answer, not a refusal (as briefings say "Nothing in").
        text = f"No meetings{narrowing} {period} in the calendar."
        return replace(answer, text=text, cited={}, urls={}, no_answer=False), []
    return None
