"""The value an answer's first line states, finer than the answer type: a duration, amount, status, link, path."""

from __future__ import annotations

import re

from briefing.question.shape import asks_money, number_shape

# Question text: asks how long something lasts or takes ("how long", "for how long", "what retention"; not "how long
# ago", which asks when).
_ASKS_DURATION = re.compile(
    r"\bhow\s+long\b(?!\s+ago)|\b(?:what|which)\s+(?:\w+\s+)?(?:duration|downtime|delay|timeout|retention|ttl)\b", re.I
)
# Question text: asks for the state something is in ("what is the status of", "what state is", "where does X
# stand").
_ASKS_STATUS = re.compile(
    r"\b(?:what|which)(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the\s+)?(?:current\s+|latest\s+)?(?:status|state)\b"
    r"|\bwhere\s+(?:does|do|did|is|are)\s+(?:[^?]{1,100}?\s)?stand(?:s|ing)?\b",
    re.I,
)
# Question text: asks for a link or a web address ("which URL", "where can I find"); for a path ("what path holds",
# "which directory").
_ASKS_LINK = re.compile(
    r"\b(?:what|which|where)(?:'s|\s+is|\s+are|\s+was)?\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?"
    r"(?:links?|urls?|endpoints?|web\s+address|repo(?:sitory)?)\b"
    r"|\bwhere\s+(?:can|do|should|could)\s+(?:i|we|you|one)\s+(?:find|download|get|read)\b",
    re.I,
)
_ASKS_PATH = re.compile(
    r"\b(?:what|which|where)(?:'s|\s+is|\s+are|\s+was)?\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?"
    r"(?:paths?|directory|directories|folders?|file\s+path)\b",
    re.I,
)

# Question text: asks why, or for the reason or cause ("Why was X reopened?", "What was the reason for ...", "What
# caused the crash?", "What is causing the timeouts?", "What was behind the outage?"); "how come" asks why.
_ASKS_CAUSE = re.compile(
    r"^\W*(?:why|how\s+come)\b|\bwhy\s+(?:was|were|did|is|are|do|does|had|has|have)\b|\bfor\s+what\s+reason\b"
    r"|\bwhat\s+(?:caused|causes|(?:is|was)\s+causing)\b|\bwhat(?:'s|\s+was|\s+is|\s+were|\s+are)\s+behind\b"
    r"|\b(?:what|which)\s+(?:was|is|were|are)?\s*(?:the\s+)?(?:main\s+|root\s+)?(?:reason|cause|rationale)s?\b",
    re.I,
)

# The finer kinds, by the answer kind they refine: a duration or an amount is a number, a status or a link answers
# a question that asks for no other value.
REFINES = {"duration": "number", "amount": "number", "status": "", "link": "", "path": ""}


def value_kind(question: str, span_kind: str) -> str:
    """The extractor an answer's first line uses (`span_kind` unless a finer kind applies): "duration" for how
    long, "amount" for money, "status" for the state of something, "link" for a URL, "path" for a file or
    directory path."""
    if span_kind == "number":
        if number_shape(question):
            return span_kind  # a factor, a percentage or a rate has its own shape
        if asks_money(question):
            return "amount"
        if _ASKS_DURATION.search(question):
            return "duration"
        return span_kind
    if span_kind:
        return span_kind
    if _ASKS_STATUS.search(question):
        return "status"
    if _ASKS_PATH.search(question):
        return "path"
    if _ASKS_LINK.search(question):
        return "link"
    return ""


def asks_cause(question: str) -> bool:
    """Whether the question asks why something happened (not how it was fixed, nor which item fixed it)."""
    return bool(_ASKS_CAUSE.search(question))
