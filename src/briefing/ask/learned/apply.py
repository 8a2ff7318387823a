"""The learned model applied to scored evidence: each sentence's probability of answering, and the context's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from briefing.ask.learned.features import refusal_vector, sentence_matrix
from briefing.ask.learned.model import AnswerModel
from briefing.question.model import Question

if TYPE_CHECKING:
    from briefing.ask.extractive.evidence import Evidence


def features(
    question: Question, evidence: Sequence[Evidence], window: tuple[datetime, datetime] | None
) -> tuple[np.ndarray, list[float]]:
    """The sentence features of freshly scored `evidence` and the rules' scores: the reranking rules are applied
    first (they set each sentence's score), so the model reads the rules' order beside the general features."""
    from briefing.ask.extractive.ranking import rerank

    rerank(question, list(evidence))
    rules = [ev.score for ev in evidence]
    return sentence_matrix(question, evidence, window, rules), rules


def rank(
    model: AnswerModel, question: Question, evidence: Sequence[Evidence], window: tuple[datetime, datetime] | None
) -> list[float]:
    """Re-score the rules' sentences with the ranker's probability that each is (part of) the unit that answers,
    and return those probabilities. A sentence keeps its rules' score times (p / best p) ** `model.blend`: 0 is
    the rules' order, larger values let the model demote what it doubts, and the score keeps the rules' scale, so
    the selection's cut-offs (how close a runner-up is to the best line) read as under the rules."""
    matrix, rules = features(question, evidence, window)
    probabilities = [float(p) for p in model.ranker.probability(matrix)]
    best = max(probabilities, default=0.0)
    for ev, score, p in zip(evidence, rules, probabilities, strict=True):
        share = max(p / best, 1e-6) ** model.blend if best > 0 else 1.0
        ev.score = score * share if score >= 0 else score / share
    return probabilities


def best_two(probabilities: Sequence[float]) -> dict[str, float]:
    """The two best sentences' probabilities, as question-level features (`confidence` reads them)."""
    top = sorted(probabilities, reverse=True)[:2]
    return {"best_p": top[0] if top else 0.0, "second_p": top[1] if len(top) > 1 else 0.0}


def confidence(model: AnswerModel, features: dict[str, float]) -> float:
    """P(the context answers), from the best sentences' probabilities (`best_two`), the question-level features
    and the rules' own calibrated confidence (`rules_conf`); refused below the model's own `threshold`."""
    from briefing.ask.extractive.refusal import confidence as rules_confidence

    given = {**features, "rules_conf": rules_confidence(features)}
    x = refusal_vector(given, [features.get("best_p", 0.0), features.get("second_p", 0.0)])
    return float(model.refusal.probability(x[None, :])[0])
