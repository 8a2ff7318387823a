"""Collect: a source's new and changed records into the raw cache, the cursor saved after them, deletions guarded."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from briefing import killpoint
from briefing.errors import MassDeletionError, SourceError
from briefing.ingest.reports import CollectReport
from briefing.model import Connector
from briefing.registry import FetchOptions, SourceContext, connector_for
from briefing.settings import Settings
from briefing.store import RawStore, SourceState

log = logging.getLogger(__name__)


def make_connector(settings: Settings, name: str, options: FetchOptions | None = None) -> Connector:
    config = settings.source(name)
    ctx = SourceContext(name=name, config=config, resolve=settings.resolve, options=options or FetchOptions())
    return connector_for(ctx)


def _saved_cursor(connector: Connector, name: str, saved: Any) -> Any:
    """The cursor a previous run saved; one that no longer reads (damaged, or from an incompatible version) is a
    one-line error naming the repair, not a traceback."""
    try:
        return connector.load_cursor(saved)
    except (TypeError, ValueError):  # pydantic's ValidationError is a ValueError
        raise SourceError(
            f"source '{name}': the saved cursor is unreadable: run `brief ingest {name} --full` to rebuild it"
        ) from None


def collect(
    settings: Settings,
    name: str,
    options: FetchOptions,
    connector: Connector | None = None,
    fetched: Callable[[int], None] | None = None,
) -> CollectReport:
    """Fetch new and changed records into the raw cache; the cursor moves only after its records are stored.

    Deletions are gathered over the whole run and applied at its end, after the deletion guard agreed; until then
    they are saved with each cursor (`pending_deletions`), so a crash or a refused run loses none of them.
    `fetched` hears the number of records fetched so far after each batch.
    """
    started = time.perf_counter()
    connector = connector or make_connector(settings, name, options)
    state = SourceState.for_source(settings, name)
    if options.full and not options.dry_run:
        RawStore.retire_legacy(settings, name)
    store = RawStore.for_source(settings, name)
    report = CollectReport(source=name, dry_run=options.dry_run)
    stored: set[str] = set()
    # A full run re-lists everything, so it recomputes what is gone instead of trusting an earlier run's list.
    pending: set[str] = set() if options.full else state.pending_deletions
    try:
        saved = None if options.full else state.cursor
        cursor = _saved_cursor(connector, name, saved) if saved is not None else connector.initial_cursor()
        for batch in connector.fetch(cursor):
            report.batches += 1
            killpoint.reached("collect.batch")
            report.failures.extend(batch.failures)
            report.fetched += len(batch.records)
            if fetched is not None:
                fetched(report.fetched)
            if options.dry_run:
                report.deleted += len(batch.deleted)
                continue
            refused = store.put_many(batch.records)
            killpoint.reached("cache.written")
            report.failures.extend(refused)
            refused_keys = {f.key for f in refused}
            here = {r.key for r in batch.records if r.key not in refused_keys}
            stored |= here
            pending = (pending - here) | set(batch.deleted)
            if batch.complete:
                pending |= store.keys() - {r.key for r in batch.records}
            if batch.cursor is not None:
                state.save_cursor(batch.cursor.model_dump(mode="json"), pending=pending)
                killpoint.reached("cursor.saved")
        if not options.dry_run:
            if options.full:
                # A full run saw everything the source still has; what it did not store is gone at the source.
                # With failures we cannot tell "gone" from "unreadable this time", so cached data is kept.
                if report.failures:
                    log.warning("%s: full run had failures; stale cached records were kept", name)
                else:
                    pending |= store.keys() - stored
            gone = pending & store.keys()
            DeletionGuard(settings, name, len(store), options).check(gone)
            killpoint.reached("deletion.apply")
            report.deleted += store.delete_many(gone)
            killpoint.reached("deletion.applied")
            state.clear_pending_deletions()
    finally:
        store.close()
    report.seconds = time.perf_counter() - started
    return report


class DeletionGuard:
    """Refuses a run that would delete most of a source's cached records (an emptied listing, a broken export).

    A source that suddenly lists nothing, or loses more than `[sync] max_deletion_share` of its records, is far
    more often a broken export, a revoked permission or a misconfigured filter than a real mass deletion; the
    user confirms a real one with `--full --allow-deletions`.
    """

    def __init__(self, settings: Settings, name: str, cached: int, options: FetchOptions) -> None:
        self.name = name
        self.cached = cached
        self.share = settings.sync.max_deletion_share
        self.min_items = settings.sync.deletion_guard_min_items
        self.allowed = options.full and options.allow_deletions

    def check(self, keys: set[str]) -> None:
        total = len(keys)
        if not keys or self.allowed or self.cached == 0:
            return
        everything = total >= self.cached and self.cached > 1
        too_many = self.cached >= self.min_items and total > self.share * self.cached
        if everything or too_many:
            what = "all" if everything else f"{total / self.cached:.0%}"
            raise MassDeletionError(
                f"source '{self.name}': this run would delete {total} of its {self.cached} cached records "
                f"({what}), more than sync.max_deletion_share={self.share:g} allows, so nothing was deleted and "
                "nothing re-indexed. If the source really lost them, run "
                f"`brief ingest {self.name} --full --allow-deletions`; otherwise check the source (an emptied "
                "export listing, a changed channel or project filter, lost permissions)"
            )
