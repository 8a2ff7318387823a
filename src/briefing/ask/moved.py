"""Which items were moved into a status in a period, listed from their recorded transitions.

"Which tickets moved to In Review last week?", "What went to Done yesterday?", "Which tickets did Lena move to
Blocked this week?": the items whose recorded status changes (a changelog's, the `events` role of a source with a
history) moved them into the asked status inside the window, by `now`, by the person asked about. The status is
matched by its words: "review" is "In Review", "done" is "Done", "to do" is "To Do". The items' type narrows the
list when the question names one ("bugs"). Each line is cited to the change that moved it (its latest such change
in the window). A source that keeps no transitions (an export without a changelog) lists nothing, and the question
takes the ordinary path.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from briefing import registry
from briefing.ask.fields import bare_title, item_of
from briefing.ask.finished import asked_types, history_families, names_match
from briefing.ask.header import rows
from briefing.ask.listing import Period, whole
from briefing.ask.segment import clean
from briefing.index import Filter
from briefing.question.timewindow import local_day

if TYPE_CHECKING:
    from collections.abc import Sequence

    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.model import Unit
    from briefing.question.listings import RecordsAsked
    from briefing.question.model import Question
    from briefing.view import View

MAX_LISTED = 15


def _words(status: str) -> set[str]:
    return set(status.casefold().replace("-", " ").split())


def moved_items(
    asked: RecordsAsked, window: tuple[datetime, datetime], view: View, people: Sequence[str] = ()
) -> list[tuple[datetime, str, dict[str, Any], Unit | None, str]]:
    """(when, item key, the event, the change's unit, the item's label and title) of each item moved into the asked
    status inside `window` by `view.now` (its latest such move), oldest first."""
    families = history_families()
    wanted = _words(asked.status)
    names = [n for n in (asked.by, *people) if n]
    if not families or not wanted:
        return []
    moves: dict[str, tuple[datetime, dict[str, Any]]] = {}
    units: dict[str, Unit] = {}
    for chunk in view.chunks(Filter(source_types=families, start=window[0], end=window[1])):
        units.update((u.ref, u) for u in chunk.units)
        for ev in registry.meta(chunk, "events"):
            if ev.get("event") != "status" or not wanted <= _words(str(ev.get("to") or "")):
                continue
            try:
                at = datetime.fromisoformat(str(ev.get("at")))
            except ValueError:
                continue
            if not window[0] <= at < window[1] or at > view.now:
                continue
            if names and not names_match(names, str(ev.get("by") or "")):
                continue
            if chunk.doc_key not in moves or moves[chunk.doc_key][0] < at:
                moves[chunk.doc_key] = (at, ev)
    types = asked_types(asked.kind)
    found = []
    for key, chunks in whole(view, sorted(moves)).items():
        item = item_of(key, chunks)
        stated = rows(item.header.text).get("type", "").lower().replace("-", "") if item.header is not None else ""
        if types and not any(t.replace("-", "") in stated for t in types):
            continue  # "Which bugs ...": an item of another type, or one that states none
        title = bare_title(key, chunks[0].title)
        label = f"{item.label}: {title}" if title else item.label
        at, ev = moves[key]
        found.append((at, key, ev, units.get(str(ev.get("ref") or "")), label))
    found.sort(key=lambda f: (f[0], f[1]))
    return found


def answer_moved(
    asked: RecordsAsked, answer: ExtractiveAnswer, period: Period, view: View, question: Question
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """The items moved into the asked status in the question's window as the answer (a lead with their count, kind,
    status, mover and period, then one cited line each, its day named in `zone`), with their keys; None when none
    was (the question then takes the ordinary path)."""
    found = moved_items(asked, period.window, view, question.constraints.people)
    if not found:
        return None
    status = str(found[0][2].get("to") or asked.status)
    shown = found[:MAX_LISTED]
    more = f" ({len(found) - len(shown)} more not shown)" if len(found) > len(shown) else ""
    kind = asked.kind or "items"
    if len(found) == 1:
        kind = kind[:-3] + "y" if kind.endswith("ies") else kind.removesuffix("s")
    whose = f" by {asked.by}" if asked.by else ""
    lines = [f"{len(found)} {kind} moved to {status}{whose} {period.words}{more}, oldest first:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, (at, key, ev, unit, name) in enumerate(shown, 1):
        day = local_day(at, period.zone)
        details = [f"from {ev.get('from')}" if ev.get("from") else "", f"by {ev.get('by')}" if ev.get("by") else ""]
        details.append(f"{day:%a} {day.day} {day:%b}")
        lines.append(f"- {clean(name, limit=160)} ({', '.join(d for d in details if d)}) [{n}]")
        cited[n] = [unit.ref if unit is not None else key]
        urls[n] = unit.url if unit is not None else ""
    told = replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls)
    return told, [key for _, key, *_ in found]
