"""The Qdrant index: one collection per workspace, named dense + sparse vectors, payload indexes.

One interface, two engines. By default the embedded engine (qdrant-edge-py, `briefing.index_edge`) under
BRIEF_HOME, chosen by measurement (docs/performance.md); `[qdrant] url` talks to a Qdrant server or cluster
through qdrant-client (`ClientIndex`), and `[qdrant] engine = "local"` keeps qdrant-client's local mode (small
indexes, one process at a time). Point ids are uuid5 of the chunk id, so re-ingestion is idempotent; the payload
keeps a content hash so unchanged chunks are not re-embedded.

This module and `index_edge` own every Qdrant type: callers describe what they want with `Filter` and get
`IndexHit`s, `Chunk`s or `Record`s back. A filter with `as_of` sees the index as of that instant (`briefing.asof`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from briefing.asof import visible
from briefing.embed import SparseVec
from briefing.errors import IndexError_, StateError
from briefing.model import Chunk, Unit
from briefing.settings import QdrantSettings, Settings, secret

if TYPE_CHECKING:
    from briefing.view import View

DENSE = "dense"
SPARSE = "bm25"
_NS = uuid.UUID("6f1c7a52-3b8e-4f4e-9a51-8d1b2f0c9e11")
PAYLOAD_INDEXES = {
    "source_type": "keyword",
    "source_name": "keyword",
    "doc_key": "keyword",
    "doc_id": "keyword",
    "container": "keyword",
    "authors": "keyword",
    "tickets": "keyword",
    "refs": "keyword",
    "start_ts": "float",
    "end_ts": "float",
    "written_ts": "float",
    "readers": "keyword",
}
# A reader id no chunk carries: an empty scope still filters (sees nothing) rather than dropping the condition.
NO_READER = "\x00nobody"


@dataclass(frozen=True)
class Filter:
    """What to read: every field set must match (AND), any value within a field may (OR).

    `start`/`end` select chunks overlapping [start, end); `as_of` hides what was written after it.
    """

    as_of: datetime | None = None
    source_names: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    containers: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    tickets: tuple[str, ...] = ()
    doc_keys: tuple[str, ...] = ()
    doc_ids: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    start: datetime | None = None
    end: datetime | None = None
    # Access scope (`briefing.access`): only chunks whose `readers` hold one of these ids; None: no restriction
    # (the workspace owner). A chunk without readers never matches a scope (fail closed).
    readers: tuple[str, ...] | None = None

    def keep(self, chunk: Chunk) -> Chunk | None:
        """The chunk as this filter sees it (cut to `as_of`), or None; for what Qdrant matched on stored times."""
        if self.readers is not None and not set(self.readers) & set(chunk.readers or ()):
            return None  # the engines filtered on it already; a second check costs nothing
        if self.as_of is not None:
            seen = visible(chunk, self.as_of)
            if seen is None:
                return None
            chunk = seen
        # What a cut removed no longer matches: a later reply's ref, author or ticket, a window after the cut.
        if self.start is not None and chunk.end < self.start:
            return None
        for wanted, has in ((self.refs, chunk.refs), (self.authors, chunk.authors), (self.tickets, chunk.tickets)):
            if wanted and not set(wanted) & set(has):
                return None
        return chunk


@dataclass(frozen=True)
class IndexHit:
    """One scored chunk. `stored` is the chunk as indexed when it was cut to `as_of` (its score is the stored
    text's until the caller re-scores it)."""

    chunk: Chunk
    score: float
    stored: Chunk | None = None

    @property
    def cut(self) -> bool:
        return self.stored is not None


@dataclass(frozen=True)
class Record:
    """A stored point's payload (only the fields asked for)."""

    id: str
    payload: dict[str, Any]


def doc_id(doc_key: str) -> str:
    """The source-agnostic part of a document key: `PLAT-142` for `jira:PLAT-142`."""
    return doc_key.split(":", 1)[1] if ":" in doc_key else doc_key


def _any_key(chunk: Chunk, keys: Sequence[Filter]) -> bool:
    """Whether the (possibly cut) chunk still matches one of the key filters `fetch` asked Qdrant for."""
    return any(
        k.keep(chunk) is not None
        and (not k.doc_keys or chunk.doc_key in k.doc_keys)
        and (not k.doc_ids or doc_id(chunk.doc_key) in k.doc_ids)
        for k in keys
    )


class FilterModels:
    """How one engine spells a filter's parts; `translate` writes every rule once, for both engines.

    qdrant-client (`ClientModels`) and qdrant-edge (`briefing.index_edge.EdgeModels`) have the same filter shape
    (must/should of field conditions) in two sets of model classes.
    """

    def any_of(self, key: str, values: Sequence[str]) -> Any:
        """`key` holds any of `values` (a keyword, or one element of a keyword list)."""
        raise NotImplementedError

    def range(self, key: str, *, gte: float | None = None, lte: float | None = None, lt: float | None = None) -> Any:
        raise NotImplementedError

    def empty(self, key: str) -> Any:
        """`key` is missing, null or an empty list."""
        raise NotImplementedError

    def all_of(self, must: Sequence[Any] = (), should: Sequence[Any] = ()) -> Any:
        """Every condition in `must` and (when given) at least one in `should`."""
        raise NotImplementedError


class ClientModels(FilterModels):
    """qdrant-client's models (a server, a cluster, local mode)."""

    def __init__(self) -> None:
        from qdrant_client import models

        self.m = models

    def any_of(self, key: str, values: Sequence[str]) -> Any:
        return self.m.FieldCondition(key=key, match=self.m.MatchAny(any=list(values)))

    def range(self, key: str, *, gte: float | None = None, lte: float | None = None, lt: float | None = None) -> Any:
        return self.m.FieldCondition(key=key, range=self.m.Range(gte=gte, lte=lte, lt=lt))

    def empty(self, key: str) -> Any:
        return self.m.IsEmptyCondition(is_empty=self.m.PayloadField(key=key))

    def all_of(self, must: Sequence[Any] = (), should: Sequence[Any] = ()) -> Any:
        return self.m.Filter(must=list(must) or None, should=list(should) or None)


def conditions(flt: Filter, m: FilterModels) -> list[Any]:
    """`flt`'s conditions (all must hold), in one engine's models."""
    must: list[Any] = []
    if flt.as_of is not None:
        # What was written by then (`written_ts`); chunks indexed before it existed were written at their start.
        cut = flt.as_of.timestamp()
        must.append(
            m.all_of(
                should=[m.range("written_ts", lte=cut), m.all_of([m.empty("written_ts"), m.range("start_ts", lte=cut)])]
            )
        )
    for key, values in (
        ("source_name", flt.source_names),
        ("source_type", flt.source_types),
        ("container", flt.containers),
        ("authors", flt.authors),
        ("tickets", flt.tickets),
        ("doc_key", flt.doc_keys),
        ("doc_id", flt.doc_ids),
        ("refs", flt.refs),
    ):
        if values:
            must.append(m.any_of(key, values))
    if flt.readers is not None:  # the access scope, a hard filter applied before anything is ranked
        must.append(m.any_of("readers", list(flt.readers or (NO_READER,))))
    if flt.start is not None:
        must.append(m.range("end_ts", gte=flt.start.timestamp()))
    if flt.end is not None:
        must.append(m.range("start_ts", lt=flt.end.timestamp()))
    return must


def translate(flt: Filter | None, m: FilterModels, should: Sequence[Filter] = ()) -> Any:
    """Our `Filter` (AND of fields, OR within one) in one engine's models; `should` adds an OR of filters.

    None when nothing is filtered (both engines then read everything).
    """
    must = conditions(flt, m) if flt is not None else []
    any_of = [m.all_of(conditions(f, m)) for f in should]
    if not must and not any_of:
        return None
    return m.all_of(must, any_of)


def _qdrant(flt: Filter | None, should: Sequence[Filter] = ()) -> Any:
    return translate(flt, ClientModels(), should)


def point_id(chunk_id: str) -> str:
    return str(uuid.uuid5(_NS, chunk_id))


def content_hash(chunk: Chunk, model: str) -> str:
    """Changes whenever what is embedded (text, model) or what is shown (refs, title, url) changes."""
    basis = json.dumps([model, chunk.text, chunk.refs, chunk.title, chunk.url, chunk.container], sort_keys=True)
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


def chunk_to_payload(chunk: Chunk, digest: str) -> dict[str, Any]:
    payload = asdict(chunk)
    payload["doc_id"] = doc_id(chunk.doc_key)
    payload["start"] = chunk.start.isoformat()
    payload["end"] = chunk.end.isoformat()
    payload["start_ts"] = chunk.start.timestamp()
    payload["end_ts"] = chunk.end.timestamp()
    payload["written_at"] = chunk.written_at.isoformat() if chunk.written_at else None
    payload["written_ts"] = (chunk.written_at or chunk.start).timestamp()
    payload["units"] = [
        {"ref": u.ref, "text": u.text, "author": u.author, "at": u.at.isoformat() if u.at else None, "url": u.url}
        for u in chunk.units
    ]
    payload["hash"] = digest
    clean: dict[str, Any] = json.loads(json.dumps(payload, default=str))
    return clean


def payload_to_chunk(payload: dict[str, Any]) -> Chunk:
    units = [
        Unit(
            ref=u["ref"],
            text=u["text"],
            author=u.get("author"),
            at=_dt(u["at"]) if u.get("at") else None,
            url=u.get("url") or "",
        )
        for u in payload.get("units", [])
    ]
    return Chunk(
        chunk_id=payload["chunk_id"],
        doc_key=payload["doc_key"],
        source_type=payload["source_type"],
        kind=payload["kind"],
        title=payload.get("title", ""),
        text=payload["text"],
        refs=list(payload.get("refs", [])),
        start=_dt(payload["start"]),
        end=_dt(payload["end"]),
        authors=list(payload.get("authors", [])),
        url=payload.get("url", ""),
        container=payload.get("container", ""),
        tickets=list(payload.get("tickets", [])),
        units=units,
        metadata=dict(payload.get("metadata", {})),
        source_name=payload.get("source_name", ""),
        truncated=bool(payload.get("truncated", False)),
        written_at=_dt(payload["written_at"]) if payload.get("written_at") else None,
        readers=list(payload["readers"]) if isinstance(payload.get("readers"), list) else None,
    )


def _dt(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class Index:
    """The workspace's index. Open it with `Index.open(settings)`; close it when done (a writer publishes then).

    Engines implement the primitives (`_scroll_raw`, `_query`, writes); the typed reads are shared here.
    """

    engine: ClassVar[str] = ""
    collection: str
    location: str
    # The access scope every read of this object applies (`restrict`); None: everything (writers, the owner).
    readers: tuple[str, ...] | None = None

    def restrict(self, readers: tuple[str, ...] | None) -> Index:
        """Make every read through this object see only chunks one of `readers` may see (None: everything)."""
        self.readers = readers
        return self

    def view(self, now: datetime, readers: tuple[str, ...] | None = None) -> View:
        """What a reader sees at `now`: every read cut by time and by access (`briefing.view`)."""
        from briefing.view import View

        scope = readers if readers is not None else self.readers
        return View(self, now, scope)

    def _scoped(self, flt: Filter | None) -> Filter | None:
        if self.readers is None:
            return flt
        return replace(flt or Filter(), readers=self.readers)

    @classmethod
    def open(cls, settings: Settings) -> Index:
        """The engine the settings choose: a server (`url`), qdrant-client local mode, or the embedded default."""
        if settings.qdrant.url or settings.qdrant.engine == "local":
            return ClientIndex.connect(settings)
        from briefing.index_edge import EdgeIndex

        return EdgeIndex.connect(settings)

    @classmethod
    def retire_damaged(cls, settings: Settings) -> Path | None:
        """Move a local index folder that cannot be opened aside (for `reindex --full`); None if it opens."""
        if settings.qdrant.url:
            return None
        try:
            index = cls.open(settings)
        except StateError:  # local mode checks when it opens
            path = settings.resolve(Path(settings.qdrant.path or (settings.workspace_home / "qdrant")))
        else:
            try:
                index.exists()  # the embedded engine opens (and checks) what is published on its first read
                return None
            except StateError:
                path = Path(index.location)
            finally:
                index.close()
        aside = path.with_name(f"{path.name}.damaged-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}")
        path.rename(aside)
        return aside

    def close(self) -> None:
        """Release the engine; a writer publishes what it wrote first."""

    def commit(self) -> None:
        """Make what was written visible to other processes (engines that write in place do nothing)."""

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema and writes (per engine) -----------------------------------------------------------------------
    def exists(self) -> bool:
        raise NotImplementedError

    def ensure(self, dim: int, model: str) -> None:
        raise NotImplementedError

    def dense_size(self) -> int | None:
        """The stored dense vectors' dimension (None when the index holds no collection yet)."""
        raise NotImplementedError

    def drop(self) -> None:
        raise NotImplementedError

    def upsert(
        self,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float]] | np.ndarray,
        sparse: Sequence[SparseVec],
        model: str,
    ) -> None:
        raise NotImplementedError

    def delete_ids(self, chunk_ids: Iterable[str]) -> None:
        raise NotImplementedError

    def set_payloads(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Set payload keys of stored chunks (chunk id -> {key: value}) without re-embedding them."""
        raise NotImplementedError

    def set_readers(self, readers: dict[str, list[str] | None]) -> None:
        """Replace stored chunks' readers (chunk id -> readers) without re-embedding: a membership change."""
        self.set_payloads({chunk_id: {"readers": value} for chunk_id, value in readers.items()})

    def count(self, flt: Filter | None = None) -> int:
        raise NotImplementedError

    def dense_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored dense vectors of these chunks, by chunk id (a chunk the index does not hold is left out)."""
        raise NotImplementedError

    def _scroll_raw(
        self, flt: Filter | None, should: Sequence[Filter], fields: Sequence[str] | bool, batch: int
    ) -> Iterator[Record]:
        raise NotImplementedError

    def _query(self, using: str, vector: Any, *, limit: int, flt: Filter) -> list[tuple[dict[str, Any], float]]:
        """(payload, score) of the best `limit` points by one named vector, inside `flt`'s stored-time bounds."""
        raise NotImplementedError

    # -- reads ------------------------------------------------------------------------------------------------
    def scroll(
        self, flt: Filter | None = None, *, fields: Sequence[str] | bool = True, batch: int = 512
    ) -> Iterator[Record]:
        """Stored payloads as they are (no as-of cut: for writers and checks that look at the index itself)."""
        yield from self._scroll_raw(self._scoped(flt), (), fields, batch)

    def chunks(self, flt: Filter) -> list[Chunk]:
        """Every chunk that matches, as `flt.as_of` sees it."""
        flt = self._scoped(flt) or flt
        return self._kept(self._scroll_raw(flt, (), True, 512), flt)

    def fetch(
        self,
        *,
        refs: Sequence[str] = (),
        doc_keys: Sequence[str] = (),
        doc_ids: Sequence[str] = (),
        tickets: Sequence[str] = (),
        within: Filter | None = None,
        whole_documents: bool = False,
    ) -> list[Chunk]:
        """Chunks by key (any of the keys given), inside `within`; `whole_documents` brings every chunk of their
        documents too, so a ref inside a thread or page brings the conversation around it."""
        within = self._scoped(within) or Filter()
        keys = [
            Filter(refs=tuple(refs)) if refs else None,
            Filter(doc_keys=tuple(doc_keys)) if doc_keys else None,
            Filter(doc_ids=tuple(doc_ids)) if doc_ids else None,
            Filter(tickets=tuple(tickets)) if tickets else None,
        ]
        should = [k for k in keys if k is not None]
        if not should:
            return []
        found = [c for c in self._kept(self._scroll_raw(within, should, True, 512), within) if _any_key(c, should)]
        if whole_documents and found:
            docs = tuple(sorted({c.doc_key for c in found}))
            found = self.chunks(replace(within, doc_keys=docs))
        unique = {c.chunk_id: c for c in found}
        return sorted(unique.values(), key=lambda c: (c.doc_key, c.start, c.chunk_id))

    @staticmethod
    def _kept(records: Iterable[Record], flt: Filter) -> list[Chunk]:
        out = []
        for record in records:
            chunk = flt.keep(payload_to_chunk(record.payload))
            if chunk is not None:
                out.append(chunk)
        return out

    def search_dense(self, vector: Sequence[float], *, limit: int, flt: Filter) -> list[IndexHit]:
        flt = self._scoped(flt) or flt
        return self._hits(self._query(DENSE, list(map(float, vector)), limit=limit, flt=flt), flt)

    def search_sparse(self, vector: SparseVec, *, limit: int, flt: Filter) -> list[IndexHit]:
        if not vector.indices:
            return []
        flt = self._scoped(flt) or flt
        return self._hits(self._query(SPARSE, vector, limit=limit, flt=flt), flt)

    @staticmethod
    def _hits(points: Iterable[tuple[dict[str, Any], float]], flt: Filter) -> list[IndexHit]:
        out = []
        for payload, score in points:
            stored = payload_to_chunk(payload)
            chunk = flt.keep(stored)
            if chunk is not None:
                cut = stored if chunk is not stored else None
                out.append(IndexHit(chunk=chunk, score=float(score), stored=cut))
        return out


class ClientIndex(Index):
    """qdrant-client: a Qdrant server or cluster (`[qdrant] url`), or local mode (`engine = "local"`)."""

    engine = "qdrant-client"

    def __init__(self, client: Any, collection: str, location: str, settings: QdrantSettings | None = None) -> None:
        self.client = client
        self.collection = collection
        self.location = location
        self.qdrant = settings or QdrantSettings()

    @property
    def server(self) -> bool:
        return self.location.startswith(("http://", "https://"))

    @classmethod
    def connect(cls, settings: Settings) -> ClientIndex:
        from qdrant_client import QdrantClient

        collection = f"brief_{settings.workspace.name}"
        q = settings.qdrant
        if q.url:
            api_key = secret(q.api_key_env, setting="qdrant.api_key_env").get_secret_value() if q.api_key_env else None
            client = QdrantClient(url=q.url, api_key=api_key, timeout=int(q.timeout_s))
            return cls(client, collection, q.url, q)
        path = settings.resolve(Path(q.path)) if q.path else settings.workspace_home / "qdrant"
        path.mkdir(parents=True, exist_ok=True)
        try:
            client = QdrantClient(path=str(path))
        except RuntimeError as exc:
            if "already accessed" in str(exc) or "lock" in str(exc).lower():
                raise IndexError_(
                    f'the index at {path} is in use by another brief process ([qdrant] engine = "local" allows one '
                    'at a time): wait for it to finish, or remove engine = "local" to use the embedded engine'
                ) from None
            raise
        except (ValueError, KeyError, TypeError, sqlite3.DatabaseError) as exc:
            # An emptied meta.json, a truncated storage file: the raw cache still holds everything.
            raise StateError(
                f"the index at {path} is damaged ({type(exc).__name__}: {str(exc)[:120]}): run "
                "`brief reindex --full` to rebuild it from the raw cache (nothing is re-fetched)"
            ) from None
        return cls(client, collection, str(path), q)

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # closing twice or at interpreter exit is harmless
            pass

    # -- schema -----------------------------------------------------------------------------------------------
    def exists(self) -> bool:
        return bool(self.client.collection_exists(self.collection))

    def dense_size(self) -> int | None:
        if not self.exists():
            return None
        vectors = self.client.get_collection(self.collection).config.params.vectors
        return vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else None

    def ensure(self, dim: int, model: str) -> None:
        from qdrant_client import models

        if self.exists():
            info = self.client.get_collection(self.collection)
            vectors = info.config.params.vectors
            size = vectors[DENSE].size if isinstance(vectors, dict) else None
            if size is not None and size != dim:
                raise IndexError_(
                    f"the index was built with {size}-d vectors but [embedding] model '{model}' gives {dim}-d: "
                    "run `brief reindex --full` to rebuild it"
                )
            self._backfill_doc_id()
            return
        q = self.qdrant
        hnsw = models.HnswConfigDiff(
            m=q.hnsw_m,
            ef_construct=q.hnsw_ef_construct,
            full_scan_threshold=q.hnsw_full_scan_threshold_kb,
            payload_m=q.hnsw_payload_m,
            on_disk=q.on_disk or None,
        )
        quantization: Any = None
        if q.quantization == "scalar":
            quantization = models.ScalarQuantization(
                scalar=models.ScalarQuantizationConfig(type=models.ScalarType.INT8, quantile=0.99, always_ram=True)
            )
        elif q.quantization == "binary":
            quantization = models.BinaryQuantization(binary=models.BinaryQuantizationConfig(always_ram=True))
        extra: dict[str, Any] = {}
        if self.server:  # local mode rejects cluster settings
            extra = {
                "shard_number": q.shards,
                "replication_factor": q.replicas,
                "write_consistency_factor": q.write_consistency,
                "on_disk_payload": q.on_disk_payload,
            }
        self.client.create_collection(
            self.collection,
            vectors_config={
                DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE, on_disk=q.on_disk or None)
            },
            sparse_vectors_config={
                SPARSE: models.SparseVectorParams(
                    modifier=models.Modifier.IDF, index=models.SparseIndexParams(on_disk=q.on_disk or None)
                )
            },
            hnsw_config=hnsw,
            quantization_config=quantization,
            **extra,
        )
        if not self.server:
            return  # local mode ignores payload indexes (and warns); a server needs them for filtered search
        schema = {"keyword": models.PayloadSchemaType.KEYWORD, "float": models.PayloadSchemaType.FLOAT}
        for field, kind in PAYLOAD_INDEXES.items():
            self.client.create_payload_index(self.collection, field, field_schema=schema[kind], wait=True)

    def _backfill_doc_id(self) -> None:
        """Indexes written before `doc_id` existed get it from `doc_key`, without re-embedding anything."""
        from qdrant_client import models

        missing = models.Filter(must=[models.IsEmptyCondition(is_empty=models.PayloadField(key="doc_id"))])
        ops: list[Any] = [
            models.SetPayloadOperation(
                set_payload=models.SetPayload(payload={"doc_id": doc_id(r.payload["doc_key"])}, points=[r.id])
            )
            for r in self._scroll(missing, ["doc_key"])
        ]
        for start in range(0, len(ops), 256):
            self.client.batch_update_points(self.collection, update_operations=ops[start : start + 256], wait=True)

    def drop(self) -> None:
        if self.exists():
            self.client.delete_collection(self.collection)

    # -- writes -----------------------------------------------------------------------------------------------
    def upsert(
        self,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float]] | np.ndarray,
        sparse: Sequence[SparseVec],
        model: str,
    ) -> None:
        from qdrant_client import models

        step = self.qdrant.upsert_batch
        rows = list(zip(chunks, dense, sparse, strict=True))
        # Points are built one batch at a time, so memory stays at one batch of payloads whatever the input.
        for start in range(0, len(rows), step):
            points = [
                models.PointStruct(
                    id=point_id(chunk.chunk_id),
                    vector={
                        DENSE: list(map(float, dvec)),
                        SPARSE: models.SparseVector(indices=svec.indices, values=svec.values),
                    },
                    payload=chunk_to_payload(chunk, content_hash(chunk, model)),
                )
                for chunk, dvec, svec in rows[start : start + step]
            ]
            self.client.upsert(self.collection, points=points, wait=True)

    def delete_ids(self, chunk_ids: Iterable[str]) -> None:
        from qdrant_client import models

        ids: list[int | str | uuid.UUID] = [point_id(c) for c in chunk_ids]
        for start in range(0, len(ids), 512):
            self.client.delete(
                self.collection,
                points_selector=models.PointIdsList(points=ids[start : start + 512]),
                wait=True,
            )

    def set_payloads(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        from qdrant_client import models

        ops: list[Any] = [
            models.SetPayloadOperation(set_payload=models.SetPayload(payload=dict(p), points=[point_id(c)]))
            for c, p in updates.items()
        ]
        for start in range(0, len(ops), 256):
            self.client.batch_update_points(self.collection, update_operations=ops[start : start + 256], wait=True)

    # -- reads ------------------------------------------------------------------------------------------------
    def _scroll_raw(
        self, flt: Filter | None, should: Sequence[Filter], fields: Sequence[str] | bool, batch: int
    ) -> Iterator[Record]:
        yield from self._scroll(_qdrant(flt, should), fields, batch)

    def _scroll(self, qflt: Any, fields: Sequence[str] | bool = True, batch: int = 512) -> Iterator[Record]:
        if not self.exists():
            return
        offset = None
        while True:
            points, offset = self.client.scroll(
                self.collection, scroll_filter=qflt, limit=batch, offset=offset, with_payload=fields
            )
            for point in points:
                yield Record(id=str(point.id), payload=dict(point.payload or {}))
            if offset is None:
                break

    def dense_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not self.exists():
            return {}
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(chunk_ids), 512):
            ids: list[int | str | uuid.UUID] = [point_id(c) for c in chunk_ids[start : start + 512]]
            for point in self.client.retrieve(self.collection, ids, with_payload=["chunk_id"], with_vectors=[DENSE]):
                vector = point.vector.get(DENSE) if isinstance(point.vector, dict) else None
                if vector is not None and point.payload:
                    out[str(point.payload["chunk_id"])] = np.asarray(vector, dtype=np.float32)
        return out

    def count(self, flt: Filter | None = None) -> int:
        if not self.exists():
            return 0
        return int(self.client.count(self.collection, count_filter=_qdrant(self._scoped(flt)), exact=True).count)

    def _query(self, using: str, vector: Any, *, limit: int, flt: Filter) -> list[tuple[dict[str, Any], float]]:
        from qdrant_client import models

        query = models.SparseVector(indices=vector.indices, values=vector.values) if using == SPARSE else vector
        q = self.qdrant
        ef = q.hnsw_ef if using == DENSE and self.server else None
        params = None
        if using == DENSE and self.server and (ef is not None or q.quantization != "none"):
            params = models.SearchParams(
                hnsw_ef=ef,
                # With quantization: oversampled candidates from the quantised copy, rescored with the originals.
                quantization=models.QuantizationSearchParams(rescore=True, oversampling=q.quantization_oversampling)
                if q.quantization != "none"
                else None,
            )
        result = self.client.query_points(
            self.collection,
            query=query,
            using=using,
            limit=limit,
            query_filter=_qdrant(flt),
            with_payload=True,
            search_params=params,
        )
        return [(dict(p.payload or {}), float(p.score)) for p in result.points]
