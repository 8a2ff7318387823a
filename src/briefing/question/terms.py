"""Content words: the tokeniser, stemmer and word lists that both the question reading and the answer stage use."""

from __future__ import annotations

import re
from collections.abc import Iterator

from briefing.textrules import STOPWORDS

# A word as both sides tokenise it: letters and digits, with inner dots, dashes and underscores ("v0.9", "pg-bouncer").
TOKEN = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")
QUESTION_WORDS = frozenset(
    """what who whom whose when where which why how did does do was were is are has have had happen happened
    tell me about any anyone anything there we our us you your it its they their be been being can could should
    would will shall may might must week month day today yesterday last past since ago recently latest current
    currently now still please know""".split()
)
# Question vocabulary that paraphrases rather than names the topic: missing from the evidence it says little.
GENERIC = frozenset(
    """many much long big bigger large fast slow often old new get got go going gone use used show shown say said
    give make made take thing things way lot kind sort part point set put keep come came find found look like
    want need first next one two time times happen anything something someone everyone team people work working
    worked summary summarise summarize overview recap update status stand stands plan planned actually really
    right wrong bad good worst best""".split()
)
CALENDAR = frozenset(
    "january february march april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday".split()
)
# Roles are named in messages by the person ("Ruth"), rarely by title; their absence says nothing.
ROLES = frozenset("ceo cto cfo coo cio ciso vp em pm tpm sre qa hr it ic".split())


def stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _words(text: str) -> Iterator[str]:
    for tok in TOKEN.findall(text.lower()):
        tok = tok.strip(".-")
        if len(tok) < 2 or tok in STOPWORDS or tok in QUESTION_WORDS:
            continue
        yield stem(tok)
        if "-" in tok:  # "money-movement" also matches "money" and "movement"
            yield from (stem(p) for p in tok.split("-") if len(p) > 2 and p not in STOPWORDS)


def content_words(text: str) -> set[str]:
    """The stems of the words that say what a text is about (no stop words, no question words)."""
    return set(_words(text))


def ordered_content_words(text: str) -> tuple[str, ...]:
    """`content_words` in the order the text first says them (a set built from it iterates as theirs does, so
    sums over it add up in the same order)."""
    return tuple(dict.fromkeys(_words(text)))
