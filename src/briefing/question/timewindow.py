"""Time windows ([start, end) in aware UTC, with the words they came from) and the calendar they resolve on."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from briefing.errors import ConfigError
from briefing.question.words import WEEKDAYS

# Questions predate this epoch never; it stands in for "the beginning" in "before May 1".
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Span:
    """Character offsets [start, end) of a piece of evidence in the question, and its text."""

    start: int
    end: int
    text: str

    def to_json(self, kind: str) -> dict[str, Any]:
        return {"kind": kind, "text": self.text, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class TimeWindow:
    """A resolved time range [start, end) in aware UTC, with the words it came from."""

    start: datetime
    end: datetime
    span: Span | None
    label: str
    # Set when the question's words say more than the window holds (a range read only in part).
    note: str = ""

    def contains(self, at: datetime) -> bool:
        return self.start <= at < self.end

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "label": self.label,
            "span": self.span.to_json("time") if self.span else None,
            **({"note": self.note} if self.note else {}),
        }


Range = tuple[datetime, datetime]


def day_start(day: date, zone: tzinfo) -> datetime:
    """The instant `day` begins in `zone`, in UTC: a day named in a line's text or given by a date-only field is
    that calendar day in the workspace's zone, like the windows a question names; instants stay instants."""
    return datetime.combine(day, time(), tzinfo=zone).astimezone(UTC)


def local_day(at: datetime | date, zone: tzinfo) -> date:
    """The calendar day of an instant in `zone` (a date is its own day): the day an answer names for it."""
    return at.astimezone(zone).date() if isinstance(at, datetime) else at


def local_window(window: Range, zone: tzinfo) -> Range:
    """`window`'s instants as `zone` writes them (the same instants): what reads a day named in text against it
    (`briefing.ask.extractive.coverage.mentions_window`) takes that day in the window's zone."""
    return window[0].astimezone(zone), window[1].astimezone(zone)


class Calendar:
    """Day, week, month and quarter boundaries around `now` in one time zone, as UTC instants."""

    def __init__(self, now: datetime, timezone: str = "UTC", week_start: str = "monday") -> None:
        try:
            self.zone = ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ConfigError(
                f"unknown time zone '{timezone}' in setting 'timezone': use an IANA name such as Europe/Berlin"
            ) from exc
        if week_start.lower() not in WEEKDAYS:
            raise ConfigError(f"unknown week start '{week_start}' in setting 'week_start': use monday or sunday")
        self.timezone = timezone
        self.week_start = WEEKDAYS.index(week_start.lower())
        # A naive `now` (e.g. `--now 2026-06-15T09:00`) is taken as UTC, like every stored timestamp.
        self.now = (now if now.tzinfo else now.replace(tzinfo=UTC)).astimezone(UTC)
        self.local = self.now.astimezone(self.zone)
        self.today = self.local.date()
        self._parsed: dict[str, datetime | None] = {}

    def at(self, day: date) -> datetime:
        """Local midnight starting `day`, in UTC."""
        return day_start(day, self.zone)

    def local_date(self, instant: datetime) -> date:
        return instant.astimezone(self.zone).date()

    def days(self, first: date, count: int = 1) -> Range:
        return self.at(first), self.at(first + timedelta(days=count))

    def week_of(self, day: date) -> Range:
        first = day - timedelta(days=(day.weekday() - self.week_start) % 7)
        return self.days(first, 7)

    def month(self, year: int, month: int) -> Range:
        return self.at(date(year, month, 1)), self.at(month_start(year, month, 1))

    def quarter(self, year: int, quarter: int) -> Range:
        first = 3 * (quarter - 1) + 1
        return self.at(date(year, first, 1)), self.at(month_start(year, first, 3))

    def year(self, year: int) -> Range:
        return self.at(date(year, 1, 1)), self.at(date(year + 1, 1, 1))

    def this_quarter(self) -> tuple[int, int]:
        return self.today.year, (self.today.month - 1) // 3 + 1

    def past_year(self, year: int | None, first_month: int) -> int:
        """The year a month (or quarter) without an explicit year refers to: never one in the future."""
        if year is not None:
            return year
        return self.today.year if first_month <= self.today.month else self.today.year - 1

    def shift_months(self, instant: datetime, months: int) -> datetime:
        local = instant.astimezone(self.zone)
        start = month_start(local.year, local.month, months)
        day = min(local.day, days_in_month(start.year, start.month))
        moved = datetime.combine(start.replace(day=day), local.time(), tzinfo=self.zone)
        return moved.astimezone(UTC)

    def weekend(self, which: str) -> Range:
        """Saturday 00:00 to Monday 00:00: the one now in or last started, last ended, or coming."""
        saturday = self.today - timedelta(days=(self.today.weekday() - 5) % 7)
        in_weekend = self.today.weekday() >= 5
        if which == "last" and in_weekend:
            saturday -= timedelta(days=7)
        elif which == "this" and not in_weekend:
            saturday += timedelta(days=7)
        return self.days(saturday, 2)

    def dateparser_settings(self) -> dict[str, Any]:
        return {
            "RELATIVE_BASE": self.local.replace(tzinfo=None),
            "TIMEZONE": self.timezone,
            "RETURN_AS_TIMEZONE_AWARE": True,
            "PREFER_DATES_FROM": "past",
        }

    def parse(self, text: str) -> datetime | None:
        """One date through dateparser, in local time; imported lazily because it is slow to load."""
        import dateparser

        if text not in self._parsed:
            found = dateparser.parse(text, languages=["en"], settings=self.dateparser_settings())
            self._parsed[text] = found.astimezone(self.zone) if found else None
        return self._parsed[text]


def month_start(year: int, month: int, add: int) -> date:
    index = year * 12 + (month - 1) + add
    return date(index // 12, index % 12 + 1, 1)


def days_in_month(year: int, month: int) -> int:
    return (month_start(year, month, 1) - timedelta(days=1)).day
