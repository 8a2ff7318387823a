"""Sentence scores: embedding similarity, rarity-weighted word overlap, the retriever's rank, the asked value's type."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from briefing.ask.extractive.evidence import SENTENCE_MAX_CHARS, Evidence, sentence_text
from briefing.ask.extractive.values import typed
from briefing.embed import Embedder
from briefing.model import ADDED_TO_CONTEXT, Chunk
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.terms import GENERIC, content_words

# The weights of a sentence's score: dense similarity, rarity-weighted word overlap, the retriever's rank of its
# chunk, and the answer type the question asks for. The rank's weight was chosen leaving one corpus out of six
# (docs/answering.md): where the best-scored line and the answering message differ, the answer's chunk ranks
# higher than the lead's about twice as often as lower, so the retriever's order is evidence, not only a tie-break.
DENSE_WEIGHT = 0.6
LEXICAL_WEIGHT = 0.3
PRIOR_WEIGHT = 0.09
TYPED_WEIGHT = 0.08
WINDOW_BONUS = 0.1
# A commit hash names one thing: the line that holds it is about it.
COMMIT_WEIGHT = 3.0


@dataclass
class Words:
    """The question's content words weighed over the context: rare there counts more."""

    question: set[str]
    weight: dict[str, float]
    total: float
    chunks: list[set[str]]  # each context chunk's content words (text and title)
    seen: set[str]  # every content word of the context


def strongest(context: Sequence[Chunk]) -> int:
    """How many chunks lead the context before those added after the strongest (`ADDED_TO_CONTEXT`)."""
    return next((i for i, c in enumerate(context) if c.metadata.get(ADDED_TO_CONTEXT)), len(context))


def word_weights(question: Question, context: Sequence[Chunk]) -> Words:
    """Rarity over the context itself: a word every chunk shares ("ledger") says little about which one answers;
    paraphrase-prone question words weigh less when they are missing."""
    asked = extra_of(question)
    q_words = set(asked["words"])  # a set that iterates as the question's own
    strong = strongest(context)  # chunks added after the strongest do not change what is rare among them
    n_chunks = max(strong, 1)
    chunk_words = [content_words(c.text) | content_words(c.title) for c in context]
    weight: dict[str, float] = {}
    for w in q_words:
        df = sum(1 for words in chunk_words[:strong] if w in words)
        weight[w] = math.log(1 + (n_chunks + 1) / (df + 0.5)) * (0.35 if w in GENERIC else 1.0)
        if w in asked["commits"]:
            weight[w] *= COMMIT_WEIGHT
    total = sum(weight.values()) or 1.0
    seen = set().union(*chunk_words) if chunk_words else set()
    return Words(q_words, weight, total, chunk_words, seen)


def prior(n: int, n_chunks: int) -> float:
    """The retriever's rank as evidence: 1 for the first of the `n_chunks` strongest chunks down to 1/n_chunks for
    the last; a chunk added after them ranks as the last (adding one leaves the others' priors as they were)."""
    return 1.0 - (min(n, max(n_chunks, 1)) - 1) / max(n_chunks, 1)


def score_sentences(
    question: Question,
    evidence: list[Evidence],
    context: Sequence[Chunk],
    words: Words,
    embedder: Embedder,
    *,
    pool: int,
    window: tuple[datetime, datetime] | None,
) -> np.ndarray | None:
    """Score every sentence in place; returns the vectors of the `pool` best by words (None when none was
    embedded), which the vocabulary features compare the question's unknown words with."""
    n_chunks = max(strongest(context), 1)
    q_words = words.question
    names = {a.split()[0] for c in context for a in c.authors if a}
    for ev in evidence:
        ev.words = content_words(ev.text)
        ev.lexical = sum(words.weight[w] for w in q_words & ev.words) / words.total if q_words else 0.0
        ev.typed = typed(question.answer_type, ev.text, names)
    ranked = sorted(evidence, key=lambda e: -(e.lexical + 0.5 * prior(e.n, n_chunks) + 0.2 * e.typed))[:pool]
    vectors = None
    if ranked:
        q_vec = embedder.query_dense(question.text)
        vectors = embedder.dense_cached([sentence_text(e) for e in ranked], max_chars=SENTENCE_MAX_CHARS)
        for ev, cos in zip(ranked, vectors @ q_vec, strict=True):
            ev.dense = float(cos)
    for ev in evidence:
        dense = ev.dense * (0.85 if len(ev.text) < 40 else 1.0)  # short rows and titles flatter the model
        ev.score = (
            DENSE_WEIGHT * dense
            + LEXICAL_WEIGHT * ev.lexical
            + PRIOR_WEIGHT * prior(ev.n, n_chunks)
            + TYPED_WEIGHT * ev.typed
        )
        if window is not None and ev.at_iso:
            # The question names a time; evidence from then outranks a better-worded line from another week.
            inside = window[0] <= datetime.fromisoformat(ev.at_iso) < window[1]
            ev.score += WINDOW_BONUS if inside else -WINDOW_BONUS / 2
    return vectors
