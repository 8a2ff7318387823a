"""Local state under BRIEF_HOME: the raw cache (diskcache, one per source) and the per-source state file.

The state file holds the cursor and the last run's report. It is written atomically (temp file + rename) and
only after the records the cursor covers are in the raw cache, so a crash re-fetches rather than skips.

The raw cache stores JSON, never pickles (diskcache's default): a cache file someone tampered with can at worst
hold wrong data, it cannot run code. A record that JSON cannot hold faithfully (nested deeper than
`MAX_DEPTH`, a non-finite number, a non-string key) is refused as one item's failure, never cached, so it cannot
break every later run. A damaged cache is reported as `StateError` naming the folder and the repair.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sqlite3
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import diskcache
from diskcache.core import MODE_BINARY, MODE_RAW

from briefing import killpoint
from briefing.errors import DiskFullError, StateError
from briefing.model import Failure, RawRecord
from briefing.ops.disk import damage_or_full
from briefing.settings import Settings

# Vendor payloads nest a few levels (a Slack block in a message in a thread: about 10); hundreds is hostile.
MAX_DEPTH = 64
log = logging.getLogger(__name__)
FORMAT = {"format": "json", "version": 1}
_FORMAT_FILE = "brief-format.json"


class UnsafeCacheError(Exception):
    """A cached value is not in the JSON format (a pickle, or tampered bytes)."""


class JsonDisk(diskcache.Disk):  # type: ignore[misc]
    """diskcache storage of string keys and JSON values only; pickled rows are refused, never loaded."""

    def put(self, key: Any) -> tuple[Any, bool]:
        if not isinstance(key, str):
            raise TypeError(f"raw cache keys are strings, not {type(key).__name__}")
        stored, raw = super().put(key)
        return stored, bool(raw)

    def get(self, key: Any, raw: bool) -> Any:
        if not raw:
            raise UnsafeCacheError("a cache key is pickled")
        return super().get(key, raw)

    def store(self, value: Any, read: bool, key: Any = diskcache.core.UNKNOWN) -> Any:
        data = zlib.compress(json.dumps(value, allow_nan=False, separators=(",", ":")).encode("utf-8"), 1)
        return super().store(data, read, key=key)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode not in (MODE_RAW, MODE_BINARY):
            raise UnsafeCacheError(f"a cached value has storage mode {mode}, not JSON")
        data = super().fetch(mode, filename, value, read)
        try:
            return json.loads(zlib.decompress(bytes(data)).decode("utf-8"))
        except (zlib.error, UnicodeDecodeError, ValueError) as exc:
            raise UnsafeCacheError(f"a cached value is not JSON ({type(exc).__name__})") from None


def json_problem(value: Any, limit: int = MAX_DEPTH) -> str | None:
    """Why `value` cannot be cached as JSON faithfully, or None. Iterative: depth is what is being checked."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            if depth > limit:
                return f"nested more than {limit} levels deep"
            for key, child in node.items():
                if not isinstance(key, str):
                    return f"a key of type {type(key).__name__}"
                stack.append((child, depth + 1))
        elif isinstance(node, list | tuple):
            if depth > limit:
                return f"nested more than {limit} levels deep"
            stack.extend((child, depth + 1) for child in node)
        elif isinstance(node, float):
            if not math.isfinite(node):
                return f"a non-finite number ({node})"
        elif not (node is None or isinstance(node, str | int | bool)):
            return f"a value of type {type(node).__name__}"
    return None


