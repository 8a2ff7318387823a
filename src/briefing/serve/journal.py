"""What `brief serve` must remember across a restart: event ids already ingested and sources not yet published.

One SQLite file per workspace (`workspaces/<name>/serve/journal.db`). An event id is recorded only after the
event's records are in the raw cache, and a source is marked unpublished before they are written, so a crash at
any point either leaves the event unrecorded (the vendor's retry writes the same records again) or the source
marked (the next start re-indexes it from the raw cache).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from briefing.errors import StateError
from briefing.settings import Settings


class Journal:
    """Seen event ids (kept `keep_s` seconds) and the sources whose cached events are not yet published."""

    def __init__(self, path: Path, *, keep_s: float, clock: object = time.time) -> None:
        self.path = path
        self.keep_s = keep_s
        self._clock = clock
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("CREATE TABLE IF NOT EXISTS seen (id TEXT PRIMARY KEY, source TEXT, at REAL)")
            self._db.execute("CREATE TABLE IF NOT EXISTS dirty (source TEXT PRIMARY KEY, events INTEGER)")
        except sqlite3.DatabaseError as exc:
            raise StateError(
                f"the serve journal {path} is damaged ({exc}): move it aside; events the vendors retry are then "
                "ingested again (the raw cache keeps one record per item, so nothing is doubled)"
            ) from None

    @classmethod
    def for_settings(cls, settings: Settings, **kwargs: object) -> Journal:
        keep = settings.serve.dedupe_days * 86400
        return cls(settings.workspace_home / "serve" / "journal.db", keep_s=keep, **kwargs)  # type: ignore[arg-type]

    def _now(self) -> float:
        return float(self._clock())  # type: ignore[operator]

    def seen(self, event_id: str) -> bool:
        with self._lock:
            row = self._db.execute("SELECT 1 FROM seen WHERE id = ?", (event_id,)).fetchone()
        return row is not None

    def record(self, event_id: str, source: str) -> None:
        """`event_id` is ingested: a replay of it changes nothing from now on."""
        with self._lock:
            self._db.execute("INSERT OR IGNORE INTO seen VALUES (?, ?, ?)", (event_id, source, self._now()))

    def mark(self, source: str) -> None:
        """`source` has cached events that are not published yet (before they are written)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO dirty VALUES (?, 1) ON CONFLICT(source) DO UPDATE SET events = events + 1", (source,)
            )

    def dirty(self) -> dict[str, int]:
        """Unpublished sources and how many events each has waiting."""
        with self._lock:
            return {str(s): int(n) for s, n in self._db.execute("SELECT source, events FROM dirty")}

    def published(self, counts: dict[str, int]) -> None:
        """The sources' events counted in `counts` are in the index; events that came in since stay marked."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            for source, n in counts.items():
                self._db.execute("UPDATE dirty SET events = events - ? WHERE source = ?", (n, source))
            self._db.execute("DELETE FROM dirty WHERE events <= 0")
            self._db.execute("COMMIT")

    def prune(self) -> int:
        """Forget event ids older than the dedupe window; returns how many."""
        with self._lock:
            cursor = self._db.execute("DELETE FROM seen WHERE at < ?", (self._now() - self.keep_s,))
        return int(cursor.rowcount)

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM seen").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
