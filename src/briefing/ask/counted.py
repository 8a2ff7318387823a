"""Who did the most of something in a period: the records of the period counted by the person who acted.

"Who merged the most PRs last week?", "Who opened the most issues this month?", "Who filed the most bugs last
week?": the records whose event falls in the window (a code host's opened or merged events, by their actor,
`listing.record_events`), or, for a tracker's items, those created in the window (by their reporter,
`created.created_items`), counted by that person, the one with the most first; each line cites up to three of the
person's records. Reviews and finished items are counted where they are listed (`reviewed`, `finished`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from briefing.ask.created import created_items
from briefing.ask.listing import Period, cited, most_first, record_events, whole
from briefing.question.words import TRACKER_NOUN

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.question.listings import RecordsAsked
    from briefing.question.model import Question
    from briefing.view import View

MAX_LISTED = 15
# Each person's line names (and cites) this many of their records.
SHOWN_KEYS = 3


def answer_by_actor(
    asked: RecordsAsked, answer: ExtractiveAnswer, period: Period, view: View, question: Question
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """The records of the question's `period` counted by who acted, as the answer, with the records' keys; None when
    none names anyone."""
    done: dict[str, list[tuple[str, str, str]]] = {}  # person -> (key, ref, url) of each record
    tracker = asked.event == "opened" and not asked.pulls and bool(TRACKER_NOUN.search(asked.kind))
    events = {} if tracker else record_events(asked, period.window, view)
    if events:
        for key, chunks in whole(view, sorted(events)).items():
            ref, url = cited(chunks[0])
            done.setdefault(events[key][1], []).append((key, ref, url))
    elif asked.event == "opened" and not asked.pulls:
        for _, item in created_items(asked, period.window, view, question.constraints.people):
            done.setdefault(item.reporter, []).append((item.key, item.header.ref, item.header.url))
    total = sum(len(records) for records in done.values())
    nobody = done.pop("", [])
    if not done:
        return None
    ranked, _, names = most_first(done)
    kind = asked.kind or "items"
    unknown = f" ({len(nobody)} by no one recorded)" if nobody else ""
    lead = f"{names} {asked.event} the most: {len(ranked[0][1])} of {total} {kind} {asked.event} {period.words}"
    lines = [f"{lead}{unknown}:"]
    refs: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, (who, records) in enumerate(ranked[:MAX_LISTED], 1):
        keys = ", ".join(key.split(":", 1)[-1] for key, _, _ in records[:SHOWN_KEYS])
        rest = f" and {len(records) - SHOWN_KEYS} more" if len(records) > SHOWN_KEYS else ""
        lines.append(f"- {who}: {len(records)} ({keys}{rest}) [{n}]")
        refs[n], urls[n] = [ref for _, ref, _ in records[:SHOWN_KEYS]], records[0][2]
    every = [key for records in (*done.values(), nobody) for key, _, _ in records]
    return replace(answer, text="\n".join(lines), no_answer=False, cited=refs, urls=urls), every
