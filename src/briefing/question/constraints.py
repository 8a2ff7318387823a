"""Deterministic constraint extraction from a question: time, sources, people, channels, projects, keys.

No model is involved. Each constraint keeps the span of the question it came from, so the trace can show why
it was applied. Names resolve against a `Directory` of values known from the index, so a constraint always
names a real person, channel or project. Constraints are soft boosts unless the user asks for a hard filter
("only from JIRA"); `hard` lists the kinds that are.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from briefing.model import Person
from briefing.question.timeexpr import Calendar, Span, TimeWindow, find_windows, merge
from briefing.textrules import ISSUE_REF, ISSUE_URL, NAMED_ISSUE_REF, PROJECT_KEY, ticket_key_spans, ticket_prefixes

__all__ = ["Constraints", "Directory", "Span", "TimeWindow", "extract"]

INTENTS = ("what_happened", "summary", "latest", "who", "when", "fact")
# Longer questions are cut here before scanning: constraints live in the first sentences, and the regexes and
# dateparser's search should not spend seconds on a pasted log.
MAX_SCAN = 4000


_WORDS_CACHE: dict[int, list[tuple[re.Pattern[str], tuple[str, ...], bool]]] = {}


def source_words() -> list[tuple[re.Pattern[str], tuple[str, ...], bool]]:
    """The question words of every registered source (its descriptor's `words`), each with the sources it means.

    One phrase can mean several sources ("docs": a wiki and a docs folder); phrases are tried in registry order.
    The flag says the phrase is an everyday noun too (a descriptor's `noun_words`).
    """
    from briefing import registry

    known = registry.descriptors()
    cached = _WORDS_CACHE.get(id(known))
    if cached is not None:
        return cached
    families: dict[str, list[str]] = {}
    nouns = {phrase for descriptor in known for phrase in descriptor.noun_words}
    for descriptor in known:
        for phrase in descriptor.words:
            named = families.setdefault(phrase, [])
            if descriptor.family not in named:
                named.append(descriptor.family)
    compiled = [
        (re.compile(rf"(?<![\w#@/.-])(?:{phrase})(?![\w-])", re.IGNORECASE), tuple(sorted(named)), phrase in nouns)
        for phrase, named in families.items()
    ]
    _WORDS_CACHE.clear()
    _WORDS_CACHE[id(known)] = compiled
    return compiled


def source_names() -> tuple[str, ...]:
    """The source names a question or a router can restrict to (what chunks carry as `source_type`)."""
    from briefing import registry

    return registry.families()


# "only from JIRA", "just in #platform", "solely Alice's": the word after may be one modifier away.
_HARD_BEFORE = re.compile(
    r"\b(?:only|just|exclusively|solely)\s+(?:(?:search(?:ing)?\s+)?(?:from|in|on|within|through|by)\s+)?"
    r"(?:the\s+|our\s+)?(?:[\w-]+\s+)?$",
    re.IGNORECASE,
)
_HARD_AFTER = re.compile(r"^(?:'s)?(?:\s+[\w-]+)?\s+only\b", re.IGNORECASE)

_HASH_CHANNEL = re.compile(r"(?<![\w&/#])#([a-z0-9][a-z0-9._-]*[a-z0-9_]|[a-z])(?![\w-])", re.IGNORECASE)
_NAMED_CHANNEL = re.compile(
    r"\b(?:the\s+)?#?(?P<a>[a-z0-9][\w.-]*)\s+channel\b|\bchannel\s+#?(?P<b>[a-z0-9][\w.-]*[\w])",
    re.IGNORECASE,
)

_INTENTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("summary", re.compile(r"\b(?:summari[sz]e|summary|recap|digest|overview|tl;?dr|brief\s+me)\b", re.I)),
    (
        "what_happened",
        re.compile(
            r"\bwhat(?:'s|\s+is|\s+has)?\s+(?:happened|happening|changed|new|going\s+on)\b|\bwhat\s+went\b|"
            r"\bupdates?\s+(?:on|about|for)\b|\bstatus\s+(?:of|on)\b|\bprogress\s+(?:on|of)\b|\bany\s+news\b|"
            r"\bwhat\s+did\s+(?:we|the\s+team)\s+(?:do|ship|work\s+on)\b",
            re.I,
        ),
    ),
    ("who", re.compile(r"^\W*(?:who|whom|whose)\b|\bwho(?:'s|\s+(?:is|was|did|owns|made|wrote|said|"
                       r"approved|merged|reviewed|decided|knows|worked|will))\b", re.I)),
    ("when", re.compile(r"^\W*when\b|\bwhen\s+(?:did|was|is|were|will|does|do)\b|\bwhat\s+(?:date|time|day)\b"
                        r"|\bhow\s+long\s+ago\b", re.I)),
    ("latest", re.compile(r"\b(?:latest|current(?:ly)?|now|still|most\s+recent|as\s+of\s+today)\b", re.I)),
)  # fmt: skip

# First names that are also ordinary words match only when capitalised, and not as a question's first word.
COMMON_WORD_NAMES = frozenset(
    "will may mark bill grace rose june april august hope joy faith sky summer art chase drew max pat sue ray "
    "rob jack frank amber ruby dawn iris guy page lane bob rich win tom penny dean major hunter".split()
)


@dataclass
class Directory:
    """Metadata values known from the index, so that names in a question resolve to real values."""

    people: list[Person] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)
    ticket_keys: set[str] = field(default_factory=set)


@dataclass
class Constraints:
    """What a question asks for, beyond its topic; every field is a soft boost unless its kind is in `hard`."""

    time: TimeWindow | None = None
    sources: list[str] = field(default_factory=list)
    people: list[str] = field(default_factory=list)
    # The people directory's ids of `people` (briefing.people), matched against chunks' author and mention ids.
    person_ids: list[str] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)
    tickets: list[str] = field(default_factory=list)
    prs: list[str] = field(default_factory=list)
    # Release versions named ("v0.8.0", "1.10.2"), without a leading "v": each matches only itself (`version_match`).
    versions: list[str] = field(default_factory=list)
    hard: set[str] = field(default_factory=set)
    intent: str = "fact"
    # (kind, span): kind is one of time, source, person, channel, project, ticket, pr, version.
    spans: list[tuple[str, Span]] = field(default_factory=list)

    def is_empty(self) -> bool:
        """True when nothing narrows the search (the intent alone does not)."""
        values = (self.sources, self.people, self.channels, self.projects, self.tickets, self.prs)
        return self.time is None and not any(values)

    def to_json(self) -> dict[str, Any]:
        return {
            "time": self.time.to_json() if self.time else None,
            "sources": list(self.sources),
            "people": list(self.people),
            "person_ids": list(self.person_ids),
            "channels": list(self.channels),
            "projects": list(self.projects),
            "tickets": list(self.tickets),
            "prs": list(self.prs),
            "versions": list(self.versions),
            "hard": sorted(self.hard),
            "intent": self.intent,
            "spans": [span.to_json(kind) for kind, span in self.spans],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Constraints:
        """The inverse of `to_json`, for graph state and traces read back from JSON."""
        time = data.get("time")
        window = None
        if time:
            span = time.get("span")
            window = TimeWindow(
                datetime.fromisoformat(time["start"]),
                datetime.fromisoformat(time["end"]),
                Span(span["start"], span["end"], span["text"]) if span else None,
                time.get("label", ""),
                time.get("note", ""),
            )
        return cls(
            time=window,
            sources=list(data.get("sources", [])),
            people=list(data.get("people", [])),
            person_ids=list(data.get("person_ids", [])),
            channels=list(data.get("channels", [])),
            projects=list(data.get("projects", [])),
            tickets=list(data.get("tickets", [])),
            prs=list(data.get("prs", [])),
            versions=list(data.get("versions", [])),
            hard=set(data.get("hard", [])),
            intent=data.get("intent", "fact"),
            spans=[(s["kind"], Span(s["start"], s["end"], s["text"])) for s in data.get("spans", [])],
        )


class _Found:
    """Spans claimed so far, so one piece of text feeds one constraint ("PLAT" in PLAT-123 is no project)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[tuple[str, Span]] = []

    def free(self, start: int, end: int) -> bool:
        return all(end <= s.start or s.end <= start for _, s in self.spans)

    def claim(self, kind: str, start: int, end: int) -> Span:
        span = Span(start, end, self.text[start:end])
        self.spans.append((kind, span))
        return span

    def taken(self) -> list[Span]:
        return [s for _, s in self.spans]


def _add(values: list[str], *new: str) -> None:
    for value in new:
        if value not in values:
            values.append(value)


def _normal(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _tickets(found: _Found, directory: Directory | None, out: Constraints) -> None:
    known = ticket_prefixes(directory.ticket_keys if directory else ())
    if directory and known:
        known |= {p.upper() for p in directory.projects if PROJECT_KEY.fullmatch(p)}
    # The same rule as at index time; "PR-45" is stoplisted there and read as a pull request by _prs.
    for key, start, end in ticket_key_spans(found.text, known):
        found.claim("ticket", start, end)
        _add(out.tickets, key)


def _prs(found: _Found, out: Constraints, directory: Directory | None = None) -> None:
    # The forms the chunkers index. "PR #45" as a whole before its "#45" (the sort is stable: at one start the
    # written-out form wins), and a pull request's web address as one ref.
    patterns = (ISSUE_URL, NAMED_ISSUE_REF, ISSUE_REF)
    refs = sorted((m for p in patterns for m in p.finditer(found.text)), key=lambda m: m.start())
    for m in refs:
        if not found.free(m.start(), m.end()):
            continue
        found.claim("pr", m.start(), m.end())
        number = str(int(m["number"]))
        _add(out.prs, number)
        # "PR 45" is item 45 of every indexed repository that has one (the index's own refs, `<src>:<repo>#45`).
        repo = m.groupdict().get("repo")
        tail = f":{repo}#{number}" if repo else f"#{number}"
        known = directory.ticket_keys if directory else set()
        _add(out.tickets, *sorted(k for k in known if k.endswith(tail) and "/" in k.partition("#")[0]))


# A release version: "v0.8.0", "0.8.0", "1.10.2", "v0.9", "v2.0.0-rc1". Two parts without a "v" ("4.6x", "0.4") read
# as a number, not a version.
_VERSION = re.compile(
    r"(?<![\w.@/#-])(?P<v>v)?(?P<number>\d+\.\d+(?P<more>(?:\.\d+){1,2})?(?:-(?:rc|alpha|beta|pre|dev)\.?\d*)?)"
    r"(?![\w-]|\.\d)",
    re.IGNORECASE,
)


def _versions(found: _Found, out: Constraints) -> None:
    for m in _VERSION.finditer(found.text):
        if not (m["v"] or m["more"]) or not found.free(m.start(), m.end()):
            continue
        found.claim("version", m.start(), m.end())
        _add(out.versions, m["number"].lower())


@functools.lru_cache(maxsize=256)
def version_match(version: str) -> re.Pattern[str]:
    """Where a text names exactly `version` (with or without its "v"): "0.8.0" is not "v0.8.1" or "v0.8.10".

    A two-part version also matches its ".0" release ("v0.9" is "v0.9.0"), not its later patches.
    """
    number = re.escape(version.lower().lstrip("v"))
    zero = r"(?:\.0)?" if version.count(".") == 1 else ""
    return re.compile(rf"(?<![\w.])v?{number}{zero}(?![\w-]|\.\d)", re.IGNORECASE)


def _channels(found: _Found, directory: Directory | None, out: Constraints) -> None:
    names = {_normal(c): c for c in (directory.channels if directory else [])}

    def resolve(raw: str, explicit: bool) -> str | None:
        raw = raw.strip(".-").lower()
        if _normal(raw) in names:
            return names[_normal(raw)]
        # An explicit "#name" is kept even when unknown; a bare word needs a known channel or a channel-ish
        # shape, or "the wrong channel" would become a filter.
        return raw if explicit or (not names and re.search(r"[-_]", raw)) else None

    for m in _HASH_CHANNEL.finditer(found.text):
        if found.free(m.start(), m.end()) and (name := resolve(m[1], explicit=True)):
            found.claim("channel", m.start(), m.end())
            _add(out.channels, name)
    for m in _NAMED_CHANNEL.finditer(found.text):
        group = "a" if m["a"] else "b"
        start, end = m.span(group)
        if found.free(start, end) and (name := resolve(m[group], explicit=False)):
            found.claim("channel", start, end)
            _add(out.channels, name)
    for channel in directory.channels if directory else []:
        # Bare known names count only when they cannot be ordinary words ("platform-eng", "team_infra").
        if re.search(r"[-_0-9]", channel):
            for start, end in _word_matches(found.text, channel, case_sensitive=False):
                if found.free(start, end):
                    found.claim("channel", start, end)
                    _add(out.channels, channel)


def _word_matches(text: str, term: str, *, case_sensitive: bool) -> Iterator[tuple[int, int]]:
    flags = 0 if case_sensitive else re.IGNORECASE
    for m in re.finditer(rf"(?<![\w@#/.-]){re.escape(term)}(?![\w@-]|\.\w)", text, flags):
        yield m.start(), m.end()


# After these a source's noun word names the source ("in the files"); after any other word it is a modifier's
# noun ("delete files", "the Parquet file"): a thing in the question, not a place to search.
_FUNCTION_WORDS = frozenset(
    "the a an our my your their its this that these those in on from of at within through across by any all some "
    "which what whose every only just".split()
)


def _compound(text: str, start: int) -> bool:
    before = re.findall(r"[\w'-]+", text[:start])
    return bool(before) and before[-1].lower() not in _FUNCTION_WORDS


def _sources(found: _Found, out: Constraints) -> None:
    for pattern, sources, noun in source_words():
        for m in pattern.finditer(found.text):
            if noun and _compound(found.text, m.start()):
                continue
            if found.free(m.start(), m.end()):
                found.claim("source", m.start(), m.end())
                _add(out.sources, *sources)


def _person_terms(people: Iterable[Person]) -> list[tuple[str, Person, str]]:
    """(term, person, how) for every way a person may be named; `how` picks the matching rule."""
    people = list(people)
    first_counts: dict[str, int] = {}
    for person in people:
        parts = person.name.split()
        if len(parts) > 1:
            first_counts[parts[0].lower()] = first_counts.get(parts[0].lower(), 0) + 1
    terms: list[tuple[str, Person, str]] = []
    for person in people:
        terms.extend((email, person, "address") for email in person.emails)
        for handle in person.handles:
            handle = handle.lstrip("@")
            terms.append(("@" + handle, person, "exact"))
            if len(handle) >= 3:
                terms.append((handle, person, "word"))
        if person.name.strip():
            terms.append((person.name.strip(), person, "word"))
            parts = person.name.split()
            if len(parts) > 1 and len(parts[0]) >= 2:
                terms.append((parts[0], person, "word"))
    # Longest first, so "Alice Chen" claims its span before "Alice" does.
    return sorted(terms, key=lambda t: -len(t[0]))


def _people(found: _Found, directory: Directory | None, out: Constraints) -> None:
    if not directory:
        return
    text = found.text
    # Most of a large directory's names are not in the question: a substring test skips their regexes (thousands
    # of names outrun the regex cache, so each would be compiled again for every question).
    low = text.lower()
    exact_case = text.isascii()
    named: list[tuple[int, Person]] = []
    for term, person, how in _person_terms(directory.people):
        if exact_case and term.isascii() and term.lower() not in low:
            continue
        if how == "address" or how == "exact":
            matches = [(m.start(), m.end()) for m in re.finditer(re.escape(term), text, re.IGNORECASE)]
        else:
            common = term.lower() in COMMON_WORD_NAMES
            matches = [
                (s, e)
                for s, e in _word_matches(text, term, case_sensitive=common)
                if not common or not re.search(r"(?:^|[.?!]\s+)\W*$", text[:s])
            ]
        for start, end in matches:
            if found.free(start, end):
                found.claim("person", start, end)
                named.append((start, person))
    ordered = [person for _, person in sorted(named, key=lambda t: t[0])]
    _add(out.people, *(person.name for person in ordered))
    _add(out.person_ids, *(person.id for person in ordered if person.id))


def _projects(found: _Found, directory: Directory | None, out: Constraints) -> None:
    named: list[tuple[int, str]] = []
    for project in directory.projects if directory else []:
        terms = [project]
        repo = project.rsplit("/", 1)[-1]
        if repo != project and re.search(r"[-_.]", repo):
            terms.append(repo)
        for term in terms:
            # An all-caps key ("OPS") must be written in caps; "ops" in a sentence is a word.
            exact = term.isupper()
            for start, end in _word_matches(found.text, term, case_sensitive=exact):
                if found.free(start, end):
                    found.claim("project", start, end)
                    named.append((start, project))
    _add(out.projects, *(name for _, name in sorted(named)))


# Asks who a person is (their role, job, start, who helps or manages them), which what others wrote about them
# answers, rather than what they did or said, which their own messages answer.
_ABOUT_PERSON = re.compile(
    r"\b(?:roles?|jobs?|titles?|positions?|responsib\w*|in\s+charge|start(?:s|ed|ing)?|join(?:s|ed|ing)?|"
    r"background|reports?\s+to|manager|onboard\w*|who\s+is|who's|who\s+are)\b",
    re.I,
)


def about_person(question: str, constraints: Constraints) -> bool:
    """The question names a person and asks who they are (role, job, start), not what they did or said."""
    if not constraints.people:
        return False
    text = question
    for kind, span in sorted(constraints.spans, key=lambda s: -s[1].start):
        if kind == "person":
            text = text[: span.start] + " " + text[span.end :]
    return bool(_ABOUT_PERSON.search(text))


def _intent(question: str) -> str:
    for intent, pattern in _INTENTS:
        if pattern.search(question):
            return intent
    return "fact"


# "What was announced in #announcements last week?": a period and a place, nothing else asked about. It is a
# briefing over the window ("what happened"), not a fact to look up; "What was released for the Workers
# component yesterday?" names its topic and stays a fact question.
_PERIOD_VERB = re.compile(
    r"^\W*what\s+(?:(?:was|were|got|has\s+been|have\s+been)\s+(?:announced|released|shipped|launched|posted|shared|"
    r"discussed|decided)|(?:did|has|have|had)\s+[^?]+?\s+(?:do|done|been\s+doing|work(?:ed)?\s+on|"
    r"been\s+working\s+on|ship(?:ped)?|post(?:ed)?))\b",
    re.I,
)
_SCOPE_WORDS = frozenset(
    "in on at the a during over across from within by our we channel channels team there any anything else".split()
)
# The words of the opening itself ("What did ... work on", "What has been announced").
_OPENING_WORDS = frozenset(
    "what was were got has have had been did do done doing work worked working ship shipped post posted announced "
    "released launched shared discussed decided".split()
)


def period_verb(question: str) -> re.Match[str] | None:
    """The opening "What was announced / released / discussed ..." of a question about a period, or None."""
    return _PERIOD_VERB.match(question)


def _period_only(found: _Found, out: Constraints) -> bool:
    """A `_PERIOD_VERB` question with a window whose every word outside its constraints (the person, the channel,
    the window) is a word of the opening or a scope word: nothing else is asked about."""
    if out.time is None or not _PERIOD_VERB.match(found.text):
        return False
    rest = list(found.text)
    for _, span in found.spans:
        rest[span.start : span.end] = " " * (span.end - span.start)
    words = re.findall(r"[\w'-]+", "".join(rest).lower())
    return all(w in _SCOPE_WORDS or w in _OPENING_WORDS for w in words)


def _hard(found: _Found) -> set[str]:
    hard = set()
    for kind, span in found.spans:
        before = found.text[: span.start]
        after = found.text[span.end :]
        if _HARD_BEFORE.search(before) or _HARD_AFTER.match(after):
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
    found = _Found(text)
    out = Constraints()
    # Order matters: keys and numbers first, so neither dates nor names read "PLAT-123" or "#45".
    _tickets(found, directory, out)
    _prs(found, out, directory)
    _versions(found, out)
    _channels(found, directory, out)
    names = frozenset(p.name.split()[0].lower() for p in directory.people if p.name.split()) if directory else None
    windows = find_windows(text, calendar, found.taken(), names=names or frozenset())
    for window in windows:
        if window.span:
            found.spans.append(("time", window.span))
    out.time = merge(windows)
    _sources(found, out)
    _people(found, directory, out)
    _projects(found, directory, out)
    out.hard = _hard(found)
    out.intent = _intent(text)
    if out.intent == "fact" and _period_only(found, out):
        out.intent = "what_happened"
    out.spans = sorted(found.spans, key=lambda ks: ks[1].start)
    return out
