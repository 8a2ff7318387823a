"""Chunk documents with their kind's limits, embedding only the item vectors that topic-shift splits ask for."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from briefing import killpoint, registry
from briefing.embed import Embedder
from briefing.errors import BriefError
from briefing.model import TOPIC_OFF, Chunk, ChunkLimits, Document, Failure
from briefing.registry import chunker_for
from briefing.settings import Settings
from briefing.sources import DocumentKind

log = logging.getLogger(__name__)


def kind_limits(settings: Settings, kind: DocumentKind, count_tokens: Callable[[str], int]) -> ChunkLimits:
    """A document kind's chunk bounds: its descriptor's defaults, then the `[chunking]` keys that name it."""
    chunking = settings.chunking
    values = {name: getattr(kind.limits, name) for name in ("max_chars", "max_items", "gap_hours", "topic_threshold")}
    for name, key in kind.config_keys.items():
        if key in chunking.model_fields_set:
            values[name] = getattr(chunking, key)
    values.update(chunking.kinds.get(kind.name, {}))
    return ChunkLimits(
        max_tokens=min(chunking.max_tokens, settings.embedding.max_tokens),
        max_chars=int(values["max_chars"]),
        max_items=int(values["max_items"]),
        gap_seconds=float(values["gap_hours"]) * 3600,
        topic_threshold=float(values["topic_threshold"]),
        count_tokens=count_tokens,
    )


def _topic_split(kind_name: str) -> bool:
    try:
        return registry.kind(kind_name).topic_split
    except BriefError:
        return False  # an unknown kind fails later, in chunking, as a counted failure


# A topic shift compares consecutive items, so a document of one item (most Slack threads, a ticket without
# comments) can never split on topic and needs no per-item vector.
TOPIC_SPLIT_MIN_ITEMS = 2
# Chunking rounds before every vector a pending document could ask for is embedded at once (the bound on reruns).
TOPIC_ROUNDS = 6


def _can_split(doc: Document, settings: Settings | None = None) -> bool:
    """Whether the document's chunker may split it on topic (with `settings`: and its kind's threshold is on)."""
    if len(doc.items) < TOPIC_SPLIT_MIN_ITEMS or not _topic_split(doc.kind):
        return False
    return settings is None or _topic_threshold(settings, doc.kind) > TOPIC_OFF


def _topic_threshold(settings: Settings, kind_name: str) -> float:
    return kind_limits(settings, registry.kind(kind_name), len).topic_threshold


def item_vectors(
    documents: Sequence[Document], embedder: Embedder, only: set[str] | None = None
) -> Mapping[str, Sequence[float]]:
    """Embeddings of single items (messages, comments) for topic-shift splits; cached on disk by text.

    Only documents that can split on topic (two items or more) get them; `only` limits them to those refs.
    """
    refs: list[str] = []
    texts: list[str] = []
    for doc in documents:
        if _can_split(doc):
            for item in doc.items:
                if only is None or item.ref in only:
                    refs.append(item.ref)
                    texts.append(item.text)
    vectors = embedder.dense_cached(texts)
    # Rows of one float32 matrix (1.5 KB a 384-dim item), not lists of Python floats (12 KB): a 10,000-message
    # channel's vectors take 15 MB, not 120 MB. `chunkers.similarity.drifted` reads either.
    return cast("Mapping[str, Sequence[float]]", dict(zip(refs, vectors, strict=True)))


class _AskedVectors(Mapping[str, Sequence[float]]):
    """The item vectors one document's chunker reads, noting each one it asks for that is not embedded yet.

    A chunker asks for a vector only where it evaluates a topic shift (the Slack chunker: two messages in the
    open chunk, no long silence before, the message fits); an unembedded one reads as missing, which never
    splits, and the document is chunked again once the asked vectors are embedded.
    """

    def __init__(self, known: Mapping[str, Sequence[float]], refs: set[str]) -> None:
        self.known = known
        self.refs = refs
        self.missing: set[str] = set()

    def __getitem__(self, ref: str) -> Sequence[float]:
        if ref in self.refs:
            vector = self.known.get(ref)
            if vector is not None:
                return vector
            self.missing.add(ref)
        raise KeyError(ref)

    def __iter__(self) -> Iterator[str]:
        return iter([ref for ref in self.refs if ref in self.known])

    def __len__(self) -> int:
        return sum(ref in self.known for ref in self.refs)

    def __bool__(self) -> bool:
        return True  # given at all means the document splits on topic, even before any vector is known


@dataclass
class _Chunked:
    chunks: list[Chunk]
    failure: Failure | None = None
    missing: set[str] = field(default_factory=set)


def _chunk_one(
    settings: Settings, doc: Document, count_tokens: Callable[[str], int], vectors: _AskedVectors | None
) -> _Chunked:
    try:
        chunker = chunker_for(doc.kind)
        limits = kind_limits(settings, registry.kind(doc.kind), count_tokens)
        chunks = list(chunker(doc, limits=limits, vectors=vectors))  # a generator's errors are raised here
    except Exception as exc:  # one bad document must not abort the ingest
        log.warning("chunking %s failed: %s", doc.key, exc)
        return _Chunked([], Failure(key=doc.key, reason=f"chunking failed: {type(exc).__name__}: {exc}"))
    return _Chunked(chunks, missing=vectors.missing if vectors is not None else set())


def chunk_documents(
    settings: Settings, documents: Sequence[Document], embedder: Embedder, source_name: str
) -> tuple[list[Chunk], list[Failure]]:
    failures: list[Failure] = []
    chunks = list(iter_chunks(settings, documents, embedder, source_name, failures))
    return chunks, failures


def iter_chunks(
    settings: Settings, documents: Sequence[Document], embedder: Embedder, source_name: str, failures: list[Failure]
) -> Iterator[Chunk]:
    """The chunks of `documents` in document order; a document that fails is counted in `failures`.

    Conversations that can split on topic are chunked first (`_conversation_chunks`: only the item vectors their
    topic-shift decisions ask for are embedded); every other document's chunks are taken one at a time as its
    chunker makes them, so a large file is never held as one list of chunks.
    """
    counted = functools.lru_cache(maxsize=8192)(embedder.count_tokens)  # reruns measure the same texts again
    conversations = _conversation_chunks(settings, documents, embedder, counted)
    for n, doc in enumerate(documents):
        if n in conversations:
            done = conversations.pop(n)
            if done.failure is not None:
                failures.append(done.failure)
                continue
            for chunk in done.chunks:
                chunk.source_name = source_name
                yield chunk
            killpoint.reached("chunk")
            continue
        try:
            chunker = chunker_for(doc.kind)
            limits = kind_limits(settings, registry.kind(doc.kind), counted)
            for chunk in chunker(doc, limits=limits, vectors=None):
                chunk.source_name = source_name
                yield chunk
            killpoint.reached("chunk")
        except Exception as exc:  # one bad document must not abort the ingest
            log.warning("chunking %s failed: %s", doc.key, exc)
            failures.append(Failure(key=doc.key, reason=f"chunking failed: {type(exc).__name__}: {exc}"))


def _conversation_chunks(
    settings: Settings, documents: Sequence[Document], embedder: Embedder, counted: Callable[[str], int]
) -> dict[int, _Chunked]:
    """The chunks of the documents that can split on topic, by position, embedding only the item vectors their
    topic-shift decisions ask for.

    Vectors already in the on-disk cache are used from the start. A document whose chunker asked for vectors
    not embedded yet is chunked again once they are (all of a round's in one embedding call), so its chunks
    are the ones it would get with every item embedded, without embedding the items whose topic cannot change
    a boundary. After `TOPIC_ROUNDS` rounds the rest of a pending document's items are embedded at once.
    """
    positions = [n for n, doc in enumerate(documents) if _can_split(doc, settings)]
    if not positions:
        return {}
    similarity = embedder.for_model(settings.chunking.similarity_model)
    texts = {item.ref: item.text for n in positions for item in documents[n].items}
    known: dict[str, Sequence[float]] = {
        ref: cast("Sequence[float]", vec)  # float32 rows; `chunkers.similarity.drifted` reads them
        for ref, vec in zip(texts, similarity.cached_only(list(texts.values())), strict=True)
        if vec is not None
    }
    results: dict[int, _Chunked] = {}
    pending = positions
    rounds = 0
    while pending:
        rounds += 1
        asked: set[str] = set()
        for n in pending:
            doc = documents[n]
            results[n] = _chunk_one(settings, doc, counted, _AskedVectors(known, {item.ref for item in doc.items}))
            asked |= results[n].missing
        pending = [n for n in pending if results[n].missing]
        if rounds >= TOPIC_ROUNDS:
            asked |= {item.ref for n in pending for item in documents[n].items}
        if asked:
            known.update(item_vectors([documents[n] for n in pending], similarity, only=asked))
    return results
