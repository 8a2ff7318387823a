"""Content words: the tokeniser and stemmer the question reading and the answer stage share (lists in `words`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from briefing.question.words import CALENDAR, GENERIC, QUESTION_WORDS, ROLES
from briefing.textrules import STOPWORDS, TICKET_KEY

__all__ = [
    "CALENDAR",
    "GENERIC",
    "QUESTION_WORDS",
    "ROLES",
    "TOKEN",
    "content_words",
    "names_title",
    "ordered_content_words",
    "says",
    "stem",
]

# A word as both sides tokenise it: letters and digits, with inner dots, dashes and underscores ("v0.9", "pg-bouncer").
TOKEN = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")


def stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _token_words(tok: str) -> tuple[str, ...]:
    """What one token says: its stem, and a hyphenated word's parts' stems; nothing for a stop or question word."""
    tok = tok.strip(".-")
    if len(tok) < 2 or tok in STOPWORDS or tok in QUESTION_WORDS:
        return ()
    out = [stem(tok)]
    if "-" in tok:  # "money-movement" also matches "money" and "movement"
        out.extend(stem(p) for p in tok.split("-") if len(p) > 2 and p not in STOPWORDS)
    return tuple(out)


# Each token's words, kept for the process: the answer stage reads the content words of every candidate sentence,
# and most of their tokens were met before (at most this many are kept; past it the memo starts again).
TOKENS_KEPT = 200_000
_TOKEN_WORDS: dict[str, tuple[str, ...]] = {}


def _tokens(text: str) -> Iterator[tuple[str, ...]]:
    memo = _TOKEN_WORDS
    for tok in TOKEN.findall(text.lower()):
        found = memo.get(tok)
        if found is None:
            if len(memo) >= TOKENS_KEPT:
                memo.clear()
            found = memo[tok] = _token_words(tok)
        yield found


def _words(text: str) -> Iterator[str]:
    for found in _tokens(text):
        yield from found


def content_words(text: str) -> set[str]:
    """The stems of the words that say what a text is about (no stop words, no question words)."""
    out: set[str] = set()
    for found in _tokens(text):
        out.update(found)
    return out


def ordered_content_words(text: str) -> tuple[str, ...]:
    """`content_words` in the order the text first says them (a set built from it iterates as theirs does, so
    sums over it add up in the same order)."""
    return tuple(dict.fromkeys(_words(text)))


# A text names a conversation by its title when it holds at least this share of the title's content words, and at
# least two of them: 'What happened with "Parquet export drops the footer"?' names that ticket.
TITLE_NAMED = 0.8
# Chunk title: what brief adds to a title that no one says when naming it: a ticket's key ("PLAT-7: "), an issue's
# or pull request's repository and number ("org/repo#12: "), a chat thread's place and ellipsis ("#help thread:
# <opening words>..."), emoji codes (":rocket:").
_TITLE_DECOR = re.compile(
    rf"^(?:{TICKET_KEY.pattern}):\s*|^[\w.-]+/[\w.-]+#\d+:\s*|^#\S+\s+thread:\s*|(?:\.\.\.|\u2026)\s*$|:[a-z0-9_+-]+:"
)


def names_title(words: set[str], title: str) -> float:
    """How closely a text of content `words` (`content_words`) names a conversation titled `title`: 0 unless it
    holds `TITLE_NAMED` of the title's words, else the words' overlap (shared over all), so that of two titles both
    named, the one the text says more fully wins ("Parquet export of large files is slow" is also 4/5 named by a
    question quoting "Parquet export drops the footer on large files")."""
    own = content_words(_TITLE_DECOR.sub("", title))
    if len(own) < 2 or len(own & words) < TITLE_NAMED * len(own):
        return 0.0
    return len(own & words) / len(own | words)


def says(said: set[str], word: str) -> bool:
    """Whether a text whose content words are `said` says `word`, or a longer word it begins ("arm" in "arm64",
    "login" in "logins")."""
    return word in said or (len(word) >= 3 and any(w.startswith(word) for w in said))
