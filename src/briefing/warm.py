"""The texts the first questions would embed, embedded at ingest instead.

A search ranks its candidates by their best unit (`retrieve.units.unit_list`: each message, comment or section read
under its chunk's header) and an ask scores the evidence sentences (`ExtractiveAnswerer.score`); both embed their
texts through the on-disk vector cache (`Embedder.dense_cached`). Without this the first questions after an ingest
paid for those embeddings (0.4 to 1.9 s a search on two cores, docs/performance.md "Cold vector cache"). Ingest
calls `warm` for each round of changed chunks, in the embedding thread; the texts come from the query-time code's
own functions (`retrieve.unit_texts`, `extractive.sentence_text`) and the keys from `embed.cache_key`, so what
ingest stores is what a question looks up. Only texts the cache lacks are embedded, one model call per model.
`[embedding] warm_sentences = false` leaves the sentences to the answers that read them (each embedded once).
Either way what the answers would compute from the units is kept beside the vectors: their sentence splits
(`briefing.ask.splits`) and the unit list's BM25 vectors (`Embedder.sparse_stored`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from briefing.embed import CACHE_MAX_CHARS, Embedder
from briefing.errors import ModelError
from briefing.model import Chunk
from briefing.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Warmed:
    texts: int = 0  # distinct texts the query-time code would look up
    embedded: int = 0  # of them, not cached yet: embedded now


def unit_list_texts(chunks: Sequence[Chunk]) -> list[str]:
    """What the retriever's unit list embeds for these chunks."""
    from briefing.retrieve import unit_texts

    return [text for chunk in chunks for _, text in unit_texts(chunk)]


def sentence_texts(chunks: Sequence[Chunk], embedder: Embedder, *, keep: Embedder | None = None) -> list[str]:
    """What the extractive answerer embeds for these chunks' evidence sentences (its own candidate list); with
    `keep`, the units' sentence splits are kept in its vector cache for the answers (`briefing.ask.splits`)."""
    from briefing.ask.extractive import ExtractiveAnswerer, sentence_text
    from briefing.ask.segment import reading
    from briefing.ask.splits import stored_splits

    answerer = ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=1)
    with reading(stored_splits(keep) if keep is not None else None):
        evidence = answerer.candidates(chunks)
    return [sentence_text(e) for e in evidence]


def _keep_unit_bm25(settings: Settings, chunks: Sequence[Chunk], embedder: Embedder) -> None:
    """The unit list's BM25 vectors of these chunks, kept in the vector cache (`Embedder.sparse_stored`)."""
    retrieval = settings.retrieval
    if retrieval.unit_list and retrieval.dense and retrieval.sparse:
        embedder.sparse_stored(unit_list_texts(chunks), keep=True)


def warm(settings: Settings, chunks: Sequence[Chunk], embedder: Embedder) -> Warmed:
    """Embed into the vector cache the unit-list texts and answer sentences of `chunks` that it lacks."""
    from briefing.ask.extractive import SENTENCE_MAX_CHARS

    wanted: dict[int, tuple[Embedder, dict[str, None]]] = {}

    def add(model: Embedder, texts: list[str], max_chars: int) -> None:
        _, todo = wanted.setdefault(id(model), (model, {}))
        todo.update(dict.fromkeys(model.missing(texts, max_chars=max_chars)))

    found = Warmed()
    if settings.retrieval.unit_list and settings.retrieval.dense:
        units = unit_list_texts(chunks)
        found.texts += len(set(units))
        add(embedder, units, CACHE_MAX_CHARS)
    _keep_unit_bm25(settings, chunks, embedder)
    second = None
    if not settings.embedding.warm_sentences:
        sentence_texts(chunks, embedder, keep=embedder)
    else:
        scorer = embedder.for_model(settings.answer.sentence_model)
        sentences = sentence_texts(chunks, scorer, keep=embedder)
        found.texts += len(set(sentences))
        add(scorer, sentences, SENTENCE_MAX_CHARS)
        second = embedder.for_model(settings.answer.rescore_model) if settings.answer.rescore_model else None
        if second is not None and second is not scorer:
            # The second model rereads a question's best lines, which may be any sentence: all of them are warmed.
            add(second, sentences, SENTENCE_MAX_CHARS)
    for model, todo in wanted.values():
        if todo:
            try:
                # Clipped texts (a sentence to 300 characters, a unit to 2,000) key the same under the longer clip;
                # `dense_cached` sorts them by model tokens, units and sentences together.
                model.dense_cached(list(todo))
            except ModelError as exc:
                if model is not second:
                    raise
                # Without the second model's package the answers use the first model alone (ask.rescoring).
                log.warning("the second sentence model is not warmed: %s", exc)
                continue
            found.embedded += len(todo)
    return found
