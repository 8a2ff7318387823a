"""Process: a source's cached records normalised, chunked, embedded where they changed, and synced to the index."""

from __future__ import annotations

import functools
import itertools
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict

from briefing import access, killpoint, people
from briefing.embed import Embedder
from briefing.index import Filter, Index, content_hash
from briefing.ingest.chunking import iter_chunks
from briefing.ingest.collecting import make_connector
from briefing.ingest.embed_queue import EmbedQueue
from briefing.ingest.progress import ProgressCallback, SourceProgress
from briefing.ingest.records import ChunkRecords, Entry, document_digest, settings_key
from briefing.ingest.reports import ProcessReport
from briefing.ingest.resume import ChunkMemo, Resumed
from briefing.model import Chunk, Connector, Document, Normalised, StreamingNormaliser
from briefing.settings import Settings
from briefing.store import RawStore, SourceState

log = logging.getLogger(__name__)
Progress = ProgressCallback


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


def process(
    settings: Settings,
    name: str,
    index: Index,
    embedder: Embedder,
    *,
    connector: Connector | None = None,
    progress: Progress | None = None,
    memo: ChunkMemo | None = None,
) -> ProcessReport:
    """Normalise the cached records of one source, chunk them, embed what changed, and sync the index.

    Streaming: records are normalised in parts where the connector can (`StreamingNormaliser`: a Slack export
    one channel at a time), documents are chunked a window at a time, a document's chunks are taken a group at
    a time as its chunker makes them, and changed chunks are embedded and upserted as soon as an embedding round
    is full; so memory holds one part's documents and one group's chunks, never the whole source's. What the
    index holds of the source beyond the chunks it should hold is deleted at the end; readers see the source
    change only when the writer publishes (`Index.commit`). With `memo` (a long-lived writer's), a resumable
    document is chunked again only from where its items changed (`briefing.ingest.resume`).
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
        chained = itertools.chain([first], parts)
        _process_parts(settings, name, index, embedder, state, chained, report, progress, memo)
    except BaseException:
        if memo is not None:
            memo.clear()  # what the index holds of the source is no longer known: chunked whole next time
        raise
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
    memo: ChunkMemo | None = None,
) -> None:
    directory = people.records_for(settings)
    config = settings.sources.get(name)
    audience = config.audience if config is not None else None

    begun = index_started = time.perf_counter()
    index.ensure(embedder.dim, embedder.name)
    flt = Filter(source_names=(name,))
    stored = {p.payload["chunk_id"]: p.payload for p in index.scroll(flt, fields=["chunk_id", "hash", "readers"])}
    existing = {cid: payload.get("hash") for cid, payload in stored.items()}
    old_readers = {cid: payload.get("readers") for cid, payload in stored.items()}
    del stored
    report.index_seconds += time.perf_counter() - index_started
    # Documents whose content, settings and code match their last chunking, with their chunks still indexed,
    # are not chunked again (`briefing.ingest.records`).
    records = ChunkRecords.for_source(settings, name, settings_key(settings, name, embedder.name, directory, audience))
    fresh: dict[str, Entry] = {}  # the entries of the documents chunked in this window

    wanted: set[str] = set()
    containers: set[str] = set()
    tickets: set[str] = set()
    todo: list[Chunk] = []
    sizes: dict[str, int] = {}  # model tokens of each chunk in `todo`
    step = settings.embedding.round_chunks  # chunks per embed+upsert round: bounded memory, little padding
    limit = settings.embedding.max_tokens

    def embed_round(part: list[Chunk]) -> None:  # in the embedding thread (`EmbedQueue`)
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
        if settings.embedding.warm_cache and settings.embedding.warm_at == "ingest":
            warm_round(part)
        tell()

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
            digest = content_hash(chunk, embedder.name)
            entry = fresh.get(chunk.doc_key)
            if entry is not None:
                entry.chunks[chunk.chunk_id] = digest
                if chunk.container and chunk.container not in entry.containers:
                    entry.containers.append(chunk.container)
                entry.tickets += [t for t in chunk.tickets if t not in entry.tickets]
                entry.truncated += int(chunk.truncated)
                entry.over_limit += tokens > limit
            if existing.get(chunk.chunk_id) == digest:
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

    def reuse(entry: Entry) -> None:  # an unchanged document: its recorded chunks stand as they are
        report.chunks += len(entry.chunks)
        report.unchanged += len(entry.chunks)
        wanted.update(entry.chunks)
        containers.update(entry.containers)
        tickets.update(entry.tickets)
        report.truncated += entry.truncated
        report.over_limit += entry.over_limit

    context = hash((repr(directory), repr(audience), embedder.name))

    def chunked(window: Sequence[Document]) -> Iterator[Chunk]:
        if memo is None:
            return iter_chunks(settings, window, embedder, name, report.failures)
        plans = memo.plan(window, context, existing.keys())
        keep(plans)
        redo = [plan.chunk for plan in plans if plan.chunk is not None]
        return memo.renumbered(plans, iter_chunks(settings, redo, embedder, name, report.failures))

    def keep(plans: list[Resumed]) -> None:  # chunks a resumed document keeps as the index holds them
        for plan in plans:
            report.chunks += len(plan.kept)
            report.unchanged += len(plan.kept)
            wanted.update(plan.kept)
            if plan.kept:  # part kept, part re-chunked: the record could not list it whole, so it is not recorded
                fresh.pop(plan.document.key, None)
            if plan.kept and plan.document.container:
                containers.add(plan.document.container)
            for found in plan.kept_tickets:
                tickets.update(found)

    def tell() -> None:  # from this thread and the embedding thread: plain reads of counters, never a lock held
        if progress:
            progress(
                SourceProgress(
                    name,
                    "indexing",
                    items=items[0],
                    items_total=items[1],
                    chunks=report.chunks,
                    to_embed=chosen[0],
                    embedded=report.embedded,
                    seconds=time.perf_counter() - begun,
                )
            )

    embedding = EmbedQueue()
    chosen = [0]  # chunks that changed, to embed (the progress total)
    items = [0, 0]  # items of the documents chunked so far, of the documents read so far
    try:
        for normalised in parts:  # people come with the first part (saved by the caller)
            report.failures.extend(normalised.failures)
            report.documents += len(normalised.documents)
            documents = normalised.documents
            items[1] += sum(len(doc.items) for doc in documents)
            report.items = items[1]
            for first in range(0, len(documents), DOCUMENT_WINDOW):
                window = _to_chunk(documents[first : first + DOCUMENT_WINDOW], records, existing, fresh, reuse)
                report.rechunked += len(window)
                failed = len(report.failures)
                chunk_started = time.perf_counter()
                group: list[Chunk] = []
                for chunk in chunked(window):
                    group.append(chunk)
                    if len(group) >= step:  # a document's chunks (a 50 MB file makes ~55,000), a round at a time
                        report.chunk_seconds += time.perf_counter() - chunk_started
                        take(group, window)
                        group = []
                        chunk_started = time.perf_counter()
                report.chunk_seconds += time.perf_counter() - chunk_started
                take(group, window)
                for failure in report.failures[failed:]:
                    fresh.pop(failure.key, None)  # a document that failed is chunked again next time
                records.new.update(fresh)
                fresh.clear()
                items[0] += sum(len(doc.items) for doc in documents[first : first + DOCUMENT_WINDOW])
                tell()
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

    if memo is not None:
        wanted.difference_update(memo.abandoned)
        memo.abandoned.clear()
    index_started = time.perf_counter()
    stale = [cid for cid in existing if cid not in wanted]
    if stale:
        killpoint.reached("index.stale")
        index.delete_ids(stale)
    report.removed = len(stale)
    report.index_seconds += time.perf_counter() - index_started
    killpoint.reached("records.save")
    records.save()


def _to_chunk(
    window: Sequence[Document],
    records: ChunkRecords,
    existing: dict[str, str | None],
    fresh: dict[str, Entry],
    reuse: Callable[[Entry], None],
) -> list[Document]:
    """The window's documents that must be chunked; each unchanged one is handed to `reuse` instead, and each
    changed one gets an empty entry in `fresh` (filled as its chunks are taken), unless it cannot be recorded."""
    todo: list[Document] = []
    for doc in window:
        digest = document_digest(doc)
        entry = records.unchanged(doc, digest, existing)
        if entry is not None:
            reuse(entry)
            continue
        todo.append(doc)
        if digest is not None and doc.key not in fresh and doc.key not in records.new:
            fresh[doc.key] = Entry(digest)
        else:  # a key seen twice in one run is never recorded
            fresh.pop(doc.key, None)
            records.new.pop(doc.key, None)
    return todo
