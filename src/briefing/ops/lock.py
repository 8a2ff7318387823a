"""One lock per workspace, so two runs (cron and a person, or two cron lines) never write the same index at once.

A maintained lock library (filelock) holds an OS-level lock on `workspaces/<name>/run.lock`; the OS releases it
when the process dies, so a crashed run never leaves a stale lock behind.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock, Timeout

from briefing.errors import BriefError
from briefing.settings import Settings


class LockHeldError(BriefError):
    """Another `brief` run holds the workspace lock; this run did nothing."""

    exit_code = 13


def lock_path(settings: Settings) -> Path:
    return settings.workspace_home / "run.lock"


def _holder_path(settings: Settings) -> Path:
    return settings.workspace_home / "run.lock.holder"


def holder(settings: Settings) -> dict[str, object]:
    """Who took the lock last (pid, command, since); informational only, the lock itself is the OS lock."""
    try:
        data = json.loads(_holder_path(settings).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@contextmanager
def workspace_lock(settings: Settings, command: str, *, wait_s: float = 0.0) -> Iterator[None]:
    """Hold the workspace's run lock, or raise `LockHeldError` after `wait_s` seconds (0: at once)."""
    path = lock_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path, timeout=wait_s, thread_local=False)
    try:
        lock.acquire()
    except Timeout:
        who = holder(settings)
        since = f" since {who['since']}" if who.get("since") else ""
        what = f"`brief {who['command']}` (pid {who.get('pid')}{since})" if who.get("command") else "another brief run"
        raise LockHeldError(
            f"workspace '{settings.workspace.name}' is locked by {what} ({path}): "
            "this run did nothing; it runs again at its next schedule, or retry when that one finishes"
        ) from None
    try:
        record = {"pid": os.getpid(), "command": command, "since": datetime.now(UTC).isoformat(timespec="seconds")}
        _holder_path(settings).write_text(json.dumps(record), encoding="utf-8")
        yield
    finally:
        lock.release()
