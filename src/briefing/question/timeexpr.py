"""Time expressions in a question, resolved to UTC windows in the user's time zone and week start.

The grammar (`briefing.question.timerules`) reads single expressions; here they are joined into ranges
("between A and B", "since A", "May 1-15"), and dateparser's own search serves as a guarded fallback for
phrasings the grammar does not know ("a fortnight ago"). Every window is [start, end) in aware UTC.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from briefing.question.timerules import Atom, atoms
from briefing.question.timewindow import EPOCH, Range, days_in_month
from briefing.question.timewindow import Calendar as Calendar
from briefing.question.timewindow import Span as Span
from briefing.question.timewindow import TimeWindow as TimeWindow
from briefing.question.words import MONTH, ORD, WEEKDAY, YEAR

# Question text around a time expression: a range word just before it ("since the"; "up to", not in "get up to" or
# "been up to", which say what someone did: "What did Dana get up to last week?"), the gap between the two ends of a
# range ("-", "to", "and"), and a bare day number that ends a range ("1 to the 15th").
_RANGE_PREFIX = re.compile(
    r"\b(since|after|before|until|till|(?<!get\s)(?<!got\s)(?<!been\s)(?<!getting\s)up\s+to|prior\s+to|from|"
    r"between)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_RANGE_GAP = re.compile(r"\s*(?:-|–|—|to|until|till|through|thru)\s*", re.IGNORECASE)
_AND_GAP = re.compile(r"\s+and\s+", re.IGNORECASE)
_DAY_TAIL = re.compile(
    rf"\s*(?:-|–|—|to|until|till|through|thru|and)\s*(?:the\s+)?(\d{{1,2}}){ORD}\b(?!\s*(?:{MONTH}\b|[:.]\d))",
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


def _window(text: str, start: int, end: int, rng: Range, note: str = "") -> TimeWindow:
    words = text[start:end]
    return TimeWindow(rng[0], rng[1], Span(start, end, words), " ".join(words.split()), note)


def _join(text: str, atoms: list[Atom], cal: Calendar) -> list[TimeWindow]:
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
            if first.day < int(tail[1]) <= days_in_month(first.year, first.month):
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
    rf"\b(?:ago|yesterday|today|tomorrow|fortnight|{WEEKDAY})\b|"
    rf"(?<![\w.])(?:\d{{1,4}}[/-]\d{{1,2}}[/-]\d{{2,4}}|\d{{1,2}}\.\d{{1,2}}\.{YEAR}|{YEAR}\.\d{{1,2}}\.\d{{1,2}})"
    rf"(?![\w]|\.\d)|\b{MONTH}\b.*\d|\d.*\b{MONTH}\b",
    re.IGNORECASE,
)
_VERSION_BEFORE = re.compile(r"(?:\bv|\b(?:version|release|build|tag|rev)\s*:?\s*)$", re.IGNORECASE)


def _fallback(text: str, cal: Calendar, taken: Sequence[Span]) -> list[TimeWindow]:
    """dateparser's own search over what the grammar left, kept only when it holds a real date word."""
    masked = list(text)
    for span in taken:
        masked[span.start : span.end] = " " * (span.end - span.start)
    rest = "".join(masked)
    if not _FALLBACK_ANCHOR.search(rest):
        return []
    from dateparser.search import search_dates  # slow to import: only for a question with a date word left

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
    windows = _join(text, atoms(text, cal, taken, names), cal)
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
