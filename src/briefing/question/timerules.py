"""The time grammar: one rule per kind of time expression, each resolving its words to a range on a `Calendar`.

Calendar words (weeks, months, quarters, years, weekends, rolling "past N days") are resolved here; single
dates and weekdays ("May 1", "1st of May", "Friday", "3 days ago") go through dateparser. A bare month, quarter
or date that would lie in the future of `now` means the previous year.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from briefing.question.timewindow import Calendar, Range, Span, days_in_month, month_start
from briefing.question.words import MONTH, MONTHS, NUMBERS, ORD, ORDINALS, WEEKDAY, WEEKDAYS, YEAR

RECENT_DAYS = 14

_NUM = r"(?:\d{1,3}|a\s+few|a\s+couple(?:\s+of)?|couple(?:\s+of)?|" + "|".join(NUMBERS) + r")"
_UNIT = r"(?:hour|day|week|fortnight|month|quarter|year)s?"
_ORDWORD = r"(?:" + "|".join(w.replace(" ", r"\s+") for w in sorted(ORDINALS, key=len, reverse=True)) + r")"
# A day of the month as digits ("13", "13th") or as an ordinal word ("the thirteenth").
_DAYNUM = rf"(?:\d{{1,2}}{ORD}|{_ORDWORD})"
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
        first = month_start(cal.today.year, cal.today.month, offset)
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
    edge = {"beginning": "early", "start": "early", "middle": "mid", "end": "late"}
    part = (m["part"] or edge.get((m["edge"] or "").lower(), "")).lower()
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
    if not 1 <= day <= days_in_month(year, month):
        return None
    return date(year, month, day)


def _day_range(m: re.Match[str], cal: Calendar) -> Range | None:
    # "13 to 15 July", "1-8 september", "between the 3rd and the 5th of August"
    month = MONTHS[m["month"].lower()]
    first, last = _day_of(m["d1"]), _day_of(m["d2"])
    start = _past_day(cal, m["year"], month, first)
    if start is None or not first < last <= days_in_month(start.year, month):
        return None
    return cal.at(start), cal.at(start.replace(day=last) + timedelta(days=1))


def _day_words(m: re.Match[str], cal: Calendar) -> Range | None:
    # "march first", "the first of March", "March the twenty-first"
    month = MONTHS[(m["month"] or m["month2"]).lower()]
    day = _past_day(cal, m["year"], month, _day_of(m["d1"] or m["d2"]))
    return cal.days(day) if day else None


def _day_of_month(m: re.Match[str], cal: Calendar) -> Range | None:
    # "the 20th of last month", "the first of next month"
    offset = {"this": 0, "current": 0, "last": -1, "previous": -1, "next": 1}[m["which"].lower()]
    first = month_start(cal.today.year, cal.today.month, offset)
    day = _day_of(m["d"])
    return cal.days(first.replace(day=day)) if 1 <= day <= days_in_month(first.year, first.month) else None


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
    rf"(?:(?P<wd>{WEEKDAY},?\s+))?(?P<date>{MONTH}\.?\s+\d{{1,2}}{ORD}(?:,?\s+{YEAR})?|"
    rf"(?:the\s+)?\d{{1,2}}{ORD}\s+(?:of\s+)?{MONTH}(?:,?\s+{YEAR})?|{YEAR}-\d\d-\d\d)(?![\d:.]\d)"
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
          rf"(?:\s*(?:of\s+)?(?P<year>{YEAR})|\s*'(?P<yy>\d\d))?|(?P<year2>{YEAR})[\s-]?q(?P<q2>[1-4])",
          _quarter),
    _rule("month", rf"(?:(?P<part>early|mid|late)[\s-]+|(?:the\s+)?(?P<edge>beginning|start|middle|end)\s+of\s+)?"
          rf"(?P<month>{MONTH})\.?(?:,?\s+(?:of\s+)?"
          rf"(?P<year>{YEAR}))?(?!\s*\d)", _month),
    _rule("iso_month", r"(?P<y>(?:19|20)\d\d)-(?P<m>\d\d)(?![-\d])", _iso_month),
    _rule("year", rf"(?:the\s+year\s+)?(?P<y>{YEAR})", _year),
    _rule("day_date", _DAY_DATE, _day_date),
    _rule("week_of", rf"(?:the\s+)?week\s+of\s+{_DAY_DATE}", _week_of),
    _rule("weekday", rf"(?:(?P<which>last|this|past|next)\s+)?(?P<day>{WEEKDAY})", _weekday),
    _rule("day_range", rf"(?:the\s+)?(?P<d1>{_DAYNUM}){_DAY_GAP}(?P<d2>{_DAYNUM})\s+(?:of\s+)?(?P<month>{MONTH})\.?"
          rf"(?:,?\s+(?P<year>{YEAR}))?", _day_range),
    _rule("day_words", rf"(?:(?:the\s+)?(?P<d1>{_ORDWORD})\s+(?:of\s+)?(?P<month>{MONTH})|(?P<month2>{MONTH})\.?\s+"
          rf"(?:the\s+)?(?P<d2>{_ORDWORD}))(?:,?\s+(?P<year>{YEAR}))?", _day_words),
    _rule("day_of_month", rf"(?:the\s+)?(?P<d>{_DAYNUM})\s+(?:day\s+)?of\s+(?:the\s+)?(?P<which>this|current|last|"
          r"previous|next)\s+month", _day_of_month),
    _rule("weekdays_ago", rf"(?P<n>{_NUM})\s+(?P<day>{WEEKDAY})s\s+ago", _weekdays_ago),
    _rule("weekday_of_week", rf"(?P<day>{WEEKDAY})\s+(?:of\s+|in\s+)?(?:the\s+)?(?P<which>last|previous|this|current|"
          rf"next)\s+week|(?P<which2>last|previous|this|next)\s+week'?s\s+(?P<day2>{WEEKDAY})", _weekday_of_week),
)  # fmt: skip


@dataclass
class Atom:
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
    month = re.search(rf"\b{MONTH}\b", m[0], re.IGNORECASE)
    if month is None:  # an ISO date
        return True
    if month[0] == "may" and not _STRONG_CONTEXT.search(before):
        return False
    if rule == "day_words" and month[0].islower() and not m[0].lower().startswith("the"):
        # "we march first to the hall" is no date; "on march first" is.
        return bool(_DAY_CONTEXT.search(before))
    if rule == "month" and not m["year"] and not m["part"] and not m["edge"]:
        # A bare month needs a preposition; a lowercase one ("to march") or a person's name ("Alice and
        # June") a strong one.
        weak = month[0][0].isupper() and month[0].lower() not in names
        context = _CONTEXT if weak else _STRONG_CONTEXT
        return bool(context.search(before))
    return True


def _overlaps(start: int, end: int, spans: Sequence[Span]) -> bool:
    return any(start < s.end and s.start < end for s in spans)


def atoms(text: str, cal: Calendar, taken: Sequence[Span], names: frozenset[str]) -> list[Atom]:
    candidates: list[tuple[int, int, _Rule, re.Match[str]]] = []
    for rule in RULES:
        for m in rule.pattern.finditer(text):
            if m.end() > m.start() and _acceptable(rule.name, m, text, names) and not _overlaps(*m.span(), taken):
                candidates.append((m.start(), m.end(), rule, m))
    chosen: list[Atom] = []
    for start, end, rule, m in sorted(candidates, key=lambda c: (c[0] - c[1], c[0])):
        if any(start < a.end and a.start < end for a in chosen):
            continue
        resolved = rule.handler(m, cal)
        if resolved is not None and resolved[0] < resolved[1]:
            chosen.append(Atom(start, end, rule.name, resolved))
    return sorted(chosen, key=lambda a: a.start)
