"""Run logs: one JSON line per run in `BRIEF_HOME/logs/runs.jsonl` (rotated), and JSON diagnostics on request.

A run line carries the run id, the command, the schedule that started it (cron lines set `BRIEF_SCHEDULE_ID`),
the outcome, counts per source and the first failures, so `brief doctor`, a log shipper or `jq` can tell what
an unattended run did. `--log-format json` turns every diagnostic on stderr into one JSON object a line too.
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from briefing.ops.safe import neutralise

RUN_LOG = "runs.jsonl"
SCHEDULE_ENV = "BRIEF_SCHEDULE_ID"
DEFAULT_MAX_BYTES = 5_000_000
DEFAULT_BACKUPS = 5


def new_run_id() -> str:
    """A sortable, unique run id: UTC time to the second, then random hex."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:8]


def log_dir(home: Path) -> Path:
    return home / "logs"


def write_run(
    home: Path, record: dict[str, Any], *, max_bytes: int = DEFAULT_MAX_BYTES, backups: int = DEFAULT_BACKUPS
) -> Path:
    """Append one run record as a JSON line, rotating the file past `max_bytes` (keeping `backups` old files)."""
    folder = log_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RUN_LOG
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8")
    try:
        line = json.dumps(record, sort_keys=True, default=str)
        handler.emit(logging.LogRecord("brief.runs", logging.INFO, __file__, 0, line, None, None))
    finally:
        handler.close()
    return path


def read_runs(home: Path) -> Iterator[dict[str, Any]]:
    """Every run record still on disk, oldest first (rotated files included); unreadable lines are skipped."""
    folder = log_dir(home)
    files = sorted(folder.glob(RUN_LOG + ".*"), key=lambda p: -int(p.suffix[1:]) if p.suffix[1:].isdigit() else 0)
    for path in [*files, folder / RUN_LOG]:
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                yield record


def last_runs(home: Path) -> dict[str, dict[str, Any]]:
    """The newest run record per schedule id (runs started by hand are under the key "")."""
    newest: dict[str, dict[str, Any]] = {}
    for record in read_runs(home):
        newest[str(record.get("schedule") or "")] = record
    return newest


def schedule_id() -> str | None:
    return os.environ.get(SCHEDULE_ENV) or None


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message (neutralised), and the exception type if any."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": neutralise(record.getMessage()),
        }
        if record.exc_info and record.exc_info[0] is not None:
            data["exception"] = record.exc_info[0].__name__
        return json.dumps(data, default=str)


class JsonLines:
    """A text stream that turns every line written to it into one JSON object (for the CLI's stderr console).

    With `--log-format json`, whatever the commands print as diagnostics (errors, skipped items, notes) becomes
    `{"ts", "level", "message"}` lines, without each command knowing about the format.
    """

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            self._emit(line)
        return len(text)

    def _emit(self, line: str) -> None:
        message = neutralise(line).strip()
        if not message:
            return
        level = "info"
        for prefix, name in (("error:", "error"), ("skipped", "warning"), ("note", "warning"), ("warning", "warning")):
            if message.lower().startswith(prefix):
                level = name
                if prefix.endswith(":"):
                    message = message[len(prefix) :].strip()
                break
        ts = datetime.now(UTC).isoformat(timespec="milliseconds")
        self.stream.write(json.dumps({"ts": ts, "level": level, "message": message}) + "\n")

    def flush(self) -> None:
        if self._pending:
            self._emit(self._pending)
            self._pending = ""
        self.stream.flush()

    def isatty(self) -> bool:
        return False


def json_handler() -> logging.Handler:
    import sys

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    return handler
