"""Hybrid retrieval and rerank.

Dense and BM25 candidates are fetched separately and fused by reciprocal rank fusion (so the trace can show
each list's rank). Constraints from the question become soft boosts by default; only kinds the user asked to
restrict ("only from JIRA"), or every kind when `constraint_mode = "filter"`, become hard Qdrant filters.
Ticket keys and PR numbers pull their items in directly, whatever their similarity, and "what happened" questions
over a time window also take the window's newest chunks as candidates.

Every retrieval runs "as of" its query's `now` (DESIGN.md): nothing written after it is visible, and chunks that
were cut to `now` (replies written later) are re-scored on the text that remains before they are ranked.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from briefing.embed import Embedder, SparseVec
from briefing.index import Filter, Index, IndexHit, doc_id
from briefing.model import Chunk
from briefing.question.constraints import about_person, version_match
from briefing.settings import RetrievalSettings

if TYPE_CHECKING:
    from briefing.question.constraints import Constraints

log = logging.getLogger(__name__)
# A unit's score: its cosine to the question plus this share of its BM25 (IDF over the candidates' units) relative
# to the best unit's. Chosen on the olake dev set among 0, 0.1, 0.3, 0.6 and 1.0 (docs/retrieval.md).
UNIT_LEXICAL_WEIGHT = 0.6
# Links are followed from this many top hits, and at most this many linked chunks per hit are pulled in.
LINK_FROM_TOP = 3
# The weight of the named person's own list in the fusion (1.0: as much as the dense or the BM25 list).
PERSON_LIST_WEIGHT = 0.5
# A question about who a named person is (constraints.about_person) skips their own list and counts mentions of
# them as much as their messages.
PERSON_ABOUT = True
MAX_LINKED = 3
# Whether links are followed from a hit naming more than MAX_LINKED items (a listing).
LINK_LISTS = False
# For a "latest state" question, the newest chunks of the best-ranked threads join the candidates: a long
# thread's current state is stated at its end, often in words the question does not share.
THREAD_TAIL = 2
THREAD_TAIL_FROM = 3
# A reply to a question is credited with the question's unit score plus this margin, for up to ANSWER_SPAN replies
# by others (until the asker speaks again), so the chunk holding the answer ranks above the one holding the question.
# Chosen on the olake dev set among off, 0.9x, 1.0x and 1.02x the question's score (docs/retrieval.md).
ANSWER_CREDIT = True
ANSWER_MARGIN = 0.02
ANSWER_SPAN = 2
# A chunk whose title or header names exactly a version the question names ("v0.8.0", not v0.8.1 or v0.8.10) gets
# this many times the ticket boost, as a named ticket's own item does (its direct and ticket boosts); a chunk whose
# text names it gets VERSION_MENTION times. The chunks that name it are also fetched and fused as one more list.
VERSION_ITEM = 2.5
VERSION_MENTION = 0.5
# "The most recent Helm chart version", "the latest tag": of the best NEWEST_FROM hits, those that state a version of
# the thing the question names (a question word right before the version: "Helm v0.0.26", "Tag v0.9.4") form a
# series, and the one stated last (as of now) takes the first place.
NEWEST_FROM = 20
# How many chunks the series search (the question's naming words alone) looks at.
SERIES_LIMIT = 50
# A hit whose body is this much contained (word 5-grams) in a better hit's body is moved below the top k.
NEAR_DUPLICATE = 0.8
# A chunk that cites nothing new (its refs are all in its document's better hits: every section of a file has the
# file's ref) keeps a place in the top k only while its document has fewer than PER_DOCUMENT of them there, or
# PER_TOP_DOCUMENT for the best hit's document, the one the question is most likely about. The rest follow the top
# k in order. A long post's sections, tied on the question's words, had taken 6 to 8 of 10 places and pushed out the
# thread that answers (docs/retrieval.md). A thread's or a channel log's chunks each cite other messages,
# so they are not held back. PER_DOCUMENT = 0 turns this off.
PER_DOCUMENT = 1
PER_TOP_DOCUMENT = 4
_NEWEST = re.compile(r"\b(?:most\s+recent|latest|newest)\b", re.I)
# A version as items state it; two parts without a "v" ("4.6x", "0.4") are numbers.
_STATED_VERSION = re.compile(r"(?<![\w.])(?:v\d+\.\d+|\d+\.\d+\.\d+)(?:\.\d+)*(?![\w-]|\.\d)", re.I)
# The word that names what a version is of: "Helm v0.0.26", "chart version 0.0.22", "Tag v0.9.4".
_NAMED_BEFORE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)[\s:#(\"'*_]*(?:(?:version|ver)\s*)?$", re.I)
_NOT_A_NAME = frozenset(
    "version versions ver v the a an of to is was that which what most recent latest newest".split()
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.'-]*")
_FILLER = frozenset(
    """what happened happen happening changed change changes new news update updates status going on did do does
    was were is are the a an in on at of to for from with about any anything everything all there this that last
    past week weeks month months day days year today yesterday since recently recent lately give me tell show
    summary summarize summarise recap digest overview brief briefing and or our team please""".split()
)


@dataclass(frozen=True)
class SearchQuery:
    """One retrieval: the text, the instant it is asked "as of" (required), its constraints and how many hits."""

    text: str
    now: datetime
    constraints: Constraints | None = None
    k: int = 10


@dataclass
class Hit:
    """A ranked chunk with the evidence of how it got its score."""

    chunk: Chunk
    score: float = 0.0
    fused: float = 0.0
    dense_rank: int | None = None
    sparse_rank: int | None = None
    # Rank among the candidates by their best unit's cosine (the unit list), and that cosine.
    unit_rank: int | None = None
    unit_score: float | None = None
    boosts: dict[str, float] = field(default_factory=dict)
    origin: str = "search"
    # Cut to `now` (units written later removed) and re-scored on the remaining text.
    cut: bool = False
    # The better hit this one nearly repeats (moved below the top k).
    duplicate_of: str | None = None

    def to_trace(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk.chunk_id,
            "title": self.chunk.title,
            "score": round(self.score, 4),
            "fused": round(self.fused, 4),
            "dense_rank": self.dense_rank,
            "sparse_rank": self.sparse_rank,
            "unit_rank": self.unit_rank,
            "boosts": {k: round(v, 3) for k, v in self.boosts.items()},
            "origin": self.origin,
            "cut": self.cut,
            "duplicate_of": self.duplicate_of,
        }


@dataclass
class Retrieval:
    hits: list[Hit]
    candidates: list[Hit]
    filters: dict[str, Any]
    timings_ms: dict[str, float]
    reranker: str
    # The top k before `spread_documents`: the answer stage reads its context from these (the strongest chunks,
    # several sections of the document asked about), the hit list shows more documents. None: same as `hits`.
    strongest: list[Hit] | None = None


def residual_query(question: str, constraints: Constraints | None) -> str:
    """The question without the constraint spans, for deciding whether anything topical is left."""
    text = question
    if constraints is not None:
        # A version is the topic ("what went into v0.9.2"), not a narrowing of it.
        for _, span in sorted((s for s in constraints.spans if s[0] != "version"), key=lambda s: -s[1].start):
            text = text[: span.start] + " " + text[span.end :]
    words = [w for w in _WORD.findall(text.lower()) if w not in _FILLER]
    return " ".join(words)


def _hard_filter(
    constraints: Constraints | None, settings: RetrievalSettings, now: datetime
) -> tuple[Filter, dict[str, Any]]:
    # "As of now": nothing written after the question's `now` exists yet (matters for --now and evaluation).
    flt = Filter(as_of=now)
    described: dict[str, Any] = {"as_of": now.isoformat()}
    if constraints is None:
        return flt, described
    hard = set(constraints.hard)
    if settings.constraint_mode == "filter":
        hard |= {"time", "source", "person", "channel", "ticket"}
    if "source" in hard and constraints.sources:
        flt = replace(flt, source_types=tuple(constraints.sources))
        described["source_type"] = list(constraints.sources)
    if "time" in hard and constraints.time is not None:
        flt = replace(flt, start=constraints.time.start, end=constraints.time.end)
        described["time"] = [constraints.time.start.isoformat(), constraints.time.end.isoformat()]
    if "person" in hard and constraints.people:
        flt = replace(flt, authors=tuple(constraints.people))
        described["authors"] = list(constraints.people)
    if "channel" in hard and (constraints.channels or constraints.projects):
        values = list(constraints.channels) + list(constraints.projects)
        flt = replace(flt, containers=tuple(values))
        described["container"] = values
    if "ticket" in hard and constraints.tickets:
        flt = replace(flt, tickets=tuple(constraints.tickets))
        described["tickets"] = list(constraints.tickets)
    return flt, described


def _overlaps(chunk: Chunk, start: datetime, end: datetime) -> bool:
    return chunk.end >= start and chunk.start < end


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


class Retriever:
    def __init__(self, settings: RetrievalSettings, index: Index, embedder: Embedder) -> None:
        self.settings = settings
        self.index = index
        self.embedder = embedder
        self.reranker = Reranker(settings)
        self._last_query: tuple[str, Any] | None = None

    # -- candidate generation ---------------------------------------------------------------------------------
    def _search(self, query: str, flt: Filter, limit: int, timings: dict[str, float]) -> list[Hit]:
        dense_hits: list[IndexHit] = []
        sparse_hits: list[IndexHit] = []
        t0 = time.perf_counter()
        if self.settings.dense:
            vec = self._query_vector(query)
            timings["embed"] = (time.perf_counter() - t0) * 1000
            dense_hits = self._rescore_dense(vec, self.index.search_dense(vec, limit=limit, flt=flt))
        if self.settings.sparse:
            svec = self.embedder.sparse([query], query=True)[0]
            sparse_hits = self._rescore_sparse(svec, self.index.search_sparse(svec, limit=limit, flt=flt))
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

    def _query_vector(self, query: str) -> Any:
        if self._last_query is None or self._last_query[0] != query:
            self._last_query = (query, self.embedder.dense([query], query=True)[0])
        return self._last_query[1]

    def _unit_list(self, query: str, vec: np.ndarray, hits: list[Hit]) -> None:
        """A third ranked list: candidates by their best single unit (message, comment, section).

        A thread's chunks all carry its root's gist, so on the root's words they tie; the reply that answers the
        question is told apart by its own text. Unit vectors go through the on-disk vector cache (the item
        vectors ingest computed for topic splits are mostly there already).
        """
        texts: list[str] = []
        owner: list[int] = []
        places: list[tuple[int, int]] = []
        for i, hit in enumerate(hits):
            for pos, text in unit_texts(hit.chunk):
                texts.append(text)
                owner.append(i)
                places.append((i, pos))
        if not texts:
            return
        vectors = self.embedder.dense_cached(texts)
        q = np.asarray(vec, dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        sims = (vectors @ q) / norms
        if self.settings.sparse:
            lexical = _unit_bm25(self.embedder.sparse([query], query=True)[0], self.embedder.sparse(texts))
            top = max(lexical) or 1.0
            sims = sims + UNIT_LEXICAL_WEIGHT * np.asarray(lexical, dtype=np.float32) / top
        scores = sims.tolist()
        if ANSWER_CREDIT:
            scores = _credit_answers(hits, places, scores)
        best: dict[int, float] = {}
        for i, sim in zip(owner, scores, strict=True):
            best[i] = max(best.get(i, -1.0), sim)
        k = self.settings.rrf_k
        for rank, (i, sim) in enumerate(sorted(best.items(), key=lambda t: -t[1]), 1):
            hits[i].unit_rank = rank
            hits[i].unit_score = sim
            hits[i].fused += 1.0 / (k + rank)

    def _rescore_dense(self, query: np.ndarray, found: list[IndexHit]) -> list[IndexHit]:
        """Cut chunks get the cosine of their visible text; the list is re-sorted by score."""
        cut = [i for i, h in enumerate(found) if h.cut]
        if not cut:
            return found
        vectors = self.embedder.dense([found[i].chunk.text for i in cut])
        q = np.asarray(query, dtype=np.float32)
        out = list(found)
        for i, vec in zip(cut, vectors, strict=True):
            denom = float(np.linalg.norm(q) * np.linalg.norm(vec)) or 1.0
            out[i] = replace(found[i], score=float(np.dot(q, vec)) / denom)
        return sorted(out, key=lambda h: -h.score)

    def _rescore_sparse(self, query: SparseVec, found: list[IndexHit]) -> list[IndexHit]:
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
        chunks = self.index.fetch(tickets=constraints.tickets, doc_ids=constraints.tickets, within=flt)
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
        found = self._search(question, replace(flt, authors=tuple(constraints.people)), limit, {})
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
        found = self._rescore_sparse(svec, self.index.search_sparse(svec, limit=limit, flt=flt))
        named = [(names_version(f.chunk, versions), f) for f in found]
        ordered = sorted((t for t in named if t[0]), key=lambda t: -t[0])
        return [Hit(chunk=f.chunk, cut=f.cut, origin="version") for _, f in ordered]

    def series(self, question: str, constraints: Constraints | None, flt: Filter) -> list[Hit]:
        """For "the most recent X version": the chunks that state a version of X, found by X's words alone.

        The newest release is often not among the candidates the whole question finds (its notes share few of the
        question's words); `newest_version_first` picks from these and the best hits.
        """
        names = _question_names(question, constraints)
        if not names or not self.settings.sparse:
            return []
        svec = self.embedder.sparse([" ".join(sorted(names))], query=True)[0]
        found = self._rescore_sparse(svec, self.index.search_sparse(svec, limit=SERIES_LIMIT, flt=flt))
        return [Hit(chunk=f.chunk, cut=f.cut, origin="series") for f in found if stated_versions(f.chunk, names)]

    def _follow_links(self, ranked: list[Hit], constraints: Constraints | None, flt: Filter) -> list[Hit]:
        """The pages, tickets and pull requests that the top hits link to, placed right after the hit that links.

        A meeting's notes page or a ticket's pull request is the evidence for "what did we decide in Tuesday's
        planning" or "how was PLAT-142 fixed", whatever its similarity to the question. Links are followed from a
        hit the question is about: the best one, one it named (a ticket), or one of a source it asked for.
        """
        sources = set(constraints.sources) if constraints is not None else set()
        links: list[tuple[Hit, list[str]]] = []
        for pos, hit in enumerate(ranked[:LINK_FROM_TOP]):
            about = pos == 0 or "direct" in hit.origin or hit.chunk.source_type in sources
            refs = linked_refs(hit.chunk)
            # A hit that names more items than it can bring (a tag listing the pull requests before it) is a list,
            # not a link: which of them the question is about is for their own scores to say.
            if about and refs and (LINK_LISTS or len(refs) <= MAX_LINKED):
                links.append((hit, refs))
        if not links:
            return ranked
        wanted = list(dict.fromkeys(r for _, refs in links for r in refs))
        found = self.index.fetch(refs=wanted, doc_ids=[doc_id(r) for r in wanted], within=flt)
        by_id = {h.chunk.chunk_id: h for h in ranked}
        out = list(ranked)
        placed: set[str] = set()
        for parent, refs in links:
            targets = [c for c in found if set(c.refs) & set(refs) or doc_id(c.doc_key) in {doc_id(r) for r in refs}]
            for n, chunk in enumerate(targets[:MAX_LINKED], 1):
                if chunk.chunk_id in placed or chunk.chunk_id == parent.chunk.chunk_id:
                    continue
                placed.add(chunk.chunk_id)
                hit = by_id.get(chunk.chunk_id) or Hit(chunk=chunk, origin="linked")
                score = parent.score - 1e-3 * n
                if hit.score < score:
                    hit.boosts["linked"] = round(score - hit.score, 4)
                    hit.score = score
                    if "linked" not in hit.origin:
                        hit.origin = "linked" if hit.origin == "linked" else f"{hit.origin}+linked"
                if chunk.chunk_id not in by_id:
                    out.append(hit)
                    by_id[chunk.chunk_id] = hit
        return sorted(out, key=lambda h: -h.score)

    def _thread_tails(self, candidates: list[Hit], flt: Filter) -> list[Hit]:
        """The newest THREAD_TAIL chunks of the threads among the best THREAD_TAIL_FROM candidates."""
        best: dict[str, float] = {}
        for hit in sorted(candidates, key=lambda h: -h.fused)[:THREAD_TAIL_FROM]:
            if _threaded(hit.chunk.kind):
                best.setdefault(hit.chunk.doc_key, hit.fused)
        if not best:
            return []
        found = self.index.fetch(doc_keys=list(best), within=flt)
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
        chunks = self.index.chunks(window)
        chunks.sort(key=lambda c: -c.end.timestamp())
        return [Hit(chunk=c, origin="recent") for c in chunks[:limit]]

    # -- rerank -----------------------------------------------------------------------------------------------
    def _boosts(self, hit: Hit, constraints: Constraints | None, about: bool = False) -> dict[str, float]:
        s = self.settings
        out: dict[str, float] = {}
        if constraints is None or not s.boosts:
            return out
        chunk = hit.chunk
        if constraints.time is not None and _overlaps(chunk, constraints.time.start, constraints.time.end):
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

    def retrieve(self, query: SearchQuery) -> Retrieval:
        """Hybrid candidates, direct and recent ones, reranked; everything as of `query.now`."""
        question, constraints, k = query.text, query.constraints, query.k
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        flt, described = _hard_filter(constraints, self.settings, query.now)
        limit = self.settings.candidates
        candidates = self._search(question, flt, limit, timings)
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
            extra.extend(self.direct(constraints, flt))
            if self.settings.person_list and "person" not in constraints.hard and not about:
                extra.extend(self.by_people(question, constraints, flt, timings))
            extra.extend(self.by_versions(constraints, flt, limit))
            if time_first and constraints.time is not None:
                extra.extend(self.recent(constraints.time.start, constraints.time.end, flt, limit))
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
        newest_of = bool(
            NEWEST_FROM and constraints is not None and not constraints.versions and _NEWEST.search(question)
        )
        if newest_of:
            for hit in self.series(question, constraints, flt):
                if hit.chunk.chunk_id not in seen:
                    seen.add(hit.chunk.chunk_id)
                    candidates.append(hit)
                    by_id[hit.chunk.chunk_id] = hit
                elif "series" not in by_id[hit.chunk.chunk_id].origin:
                    by_id[hit.chunk.chunk_id].origin += "+series"
        if THREAD_TAIL and constraints is not None and constraints.intent == "latest":
            for hit in self._thread_tails(candidates, flt):
                if hit.chunk.chunk_id not in seen:
                    seen.add(hit.chunk.chunk_id)
                    candidates.append(hit)
                    by_id[hit.chunk.chunk_id] = hit
        if self.settings.unit_list and self.settings.dense and candidates:
            t2 = time.perf_counter()
            self._unit_list(question, self._query_vector(question), candidates)
            timings["units"] = (time.perf_counter() - t2) * 1000
        timings["retrieve"] = (time.perf_counter() - t0) * 1000

        t1 = time.perf_counter()
        top = max((h.fused for h in candidates), default=0.0) or 1.0
        ce_scores: list[float] | None = None
        if self.settings.rerank and self.reranker.available() and candidates:
            ce_scores = self.reranker.scores(question, [h.chunk.text for h in candidates])
        window = constraints.time if constraints is not None else None
        recency_weight = self.settings.boost_recency
        if constraints is not None and constraints.intent == "latest":
            recency_weight = self.settings.boost_recency_latest
        stamps = [h.chunk.end.timestamp() for h in candidates]
        oldest, newest = (min(stamps), max(stamps)) if stamps else (0.0, 0.0)
        for i, hit in enumerate(candidates):
            relevance = hit.fused / top
            if ce_scores is not None:
                relevance = 0.5 * relevance + 0.5 * _sigmoid(ce_scores[i])
            hit.boosts = self._boosts(hit, constraints, about) if self.settings.rerank else {}
            if "direct" in hit.origin and constraints is not None:
                if is_named_item(hit.chunk, constraints.tickets):
                    hit.boosts["direct"] = self.settings.boost_ticket
            if time_first and window is not None and len(residual.split()) < 2:
                # Nothing topical left in the question: order the window by recency instead of similarity.
                if _overlaps(hit.chunk, window.start, window.end):
                    span = max((window.end - window.start).total_seconds(), 1.0)
                    end = min(hit.chunk.end, window.end)
                    relevance = 0.5 + 0.5 * max(0.0, 1.0 - (window.end - end).total_seconds() / span)
                else:
                    relevance *= 0.3
                # With no topic, the channel or person named is what the question is about.
                for kind in ("container", "person"):
                    if kind in hit.boosts:
                        hit.boosts[kind] *= 2
            if recency_weight and self.settings.rerank and newest > oldest:
                hit.boosts["recency"] = recency_weight * (hit.chunk.end.timestamp() - oldest) / (newest - oldest)
            hit.score = relevance + sum(hit.boosts.values())
        if constraints is not None and exact_versions(constraints):
            _one_item_per_document(candidates, self.settings.boost_ticket * VERSION_MENTION)
        ranked = sorted(candidates, key=lambda h: (-h.score, h.chunk.chunk_id))
        if self.settings.unit_list:
            ranked = _within_document(ranked)
        if newest_of:
            ranked = newest_version_first(ranked, question, constraints)
        if self.settings.follow_links:
            ranked = self._follow_links(ranked, constraints, flt)
        if NEAR_DUPLICATE:
            ranked = demote_near_duplicates(ranked, k)
        strongest = ranked[:k]
        if PER_DOCUMENT:
            ranked = spread_documents(ranked, k, PER_DOCUMENT, PER_TOP_DOCUMENT)
        timings["rerank"] = (time.perf_counter() - t1) * 1000
        return Retrieval(
            hits=ranked[:k],
            strongest=strongest,
            candidates=candidates,
            filters=described,
            timings_ms=timings,
            reranker=self.reranker.name if self.settings.rerank else "off (fused score only)",
        )


def _question_names(question: str, constraints: Constraints | None = None) -> set[str]:
    """The words of the question that may name what a version is of (not its channel, people, time or keys)."""
    from briefing.textrules import STOPWORDS

    if constraints is not None:
        for kind, span in sorted(constraints.spans, key=lambda s: -s[1].start):
            if kind in {"channel", "person", "time", "ticket", "pr"}:
                question = question[: span.start] + " " + question[span.end :]
    words = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z][A-Za-z0-9_-]*", question)}
    return {w for w in words if len(w) > 1 and w not in STOPWORDS and w not in _NOT_A_NAME and w not in _FILLER}


def stated_versions(chunk: Chunk, names: set[str]) -> datetime | None:
    """When the chunk last states a version of one of `names` (the word before the version), or None."""
    pieces = [(chunk.title, chunk.end)] + [(u.text, u.at or chunk.end) for u in chunk.units]
    latest: datetime | None = None
    for text, at in pieces:
        for m in _STATED_VERSION.finditer(text):
            before = _NAMED_BEFORE.search(text[max(0, m.start() - 40) : m.start()])
            if before and before[1].lower().rstrip("s") in names and (latest is None or at > latest):
                latest = at
    return latest


def newest_version_first(ranked: list[Hit], question: str, constraints: Constraints | None = None) -> list[Hit]:
    """For "the most recent X version / tag", the best hit stating X's newest version moves to the first place.

    Release announcements and tags share one template, so similarity does not tell v0.0.26 from v0.0.21, and
    a linear recency boost over all candidates barely separates two releases a week apart. Only the hits that
    state a version right after a word of the question count, and at least two must (a series to pick from). A
    channel, source or person the question names must match ("announced in #announcements").
    """
    names = _question_names(question, constraints)
    if not names or not ranked:
        return ranked
    needed = set()
    if constraints is not None:
        needed = {
            kind
            for kind, named in (
                ("container", constraints.channels or constraints.projects),
                ("source", constraints.sources),
                ("person", constraints.people),
            )
            if named
        }
    pool = [
        n for n, hit in enumerate(ranked) if (n < NEWEST_FROM or "series" in hit.origin) and needed <= set(hit.boosts)
    ]
    stated = [(at, n) for n in pool if (at := stated_versions(ranked[n].chunk, names))]
    if len(stated) < 2:
        return ranked
    _, pick = max(stated, key=lambda t: (t[0], -t[1]))
    if pick == 0:
        return ranked
    hit = ranked[pick]
    lift = ranked[0].score - hit.score + 1e-3
    hit.boosts["newest"] = round(lift, 4)
    hit.score += lift
    return [hit] + [h for n, h in enumerate(ranked) if n != pick]


def _one_item_per_document(hits: list[Hit], mention: float) -> None:
    """Of a document's chunks that name the version in their title, only the best keeps the item boost.

    Every section of "release/v0.9.0.md" is titled v0.9.0; the version says which item, and the question's other
    words say which part of it. The others keep the boost of a mention.
    """
    best: dict[str, Hit] = {}
    for hit in sorted(hits, key=lambda h: -h.score):
        if hit.boosts.get("version", 0.0) <= mention:
            continue
        if hit.chunk.doc_key not in best:
            best[hit.chunk.doc_key] = hit
            continue
        hit.score -= hit.boosts["version"] - mention
        hit.boosts["version"] = mention


def _grams(chunk: Chunk) -> set[tuple[str, ...]]:
    """The word 5-grams of a chunk's body (its header line, which a thread's chunks share, left out)."""
    text = chunk.text
    if unit_context(chunk):
        text = text.split("\n", 1)[-1]
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + 5]) for i in range(max(1, len(words) - 4))} if words else set()


def demote_near_duplicates(ranked: list[Hit], k: int) -> list[Hit]:
    """Hits that nearly repeat a better hit move below the top k, so the k places hold k different pieces.

    A message cross-posted to two channels, a release note repeated in a blog post, a section and the overlapping
    piece of the next chunk: a hit is a repeat when at least NEAR_DUPLICATE of its word 5-grams are in one better
    hit's. Nothing is dropped; the repeats follow the top k in their own order.
    """
    kept: list[tuple[Hit, set[tuple[str, ...]]]] = []
    repeats: list[Hit] = []
    for n, hit in enumerate(ranked):
        if len(kept) >= k:
            return [h for h, _ in kept] + repeats + ranked[n:]
        grams = _grams(hit.chunk)
        same = next(
            (h for h, g in kept if grams and len(grams & g) >= NEAR_DUPLICATE * len(grams)),
            None,
        )
        if same is None:
            kept.append((hit, grams))
        else:
            hit.duplicate_of = same.chunk.chunk_id
            repeats.append(hit)
    return [h for h, _ in kept] + repeats


def spread_documents(ranked: list[Hit], k: int, cap: int, top_cap: int | None = None) -> list[Hit]:
    """The top k hold more documents: chunks that cite nothing new beyond `cap` per document follow the top k.

    Every section of a long post shares its title and topic words, so on a question that shares them the post
    fills the top k and the reply that answers, in a thread, is pushed out. A chunk is held back only when its
    document already has `cap` chunks in the top k (`top_cap` for the best hit's document) and its refs are all
    among theirs; nothing is dropped, and the held-back chunks keep their order.
    """
    if not ranked:
        return ranked
    best_doc = ranked[0].chunk.doc_key
    kept: list[Hit] = []
    later: list[Hit] = []
    count: dict[str, int] = {}
    cited: dict[str, set[str]] = {}
    for n, hit in enumerate(ranked):
        if len(kept) >= k:
            return kept + later + ranked[n:]
        doc = hit.chunk.doc_key
        limit = top_cap if doc == best_doc and top_cap is not None else cap
        if count.get(doc, 0) >= limit and set(hit.chunk.refs) <= cited.get(doc, set()):
            later.append(hit)
            continue
        count[doc] = count.get(doc, 0) + 1
        cited.setdefault(doc, set()).update(hit.chunk.refs)
        kept.append(hit)
    return kept + later


def _credit_answers(hits: list[Hit], places: list[tuple[int, int]], scores: list[float]) -> list[float]:
    """A question's score passes to the replies that follow it, across a chunk boundary too.

    The asker's own message restates the question, so it outranks the reply that answers it; when the reply
    opens the next chunk, that chunk ranked below the question's. A unit asks when it has an author and a "?";
    the next units (the next position, or the first unit of the document's next chunk) by other authors, up to
    ANSWER_SPAN of them and until the asker speaks again, get at least its score plus ANSWER_MARGIN.
    """
    slot: dict[tuple[str, int, int], int] = {}
    for n, (i, pos) in enumerate(places):
        chunk = hits[i].chunk
        slot.setdefault((chunk.doc_key, chunk.ordinal, pos), n)
    out = list(scores)
    for n, (i, pos) in enumerate(places):
        chunk = hits[i].chunk
        asked = chunk.units[pos]
        if not asked.author or "?" not in asked.text:
            continue
        doc, ordinal, at = chunk.doc_key, chunk.ordinal, pos
        credit = scores[n] + ANSWER_MARGIN
        for _ in range(ANSWER_SPAN):
            units = hits[places[slot[(doc, ordinal, at)]][0]].chunk.units if (doc, ordinal, at) in slot else ()
            if at + 1 < len(units):
                at += 1
            elif ordinal >= 0:
                ordinal, at = ordinal + 1, 0
            else:
                break
            m = slot.get((doc, ordinal, at))
            if m is None:
                break
            reply = hits[places[m][0]].chunk.units[places[m][1]]
            if not reply.author or reply.author == asked.author:
                break
            out[m] = max(out[m], credit)
    return out


def _within_document(ranked: list[Hit]) -> list[Hit]:
    """Chunks of one document keep the places the document won, but in the order of their best unit.

    Every chunk of a thread carries its root's gist, so the root's chunk wins the thread's best place on the
    words the question shares with the problem; the reply that answers it is found by its own text.
    """
    places: dict[str, list[int]] = {}
    threads: set[str] = set()
    for pos, hit in enumerate(ranked):
        if hit.unit_score is not None:
            places.setdefault(hit.chunk.doc_key, []).append(pos)
        context = unit_context(hit.chunk)
        if _threaded(hit.chunk.kind) or (context and any(_restates(context, u.text) for u in hit.chunk.units)):
            threads.add(hit.chunk.doc_key)
    out = list(ranked)
    for doc, positions in places.items():
        if len(positions) < 2 or doc not in threads:
            continue
        members = [ranked[p] for p in positions]
        scores = [h.score for h in members]
        order = sorted(members, key=lambda h: -((h.unit_score or 0.0) + sum(h.boosts.values())))
        for pos, hit, score in zip(positions, order, scores, strict=True):
            if hit is not ranked[pos]:
                hit.boosts["within_document"] = round(score - hit.score, 4)
            hit.score = score
            out[pos] = hit
    return out


def _threaded(kind: str) -> bool:
    """The kind is a conversation that opens with a question or report (its descriptor says so)."""
    from briefing import registry
    from briefing.errors import BriefError

    try:
        return registry.kind(kind).threaded
    except BriefError:
        return False


def _unit_bm25(query: SparseVec, units: Sequence[SparseVec]) -> list[float]:
    """BM25 of each unit against the query, with the inverse document frequency taken over these units."""
    import math

    terms = set(query.indices)
    df: dict[int, int] = {}
    for vec in units:
        for t in set(vec.indices) & terms:
            df[t] = df.get(t, 0) + 1
    n = len(units)
    idf = {t: math.log((n - d + 0.5) / (d + 0.5) + 1.0) for t, d in df.items()}
    return [sum(v * idf[i] for i, v in zip(vec.indices, vec.values, strict=True) if i in idf) for vec in units]


def _restates(context: str, text: str) -> bool:
    head = " ".join(text.split())[:60].removesuffix("...")
    return len(head) >= 20 and head[:40] in context


def linked_refs(chunk: Chunk) -> list[str]:
    """Native refs of the items a chunk links to: its `links` (an event's notes and tickets, a ticket's links)
    and the pull requests and tickets it names that are not its own."""
    links = chunk.metadata.get("links") or []
    own = {doc_id(chunk.doc_key), *chunk.refs}
    named = [t for t in chunk.tickets if t not in own and doc_id(t) not in own]
    refs = [r if isinstance(r, str) else str(r.get("key") or "") for r in links] + named
    return [r for r in dict.fromkeys(refs) if r and r not in own]


def is_named_item(chunk: Chunk, tickets: Sequence[str]) -> bool:
    """The chunk belongs to a ticket or pull request the question named, by its key ("PLAT-142") or its full ref
    ("github:owner/repo#45", what "PR 45" resolves to), rather than merely mentioning it."""
    return doc_id(chunk.doc_key) in tickets or chunk.doc_key in tickets


def exact_versions(constraints: Constraints) -> list[str]:
    """The versions of the question that name one release ("v0.8.0"). A two-part one ("the v0.9 notes") names a
    release line: boosting every chunk of the line took the places of the item the question asked about."""
    return [v for v in constraints.versions if v.count(".") >= 2]


def names_version(chunk: Chunk, versions: Sequence[str]) -> int:
    """2 when the chunk's title or header line names one of `versions` exactly, 1 when only its text does, else 0."""
    patterns = [version_match(v) for v in versions]
    subject = f"{chunk.title}\n{unit_context(chunk)}"
    if any(p.search(subject) for p in patterns):
        return 2
    if _STATED_VERSION.search(subject):
        return 0  # another version's item ("release v0.8.1": merged after v0.8.0) only mentions it in passing
    return 1 if any(p.search(chunk.text) for p in patterns) else 0


def unit_texts(chunk: Chunk) -> list[tuple[int, str]]:
    """The texts the unit list embeds for a chunk, with each unit's position: a unit read under the chunk's header.

    Ingest embeds these same texts into the vector cache (`briefing.warm`), so this is the one place they are made.
    """
    context = unit_context(chunk)
    out: list[tuple[int, str]] = []
    for pos, unit in enumerate(chunk.units):
        # A thread's root is in every chunk's header already: the header alone stands for it.
        if unit.text.strip() and not (context and _restates(context, unit.text)):
            out.append((pos, f"{context}\n{unit.text}" if context else unit.text))
    return out


def unit_context(chunk: Chunk) -> str:
    """The chunk's header line (a thread's channel, root author and gist; a section's path), or "".

    A reply read alone ("try raising it to 64") rarely says what it answers; read under its thread's header it does.
    """
    first = chunk.text.split("\n", 1)[0].strip()
    if not first or len(first) > 300 or any(first == u.text.strip() for u in chunk.units[:1]):
        return ""
    return first


def _weight(vector: SparseVec, terms: dict[int, float]) -> float:
    return sum(v * terms[i] for i, v in zip(vector.indices, vector.values, strict=True) if i in terms)


def _sigmoid(x: float) -> float:
    import math

    return 1.0 / (1.0 + math.exp(-x))
