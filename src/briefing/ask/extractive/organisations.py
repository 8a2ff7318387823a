"""Whether a sentence names an organisation, for "Which company / organisation / vendor / university ... ?".

No entity model ships offline, so a name is read from how names are written: a run of capitalised words, a word
with inner capitals, or a short acronym, that is not a word of the question, not a person of the context, not a
calendar word and not a stop word, nor a common word capitalised because it opens a sentence ("Akvo" in "Join
Akvo and work with us", "IIT Delhi", "Metail are hiring"; not "Great news"). That cannot tell a
company from a product or a place ("Clojure", "Paris"), so it does not say which organisation a line names; it
says when the best lines name none at all ("I just got my first clojure job in paris" does not say which company
hired), and such a question is not answered by them (`refusal.VETO_KINDS`).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from briefing.ask.extractive.contentless import CHATTER
from briefing.embed.models import bundled_words
from briefing.question.terms import stem
from briefing.question.words import CALENDAR
from briefing.textrules import STOPWORDS

# Sentence text: a name as organisations are written: a capitalised word ("Akvo"), one with inner capitals
# ("DataZip", "GitHub"), or an acronym of two to four capitals ("IBM"), then more such words in a run ("IIT Delhi",
# "Deutsche Bank", "Procter & Gamble"). Not inside a link, a path, a mention or a channel name.
_NAME_RUN = re.compile(
    r"(?<![\w@#/.:'’-])(?:[A-Z][a-z]+[A-Z][\w]*|[A-Z]{2,4}\b|[A-Z][a-z][\w'’-]*)"
    r"(?:\s+(?:&\s+)?(?:[A-Z][a-z]+[A-Z][\w]*|[A-Z]{2,4}\b|[A-Z][a-z][\w'’-]*))*(?![\w/@.:-]*[/@])"
)
# Sentence text: where a sentence starts (the start, after a full stop, question or exclamation mark, a colon, a
# closing bracket or a line break), read on the few characters before a name.
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\]\n)]\s*)$")
# Capitalised words that name no organisation: acronyms of work ("API", "PR"), time zones and regions.
_NOT_ORGANISATION = frozenset(
    """api pr prs url ci cd ui ux sdk json http https sql csv cli os ide repl jvm js faq eta tbd fyi imo imho iirc
    afaik tl dr btw ok eu us uk usa cet cest utc gmt pst pdt est edt ist aest am pm id ids io ai ml qa hr ceo cto
    vp""".split()
)


def organisations(text: str, question: str, people: Collection[str] = ()) -> list[re.Match[str]]:
    """The names of `text` (`_NAME_RUN`, read as the module says) that `question` (lowercased) does not hold, nor
    `people` (names of the context's people, any case). A word that opens a sentence counts unless it is a common
    word (`common`): a name often opens its sentence ("Metail are hiring"), "Great news" does not name one."""
    persons = {p.lower() for name in people for p in name.split()}
    asked = set(re.findall(r"[a-z0-9][\w'’-]*", question))
    found: list[re.Match[str]] = []
    for m in _NAME_RUN.finditer(text):
        words = [w for w in m[0].split() if w != "&"]
        if _SENTENCE_START.search(text[max(0, m.start() - 3) : m.start()]) and common(words[0]):
            words = words[1:]  # capitalised by its place: "Great news", "Join Akvo"
        low = [w.lower().strip("'’") for w in words]
        if all(w in STOPWORDS or w in CALENDAR or w in _NOT_ORGANISATION or w in persons for w in low):
            continue
        if any(w in asked for w in low):
            continue
        found.append(m)
    return found


def common(word: str) -> bool:
    """Whether `word` is a common English word (the bundled model's vocabulary: `embed.models.bundled_words`) or
    a word of chat ("Congrats"), which a capital at a sentence's start does not make a name."""
    low = word.lower().strip("'’")
    return low in bundled_words() or stem(low) in CHATTER or low in STOPWORDS
