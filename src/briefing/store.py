"""Local state under BRIEF_HOME: the raw cache (diskcache, one per source) and the per-source state file.

The state file holds the cursor and the last run's report. It is written atomically (temp file + rename) and
only after the records the cursor covers are in the raw cache, so a crash re-fetches rather than skips.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import diskcache

from briefing.model import RawRecord
from briefing.settings import Settings


class RawStore:
    """Raw vendor records of one source, keyed by the connector's stable record key."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._cache = diskcache.Cache(str(directory))

    @classmethod
    def for_source(cls, settings: Settings, source: str) -> RawStore:
        return cls(settings.workspace_home / "raw" / source)

    def put_many(self, records: Iterable[RawRecord]) -> int:
        count = 0
        with self._cache.transact():
            for record in records:
                self._cache.set(record.key, {"kind": record.kind, "data": record.data})
                count += 1
        return count

    def delete_many(self, keys: Iterable[str]) -> int:
        count = 0
        with self._cache.transact():
            for key in keys:
                count += bool(self._cache.delete(key))
        return count

    def keys(self) -> set[str]:
        return {str(k) for k in self._cache.iterkeys()}

    def __len__(self) -> int:
        return len(self._cache)

    def records(self) -> Iterator[RawRecord]:
        for key in sorted(self.keys()):
            value = self._cache.get(key)
            if value is not None:
                yield RawRecord(key=key, kind=value["kind"], data=value["data"])

    def clear(self) -> None:
        self._cache.clear()

    def close(self) -> None:
        self._cache.close()


def _atomic_write_json(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=2, sort_keys=True, default=str)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class SourceState:
    """Cursor, last run and counts of one source, in `state/<source>.json`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {}
        if path.is_file():
            try:
                self.data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                # A damaged state file only costs a full re-fetch; the raw cache is untouched.
                self.data = {}

    @classmethod
    def for_source(cls, settings: Settings, source: str) -> SourceState:
        return cls(settings.workspace_home / "state" / f"{source}.json")

    @property
    def cursor(self) -> dict[str, Any] | None:
        value = self.data.get("cursor")
        return value if isinstance(value, dict) else None

    def save_cursor(self, cursor: dict[str, Any]) -> None:
        self.data["cursor"] = cursor
        self.data["cursor_saved_at"] = datetime.now(UTC).isoformat()
        _atomic_write_json(self.path, self.data)

    def reset_cursor(self) -> None:
        self.data.pop("cursor", None)
        _atomic_write_json(self.path, self.data)

    def save_run(self, report: dict[str, Any]) -> None:
        self.data["last_run"] = report
        _atomic_write_json(self.path, self.data)

    def save_people(self, people: list[dict[str, Any]]) -> None:
        self.data["people"] = people
        _atomic_write_json(self.path, self.data)

    def save_directory(self, containers: list[str], tickets: list[str]) -> None:
        """Metadata values the question parser may resolve names against (channels, projects, ticket keys)."""
        self.data["directory"] = {"containers": containers, "tickets": tickets}
        _atomic_write_json(self.path, self.data)
