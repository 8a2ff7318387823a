"""The small calls the pipeline and the ask path make into operations: lock, run log, metrics, watches.

`ingest_run` wraps one `pipeline.run`: it takes the workspace lock, gives the run an id, and when the run ends
evaluates the watches, records the metrics and writes the textfile, and appends the run's JSON line. Nothing
here may turn a good run into a failed one: a broken watch or delivery is logged and counted, never raised.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from briefing.errors import BriefError, Terminated
from briefing.ops import metrics, runlog
from briefing.ops.lock import LockHeldError, workspace_lock

if TYPE_CHECKING:
    from briefing.ingest.reports import RunSummary
    from briefing.results import SearchResult
    from briefing.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class ObservedRun:
    """What the pipeline hands back to the hook: its summary, once it has one."""

    run_id: str
    command: str
    summary: RunSummary | None = None
    notifications: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    delivery_errors: list[str] = field(default_factory=list)
    # Items each path brought, per source: {"events": {...}} from webhooks, {"sync": {...}} from the connectors.
    paths: dict[str, dict[str, int]] = field(default_factory=dict)


def _settings_of(settings: Settings) -> tuple[int, int]:
    section = getattr(settings, "logging", None)
    return (
        getattr(section, "max_bytes", runlog.DEFAULT_MAX_BYTES),
        getattr(section, "backups", runlog.DEFAULT_BACKUPS),
    )


def _metrics_on(settings: Settings) -> bool:
    section = getattr(settings, "metrics", None)
    return bool(getattr(section, "enabled", True))


def _source_record(run: Any) -> dict[str, Any]:
    collected, processed = run.collected, run.processed
    return {
        "fetched": collected.fetched if collected else 0,
        "deleted": collected.deleted if collected else 0,
        "documents": processed.documents if processed else 0,
        "chunks": processed.chunks if processed else 0,
        "embedded": processed.embedded if processed else 0,
        "failures": len(run.failures),
        "seconds": round((collected.seconds if collected else 0.0) + (processed.seconds if processed else 0.0), 3),
        "error": str(run.error) if run.error is not None else None,
    }


def _record_sources(summary: RunSummary, ended: float) -> None:
    for run in summary.sources:
        name = run.name
        collected, processed = run.collected, run.processed
        if collected is not None:
            metrics.inc("brief_items_fetched", collected.fetched, source=name)
            metrics.inc("brief_items_deleted", collected.deleted, source=name)
        metrics.inc("brief_items_failed", len(run.failures), source=name)
        if processed is not None:
            metrics.inc("brief_chunks_embedded", processed.embedded, source=name)
            metrics.inc("brief_embed_seconds", getattr(processed, "embed_seconds", 0.0), source=name)
            metrics.inc("brief_index_seconds", getattr(processed, "index_seconds", 0.0), source=name)
        seconds = (collected.seconds if collected else 0.0) + (processed.seconds if processed else 0.0)
        metrics.set_gauge("brief_source_run_duration_seconds", seconds, source=name)
        metrics.set_gauge("brief_source_last_run_timestamp_seconds", ended, source=name)
        up = run.error is None
        metrics.set_gauge("brief_source_up", 1.0 if up else 0.0, source=name)
        if up and not summary.dry_run:
            metrics.set_gauge("brief_source_last_success_timestamp_seconds", ended, source=name)
        else:
            metrics.inc("brief_source_errors", 0.0 if up else 1.0, source=name)


def _status(summary: RunSummary | None, error: BaseException | None) -> str:
    if isinstance(error, KeyboardInterrupt):
        return "interrupted"
    if error is not None or summary is None:
        return "failed"
    if summary.broken:
        return "failed" if len(summary.broken) == len(summary.sources) else "partial"
    return "partial" if summary.failure_count else "ok"


def _finish(
    settings: Settings,
    observed: ObservedRun,
    *,
    status: str,
    started: float,
    started_at: datetime,
    error: BaseException | None,
) -> None:
    ended = time.time()
    duration = time.perf_counter() - started
    summary = observed.summary
    if summary is not None:
        _record_sources(summary, ended)
    metrics.inc("brief_runs", command=observed.command, status=status)
    metrics.set_gauge("brief_run_duration_seconds", duration, command=observed.command)
    metrics.set_gauge("brief_last_run_timestamp_seconds", ended, command=observed.command)
    if status == "ok" or status == "partial":
        metrics.set_gauge("brief_last_success_timestamp_seconds", ended, command=observed.command)
    if summary is not None and not summary.dry_run and status in ("ok", "partial"):
        _count_points(settings)
    textfile = None
    if _metrics_on(settings):
        try:
            textfile = metrics.flush(settings.home, settings.workspace.name)
        except OSError as exc:  # metrics must never fail a run
            log.warning("metrics could not be written under %s: %s", metrics.metrics_dir(settings.home), exc)
    failures = []
    if summary is not None:
        failures = [
            {"source": run.name, "key": f.key, "reason": f.reason} for run in summary.sources for f in run.failures
        ]
    record: dict[str, Any] = {
        "ts": datetime.now(UTC).isoformat(timespec="seconds"),
        "run_id": observed.run_id,
        "command": observed.command,
        "schedule": runlog.schedule_id(),
        "workspace": settings.workspace.name,
        "status": status,
        "started_at": started_at.isoformat(timespec="seconds"),
        "duration_s": round(duration, 3),
        "dry_run": bool(summary.dry_run) if summary else False,
        "sources": {run.name: _source_record(run) for run in summary.sources} if summary else {},
        "counts": {
            "fetched": sum(r.collected.fetched for r in summary.sources if r.collected) if summary else 0,
            "embedded": sum(r.processed.embedded for r in summary.sources if r.processed) if summary else 0,
            "failures": len(failures),
            "notifications": dict(observed.notifications),
        },
        "failures": failures[:20],
        "error": _error_text(error, observed),
        "exit_code": getattr(error, "exit_code", 1) if error is not None else 0,
        "metrics_file": str(textfile) if textfile else None,
    }
    if observed.paths:
        record["paths"] = observed.paths
    if observed.notes:
        record["notes"] = observed.notes
    max_bytes, backups = _settings_of(settings)
    try:
        runlog.write_run(settings.home, record, max_bytes=max_bytes, backups=backups)
    except OSError as exc:
        log.warning("the run log could not be written under %s: %s", runlog.log_dir(settings.home), exc)


def _count_points(settings: Settings) -> None:
    """`brief_index_points`: the points the index holds after the run (a metric never fails the run)."""
    from briefing.index import Index

    try:
        with Index.open(settings) as index:
            metrics.set_gauge("brief_index_points", float(index.count()))
    except Exception as exc:
        log.warning("the index's points were not counted: %s", exc)


def _error_text(error: BaseException | None, observed: ObservedRun) -> str | None:
    if error is not None:
        return str(error) or type(error).__name__
    if observed.delivery_errors:
        return f"watch delivery via {observed.delivery_errors[0]}"
    return None


@contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """While a run holds the lock, SIGTERM raises `Terminated` so the run unwinds and logs itself as interrupted.

    A second SIGTERM gets the handler that was there before (the default kills at once).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM) or signal.SIG_DFL

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, previous)
        raise Terminated("stopped by SIGTERM")

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def ingest_run(
    settings: Settings, command: str, *, dry_run: bool = False, locked: bool = False
) -> Iterator[ObservedRun]:
    """Hold the workspace lock for one pipeline run; on the way out: watches, metrics, the run's log line.

    `locked`: the caller already holds the lock for its whole life (`brief serve`), so it is not taken again.
    """
    started, started_at = time.perf_counter(), datetime.now(UTC)
    observed = ObservedRun(run_id=runlog.new_run_id(), command=command)
    try:
        with nullcontext() if locked else workspace_lock(settings, command):
            try:
                with _sigterm_unwinds():
                    yield observed
            except BaseException as exc:
                status = _status(None, exc)
                _finish(settings, observed, status=status, started=started, started_at=started_at, error=exc)
                raise
            if not dry_run and observed.summary is not None:
                _watches(settings, observed)
            status = _status(observed.summary, None)
            error = observed.summary.error() if observed.summary else None
            if observed.delivery_errors and status == "ok":
                status = "partial"  # the index is up to date; a notification is still queued
            _finish(settings, observed, status=status, started=started, started_at=started_at, error=error)
    except LockHeldError as exc:
        _finish(settings, observed, status="locked", started=started, started_at=started_at, error=exc)
        raise


