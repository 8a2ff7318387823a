"""Spreading the top k: near repeats and a document's sections that cite nothing new follow the top k."""

from __future__ import annotations

from briefing.model import Chunk
from briefing.retrieve.model import Hit
from briefing.retrieve.query import WORD
from briefing.retrieve.units import unit_context

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


def diversify(ranked: list[Hit], k: int) -> tuple[list[Hit], list[Hit]]:
    """The top k before spreading (the strongest chunks: the answer stage reads these) and the spread ranking."""
    if NEAR_DUPLICATE:
        ranked = demote_near_duplicates(ranked, k)
    strongest = ranked[:k]
    if PER_DOCUMENT:
        ranked = spread_documents(ranked, k, PER_DOCUMENT, PER_TOP_DOCUMENT)
    return strongest, ranked


def _grams(chunk: Chunk) -> set[tuple[str, ...]]:
    """The word 5-grams of a chunk's body (its header line, which a thread's chunks share, left out)."""
    text = chunk.text
    if unit_context(chunk):
        text = text.split("\n", 1)[-1]
    words = WORD.findall(text.lower())
    if len(words) < 5:
        return {tuple(words)} if words else set()
    return set(zip(words, words[1:], words[2:], words[3:], words[4:], strict=False))


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
