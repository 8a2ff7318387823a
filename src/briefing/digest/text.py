"""Extractive text for briefing lines: clean sentences, signals (decided, resolved, released...), the gist.

Ingested text is data: control characters and terminal escapes are removed before anything is shown.
"""

from __future__ import annotations

import re

from briefing.textrules import find_ticket_keys, own_words

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(`*@#])")
_URL = re.compile(r"https?://\S+")
_EMOJI = re.compile(r":[a-z0-9_+-]+:")
_MENTION = re.compile(r"^(?:@[\w.-]+[\s,:]*)+")

# "incident": an alert that fired counts; "monitoring, dashboards and alerting" in a feature post does not.
SIGNALS: dict[str, re.Pattern[str]] = {
    "incident": re.compile(
        r"(?<![\w-])(?:incident|outage|sev\s?[0-3]|postmortem|post-mortem|paged|pager|rollback|rolled\s+back|5xx|"
        r"degraded|downtime|alerts?|firing)\b|\[(?:low|high|critical)\]",
        re.I,
    ),
    "decided": re.compile(
        r"\b(?:decided|decision|we(?:'ll| will)\s+(?:go|use|switch|move)|agreed|approved|going\s+with|"
        r"supersedes|adr-?\d+)\b",
        re.I,
    ),
    "released": re.compile(r"\b(?:released|shipped|deployed\s+to\s+production|is\s+(?:live|out)|went\s+out)\b", re.I),
    "merged": re.compile(r"\b(?:merged|merge[ds]?\s+(?:the\s+)?(?:pr|pull)|landed)\b", re.I),
    "resolved": re.compile(
        r"\b(?:fixed|resolved|solved|works?\s+now|working\s+now|it\s+worked|that\s+worked|done\b|closed|"
        r"found\s+it|root\s+cause|the\s+(?:fix|issue|problem)\s+(?:was|is)|turned\s+out|was\s+caused\s+by)",
        re.I,
    ),
    # A ticket's status transition as its history states it ("In Progress -> Done", "status: Blocked").
    "status": re.compile(
        r"(?:\bstatus\s*(?:changed\s*)?(?:to|:)|\bmoved\s+to|→|->)\s*['\"]?"
        r"(?:to\s+do|in\s+progress|in\s+review|blocked|done|won't\s+do|reopened)\b",
        re.I,
    ),
}
_FILLER = re.compile(
    r"^(?:thanks?(?:\s+you)?|thank\s+you|thx|ty|ok(?:ay)?|sure|great|cool|nice|awesome|perfect|got\s+it|"
    r"\+1|lgtm|yes|no|yep|nope|done|will\s+do|on\s+it|looking|checking|full\s+logs?.*|logs?\s+attached.*|"
    r"see\s+(?:above|attached|below).*|any\s+update\??|bump|hi|hello|hey)\W*$",
    re.I,
)
_QUESTION = re.compile(r"\?\s*$|^(?:how|what|why|when|where|which|who|is|are|can|could|does|do|did|should)\b", re.I)


_CODE_BLOCK = re.compile(r"```.*?(?:```|$)", re.S)


def neutral(text: str) -> str:
    """Text safe for a terminal and a Markdown line: no escapes or control characters, no emoji codes, one line."""
    text = _EMOJI.sub(" ", _ANSI.sub("", text))
    text = _CONTROL.sub(" ", text)
    return " ".join(text.split())


def _own(text: str) -> str:
    """A unit's own words, without the lines it quotes ("> ...") from an earlier message; a unit that only quotes
    keeps them, so it still reads as something."""
    return own_words(text) or text


def sentences(text: str) -> list[str]:
    """Sentences of one unit's text, cleaned: its own words (`_own`)."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=[-*•]\s)|\n(?=#)", _own(text)):
        for sentence in _SENTENCE.split(neutral(block)):
            sentence = sentence.strip(" -*•#>").rstrip(" ,;:")
            if sentence:
                out.append(sentence)
    return out


def short(text: str, limit: int = 160) -> str:
    text = neutral(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:-(") + "…"


def words(text: str) -> list[str]:
    plain = _URL.sub(" ", _EMOJI.sub(" ", text))
    return re.findall(r"[A-Za-z0-9][A-Za-z0-9_.'/-]*", plain)


def is_filler(text: str) -> bool:
    plain = neutral(_EMOJI.sub(" ", _URL.sub(" ", text))).strip()
    return not plain or bool(_FILLER.match(plain)) or len(words(plain)) < 3


def is_question(text: str) -> bool:
    plain = neutral(_own(text))  # a reply quoting the question it answers asks nothing
    return "?" in plain or bool(_QUESTION.search(plain))


def signals(text: str) -> set[str]:
    return {name for name, pattern in SIGNALS.items() if pattern.search(text)}


def informativeness(sentence: str) -> float:
    """How much a sentence says on its own: length in a useful range, numbers and names, signal words."""
    n = len(words(sentence))
    if n < 3:
        return 0.0
    score = min(n, 25) / 25
    if n > 60:
        score -= 0.3
    if re.search(r"\d", sentence):
        score += 0.2
    if re.search(r"`[^`]+`", sentence) or find_ticket_keys(sentence):
        score += 0.2
    score += 0.4 * len(signals(sentence) - {"status"})
    if sentence.count("|") >= 3:  # a table row flattened into a line reads as noise
        score -= 1.0
    if is_filler(sentence):
        score -= 1.0
    return score


def gist(text: str, limit: int = 150) -> str:
    """The first informative sentence of a message (the question or report a conversation opens with)."""
    plain = _MENTION.sub("", neutral(_own(text)))
    # A pasted log or code block says what was pasted, not what was asked: the words around it come first.
    prose = _CODE_BLOCK.sub(" ", plain)
    found = sentences(prose) if prose.strip() else []
    if not found:
        found = sentences(plain)
    if not found:
        return short(plain, limit)
    first = found[0]
    # "Hi all," / "Hey team!" openers say nothing: take what follows.
    for sentence in found:
        if not is_filler(sentence):
            first = sentence
            break
    return short(first, limit)


def best_sentence(text: str, limit: int = 220) -> tuple[str, float]:
    """The most informative sentence of a unit, and its score."""
    found = [s for s in sentences(_MENTION.sub("", neutral(_own(text)))) if s]
    if not found:
        return "", 0.0
    scored = sorted(((informativeness(s), -i, s) for i, s in enumerate(found)), reverse=True)
    score, _, sentence = scored[0]
    return short(sentence, limit), score
