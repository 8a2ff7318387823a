"""Ingestion: collect (connector -> raw cache -> cursor), then process (normalise -> chunk -> embed -> index).

`collect` is the only step that talks to a source. `process` works from the raw cache alone, which is also what
`brief reindex` runs. Per-item failures are counted and reported, never fatal.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from briefing import people, registry
from briefing.embed import Embedder
from briefing.errors import BriefError
from briefing.index import Filter, Index, content_hash
from briefing.model import Chunk, ChunkLimits, Connector, Document, Failure
from briefing.registry import FetchOptions, SourceContext, chunker_for, connector_for
from briefing.settings import Settings
from briefing.sources import DocumentKind
from briefing.store import RawStore, SourceState

log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]


@dataclass
class CollectReport:
    source: str
    fetched: int = 0
    deleted: int = 0
    batches: int = 0
    failures: list[Failure] = field(default_factory=list)
    dry_run: bool = False
    seconds: float = 0.0


@dataclass
class ProcessReport:
    source: str
    documents: int = 0
    chunks: int = 0
    embedded: int = 0
    unchanged: int = 0
    removed: int = 0
    truncated: int = 0
    over_limit: int = 0
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0


def make_connector(settings: Settings, name: str, options: FetchOptions | None = None) -> Connector:
    config = settings.source(name)
    ctx = SourceContext(name=name, config=config, resolve=settings.resolve, options=options or FetchOptions())
    return connector_for(ctx)


def collect(settings: Settings, name: str, options: FetchOptions, connector: Connector | None = None) -> CollectReport:
    """Fetch new and changed records into the raw cache; the cursor moves only after its records are stored."""
    started = time.perf_counter()
    connector = connector or make_connector(settings, name, options)
    state = SourceState.for_source(settings, name)
    store = RawStore.for_source(settings, name)
    report = CollectReport(source=name, dry_run=options.dry_run)
    stored: set[str] = set()
    try:
        saved = None if options.full else state.cursor
        cursor = connector.load_cursor(saved) if saved is not None else connector.initial_cursor()
        for batch in connector.fetch(cursor):
            report.batches += 1
            report.failures.extend(batch.failures)
            report.fetched += len(batch.records)
            if options.dry_run:
                report.deleted += len(batch.deleted)
                continue
            store.put_many(batch.records)
            stored.update(r.key for r in batch.records)
            report.deleted += store.delete_many(batch.deleted)
            if batch.complete:
                present = {r.key for r in batch.records}
                report.deleted += store.delete_many(store.keys() - present)
            if batch.cursor is not None:
                state.save_cursor(batch.cursor.model_dump(mode="json"))
        if options.full and not options.dry_run:
            # A full run saw everything the source still has; what it did not store is gone at the source.
            # With failures we cannot tell "gone" from "unreadable this time", so cached data is kept.
            if report.failures:
                log.warning("%s: full run had failures; stale cached records were kept", name)
            else:
                report.deleted += store.delete_many(store.keys() - stored)
    finally:
        store.close()
    report.seconds = time.perf_counter() - started
    return report


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


def item_vectors(documents: Sequence[Document], embedder: Embedder) -> dict[str, list[float]]:
    """Embeddings of single items (messages, comments) for topic-shift splits; cached on disk by text."""
    refs: list[str] = []
    texts: list[str] = []
    for doc in documents:
        if _topic_split(doc.kind):
            for item in doc.items:
                refs.append(item.ref)
                texts.append(item.text)
    vectors = embedder.dense_cached(texts)
    return {ref: vec.tolist() for ref, vec in zip(refs, vectors, strict=True)}


def chunk_documents(
    settings: Settings, documents: Sequence[Document], embedder: Embedder, source_name: str
) -> tuple[list[Chunk], list[Failure]]:
    vectors = item_vectors(documents, embedder)
    chunks: list[Chunk] = []
    failures: list[Failure] = []
    for doc in documents:
        try:
            chunker = chunker_for(doc.kind)
            limits = kind_limits(settings, registry.kind(doc.kind), embedder.count_tokens)
            doc_vectors = {i.ref: vectors[i.ref] for i in doc.items if i.ref in vectors} or None
            for chunk in chunker(doc, limits=limits, vectors=doc_vectors):
                chunk.source_name = source_name
                chunks.append(chunk)
        except Exception as exc:  # one bad document must not abort the ingest
            log.warning("chunking %s failed: %s", doc.key, exc)
            failures.append(Failure(key=doc.key, reason=f"chunking failed: {type(exc).__name__}: {exc}"))
    return chunks, failures


def process(
    settings: Settings,
    name: str,
    index: Index,
    embedder: Embedder,
    *,
    connector: Connector | None = None,
    progress: Progress | None = None,
) -> ProcessReport:
    """Normalise the cached records of one source, chunk them, embed what changed, and sync the index."""
    started = time.perf_counter()
    report = ProcessReport(source=name)
    connector = connector or make_connector(settings, name)
    store = RawStore.for_source(settings, name)
    try:
        records = list(store.records())
    finally:
        store.close()
    normalised = connector.normalise(records)
    report.failures.extend(normalised.failures)
    report.documents = len(normalised.documents)
    state = SourceState.for_source(settings, name)
    state.save_people([asdict(p) for p in normalised.people])

    chunks, failures = chunk_documents(settings, normalised.documents, embedder, name)
    report.failures.extend(failures)
    people.annotate(chunks, people.records_for(settings))
    report.chunks = len(chunks)
    state.save_directory(
        sorted({c.container for c in chunks if c.container}), sorted({t for c in chunks for t in c.tickets})
    )
    report.truncated = sum(c.truncated for c in chunks)
    limit = settings.embedding.max_tokens
    report.over_limit = sum(embedder.count_tokens(c.text) > limit for c in chunks)

    index.ensure(embedder.dim, embedder.name)
    flt = Filter(source_names=(name,))
    existing = {p.payload["chunk_id"]: p.payload.get("hash") for p in index.scroll(flt, fields=["chunk_id", "hash"])}
    wanted = {c.chunk_id for c in chunks}
    stale = [cid for cid in existing if cid not in wanted]
    if stale:
        index.delete_ids(stale)
    report.removed = len(stale)

    todo = [c for c in chunks if existing.get(c.chunk_id) != content_hash(c, embedder.name)]
    report.unchanged = len(chunks) - len(todo)
    todo.sort(key=lambda c: len(c.text))  # less padding per ONNX batch
    step = max(settings.embedding.batch_size, 16)
    for start in range(0, len(todo), step):
        part = todo[start : start + step]
        dense = embedder.dense([c.text for c in part])
        sparse = embedder.sparse([c.text for c in part])
        index.upsert(part, dense, sparse, embedder.name)
        report.embedded += len(part)
        if progress:
            progress(name, report.embedded, len(todo))
    report.seconds = time.perf_counter() - started
    return report


def run_report(collected: CollectReport | None, processed: ProcessReport | None) -> dict[str, Any]:
    """The record kept in the source's state file and shown by `brief sources`."""
    failures = (collected.failures if collected else []) + (processed.failures if processed else [])
    return {
        "finished_at": datetime.now(UTC).isoformat(),
        "fetched": collected.fetched if collected else 0,
        "deleted": collected.deleted if collected else 0,
        "documents": processed.documents if processed else 0,
        "chunks": processed.chunks if processed else 0,
        "embedded": processed.embedded if processed else 0,
        "truncated": processed.truncated if processed else 0,
        "over_limit": processed.over_limit if processed else 0,
        "failures": len(failures),
        "failure_samples": [{"key": f.key, "reason": f.reason} for f in failures[:20]],
    }
