"""The unit list: candidates ranked by their best single unit (message, comment, section), and what reads units."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from briefing.embed import Embedder, SparseVec
from briefing.model import Chunk
from briefing.retrieve.model import Hit
from briefing.settings import RetrievalSettings

# A unit's score: its cosine to the question plus this share of its BM25 (IDF over the candidates' units) relative
# to the best unit's. Chosen on the olake dev set among 0, 0.1, 0.3, 0.6 and 1.0 (docs/retrieval.md).
UNIT_LEXICAL_WEIGHT = 0.6
# A reply to a question is credited with the question's unit score plus this margin, for up to ANSWER_SPAN replies
# by others (until the asker speaks again), so the chunk holding the answer ranks above the one holding the question.
# Chosen on the olake dev set among off, 0.9x, 1.0x and 1.02x the question's score (docs/retrieval.md).
ANSWER_CREDIT = True
ANSWER_MARGIN = 0.02
ANSWER_SPAN = 2


def unit_list(embedder: Embedder, settings: RetrievalSettings, query: str, vec: np.ndarray, hits: list[Hit]) -> None:
    """A third ranked list: candidates by their best single unit (message, comment, section).

    A thread's chunks all carry its root's gist, so on the root's words they tie; the reply that answers the
    question is told apart by its own text. Unit vectors go through the on-disk vector cache (the item
    vectors ingest computed for topic splits are mostly there already).
    """
    texts: list[str] = []
    places: list[tuple[int, int]] = []
    for i, hit in enumerate(hits):
        for pos, text in unit_texts(hit.chunk):
            texts.append(text)
            places.append((i, pos))
    if not texts:
        return
    vectors = embedder.dense_cached(texts)
    q = np.asarray(vec, dtype=np.float32)
    q = q / (float(np.linalg.norm(q)) or 1.0)
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    sims = (vectors @ q) / norms
    if settings.sparse:
        lexical = _unit_bm25(embedder.sparse([query], query=True)[0], embedder.sparse_stored(texts))
        top = max(lexical) or 1.0
        sims = sims + UNIT_LEXICAL_WEIGHT * np.asarray(lexical, dtype=np.float32) / top
    scores = sims.tolist()
    if ANSWER_CREDIT:
        scores = _credit_answers(hits, places, scores)
    best: dict[int, float] = {}
    for (i, pos), sim in zip(places, scores, strict=True):
        if i not in best or sim > best[i]:
            best[i] = sim
            hits[i].unit_pos = pos
    k = settings.rrf_k
    for rank, (i, sim) in enumerate(sorted(best.items(), key=lambda t: -t[1]), 1):
        hits[i].unit_rank = rank
        hits[i].unit_score = sim
        hits[i].fused += 1.0 / (k + rank)


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


def within_document(ranked: list[Hit]) -> list[Hit]:
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
        if threaded(hit.chunk.kind) or (context and any(restates(context, u.text) for u in hit.chunk.units)):
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


def threaded(kind: str) -> bool:
    """The kind is a conversation that opens with a question or report (its descriptor says so)."""
    from briefing import registry
    from briefing.errors import BriefError

    try:
        return registry.kind(kind).threaded
    except BriefError:
        return False


def _unit_bm25(query: SparseVec, units: Sequence[SparseVec]) -> list[float]:
    """BM25 of each unit against the query, with the inverse document frequency taken over these units."""
    terms = set(query.indices)
    # Each unit's weights of the query's terms, in the unit's order (a vector's indices are distinct).
    matched = [[(i, v) for i, v in zip(vec.indices, vec.values, strict=True) if i in terms] for vec in units]
    df: dict[int, int] = {}
    for pairs in matched:
        for t, _ in pairs:
            df[t] = df.get(t, 0) + 1
    n = len(units)
    idf = {t: math.log((n - d + 0.5) / (d + 0.5) + 1.0) for t, d in df.items()}
    return [sum(v * idf[i] for i, v in pairs) for pairs in matched]


def restates(context: str, text: str) -> bool:
    """`context` (a chunk's header) holds the opening words of `text` (a unit): the header stands for that unit."""
    head = _head(text, 60).removesuffix("...")
    return len(head) >= 20 and head[:40] in context


def _head(text: str, size: int) -> str:
    """`" ".join(text.split())[:size]`, normalising only as much of `text` as that needs (the spaces of a prefix,
    normalised, are a prefix of the whole text's)."""
    if len(text) > 4 * size:
        head = " ".join(text[: 4 * size].split())
        if len(head) > size:
            return head[:size]
    return " ".join(text.split())[:size]


def unit_texts(chunk: Chunk) -> list[tuple[int, str]]:
    """The texts the unit list embeds for a chunk, with each unit's position: a unit read under the chunk's header.

    Ingest embeds these same texts into the vector cache (`briefing.warm`), so this is the one place they are made.
    """
    context = unit_context(chunk)
    out: list[tuple[int, str]] = []
    for pos, unit in enumerate(chunk.units):
        # A thread's root is in every chunk's header already: the header alone stands for it.
        if unit.text.strip() and not (context and restates(context, unit.text)):
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
