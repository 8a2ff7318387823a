"""What one source's ingest did: the collect and process reports and the run record kept in its state file."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from briefing.model import Failure


@dataclass
class CollectReport:
    source: str
    fetched: int = 0
    deleted: int = 0
    batches: int = 0
    failures: list[Failure] = field(default_factory=list)
    dry_run: bool = False
    seconds: float = 0.0


@dataclass
class ProcessReport:
    source: str
    documents: int = 0
    chunks: int = 0
    embedded: int = 0
    unchanged: int = 0
    removed: int = 0
    truncated: int = 0
    over_limit: int = 0
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    chunk_seconds: float = 0.0  # chunking, with the per-item vectors that topic splits need
    embed_seconds: float = 0.0  # computing dense and sparse vectors (warming the vector cache included)
    warmed: int = 0  # unit-list texts and answer sentences embedded into the vector cache (`briefing.warm`)
    warm_seconds: float = 0.0  # of embed_seconds, the warming
    index_seconds: float = 0.0  # reading existing hashes, deleting stale chunks, upserting


def run_report(collected: CollectReport | None, processed: ProcessReport | None) -> dict[str, Any]:
    """The record kept in the source's state file and shown by `brief sources`."""
    failures = (collected.failures if collected else []) + (processed.failures if processed else [])
    return {
        "finished_at": datetime.now(UTC).isoformat(),
        "fetched": collected.fetched if collected else 0,
        "deleted": collected.deleted if collected else 0,
        "documents": processed.documents if processed else 0,
        "chunks": processed.chunks if processed else 0,
        "embedded": processed.embedded if processed else 0,
        "truncated": processed.truncated if processed else 0,
        "over_limit": processed.over_limit if processed else 0,
        "failures": len(failures),
        "failure_samples": [{"key": f.key, "reason": f.reason} for f in failures[:20]],
    }
