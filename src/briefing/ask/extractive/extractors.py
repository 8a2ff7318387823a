"""One extractor per kind of value asked for: the span of an evidence sentence an answer's first line states."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.values import (
    MESSAGE_DATE,
    near,
    number_span,
    person_span,
    reading,
    setting_span,
    time_span,
    version_span,
    yesno_span,
)
from briefing.model import Chunk
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.value_kind import REFINES

Extractor = Callable[[Question, Evidence, Sequence[Chunk]], str]

# Sentence text: a length of time ("24 hours", "18 h 40", "200ms", "two weeks").
_DURATION = re.compile(
    r"(?<![\w.])[~≈]?\d+(?:\.\d+)?\s?(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?|weeks?|"
    r"months?|years?)\b(?:\s?\d{1,2}\s?(?:m|mins?|minutes?)\b|\s\d{1,2}\b(?![.,:]?\d|\s?%))?"
    r"|\b(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|a\s+few|several)\s+"
    r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b",
    re.I,
)
# Sentence text: an amount of money ("$14,200", "~$310/mo", "120 EUR", "$40k per month").
_AMOUNT = re.compile(
    r"[~≈]?[$€£¥₹]\s?\d(?:[\d,]*\d)?(?:\.\d+)?(?:\s?(?:k|m|bn|thousand|million|billion)\b)?"
    r"(?:\s?(?:/|per\s+|a\s+)(?:mo|month|year|yr|hour|hr|day|user|seat)\b)?"
    r"|\d(?:[\d,]*\d)?(?:\.\d+)?\s?(?:k\s?)?(?:usd|eur|gbp|inr|dollars?|euros?)\b",
    re.I,
)
# Sentence text: a workflow state as trackers and people write it ("In Review", "won't fix", "merged", "blocked").
_STATE = (
    r"in\s+review|in\s+progress|under\s+review|on\s+hold|ready\s+for\s+(?:review|merge|qa|testing)|won'?t\s+fix|"
    r"cannot\s+reproduce|not\s+a\s+bug|re-?opened|open|closed|resolved|fixed|merged|done|blocked|pending|approved|"
    r"rejected|abandoned|superseded|released|shipped|deployed|reverted|draft|backlog|to\s+do|duplicate|invalid"
)
_STATE_WORD = re.compile(rf"\b(?:{_STATE})\b", re.I)
# Sentence text: a change of state ("from Open to In Review", "Open → Closed"): the state it changed to holds.
_TRANSITION = re.compile(rf"\b(?:{_STATE})\s*(?:→|->|=>|\bto\b)\s*[\"']?((?:{_STATE}))\b", re.I)
# Sentence text: a state field ("Status: Closed", "state is merged").
_STATE_FIELD = re.compile(rf"\b(?:status|state|resolution)\s*(?::|=|\bis\b|\bwas\b)\s*[\"']?((?:{_STATE}))\b", re.I)
# Sentence text: a dated state event of an item's record ("closed unmerged 2022-05-02", "merged 2026-07-27").
_STATE_EVENT = re.compile(
    r"\b(?:opened|closed|merged|resolved|reopened)\s+(?:unmerged\s+)?(?:on\s+)?\d{4}-\d{2}-\d{2}\b", re.I
)
# Sentence text: a web address; a file or directory path ("docs/install.md", "/etc/olake/config.json").
_URL = re.compile(r"https?://[^\s<>\"'`)\]|]*[^\s<>\"'`)\]|.,;:!?]")
_PATH = re.compile(r"(?<![\w/.:@-])(?:~|\.{1,2})?/?(?:[\w.@-]+/)+[\w.@-]*[\w@-](?![\w/])")
_FILE_END = re.compile(r"\.[a-z][a-z0-9]{0,5}$", re.I)


def _stated(rule: re.Pattern[str]) -> Extractor:
    """The extractor of the values `rule` reads, next to the question's words and not named by the question."""

    def extract(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
        text, q_low, q_words = reading(question, ev)
        hit = near(text, [m for m in rule.finditer(text) if m[0].strip().lower() not in q_low], q_words)
        return hit[0].strip() if hit else ""

    return extract


_duration = _stated(_DURATION)
_amount = _stated(_AMOUNT)


def duration_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The length of time next to the question's words; the number extractor's value when the sentence states
    none."""
    return _duration(question, ev, context) or number_span(question, ev, context)


def amount_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The amount of money next to the question's words; the number extractor's value when the sentence states
    none."""
    return _amount(question, ev, context) or number_span(question, ev, context)


def status_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The state the sentence gives the thing asked about: the state a change led to, a status field's value, or
    the state word next to the question's words; none the question names itself."""
    text, q_low, q_words = reading(question, ev)
    for rule in (_TRANSITION, _STATE_FIELD):
        found = [m for m in rule.finditer(text) if m[1].lower() not in q_low]
        if found:
            return found[-1][1]
    words = [m for m in _STATE_WORD.finditer(text) if m[0].lower() not in q_low]
    hit = near(text, words, q_words)
    return hit[0] if hit else ""


def state_record(text: str) -> bool:
    """Whether the sentence records a state or a change of state (a transition, a status field, a dated state
    event): what happened to an item, not why."""
    return bool(_TRANSITION.search(text) or _STATE_FIELD.search(text) or _STATE_EVENT.search(text))


def _is_path(token: str) -> bool:
    """A path, not "and/or", "CI/CD" or a date: rooted, at least two separators, or a file name at its end."""
    if not re.search(r"[a-z]", token, re.I) or re.fullmatch(r"[\d/.-]+", token):
        return False
    return token[0] in "/~." or token.count("/") >= 2 or bool(_FILE_END.search(token))


def _urls(text: str, q_low: str) -> list[re.Match[str]]:
    return [m for m in _URL.finditer(text) if m[0].lower() not in q_low]


def _paths(text: str, q_low: str) -> list[re.Match[str]]:
    inside = [(m.start(), m.end()) for m in _URL.finditer(text)]
    return [
        m
        for m in _PATH.finditer(text)
        if _is_path(m[0]) and m[0].lower() not in q_low and not any(a <= m.start() < b for a, b in inside)
    ]


def link_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The web address, else the file or directory path, next to the question's words."""
    text, q_low, q_words = reading(question, ev)
    hit = near(text, _urls(text, q_low), q_words) or near(text, _paths(text, q_low), q_words)
    return hit[0] if hit else ""


def path_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The file or directory path, else the web address, next to the question's words."""
    text, q_low, q_words = reading(question, ev)
    hit = near(text, _paths(text, q_low), q_words) or near(text, _urls(text, q_low), q_words)
    return hit[0] if hit else ""


EXTRACTORS: dict[str, Extractor] = {
    "version": version_span,
    "setting": setting_span,
    "number": number_span,
    "duration": duration_span,
    "amount": amount_span,
    "time": time_span,
    "person": person_span,
    "status": status_span,
    "link": link_span,
    "path": path_span,
    "yesno": yesno_span,
}


def extractor_kind(question: Question, kind: str) -> str:
    """The extractor for an answer of `kind`: the question's finer value kind when it refines `kind` (a duration
    or an amount for a number, a status or a link where no other value is asked), else `kind`."""
    finer = extra_of(question).get("value_kind", kind)
    return finer if finer in REFINES and REFINES[finer] == kind else kind


def answer_span(question: Question, kind: str, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The value the question asks for, taken from the evidence sentence by the extractor of its kind; empty when
    the sentence has none, so the sentence itself leads the answer."""
    extract = EXTRACTORS.get(extractor_kind(question, kind))
    return extract(question, ev, context) if extract is not None else ""


def stated_value(question: Question, kind: str, ev: Evidence, context: Sequence[Chunk]) -> str:
    """`answer_span` when the sentence's text states the value; empty when it comes from the message itself (its
    date, its author), which two sources cannot disagree on."""
    span = answer_span(question, kind, ev, context)
    if span.endswith(MESSAGE_DATE):
        return ""
    if extractor_kind(question, kind) == "person" and span and span not in ev.text:
        first = span.split()[0]
        return span if re.search(rf"\b{re.escape(first)}\b", ev.text) else ""
    return span
