"""Training questions read from the structure of an index's conversations, each with the unit that resolves it.

A help thread's opening message asks and the replies by others answer: the reply just before the asker's thanks
resolves it, else the first reply by someone else. A ticket's or an issue's summary is answered the same way by
its comments and reviews. A document's section heading is answered by its section. The question's own text is
blanked from the conversation (so the root cannot answer itself); the context adds near misses, chunks of other
conversations sharing the question's rarest words, and a refusal example drops the conversation altogether.
With `short`, the question is reshaped the way a manager asks: the opener's first asking sentence (a ticket's
summary put as a question), a few words long, not the whole opening message.
"""

from __future__ import annotations

import math
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from briefing import registry
from briefing.ask.segment import split_sentences
from briefing.model import Chunk, Unit
from briefing.question.terms import content_words

# Message text: the asker acknowledging an answer ("thanks, that worked", "solved it", "ty").
_THANKS = re.compile(r"\b(?:thanks?|thank you|thx|ty|worked|works now|solved|fixed it|got it|perfect)\b", re.I)
# Chunk title: a ticket's or an issue's "<key or repo#n>: <summary>".
_KEYED_TITLE = re.compile(r"^\S+[-#]\d+: (.+)$")
# Message text: a greeting or a courtesy opening a message ("Hi all,", "Hey team -", "Hello everyone!").
_GREETING = re.compile(r"^(?:hi|hey|hello|good (?:morning|afternoon|evening))\b[^.!?,:\n-]{0,20}[,.!:-]+\s*", re.I)
# How a ticket's or an issue's summary (a statement) is asked about; one per example, seeded.
_ASKS = (
    "What was done about {}?",
    "How was {} resolved?",
    "What is the fix for {}?",
    "What happened with {}?",
    "Who looked into {}?",
    "What is the status of {}?",
)
SHORT_WORDS = 18
MIN_WORDS = 3
HEADING_WORDS = 2
QUESTION_CHARS = 300


@dataclass(frozen=True)
class Example:
    """One question, the context it is asked over, and the refs of the unit that resolves it."""

    question: str
    now: datetime
    context: tuple[Chunk, ...]  # with the conversation (positive) or without it (a near miss: refusal)
    resolving: frozenset[str]  # empty for a refusal example
    corpus: str = ""


def conversation(chunk: Chunk) -> str:
    """The conversation a chunk belongs to: its thread (a channel's document holds many), else its document."""
    root = registry.meta(chunk, "thread_root")
    return f"{chunk.doc_key}#{root}" if root else chunk.doc_key


def conversations(chunks: Sequence[Chunk]) -> dict[str, list[Chunk]]:
    """The chunks of each conversation in order."""
    docs: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        docs[conversation(chunk)].append(chunk)
    for parts in docs.values():
        parts.sort(key=lambda c: (c.ordinal, c.start))
    return dict(docs)


def short_question(text: str, rng: random.Random, *, summary: bool) -> str:
    """`text` (an opening message, or a ticket's summary when `summary`) as a short question: its first sentence
    that asks, else its first sentence, without a greeting and cut to SHORT_WORDS words."""
    parts = [_GREETING.sub("", p).strip() for p in split_sentences(" ".join(text.split()))]
    parts = [p for p in parts if len(p.split()) >= MIN_WORDS] or [" ".join(parts) or text.strip()]
    first = next((p for p in parts if p.endswith("?")), parts[0])
    words = first.rstrip("?.!: ").split()[:SHORT_WORDS]
    said = " ".join(words)
    if first.endswith("?") and len(words) < SHORT_WORDS:
        return said + "?"
    if not summary and said[:1].isupper():
        said = said[0].lower() + said[1:]
    return rng.choice(_ASKS).format(said)


def _asked(parts: list[Chunk]) -> tuple[str, str | None, str] | None:
    """(question, asker, ref of the unit to blank) of a conversation, or None when it asks nothing readable."""
    first = parts[0]
    keyed = _KEYED_TITLE.match(first.title)
    units = [u for c in parts for u in c.units]
    if not units:
        return None
    if keyed:
        return keyed[1], units[0].author, ""
    root = registry.meta(first, "thread_root")
    head = next((u for u in first.units if root and u.ref.endswith(root)), None)
    if head is not None and head.author:
        return head.text[:QUESTION_CHARS], head.author, head.ref
    return None


