"""`--since` / `--until` values as instants: ISO dates and times, or the time words questions use."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from briefing.errors import InputError
from briefing.question.timeexpr import Calendar, find_windows

DEFAULT_DAYS = 7


def bound(value: str, cal: Calendar, *, option: str, end: bool) -> datetime:
    """The start (or, for `--until`, the end) of what `value` names, in the workspace's time zone.

    "2026-06-08" and "last monday" are whole days: `--until friday` includes Friday.
    """
    text = value.strip()
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is not None:
        if len(text) == 10:  # a bare date: the whole day, in the workspace's time zone
            day = date.fromisoformat(text)
            return cal.at(day + timedelta(days=1)) if end else cal.at(day)
        return (parsed if parsed.tzinfo else parsed.replace(tzinfo=cal.zone)).astimezone(UTC)
    windows = find_windows(text, cal)
    if not windows:
        raise InputError(
            f"{option} '{value}' is not a date or a time expression: use e.g. 2026-06-08, \"last monday\", "
            '"last week" or "3 days ago"'
        )
    return max(w.end for w in windows) if end else min(w.start for w in windows)


def resolve(since: str | None, until: str | None, cal: Calendar) -> tuple[datetime, datetime]:
    """[start, end) from the options; without `--since`, the last seven days up to now."""
    start = bound(since, cal, option="--since", end=False) if since else cal.now - timedelta(days=DEFAULT_DAYS)
    stop = bound(until, cal, option="--until", end=True) if until else cal.now
    if stop <= start:
        raise InputError(
            f"the window is empty: --until ({stop.isoformat()}) is not after --since ({start.isoformat()})"
        )
    return start, stop
