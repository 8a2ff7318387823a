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
) -> None:
    """Set each sentence's score to the ranker's probability that it is (part of) the unit that answers."""
    probabilities = model.ranker.probability(sentence_matrix(question, evidence, window))
    for ev, p in zip(evidence, probabilities, strict=True):
        ev.score = float(p)


def confidence(model: AnswerModel, features: dict[str, float], evidence: Sequence[Evidence]) -> float:
    """P(the context answers), from the best sentences' probabilities (`rank` first) and the question-level
    features; the answer is refused below the model's own `threshold`."""
    x = refusal_vector(features, [e.score for e in evidence])
    return float(model.refusal.probability(x[None, :])[0])
