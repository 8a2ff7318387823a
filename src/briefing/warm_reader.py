"""The vector cache warmed by a long-lived reader, in a background thread after an answer, not by the ingest.

With `[embedding] warm_at = "reader"` (the default) a first ingest embeds only its chunks. A long-lived reader
(`brief mcp`, `brief slack-bot`, `brief serve`'s companions) answers its first question paying for the texts that
question reads, then warms every chunk's unit-list texts and answer sentences (`briefing.warm.warm`, the texts and
cache keys an ingest would warm) a few chunks at a time in a thread at the lowest CPU priority. It reads the index
only under the reader's lock, one page at a time, so a question waits at most for one page; model runs take the
embedder's own lock, so a question's embedding waits at most for one small round. After a later answer that finds
the index holding a different number of points (an ingest published), it runs again; only texts the cache lacks
are embedded. A process that stops mid-way loses nothing: every embedded text is already in the on-disk cache.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from briefing.embed import Embedder
from briefing.index import Index, payload_to_chunk
from briefing.model import Chunk
from briefing.settings import Settings

log = logging.getLogger(__name__)

# Chunks read from the index under the reader's lock at a time, and embedded per model run (each run holds the
# embedder's lock: a question's embedding waits for at most one round of about half a second on two cores).
PAGE = 64
ROUND = 8


@dataclass
class WarmPass:
    """What one background pass did."""

    chunks: int = 0
    embedded: int = 0
    errors: list[str] = field(default_factory=list)


class BackgroundWarm:
    """Started by `after_answer()`; `join()` waits for a pass (tests, a graceful stop); `stop()` ends it early."""

    def __init__(
        self,
        settings: Settings,
        source: Callable[[], tuple[Index, Embedder]],
        lock: AbstractContextManager[object],
    ) -> None:
        self.settings = settings
        self.source = source  # the reader's index and embedder, read under `lock`
        self.lock = lock
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.points: int | None = None  # the index's size when the last pass started
        self.last: WarmPass | None = None

    @property
    def enabled(self) -> bool:
        embedding = self.settings.embedding
        return embedding.warm_cache and embedding.warm_at == "reader"

    def after_answer(self) -> bool:
        """Start a pass unless one runs or the index has not changed since the last; True when one started.

        Called after the answer went out, outside the reader's lock."""
        if not self.enabled or self.stopping.is_set() or (self.thread is not None and self.thread.is_alive()):
            return False
        try:
            with self.lock:
                index, _ = self.source()
                points = index.count()
        except Exception as exc:  # noqa: BLE001 - a cache left cold costs time, never an answer
            log.debug("the vector cache is not warmed: %s", exc)
            return False
        if points == self.points:
            return False
        self.points = points
        self.thread = threading.Thread(target=self._run, name="brief-warm", daemon=True)
        self.thread.start()
        return True

    def join(self, timeout: float | None = None) -> WarmPass | None:
        if self.thread is not None:
            self.thread.join(timeout)
        return self.last

    def stop(self, timeout: float | None = 5.0) -> None:
        self.stopping.set()
        self.join(timeout)

    def _run(self) -> None:
        _lowest_priority()
        done = WarmPass()
        try:
            self._pass(done)
        except Exception as exc:  # noqa: BLE001 - the reader answers on; the first questions pay instead
            done.errors.append(f"{type(exc).__name__}: {exc}")
            log.warning("the vector cache was not warmed in the background: %s", exc)
        self.last = done
        log.info("vector cache warmed in the background: %d chunks read, %d texts embedded", done.chunks, done.embedded)

    def _pass(self, done: WarmPass) -> None:
        from briefing.warm import warm

        with self.lock:
            index, embedder = self.source()
            pages = index.scroll(batch=PAGE)
        while not self.stopping.is_set():
            with self.lock:
                page = _page(pages)
            if not page:
                return
            for start in range(0, len(page), ROUND):
                if self.stopping.is_set():
                    return
                part = page[start : start + ROUND]
                done.embedded += warm(self.settings, part, embedder).embedded
                done.chunks += len(part)


def _page(records: Iterator[Any]) -> list[Chunk]:
    out: list[Chunk] = []
    for record in records:
        out.append(payload_to_chunk(record.payload))
        if len(out) >= PAGE:
            break
    return out


def _lowest_priority() -> None:
    """This thread only (Linux schedules threads as tasks); elsewhere the thread runs at the process's priority."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):
        pass


def warm_now(settings: Settings) -> WarmPass:
    """One pass in the foreground over the published index (`brief warm`), whatever `warm_at` says: for workspaces
    read by one-shot `brief ask` from cron or scripts, which never keep a reader alive to warm in the background."""
    from contextlib import nullcontext

    from briefing.service import Brief

    brief = Brief(settings)
    try:
        warmer = BackgroundWarm(settings, lambda: (brief.index, brief.embedder), nullcontext())
        done = WarmPass()
        warmer._pass(done)
        return done
    finally:
        brief.close()
