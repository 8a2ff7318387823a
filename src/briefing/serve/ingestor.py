"""Accepted webhook events into the raw cache at once, into the index in batches, and the batch sync on a schedule.

`accept` checks a request through its source's webhook (the descriptor's `webhook`) and `accept_stream` takes an
event a source's stream delivered (Slack Socket Mode); both drop a replayed event id and write the event's records
to the raw cache: the same records a batch sync writes, so `reindex` and the batch path stay the source of truth.
`flush` re-chunks the touched sources from the raw cache (unchanged chunks keep their vectors: the ingest path's
content-hash diff; a resumable document, such as a channel's messages, is chunked again only from where it
changed, `briefing.ingest.resume`) and publishes them, at most `publish_delay_s` after the first event of the
batch. `sync` runs the batch connectors, reconciling whatever events missed. Both go through `briefing.ops.hooks`
(run log, metrics, watches) under the workspace lock the process holds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from briefing.embed import Embedder
from briefing.errors import BriefError, IndexError_, ModelError
from briefing.index import Index
from briefing.ingest import make_connector
from briefing.ingest.reports import RunSummary, SourceRun
from briefing.ingest.resume import ChunkMemo
from briefing.model import Connector, EventReader, WebhookEvent, WebhookRefused, WebhookRequest
from briefing.ops import hooks, metrics
from briefing.pipeline import run_source, unexpected
from briefing.serve.inlets import receivers
from briefing.serve.journal import Journal
from briefing.settings import Settings
from briefing.store import RawStore

log = logging.getLogger(__name__)
Clock = Callable[[], float]


@dataclass
class Reply:
    """What the HTTP layer answers: a status and a JSON body."""

    status: int
    body: Mapping[str, Any] = field(default_factory=dict)


class Ingestor:
    """The one writer of a served workspace: events in, batches published, syncs run; thread-safe."""

    def __init__(
        self,
        settings: Settings,
        index: Index,
        embedder: Embedder,
        journal: Journal,
        *,
        clock: Clock = time.monotonic,
        wall: Clock = time.time,
        connectors: Mapping[str, Connector] | None = None,
    ) -> None:
        self.settings = settings
        self.index = index
        self.embedder = embedder
        self.journal = journal
        self.clock = clock
        self.wall = wall
        self.delay = settings.serve.publish_delay_s
        self.every = settings.serve.sync_every_s
        self.hooks = receivers(settings)
        self._connectors = dict(connectors or {})
        self._stores: dict[str, RawStore] = {}
        self._memos: dict[str, ChunkMemo] = {}  # how each source's resumable documents were last chunked
        self._accepting = threading.Lock()  # accepts one at a time: a replay check and its write are one step
        self._writing = threading.Lock()  # flushes and syncs one at a time: the index has one writer
        self.pending: dict[str, int] = dict(journal.dirty())  # a previous process's unpublished events first
        self.first_at: float | None = clock() if self.pending else None
        self.next_sync: float | None = clock() + self.every if self.every else None
        self.wake = threading.Event()
        self.published_at: float | None = None
        self.accepted = 0

    # -- events in ---------------------------------------------------------------------------------------------
    def accept(self, source: str, headers: Mapping[str, str], body: bytes, path: str = "", target: str = "") -> Reply:
        """One webhook request: 401 when its signature is wrong (nothing written), else 200 (stored, or a replay)."""
        if source not in self.hooks:
            return Reply(404, {"error": f"no webhook for source '{source}' ([serve.webhooks] lists the sources)"})
        receiver, key, auth = self.hooks[source]
        lowered = {k.lower(): v for k, v in headers.items()}
        config = self.settings.sources[source]
        request = WebhookRequest(lowered, body, path, key, self.wall(), config, target=target, auth=auth)
        return self._accept(source, lambda store: receiver(request, store))

    def accept_stream(self, source: str, read: EventReader) -> bool:
        """One event from a source's stream, through the webhooks' path; True when it needs no second delivery
        (stored, a replay, nothing this source keeps, or unreadable), False to have the vendor send it again."""
        return self._accept(source, read).status in (200, 400)

    def _accept(self, source: str, read: EventReader) -> Reply:
        with self._accepting:
            store = self._store(source)
            try:
                event = read(store)
            except WebhookRefused as exc:
                metrics.inc("brief_events", source=source, status="refused")
                return Reply(401, {"error": str(exc)})
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                metrics.inc("brief_events", source=source, status="refused")
                return Reply(400, {"error": f"the event could not be read ({type(exc).__name__})"})
            if event is None:
                metrics.inc("brief_events", source=source, status="ignored")
                return Reply(200, {"ok": True, "ingested": False})
            if event.reply is not None:
                return Reply(200, event.reply)
            return self._store_event(source, store, event)

    def _store_event(self, source: str, store: RawStore, event: WebhookEvent) -> Reply:
        event_id = f"{source}:{event.event_id}"
        if self.journal.seen(event_id):
            metrics.inc("brief_events", source=source, status="duplicate")
            return Reply(200, {"ok": True, "duplicate": True})
        self.journal.mark(source)  # before the write: a crash after it is re-indexed at the next start
        refused = store.put_many(event.put)
        if event.deleted:
            store.delete_many(event.deleted)
        self.journal.record(event_id, source)
        self.pending[source] = self.pending.get(source, 0) + 1
        if self.first_at is None:
            self.first_at = self.clock()
        self.accepted += 1
        metrics.inc("brief_events", source=source, status="accepted")
        self.wake.set()
        return Reply(200, {"ok": True, "ingested": True, "failures": [f.reason for f in refused]})

    def _store(self, source: str) -> RawStore:
        if source not in self._stores:
            self._stores[source] = RawStore.for_source(self.settings, source)
        return self._stores[source]

    # -- batches out -------------------------------------------------------------------------------------------
    def due_in(self) -> float | None:
        """Seconds until the next flush or sync is due (0: now), or None when nothing is waiting."""
        now = self.clock()
        flush_at = self.first_at + self.delay if self.first_at is not None else None
        times = [t for t in (flush_at, self.next_sync) if t is not None]
        return max(min(times) - now, 0.0) if times else None

    def tick(self) -> None:
        """Flush and sync when they are due (the worker calls this; tests call it with a clock they move)."""
        now = self.clock()
        if self.first_at is not None and now >= self.first_at + self.delay:
            self.flush()
        if self.next_sync is not None and now >= self.next_sync:
            self.sync()

    def flush(self) -> RunSummary | None:
        """Publish every event accepted so far (None when there is none), as one run in the run log."""
        with self._writing:
            with self._accepting:
                batch, self.pending, self.first_at = dict(self.pending), {}, None
            if not batch:
                return None
            started = self.clock()
            try:
                summary = self._run("serve", batch, collect_first=False, paths={"events": batch})
            except BaseException:  # the model or the index failed: the whole batch waits for the next try
                self._requeue(batch)
                raise
            failed = {run.name: batch[run.name] for run in summary.sources if run.error is not None}
            self.journal.published({name: n for name, n in batch.items() if name not in failed})
            if failed:  # tried again with the next batch; the sync path reconciles meanwhile
                self._requeue(failed)
            self.published_at = self.wall()
            metrics.observe("brief_stage_seconds", self.clock() - started, stage="serve.publish")
            return summary

    def _requeue(self, batch: dict[str, int]) -> None:
        with self._accepting:
            for name, n in batch.items():
                self.pending[name] = self.pending.get(name, 0) + n
            self.first_at = self.first_at if self.first_at is not None else self.clock()

    def sync(self, names: list[str] | None = None) -> RunSummary:
        """The batch connectors, inside the process (an alternative to cron), then the next sync is scheduled."""
        with self._writing:
            wanted = names or [n for n, c in self.settings.sources.items() if c.enabled]
            summary = self._run("ingest", dict.fromkeys(wanted, 0), collect_first=True, paths={})
            if self.every:
                self.next_sync = self.clock() + self.every
            return summary

    def _run(
        self, command: str, batch: dict[str, int], *, collect_first: bool, paths: dict[str, dict[str, int]]
    ) -> RunSummary:
        summary = RunSummary()
        with hooks.ingest_run(self.settings, command, locked=True) as observed:
            for name in batch:
                try:
                    connector = None if collect_first else self._connector(name)
                    # A sync chunks whole documents without the memory, so the memory of the source is dropped.
                    memo = self._memos.pop(name, None) if collect_first else self._memos.setdefault(name, ChunkMemo())
                    run = run_source(
                        self.settings,
                        name,
                        self.index,
                        self.embedder,
                        collect_first=collect_first,
                        connector=connector,
                        memo=None if collect_first else memo,
                    )
                    summary.sources.append(run)
                    self.index.commit()
                except (ModelError, IndexError_):
                    self._memos.clear()  # what the index holds is no longer known: chunked whole next time
                    raise
                except BriefError as exc:
                    self._memos.pop(name, None)
                    summary.sources.append(SourceRun(name=name, error=exc))
                except Exception as exc:  # one source's failure must not stop the others or the server
                    self._memos.pop(name, None)
                    log.debug("source %s failed", name, exc_info=True)
                    summary.sources.append(SourceRun(name=name, error=unexpected(name, exc)))
            if collect_first:
                paths = {"sync": {r.name: r.collected.fetched for r in summary.sources if r.collected is not None}}
                self._summaries()
            observed.paths = paths
            observed.summary = summary
        return summary

    def _summaries(self) -> None:
        if not self.settings.digest.summaries:
            return
        from briefing import summaries

        try:
            summaries.refresh(self.settings, self.index, self.embedder)
            self.index.commit()
        except (ModelError, IndexError_, OSError) as exc:
            log.warning("summaries not refreshed: %s", exc)

    def _connector(self, name: str) -> Connector:
        if name not in self._connectors:
            self._connectors[name] = make_connector(self.settings, name)
        return self._connectors[name]

    def waiting(self) -> int:
        return sum(self.pending.values())

    def close(self) -> None:
        for store in self._stores.values():
            store.close()
        self._stores.clear()
