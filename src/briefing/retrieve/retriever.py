"""Hybrid retrieval and rerank: one query's candidate lists, fused, ranked and spread.

Dense and BM25 candidates are fetched separately and fused by reciprocal rank fusion (so the trace can show
each list's rank). Constraints from the question become soft boosts by default; only kinds the user asked to
restrict ("only from JIRA"), or every kind when `constraint_mode = "filter"`, become hard Qdrant filters.
Ticket keys and PR numbers pull their items in directly, whatever their similarity, and "what happened" questions
over a time window also take the window's newest chunks as candidates.

Every retrieval reads the index through a View as of its query's `now` (DESIGN.md): nothing written after it is
visible, and chunks that were cut to `now` (replies written later) are re-scored on the text that remains.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from briefing.embed import Embedder
from briefing.question.constraints import about_person
from briefing.retrieve.candidates import Candidates
from briefing.retrieve.links import follow_links
from briefing.retrieve.model import Hit, Retrieval, SearchQuery
from briefing.retrieve.query import hard_filter, residual_query
from briefing.retrieve.rerank import Reranker, rank
from briefing.retrieve.spread import diversify
from briefing.retrieve.units import unit_list, within_document
from briefing.retrieve.versions import asks_newest, newest_version_first
from briefing.settings import RetrievalSettings

if TYPE_CHECKING:
    from datetime import datetime

    from briefing.index import Index
    from briefing.view import View

log = logging.getLogger(__name__)
# The weight of the named person's own list in the fusion (1.0: as much as the dense or the BM25 list).
PERSON_LIST_WEIGHT = 0.5
# A question about who a named person is (constraints.about_person) skips their own list and counts mentions of
# them as much as their messages.
PERSON_ABOUT = True


class Retriever:
    """Retrieval over an index, read through a View as of each query's `now` (in the index's access scope)."""

    def __init__(self, settings: RetrievalSettings, index: Index, embedder: Embedder) -> None:
        self.settings = settings
        self.index = index
        self.embedder = embedder
        self.reranker = Reranker(settings)

    def view(self, now: datetime) -> View:
        """What a query asked at `now` reads: the index as of then, in the reader's access scope."""
        return self.index.view(now)

    def _query_vector(self, query: str) -> Any:
        return self.embedder.query_dense(query)

    def retrieve(self, query: SearchQuery) -> Retrieval:
        """Hybrid candidates, direct and recent ones, reranked; everything as of `query.now`."""
        question, constraints, k = query.text, query.constraints, query.k
        lists = Candidates(self.settings, self.view(query.now), self.embedder, self._query_vector)
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        flt, described = hard_filter(constraints, self.settings, query.now)
        limit = self.settings.candidates
        candidates = lists.search(question, flt, limit, timings)
        residual = residual_query(question, constraints)
        time_first = bool(
            constraints is not None
            and constraints.time is not None
            and constraints.intent in {"what_happened", "summary"}
        )
        seen = {h.chunk.chunk_id for h in candidates}
        about = constraints is not None and PERSON_ABOUT and about_person(question, constraints)
        extra: list[Hit] = []
        if constraints is not None:
            extra.extend(lists.direct(constraints, flt))
            if self.settings.person_list and "person" not in constraints.hard and not about:
                extra.extend(lists.by_people(question, constraints, flt, timings))
            extra.extend(lists.by_versions(constraints, flt, limit))
            if time_first and constraints.time is not None:
                extra.extend(lists.recent(constraints.time.start, constraints.time.end, flt, limit))
        by_id = {h.chunk.chunk_id: h for h in candidates}
        # The person's own list and the version list are more lists of the fusion.
        weights = {"person": PERSON_LIST_WEIGHT, "version": 1.0}
        list_rank = dict.fromkeys(weights, 0)
        for hit in extra:
            if hit.origin in weights:
                list_rank[hit.origin] += 1
                hit.fused = weights[hit.origin] / (self.settings.rrf_k + list_rank[hit.origin])
            if hit.chunk.chunk_id not in seen:
                seen.add(hit.chunk.chunk_id)
                candidates.append(hit)
                by_id[hit.chunk.chunk_id] = hit
            else:
                existing = by_id[hit.chunk.chunk_id]
                if hit.origin in weights and hit.origin not in existing.origin:
                    existing.fused += hit.fused
                if hit.origin not in existing.origin:
                    existing.origin = f"{existing.origin}+{hit.origin}"
        newest_of = asks_newest(question, constraints)
        if newest_of:
            for hit in lists.series(question, constraints, flt):
                if hit.chunk.chunk_id not in seen:
                    seen.add(hit.chunk.chunk_id)
                    candidates.append(hit)
                    by_id[hit.chunk.chunk_id] = hit
                elif "series" not in by_id[hit.chunk.chunk_id].origin:
                    by_id[hit.chunk.chunk_id].origin += "+series"
        if constraints is not None and constraints.intent == "latest":
            for hit in lists.thread_tails(candidates, flt):
                if hit.chunk.chunk_id not in seen:
                    seen.add(hit.chunk.chunk_id)
                    candidates.append(hit)
                    by_id[hit.chunk.chunk_id] = hit
        if self.settings.unit_list and self.settings.dense and candidates:
            t2 = time.perf_counter()
            unit_list(self.embedder, self.settings, question, self._query_vector(question), candidates)
            timings["units"] = (time.perf_counter() - t2) * 1000
        timings["retrieve"] = (time.perf_counter() - t0) * 1000

        t1 = time.perf_counter()
        ranked = rank(
            candidates,
            question,
            constraints,
            settings=self.settings,
            reranker=self.reranker,
            about=about,
            time_first=time_first,
            residual=residual,
        )
        if self.settings.unit_list:
            ranked = within_document(ranked)
        if newest_of:
            ranked = newest_version_first(ranked, question, constraints)
        if self.settings.follow_links:
            ranked = follow_links(lists.view, ranked, constraints, flt)
        strongest, ranked = diversify(ranked, k)
        timings["rerank"] = (time.perf_counter() - t1) * 1000
        return Retrieval(
            hits=ranked[:k],
            strongest=strongest,
            candidates=candidates,
            filters=described,
            timings_ms=timings,
            reranker=self.reranker.name if self.settings.rerank else "off (fused score only)",
        )
