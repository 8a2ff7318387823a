"""Finders of each kind of constraint in a question's text: keys, pull requests, versions, channels, sources, people.

Each claims the span it reads, so one piece of text feeds one constraint ("PLAT" in PLAT-123 is no project).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar, cast

from briefing.model import Person
from briefing.question.timewindow import Span
from briefing.question.values import Constraints, Directory
from briefing.question.words import COMMON_WORD_NAMES, FUNCTION_WORDS
from briefing.textrules import (
    ISSUE_REF,
    ISSUE_URL,
    NAMED_ISSUE_REF,
    PROJECT_KEY,
    STOPWORDS,
    ticket_key_spans,
    ticket_prefixes,
)

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


# Question text: a channel named with a hash ("#deploys") or in words ("the deploys channel", "channel deploys").
_HASH_CHANNEL = re.compile(r"(?<![\w&/#])#([a-z0-9][a-z0-9._-]*[a-z0-9_]|[a-z])(?![\w-])", re.IGNORECASE)
_NAMED_CHANNEL = re.compile(
    r"\b(?:the\s+)?#?(?P<a>[a-z0-9][\w.-]*)\s+channel\b|\bchannel\s+#?(?P<b>[a-z0-9][\w.-]*[\w])",
    re.IGNORECASE,
)


class Found:
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


# What the last directory read yields for every question (its people's terms, its ticket prefixes): the service
# keeps one Directory until the files it is read from change, so the questions after the first reuse them. Keyed
# by the object itself, held here so that its identity stays its own.
_DERIVED: dict[str, tuple[Directory, Any]] = {}
T = TypeVar("T")


def _derived(name: str, directory: Directory, make: Callable[[Directory], T]) -> T:
    held = _DERIVED.get(name)
    if held is not None and held[0] is directory:
        return cast(T, held[1])
    value = make(directory)
    _DERIVED[name] = (directory, value)
    return value


def _known_prefixes(directory: Directory) -> frozenset[str]:
    known = ticket_prefixes(directory.ticket_keys)
    if known:
        known |= {p.upper() for p in directory.projects if PROJECT_KEY.fullmatch(p)}
    return frozenset(known)


def tickets(found: Found, directory: Directory | None, out: Constraints) -> None:
    known = _derived("prefixes", directory, _known_prefixes) if directory else frozenset()
    # The same rule as at index time; "PR-45" is stoplisted there and read as a pull request by _prs.
    for key, start, end in ticket_key_spans(found.text, known):
        found.claim("ticket", start, end)
        _add(out.tickets, key)


def prs(found: Found, out: Constraints, directory: Directory | None = None) -> None:
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


def versions(found: Found, out: Constraints) -> None:
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


def channels(found: Found, directory: Directory | None, out: Constraints) -> None:
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
    for m in _word_pattern(term, case_sensitive).finditer(text):
        yield m.start(), m.end()


@functools.lru_cache(maxsize=16384)
def _word_pattern(term: str, case_sensitive: bool) -> re.Pattern[str]:
    """One term's pattern, compiled once per process: a directory of a few hundred names and channels otherwise
    overflows `re`'s own cache of 512 and compiles most of them again on every question."""
    flags = 0 if case_sensitive else re.IGNORECASE
    return re.compile(rf"(?<![\w@#/.-]){re.escape(term)}(?![\w@-]|\.\w)", flags)


def _compound(text: str, start: int) -> bool:
    before = re.findall(r"[\w'-]+", text[:start])
    return bool(before) and before[-1].lower() not in FUNCTION_WORDS


def sources(found: Found, out: Constraints) -> None:
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


def people(found: Found, directory: Directory | None, out: Constraints) -> None:
    if not directory:
        return
    text = found.text
    # Most of a large directory's names are not in the question: a substring test skips their regexes (thousands
    # of names outrun the regex cache, so each would be compiled again for every question).
    low = text.lower()
    exact_case = text.isascii()
    named: list[tuple[int, Person]] = []
    for term, person, how in _derived("terms", directory, lambda d: _person_terms(d.people)):
        if exact_case and term.isascii() and term.lower() not in low:
            continue
        if how == "address" or how == "exact":
            matches = [(m.start(), m.end()) for m in re.finditer(re.escape(term), text, re.IGNORECASE)]
        else:
            # A name that is also a common word ("Will", or "To" from a mail header read as a sender's name) names
            # the person only as written, and not as a sentence's first word.
            common = term.lower() in COMMON_WORD_NAMES or term.lower() in STOPWORDS
            matches = [
                (s, e)
                for s, e in _word_matches(text, term, case_sensitive=common)
                if not common or not re.search(r"(?:^|[.?!]\s+)\W*$", text[:s])
            ]
        for start, end in matches:
            if found.free(start, end):
                found.claim("person", start, end)
                named.append((start, person))
                if (person.name, text[start:end]) not in out.person_forms:
                    out.person_forms.append((person.name, text[start:end]))
    ordered = [person for _, person in sorted(named, key=lambda t: t[0])]
    _add(out.people, *(person.name for person in ordered))
    _add(out.person_ids, *(person.id for person in ordered if person.id))


# Project name: a plain lowercase word, which a sentence uses as a word unless it says the place is meant.
_PLAIN_NAME = re.compile(r"[a-z]+")
# Question text: what says a plain word names a place: a place noun after it ("release folder", "blog project") or
# before it ("the folder release"), or a path slash after it ("release/").
_PLACE_AFTER = re.compile(r"(?:/|\s+(?:folder|project|directory|dir|repo|repository|space|section)s?\b)", re.I)
_PLACE_BEFORE = re.compile(r"\b(?:folder|project|directory|dir|repo|repository|space|section)\s+$", re.I)


def _placed(text: str, start: int, end: int) -> bool:
    """Whether the word at `start:end` is written as a place's name (`_PLACE_AFTER`, `_PLACE_BEFORE`)."""
    return bool(_PLACE_AFTER.match(text, end) or _PLACE_BEFORE.search(text[:start]))


def projects(found: Found, directory: Directory | None, out: Constraints) -> None:
    named: list[tuple[int, str]] = []
    for project in directory.projects if directory else []:
        terms = [project]
        repo = project.rsplit("/", 1)[-1]
        if repo != project and re.search(r"[-_.]", repo):
            terms.append(repo)
        for term in terms:
            # An all-caps key ("OPS") must be written in caps; "ops" in a sentence is a word.
            exact = term.isupper()
            # A name that is a plain word ("release", "blog": a docs folder) names the place only when the question
            # says it is one ("the release folder", "in release/"); "the newest release" is the word.
            plain = bool(_PLAIN_NAME.fullmatch(term))
            for start, end in _word_matches(found.text, term, case_sensitive=exact):
                if plain and not _placed(found.text, start, end):
                    continue
                if found.free(start, end):
                    found.claim("project", start, end)
                    named.append((start, project))
    _add(out.projects, *(name for _, name in sorted(named)))
