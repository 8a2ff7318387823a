"""qdrant-client's engine: a Qdrant server or cluster (`[qdrant] url`), or its local mode (`engine = "local"`)."""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from briefing.embed import SparseVec
from briefing.errors import ConfigError, IndexError_, StateError
from briefing.index.base import Index
from briefing.index.filter import Filter, Record
from briefing.index.payload import (
    DENSE,
    PAYLOAD_INDEXES,
    SPARSE,
    chunk_to_payload,
    content_hash,
    doc_id,
    point_id,
)
from briefing.index.translate import FilterModels, translate
from briefing.model import Chunk
from briefing.ops.disk import damage_or_full
from briefing.settings import QdrantSettings, Settings, secret
from briefing.sources import redact


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


class _ServerErrors:
    """The client with every call's server failure (unreachable, not a Qdrant, an error status) as `IndexError_`.

    qdrant-client raises `ResponseHandlingException` (nothing answered) and `UnexpectedResponse` (an HTTP
    status it did not expect); the exit-code contract wants one line naming `[qdrant] url` and exit 9.
    """

    def __init__(self, client: Any, url: str) -> None:
        self._client = client
        self._url = url

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return attr(*args, **kwargs)
            except Exception as exc:
                translated = server_error(exc, self._url)
                if translated is None:
                    raise
                raise translated from None

        return call


def server_error(exc: BaseException, url: str) -> IndexError_ | None:
    """A qdrant-client failure as the one-line error the CLI prints (exit 9), or None when it is not one."""
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    where = f"[qdrant] url = {redact(url)}"
    if isinstance(exc, UnexpectedResponse):
        status = exc.status_code
        hint = (
            "is this a Qdrant server? check the url and port"
            if status == 404
            else "check qdrant.api_key_env"
            if status in (401, 403)
            else "check the server's log"
        )
        return IndexError_(f"{where} answered HTTP {status} {exc.reason_phrase or ''}".rstrip() + f": {hint}")
    if isinstance(exc, ResponseHandlingException):
        cause = exc.source if isinstance(getattr(exc, "source", None), BaseException) else exc
        reason = redact(" ".join(str(cause).split()))[:160] or type(cause).__name__
        return IndexError_(f"{where} could not be reached ({reason}): start the server or fix the url")
    return None


def _qdrant(flt: Filter | None, should: Sequence[Filter] = ()) -> Any:
    return translate(flt, ClientModels(), should)


def require_client(settings: Settings) -> None:
    """qdrant-client is the optional `qdrant` extra: without it, one line naming the setting and the extra."""
    from briefing.sources import not_installed

    if not not_installed("qdrant_client"):
        return
    q = settings.qdrant
    setting = f"[qdrant] url = {redact(q.url)}" if q.url else f"[qdrant] engine = '{q.engine}'"
    raise ConfigError(
        f"{setting} needs qdrant-client, which is not installed: pip install 'brief[qdrant]' (or leave the setting "
        "out for the embedded engine)"
    )


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
        require_client(settings)
        from qdrant_client import QdrantClient

        collection = f"brief_{settings.workspace.name}"
        q = settings.qdrant
        if q.url:
            api_key = secret(q.api_key_env, setting="qdrant.api_key_env").get_secret_value() if q.api_key_env else None
            # A server that does not answer is reported by the first call as one line, not by a warning that the
            # client's version check prints (from a thread of its own) on stderr.
            warnings.filterwarnings("ignore", message="Failed to obtain server version", category=UserWarning)
            client = QdrantClient(url=q.url, api_key=api_key, timeout=int(q.timeout_s))
            return cls(_ServerErrors(client, q.url), collection, q.url, q)
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
            damage = StateError(
                f"the index at {path} is damaged ({type(exc).__name__}: {str(exc)[:120]}): run "
                "`brief reindex --full` to rebuild it from the raw cache (nothing is re-fetched)"
            )
            raise damage_or_full(path, damage) from None
        return cls(client, collection, str(path), q)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing twice or at interpreter exit is harmless
            self.client.close()

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

    def _query(
        self, using: str, vector: Any, *, limit: int, flt: Filter, fields: Sequence[str] | bool = True
    ) -> list[tuple[dict[str, Any], float]]:
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
            with_payload=list(fields) if not isinstance(fields, bool) else fields,
            search_params=params,
        )
        return [(dict(p.payload or {}), float(p.score)) for p in result.points]
