"""The embedded engine: the index interface over qdrant-edge-py shards (generations: `briefing.index.edge_store`)."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from briefing import killpoint
from briefing.embed import SparseVec
from briefing.errors import IndexError_
from briefing.index.base import Index, moment_and_readers_only
from briefing.index.edge_files import log, release_freed_memory
from briefing.index.edge_store import Generations
from briefing.index.filter import Filter, Record
from briefing.index.payload import DENSE, KEEP_FIELDS, SPARSE, chunk_to_payload, content_hash, light_chunk, point_id
from briefing.index.translate import FilterModels, translate
from briefing.model import Chunk
from briefing.settings import Settings

# Points whose `KEEP_FIELDS` one reader keeps for the vocabulary's lookups (a few hundred bytes each).
LIGHT_KEPT = 20_000


class EdgeModels(FilterModels):
    """qdrant-edge's models for `briefing.index.translate` (the same filter shape as qdrant-client's)."""

    def __init__(self) -> None:
        import qdrant_edge as qe

        self.qe = qe

    def any_of(self, key: str, values: Sequence[str]) -> Any:
        return self.qe.FieldCondition(key=key, match=self.qe.MatchAny(any=list(values)))

    def range(self, key: str, *, gte: float | None = None, lte: float | None = None, lt: float | None = None) -> Any:
        return self.qe.FieldCondition(key=key, range=self.qe.RangeFloat(gte=gte, lte=lte, lt=lt))

    def empty(self, key: str) -> Any:
        return self.qe.IsEmptyCondition(key=key)

    def all_of(self, must: Sequence[Any] = (), should: Sequence[Any] = ()) -> Any:
        return self.qe.Filter(must=list(must) or None, should=list(should) or None)


def edge_filter(
    flt: Filter | None,
    should: Sequence[Filter] = (),
    *,
    first_valid_until: float | None = -math.inf,
    last_written: float | None = None,
) -> Any:
    """Our `Filter` as a qdrant-edge filter (`briefing.index.translate`)."""
    return translate(flt, EdgeModels(), should, first_valid_until=first_valid_until, last_written=last_written)


class EdgeIndex(Generations, Index):
    """The workspace's embedded index; each read sees the latest published generation, whole."""

    engine = "qdrant-edge"
    _valid_until: tuple[Path, float | None] | None = None  # the published generation's earliest valid_until_ts
    _points: tuple[Path, int] | None = None  # the published generation's number of points
    _last_written: tuple[Path, float | None] | None = None  # no earlier than its latest written_ts or start_ts
    _light: tuple[Path, dict[str, Chunk]] | None = None  # its points read for `sparse_docs`, by point id

    @classmethod
    def connect(cls, settings: Settings) -> EdgeIndex:
        q = settings.qdrant
        root = settings.resolve(Path(q.path)) if q.path else settings.workspace_home / "index"
        legacy = settings.workspace_home / "qdrant" / "collection" / f"brief_{settings.workspace.name}"
        return cls(root, q, legacy=legacy if legacy.is_dir() else None)

    # -- schema -----------------------------------------------------------------------------------------------
    def exists(self) -> bool:
        return self._shard is not None

    def dense_size(self) -> int | None:
        meta = self._meta() if self._shard is not None else None
        return int(meta["dim"]) if meta is not None else None

    def ensure(self, dim: int, model: str) -> None:
        self._legacy = None  # a writer rebuilds from the raw cache, which migrates an old local-mode index
        meta = self._meta() if self._shard is not None else None
        if meta is None:
            self._begin(empty=True, dim=dim, model=model)
            return
        if int(meta["dim"]) != dim:
            raise IndexError_(
                f"the index was built with {meta['dim']}-d vectors but [embedding] model '{model}' gives {dim}-d: "
                "run `brief reindex --full` to rebuild it"
            )

    def drop(self) -> None:
        """Start an empty generation; what is published stays visible until this writer commits."""
        self._legacy = None
        meta = self._meta()
        if meta is not None:
            self._begin(empty=True, dim=int(meta["dim"]), model=str(meta["model"]))
        else:
            self._writer_lock = self._writer_lock or self._take_writer_lock()
            self._writer_gen = None
        self._legacy = None

    # -- writes -----------------------------------------------------------------------------------------------
    def upsert(
        self,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float]] | np.ndarray,
        sparse: Sequence[SparseVec],
        model: str,
    ) -> None:
        import qdrant_edge as qe

        self._begin()
        if self._writer is None:
            raise IndexError_(f"the index at {self.root} has no collection yet: ingest a source first")
        step = self.qdrant.upsert_batch
        rows = list(zip(chunks, dense, sparse, strict=True))
        for start in range(0, len(rows), step):
            points = [
                qe.Point(
                    id=point_id(chunk.chunk_id),
                    vector={
                        DENSE: dvec.tolist() if isinstance(dvec, np.ndarray) else [float(x) for x in dvec],
                        SPARSE: qe.SparseVector(indices=list(svec.indices), values=list(svec.values)),
                    },
                    payload=chunk_to_payload(chunk, content_hash(chunk, model)),
                )
                for chunk, dvec, svec in rows[start : start + step]
            ]
            self._writer.update(qe.UpdateOperation.upsert_points(points))
            self._wrote(len(points))
            self._segment_full()

    def _segment_full(self) -> None:
        """Optimize inside a long write once a segment's worth of points is new (`[qdrant] segment_points`):
        the optimizer then builds graphs of at most one segment, and the appendable segment never grows past it."""
        meta = self._writer_meta
        q = self.qdrant
        if meta is None or not q.segment_points or not q.optimize_min_points:
            return
        if int(meta.get("since_optimize", 0)) >= q.segment_points:
            started = time.perf_counter()
            self._writer.optimize()
            # The sealed segment's in-memory structures are freed once the shard is flushed (into this writer's
            # own generation: nothing is published); returning them bounds the writer's memory by one segment.
            self._writer.flush()
            killpoint.reached("index.sealed")
            release_freed_memory()
            log.info("optimized a %d-point segment in %.1f s", meta["since_optimize"], time.perf_counter() - started)
            meta["since_optimize"] = 0

    def delete_ids(self, chunk_ids: Iterable[str]) -> None:
        import qdrant_edge as qe

        ids: list[Any] = [point_id(c) for c in chunk_ids]
        if not ids:
            return
        self._begin()
        if self._writer is None:
            return
        for start in range(0, len(ids), 512):
            self._writer.update(qe.UpdateOperation.delete_points(ids[start : start + 512]))
        self._wrote(len(ids))

    def set_payloads(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        import qdrant_edge as qe

        if not updates:
            return
        self._begin()
        if self._writer is None:
            return
        for chunk_id, payload in updates.items():
            self._writer.update(qe.UpdateOperation.set_payload([point_id(chunk_id)], dict(payload)))
        self._wrote(len(updates))

    # -- reads ------------------------------------------------------------------------------------------------
    def _scroll_raw(
        self, flt: Filter | None, should: Sequence[Filter], fields: Sequence[str] | bool, batch: int
    ) -> Iterator[Record]:
        import qdrant_edge as qe

        shard = self._shard
        if shard is None:
            return
        qflt = self._filter(shard, flt, should)
        with_payload = list(fields) if not isinstance(fields, bool) else fields
        offset = None
        while True:
            points, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=batch, filter=qflt, with_payload=with_payload, with_vector=False)
            )
            for point in points:
                yield Record(id=str(point.id), payload=dict(point.payload or {}))
            if offset is None:
                break

    def dense_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        shard = self._shard
        if shard is None:
            return {}
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(chunk_ids), 512):
            ids = [point_id(c) for c in chunk_ids[start : start + 512]]
            for point in shard.retrieve(ids, ["chunk_id"], [DENSE]):
                vector = point.vector.get(DENSE) if isinstance(point.vector, dict) else None
                if vector is not None and point.payload:
                    out[str(point.payload["chunk_id"])] = np.asarray(vector, dtype=np.float32)
        return out

    def count(self, flt: Filter | None = None) -> int:
        import qdrant_edge as qe

        shard = self._shard
        if shard is None:
            return 0
        flt = self._scoped(flt)
        whole = (flt is None or flt == Filter()) and shard is self._reader and self._reader_gen is not None
        if whole and self._points is not None and self._points[0] == self._reader_gen:
            return self._points[1]  # a published generation never changes: its size is counted once
        found = int(shard.count(qe.CountRequest(exact=True, filter=self._filter(shard, flt))))
        if whole and self._reader_gen is not None:
            self._points = (self._reader_gen, found)
        return found

    def _filter(self, shard: Any, flt: Filter | None, should: Sequence[Filter] = ()) -> Any:
        """`flt` for `shard`; on a published generation (which never changes) its earliest `valid_until_ts` and
        latest write are read once, so the superseded and the written-by-then conditions, which the engine tests
        point by point, are sent only where a cut reaches them (most questions are asked after the last write)."""
        first: float | None = -math.inf
        last: float | None = None
        gen = self._reader_gen
        if flt is not None and flt.as_of is not None and shard is self._reader and gen is not None:
            if self._valid_until is None or self._valid_until[0] != gen:
                self._valid_until = (gen, self._first_valid_until(shard))
            first = self._valid_until[1]
            if self._last_written is None or self._last_written[0] != gen:
                self._last_written = (gen, self._latest_written(shard))
            last = self._last_written[1]
        return edge_filter(flt, should, first_valid_until=first, last_written=last)

    @staticmethod
    def _latest_written(shard: Any) -> float | None:
        """The latest `written_ts` or `start_ts` of any point (at least every point's written time), from the
        payload indexes; None where it cannot be read."""
        import qdrant_edge as qe

        found: list[float] = []
        try:
            for key in ("written_ts", "start_ts"):
                order = qe.OrderBy(key=key, direction=qe.Direction.Desc)
                points, _ = shard.scroll(qe.ScrollRequest(limit=1, order_by=order, with_payload=[key]))
                values = [v for p in points if isinstance(v := (p.payload or {}).get(key), int | float)]
                if not values:
                    # Nothing ordered: right only when no point holds the key (an index built before it).
                    held = qe.Filter(must_not=[qe.IsEmptyCondition(key=key)])
                    if key == "start_ts" or shard.count(qe.CountRequest(exact=True, filter=held)):
                        return None
                found.extend(float(v) for v in values)
        except Exception:  # noqa: BLE001 - without it the condition is always sent (the same results)
            return None
        return max(found, default=None)

    @staticmethod
    def _first_valid_until(shard: Any) -> float | None:
        import qdrant_edge as qe

        cond = qe.Filter(must_not=[qe.IsEmptyCondition(key="valid_until_ts")])
        found: list[float] = []
        offset = None
        while True:
            points, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=1024, filter=cond, with_payload=["valid_until_ts"])
            )
            for point in points:
                value = (point.payload or {}).get("valid_until_ts")
                if isinstance(value, int | float):
                    found.append(float(value))
            if offset is None:
                return min(found, default=None)

    def _query(
        self, using: str, vector: Any, *, limit: int, flt: Filter, fields: Sequence[str] | bool = True
    ) -> list[tuple[dict[str, Any], float]]:
        return self._query_many(using, [vector], limit=limit, flt=flt, fields=fields)[0]

    def _query_many(
        self, using: str, vectors: Sequence[Any], *, limit: int, flt: Filter, fields: Sequence[str] | bool = True
    ) -> list[list[tuple[dict[str, Any], float]]]:
        import qdrant_edge as qe

        shard = self._shard
        if shard is None:
            return [[] for _ in vectors]
        qflt = self._filter(shard, flt)
        params = self._search_params(using)
        payload = list(fields) if not isinstance(fields, bool) else fields
        requests = [
            qe.QueryRequest(
                limit=limit,
                query=qe.Query.Nearest(
                    qe.SparseVector(indices=list(v.indices), values=list(v.values)) if using == SPARSE else v,
                    using=using,
                ),
                filter=qflt,
                with_payload=payload,
                with_vector=False,
                params=params,
            )
            for v in vectors
        ]
        if len(requests) == 1:
            found = [shard.query(requests[0])]
        else:  # one planned pass over the segments for all of them
            found = shard.query_batch(qe.QueryBatchRequest(queries=requests)) if requests else []
        return [[(dict(p.payload or {}), float(p.score)) for p in points] for points in found]

    def sparse_docs(self, vectors: Sequence[SparseVec], *, limit: int, flt: Filter) -> list[list[str]]:
        """As `Index.sparse_docs`; on a published generation the engine returns only the hits' ids, and each point's
        `KEEP_FIELDS` are read once per generation (a point never changes within one): the payloads were four
        fifths of the vocabulary's engine time."""
        import qdrant_edge as qe

        scoped = self._scoped(flt) or flt
        shard, gen = self._shard, self._reader_gen
        if shard is None or shard is not self._reader or gen is None or not moment_and_readers_only(scoped):
            return super().sparse_docs(vectors, limit=limit, flt=flt)
        if self._light is None or self._light[0] != gen:
            self._light = (gen, {})
        known = self._light[1]
        wanted = [v for v in vectors if v.indices]
        qflt = self._filter(shard, scoped)
        requests = [
            qe.QueryRequest(
                limit=limit,
                query=qe.Query.Nearest(qe.SparseVector(indices=list(v.indices), values=list(v.values)), using=SPARSE),
                filter=qflt,
                with_payload=False,
                with_vector=False,
            )
            for v in wanted
        ]
        found = shard.query_batch(qe.QueryBatchRequest(queries=requests)) if requests else []
        ids = [[str(p.id) for p in points] for points in found]
        missing = list({i for row in ids for i in row if i not in known})
        if missing:
            if len(known) + len(missing) > LIGHT_KEPT:
                known.clear()
            for point in shard.retrieve(missing, KEEP_FIELDS, False):
                known[str(point.id)] = light_chunk(dict(point.payload or {}))
        points = [[known.get(i) for i in row] for row in ids]
        if any(point is None for row in points for point in row):  # another reader started the memo again
            return super().sparse_docs(vectors, limit=limit, flt=flt)
        rows = iter(points)
        return [
            [c.doc_key for c in next(rows) if c is not None and scoped.keep(c) is not None] if v.indices else []
            for v in vectors
        ]

    def _search_params(self, using: str) -> Any:
        """The HNSW search effort for dense queries (`[qdrant] hnsw_ef`); `exact` is brute force (benchmarks)."""
        import qdrant_edge as qe

        q = self.qdrant
        if using != DENSE or (q.hnsw_ef is None and not self.exact and q.quantization == "none"):
            return None
        quantization = None
        if self.exact:  # brute force over the float vectors: the benchmarks' reference
            quantization = qe.QuantizationSearchParams(ignore=True)
        elif q.quantization != "none":  # candidates from the quantised copy, rescored with the float vectors
            quantization = qe.QuantizationSearchParams(rescore=True, oversampling=q.quantization_oversampling)
        return qe.SearchParams(hnsw_ef=q.hnsw_ef, exact=self.exact, quantization=quantization)
