"""Whether the best lines state what is asked: the value next to the question's words, its shape, the role held."""

from __future__ import annotations

import re
from collections.abc import Sequence

from briefing.ask.extractive.evidence import Evidence, unit_text
from briefing.ask.extractive.organisations import organisations
from briefing.ask.extractive.values import values
from briefing.ask.segment import clean
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.terms import TOKEN, stem
from briefing.textrules import find_ticket_keys

NEAR_BEFORE = 48
NEAR_AFTER = 32
# Sentence text: a size in bytes ("31.76 GB", "512MiB"); a frequency, often a word ("nightly", "every 6 hours").
_BYTES = re.compile(r"\d\s?(?:[kmgtp]i?b|bytes)\b", re.I)
_FREQUENCY = re.compile(
    r"\b(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually|frequency|cron|once|twice"
    r"|every\s+(?:\d+\s+)?(?:second|minute|hour|day|night|week|month|quarter|year|run|sync)s?"
    r"|(?:a|an|per)\s+(?:second|minute|hour|day|week|month|quarter|year))\b",
    re.I,
)
# Sentence text: an amount of money ("$40k", "120 EUR", "3k/mo").
_MONEY = re.compile(
    r"[$€£¥₹]\s?\d|\d\s?(?:[$€£¥₹]|usd|eur|gbp|inr|dollars?|euros?|bucks|k\s*/\s*mo)\b|\b(?:usd|eur|gbp)\s?\d",
    re.I,
)
# Unit text: a phone number's shape ("+49 30 1234567"), an ISO day inside it (a date, not a phone), an address.
_PHONE = re.compile(r"(?<![\w.])\+?\(?\d[\d ()./-]{6,}\d(?![\w.])")
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# Unit text: an issue or PR number as written; ticket keys ("PLAT-12") are read by briefing.textrules, the one key
# rule.
_REFERENCE = re.compile(r"#\d+|/(?:issues|pull|pulls)/\d+|\b(?:PR|issue|ticket)\s+\d+", re.I)
# Sentence text: a percentage; a plain count (not a factor such as "4.61x", not part of a version or a date).
_PERCENT = re.compile(r"\d\s?(?:%|percent\b)", re.I)
_COUNT = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w.]|\.\d)")
# Sentence text: a rate ("38 %", "3k rows/s", "40 per hour", "120 rps").
_RATE = re.compile(
    r"\d\s?(?:%|percent\b)"
    r"|\d\s?(?:[kmb]\s?)?(?:\w+\s?)?/\s?(?:s|sec|second|min|minute|h|hr|hour|d|day|wk|week|mo|month|yr|year)\b"
    r"|\d[^.\n]{0,30}\b(?:per|an?|each)\s+(?:second|sec|minute|min|hour|day|week|month|year)\b"
    r"|\d\s?[km]?\s?(?:rps|qps|tps|ops|eps)\b",
    re.I,
)
# Sentence text: a product named with a bare major version: "Postgres 15", "MySQL 8", "Java 17", "version 3".
_MAJOR_AFTER = re.compile(r"\s*(?:v|version\s+)?\d+(?:\.\d+)*\b", re.I)
# Sentence text: the role asked for stated with someone in it (a line naming only the author, "PR #12 by dana,
# merged 3 May", does not say who held it).
_ROLE_STATED = {
    "review": re.compile(
        r"\breview(?:ed|er|ers)\b|\bapproved\b|\brequested\s+changes\b|\bLGTM\b|\bsigned[- ]off\b", re.I
    ),
    "approve": re.compile(r"\bapprov(?:ed|al|er)\b|\bLGTM\b|\bsigned[- ]off\b", re.I),
    # "merged by X", "X merged", or a merge commit (its author merged: "Merge branch 'master' into staging").
    "merge": re.compile(
        r"\bmerged\b[^.\n]{0,40}?\bby\s+\S|(?:^|[\s(])@?[A-Z][\w.-]*\s+merged\b|\bmerged\s+it\b"
        r"|\bMerge\s+(?:branch|pull\s+request|remote-tracking\s+branch)\b"
    ),
    "sign": re.compile(r"\bsign(?:ed)?[- ]off\b|\bapproved\b", re.I),
    # "Who maintains / owns X": a line must say someone maintains, owns or is responsible for it; the author of a
    # message about X (a user asking for logs) is not its owner.
    "own": re.compile(
        r"\bmaintain(?:s|ed|ers?|ership)?\b|\bown(?:s|ed|ers?|ership)\b|\bresponsible\s+for\b|\bin\s+charge\s+of\b"
        r"|\bpoint\s+of\s+contact\b|\bPOC\b|\bDRI\b",
        re.I,
    ),
}


def role_stated(role: str, top: Sequence[Evidence], numbers: frozenset[str] = frozenset()) -> bool:
    """Whether one of the best lines states who held `role` (always true when no role is asked). When the question
    names the PR or issue (its `numbers`: "Who clicked merge on PR #1136?"), the line must be about it: its message
    or its chunk's title names that number (a merge commit of another branch says nothing about #1136)."""
    if not role:
        return True
    for ev in top:
        if numbers:
            about = unit_text(ev) + "\n" + ev.chunk.title
            # Unit text and title: the number itself, not inside another ("#11360", "v1.1136").
            if not any(re.search(rf"(?<![\w.]){n}(?!\d)", about) for n in numbers):
                continue
        if _ROLE_STATED[role].search(clean(ev.text, limit=2000)):
            return True
    return False


