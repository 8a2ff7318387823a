"""Time expressions in a question, resolved to UTC windows in the user's time zone and week start.

Calendar words (weeks, months, quarters, years, weekends, rolling "past N days") are resolved here; single
dates and weekdays ("May 1", "1st of May", "Friday", "3 days ago") go through dateparser, which also serves as
a guarded fallback for phrasings the grammar does not know ("a fortnight ago"). Every window is [start, end)
in aware UTC. A bare month, quarter or date that would lie in the future of `now` means the previous year.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from briefing.errors import ConfigError

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
    "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "few": 3, "several": 5,
}  # fmt: skip
ORDINALS = {
    word: n
    for n, word in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
        "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(),
        start=1,
    )
}
ORDINALS.update({f"twenty{sep}{word}": 20 + n for word, n in list(ORDINALS.items())[:9] for sep in ("-", " ")})
ORDINALS.update({"thirtieth": 30, "thirty-first": 31, "thirty first": 31})
# Questions predate this epoch never; it stands in for "the beginning" in "before May 1".
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
RECENT_DAYS = 14

_MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")"
_WEEKDAY = r"(?:" + "|".join(WEEKDAYS) + r")"
_NUM = r"(?:\d{1,3}|a\s+few|a\s+couple(?:\s+of)?|couple(?:\s+of)?|" + "|".join(NUMBERS) + r")"
_UNIT = r"(?:hour|day|week|fortnight|month|quarter|year)s?"
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"
_ORDWORD = r"(?:" + "|".join(w.replace(" ", r"\s+") for w in sorted(ORDINALS, key=len, reverse=True)) + r")"
# A day of the month as digits ("13", "13th") or as an ordinal word ("the thirteenth").
_DAYNUM = rf"(?:\d{{1,2}}{_ORD}|{_ORDWORD})"
_DAY_GAP = r"\s*(?:-|–|—|to|until|till|through|thru|and)\s*(?:the\s+)?"
# A bare month or year ("June", "2025") is only a date after one of these words; "May we ship" is not.
_CONTEXT = re.compile(
    r"\b(?:in|during|since|from|between|and|to|until|till|through|thru|before|after|by|of|early|mid|late|"
    r"throughout|over|for\s+the\s+month\s+of)\s+(?:the\s+(?:month\s+of\s+)?)?$",
    re.IGNORECASE,
)
_STRONG_CONTEXT = re.compile(
    r"\b(?:in|during|since|from|between|until|before|after|early|mid|late|throughout)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
# A bare year needs a date preposition; "to", "and" and "-" only count right after another year ("2024 to
# 2025"), so "scale to 2000 users" and "a batch of 2000 rows" are not years.
_DAY_CONTEXT = re.compile(
    r"\b(?:on|by|since|from|between|and|to|until|till|before|after|of|for|around|about)\s+$", re.IGNORECASE
)
_YEAR_CONTEXT = re.compile(
    r"\b(?:in|during|since|from|between|until|till|before|after)\s+$|"
    r"\b(?:19|20)\d\d\s*(?:to|and|through|thru|until|till|-|–)\s*$",
    re.IGNORECASE,
)
_RANGE_PREFIX = re.compile(
    r"\b(since|after|before|until|till|up\s+to|prior\s+to|from|between)\s+(?:the\s+)?$", re.IGNORECASE
)
_RANGE_GAP = re.compile(r"\s*(?:-|–|—|to|until|till|through|thru)\s*", re.IGNORECASE)
_AND_GAP = re.compile(r"\s+and\s+", re.IGNORECASE)
_DAY_TAIL = re.compile(
    rf"\s*(?:-|–|—|to|until|till|through|thru|and)\s*(?:the\s+)?(\d{{1,2}}){_ORD}\b(?!\s*(?:{_MONTH}\b|[:.]\d))",
    re.IGNORECASE,
)
# Range words left over next to a window that did not take them: "from 13 to" before "15 July" (when the first
# day is not read) or "to the end of term" after "from 13 July". The window is then narrower than the question.
_UNREAD_BEFORE = re.compile(
    r"\b(?:from|between)\b[^.?!;\n]{0,60}?\s(?:-|–|—|to|until|till|through|thru|and)\s+(?:the\s+)?$|"
    r"(?<![\w-])\d{1,2}(?:st|nd|rd|th)?\s*(?:-|–|—)\s*$",
    re.IGNORECASE,
)
_UNREAD_AFTER = re.compile(r"^\s*(?:-|–|—|to|until|till|through|thru)\s+(?:the\s+)?[\w.]+(?:\s+[\w.]+)?", re.I)


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
        return datetime.combine(day, time(), tzinfo=self.zone).astimezone(UTC)

    def local_date(self, instant: datetime) -> date:
        return instant.astimezone(self.zone).date()

    def days(self, first: date, count: int = 1) -> Range:
        return self.at(first), self.at(first + timedelta(days=count))

    def week_of(self, day: date) -> Range:
        first = day - timedelta(days=(day.weekday() - self.week_start) % 7)
        return self.days(first, 7)

    def month(self, year: int, month: int) -> Range:
        return self.at(date(year, month, 1)), self.at(_month_start(year, month, 1))

    def quarter(self, year: int, quarter: int) -> Range:
        first = 3 * (quarter - 1) + 1
        return self.at(date(year, first, 1)), self.at(_month_start(year, first, 3))

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
        start = _month_start(local.year, local.month, months)
        day = min(local.day, _days_in_month(start.year, start.month))
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


def _month_start(year: int, month: int, add: int) -> date:
    index = year * 12 + (month - 1) + add
    return date(index // 12, index % 12 + 1, 1)


def _days_in_month(year: int, month: int) -> int:
    return (_month_start(year, month, 1) - timedelta(days=1)).day


def _number(word: str) -> int:
    word = " ".join(word.lower().split())
    if word.isdigit():
        return int(word)
    # "a few", "a couple of" -> "few", "couple"
    return NUMBERS[word.removeprefix("a ").removesuffix(" of")]


def _unit(word: str) -> str:
    return word.lower().rstrip("s")


# --- atoms: one rule each; a handler returns the range or None when the words do not make a date ---------


Handler = Callable[[re.Match[str], Calendar], Range | None]


@dataclass(frozen=True)
class _Rule:
    name: str
    pattern: re.Pattern[str]
    handler: Handler


def _rolling(m: re.Match[str], cal: Calendar) -> Range | None:
    count = _number(m["n"]) if m["n"] else 1
    unit = _unit(m["unit"] or m["unit1"] or m["unit2"])
    if count <= 0:
        return None
    if unit in ("month", "quarter", "year"):
        months = count * {"month": 1, "quarter": 3, "year": 12}[unit]
        return cal.shift_months(cal.now, -months), cal.now
    step = {"hour": 1, "day": 24, "week": 7 * 24, "fortnight": 14 * 24}[unit]
    return cal.now - timedelta(hours=count * step), cal.now


def _ago(m: re.Match[str], cal: Calendar) -> Range | None:
    count = _number(m["n"])
    unit = _unit(m["unit"])
    if unit == "hour":
        return cal.now - timedelta(hours=count + 1), cal.now - timedelta(hours=max(count - 1, 0))
    if unit == "quarter":
        year, quarter = cal.this_quarter()
        index = year * 4 + quarter - 1 - count
        return cal.quarter(index // 4, index % 4 + 1)
    # dateparser covers "N days/weeks/months/years ago" (number words included); we widen to the unit.
    found = cal.parse(f"{count} {unit}s ago") if unit != "fortnight" else cal.parse(f"{2 * count} weeks ago")
    if found is None:
        return None
    day = found.date()
    if unit == "day":
        return cal.days(day)
    if unit in ("week", "fortnight"):
        return cal.week_of(day)
    if unit == "month":
        return cal.month(day.year, day.month)
    return cal.year(day.year)


def _relative_day(m: re.Match[str], cal: Calendar) -> Range | None:
    words = " ".join(m[0].lower().split())
    if "before yesterday" in words:
        return cal.days(cal.today - timedelta(days=2))
    if words == "yesterday":
        return cal.days(cal.today - timedelta(days=1))
    if words == "tomorrow":
        return cal.days(cal.today + timedelta(days=1))
    return cal.days(cal.today)


def _calendar_unit(m: re.Match[str], cal: Calendar) -> Range | None:
    which = m["which"].lower()
    unit = m["unit"].lower()
    offset = {"this": 0, "current": 0, "last": -1, "previous": -1, "next": 1}[which]
    if unit == "week":
        start, end = cal.week_of(cal.today)
        shift = timedelta(weeks=offset)
        start, end = cal.at(cal.local_date(start) + shift), cal.at(cal.local_date(end) + shift)
    elif unit == "month":
        first = _month_start(cal.today.year, cal.today.month, offset)
        start, end = cal.month(first.year, first.month)
    elif unit == "quarter":
        year, quarter = cal.this_quarter()
        index = year * 4 + quarter - 1 + offset
        start, end = cal.quarter(index // 4, index % 4 + 1)
    else:
        start, end = cal.year(cal.today.year + offset)
    if m["sofar"]:
        return start, cal.now
    return start, end


def _to_date(m: re.Match[str], cal: Calendar) -> Range | None:
    unit = (m["unit"] or {"w": "week", "m": "month", "q": "quarter", "y": "year"}[m["abbr"][0].lower()]).lower()
    start = {
        "week": lambda: cal.week_of(cal.today)[0],
        "month": lambda: cal.month(cal.today.year, cal.today.month)[0],
        "quarter": lambda: cal.quarter(*cal.this_quarter())[0],
        "year": lambda: cal.year(cal.today.year)[0],
    }[unit]()
    return start, cal.now


def _week_before_last(m: re.Match[str], cal: Calendar) -> Range | None:
    return cal.week_of(cal.today - timedelta(weeks=2))


def _weekend(m: re.Match[str], cal: Calendar) -> Range | None:
    which = m["which"].lower()
    return cal.weekend({"this": "this", "last": "last", "past": "last"}.get(which, "recent"))


def _recent(m: re.Match[str], cal: Calendar) -> Range | None:
    return cal.now - timedelta(days=RECENT_DAYS), cal.now


def _quarter(m: re.Match[str], cal: Calendar) -> Range | None:
    words = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
    quarter = int(m["q"] or m["q2"]) if (m["q"] or m["q2"]) else words[m["qword"].lower()]
    year_text = m["year"] or m["year2"]
    year = int(year_text) if year_text else (2000 + int(m["yy"]) if m["yy"] else None)
    return cal.quarter(cal.past_year(year, 3 * (quarter - 1) + 1), quarter)


def _month(m: re.Match[str], cal: Calendar) -> Range | None:
    month = MONTHS[m["month"].lower()]
    year = cal.past_year(int(m["year"]) if m["year"] else None, month)
    start, end = cal.month(year, month)
    part = (m["part"] or "").lower()
    first = date(year, month, 1)
    if part == "early":
        return cal.days(first, 10)
    if part == "mid":
        return cal.days(first + timedelta(days=10), 10)
    if part == "late":
        return cal.at(first + timedelta(days=20)), end
    return start, end


def _iso_month(m: re.Match[str], cal: Calendar) -> Range | None:
    month = int(m["m"])
    return cal.month(int(m["y"]), month) if 1 <= month <= 12 else None


def _year(m: re.Match[str], cal: Calendar) -> Range | None:
    return cal.year(int(m["y"]))


def _day_date(m: re.Match[str], cal: Calendar) -> Range | None:
    # dateparser covers "May 1", "1st of May", "May 1, 2026" and picks the past year when none is given.
    found = cal.parse(m["date"])
    return cal.days(found.date()) if found else None


def _week_of(m: re.Match[str], cal: Calendar) -> Range | None:
    found = cal.parse(m["date"])
    return cal.week_of(found.date()) if found else None


def _weekday(m: re.Match[str], cal: Calendar) -> Range | None:
    which = (m["which"] or "").lower()
    target = WEEKDAYS.index(m["day"].lower())
    if which == "this":
        start, _ = cal.week_of(cal.today)
        first = cal.local_date(start)
        return cal.days(first + timedelta(days=(target - first.weekday()) % 7))
    if which == "next":
        return cal.days(cal.today + timedelta(days=(target - cal.today.weekday() - 1) % 7 + 1))
    # dateparser resolves a bare weekday to the latest one strictly before today, which is what people mean.
    found = cal.parse(m["day"])
    return cal.days(found.date()) if found else None


def _day_of(word: str) -> int:
    word = " ".join(word.lower().split()).removeprefix("the ")
    digits = re.match(r"\d+", word)
    return int(digits[0]) if digits else ORDINALS[word]


def _past_day(cal: Calendar, year_text: str | None, month: int, day: int) -> date | None:
    """A day of a month; without a year, the latest one that is not in the future."""
    if year_text:
        year = int(year_text)
    else:
        year = cal.today.year - (1 if (month, day) > (cal.today.month, cal.today.day) else 0)
    if not 1 <= day <= _days_in_month(year, month):
        return None
    return date(year, month, day)


def _day_range(m: re.Match[str], cal: Calendar) -> Range | None:
    # "13 to 15 July", "1-8 september", "between the 3rd and the 5th of August"
    month = MONTHS[m["month"].lower()]
    first, last = _day_of(m["d1"]), _day_of(m["d2"])
    start = _past_day(cal, m["year"], month, first)
    if start is None or not first < last <= _days_in_month(start.year, month):
        return None
    return cal.at(start), cal.at(start.replace(day=last) + timedelta(days=1))


def _day_words(m: re.Match[str], cal: Calendar) -> Range | None:
    # "march first", "the first of March", "March the twenty-first"
    month = MONTHS[(m["month"] or m["month2"]).lower()]
    day = _past_day(cal, m["year"], month, _day_of(m["d1"] or m["d2"]))
    return cal.days(day) if day else None


def _weekdays_ago(m: re.Match[str], cal: Calendar) -> Range | None:
    # "2 thursdays ago": the Thursday before the last one (the last one is the latest strictly before today).
    count = _number(m["n"])
    if count <= 0:
        return None
    target = WEEKDAYS.index(m["day"].lower())
    back = (cal.today.weekday() - target - 1) % 7 + 1
    return cal.days(cal.today - timedelta(days=back + 7 * (count - 1)))


def _weekday_of_week(m: re.Match[str], cal: Calendar) -> Range | None:
    # "Friday of last week", "last week's Friday": one day, not the week.
    which = (m["which"] or m["which2"]).lower()
    offset = {"this": 0, "current": 0, "last": -1, "previous": -1, "next": 1}[which]
    first = cal.local_date(cal.week_of(cal.today)[0]) + timedelta(weeks=offset)
    target = WEEKDAYS.index((m["day"] or m["day2"]).lower())
    return cal.days(first + timedelta(days=(target - first.weekday()) % 7))


def _rule(name: str, pattern: str, handler: Handler) -> _Rule:
    # "-" before or after a word means a key or a compound ("PLAT-Q3", "Q3-planning"); "May 1-15" is allowed.
    return _Rule(name, re.compile(rf"(?<![\w-])(?:{pattern})(?!\w|-[^\W\d])", re.IGNORECASE), handler)


_DAY_DATE = (
    rf"(?:(?P<wd>{_WEEKDAY},?\s+))?(?P<date>{_MONTH}\.?\s+\d{{1,2}}{_ORD}(?:,?\s+{_YEAR})?|"
    rf"(?:the\s+)?\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?|{_YEAR}-\d\d-\d\d)(?![\d:.]\d)"
)

RULES: tuple[_Rule, ...] = (
    _rule("relative_day", r"(?:the\s+day\s+before\s+yesterday|yesterday|(?:earlier\s+)?today|tonight|tomorrow|"
          r"this\s+(?:morning|afternoon|evening))", _relative_day),
    _rule("rolling", rf"(?:(?:the\s+|this\s+)?(?:past|last|previous)\s+(?P<n>{_NUM})\s+(?P<unit>{_UNIT})|"
          rf"(?:the\s+|this\s+)(?:past|last)\s+(?P<unit1>hour|day|week|fortnight|month|quarter|year)|"
          rf"past\s+(?P<unit2>hour|day|week|fortnight|month|quarter|year))", _rolling),
    _rule("ago", rf"(?P<n>{_NUM})\s+(?P<unit>{_UNIT})\s+ago", _ago),
    _rule("calendar_unit", r"(?:(?P<sofar>earlier|so\s+far)\s+)?(?P<which>this|current|last|previous|next)\s+"
          r"(?P<unit>week|month|quarter|year)", _calendar_unit),
    _rule("to_date", r"(?:(?P<unit>week|month|quarter|year)[\s-]to[\s-]date|(?P<abbr>[wmqy]td))", _to_date),
    _rule("week_before_last", r"the\s+week\s+before\s+last", _week_before_last),
    _rule("weekend", r"(?:(?:over|during|on)\s+)?(?P<which>the|this|last|past)\s+weekend", _weekend),
    _rule("recent", r"(?:recently|lately|(?<!most\s)recent)", _recent),
    _rule("quarter", rf"(?:q(?P<q>[1-4])|(?P<qword>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter)"
          rf"(?:\s*(?:of\s+)?(?P<year>{_YEAR})|\s*'(?P<yy>\d\d))?|(?P<year2>{_YEAR})[\s-]?q(?P<q2>[1-4])",
          _quarter),
    _rule("month", rf"(?:(?P<part>early|mid|late)[\s-]+)?(?P<month>{_MONTH})\.?(?:,?\s+(?:of\s+)?"
          rf"(?P<year>{_YEAR}))?(?!\s*\d)", _month),
    _rule("iso_month", r"(?P<y>(?:19|20)\d\d)-(?P<m>\d\d)(?![-\d])", _iso_month),
    _rule("year", rf"(?:the\s+year\s+)?(?P<y>{_YEAR})", _year),
    _rule("day_date", _DAY_DATE, _day_date),
    _rule("week_of", rf"(?:the\s+)?week\s+of\s+{_DAY_DATE}", _week_of),
    _rule("weekday", rf"(?:(?P<which>last|this|past|next)\s+)?(?P<day>{_WEEKDAY})", _weekday),
    _rule("day_range", rf"(?:the\s+)?(?P<d1>{_DAYNUM}){_DAY_GAP}(?P<d2>{_DAYNUM})\s+(?:of\s+)?(?P<month>{_MONTH})\.?"
          rf"(?:,?\s+(?P<year>{_YEAR}))?", _day_range),
    _rule("day_words", rf"(?:(?:the\s+)?(?P<d1>{_ORDWORD})\s+(?:of\s+)?(?P<month>{_MONTH})|(?P<month2>{_MONTH})\.?\s+"
          rf"(?:the\s+)?(?P<d2>{_ORDWORD}))(?:,?\s+(?P<year>{_YEAR}))?", _day_words),
    _rule("weekdays_ago", rf"(?P<n>{_NUM})\s+(?P<day>{_WEEKDAY})s\s+ago", _weekdays_ago),
    _rule("weekday_of_week", rf"(?P<day>{_WEEKDAY})\s+(?:of\s+|in\s+)?(?:the\s+)?(?P<which>last|previous|this|current|"
          rf"next)\s+week|(?P<which2>last|previous|this|next)\s+week'?s\s+(?P<day2>{_WEEKDAY})", _weekday_of_week),
)  # fmt: skip


@dataclass
class _Atom:
    start: int
    end: int
    rule: str
    range: Range


def _acceptable(rule: str, m: re.Match[str], text: str, names: frozenset[str]) -> bool:
    """Reject month and year words that are not dates here ("May we ship", "for 2000 users")."""
    before = text[: m.start()]
    if rule == "year" and not m[0].lower().startswith("the year"):
        return bool(_YEAR_CONTEXT.search(before))
    if rule not in ("month", "day_date", "week_of", "day_words"):
        return True
    month = re.search(rf"\b{_MONTH}\b", m[0], re.IGNORECASE)
    if month is None:  # an ISO date
        return True
    if month[0] == "may" and not _STRONG_CONTEXT.search(before):
        return False
    if rule == "day_words" and month[0].islower() and not m[0].lower().startswith("the"):
        # "we march first to the hall" is no date; "on march first" is.
        return bool(_DAY_CONTEXT.search(before))
    if rule == "month" and not m["year"] and not m["part"]:
        # A bare month needs a preposition; a lowercase one ("to march") or a person's name ("Alice and
        # June") a strong one.
        weak = month[0][0].isupper() and month[0].lower() not in names
        context = _CONTEXT if weak else _STRONG_CONTEXT
        return bool(context.search(before))
    return True


def _overlaps(start: int, end: int, spans: Sequence[Span]) -> bool:
    return any(start < s.end and s.start < end for s in spans)


def _atoms(text: str, cal: Calendar, taken: Sequence[Span], names: frozenset[str]) -> list[_Atom]:
    candidates: list[tuple[int, int, _Rule, re.Match[str]]] = []
    for rule in RULES:
        for m in rule.pattern.finditer(text):
            if m.end() > m.start() and _acceptable(rule.name, m, text, names) and not _overlaps(*m.span(), taken):
                candidates.append((m.start(), m.end(), rule, m))
    chosen: list[_Atom] = []
    for start, end, rule, m in sorted(candidates, key=lambda c: (c[0] - c[1], c[0])):
        if any(start < a.end and a.start < end for a in chosen):
            continue
        resolved = rule.handler(m, cal)
        if resolved is not None and resolved[0] < resolved[1]:
            chosen.append(_Atom(start, end, rule.name, resolved))
    return sorted(chosen, key=lambda a: a.start)


def _window(text: str, start: int, end: int, rng: Range, note: str = "") -> TimeWindow:
    words = text[start:end]
    return TimeWindow(rng[0], rng[1], Span(start, end, words), " ".join(words.split()), note)


def _join(text: str, atoms: list[_Atom], cal: Calendar) -> list[TimeWindow]:
    """Turn atoms into windows, joining "between A and B", "from A to B", "since A", "May 1-15"."""
    windows: list[TimeWindow] = []
    i = 0
    while i < len(atoms):
        atom = atoms[i]
        prefix = _RANGE_PREFIX.search(text[: atom.start])
        word = " ".join(prefix[1].lower().split()) if prefix else ""
        start = prefix.start() if prefix else atom.start
        nxt = atoms[i + 1] if i + 1 < len(atoms) else None
        gap = text[atom.end : nxt.start] if nxt else ""
        joined = _AND_GAP.fullmatch(gap) if word == "between" else _RANGE_GAP.fullmatch(gap)
        if nxt and joined and word in ("between", "from", ""):
            windows.append(_window(text, start, nxt.end, _span_range(atom.range, nxt.range, cal)))
            i += 2
            continue
        tail = _DAY_TAIL.match(text, atom.end) if atom.rule == "day_date" else None
        if tail and (word == "between") == tail[0].strip().lower().startswith("and"):
            first = cal.local_date(atom.range[0])
            if first.day < int(tail[1]) <= _days_in_month(first.year, first.month):
                last = first.replace(day=int(tail[1]))
                windows.append(_window(text, start, tail.end(), (atom.range[0], cal.days(last)[1])))
                i += 1
                continue
        rng: Range | None = atom.range
        note = ""
        if word == "since":
            rng = (atom.range[0], cal.now) if atom.range[0] < cal.now else None
        elif word == "after":
            rng = (atom.range[1], cal.now) if atom.range[1] < cal.now else None
        elif word in ("before", "prior to"):
            rng = (EPOCH, atom.range[0])
        elif word in ("until", "till", "up to"):
            rng = (EPOCH, atom.range[1])
        else:
            note = _unread_range(text, prefix.start() if prefix else atom.start, atom.start, atom.end, word)
            if not (atom.rule == "day_range" and word in ("from", "between")):
                start = atom.start
        if rng is not None:
            windows.append(_window(text, start, atom.end, rng, note))
        i += 1
    return windows


def _unread_range(text: str, prefix_start: int, start: int, end: int, word: str) -> str:
    """A note when range words next to a window were not read, so the window may be narrower than asked."""
    before = _UNREAD_BEFORE.search(text[:start])
    after = _UNREAD_AFTER.match(text[end:]) if word in ("from", "between") else None
    if not before and not after:
        return ""
    lo = min(before.start() if before else start, prefix_start)
    hi = end + (after.end() if after else 0)
    words = " ".join(text[lo:hi].split())
    label = " ".join(text[start:end].split())
    return f"only '{label}' of '{words}' was read as a time: the range asked for may be wider"


def _span_range(first: Range, last: Range, cal: Calendar) -> Range:
    start, end = first[0], last[1]
    if end <= start:
        # "from November to February": the start, named without a year, is in the year before.
        start = cal.shift_months(start, -12)
    return (start, end) if start < end else (last[0], first[1])


# dateparser's search also reads "May we" and "second" as dates: keep a find only with one of these in it.
# Dotted numbers are versions ("1.10.30") unless one part is a four-digit year ("01.10.2026").
_FALLBACK_ANCHOR = re.compile(
    rf"\b(?:ago|yesterday|today|tomorrow|fortnight|{_WEEKDAY})\b|"
    rf"(?<![\w.])(?:\d{{1,4}}[/-]\d{{1,2}}[/-]\d{{2,4}}|\d{{1,2}}\.\d{{1,2}}\.{_YEAR}|{_YEAR}\.\d{{1,2}}\.\d{{1,2}})"
    rf"(?![\w]|\.\d)|\b{_MONTH}\b.*\d|\d.*\b{_MONTH}\b",
    re.IGNORECASE,
)
_VERSION_BEFORE = re.compile(r"(?:\bv|\b(?:version|release|build|tag|rev)\s*:?\s*)$", re.IGNORECASE)


def _fallback(text: str, cal: Calendar, taken: Sequence[Span]) -> list[TimeWindow]:
    """dateparser's own search over what the grammar left, kept only when it holds a real date word."""
    from dateparser.search import search_dates

    masked = list(text)
    for span in taken:
        masked[span.start : span.end] = " " * (span.end - span.start)
    rest = "".join(masked)
    if not _FALLBACK_ANCHOR.search(rest):
        return []
    found = search_dates(rest, languages=["en"], settings=cal.dateparser_settings()) or []
    windows: list[TimeWindow] = []
    cursor = 0
    for words, _ in found:
        at = rest.find(words, cursor)
        if at < 0:
            continue
        cursor = at + len(words)
        start, end = _trim(rest, at, at + len(words), cal)
        if end <= start or not _FALLBACK_ANCHOR.search(rest[start:end]) or _VERSION_BEFORE.search(rest[:start]):
            continue
        parsed = cal.parse(rest[start:end])
        if parsed is not None:
            note = _unread_range(text, start, start, end, "")
            windows.append(_window(text, start, end, cal.days(parsed.date()), note))
    return windows


