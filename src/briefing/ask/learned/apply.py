"""The learned model applied to scored evidence: each sentence's probability of answering, and the context's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from briefing.ask.learned.features import refusal_vector, sentence_matrix
from briefing.ask.learned.model import AnswerModel
from briefing.question.model import Question

if TYPE_CHECKING:
    from briefing.ask.extractive.evidence import Evidence


def rank(
    model: AnswerModel, question: Question, evidence: Sequence[Evidence], window: tuple[datetime, datetime] | None
) -> list[float]:
    """Set each sentence's score to the ranker's probability that it is (part of) the unit that answers, and
    return those probabilities. (Keeping the hand-set scorer's scale in the learned order instead
    was measured too, and was no better on the held-out dev sets.)"""
    probabilities = [float(p) for p in model.ranker.probability(sentence_matrix(question, evidence, window))]
    for ev, p in zip(evidence, probabilities, strict=True):
        ev.score = p
    return probabilities


def best_two(probabilities: Sequence[float]) -> dict[str, float]:
    """The two best sentences' probabilities, as question-level features (`confidence` reads them)."""
    top = sorted(probabilities, reverse=True)[:2]
    return {"best_p": top[0] if top else 0.0, "second_p": top[1] if len(top) > 1 else 0.0}


def confidence(model: AnswerModel, features: dict[str, float]) -> float:
    """P(the context answers), from the best sentences' probabilities (`best_two`) and the question-level features;
    the answer is refused below the model's own `threshold`."""
    x = refusal_vector(features, [features.get("best_p", 0.0), features.get("second_p", 0.0)])
    return float(model.refusal.probability(x[None, :])[0])
