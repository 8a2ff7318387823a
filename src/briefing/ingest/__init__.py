"""Ingestion: collect (connector -> raw cache -> cursor), then process (normalise -> chunk -> embed -> index).

`collect` is the only step that talks to a source. `process` works from the raw cache alone, which is also what
`brief reindex` runs. Per-item failures are counted and reported, never fatal.
"""

from briefing.ingest.chunking import (
    TOPIC_ROUNDS,
    TOPIC_SPLIT_MIN_ITEMS,
    chunk_documents,
    item_vectors,
    iter_chunks,
    kind_limits,
)
from briefing.ingest.chunking import _can_split as _can_split
from briefing.ingest.chunking import _topic_split as _topic_split
from briefing.ingest.collecting import DeletionGuard, collect, make_connector
from briefing.ingest.embed_queue import EMBED_QUEUE_DEPTH, EmbedQueue
from briefing.ingest.processing import DOCUMENT_WINDOW, Progress, normalised_parts, process
from briefing.ingest.reports import CollectReport, ProcessReport, RunSummary, SourceRun, run_report

__all__ = [
    "DOCUMENT_WINDOW",
    "EMBED_QUEUE_DEPTH",
    "TOPIC_ROUNDS",
    "TOPIC_SPLIT_MIN_ITEMS",
    "CollectReport",
    "DeletionGuard",
    "EmbedQueue",
    "ProcessReport",
    "Progress",
    "RunSummary",
    "SourceRun",
    "chunk_documents",
    "collect",
    "item_vectors",
    "iter_chunks",
    "kind_limits",
    "make_connector",
    "normalised_parts",
    "process",
    "run_report",
]