def _watches(settings: Settings, observed: ObservedRun) -> None:
    from briefing.ops import watch

    try:
        if not watch.WatchStore.for_settings(settings).watches():
            return
        observed.notifications = watch.run_watches(settings, run_id=observed.run_id, errors=observed.delivery_errors)
        observed.notes += [f"watch delivery via {error}" for error in observed.delivery_errors]
    except BriefError as exc:
        observed.notes.append(f"watches: {exc}")
        log.warning("watches were not evaluated: %s", exc)
    except Exception as exc:  # a broken watch must not fail the ingest it follows
        observed.notes.append(f"watches: {type(exc).__name__}: {exc}")
        log.warning("watches failed: %s: %s", type(exc).__name__, exc)


def flush_questions() -> None:
    """Write the question counts a closing service has not written yet (`metrics.flush_later`); never raises."""
    metrics.flush_pending()


def record_question(settings: Settings, command: str, result: SearchResult) -> None:
    """Count one question (and its refusal and removed citations) and its stage latencies; never raises."""
    try:
        metrics.inc("brief_questions", command=command)
        if getattr(result, "no_answer", False):
            metrics.inc("brief_refusals", command=command)
        removed = result.trace.get("removed_citations") or []
        metrics.inc("brief_citations_removed", float(len(removed)), command=command)
        for stage, ms in result.timings_ms.items():
            metrics.observe("brief_stage_seconds", float(ms) / 1000.0, stage=f"{command}.{stage}")
        if _metrics_on(settings):
            metrics.flush_later(settings.home, settings.workspace.name)
    except Exception as exc:  # metrics must never fail a question
        log.warning("question metrics were not recorded: %s", exc)
