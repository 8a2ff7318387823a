"""Building the summaries at ingest: one short extractive summary per conversation, refreshed when it changes.

At ingest (`refresh`, called once per `brief ingest` run) every conversation in the index (a thread, a ticket,
a PR, a page, an email thread, a meeting: a document whose kind is not a `stream`) gets a summary: its title,
the sentence it opens with, its most informative sentences and how it ended (the last replies). Each summary
sentence keeps the ref, author, time and link of the unit it came from. A summary's dense vector is the mean of
its conversation's chunk vectors, read back from the index (`conversation_vectors`: no model call); its sparse
one is the BM25 terms of its own text. Summaries live in their own index (the same engine, a sibling workspace
named `<name>--summaries`), so the one query path (`SearchQuery` -> `Retriever.retrieve`) searches them without
ever mixing them into ordinary answers.

A summary is recomputed only when its conversation changed: the cache (`summaries.json` in the workspace
home) keeps each document's content hash (its chunk ids and their stored content hashes, which cover the texts);
unchanged documents are neither summarised nor embedded again, and summaries of documents that left the index
are deleted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from briefing import registry
from briefing.digest import text as tx
from briefing.embed import Embedder
from briefing.errors import BriefError
from briefing.index import Filter, Index
from briefing.model import Chunk, Unit
from briefing.settings import Settings
from briefing.summaries.store import CACHE_VERSION, cache_path, load_cache, summary_settings

MAX_SENTENCES = 4


def is_stream(kind: str) -> bool:
    try:
        return registry.kind(kind).stream
    except BriefError:
        return False


def units_of(chunks: Sequence[Chunk]) -> list[tuple[Unit, Chunk]]:
    seen: dict[tuple[str, str], tuple[Unit, Chunk]] = {}
    for chunk in chunks:
        for unit in chunk.units:
            seen.setdefault((unit.ref, unit.text), (unit, chunk))
    return sorted(seen.values(), key=lambda uc: (uc[0].at or uc[1].start, uc[0].ref))


def summarise(chunks: Sequence[Chunk]) -> Chunk | None:
    """One conversation's extractive summary as a chunk of the summary index; None when it says nothing."""
    if not chunks:
        return None
    first = min(chunks, key=lambda c: (c.start, c.chunk_id))
    units = units_of(chunks)
    if not units:
        return None
    picked: list[tuple[float, int, str, Unit, Chunk]] = []
    opener, opener_chunk = units[0]
    gist = tx.gist(opener.text)
    if gist and not tx.is_filler(gist):
        picked.append((99.0, 0, gist, opener, opener_chunk))
    n = len(units)
    for i, (unit, chunk) in enumerate(units):
        sentence, value = tx.best_sentence(unit.text)
        if value <= 0 or not sentence or sentence == gist:
            continue
        if i >= max(1, n - 3):  # how it ended: the last replies say how things stand
            value += 0.5
        picked.append((value, i, sentence, unit, chunk))
    chosen = sorted(picked, key=lambda p: -p[0])[:MAX_SENTENCES]
    chosen.sort(key=lambda p: p[1])
    if not chosen:
        return None
    lines = [tx.short(first.title, 200)] + [p[2] for p in chosen]
    summary_units = [
        Unit(ref=unit.ref, text=sentence, author=unit.author, at=unit.at or chunk.start, url=unit.url or chunk.url)
        for _, _, sentence, unit, chunk in chosen
    ]
    return Chunk(
        chunk_id=f"summary::{first.doc_key}",
        doc_key=first.doc_key,
        source_type=first.source_type,
        kind=first.kind,
        title=first.title,
        text="\n".join(lines),
        refs=list(dict.fromkeys(u.ref for u in summary_units)),
        start=min(c.start for c in chunks),
        end=max(c.end for c in chunks),
        authors=list(dict.fromkeys(a for c in chunks for a in c.authors)),
        url=first.url,
        container=first.container,
        tickets=list(dict.fromkeys(t for c in chunks for t in c.tickets)),
        units=summary_units,
        metadata={"summary": True, "chunks": len(chunks)},
        source_name=first.source_name,
        readers=_common_readers(chunks),
    )


def _common_readers(chunks: Sequence[Chunk]) -> list[str] | None:
    """Who may read the summary: whoever may read every chunk it quotes from (None, the owner only, if any is)."""
    common: set[str] | None = None
    for chunk in chunks:
        if chunk.readers is None:
            return None
        common = set(chunk.readers) if common is None else common & set(chunk.readers)
    return sorted(common) if common is not None else None


@dataclass
class RefreshReport:
    documents: int = 0
    summarised: int = 0
    unchanged: int = 0
    deleted: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)


# Conversations summarised, embedded and written together: what `refresh` holds of the index's chunks at a time.
REFRESH_BATCH = 64


