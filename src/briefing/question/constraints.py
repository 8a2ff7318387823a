"""Deterministic constraint extraction from a question: time, sources, people, channels, projects, keys.

No model is involved. Each constraint keeps the span of the question it came from, so the trace can show why
it was applied. Names resolve against a `Directory` of values known from the index, so a constraint always
names a real person, channel or project. Constraints are soft boosts unless the user asks for a hard filter
("only from JIRA"); `hard` lists the kinds that are.
"""

from __future__ import annotations

import re
from datetime import datetime

from briefing.question import finders
from briefing.question.finders import Found, source_names, source_words, version_match
from briefing.question.timeexpr import Calendar, find_windows, merge
from briefing.question.timewindow import Span, TimeWindow
from briefing.question.values import Constraints, Directory
from briefing.question.words import (
    ABOUT_PERSON,
    COMMON_WORD_NAMES,
    HARD_AFTER,
    HARD_BEFORE,
    INTENT_PATTERNS,
    INTENTS,
    OPENING_WORDS,
    PERIOD_VERB,
    SCOPE_WORDS,
)

__all__ = [
    "COMMON_WORD_NAMES",
    "INTENTS",
    "MAX_SCAN",
    "Constraints",
    "Directory",
    "Span",
    "TimeWindow",
    "about_person",
    "extract",
    "source_names",
    "source_words",
    "version_match",
]

# Longer questions are cut here before scanning: constraints live in the first sentences, and the regexes and
# dateparser's search should not spend seconds on a pasted log.
MAX_SCAN = 4000


def about_person(question: str, constraints: Constraints) -> bool:
    """The question names a person and asks who they are (role, job, start), not what they did or said."""
    if not constraints.people:
        return False
    text = question
    for kind, span in sorted(constraints.spans, key=lambda s: -s[1].start):
        if kind == "person":
            text = text[: span.start] + " " + text[span.end :]
    return bool(ABOUT_PERSON.search(text))


# Question text: a question whose "still" means "nevertheless", not "as of now": it asks why or how something is
# done ("Why does it still print LazySeq@ even after doall?"; "How many are still open?" asks the state) or what
# holds under a condition ("If an update moves the row, does the table still hold one copy?").
_STILL_NOT_NOW = re.compile(r"^\W*(?:why|how\s+(?:come|do|does|did|can|could|should|would)|if|even)\b", re.I)


# Question text: asks for news of something and nothing else ("Any updates on the migration?", "Is there any news
# about PLAT-7?"): with no period it asks how that stands now, not for a briefing.
_NEWS_OF = re.compile(r"^\W*(?:(?:is|are)\s+there\s+)?any\s+(?:news|updates?)\s+(?:on|about|for|with)\b", re.I)


def _intent(question: str) -> str:
    for intent, pattern in INTENT_PATTERNS:
        found = [m[0].lower() for m in pattern.finditer(question)]
        if intent == "latest" and found and set(found) == {"still"} and _STILL_NOT_NOW.search(question):
            continue
        if found:
            return intent
    return "fact"


# Question text: "get up to" / "been up to", what someone did ("What did Dana get up to last week?"), read as one
# opening phrase: "get" alone is no opening word ("What did Dana get done?" asks for finished work).
_UP_TO = re.compile(r"\b(?:get|got|getting|been)\s+up\s+to\b", re.I)


def _period_only(found: Found, out: Constraints) -> bool:
    """A `PERIOD_VERB` question with a window whose every word outside its constraints (the person, the channel,
    the window) is a word of the opening or a scope word: nothing else is asked about."""
    if out.time is None or not PERIOD_VERB.match(found.text):
        return False
    rest = list(found.text)
    for _, span in found.spans:
        rest[span.start : span.end] = " " * (span.end - span.start)
    said = _UP_TO.sub(" ", "".join(rest))
    words = re.findall(r"[\w'-]+", said.lower())
    return all(w in SCOPE_WORDS or w in OPENING_WORDS for w in words)


def _hard(found: Found) -> set[str]:
    hard = set()
    for kind, span in found.spans:
        before = found.text[: span.start]
        after = found.text[span.end :]
        if HARD_BEFORE.search(before) or HARD_AFTER.match(after):
            hard.add(kind)
    return hard


def extract(
    question: str,
    *,
    now: datetime,
    timezone: str = "UTC",
    week_start: str = "monday",
    directory: Directory | None = None,
) -> Constraints:
    """Every constraint in `question`, with time resolved against `now` in `timezone` and `week_start`."""
    calendar = Calendar(now, timezone, week_start)
    text = question[:MAX_SCAN]
    found = Found(text)
    out = Constraints()
    # Order matters: keys and numbers first, so neither dates nor names read "PLAT-123" or "#45".
    finders.tickets(found, directory, out)
    finders.prs(found, out, directory)
    finders.versions(found, out)
    finders.channels(found, directory, out)
    names = frozenset(p.name.split()[0].lower() for p in directory.people if p.name.split()) if directory else None
    windows = find_windows(text, calendar, found.taken(), names=names or frozenset())
    for window in windows:
        if window.span:
            found.spans.append(("time", window.span))
    out.time = merge(windows)
    finders.sources(found, out)
    finders.people(found, directory, out)
    finders.projects(found, directory, out)
    out.hard = _hard(found)
    out.intent = _intent(text)
    # "What was discussed in #general last week?" asks for the window's briefing, not one conversation's summary.
    if out.intent in ("fact", "summary") and _period_only(found, out):
        out.intent = "what_happened"
    if out.intent == "what_happened" and out.time is None and _NEWS_OF.match(text):
        out.intent = "latest"
    out.spans = sorted(found.spans, key=lambda ks: ks[1].start)
    return out
