"""The shape of the value a question asks for beyond its answer type: money, a rate, a factor, a count, a reference."""

from __future__ import annotations

import re
from collections.abc import Sequence

from briefing.question.asked import version_of
from briefing.question.terms import GENERIC, content_words, stem
from briefing.textrules import STOPWORDS

# Money questions want an amount of money, not any number ("How much did we spend on AWS?" is not answered by
# "4.61x cheaper" or a date).
_ASKS_MONEY = re.compile(
    r"\b(?:cost|costs|spend|spent|spending|price|priced|pricing|budget|funding|raised|revenue|salary|salaries|"
    r"dollars?|bill(?:ed|ing)?|invoice[sd]?|fee|fees|charge[sd]?|pay|paying)\b",
    re.I,
)
_ASKS_PAST = re.compile(r"\bwhen\s+(?:was|were|did)\b", re.I)
_HOW_MANY = re.compile(r"\bhow\s+(?:many|much)\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.I)
_ASKS_BYTES = re.compile(r"\bhow\s+much\s+(?:[\w-]+\s+)?(?:memory|ram|storage|disk|heap)\b", re.I)
_ASKS_FREQUENCY = re.compile(r"\bhow\s+often\b", re.I)


def asks_money(question: str) -> bool:
    return bool(_ASKS_MONEY.search(question))


def asks_past(question: str) -> bool:
    """ "When was / were / did ...": the date of the message that announced it answers it."""
    return bool(_ASKS_PAST.search(question))


def asks_bytes(question: str) -> bool:
    """ "How much memory / disk ...": a size in bytes answers it, whatever the line names."""
    return bool(_ASKS_BYTES.search(question))


def asks_frequency(question: str) -> bool:
    return bool(_ASKS_FREQUENCY.search(question))


def counted_nouns(question: str) -> frozenset[str]:
    """The stems of what a "how many / how much X" question counts ("how many minutes" -> {"minut"})."""
    counted = _HOW_MANY.search(question)
    if not counted:
        return frozenset()
    return frozenset({stem(w) for w in counted[1].lower().split()} - STOPWORDS)


def value_anchors(question: str, kind: str, people: Sequence[str] = ()) -> frozenset[str]:
    """The words the asked value must stand next to: the counted noun ("how many customers" wants "40 customers";
    not for a number that is money), else the question's content words; never a person the question names (every
    line of theirs names them)."""
    counted = _HOW_MANY.search(question)
    money = kind == "number" and asks_money(question)
    anchors = content_words(counted[1]) - GENERIC if counted and not money else set()
    names = {stem(p) for person in people for p in re.split(r"[\s._-]+", person.lower()) if p}
    return frozenset(anchors or (content_words(question) - GENERIC - names))


# A factor question ("by roughly what factor", "how many times faster") is answered by a factor ("4.6x"), a
# percentage question by a percentage ("38 %"); never by another quantity of the same sentence ("4 billion rows").
_ASKS_FACTOR = re.compile(
    r"\bfactor\b|\bhow\s+many\s+times\b|\bratio\b|\btimes\s+(?:faster|slower|cheaper|more|less|bigger|smaller)\b", re.I
)
_ASKS_PERCENT = re.compile(r"\bpercent(?:age)?s?\b|\bwhat\s+share\b|\bwhat\s+proportion\b", re.I)
# A throughput unit ("rows per second", "/s"), in a question or in a stated quantity; a cost per month is an amount.
PER_SECOND = re.compile(r"\bper\s+(?:second|sec|minute|min|hour|s)\b|/s\b|\ba\s+second\b", re.I)


def number_shape(question: str) -> str:
    """The shape a number question's value must have: "factor", "percent", "rate" (a throughput), or empty."""
    if _ASKS_FACTOR.search(question):
        return "factor"
    if _ASKS_PERCENT.search(question):
        return "percent"
    if PER_SECOND.search(question) and not asks_money(question):
        return "rate"
    return ""


# What a question asks for, beyond its answer type, that its best sentences must state for the question to be
# answered (the refusal's answer-type check): an amount of money for "what was the dollar cost / total funding /
# salary range", a version next to the product named for "which Debezium version", a rate for "how many rows per
# second", an issue or PR number for "which issue number". Each is a value shape, not a topic: no word of the
# workspace is listed.
_ASKS_AMOUNT = re.compile(
    r"\b(?:what|which)\s+(?:(?:is|was|were|are|will)\s+)?(?:(?:the|a|an|its|their|our)\s+)?(?:[\w-]+\s+){0,2}?"
    r"(cost|costs|price|prices|pricing|budget|funding|salary|salaries|fee|fees|discount|dollars?|revenue|spend|bill)"
    # The phrase ends at the money word ("the dollar cost of", "what discount did") or goes on with a value word
    # ("salary range", "funding raised"): "what pricing model", "which cost optimisations" ask for no amount.
    r"(?=\s*(?:[?,.;:]|$)|\s+(?:of|for|per|in|at|to|on|from|with|did|does|do|was|is|were|are|will|has|have|had|"
    r"range|estimate|raised|paid|quoted|amount|figure|total)\b)",
    re.I,
)
_ASKS_REFERENCE = re.compile(
    r"\b(?:issue|pr|pull\s+request|ticket|bug)\s+(?:number|id|no\.?)(?!\w)"
    # "Which PR fixed ...", "which ticket tracks ...", "where is the PR for ...": the answer is a reference, whatever
    # else the lines say ("What PR did Ana raise, and what does it change?" may be answered by the PR's message).
    r"|\bwhich\s+(?:\w+\s+)?(?:prs?|pull\s+requests?|issues?|tickets?)\b|\bwhere\s+(?:is|are)\s+(?:the\s+)?(?:prs?|pull\s+requests?)\b",
    re.I,
)
# Contact details: a phone number wants digits in a phone's shape, an email address an address.
_ASKS_PHONE = re.compile(r"\b(?:phone|telephone|fax|dial-in)(?:\s+(?:number|no\.?))?\b", re.I)
_ASKS_EMAIL = re.compile(r"\be-?mail\s+address(?:es)?\b", re.I)
_ASKS_A_RATE = re.compile(
    r"\bper\s+(?:second|sec|minute|min|hour|day|week|month|year)\b|\b(?:what|which)\s+(?:(?:is|was|were|are|will)\s+)?"
    r"(?:(?:the|a|an|its|their|our)\s+)?(?:[\w-]+\s+){0,2}?rates?"
    # "what retry rate did", "the error rate of"; not "what rate limiting strategy" (a rate limit is a setting).
    r"(?=\s*(?:[?,.;:]|$)|\s+(?:of|for|per|in|at|to|on|from|with|did|does|do|was|is|were|are|will|has|have|had)\b)",
    re.I,
)


def value_asked(question: str, kind: str) -> str:
    """The value shape the best lines must state for this question: "amount", "version" (of a named product),
    "rate", "reference" (an issue, PR or ticket number), "phone number", "email address", or empty."""
    if _ASKS_AMOUNT.search(question):
        return "amount"
    if kind == "version" and version_of(question):
        return "version"
    if _ASKS_A_RATE.search(question):
        return "rate"
    if _ASKS_REFERENCE.search(question):
        return "reference"
    if _ASKS_PHONE.search(question) and re.search(r"\b(?:what|which)\b", question, re.I):
        return "phone number"
    if _ASKS_EMAIL.search(question):
        return "email address"
    return ""


def amount_word(question: str) -> str:
    """The stem of the money word an amount question asks for ("budget" in "Which budget did X get?"), or empty."""
    match = _ASKS_AMOUNT.search(question)
    return stem(match[1].lower()) if match else ""
