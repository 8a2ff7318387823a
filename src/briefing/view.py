"""The index as one reader may see it at one moment: the only way anything but a writer reads the index.

A `View` is cut by time (nothing written after `now`; `briefing.asof` cuts a chunk to its units at or before
`now`) and by access (only chunks one of `readers` may read; None is the workspace owner). Every read merges
both into the filter it is given, so a reader cannot forget either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from briefing.index.filter import Filter

if TYPE_CHECKING:
    import numpy as np

    from briefing.embed import SparseVec
    from briefing.index.filter import IndexHit
    from briefing.model import Chunk


class Readable(Protocol):
    """The raw reads a View cuts (`briefing.index.base.Index` provides them); only a View calls them for a reader."""

    def chunks(self, flt: Filter) -> list[Chunk]: ...

    def fetch(
        self,
        *,
        refs: Sequence[str] = (),
        doc_keys: Sequence[str] = (),
        doc_ids: Sequence[str] = (),
        tickets: Sequence[str] = (),
        within: Filter | None = None,
        whole_documents: bool = False,
    ) -> list[Chunk]: ...

    def count(self, flt: Filter | None = None) -> int: ...

    def search_dense(self, vector: Sequence[float], *, limit: int, flt: Filter) -> list[IndexHit]: ...

    def search_sparse(self, vector: SparseVec, *, limit: int, flt: Filter) -> list[IndexHit]: ...

    def sparse_docs(self, vectors: Sequence[SparseVec], *, limit: int, flt: Filter) -> list[list[str]]: ...

    def dense_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]: ...


@dataclass(frozen=True)
class View:
    """A read-only, as-of `now`, access-scoped window on an index."""

    index: Readable
    now: datetime
    readers: tuple[str, ...] | None = None

    def at(self, now: datetime) -> View:
        """The same reader at another moment."""
        return replace(self, now=now)

    def within(self, flt: Filter | None = None) -> Filter:
        """`flt` with this view's moment and access scope; the only place a read filter gets them."""
        base = flt or Filter()
        readers = self.readers
        if base.readers is not None and readers is not None:
            readers = tuple(r for r in base.readers if r in readers)
        elif base.readers is not None:
            readers = base.readers
        moment = self.now if base.as_of is None else min(base.as_of, self.now)
        return replace(base, as_of=moment, readers=readers)

    # -- reads ----------------------------------------------------------------------------------------------------
    def chunks(self, flt: Filter | None = None) -> list[Chunk]:
        """Every chunk that matches `flt`, as of `now`."""
        return self.index.chunks(self.within(flt))

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
        """Chunks by key (any of the keys given), as of `now`; see `Index.fetch`."""
        return self.index.fetch(
            refs=refs,
            doc_keys=doc_keys,
            doc_ids=doc_ids,
            tickets=tickets,
            within=self.within(within),
            whole_documents=whole_documents,
        )

    def count(self, flt: Filter | None = None) -> int:
        """How many stored chunks match `flt` and were begun by `now` (stored times; no unit-level cut)."""
        return self.index.count(self.within(flt))

    def search_dense(self, vector: Sequence[float], *, limit: int, flt: Filter | None = None) -> list[IndexHit]:
        return self.index.search_dense(vector, limit=limit, flt=self.within(flt))

    def search_sparse(self, vector: SparseVec, *, limit: int, flt: Filter | None = None) -> list[IndexHit]:
        return self.index.search_sparse(vector, limit=limit, flt=self.within(flt))

    def sparse_docs(self, vectors: Sequence[SparseVec], *, limit: int, flt: Filter | None = None) -> list[list[str]]:
        """For each vector, the documents of the hits `search_sparse` gives, in its order, without the chunks."""
        return self.index.sparse_docs(vectors, limit=limit, flt=self.within(flt))

    def dense_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored dense vectors of chunks this view has already returned (ids come from its own reads)."""
        return self.index.dense_vectors(chunk_ids)


class Viewable(Protocol):
    """What gives Views: an index (`Index.view`)."""

    def view(self, now: datetime, readers: tuple[str, ...] | None = None) -> View: ...


def as_of(source: View | Viewable, now: datetime) -> View:
    """What a reader of `source` (an index, or one reader's View of it) sees at `now`; a View keeps its readers."""
    return source.at(now) if isinstance(source, View) else source.view(now)
