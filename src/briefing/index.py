"""The Qdrant index: one collection per workspace, named dense + sparse vectors, payload indexes.

Embedded local mode (`path=` under BRIEF_HOME) by default; `[qdrant] url` for a server, through the same code.
Point ids are uuid5 of the chunk id, so re-ingestion is idempotent; the payload keeps a content hash so
unchanged chunks are not re-embedded.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from briefing.embed import SparseVec
from briefing.errors import IndexError_
from briefing.model import Chunk, Unit
from briefing.settings import Settings, secret

DENSE = "dense"
SPARSE = "bm25"
_NS = uuid.UUID("6f1c7a52-3b8e-4f4e-9a51-8d1b2f0c9e11")
PAYLOAD_INDEXES = {
    "source_type": "keyword",
    "source_name": "keyword",
    "doc_key": "keyword",
    "container": "keyword",
    "authors": "keyword",
    "tickets": "keyword",
    "refs": "keyword",
    "start_ts": "float",
    "end_ts": "float",
}


def point_id(chunk_id: str) -> str:
    return str(uuid.uuid5(_NS, chunk_id))


def content_hash(chunk: Chunk, model: str) -> str:
    """Changes whenever what is embedded (text, model) or what is shown (refs, title, url) changes."""
    basis = json.dumps([model, chunk.text, chunk.refs, chunk.title, chunk.url, chunk.container], sort_keys=True)
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


def chunk_to_payload(chunk: Chunk, digest: str) -> dict[str, Any]:
    payload = asdict(chunk)
    payload["start"] = chunk.start.isoformat()
    payload["end"] = chunk.end.isoformat()
    payload["start_ts"] = chunk.start.timestamp()
    payload["end_ts"] = chunk.end.timestamp()
    payload["units"] = [
        {"ref": u.ref, "text": u.text, "author": u.author, "at": u.at.isoformat() if u.at else None}
        for u in chunk.units
    ]
    payload["hash"] = digest
    clean: dict[str, Any] = json.loads(json.dumps(payload, default=str))
    return clean


def payload_to_chunk(payload: dict[str, Any]) -> Chunk:
    units = [
        Unit(ref=u["ref"], text=u["text"], author=u.get("author"), at=_dt(u["at"]) if u.get("at") else None)
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
    )


def _dt(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class Index:
    """The workspace's collection. Open it with `Index.open(settings)`; close it when done (local mode locks)."""

    def __init__(self, client: Any, collection: str, location: str) -> None:
        self.client = client
        self.collection = collection
        self.location = location

    @classmethod
    def open(cls, settings: Settings) -> Index:
        from qdrant_client import QdrantClient

        collection = f"brief_{settings.workspace.name}"
        if settings.qdrant.url:
            api_key = (
                secret(settings.qdrant.api_key_env, setting="qdrant.api_key_env").get_secret_value()
                if settings.qdrant.api_key_env
                else None
            )
            client = QdrantClient(url=settings.qdrant.url, api_key=api_key)
            return cls(client, collection, settings.qdrant.url)
        path = settings.qdrant.path or (settings.workspace_home / "qdrant")
        path = settings.resolve(Path(path))
        path.mkdir(parents=True, exist_ok=True)
        try:
            client = QdrantClient(path=str(path))
        except RuntimeError as exc:
            if "already accessed" in str(exc) or "lock" in str(exc).lower():
                raise IndexError_(
                    f"the index at {path} is in use by another brief process: wait for it to finish, "
                    "or run a Qdrant server and set [qdrant] url"
                ) from None
            raise
        return cls(client, collection, str(path))

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # closing twice or at interpreter exit is harmless
            pass

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema -----------------------------------------------------------------------------------------------
    def exists(self) -> bool:
        return bool(self.client.collection_exists(self.collection))

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
            return
        self.client.create_collection(
            self.collection,
            vectors_config={DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        if not self.location.startswith(("http://", "https://")):
            return  # local mode ignores payload indexes (and warns); a server needs them for filtered search
        schema = {"keyword": models.PayloadSchemaType.KEYWORD, "float": models.PayloadSchemaType.FLOAT}
        for field, kind in PAYLOAD_INDEXES.items():
            try:
                self.client.create_payload_index(self.collection, field, field_schema=schema[kind])
            except Exception:  # local mode accepts and ignores payload indexes on some versions
                pass

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

        points = [
            models.PointStruct(
                id=point_id(chunk.chunk_id),
                vector={
                    DENSE: list(map(float, dvec)),
                    SPARSE: models.SparseVector(indices=svec.indices, values=svec.values),
                },
                payload=chunk_to_payload(chunk, content_hash(chunk, model)),
            )
            for chunk, dvec, svec in zip(chunks, dense, sparse, strict=True)
        ]
        for start in range(0, len(points), 256):
            self.client.upsert(self.collection, points=points[start : start + 256], wait=True)

    def delete_ids(self, chunk_ids: Iterable[str]) -> None:
        from qdrant_client import models

        ids: list[int | str | uuid.UUID] = [point_id(c) for c in chunk_ids]
        for start in range(0, len(ids), 512):
            self.client.delete(
                self.collection,
                points_selector=models.PointIdsList(points=ids[start : start + 512]),
                wait=True,
            )

    # -- reads ------------------------------------------------------------------------------------------------
    def scroll(self, flt: Any = None, *, fields: Sequence[str] | bool = True, batch: int = 512) -> Iterator[Any]:
        if not self.exists():
            return
        offset = None
        while True:
            points, offset = self.client.scroll(
                self.collection, scroll_filter=flt, limit=batch, offset=offset, with_payload=fields
            )
            yield from points
            if offset is None:
                break

    def count(self, flt: Any = None) -> int:
        if not self.exists():
            return 0
        return int(self.client.count(self.collection, count_filter=flt, exact=True).count)

    def query_dense(self, vector: Sequence[float], *, limit: int, flt: Any = None) -> list[Any]:
        result = self.client.query_points(
            self.collection,
            query=list(map(float, vector)),
            using=DENSE,
            limit=limit,
            query_filter=flt,
            with_payload=True,
        )
        return list(result.points)

    def query_sparse(self, vector: SparseVec, *, limit: int, flt: Any = None) -> list[Any]:
        from qdrant_client import models

        if not vector.indices:
            return []
        result = self.client.query_points(
            self.collection,
            query=models.SparseVector(indices=vector.indices, values=vector.values),
            using=SPARSE,
            limit=limit,
            query_filter=flt,
            with_payload=True,
        )
        return list(result.points)
