"""General features of scored evidence sentences (for ranking) and of a whole context (for refusal)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from briefing import registry
from briefing.model import Chunk
from briefing.question.model import Question

if TYPE_CHECKING:
    from briefing.ask.extractive.evidence import Evidence

SENTENCE_FEATURES = (
    "dense",
    "dense_gap",
    "lexical",
    "lexical_gap",
    "typed",
    "prior",
    "window",
    "root",
    "reply",
    "by_asker",
    "asker_next",
    "position",
    "piece",
    "recency",
    "log_len",
    "short",
    "asks",
    "section",
    "rules",
    "rules_gap",
    "rules_rr",
    "q_value",
    "q_how",
    "q_latest",
)
# `q_*` are the question's own shape, the same on every sentence of it, so trees can read a sentence's features
# differently by what is asked: a value (a number, version, time, setting or person), how or why something was
# done or fixed, or the latest state.
# `rules*` are the hand-set scorer's and reranking rules' own reading of the sentence (its score, its distance to
# the best, the reciprocal of its rank): the model re-scores the rules' order and learns where to depart from it.
# The source's shape enters as `section` (a sectioned document) and through the conversation roles (root, reply,
# asker) only: whether a chunk is a channel's messages or a thread is left out, because a training example's
# answer is always a thread's reply or a section (a channel's loose messages never resolve one), and a weight
# learned from that would be the sampling's, not the data's.
REFUSAL_FEATURES = (
    "best_p",
    "p_margin",
    "rules_conf",
)
_DECADE = math.log1p(3650.0)
# Question text: asks how or why something happened or was fixed ("how was X resolved?", "what is the fix for").
_ASKS_HOW = re.compile(r"\b(?:how|why|fix\w*|solv\w*|resol\w*|workaround|work around|cause\w*)\b", re.I)


def question_shape(question: Question) -> tuple[float, float, float]:
    """The q_* features: whether `question` asks for a value, how or why, or the latest state."""
    return (
        float(bool(question.answer_type)),
        float(bool(_ASKS_HOW.search(question.text))),
        float(question.intent == "latest"),
    )


def _root(chunk: Chunk) -> int:
    """The index of the unit that opened the chunk's conversation, or -1 (not threaded, or opened elsewhere)."""
    root = registry.meta(chunk, "thread_root")
    if not root:
        return -1
    return next((i for i, u in enumerate(chunk.units) if u.ref.endswith(root)), -1)


def _reciprocal_ranks(scores: Sequence[float]) -> list[float]:
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    out = [0.0] * len(scores)
    for rank, i in enumerate(order):
        out[i] = 1.0 / (1 + rank)
    return out


def sentence_matrix(
    question: Question,
    evidence: Sequence[Evidence],
    window: tuple[datetime, datetime] | None,
    rules: Sequence[float],
) -> np.ndarray:
    """One row of SENTENCE_FEATURES per sentence of `evidence` (already scored by `scoring.score_sentences`);
    `rules` holds each sentence's score after the reranking rules."""
    if not evidence:
        return np.zeros((0, len(SENTENCE_FEATURES)))
    best_rules = max(rules)
    ranks = _reciprocal_ranks(rules)
    n_chunks = max(e.n for e in evidence)
    best_dense = max(e.dense for e in evidence)
    best_lexical = max(e.lexical for e in evidence)
    roots: dict[int, int] = {}
    shape = question_shape(question)
    rows = []
    for i, ev in enumerate(evidence):
        chunk = ev.chunk
        key = id(chunk)
        if key not in roots:
            roots[key] = _root(chunk)
        root = roots[key]
        units = chunk.units
        asker = units[root].author if root >= 0 else None
        nxt = units[ev.unit + 1].author if ev.unit + 1 < len(units) else None
        inside = 0.0
        at = datetime.fromisoformat(ev.at_iso) if ev.at_iso else None
        if window is not None and at is not None:
            inside = 1.0 if window[0] <= at < window[1] else -1.0
        age = max((question.now - at).total_seconds() / 86400.0, 0.0) if at is not None else 365.0
        rows.append(
            (
                ev.dense,
                ev.dense - best_dense,
                ev.lexical,
                ev.lexical - best_lexical,
                ev.typed,
                1.0 - (ev.n - 1) / n_chunks,
                inside,
                float(ev.unit == root),
                float(root >= 0 and ev.unit != root),
                float(asker is not None and ev.unit != root and ev.author == asker),
                float(asker is not None and nxt == asker and ev.author != asker),
                ev.unit / max(len(units) - 1, 1),
                min(ev.piece, 4) / 4.0,
                math.log1p(age) / _DECADE,
                math.log1p(len(ev.text)) / 6.0,
                float(len(ev.text) < 40),
                float("?" in ev.text),
                float(bool(registry.meta(chunk, "section_path"))),
                rules[i],
                rules[i] - best_rules,
                ranks[i],
                *shape,
            )
        )
    return np.asarray(rows, dtype=float)


def refusal_vector(features: dict[str, float], probabilities: Sequence[float]) -> np.ndarray:
    """REFUSAL_FEATURES from the ranker's probabilities and the question-level features (`extractive.features`)."""
    top = sorted(probabilities, reverse=True)
    best = top[0] if top else 0.0
    second = top[1] if len(top) > 1 else 0.0
    own = {"best_p": best, "second_p": second, "p_margin": best - second}
    return np.asarray([own[k] if k in own else features.get(k, 0.0) for k in REFUSAL_FEATURES], dtype=float)
