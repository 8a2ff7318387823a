"""Two-level index: one short extractive summary per conversation, searched before the items themselves.

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
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from briefing import registry
from briefing.digest import text as tx
from briefing.embed import Embedder
from briefing.errors import BriefError, NotConfiguredError
from briefing.index import Index
from briefing.model import Chunk, Unit
from briefing.settings import Settings

log = logging.getLogger(__name__)

SUFFIX = "--summaries"
MAX_SENTENCES = 4
# 2: a summary's dense vector is its conversation's chunk centroid (`conversation_vectors`), not its text's.
CACHE_VERSION = 2


def summary_settings(settings: Settings) -> Settings:
    """The settings of the summary index: the same engine, a sibling workspace (its own folder or collection)."""
    workspace = settings.workspace.model_copy(update={"name": settings.workspace.name + SUFFIX})
    qdrant = settings.qdrant
    if qdrant.path:
        qdrant = qdrant.model_copy(update={"path": str(qdrant.path).rstrip("/") + SUFFIX})
    return settings.model_copy(update={"workspace": workspace, "qdrant": qdrant})


def cache_path(settings: Settings) -> Path:
    return settings.workspace_home / "summaries.json"


def available(settings: Settings) -> bool:
    """Summaries are on (`[digest] summaries`) and were computed at ingest (cheap: the cache file, not the index)."""
    return settings.digest.summaries and bool(_load_cache(cache_path(settings)))


def _is_stream(kind: str) -> bool:
    try:
        return registry.kind(kind).stream
    except BriefError:
        return False


def _units(chunks: Sequence[Chunk]) -> list[tuple[Unit, Chunk]]:
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
    units = _units(chunks)
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
    )


@dataclass
class RefreshReport:
    documents: int = 0
    summarised: int = 0
    unchanged: int = 0
    deleted: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)


def _load_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    docs = data.get("documents")
    return docs if isinstance(docs, dict) else {}


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
            stream[kind] = _is_stream(kind)
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
    cache = _load_cache(path)
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


def _everything() -> Any:
    from briefing.index import Filter

    return Filter()


def summary_size(settings: Settings) -> int:
    """Bytes on disk of the summary index and its cache (for the benchmark)."""
    return disk_bytes(cache_path(settings)) + disk_bytes(summary_settings(settings).workspace_home)


def disk_bytes(path: Path) -> int:
    """Bytes a file or folder takes on disk (allocated blocks: the engine's files are sparse)."""
    if path.is_file():
        return path.stat().st_blocks * 512
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


# -- `brief summarize TOPIC`: search the summaries, drill down into the best conversations ----------------------


@dataclass
class SummaryLine:
    title: str
    text: str
    citations: list[dict[str, Any]]
    doc_key: str
    score: float
    chunks: list[Chunk] = field(default_factory=list)  # the chunk of each citation, in order (not serialised)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "text": self.text, "conversation": self.doc_key, "citations": self.citations}


@dataclass
class Summary:
    topic: str
    now: datetime
    lines: list[SummaryLine]
    searched: int  # summaries in the summary index
    matched: int  # summaries the query path returned
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "now": self.now.isoformat(),
            "lines": [line.to_json() for line in self.lines],
            "summaries_searched": self.searched,
            "summaries_matched": self.matched,
            "timings_ms": dict(self.timings_ms),
        }


def _terms(topic: str) -> set[str]:
    from briefing.digest.conversation import topic_terms

    return topic_terms(topic)


def _relevance(sentence: str, terms: set[str]) -> float:
    from briefing.digest.conversation import topic_terms

    have = topic_terms(sentence)
    return len(terms & have) / len(terms) if terms else 0.0