def _conversation_hashes(index: Index, model: str) -> dict[str, str]:
    """Each conversation's content hash, from its chunks' stored hashes (`index.content_hash`: text, refs, title,
    url, container and model) and ids, read without the chunks' texts: what `refresh` holds for the whole index
    is a hash per chunk, not the chunks."""
    stream: dict[str, bool] = {}
    by_doc: dict[str, list[tuple[str, str]]] = {}
    for record in index.scroll(_everything(), fields=["chunk_id", "doc_key", "kind", "hash"]):
        payload = record.payload
        kind = str(payload.get("kind"))
        if kind not in stream:
            stream[kind] = is_stream(kind)
        if not stream[kind]:
            by_doc.setdefault(str(payload["doc_key"]), []).append((str(payload["chunk_id"]), str(payload.get("hash"))))
    out: dict[str, str] = {}
    for key, chunks in by_doc.items():
        digest = hashlib.sha256()
        for chunk_id, chunk_hash in sorted(chunks):
            digest.update(f"{chunk_id}\0{chunk_hash}\0".encode())
        out[key] = f"{model}:{digest.hexdigest()}"
    return out


def refresh(settings: Settings, index: Index, embedder: Embedder) -> RefreshReport:
    """Bring the summary index up to date with `index`: summarise new and changed conversations, drop gone ones.

    Bounded memory whatever the index's size: the conversations' hashes are read without the chunks' texts, and
    only changed conversations are read whole, `REFRESH_BATCH` at a time (summarised, embedded, written).
    """
    t0 = time.perf_counter()
    report = RefreshReport()
    # The embedding model is part of the hash: another model re-embeds every summary.
    hashes = _conversation_hashes(index, embedder.name)
    report.documents = len(hashes)
    path = cache_path(settings)
    cache = load_cache(path)
    fresh: dict[str, Any] = {}
    changed: list[str] = []
    for key, digest in hashes.items():
        known = cache.get(key)
        if isinstance(known, dict) and known.get("hash") == digest:
            fresh[key] = known
            report.unchanged += 1
        else:
            changed.append(key)
    with contextlib.ExitStack() as stack:
        opened: list[Index] = []

        def summary_index() -> Index:
            if not opened:
                opened.append(stack.enter_context(Index.open(summary_settings(settings))))
            return opened[0]

        for start in range(0, len(changed), REFRESH_BATCH):
            keys = changed[start : start + REFRESH_BATCH]
            by_doc: dict[str, list[Chunk]] = {key: [] for key in keys}
            for chunk in index.chunks(replace(_everything(), doc_keys=tuple(keys))):
                if chunk.doc_key in by_doc:
                    by_doc[chunk.doc_key].append(chunk)
            todo: list[Chunk] = []
            for key in keys:
                try:
                    made = summarise(by_doc[key])
                except Exception as exc:  # one odd conversation must not cost the others their summaries
                    report.failures.append(f"{key}: {type(exc).__name__}")
                    continue
                fresh[key] = {"hash": hashes[key], "id": made.chunk_id if made else None}
                if made is not None:
                    todo.append(made)
            if todo:
                summaries = summary_index()
                if not report.summarised:
                    if summaries.exists() and summaries.dense_size() not in (None, embedder.dim):
                        summaries.drop()  # vectors of another model's size: rebuilt from scratch below
                    summaries.ensure(embedder.dim, embedder.name)
                texts = [c.text for c in todo]
                dense = conversation_vectors(index, [by_doc[c.doc_key] for c in todo], texts, embedder)
                summaries.upsert(todo, dense, embedder.sparse(texts), embedder.name)
                report.summarised += len(todo)
            del by_doc, todo
        gone = [v.get("id") for k, v in cache.items() if k not in hashes and isinstance(v, dict) and v.get("id")]
        # Changed documents whose new summary is empty lose the old one too.
        gone += [
            v.get("id") for k, v in cache.items() if k in fresh and fresh[k].get("id") is None and isinstance(v, dict)
        ]
        stale = [str(g) for g in gone if g]
        if stale:
            summaries = summary_index()
            if summaries.exists():
                summaries.delete_ids(stale)
                report.deleted = len(stale)
        if opened:
            opened[0].commit()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"version": CACHE_VERSION, "documents": fresh}), encoding="utf-8")
    tmp.replace(path)
    report.seconds = time.perf_counter() - t0
    return report


def conversation_vectors(
    index: Index, conversations: Sequence[Sequence[Chunk]], texts: Sequence[str], embedder: Embedder
) -> np.ndarray:
    """The dense vector of each conversation's summary: the normalised mean of its chunks' stored vectors.

    The chunks were embedded at ingest, so a summary costs no model call: the mean of a conversation's chunk
    vectors stands for the whole conversation (every message of it), where an embedding of the summary's few
    sentences stands for those sentences only (docs/performance.md compares the two). Its sparse (BM25) vector
    is still the summary text's own. A conversation none of whose vectors the index returns (an engine that
    gives no vectors back) has its summary text embedded instead, the lengths sorted for little padding.
    """
    out = np.zeros((len(conversations), embedder.dim), dtype=np.float32)
    missing: list[int] = []
    for n, chunks in enumerate(conversations):
        total = np.zeros(embedder.dim, dtype=np.float64)
        found = 0
        ids = [c.chunk_id for c in chunks]
        for start in range(0, len(ids), 512):  # a 55,000-chunk file is read a batch of vectors at a time
            for vector in index.dense_vectors(ids[start : start + 512]).values():
                if vector.shape == total.shape:
                    total += vector
                    found += 1
        norm = float(np.linalg.norm(total))
        if found and norm > 0:
            out[n] = total / norm
        else:
            missing.append(n)
    if missing:
        missing.sort(key=lambda n: len(texts[n]))
        out[missing] = embedder.dense([texts[n] for n in missing])
    return out


def _everything() -> Filter:
    return Filter()
