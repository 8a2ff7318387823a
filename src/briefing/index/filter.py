"""What a read of the index asks for (`Filter`) and what it gets back (`IndexHit`, `Record`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from briefing.asof import visible
from briefing.model import Chunk


@dataclass(frozen=True)
class Filter:
    """What to read: every field set must match (AND), any value within a field may (OR).

    `start`/`end` select chunks overlapping [start, end); `as_of` hides what was written after it and what
    was superseded by then (`Chunk.valid_until`).
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
