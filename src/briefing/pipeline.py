"""The ingest pipeline, one run over named sources, returning typed results for any caller to render.

Per source: collect (connector -> raw cache -> cursor, `briefing.ingest.collect`), then process (normalise ->
chunk -> diff against the index -> embed what changed -> upsert, `briefing.ingest.process`), then the run record
in the source's state file. `brief ingest`, `brief reindex`, `brief demo`, the benchmark and the tests all run it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from briefing import killpoint, registry
from briefing.embed import Embedder
from briefing.errors import BriefError, IndexError_, ModelError, SourceError
from briefing.index import Index
from briefing.ingest import CollectReport, ProcessReport, collect, make_connector, process, run_report
from briefing.ingest.progress import ProgressCallback, SourceProgress
from briefing.ingest.reports import RunSummary, SourceRun
from briefing.ingest.resume import ChunkMemo
from briefing.model import Connector, Failure
from briefing.ops import hooks, metrics
from briefing.registry import FetchOptions
from briefing.settings import Settings
from briefing.sources import redact, without_contact
from briefing.store import SourceState

log = logging.getLogger(__name__)


def run(
    settings: Settings,
    names: Sequence[str],
    *,
    collect_first: bool = True,
    options: FetchOptions | None = None,
    progress: ProgressCallback | None = None,
    rebuild: bool = False,
) -> RunSummary:
    """Collect (optionally) and index each named source.

    A source that cannot be read at all (missing folder, rejected credentials, rate limited) does not stop the
    others: its error is kept in its `SourceRun`. Model and index errors are raised, since every source would
    fail the same way. Each source's chunks become visible to readers when it is done; with `rebuild` the index
    starts empty and readers keep the old one until every source is in.
    """
    options = options or FetchOptions()
    # The workspace lock, the run's id, its log line, metrics and watches (briefing.ops.hooks).
    with hooks.ingest_run(settings, "ingest" if collect_first else "reindex", dry_run=options.dry_run) as observed:
        summary = _run(
            settings, names, collect_first=collect_first, options=options, progress=progress, rebuild=rebuild
        )
        observed.summary = summary
    return summary


def _run(
    settings: Settings,
    names: Sequence[str],
    *,
    collect_first: bool,
    options: FetchOptions,
    progress: ProgressCallback | None,
    rebuild: bool = False,
) -> RunSummary:
    summary = RunSummary(dry_run=options.dry_run)
    embedder = Embedder(settings.embedding, settings.home)
    index = None if options.dry_run else Index.open(settings)
    if index is not None and rebuild:
        index.drop()
    try:
        for name in names:
            try:
                summary.sources.append(
                    run_source(
                        settings,
                        name,
                        index,
                        embedder,
                        collect_first=collect_first,
                        options=options,
                        progress=progress,
                    )
                )
                if index is not None and not rebuild:
                    killpoint.reached("publish")
                    index.commit()
                    killpoint.reached("published")
            except (ModelError, IndexError_):
                raise
            except BriefError as exc:
                summary.sources.append(SourceRun(name=name, error=_redacted(exc)))
            except Exception as exc:  # one source's unexpected failure must not starve the sources after it
                log.debug("source %s failed", name, exc_info=True)
                summary.sources.append(SourceRun(name=name, error=unexpected(name, exc)))
        if index is not None and not options.dry_run and settings.digest.summaries:
            _summaries(settings, index, embedder)
    finally:
        if index is not None:
            index.close()
        embedder.close()
    return summary


def _summaries(settings: Settings, index: Index, embedder: Embedder) -> None:
    """The second level of the index (`briefing.summaries`): a failure there never costs the ingest."""
    from briefing import summaries

    try:
        report = summaries.refresh(settings, index, embedder)
        log.info("summaries: %d new or changed, %d unchanged", report.summarised, report.unchanged)
    except (ModelError, IndexError_, OSError) as exc:
        log.warning("summaries not refreshed: %s", exc)


def _redacted(exc: BriefError) -> BriefError:
    """The error with every known secret value removed (a vendor may echo the request's credentials)."""
    text = redact(str(exc))
    if text != str(exc):
        exc.args = (text,)
    return exc


def _redact_failures(report: CollectReport | ProcessReport | None) -> None:
    if report is not None:
        report.failures = [Failure(f.key, redact(f.reason)) for f in report.failures]


def unexpected(name: str, exc: Exception) -> SourceError:
    """One line for an error no connector anticipated (a garbage answer, a bug): the source and what happened."""
    detail = redact(" ".join(str(exc).split()))[:300] or "no detail"
    return SourceError(
        f"source '{name}' failed unexpectedly ({type(exc).__name__}: {detail}); the other sources went on. "
        f"Run `brief --verbose ingest {name}` for details; if it persists, `brief ingest {name} --full` re-fetches"
    )


def unsupported_options(settings: Settings, name: str, options: FetchOptions) -> list[str]:
    """The run's options that this source's descriptor does not support, each as one line for the user."""
    if name not in settings.sources:
        return []  # a connector handed in directly (tests) has no descriptor to consult
    source_type = settings.sources[name].type
    supports = registry.descriptor(source_type).supports
    asked = [("since", options.since), ("until", options.until)]
    return [
        f"{name}: --{option} is not supported by {source_type} sources and was ignored (it collects everything new)"
        for option, value in asked
        if value is not None and option not in supports
    ]


def run_source(
    settings: Settings,
    name: str,
    index: Index | None,
    embedder: Embedder,
    *,
    collect_first: bool = True,
    options: FetchOptions | None = None,
    progress: ProgressCallback | None = None,
    connector: Connector | None = None,
    memo: ChunkMemo | None = None,
) -> SourceRun:
    """One source: collect into the raw cache, then (unless a dry run, `index` None) index it and record the run.

    `connector` replaces the one the settings describe (tests hand in one pointed at a local fake); `memo` is a
    long-lived writer's memory of the source's resumable documents (`briefing.ingest.resume`).
    """
    options = options or FetchOptions()
    if connector is None and not collect_first:
        with without_contact():  # a reindex reads the raw cache only: it needs no credential
            connector = make_connector(settings, name, options)
    connector = connector or make_connector(settings, name, options)
    result = SourceRun(name=name, notices=unsupported_options(settings, name, options) if collect_first else [])
    started = time.perf_counter()

    def fetched(count: int) -> None:
        if progress:
            progress(SourceProgress(name, "collecting", items=count, seconds=time.perf_counter() - started))

    if collect_first:
        fetched(0)
        with metrics.counting_calls(name):
            result.collected = collect(settings, name, options, connector, fetched)
        _redact_failures(result.collected)
    if options.dry_run or index is None:
        return result
    if progress:
        progress(SourceProgress(name, "indexing"))
    result.processed = process(settings, name, index, embedder, connector=connector, progress=progress, memo=memo)
    if progress:
        done = result.processed
        progress(
            SourceProgress(
                name,
                "done",
                items=done.items,
                items_total=done.items,
                chunks=done.chunks,
                to_embed=done.embedded,
                embedded=done.embedded,
                seconds=time.perf_counter() - started,
            )
        )
    _redact_failures(result.processed)
    killpoint.reached("run.save")
    SourceState.for_source(settings, name).save_run(run_report(result.collected, result.processed))
    return result
