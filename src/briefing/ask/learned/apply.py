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

# How far above the rules' best line the model's lead is put: enough to sort first, too little to change which
# runner-ups are close to it.
LEAD_MARGIN = 1e-4


def features(
    question: Question, evidence: Sequence[Evidence], window: tuple[datetime, datetime] | None
) -> tuple[np.ndarray, list[float]]:
    """The sentence features of freshly scored `evidence` and the rules' scores: the reranking rules are applied
    first (they set each sentence's score), so the model reads the rules' order beside the general features."""
    from briefing.ask.extractive.ranking import rerank

    rerank(question, list(evidence))
    rules = [ev.score for ev in evidence]
    return sentence_matrix(question, evidence, window, rules), rules


def lead(rules: Sequence[float], probabilities: Sequence[float], blend: float) -> int:
    """The line the model puts first: the best of each line's rules' score times (p / best p) ** `blend` (0 keeps
    the rules' first line; a larger blend follows the model further)."""
    best = max(probabilities, default=0.0)
    top, at = float("-inf"), 0
    for i, (score, p) in enumerate(zip(rules, probabilities, strict=True)):
        share = max(p / best, 1e-6) ** blend if best > 0 else 1.0
        value = score * share if score >= 0 else score / share
        if value > top:
            top, at = value, i
    return at


def rank(
    model: AnswerModel, question: Question, evidence: Sequence[Evidence], window: tuple[datetime, datetime] | None
) -> list[float]:
    """Let the model choose the lead line among the rules' scored lines, and return every line's probability of
    belonging to the unit that answers. Every line keeps its rules' score; the model's lead (`lead`) is raised
    just above the rules' best, so the lines the rules would cite beside their best are still read as close to it
    (the selection's runner-up cut-off): the model picks what answers, the rules how much more is quoted."""
    matrix, rules = features(question, evidence, window)
    probabilities = [float(p) for p in model.ranker.probability(matrix)]
    if evidence:
        top = max(rules)
        chosen = lead(rules, probabilities, model.blend)
        if rules[chosen] < top:
            evidence[chosen].score = top + max(abs(top), 1.0) * LEAD_MARGIN
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