def _resolving(units: list[Unit], asker: str | None, blank: str) -> Unit | None:
    """The reply before the asker's thanks, else the first reply by someone other than the asker."""
    replies = [u for u in units if u.ref != blank]
    for before, after in zip(replies, replies[1:], strict=False):
        if after.author == asker and before.author != asker and _THANKS.search(after.text):
            return before
    return next((u for u in replies if u.author and u.author != asker and len(u.text) >= 20), None)


def _blanked(chunk: Chunk, blank: str, title: bool) -> Chunk:
    units = [replace(u, text="") if u.ref == blank else u for u in chunk.units]
    return replace(
        chunk, units=units, text="\n".join(u.text for u in units if u.text), title="" if title else chunk.title
    )


class NearMisses:
    """Chunks that share a question's rarest words, from other documents (inverse document frequency)."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = list(chunks)
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, chunk in enumerate(self.chunks):
            for w in content_words(chunk.text) | content_words(chunk.title):
                self.postings[w].append(i)

    def find(self, question: str, key: str, k: int) -> list[Chunk]:
        n = len(self.chunks)
        score: dict[int, float] = defaultdict(float)
        for w in content_words(question):
            hits = self.postings.get(w, [])
            if hits and len(hits) < n / 2:
                idf = math.log(1 + n / len(hits))
                for i in hits:
                    score[i] += idf
        ranked = sorted(score, key=lambda i: (-score[i], i))
        return [self.chunks[i] for i in ranked if conversation(self.chunks[i]) != key][:k]


def examples(
    chunks: Sequence[Chunk], *, rng: random.Random, limit: int, near: int = 7, corpus: str = "", short: bool = False
) -> list[Example]:
    """Up to `limit` answerable examples and as many refusal examples (near misses only) from `chunks`; `short`
    reshapes each opener into a short question (`short_question`)."""
    misses = NearMisses(chunks)
    out: list[Example] = []
    docs = conversations(chunks)
    keys = sorted(docs)
    rng.shuffle(keys)
    # A document answers one heading per section: its conversations are its sections, several per document.
    keys = [k for k in keys for _ in range(min(3, len(docs[k])) if registry.meta(docs[k][0], "section_path") else 1)]
    for key in keys:
        if len(out) >= 2 * limit:
            break
        parts = docs[key]
        sectioned = registry.meta(parts[0], "section_path")
        if sectioned:
            found = _section(parts, rng)
            if found is None:
                continue
            question, target, answer = found
            now = target.end + timedelta(days=1)
            if len(content_words(question)) < HEADING_WORDS:
                continue
        else:
            asked = _asked(parts)
            if asked is None:
                continue
            question, asker, blank = asked
            if short:
                question = short_question(question, rng, summary=not blank)
            reply = _resolving([u for c in parts for u in c.units], asker, blank)
            if reply is None:
                continue
            answer = reply
            holder = next(c for c in parts if any(u.ref == answer.ref for u in c.units))
            target = _blanked(holder, blank, title=not blank)
            now = max(c.end for c in parts) + timedelta(days=1)
        if not sectioned and len(content_words(question)) < MIN_WORDS:
            continue
        others = misses.find(question, key, near)
        at = rng.randint(0, min(3, len(others)))
        positive = (*others[:at], target, *others[at:])
        out.append(Example(question, now, positive, frozenset({answer.ref}), corpus))
        out.append(Example(question, now, tuple(others), frozenset(), corpus))
    return out


def _section(parts: list[Chunk], rng: random.Random) -> tuple[str, Chunk, Unit] | None:
    """A section heading as the question, its chunk (the heading blanked from the title) and its first unit."""
    chunk = rng.choice(parts)
    heading = registry.meta(chunk, "section_path").split(">")[-1].strip()
    unit = next((u for u in chunk.units if len(u.text) >= 40), None)
    if unit is None or not heading:
        return None
    return heading, replace(chunk, title=""), unit
