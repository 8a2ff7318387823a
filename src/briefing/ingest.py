"""Ingestion: collect (connector -> raw cache -> cursor), then process (normalise -> chunk -> embed -> index).

`collect` is the only step that talks to a source. `process` works from the raw cache alone, which is also what
`brief reindex` runs. Per-item failures are counted and reported, never fatal.
"""

from __future__ import annotations

import functools
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from briefing import access, killpoint, people, registry
from briefing.embed import Embedder
from briefing.errors import BriefError, MassDeletionError, SourceError
from briefing.index import Filter, Index, content_hash
from briefing.model import (
    TOPIC_OFF,
    Chunk,
    ChunkLimits,
    Connector,
    Document,
    Failure,
    Normalised,
    StreamingNormaliser,
)
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
    chunk_seconds: float = 0.0  # chunking, with the per-item vectors that topic splits need
    embed_seconds: float = 0.0  # computing dense and sparse vectors (warming the vector cache included)
    warmed: int = 0  # unit-list texts and answer sentences embedded into the vector cache (`briefing.warm`)
    warm_seconds: float = 0.0  # of embed_seconds, the warming
    index_seconds: float = 0.0  # reading existing hashes, deleting stale chunks, upserting


def make_connector(settings: Settings, name: str, options: FetchOptions | None = None) -> Connector:
    config = settings.source(name)
    ctx = SourceContext(name=name, config=config, resolve=settings.resolve, options=options or FetchOptions())
    return connector_for(ctx)


def _saved_cursor(connector: Connector, name: str, saved: Any) -> Any:
    """The cursor a previous run saved; one that no longer reads (damaged, or from an incompatible version) is a
    one-line error naming the repair, not a traceback."""
    try:
        return connector.load_cursor(saved)
    except (TypeError, ValueError):  # pydantic's ValidationError is a ValueError
        raise SourceError(
            f"source '{name}': the saved cursor is unreadable: run `brief ingest {name} --full` to rebuild it"
        ) from None


def collect(settings: Settings, name: str, options: FetchOptions, connector: Connector | None = None) -> CollectReport:
    """Fetch new and changed records into the raw cache; the cursor moves only after its records are stored.

    Deletions are gathered over the whole run and applied at its end, after the deletion guard agreed; until then
    they are saved with each cursor (`pending_deletions`), so a crash or a refused run loses none of them.
    """
    started = time.perf_counter()
    connector = connector or make_connector(settings, name, options)
    state = SourceState.for_source(settings, name)
    if options.full and not options.dry_run:
        RawStore.retire_legacy(settings, name)
    store = RawStore.for_source(settings, name)
    report = CollectReport(source=name, dry_run=options.dry_run)
    stored: set[str] = set()
    # A full run re-lists everything, so it recomputes what is gone instead of trusting an earlier run's list.
    pending: set[str] = set() if options.full else state.pending_deletions
    try:
        saved = None if options.full else state.cursor
        cursor = _saved_cursor(connector, name, saved) if saved is not None else connector.initial_cursor()
        for batch in connector.fetch(cursor):
            report.batches += 1
            killpoint.reached("collect.batch")
            report.failures.extend(batch.failures)
            report.fetched += len(batch.records)
            if options.dry_run:
                report.deleted += len(batch.deleted)
                continue
            refused = store.put_many(batch.records)
            killpoint.reached("cache.written")
            report.failures.extend(refused)
            refused_keys = {f.key for f in refused}
            here = {r.key for r in batch.records if r.key not in refused_keys}
            stored |= here
            pending = (pending - here) | set(batch.deleted)
            if batch.complete:
                pending |= store.keys() - {r.key for r in batch.records}
            if batch.cursor is not None:
                state.save_cursor(batch.cursor.model_dump(mode="json"), pending=pending)
                killpoint.reached("cursor.saved")
        if not options.dry_run:
            if options.full:
                # A full run saw everything the source still has; what it did not store is gone at the source.
                # With failures we cannot tell "gone" from "unreadable this time", so cached data is kept.
                if report.failures:
                    log.warning("%s: full run had failures; stale cached records were kept", name)
                else:
                    pending |= store.keys() - stored
            gone = pending & store.keys()
            DeletionGuard(settings, name, len(store), options).check(gone)
            killpoint.reached("deletion.apply")
            report.deleted += store.delete_many(gone)
            killpoint.reached("deletion.applied")
            state.clear_pending_deletions()
    finally:
        store.close()
    report.seconds = time.perf_counter() - started
    return report


