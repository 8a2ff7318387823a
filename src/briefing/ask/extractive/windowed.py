"""The asked time's lines: answering a question that names a past time from then, and saying when it holds none."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, timedelta, tzinfo

from briefing.ask.extractive.coverage import mentions_window
from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.render import when
from briefing.question.timewindow import day_start, local_window

# An asked window's best line that shares no question word still answers (the incident thread of "what went wrong
# yesterday?" says "5xx" and "pool", not "wrong") when it scores within this share of the best line of any time.
INSIDE_CLOSE = 0.5
# The scope line's days ("files, slack; 2026-06-08 to 2026-06-14; in #x").
_SCOPE_WINDOW = re.compile(r"(?:^|; )(\d{4}-\d{2}-\d{2})(?: to (\d{4}-\d{2}-\d{2}))?(?=;|$)")

Window = tuple[datetime, datetime]


def window_from_scope(scope: str, zone: tzinfo) -> Window | None:
    """The days the search covered, from the scope line, last day included, as `zone` (the workspace's, in which
    the scope line names them) writes them; used when the question has no time window of its own."""
    m = _SCOPE_WINDOW.search(scope)
    if not m:
        return None
    first, last = date.fromisoformat(m[1]), date.fromisoformat(m[2] or m[1])
    return local_window((day_start(first, zone), day_start(max(first, last) + timedelta(days=1), zone)), zone)


def inside(ev: Evidence, window: Window) -> bool:
    """Stated inside the window, or naming one of its days ("I'm on leave 8-12 June", said on 5 June)."""
    if ev.at_iso and window[0] <= datetime.fromisoformat(ev.at_iso) < window[1]:
        return True
    return mentions_window(ev.text, window)


def in_window(
    ranked: list[Evidence], window: Window | None, now: datetime | None, *, close: float = INSIDE_CLOSE
) -> tuple[list[Evidence], bool]:
    """A question that names a past time ("yesterday", "the week of 8 June") is answered from that time: the lines
    stated in it or naming its days, when one of them shares a question word or the best of them scores within
    `close` of the best line (`INSIDE_CLOSE`). Else every line, and True: the window holds nothing on the topic,
    and the answer says so (`outside_lead`). A window that has not begun at `now` ("next quarter") asks about plans
    stated before it, so it restricts nothing."""
    if window is None or now is None or window[0] > now or not ranked:
        return ranked, False
    held = [e for e in ranked if inside(e, window)]
    if any(e.lexical > 0 for e in held):
        return held, False
    best = ranked[0].score
    if held and close > 0 and best > 0 and held[0].score >= best * close:
        return held, False
    return ranked, True


def outside_lead(chosen: Sequence[Evidence], label: str, window: Window) -> str:
    """ "Nothing from <label>; the closest, from <day>:" for an answer whose lines were all stated outside the asked
    window (and name none of its days); "" when one of them is inside or none is dated."""
    dated = [e for e in chosen if e.at_iso]
    if not label or not dated or any(inside(e, window) for e in chosen):
        return ""
    return f"Nothing from {label}; the closest, from {when(dated[0])}:"