class RawStore:
    """Raw vendor records of one source, keyed by the connector's stable record key."""

    def __init__(self, directory: Path, *, source: str | None = None) -> None:
        self.directory = directory
        self.source = source or directory.name
        marker = directory / _FORMAT_FILE
        fresh = not (directory / "cache.db").exists()
        if not fresh and not marker.is_file():
            raise StateError(
                f"the raw cache of source '{self.source}' in {directory} was written by an older brief in pickle "
                f"format, which is no longer read (it could run code): move that folder aside and run "
                f"`brief ingest {self.source} --full` to re-fetch it"
            )
        directory.mkdir(parents=True, exist_ok=True)
        try:
            self._cache = diskcache.Cache(str(directory), disk=JsonDisk)
        except (sqlite3.DatabaseError, OSError) as exc:
            raise self._damaged(exc) from None
        if fresh:
            _atomic_write_json(marker, FORMAT)

    @classmethod
    def for_source(cls, settings: Settings, source: str) -> RawStore:
        return cls(settings.workspace_home / "raw" / source, source=source)

    @classmethod
    def retire_legacy(cls, settings: Settings, source: str) -> Path | None:
        """Before a full re-fetch: move a cache that cannot be read safely (pickled, damaged) aside, and say where."""
        directory = settings.workspace_home / "raw" / source
        try:
            cls(directory, source=source).close()
            return None
        except DiskFullError:
            raise  # nothing is damaged: moving the cache aside would throw it away
        except StateError as exc:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
            aside = directory.with_name(f"{source}.unreadable-{stamp}")
            directory.rename(aside)
            log.warning("%s; moved it to %s and re-fetching", exc, aside)
            return aside

    def _damaged(self, exc: BaseException) -> StateError:
        return damage_or_full(
            self.directory,
            StateError(
                f"the raw cache of source '{self.source}' in {self.directory} is damaged ({type(exc).__name__}: "
                f"{exc}): move that folder aside and run `brief ingest {self.source} --full` to re-fetch it"
            ),
        )

    def put_many(self, records: Iterable[RawRecord]) -> list[Failure]:
        """Store the records that JSON can hold; the others come back as failures, and are not stored."""
        failures: list[Failure] = []
        try:
            with self._cache.transact():
                for record in records:
                    value = {"kind": record.kind, "data": record.data}
                    problem = json_problem(value)
                    if problem is not None:
                        failures.append(Failure(record.key, f"not cached: the record has {problem}"))
                        continue
                    self._cache.set(record.key, value)
                    killpoint.reached("cache.write")
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        return failures

    def delete_many(self, keys: Iterable[str]) -> int:
        count = 0
        with self._cache.transact():
            for key in keys:
                count += bool(self._cache.delete(key))
                killpoint.reached("deletion.delete")
        return count

    def keys(self) -> set[str]:
        try:
            return {str(k) for k in self._cache.iterkeys()}
        except (sqlite3.DatabaseError, UnsafeCacheError) as exc:
            raise self._damaged(exc) from None

    def __len__(self) -> int:
        return len(self._cache)

    def records(self) -> Iterator[RawRecord]:
        return self.read(sorted(self.keys()))

    def read(self, keys: Iterable[str]) -> Iterator[RawRecord]:
        """The records of `keys`, in that order, one at a time (a key no longer cached is skipped)."""
        for key in keys:
            try:
                value = self._cache.get(key)
            except (sqlite3.DatabaseError, UnsafeCacheError, OSError) as exc:
                raise self._damaged(exc) from None
            if isinstance(value, dict) and isinstance(value.get("kind"), str):
                yield RawRecord(key=key, kind=value["kind"], data=value["data"])

    def get(self, key: str) -> RawRecord | None:
        """The cached record of `key`, or None."""
        return next(self.read([key]), None)

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
        killpoint.reached("state.replace")
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
        return cls(cls.path_for(settings, source))

    @staticmethod
    def path_for(settings: Settings, source: str) -> Path:
        """Where the source's state file is (nothing read)."""
        return settings.workspace_home / "state" / f"{source}.json"

    @property
    def cursor(self) -> dict[str, Any] | None:
        value = self.data.get("cursor")
        return value if isinstance(value, dict) else None

    def save_cursor(self, cursor: dict[str, Any], *, pending: set[str] | None = None) -> None:
        """The cursor, with the deletions found so far and not yet applied (written in one atomic step)."""
        self.data["cursor"] = cursor
        self.data["cursor_saved_at"] = datetime.now(UTC).isoformat()
        if pending:
            self.data["pending_deletions"] = sorted(pending)
        else:
            self.data.pop("pending_deletions", None)
        _atomic_write_json(self.path, self.data)

    @property
    def pending_deletions(self) -> set[str]:
        """Record keys a run found gone at the source but has not deleted yet (a crash, or a refused run)."""
        value = self.data.get("pending_deletions")
        return {str(k) for k in value} if isinstance(value, list) else set()

    def clear_pending_deletions(self) -> None:
        if "pending_deletions" in self.data:
            self.data.pop("pending_deletions")
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
