"""The Qdrant index: one collection per workspace, named dense + sparse vectors, payload indexes.

One interface (`base.Index`), two engines. By default the embedded engine (qdrant-edge-py, `edge`) under
BRIEF_HOME, chosen by measurement (docs/performance.md); `[qdrant] url` talks to a Qdrant server or cluster
through qdrant-client (`client.ClientIndex`), and `[qdrant] engine = "local"` keeps qdrant-client's local mode
(small indexes, one process at a time). Point ids are uuid5 of the chunk id, so re-ingestion is idempotent; the
payload keeps a content hash so unchanged chunks are not re-embedded.

This package owns every Qdrant type: callers describe what they want with `Filter` and get `IndexHit`s, `Chunk`s
or `Record`s back. Readers read through `Index.view(now, readers)` (`briefing.view`), cut by time and access.
"""

from briefing.index.base import ENGINES, Index
from briefing.index.client import ClientIndex, ClientModels
from briefing.index.filter import Filter, IndexHit, Record
from briefing.index.payload import (
    DENSE,
    PAYLOAD_INDEXES,
    SPARSE,
    chunk_to_payload,
    content_hash,
    doc_id,
    payload_to_chunk,
    point_id,
)
from briefing.index.translate import NO_READER, FilterModels, conditions, translate

__all__ = [
    "DENSE",
    "ENGINES",
    "NO_READER",
    "PAYLOAD_INDEXES",
    "SPARSE",
    "ClientIndex",
    "ClientModels",
    "Filter",
    "FilterModels",
    "Index",
    "IndexHit",
    "Record",
    "chunk_to_payload",
    "conditions",
    "content_hash",
    "doc_id",
    "payload_to_chunk",
    "point_id",
    "translate",
]
