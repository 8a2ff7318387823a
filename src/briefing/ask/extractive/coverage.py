"""How much of the question the context and the workspace hold: its names, its period, its topic words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

from briefing.ask.header import is_header
from briefing.ask.vocabulary import Spread
from briefing.model import Chunk
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.terms import GENERIC, content_words, stem
from briefing.question.timewindow import day_start

# A word held by at most this many chunks of the whole workspace is rare there (a passing mention).
RARE_CHUNKS = 2


def missing_terms(question: Question, context: Sequence[Chunk]) -> list[str]:
    """Named terms of the question that no context chunk contains (as a word start, case-insensitive)."""
    text = "\n".join(f"{c.title}\n{c.text}" for c in context)
    named = extra_of(question)["named"]
    # Chunk text and titles, searched for each term as `_term_patterns` spells it.
    return [t for t in named if not any(re.search(p, text, re.I) for p in _term_patterns(t))]


def _term_patterns(term: str) -> list[str]:
    """How a named term may occur in a chunk's text: as a word start; a version with or without its "v" ("0.8" in
    "v0.8.0"); a hyphenated compound by its named part ("Helm-deployed" is about Helm); an acronym's plural by its
    singular ("PRs" are there when the context says "PR #45"); a product without its DB, JS or SQL suffix."""
    if re.search(r"\d", term) and re.fullmatch(r"[vV]?\d[\d.]*", term):
        return [rf"(?<![A-Za-z0-9.])v?{re.escape(term.lstrip('vV'))}(?!\d)"]
    patterns = [rf"(?<![A-Za-z0-9]){re.escape(term)}"]
    if re.fullmatch(r"[A-Z]{2,}s", term):
        patterns.append(rf"(?<![A-Za-z0-9]){re.escape(term[:-1])}\b")
    # A product named with a conventional suffix that its users often drop ("MongoDB" written "Mongo", "PostgreSQL"
    # written "Postgres", "NodeJS" written "Node").
    short = re.fullmatch(r"([A-Za-z]{4,}?)(?:DB|JS|SQL)", term)
    if short:
        patterns.append(rf"(?<![A-Za-z0-9]){re.escape(short[1])}")
    head = term.split("-")[0]
    if "-" in term and len(head) >= 3 and head[0].isupper() and not re.search(r"\d", term):
        patterns.append(rf"(?<![A-Za-z0-9]){re.escape(head)}\b")
    return patterns


_MONTH_NUMBER = {name: i for i, name in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}
# Unit text: a day as written ("2026-06-08", "8 June", "June 8") or a month named alone ("in September").
_DAY_MONTH = re.compile(
    r"\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2})\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+(\d{1,2})\b|"
    r"\b(january|february|march|april|june|july|august|september|october|november|december)\b",
    re.I,
)


def mentions_window(text: str, window: tuple[datetime, datetime]) -> bool:
    """Whether `text` names a day (or, for a window of weeks, a month) inside `window`. A named day is that calendar
    day in the window's own zone (the answerer gives the asked window in the workspace's zone,
    `briefing.question.timewindow.local_window`): "5 March" in a Los Angeles workspace begins at 08:00 UTC. An
    item's state header names no day: its days ("Updated: 2017-11-09") are the UTC days of the instants its item's
    units already carry (ingest writes them so), and read as the workspace's days they would move an evening's
    update onto the next day."""
    start, end = window
    zone = start.tzinfo or UTC
    year = start.astimezone(zone).year
    if is_header(text):
        return False
    for m in _DAY_MONTH.finditer(text):
        try:
            if m[1]:
                day = day_start(date(int(m[1]), int(m[2]), int(m[3])), zone)
            elif m[4] or m[7]:
                month = _MONTH_NUMBER[(m[5] or m[6]).lower()[:3]]
                day = day_start(date(year, month, int(m[4] or m[7])), zone)
            else:
                if (end - start).days < 20:
                    continue
                day = day_start(date(year, _MONTH_NUMBER[m[8].lower()[:3]], 1), zone)
                if day <= start < day + timedelta(days=31) or start <= day < end:
                    return True
                continue
        except ValueError:
            continue
        if start <= day < end:
            return True
    return False


def window_empty(context: Sequence[Chunk], window: tuple[datetime, datetime] | None) -> bool:
    """The question names a period, and nothing in the context happened in it or mentions a day in it."""
    if window is None:
        return False
    for chunk in context:
        for unit in chunk.units or ():
            at = unit.at or chunk.start
            if window[0] <= at < window[1] or mentions_window(unit.text, window):
                return False
        if not chunk.units and (window[0] <= chunk.start < window[1] or mentions_window(chunk.text, window)):
            return False
    return True


def off_context(word: str, found: Spread, context: Sequence[Chunk], seen: set[str]) -> bool:
    """The word is in no context chunk and, if the index holds it at all, only in rare documents outside the
    context (a common word's documents are not all listed: it counts as covered)."""
    if stem(word) in seen or found.docs & {c.doc_key for c in context}:
        return False
    return found.complete


def vocabulary_features(
    words: Sequence[str],
    spread: dict[str, Spread],
    context: Sequence[Chunk],
    seen: set[str],
    near: dict[str, float] | None = None,
) -> dict[str, float]:
    """How much of the question the workspace does not hold at all (`vocab_unknown`), or holds only in
    documents the context does not draw on (`vocab_stray`: a rare word, every document of it known, none of
    them in the context). A word found in the context (or its stem) is covered whatever the index says.
    `vocab_far` weighs each such word by how far it is from every scored sentence (1 - its best cosine, from
    `near`; a word without a similarity counts as far)."""
    looked = [w for w in words if w in spread]
    out = dict.fromkeys(("vocab_unknown", "vocab_unknown_any", "vocab_stray", "vocab_off", "vocab_far"), 0.0)
    if not looked:
        return out
    near = near or {}
    unknown = stray = 0
    far = 0.0
    for w in looked:
        found = spread[w]
        if not off_context(w, found, context, seen):
            continue
        far += 1.0 - max(0.0, near.get(w, 0.0))
        if found.absent:
            unknown += 1
        else:
            stray += 1
    n = len(looked)
    out.update(
        vocab_unknown=unknown / n,
        vocab_unknown_any=1.0 if unknown else 0.0,
        vocab_stray=stray / n,
        vocab_off=(unknown + stray) / n,
        vocab_far=far / n,
    )
    return out


def topic_features(words: Sequence[str], spread: dict[str, Spread], seen: set[str]) -> dict[str, float]:
    """Counts of the question's topic words (those the index tokenises): found in the context, common in the
    workspace (more chunks than the lookup limit), rare there, or absent."""
    looked = [w for w in words if w in spread]
    return {
        "topic_n": float(len(looked)),
        "topic_seen": float(sum(1 for w in looked if stem(w) in seen)),
        "topic_common": float(sum(1 for w in looked if not spread[w].complete)),
        "topic_absent": float(sum(1 for w in looked if spread[w].absent)),
        "topic_rare": float(sum(1 for w in looked if spread[w].complete and spread[w].chunks <= RARE_CHUNKS)),
    }


def unknown_words(question: Question, spread: dict[str, Spread], context: Sequence[Chunk] = ()) -> list[str]:
    """The question's topic words that no indexed document holds and no context chunk shows (for the
    refusal's wording: a word only in a title is not in the sparse index, yet the sources do show it)."""
    words = extra_of(question)["topic_words"]
    seen = set().union(*(content_words(c.text) | content_words(c.title) for c in context)) if context else set()
    return [w for w in words if w in spread and spread[w].absent and stem(w) not in seen]


def missing_share(q_words: set[str] | frozenset[str], seen: set[str]) -> float:
    """The share of the question's topic words (content words, not paraphrase-prone ones) that no context chunk
    contains: "parental" and "leave" in "What is the parental leave policy?" over a data-engineering Slack."""
    topic = {w for w in q_words if w not in GENERIC and len(w) > 2}
    return sum(1 for w in topic if w not in seen) / len(topic) if topic else 0.0


# Nouns that name a kind of information rather than a thing ("What are the main problems with the pool?", "What
# gap did the review find?"): the sources state a problem without calling it one, so their absence refuses nothing.
_ABSTRACT = frozenset(
    """problem issue gap reason cause result outcome effect impact risk concern question answer advice suggestion
    recommendation approach option alternative step idea lesson takeaway trend pattern theme topic highlight progress
    blocker benefit drawback downside upside limitation tradeoff trade-off requirement expectation goal priority
    decision feedback change difference improvement difficulty challenge complaint mistake error failure fix
    solution workaround news reaction response reply reception""".split()
)
# Words that rank or qualify what is asked rather than name it ("the main problems", "the biggest risk").
_QUALIFIERS = frozenset("main key major biggest top common usual typical important notable overall general".split())


def _abstract(word: str) -> bool:
    """Whether `word` names a kind of information or qualifies it (`_ABSTRACT`, `_QUALIFIERS`), not a thing."""
    return any(w in _ABSTRACT or w in _QUALIFIERS for w in (word, word.removesuffix("s"), word.removesuffix("es")))


def asked_absent(question: Question, spread: dict[str, Spread], seen: set[str]) -> list[str]:
    """The words of the phrase a "which / what" question asks for (`Question.asked`), or of the entity it belongs
    to (its `asked_of`), that no context chunk holds and no indexed source mentions ("parental" in "What is the
    parental leave policy?", "laptop" in "Which laptop model ..."): the thing presupposed is not one the workspace
    speaks of. A weaker sign than `head_miss` (a modifier can be a paraphrase), so it is a feature of the fitted
    confidence, not a cap."""
    words = [w for w in [*question.asked.split(), *extra_of(question)["asked_of"]] if not _abstract(w)]
    return [w for w in words if w in spread and spread[w].absent and stem(w) not in seen]


def head_miss(question: Question, spread: dict[str, Spread], seen: set[str]) -> str:
    """The noun naming what a "which / what" question asks for (the last word of `Question.asked`: "codec" in
    "What compression codec does ...") when no context chunk holds it and no indexed source mentions it, else
    empty. The sources then never speak of that kind of thing, whatever else of the question they share."""
    head = question.asked.split()
    if not head:
        return ""
    word = head[-1]
    if _abstract(word):
        return ""
    found = spread.get(word)
    if found is None or not found.absent or stem(word) in seen:
        return ""
    return word