def typed_near(question: Question, top: Sequence[Evidence]) -> float:
    """1 when one of the best sentences holds the kind of value the question asks for next to the question's own
    words: a number beside the counted noun ("how many customers" wants "40 customers"), an amount of money for a
    cost, a date stated in the text for "when" (the message's own date does not count), a person for "who".
    A question that asks for no value gets 1 (the feature says nothing then); one that asks for a memory or disk
    size gets 1 only for a size in bytes."""
    kind = question.answer_type
    asked = extra_of(question)
    if kind not in {"number", "time", "version", "setting", "person", "organisation"}:
        return 1.0
    if kind == "person":
        return float(any(e.typed for e in top))
    if kind == "organisation":  # one the question does not name itself, by someone other than its writer
        q_text = question.text.lower()
        return float(any(organisations(clean(e.text, limit=2000), q_text, [e.author or ""]) for e in top))
    if kind == "time" and asked["asks_past"]:
        return 1.0  # "When was v0.9.2 released?": the announcement's own date answers it
    texts = [clean(ev.text, limit=2000) for ev in top]
    # The value's unit measures what is asked: "how much memory" is answered by "31.76 GB" whether or not the line
    # says "memory" ("OLake Go averaged about 31.76 GB"); "how often" by a frequency, which is often a word.
    if asked["asks_bytes"] or _asks_size(question):
        return float(any(_BYTES.search(t) for t in texts))
    if asked["asks_frequency"] and any(_FREQUENCY.search(t) for t in texts):
        return 1.0
    q_low = question.text.lower()
    money = kind == "number" and asked["money"]
    anchors = asked["value_anchors"]
    for ev in top:
        text = clean(ev.text, limit=2000)
        if money and not _MONEY.search(text):
            continue
        spots = [m.start() for m in TOKEN.finditer(text.lower()) if stem(m[0].strip(".-")) in anchors]
        for value in values(kind, text, q_low):
            if any(-NEAR_BEFORE <= at - value.start() <= NEAR_AFTER + len(value[0]) for at in spots):
                return 1.0
    return 0.0


# Question text: a memory or disk size asked by its noun ("What memory limit did the worker get?", "the new heap
# size"): a size in bytes answers it, not another number of the same line ("2.61ms").
_ASKS_SIZE = re.compile(r"\b(?:memory|ram|heap|disk|storage)\s+(?:limit|size|request|usage|quota)s?\b", re.I)


def _asks_size(question: Question) -> bool:
    return question.answer_type == "number" and bool(_ASKS_SIZE.search(question.text))


def _phone(text: str) -> bool:
    """Whether `text` holds a phone number: an international "+49 30 1234567", or nine digits or more in one run of
    digits, spaces and dashes that is not a date."""
    for m in _PHONE.finditer(text):
        if _ISO_DAY.search(m[0]):
            continue
        if m[0].startswith("+") or sum(ch.isdigit() for ch in m[0]) >= 9:
            return True
    return False


def value_miss(question: Question, top: Sequence[Evidence]) -> str:
    """The value shape the question asks for (`shape.value_asked`) when none of the best sentences states it, else
    empty: no sentence with an amount of money (or a percentage) for a cost question; no version within a few
    words of the product named ("Which Debezium version was the user running?" over OLake's own release notes);
    no percentage or per-unit value for a rate; no "#123", issue link or ticket key for "which issue number"."""
    asked = extra_of(question)
    shape = asked["value_shape"]
    if not shape:
        return ""
    texts = [clean(ev.text, limit=2000) for ev in top]
    if shape == "amount":
        # Money, a percentage, or a count stated with the asked word itself ("a budget of 40 nodes": not every
        # budget is money).
        word = asked["amount_word"]
        stated = any(_MONEY.search(t) or _PERCENT.search(t) or _counted(t, word) for t in texts)
    elif shape == "rate":
        stated = any(_RATE.search(t) for t in texts)
    elif shape in {"reference", "phone number", "email address"}:
        # A reference or a contact detail is often a link or a line after the sentence that names it ("You can
        # also check the PR: .../pull/951"): the whole message (and its chunk's title) is read.
        whole = [clean(unit_text(ev), limit=4000) + "\n" + ev.chunk.title for ev in top]
        if shape == "reference":
            stated = any(_REFERENCE.search(t) or find_ticket_keys(t) for t in whole)
        else:
            stated = any(_phone(t) if shape == "phone number" else bool(_EMAIL.search(t)) for t in whole)
    else:
        q_low = question.text.lower()
        stated = any(_near_product(text, asked["product"], q_low) for text in texts)
    return "" if stated else shape


def _counted(text: str, word: str) -> bool:
    """Whether `text` states a count within a few words of `word` ("budget" in "a budget of 40 nodes")."""
    low = text.lower()
    spots = [m.start() for m in TOKEN.finditer(low) if stem(m[0].strip(".-")) == word]
    return any(-NEAR_BEFORE <= at - n.start() <= NEAR_AFTER + len(n[0]) for n in _COUNT.finditer(low) for at in spots)


def _near_product(text: str, product: frozenset[str], q_low: str) -> bool:
    """Whether `text` states a version within a few words of one of the `product` words (or a bare major version
    right after one: "Postgres 15")."""
    low = text.lower()
    named = [m for m in TOKEN.finditer(low) if stem(m[0].strip(".-")) in product]
    majors = [_MAJOR_AFTER.match(low, m.end()) for m in named]
    if any(major and major[0].strip() not in q_low for major in majors):
        return True
    found = values("version", text, q_low)
    return any(-NEAR_BEFORE <= m.start() - v.start() <= NEAR_AFTER + len(v[0]) for v in found for m in named)
