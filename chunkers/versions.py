"""Chunks of an item with history, one per state interval: the versioning every source's state chunks share.

A source whose descriptor declares a `history` renders its item's state chunk once per interval of that state.
Each version is written when its interval began and hidden from `valid_until` on (`briefing.asof`, the index's
`valid_until_ts`), so a reader as of any moment sees exactly one: the state of then. The current state keeps the
plain chunk id; the earlier ones are `<doc key>::state-<i>::<n>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from briefing.model import Chunk


def versioned(chunks: Sequence[Chunk], intervals: Sequence[tuple[datetime, datetime | None]]) -> list[Chunk]:
    """`chunks[i]` stamped with `intervals[i]` (start, until); the last one is the current state."""
    out: list[Chunk] = []
    for i, (chunk, (start, until)) in enumerate(zip(chunks, intervals, strict=True)):
        if i < len(chunks) - 1:
            doc_key, _, ordinal = chunk.chunk_id.rpartition("::")
            chunk.chunk_id = f"{doc_key}::state-{i}::{ordinal}"
        chunk.written_at = start if i else None
        chunk.valid_until = until
        out.append(chunk)
    return out
