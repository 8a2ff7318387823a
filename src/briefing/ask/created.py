"""Which tracker items were created in a period, listed from the day their state says they were created.

"Which bugs were filed last week?", "What tickets did Dana open this month?", "Which issues were created yesterday?":
a code host records an item's opening as an event, which `briefing.ask.listing` reads; a tracker's item states the
day it was created and who reported it in its state ("Created: 2017-10-13", "Reporter: Uriel Lizama"), read as of
`now` (`inventory.item_states`). The items whose Created day falls in the window by `now`, of the type the question
names ("bugs"; "tickets" and "issues" name none), reported by the person it names, are listed oldest first, each
cited to its state.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from briefing.ask.finished import asked_types, day_in, day_of, names_match
from briefing.ask.inventory import ItemState, item_states
from briefing.ask.listing import Period
from briefing.ask.segment import clean

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.question.listings import RecordsAsked
    from briefing.question.model import Question
    from briefing.view import View

MAX_LISTED = 15
# A plural item noun's ending, for the count of one: "stories" -> "story", "bugs" -> "bug".
_PLURAL = re.compile(r"(?<=[^aeiou])ies$|s$")


def created_items(
    asked: RecordsAsked, window: tuple[datetime, datetime], view: View, people: Sequence[str] = ()
) -> list[tuple[date, ItemState]]:
    """The tracker items created in `window` by the view's `now`, of the asked type, reported by `asked.by` (or one
    of `people`, the names the question's person resolves to) when it names one, oldest first."""
    types = asked_types(asked.kind)
    names = [n for n in (asked.by, *people) if n]
    found: list[tuple[date, ItemState]] = []
    for item in item_states(view):
        day = day_of(item.cells.get("created", ""))
        if day is None or item.kind == "pull" or not day_in(day, window, view.now):
            continue
        if types and not any(t.replace("-", "") in item.kind for t in types):
            continue  # "Which bugs ...": an item of another stated type, or one whose type is not stated
        if names and not names_match(names, item.reporter):
            continue
        found.append((day, item))
    found.sort(key=lambda pair: (pair[0], pair[1].key))
    return found


def answer_created(
    asked: RecordsAsked, answer: ExtractiveAnswer, period: Period, view: View, question: Question
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """The items created in the question's window as the answer (a lead with their count, kind, reporter and period,
    then one cited line each, its day named in `zone`), with their keys; None when none was, so the question takes
    the next path."""
    found = created_items(asked, period.window, view, question.constraints.people)
    if not found:
        return None
    shown = found[:MAX_LISTED]
    more = f" ({len(found) - len(shown)} more not shown)" if len(found) > len(shown) else ""
    kind = asked.kind or "items"
    kind = _PLURAL.sub(lambda m: "y" if m[0] == "ies" else "", kind) if len(found) == 1 else kind
    verb = f"reported by {asked.by}" if asked.by else "created"
    lines = [f"{len(found)} {kind} {verb} {period.words}{more}, oldest first:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, (day, item) in enumerate(shown, 1):
        # The day as `day_in` reads it: its middle, 12:00 UTC, in the workspace's zone.
        on = datetime(day.year, day.month, day.day, 12, tzinfo=UTC).astimezone(period.zone)
        details = [item.cells.get("type", ""), f"reported by {item.reporter}" if item.reporter else ""]
        details.append(f"created {on:%a} {on.day} {on:%b}")
        state = f"; {item.status}" if item.status and not item.unknown else ""
        title = item.title if item.title.startswith(item.key.split(":", 1)[-1]) else f"{item.key}: {item.title}"
        lines.append(f"- {clean(title, limit=160)} ({', '.join(d for d in details if d)}{state}) [{n}]")
        cited[n], urls[n] = [item.header.ref], item.header.url
    told = replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls)
    return told, [item.key for _, item in found]