def _trim(text: str, start: int, end: int, cal: Calendar) -> tuple[int, int]:
    """Drop words at either end that dateparser's search swallowed but that do not change the date."""
    whole = cal.parse(text[start:end])
    if whole is None:
        return start, start
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text[start:end])]
    lo, hi = 0, len(words)
    while hi - lo > 1 and cal.parse(text[start + words[lo][0] : start + words[hi - 2][1]]) == whole:
        hi -= 1
    while hi - lo > 1 and cal.parse(text[start + words[lo + 1][0] : start + words[hi - 1][1]]) == whole:
        lo += 1
    return start + words[lo][0], start + words[hi - 1][1]


def find_windows(
    text: str,
    cal: Calendar,
    taken: Sequence[Span] = (),
    *,
    names: frozenset[str] = frozenset(),
    fallback: bool = True,
) -> list[TimeWindow]:
    """Every time expression in `text`, skipping characters in `taken` (ticket keys, PR numbers).

    `names` are lowercase first names of known people; a bare month equal to one needs a strong preposition.
    """
    windows = _join(text, _atoms(text, cal, taken, names), cal)
    if fallback:
        covered = [*taken, *(w.span for w in windows if w.span)]
        windows.extend(_fallback(text, cal, covered))
    return sorted(windows, key=lambda w: w.span.start if w.span else 0)


def merge(windows: Sequence[TimeWindow]) -> TimeWindow | None:
    """One window covering all of them; the span is kept only when there was a single distinct range."""
    distinct = list({(w.start, w.end): w for w in reversed(windows)}.values())[::-1]
    if not distinct:
        return None
    if len(distinct) == 1:
        return distinct[0]
    labels = list(dict.fromkeys(w.label for w in distinct))
    notes = "; ".join(dict.fromkeys(w.note for w in distinct if w.note))
    return TimeWindow(min(w.start for w in distinct), max(w.end for w in distinct), None, " + ".join(labels), notes)