class DeletionGuard:
    """Refuses a run that would delete most of a source's cached records (an emptied listing, a broken export).

    A source that suddenly lists nothing, or loses more than `[sync] max_deletion_share` of its records, is far
    more often a broken export, a revoked permission or a misconfigured filter than a real mass deletion; the
    user confirms a real one with `--full --allow-deletions`.
    """

    def __init__(self, settings: Settings, name: str, cached: int, options: FetchOptions) -> None:
        self.name = name
        self.cached = cached
        self.share = settings.sync.max_deletion_share
        self.min_items = settings.sync.deletion_guard_min_items
        self.allowed = options.full and options.allow_deletions

    def check(self, keys: set[str]) -> None:
        total = len(keys)
        if not keys or self.allowed or self.cached == 0:
            return
        everything = total >= self.cached and self.cached > 1
        too_many = self.cached >= self.min_items and total > self.share * self.cached
        if everything or too_many:
            what = "all" if everything else f"{total / self.cached:.0%}"
            raise MassDeletionError(
                f"source '{self.name}': this run would delete {total} of its {self.cached} cached records "
                f"({what}), more than sync.max_deletion_share={self.share:g} allows, so nothing was deleted and "
                "nothing re-indexed. If the source really lost them, run "
                f"`brief ingest {self.name} --full --allow-deletions`; otherwise check the source (an emptied "
                "export listing, a changed channel or project filter, lost permissions)"
            )


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


def normalised_parts(connector: Connector, store: RawStore) -> Iterator[Normalised]:
    """A source's cached records, normalised: in parts where the connector streams, else all at once."""
    if isinstance(connector, StreamingNormaliser):
        yield from connector.normalise_parts(store)
        return
    records = list(store.records())
    normalised = connector.normalise(records)
    del records
    yield normalised


# Documents chunked together: their per-item vectors are one embedding call, and only their chunks (plus the
# chunks waiting for an embedding round) are in memory at a time, however large the source.
DOCUMENT_WINDOW = 64
# Embedding rounds waiting for the embedding thread: with the round being embedded and the one being filled, at
# most (EMBED_QUEUE_DEPTH + 2) x `[embedding] round_chunks` chunks are held beyond the window's documents.
EMBED_QUEUE_DEPTH = 2


