"""Candidate lists of one query, read through its View: dense and BM25 fused by reciprocal rank, and the lists
of what the question names (tickets, people, versions), a thread's newest chunks and a window's newest ones.

Chunks cut to `now` (replies written later) are re-scored on the text that remains before they are ranked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from briefing.embed import Embedder, SparseVec
from briefing.index import Filter, IndexHit
from briefing.retrieve.links import is_named_item
from briefing.retrieve.model import Hit
from briefing.retrieve.units import threaded
from briefing.retrieve.versions import SERIES_LIMIT, exact_versions, names_version, question_names, stated_versions
from briefing.settings import RetrievalSettings

if TYPE_CHECKING:
    from briefing.question.constraints import Constraints
    from briefing.view import View

# For a "latest state" question, the newest chunks of the best-ranked threads join the candidates: a long
# thread's current state is stated at its end, often in words the question does not share.
THREAD_TAIL = 2
THREAD_TAIL_FROM = 3


class Candidates:
    """The candidate lists of one query; every read goes through its View (as of the query's `now`)."""

    def __init__(
        self, settings: RetrievalSettings, view: View, embedder: Embedder, vector: Callable[[str], Any]
    ) -> None:
        self.settings = settings
        self.view = view
        self.embedder = embedder
        self.vector = vector

    # -- candidate generation ---------------------------------------------------------------------------------
    def search(self, query: str, flt: Filter, limit: int, timings: dict[str, float]) -> list[Hit]:
        dense_hits: list[IndexHit] = []
        sparse_hits: list[IndexHit] = []
        t0 = time.perf_counter()
        if self.settings.dense:
            vec = self.vector(query)
            timings["embed"] = (time.perf_counter() - t0) * 1000
            dense_hits = self.rescore_dense(vec, self.view.search_dense(vec, limit=limit, flt=flt))
        if self.settings.sparse:
            svec = self.embedder.sparse([query], query=True)[0]
            sparse_hits = self.rescore_sparse(svec, self.view.search_sparse(svec, limit=limit, flt=flt))
        k = self.settings.rrf_k
        hits: dict[str, Hit] = {}
        for rank, found in enumerate(dense_hits, 1):
            hit = hits.setdefault(found.chunk.chunk_id, Hit(chunk=found.chunk, cut=found.cut))
            hit.dense_rank = rank
            hit.fused += 1.0 / (k + rank)
        for rank, found in enumerate(sparse_hits, 1):
            hit = hits.setdefault(found.chunk.chunk_id, Hit(chunk=found.chunk, cut=found.cut))
            hit.sparse_rank = rank
            hit.fused += 1.0 / (k + rank)
        ranked = sorted(hits.values(), key=lambda h: -h.fused)
        return ranked[:limit]

    def rescore_dense(self, query: np.ndarray, found: list[IndexHit]) -> list[IndexHit]:
        """Cut chunks get the cosine of their visible text; the list is re-sorted by score.

        Each visible text is embedded on its own and kept (`Embedder.dense_alone`): the same cut recurs in a
        question's person list and in later questions asked at the same moment."""
        cut = [i for i, h in enumerate(found) if h.cut]
        if not cut:
            return found
        vectors = self.embedder.dense_alone([found[i].chunk.text for i in cut])
        q = np.asarray(query, dtype=np.float32)
        out = list(found)
        for i, vec in zip(cut, vectors, strict=True):
            denom = float(np.linalg.norm(q) * np.linalg.norm(vec)) or 1.0
            out[i] = replace(found[i], score=float(np.dot(q, vec)) / denom)
        return sorted(out, key=lambda h: -h.score)

    def rescore_sparse(self, query: SparseVec, found: list[IndexHit]) -> list[IndexHit]:
        """Cut chunks keep the share of their BM25 score that their visible text still earns.

        The IDF part lives in Qdrant, so the score is scaled by the query-term weight left after the cut (exact
        when one query term matches; zero when no query term is left, which drops the chunk from this list).
        """
        cut = [(i, h.stored) for i, h in enumerate(found) if h.stored is not None]
        if not cut:
            return found
        terms = dict(zip(query.indices, query.values, strict=True))
        vectors = self.embedder.sparse([found[i].chunk.text for i, _ in cut] + [stored.text for _, stored in cut])
        out = list(found)
        for n, (i, _) in enumerate(cut):
            now_w = _weight(vectors[n], terms)
            was_w = _weight(vectors[len(cut) + n], terms)
            out[i] = replace(found[i], score=found[i].score * (now_w / was_w if was_w > 0 else 0.0))
        return sorted((h for h in out if h.score > 0), key=lambda h: -h.score)

    def direct(self, constraints: Constraints, flt: Filter, limit: int = 40) -> list[Hit]:
        """Every chunk of the tickets / PRs named in the question."""
        if not constraints.tickets:
            return []
        chunks = self.view.fetch(tickets=constraints.tickets, doc_ids=constraints.tickets, within=flt)
        out = [Hit(chunk=c, origin="direct") for c in chunks]
        out.sort(key=lambda h: (not is_named_item(h.chunk, constraints.tickets), -h.chunk.end.timestamp()))
        return out[:limit]

    def by_people(self, question: str, constraints: Constraints, flt: Filter, timings: dict[str, float]) -> list[Hit]:
        """What the people named wrote, ranked by the question: the person's own list, fused with the others.

        A person's messages may rank below the first `candidates` of the whole index on similarity alone; this
        fetches them through the authors payload index (every name a person goes by is an author there).
        """
        if not constraints.people:
            return []
        limit = max(10, self.settings.candidates // 2)
        found = self.search(question, replace(flt, authors=tuple(constraints.people)), limit, {})
        for hit in found:
            hit.origin = "person"
        return found

    def by_versions(self, constraints: Constraints, flt: Filter, limit: int) -> list[Hit]:
        """The chunks that name a version of the question exactly, those naming it in their title first.

        BM25 reads "v0.8.0" as the words v0, 8 and 0, so v0.8.1 and v0.8.10 share them; a search on the version's
        words alone finds the candidates, and only the chunks whose text names the version itself are kept.
        """
        versions = exact_versions(constraints)
        if not versions or not self.settings.sparse:
            return []
        words = " ".join(f"v{v} {v}" for v in versions)
        svec = self.embedder.sparse([words], query=True)[0]
        found = self.rescore_sparse(svec, self.view.search_sparse(svec, limit=limit, flt=flt))
        named = [(names_version(f.chunk, versions), f) for f in found]
        ordered = sorted((t for t in named if t[0]), key=lambda t: -t[0])
        return [Hit(chunk=f.chunk, cut=f.cut, origin="version") for _, f in ordered]

    def series(self, question: str, constraints: Constraints | None, flt: Filter) -> list[Hit]:
        """For "the most recent X version": the chunks that state a version of X, found by X's words alone.

        The newest release is often not among the candidates the whole question finds (its notes share few of the
        question's words); `newest_version_first` picks from these and the best hits.
        """
        names = question_names(question, constraints)
        if not names or not self.settings.sparse:
            return []
        svec = self.embedder.sparse([" ".join(sorted(names))], query=True)[0]
        found = self.rescore_sparse(svec, self.view.search_sparse(svec, limit=SERIES_LIMIT, flt=flt))
        return [Hit(chunk=f.chunk, cut=f.cut, origin="series") for f in found if stated_versions(f.chunk, names)]

    def thread_tails(self, candidates: list[Hit], flt: Filter) -> list[Hit]:
        """The newest THREAD_TAIL chunks of the threads among the best THREAD_TAIL_FROM candidates."""
        if not THREAD_TAIL:
            return []
        best: dict[str, float] = {}
        for hit in sorted(candidates, key=lambda h: -h.fused)[:THREAD_TAIL_FROM]:
            if threaded(hit.chunk.kind):
                best.setdefault(hit.chunk.doc_key, hit.fused)
        if not best:
            return []
        found = self.view.fetch(doc_keys=list(best), within=flt)
        out: list[Hit] = []
        for doc, fused in best.items():
            tail = sorted((c for c in found if c.doc_key == doc), key=lambda c: -c.end.timestamp())[:THREAD_TAIL]
            # Placed just under the thread's best chunk in the fusion; the unit list and boosts order them.
            out.extend(Hit(chunk=c, fused=fused * 0.99, origin="thread_tail") for c in tail)
        return out

    def recent(self, start: datetime, end: datetime, flt: Filter, limit: int = 50) -> list[Hit]:
        """The newest chunks that overlap a time window (for "what happened" questions)."""
        window = replace(
            flt,
            start=max(start, flt.start) if flt.start is not None else start,
            end=min(end, flt.end) if flt.end is not None else end,
        )
        chunks = self.view.chunks(window)
        chunks.sort(key=lambda c: -c.end.timestamp())
        return [Hit(chunk=c, origin="recent") for c in chunks[:limit]]


def _weight(vector: SparseVec, terms: dict[int, float]) -> float:
    return sum(v * terms[i] for i, v in zip(vector.indices, vector.values, strict=True) if i in terms)
