"""Ranking the candidates: the fused score, an optional cross-encoder, and metadata boosts for what the question names.

Constraints from the question are soft boosts here; only kinds the user asked to restrict become hard filters
(`briefing.retrieve.query.hard_filter`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from briefing.retrieve.links import is_named_item
from briefing.retrieve.model import Hit
from briefing.retrieve.query import overlaps
from briefing.retrieve.versions import (
    VERSION_ITEM,
    VERSION_MENTION,
    exact_versions,
    names_version,
    one_item_per_document,
)
from briefing.settings import RetrievalSettings

if TYPE_CHECKING:
    from briefing.question.constraints import Constraints


class Reranker:
    """Optional cross-encoder (fastembed TextCrossEncoder) from a configured local model."""

    def __init__(self, settings: RetrievalSettings) -> None:
        self.settings = settings
        self._model: Any = None
        self.name = "fused score + metadata boosts (no cross-encoder configured)"
        if settings.reranker_model:
            self.name = f"cross-encoder {settings.reranker_model} + metadata boosts"

    def available(self) -> bool:
        return bool(self.settings.reranker_model)

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        if self._model is None:
            from fastembed.rerank.cross_encoder import TextCrossEncoder

            from briefing.errors import ModelError

            try:
                kwargs: dict[str, Any] = {}
                if self.settings.reranker_path:
                    kwargs["specific_model_path"] = str(self.settings.reranker_path)
                self._model = TextCrossEncoder(str(self.settings.reranker_model), **kwargs)
            except Exception as exc:
                raise ModelError(
                    f"reranker '{self.settings.reranker_model}' could not be loaded offline ({type(exc).__name__}): "
                    "set [retrieval] reranker_path to a local model folder or remove reranker_model"
                ) from None
        return [float(s) for s in self._model.rerank(query, list(texts))]


# -- rerank -----------------------------------------------------------------------------------------------
def boosts(
    settings: RetrievalSettings, hit: Hit, constraints: Constraints | None, about: bool = False
) -> dict[str, float]:
    """The metadata boosts a hit earns for what the question names (time, source, person, place, version, ticket)."""
    s = settings
    out: dict[str, float] = {}
    if constraints is None or not s.boosts:
        return out
    chunk = hit.chunk
    if constraints.time is not None and overlaps(chunk, constraints.time.start, constraints.time.end):
        out["time"] = s.boost_time
    if constraints.sources and chunk.source_type in constraints.sources:
        out["source"] = s.boost_source
    if constraints.people or constraints.person_ids:
        # Person ids first (one person across every source: briefing.people); names for older indexes.
        ids = set(constraints.person_ids)
        by = set(chunk.metadata.get("people") or ())
        mentioned = set(chunk.metadata.get("mentions") or ())
        authors = {a.lower() for a in chunk.authors}
        text = chunk.text.lower()
        if ids & by or any(p.lower() in authors for p in constraints.people):
            out["person"] = s.boost_person
        elif ids & mentioned or any(p.lower() in text for p in constraints.people):
            # Who someone is (their role, their start) is stated by others: a mention counts in full then.
            out["person"] = s.boost_person if about else s.boost_person / 2
    containers = [c.lower() for c in list(constraints.channels) + list(constraints.projects)]
    if containers and chunk.container.lower() in containers:
        out["container"] = s.boost_container
    if exact_versions(constraints):
        named = names_version(chunk, exact_versions(constraints))
        if named:
            out["version"] = s.boost_ticket * (VERSION_ITEM if named == 2 else VERSION_MENTION)
    if constraints.tickets:
        if is_named_item(chunk, constraints.tickets):
            # The ticket itself outranks the tickets and threads that merely mention it.
            out["ticket"] = s.boost_ticket * 1.5
        elif set(constraints.tickets) & set(chunk.tickets):
            out["ticket"] = s.boost_ticket
    return out


def rank(
    candidates: list[Hit],
    question: str,
    constraints: Constraints | None,
    *,
    settings: RetrievalSettings,
    reranker: Reranker,
    about: bool,
    time_first: bool,
    residual: str,
) -> list[Hit]:
    """Score every candidate (fused rank, the cross-encoder if configured, boosts) and sort them, best first."""
    top = max((h.fused for h in candidates), default=0.0) or 1.0
    ce_scores: list[float] | None = None
    if settings.rerank and reranker.available() and candidates:
        ce_scores = reranker.scores(question, [h.chunk.text for h in candidates])
    window = constraints.time if constraints is not None else None
    recency_weight = settings.boost_recency
    if constraints is not None and constraints.intent == "latest":
        recency_weight = settings.boost_recency_latest
    stamps = [h.chunk.end.timestamp() for h in candidates]
    oldest, newest = (min(stamps), max(stamps)) if stamps else (0.0, 0.0)
    for i, hit in enumerate(candidates):
        relevance = hit.fused / top
        if ce_scores is not None:
            relevance = 0.5 * relevance + 0.5 * _sigmoid(ce_scores[i])
        hit.boosts = boosts(settings, hit, constraints, about) if settings.rerank else {}
        if "direct" in hit.origin and constraints is not None:
            if is_named_item(hit.chunk, constraints.tickets):
                hit.boosts["direct"] = settings.boost_ticket
        if time_first and window is not None and len(residual.split()) < 2:
            # Nothing topical left in the question: order the window by recency instead of similarity.
            if overlaps(hit.chunk, window.start, window.end):
                span = max((window.end - window.start).total_seconds(), 1.0)
                end = min(hit.chunk.end, window.end)
                relevance = 0.5 + 0.5 * max(0.0, 1.0 - (window.end - end).total_seconds() / span)
            else:
                relevance *= 0.3
            # With no topic, the channel or person named is what the question is about.
            for kind in ("container", "person"):
                if kind in hit.boosts:
                    hit.boosts[kind] *= 2
        if recency_weight and settings.rerank and newest > oldest:
            hit.boosts["recency"] = recency_weight * (hit.chunk.end.timestamp() - oldest) / (newest - oldest)
        hit.score = relevance + sum(hit.boosts.values())
    if constraints is not None and exact_versions(constraints):
        one_item_per_document(candidates, settings.boost_ticket * VERSION_MENTION)
    return sorted(candidates, key=lambda h: (-h.score, h.chunk.chunk_id))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))