class _EmbedQueue:
    """Embedding rounds (embed, upsert) run in one thread while the caller normalises and chunks the next ones.

    onnxruntime releases the GIL while it computes, so the Python work of chunking, hashing and access overlaps
    with the embedding instead of waiting for it. The queue is bounded (`EMBED_QUEUE_DEPTH` rounds), so a fast
    chunker waits instead of piling chunks up. Every index write of the run goes through the thread, in the
    order it was queued, so writes never race each other. An error in the thread stops it (the rounds after it
    are skipped) and is raised in the caller at its next `put` or at `close`.
    """

    def __init__(self, depth: int = EMBED_QUEUE_DEPTH) -> None:
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._cancelled = False
        self._thread = threading.Thread(target=self._work, name="brief-embed", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            if self._error is None and not self._cancelled:
                try:
                    job()
                except BaseException as exc:  # raised again in the caller's thread
                    self._error = exc

    def _check(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            self._cancelled = True
            raise error

    def put(self, job: Callable[[], None]) -> None:
        self._check()
        self._jobs.put(job)

    def close(self, *, cancel: bool = False, quiet: bool = False) -> None:
        """Wait for the queued rounds (with `cancel`, only the one running), then raise the thread's error unless
        `quiet` (the caller is raising its own)."""
        self._cancelled = self._cancelled or cancel
        self._jobs.put(None)
        self._thread.join()
        if not quiet:
            self._check()


def process(
    settings: Settings,
    name: str,
    index: Index,
    embedder: Embedder,
    *,
    connector: Connector | None = None,
    progress: Progress | None = None,
) -> ProcessReport:
    """Normalise the cached records of one source, chunk them, embed what changed, and sync the index.

    Streaming: records are normalised in parts where the connector can (`StreamingNormaliser`: a Slack export
    one channel at a time), documents are chunked a window at a time, a document's chunks are taken a group at
    a time as its chunker makes them, and changed chunks are embedded and upserted as soon as an embedding round
    is full; so memory holds one part's documents and one group's chunks, never the whole source's. What the
    index holds of the source beyond the chunks it should hold is deleted at the end; readers see the source
    change only when the writer publishes (`Index.commit`).
    """
    started = time.perf_counter()
    report = ProcessReport(source=name)
    connector = connector or make_connector(settings, name)
    store = RawStore.for_source(settings, name)
    try:
        parts = normalised_parts(connector, store)
        first = next(parts, Normalised())
        killpoint.reached("normalise")
        state = SourceState.for_source(settings, name)
        state.save_people([asdict(p) for p in first.people])
        _process_parts(settings, name, index, embedder, state, itertools.chain([first], parts), report, progress)
    finally:
        store.close()
    report.seconds = time.perf_counter() - started
    return report


def _process_parts(
    settings: Settings,
    name: str,
    index: Index,
    embedder: Embedder,
    state: SourceState,
    parts: Iterator[Normalised],
    report: ProcessReport,
    progress: Progress | None,
) -> None:
    directory = people.records_for(settings)
    config = settings.sources.get(name)
    audience = config.audience if config is not None else None

    index_started = time.perf_counter()
    index.ensure(embedder.dim, embedder.name)
    flt = Filter(source_names=(name,))
    stored = {p.payload["chunk_id"]: p.payload for p in index.scroll(flt, fields=["chunk_id", "hash", "readers"])}
    existing = {cid: payload.get("hash") for cid, payload in stored.items()}
    old_readers = {cid: payload.get("readers") for cid, payload in stored.items()}
    del stored
    report.index_seconds += time.perf_counter() - index_started

    wanted: set[str] = set()
    containers: set[str] = set()
    tickets: set[str] = set()
    todo: list[Chunk] = []
    sizes: dict[str, int] = {}  # model tokens of each chunk in `todo`
    step = settings.embedding.round_chunks  # chunks per embed+upsert round: bounded memory, little padding
    limit = settings.embedding.max_tokens

    def embed_round(part: list[Chunk]) -> None:  # in the embedding thread (`_EmbedQueue`)
        embed_started = time.perf_counter()
        dense = embedder.dense([c.text for c in part])
        sparse = embedder.sparse([c.text for c in part])
        upsert_started = time.perf_counter()
        report.embed_seconds += upsert_started - embed_started
        killpoint.reached("embed")
        index.upsert(part, dense, sparse, embedder.name)
        killpoint.reached("index.upsert")
        report.index_seconds += time.perf_counter() - upsert_started
        report.embedded += len(part)
        if settings.embedding.warm_cache:
            warm_round(part)
        if progress:
            progress(name, report.embedded, chosen[0])

    def warm_round(part: list[Chunk]) -> None:  # in the embedding thread, after the round is written
        from briefing.warm import warm

        warm_started = time.perf_counter()
        try:
            report.warmed += warm(settings, part, embedder).embedded
        except Exception as exc:  # a cache left cold costs the first questions time, never the run or its data
            log.warning("%s: the vector cache was not warmed for %d chunks: %s", name, len(part), exc)
        killpoint.reached("embed.warmed")
        spent = time.perf_counter() - warm_started
        report.warm_seconds += spent
        report.embed_seconds += spent

    def take(chunks: list[Chunk], window: Sequence[Document]) -> None:
        people.annotate(chunks, directory)
        access.assign(chunks, window, name, directory, audience)
        unchanged: set[str] = set()
        for chunk in chunks:
            report.chunks += 1
            wanted.add(chunk.chunk_id)
            if chunk.container:
                containers.add(chunk.container)
            tickets.update(chunk.tickets)
            report.truncated += chunk.truncated
            tokens = embedder.count_tokens(chunk.text)
            report.over_limit += tokens > limit
            if existing.get(chunk.chunk_id) == content_hash(chunk, embedder.name):
                report.unchanged += 1
                unchanged.add(chunk.chunk_id)
            else:
                todo.append(chunk)
                sizes[chunk.chunk_id] = min(tokens, limit)  # what the model reads of it
                chosen[0] += 1
        # Readers change without the text changing (a member left a channel): updated in place, not re-embedded.
        regranted = access.changed_readers(chunks, old_readers, unchanged)
        if regranted:
            embedding.put(functools.partial(index.set_readers, regranted))
        while len(todo) >= step:
            part, todo[:] = todo[:step], todo[step:]
            queue_round(part)

    def queue_round(part: list[Chunk]) -> None:
        # Sorted by model tokens, not characters: each ONNX batch pads to its longest text, and on olake a sort
        # by characters padded chunk batches to 1.22x their real tokens, a sort by tokens to 1.02x
        # (bench/padding_check.py).
        part.sort(key=lambda c: sizes.pop(c.chunk_id, limit))
        embedding.put(functools.partial(embed_round, part))
        killpoint.reached("embed.queued")

    embedding = _EmbedQueue()
    chosen = [0]  # chunks that changed, to embed (the progress total)
    try:
        for normalised in parts:  # people come with the first part (saved by the caller)
            report.failures.extend(normalised.failures)
            report.documents += len(normalised.documents)
            documents = normalised.documents
            for first in range(0, len(documents), DOCUMENT_WINDOW):
                window = documents[first : first + DOCUMENT_WINDOW]
                chunk_started = time.perf_counter()
                group: list[Chunk] = []
                for chunk in iter_chunks(settings, window, embedder, name, report.failures):
                    group.append(chunk)
                    if len(group) >= step:  # a document's chunks (a 50 MB file makes ~55,000), a round at a time
                        report.chunk_seconds += time.perf_counter() - chunk_started
                        take(group, window)
                        group = []
                        chunk_started = time.perf_counter()
                report.chunk_seconds += time.perf_counter() - chunk_started
                take(group, window)
            del documents, normalised
        if todo:
            part, todo[:] = list(todo), []
            queue_round(part)
    except BaseException as exc:
        # The rounds chunked before an error are still written, as when they were written in this thread; an
        # interrupt (Ctrl-C) waits only for the round being embedded.
        embedding.close(cancel=not isinstance(exc, Exception), quiet=True)
        raise
    embedding.close()
    state.save_directory(sorted(containers), sorted(tickets))

    index_started = time.perf_counter()
    stale = [cid for cid in existing if cid not in wanted]
    if stale:
        killpoint.reached("index.stale")
        index.delete_ids(stale)
    report.removed = len(stale)
    report.index_seconds += time.perf_counter() - index_started


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
