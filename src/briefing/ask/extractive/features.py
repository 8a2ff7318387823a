"""The question-level features the calibrated confidence reads, from the scored sentences and the workspace."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from briefing.ask.extractive.checks import role_stated, typed_near, value_miss
from briefing.ask.extractive.coverage import (
    asked_absent,
    head_miss,
    missing_share,
    missing_terms,
    off_context,
    topic_features,
    vocabulary_features,
    window_empty,
)
from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.refusal import VETO_KINDS, off_topic
from briefing.ask.extractive.scoring import Words
from briefing.ask.extractive.selection import TYPED_LEAD_CUTOFF
from briefing.ask.extractive.support import item_miss, pull_reference_miss, role_asked
from briefing.ask.vocabulary import Spread
from briefing.embed import Embedder
from briefing.model import Chunk
from briefing.question.answer_type import extra_of
from briefing.question.model import Question

if TYPE_CHECKING:
    from briefing.view import View


def question_features(
    question: Question,
    evidence: Sequence[Evidence],
    context: Sequence[Chunk],
    words: Words,
    window: tuple[datetime, datetime] | None,
) -> dict[str, float]:
    """What the scored sentences say about the question: how well the best of them match, whether they state the
    value (or the role) asked for, how much of the question the context holds."""
    q_words = words.question
    kind = question.answer_type
    best = max(evidence, key=lambda e: e.score, default=None)
    # One chunk holding most of the question (an answer) vs the words spread over several (a near miss).
    chunk_cover = max((sum(words.weight[w] for w in q_words & cw) / words.total for cw in words.chunks), default=0.0)
    coverage = sum(words.weight[w] for w in q_words if w in words.seen) / words.total if q_words else 0.0
    top = sorted(evidence, key=lambda e: -e.score)[:5]
    # A number or a date must be stated by a line close enough to lead the answer (`selection.TYPED_LEAD_CUTOFF`).
    leading = [e for e in top if e.score >= top[0].score * TYPED_LEAD_CUTOFF] if top else []
    near = typed_near(question, leading)
    role_miss = not role_stated(role_asked(question), top, extra_of(question)["numbers"])
    value = value_miss(question, top)
    # The answer slot: the best lines must be about the item the question names and hold the kind of reference asked.
    # A summary or timeline of a named item is told from that item's lines wherever they rank (its key may be all
    # the question says, and another ticket's link records match that better): any line about it will do.
    item = bool(item_miss(question, evidence if question.intent in {"what_happened", "summary"} else top))
    pull = pull_reference_miss(question, top)
    return {
        "chunk_cover": chunk_cover if q_words else 0.0,
        "typed_top": float(any(e.typed for e in top)) if kind else 1.0,
        "best_score": best.score if best else 0.0,
        "best_dense": max((e.dense for e in evidence), default=0.0),
        "best_lexical": max((e.lexical for e in evidence), default=0.0),
        "coverage": coverage,
        "missing_named": 1.0 if missing_terms(question, context) else 0.0,
        "window_empty": 1.0 if window_empty(context, window) else 0.0,
        "top_dense": max((e.dense for e in evidence if e.n == 1), default=0.0),
        "best_rank": float(best.n) if best else 0.0,
        "typed_near": near,
        "typed_miss": 1.0 if (kind in VETO_KINDS and not near) or role_miss or value or item or pull else 0.0,
        "value_miss": 1.0 if value or pull else 0.0,
        "item_miss": 1.0 if item else 0.0,
        "missing_share": missing_share(q_words, words.seen),
    }


def workspace_features(
    question: Question,
    context: Sequence[Chunk],
    words: Words,
    vectors: np.ndarray | None,
    spread: dict[str, Spread],
    embedder: Embedder,
    view: View,
) -> dict[str, float]:
    """What the workspace's vocabulary (`spread`, read through `view`) says about the question: its words in no
    source or only outside the context, how far those are from the scored sentences (`vectors`), how large the
    workspace is; and what a "which / what" question asks for, read against the workspace: its head noun in no
    source is a refusal (`head_miss`, capped); any word of the phrase in no source is a feature of the fit."""
    topic = extra_of(question)["topic_words"]
    near: dict[str, float] = {}
    unknown = [w for w in topic if w in spread and off_context(w, spread[w], context, words.seen)]
    if unknown and vectors is not None and len(vectors):
        # How close each uncovered word comes to any scored sentence: a paraphrase ("switchover" for
        # "cutover") stays near the evidence, an off-topic word ("sourdough") does not.
        w_vecs = embedder.dense_cached(unknown, max_chars=300)  # words recur: the vector cache keeps them
        near = {w: float(v) for w, v in zip(unknown, (vectors @ w_vecs.T).max(axis=0), strict=True)}
    return {
        **vocabulary_features(topic, spread, context, words.seen, near),
        **topic_features(topic, spread, words.seen),
        "workspace_chunks": float(view.count()),
        "head_miss": 1.0 if head_miss(question, spread, words.seen) else 0.0,
        "head_any_absent": 1.0 if asked_absent(question, spread, words.seen) else 0.0,
    }


def with_off_topic(features: dict[str, float]) -> dict[str, float]:
    features["off_topic"] = 1.0 if off_topic(features) else 0.0
    return features
