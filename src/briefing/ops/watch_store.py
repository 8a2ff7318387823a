"""`watches.json`: the watches, the refs each has seen and the outbox, written atomically under a file lock."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from filelock import FileLock

from briefing.errors import BriefError
from briefing.settings import Settings


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class WatchStore:
    """`watches.json`: the watches, the refs each has seen, and the outbox of undelivered notifications."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = FileLock(str(path) + ".lock", timeout=60, thread_local=False)

    @classmethod
    def for_settings(cls, settings: Settings) -> WatchStore:
        return cls(settings.workspace_home / "watches.json")

    def load(self) -> dict[str, Any]:
        if not self.path.is_file():
            return {"watches": [], "seen": {}, "outbox": []}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BriefError(
                f"{self.path} cannot be read ({exc}): restore it from a backup or remove it (watches are lost)"
            ) from None
        if not isinstance(data, dict):
            data = {}
        for key, empty in (("watches", []), ("seen", {}), ("outbox", [])):
            data.setdefault(key, empty)
        result: dict[str, Any] = data
        return result

    def save(self, data: dict[str, Any]) -> None:
        _write(self.path, data)

    def watches(self) -> list[dict[str, Any]]:
        """The watches as stored (`briefing.ops.watch.Watch.from_json` reads one)."""
        found: list[dict[str, Any]] = self.load()["watches"]
        return found
