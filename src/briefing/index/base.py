"""The index's interface: what every engine provides, and the typed reads every engine shares.

Engines (`briefing.index.client`, `briefing.index.edge`) implement the primitives (`_scroll_raw`, `_query`, the
writes); callers describe what they want with `Filter` and get `IndexHit`s, `Chunk`s or `Record`s back. A filter
with `as_of` sees the index as of that instant (`briefing.asof`); readers take an as-of `View` (`Index.view`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from briefing.embed import SparseVec
from briefing.errors import DiskFullError, StateError
from briefing.index.filter import Filter, IndexHit, Record
from briefing.index.payload import DENSE, KEEP_FIELDS, SPARSE, doc_id, kept_doc, payload_to_chunk
from briefing.model import Chunk
from briefing.settings import Settings

if TYPE_CHECKING:
    from briefing.view import View

# Engine name -> "module:class". The interface names its engines and loads the one a workspace uses when it is
# opened: each engine imports this interface, never the other way round, and `brief --help` loads none.
ENGINES: dict[str, str] = {
    "qdrant-client": "briefing.index.client:ClientIndex",
    "qdrant-edge": "briefing.index.edge:EdgeIndex",
}


def _any_key(chunk: Chunk, keys: Sequence[Filter]) -> bool:
    """Whether the (possibly cut) chunk still matches one of the key filters `fetch` asked Qdrant for."""
    return any(
        k.keep(chunk) is not None
        and (not k.doc_keys or chunk.doc_key in k.doc_keys)
        and (not k.doc_ids or doc_id(chunk.doc_key) in k.doc_ids)
        for k in keys
    )


def moment_and_readers_only(flt: Filter) -> bool:
    """`flt` restricts nothing but the moment and the readers (what a View adds to a read of everything)."""
    return all(getattr(flt, f.name) == f.default for f in fields(Filter) if f.name not in ("as_of", "readers"))


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
        name = "qdrant-client" if settings.qdrant.url or settings.qdrant.engine == "local" else "qdrant-edge"
        module, _, attr = ENGINES[name].partition(":")
        engine: type[Index] = getattr(importlib.import_module(module), attr)
        return engine.connect(settings)

    @classmethod
    def connect(cls, settings: Settings) -> Index:
        """This engine's index for the settings' workspace."""
        raise NotImplementedError

    @classmethod
    def retire_damaged(cls, settings: Settings) -> Path | None:
        """Move a local index folder that cannot be opened aside (for `reindex --full`); None if it opens."""
        if settings.qdrant.url:
            return None
        try:
            index = cls.open(settings)
        except DiskFullError:
            raise  # starved of space, not damaged: nothing to move aside
        except StateError:  # local mode checks when it opens
            path = settings.resolve(Path(settings.qdrant.path or (settings.workspace_home / "qdrant")))
        else:
            try:
                index.exists()  # the embedded engine opens (and checks) what is published on its first read
                return None
            except DiskFullError:
                raise
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

    def _query(
        self, using: str, vector: Any, *, limit: int, flt: Filter, fields: Sequence[str] | bool = True
    ) -> list[tuple[dict[str, Any], float]]:
        """(payload, score) of the best `limit` points by one named vector, inside `flt`'s stored-time bounds; the
        payload holds `fields` (True: all of it)."""
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

    def sparse_docs(self, vectors: Sequence[SparseVec], *, limit: int, flt: Filter) -> list[list[str]]:
        """For each vector, the document of each hit `search_sparse` gives, in its order (the workspace vocabulary's
        lookups, one word each). Under a filter of a moment and readers alone the engine runs them as one batch and
        reads only the fields that decide whether a hit is kept."""
        flt = self._scoped(flt) or flt
        if not moment_and_readers_only(flt):
            return [[hit.chunk.doc_key for hit in self.search_sparse(v, limit=limit, flt=flt)] for v in vectors]
        wanted = [v for v in vectors if v.indices]
        found = iter(self._query_many(SPARSE, wanted, limit=limit, flt=flt, fields=KEEP_FIELDS))
        return [
            [doc for payload, _ in next(found) if (doc := kept_doc(payload, flt.keep)) is not None] if v.indices else []
            for v in vectors
        ]

    def _query_many(
        self, using: str, vectors: Sequence[Any], *, limit: int, flt: Filter, fields: Sequence[str] | bool = True
    ) -> list[list[tuple[dict[str, Any], float]]]:
        """`_query` for each vector, in order (an engine may run them as one batch)."""
        return [self._query(using, v, limit=limit, flt=flt, fields=fields) for v in vectors]

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
