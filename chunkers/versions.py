"""Chunks of an item with history, one per interval of its state or text: the versioning every source shares.

A source whose descriptor declares a `history` versions its items' chunks. Each version is written when its interval
began and hidden from `valid_until` on (`briefing.asof`, the index's `valid_until_ts`), so a reader as of any moment
sees exactly one: the state or text of then.

- A state chunk (a ticket's status, a pull request's review): `versioned`, once per interval; the current state keeps
  the plain chunk id, the earlier ones are `<doc key>::state-<i>::<n>`.
- A document with earlier versions (a wiki page): `stream_versions`. An earlier version is an item of the document
  whose metadata carries `valid_until` (ISO time the next version was written) and `version`; its metadata stands
  in for the document's on its chunks, and `document_title` (if set) for the document's title (a page renamed
  later). Each version is chunked alone, its chunks `<doc key>::v<version>::<n>`; the current items keep the plain
  ids.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from briefing.model import Chunk, ChunkLimits, Document
from chunkers.documents import stream_document


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


def _until(value: object) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def stream_versions(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> Iterator[Chunk]:
    """The document's current items chunked as `chunkers.documents` does, then each earlier version alone."""
    earlier = [item for item in document.items if _until(item.metadata.get("valid_until")) is not None]
    current = [item for item in document.items if item not in earlier]
    yield from stream_document(replace(document, items=current), limits=limits, vectors=vectors)
    for item in earlier:
        until = _until(item.metadata["valid_until"])
        title = str(item.metadata.get("document_title") or document.title)
        alone = replace(document, items=[item], title=title, metadata=dict(item.metadata))
        tag = item.metadata.get("version") or f"{item.occurred_at:%Y%m%d%H%M%S}"
        for chunk in stream_document(alone, limits=limits, vectors=vectors):
            chunk.chunk_id = f"{document.key}::v{tag}::{chunk.ordinal}"
            chunk.valid_until = until
            yield chunk
