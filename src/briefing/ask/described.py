"""Person-role questions about an item named by description, answered from the item's own state as of now.

"Who is doing the user management mockups?", "Who owns the ticket about removing the default login?", "Who
reviewed the PR that adds retries?": the question names no key, so retrieval finds the item, and the role is read
from the item's fields as the `View` holds them at `now` (assignee, reporter, reviewers, merger, organiser), cited
to the unit that states it, never taken from the writer of the best-ranked line. The item is the first of the few
best-ranked documents (the fact answer's first citation first) whose title and description cover most of the
question's topic words (half as much when it holds most of the context retrieval found) and which holds the role;
when none does, nothing is answered here: the fact path answers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from briefing.ask.fields import bare_title, compose, items_at, read_field
from briefing.ask.item_model import Item
from briefing.index.payload import doc_id
from briefing.question.field_asks import FIELD_ASKS
from briefing.question.terms import GENERIC, content_words, says

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.model import Chunk
    from briefing.question.model import Question
    from briefing.view import View

# How many of the best-ranked documents may be the item asked about.
MAX_CANDIDATES = 3
# The share of the question's topic words the item's own text must hold.
MIN_COVERED = 0.5
# An item that holds this share of the context retrieval gave the answerer was found by what the question means,
# not only by its words: a paraphrase of its title ("caps ... at 30 bits" for "Limit ... to 30-bit") needs to
# cover half as much.
DOMINANT = 0.6
# Words that name the kind of item, not what it is about ("the ticket about ...", "the PR that ...").
_ITEM_WORDS = content_words("ticket issue bug task story epic pr pull request change item card one thing work")
# A key people say: a ticket key ("PLAT-120") or a numbered issue or pull request ("PR #57").
_SAID_KEY = re.compile(r"[A-Z][A-Z0-9_]+-\d+|(?:PR|Issue) #\d+")
# A lower-to-upper case step inside an identifier ("TableView", "TiUITable"): where its words join.
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def topic_words(question: Question) -> set[str]:
    """What the question says the item is about: its content words less the role it asks and the item words."""
    text = question.text
    for _, pattern in FIELD_ASKS:
        text = pattern.sub(" ", text)
    return content_words(text) - _ITEM_WORDS - GENERIC


def candidates(answer: ExtractiveAnswer, evidence: Sequence[Chunk]) -> list[str]:
    """The documents the question may be about, best first: the fact answer's first cited one, then the context's."""
    doc_of = {ref: chunk.doc_key for chunk in evidence for ref in chunk.refs}
    first = [] if answer.no_answer or not answer.cited else answer.cited[min(answer.cited)]
    docs = [doc_of[ref] for ref in first if ref in doc_of] + [chunk.doc_key for chunk in evidence]
    return list(dict.fromkeys(docs))[:MAX_CANDIDATES]


def _words(text: str) -> set[str]:
    """Content words of a text, with its joined identifiers split too ("TableView" also says "table" and "view")."""
    return content_words(text) | content_words(_CAMEL.sub(" ", text))


def _share(said: set[str], words: set[str], named: set[str]) -> float:
    total = sum(2 if word in named else 1 for word in words)
    return sum(2 if word in named else 1 for word in words if says(said, word)) / total


def covered(item: Item, words: set[str], named: set[str], title: str) -> float:
    """How much of what the question says the item is about its title and its description (not the replies to
    it) say, half each; the names the question uses (a product, an identifier) count twice."""
    if not words:
        return 1.0
    own = " ".join(unit.text for unit in item.units if unit.ref == item.key)
    return (_share(_words(title), words, named) + _share(_words(own), words, named)) / 2


def _titled(item: Item, title: str) -> Item:
    """The item labelled with its key and its title, since the question named it by what it is about; by its
    title alone when its key is an id nobody says (a calendar event's uid)."""
    name = bare_title(item.key, title).strip()
    if not name:
        return item
    if not _SAID_KEY.fullmatch(item.label):
        return replace(item, label=f'"{name}"')
    return replace(item, label=f'{item.label} ("{name}")')


def answer_described(
    fields: Sequence[str], question: Question, answer: ExtractiveAnswer, evidence: Sequence[Chunk], view: View
) -> tuple[ExtractiveAnswer, str] | None:
    """The answer read from the item the question describes, with that item's key; None when no best-ranked item
    holds the asked roles and covers the question's topic."""
    docs = candidates(answer, evidence)
    titles = {chunk.doc_key: chunk.title for chunk in evidence}
    words = topic_words(question)
    named = set().union(*(content_words(name) for name in question.extra.get("named", ()))) & words
    held = Counter(chunk.doc_key for chunk in evidence)
    scored = [
        (covered(item, words, named, titles.get(item.key, "")), -n, item) for n, item in enumerate(items_at(view, docs))
    ]
    # The best covering of the best-ranked items that holds every role asked.
    for share, _, item in sorted(scored, key=lambda t: (t[0], t[1]), reverse=True):
        dominant = bool(evidence) and held[item.key] >= DOMINANT * len(evidence)
        if share < (MIN_COVERED / 2 if dominant else MIN_COVERED):
            continue
        titled = _titled(item, titles.get(item.key, ""))
        reads = [read_field(titled, field) for field in fields]
        if fields and all(reads):
            return compose([[r for r in reads if r is not None]], answer), item.key
    return None


# Question text: an item named by what it is about, with the definite article ("the ticket about the login page",
# "the directed KeyPackages pull request", "the bug that crashes on resume").
_THE_ITEM = re.compile(
    r"\bthe\s+(?:[\w.'/-]+\s+){0,6}?(?:ticket|issue|bug|pr|pull\s+request|epic|story|task|sub-?task)\b", re.I
)


def briefed_item(question: Question, topic: str, evidence: Sequence[Chunk], view: View) -> str | None:
    """The key of the item a briefing question names by description ("what happened in the ticket about X last
    week?"), so that its window is the item's own story as when its key is named; None when the question names no
    item that way or no best-ranked item covers what it says the item is about."""
    if not _THE_ITEM.search(question.text):
        return None
    words = content_words(topic) - _ITEM_WORDS - GENERIC
    if not words:
        return None
    named = set().union(*(content_words(name) for name in question.extra.get("named", ()))) & words
    titles = {chunk.doc_key: chunk.title for chunk in evidence}
    # Documents that are items themselves (a ticket, an issue, a pull request), not conversations that mention one.
    own = [c.doc_key for c in evidence if doc_id(c.doc_key) in c.tickets or "#" in doc_id(c.doc_key)]
    docs = list(dict.fromkeys(own))
    held = Counter(chunk.doc_key for chunk in evidence)
    best: tuple[float, str] | None = None
    for item in items_at(view, docs[:MAX_CANDIDATES]):
        share = covered(item, words, named, titles.get(item.key, ""))
        dominant = held[item.key] >= DOMINANT * len(evidence)
        if share >= (MIN_COVERED / 2 if dominant else MIN_COVERED) and (best is None or share > best[0]):
            best = (share, item.key)
    return None if best is None else best[1]
