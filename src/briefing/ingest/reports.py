"""What an ingest did: each source's collect and process reports, its run record, and the whole run's summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from briefing.errors import BriefError
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
    items: int = 0  # the documents' items (messages, comments, sections)
    rechunked: int = 0  # documents chunked (the others had not changed since their last chunking)
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


@dataclass
class SourceRun:
    """What one source's run did; `error` is set when the source could not be read at all."""

    name: str
    collected: CollectReport | None = None
    processed: ProcessReport | None = None
    error: BriefError | None = None
    # One line each about options this source ignores ("--until: not supported by ...").
    notices: list[str] = field(default_factory=list)

    @property
    def failures(self) -> list[Failure]:
        """Items that were skipped, from collection first, then processing."""
        collected = self.collected.failures if self.collected else []
        return collected + (self.processed.failures if self.processed else [])


@dataclass
class RunSummary:
    """Every source's run, in the order the sources were given."""

    sources: list[SourceRun] = field(default_factory=list)
    dry_run: bool = False

    @property
    def failure_count(self) -> int:
        """Skipped items over all sources that could be read."""
        return sum(len(run.failures) for run in self.sources)

    @property
    def broken(self) -> list[SourceRun]:
        """The sources that could not be read at all."""
        return [run for run in self.sources if run.error is not None]

    def error(self) -> BriefError | None:
        """The error to report for the broken sources: the source's own when only one was run, else a summary."""
        broken = self.broken
        if not broken:
            return None
        first = broken[0].error
        assert first is not None
        if len(self.sources) == 1:
            return first
        detail = "; ".join(f"{run.name}: {run.error}" for run in broken)
        return type(first)(f"{len(broken)} of {len(self.sources)} sources failed (the others were ingested): {detail}")