def answer(
    settings: Settings,
    index: Index,
    embedder: Embedder,
    topic: str,
    *,
    now: datetime,
    conversations: int = 6,
    per_conversation: int = 2,
) -> Summary:
    """The best summaries for `topic` (the one query path over the summary index), then each conversation's own
    units as of `now`: per conversation one line, its sentences quoted from the exact units and cited to them."""
    from briefing.errors import IndexError_
    from briefing.index import Filter
    from briefing.retrieve import Retriever, SearchQuery

    if not settings.digest.summaries:
        raise NotConfiguredError(
            "conversation summaries are off ([digest] summaries = false): set it to true and run `brief ingest`, "
            "or ask the question with `brief ask`"
        )
    t0 = time.perf_counter()
    with Index.open(summary_settings(settings)) as summaries:
        if not summaries.exists() or summaries.count() == 0:
            raise IndexError_(
                f"workspace '{settings.workspace.name}' has no conversation summaries yet: run `brief ingest` "
                "(summaries are computed at ingest)"
            )
        total = summaries.count()
        found = Retriever(settings.retrieval, summaries, embedder).retrieve(
            SearchQuery(topic, now=now, k=conversations * 2)
        )
    t1 = time.perf_counter()
    best: list[tuple[str, float]] = []
    for hit in found.hits:
        if hit.chunk.doc_key not in dict(best):
            best.append((hit.chunk.doc_key, hit.score))
    best = best[:conversations]
    terms = _terms(topic)
    lines: list[SummaryLine] = []
    n = 1
    if best:
        chunks = index.chunks(Filter(as_of=now, doc_keys=tuple(k for k, _ in best)))
        by_doc: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            by_doc.setdefault(chunk.doc_key, []).append(chunk)
        for key, score in best:
            own = by_doc.get(key)
            if not own:
                continue  # written after `now`, or gone since the summary was made
            units = _units(own)
            scored = []
            for i, (unit, chunk) in enumerate(units):
                sentence, value = tx.best_sentence(unit.text)
                if value <= 0 or not sentence:
                    continue
                scored.append(
                    (2.0 * _relevance(unit.text, terms) + value + (0.3 if i == 0 else 0.0), i, sentence, unit, chunk)
                )
            if not scored:
                continue
            chosen = sorted(sorted(scored, key=lambda s: -s[0])[:per_conversation], key=lambda s: s[1])
            parts = []
            cites = []
            used: list[Chunk] = []
            for _, _, sentence, unit, chunk in chosen:
                used.append(chunk)
                who = f"{unit.author}: " if unit.author else ""
                parts.append(f'{who}"{sentence}" [{n}]')
                cites.append({"n": n, "refs": [unit.ref], "url": unit.url or chunk.url})
                n += 1
            # The conversation's own title: its shortest section path ends with it ("Space > Page > Section").
            name = min((c.title for c in own if c.title), key=lambda t: (t.count(" > "), len(t)), default="")
            title = tx.short(name.split(" > ")[-1].strip() or own[0].title, 120)
            lines.append(SummaryLine(title, f"{title} — " + "; ".join(parts), cites, key, round(score, 4), used))
    return Summary(
        topic=topic,
        now=now,
        lines=lines,
        searched=total,
        matched=len(best),
        timings_ms={
            "summaries": round((t1 - t0) * 1000, 1),
            "drill_down": round((time.perf_counter() - t1) * 1000, 1),
        },
    )


def render(summary: Summary, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(summary.to_json(), ensure_ascii=False) + "\n"
    md = fmt == "md"
    head = f"Summary: {tx.neutral(summary.topic)}"
    out = [f"# {head}" if md else head, ""]
    if not summary.lines:
        out.append(
            f'No conversation is about "{tx.neutral(summary.topic)}" '
            f"(searched {summary.searched} conversation summaries as of {summary.now:%Y-%m-%d %H:%M %Z})."
        )
        return "\n".join(out) + "\n"
    out.append(
        f"{len(summary.lines)} conversations, from {summary.searched} conversation summaries; "
        f"as of {summary.now:%Y-%m-%d %H:%M %Z}"
    )
    out.append("")
    for line in summary.lines:
        text = line.text
        if md:
            for c in line.citations:
                if c["url"]:
                    text = text.replace(f"[{c['n']}]", f"[[{c['n']}]]({c['url']})", 1)
        out.append(f"- {text}")
    out.append("")
    for line in summary.lines:
        for c in line.citations:
            out.append(
                f"[{c['n']}] {' '.join(c['refs'])}" + (f" {c['url']}" if c["url"] else "") + ("  " if md else "")
            )
    return "\n".join(out).rstrip() + "\n"
