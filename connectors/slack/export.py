"""Slack workspace export (the unzipped folder): channels.json, users.json, <channel>/<YYYY-MM-DD>.json.

An export is a snapshot, so the unit of change is a day file. The cursor remembers, per file, its stat, a
content hash and the record keys it produced. A re-run reads only files whose stat changed, emits them only if
their content changed, and lists in `Batch.deleted` the keys a changed or vanished file no longer contains.
`Batch.complete` is never set: batches are per channel (so a crash resumes from the last finished channel),
and a complete batch would have to list every key of the source at once.

`--since`/`--until` make a partial run: only messages whose `ts` falls in the window are emitted (day files
named for dates well outside it are not opened), nothing is deleted, and the day files' state is left as it
was, so the next unwindowed run still reads every file it has not read in full.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from briefing.errors import SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, RawRecord, RecordSource
from briefing.registry import FetchOptions, SourceContext
from connectors.slack import SlackExportSource
from connectors.slack.checks import channel_problem, message_problem, user_problem
from connectors.slack.export_files import DayFile, inside, parse_list, plain_name
from connectors.slack.normalise import normalise_parts, normalise_records

# Optional conversation lists beside channels.json; their folders are named by `name`, DMs by `id`.
_EXTRA_LISTS = ("groups.json", "mpims.json", "dms.json")
_META_FILES = ("channels.json", "users.json")


class FileState(BaseModel):
    """What the last run saw of one file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mtime_ns: int
    size: int
    sha256: str
    keys: tuple[str, ...] = ()


class SlackExportCursor(Cursor):
    """Per export file (path relative to the export root): its state when last ingested."""

    files: dict[str, FileState] = Field(default_factory=dict)
    # users.json was missing and that was reported: later runs do not report it again until it comes back.
    users_missing: bool = False


@dataclass(frozen=True)
class _Conversation:
    id: str
    name: str
    folder: str
    kind: str
    data: JSON


class SlackExportConnector:
    """Reads one unzipped Slack export folder."""

    def __init__(
        self,
        root: Path,
        channels: Sequence[str] = (),
        options: FetchOptions | None = None,
        *,
        max_file_bytes: int = 50_000_000,
        batch_records: int = 2_000,
    ) -> None:
        self.root = root
        self.max_file_bytes = max_file_bytes
        # Messages per cached batch: a day file of any size is read and stored this many messages at a time.
        self.batch_records = batch_records
        self.channel_filter = {c.lstrip("#") for c in channels}
        self.options = options or FetchOptions()
        self.windowed = self.options.since is not None or self.options.until is not None
        self._users_reported = False

    def _in_window(self, ts: str) -> bool:
        moment = datetime.fromtimestamp(float(ts), tz=UTC)
        since, until = self.options.since, self.options.until
        return (since is None or moment >= _aware(since)) and (until is None or moment <= _aware(until))

    def _day_may_hold_window(self, stem: str) -> bool:
        """Whether a day file (`YYYY-MM-DD.json`) can hold messages of the window; a day of slack for time zones."""
        try:
            day = date.fromisoformat(stem)
        except ValueError:
            return True
        start = datetime(day.year, day.month, day.day, tzinfo=UTC) - timedelta(days=1)
        end = start + timedelta(days=3)
        since, until = self.options.since, self.options.until
        return (since is None or end >= _aware(since)) and (until is None or start <= _aware(until))

    def initial_cursor(self) -> SlackExportCursor:
        return SlackExportCursor()

    def load_cursor(self, data: JSON) -> SlackExportCursor:
        return SlackExportCursor.model_validate(data)

    # ------------------------------------------------------------------------------------------ fetch

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        if not isinstance(cursor, SlackExportCursor):
            cursor = self.load_cursor(cursor.model_dump())
        state = dict(cursor.files)
        old = dict(cursor.files)
        self._users_reported = cursor.users_missing
        conversations, meta_batch = self._read_meta(old, state)
        missing = not (self.root / "users.json").is_file()
        yield Batch(
            records=meta_batch.records,
            deleted=meta_batch.deleted,
            failures=meta_batch.failures,
            cursor=SlackExportCursor(files=dict(state), users_missing=missing),
        )
        seen: set[str] = set(_META_FILES)
        for conv in conversations:
            last: Batch | None = None
            for batch in self._conversation_batches(conv, old, state, seen):
                if last is not None:
                    yield last
                last = batch
            if last is not None:
                last.cursor = SlackExportCursor(files=dict(state), users_missing=missing)
                if last.records or last.deleted or last.failures:
                    yield last
        gone = self._vanished(old, state, seen)
        gone.cursor = SlackExportCursor(files=dict(state), users_missing=missing)
        yield gone

    def _read_meta(self, old: dict[str, FileState], state: dict[str, FileState]) -> tuple[list[_Conversation], Batch]:
        if not self.root.is_dir():
            raise SourceError(
                f"Slack export folder {self.root} does not exist: set 'path' to the unzipped export's folder"
            )
        channels_file = self.root / "channels.json"
        if not channels_file.is_file():
            raise SourceError(
                f"{channels_file} is missing: 'path' must be the unzipped export's top folder "
                "(the one holding channels.json and users.json)"
            )
        batch = Batch()
        try:
            listed = self._load_list("channels.json", channels_file)
        except ValueError as exc:
            raise SourceError(
                f"{channels_file} is not a valid channel list ({exc}): re-export or re-extract it"
            ) from None

        conversations = self._conversations(listed, "channel", "channels.json", batch)
        for name in _EXTRA_LISTS:
            path = self.root / name
            if not path.is_file():
                continue
            try:
                extra = self._load_list(name, path)
            except ValueError as exc:
                batch.failures.append(Failure(name, f"not a valid conversation list: {exc}"))
                continue
            kind = name.removesuffix("s.json")
            conversations += self._conversations(extra, kind, name, batch)
        conversations = [c for c in conversations if self._wanted(c)]

        # The channel records depend on the filter as well as on the files, so they are keyed on both.
        channel_keys = tuple(f"channel/{c.id}" for c in conversations)
        listing = json.dumps([c.data for c in conversations], sort_keys=True).encode()
        self._emit_if_changed(
            "channels.json",
            channels_file,
            listing,
            channel_keys,
            [RawRecord(f"channel/{c.id}", "channel", {**c.data, "_kind": c.kind}) for c in conversations],
            old,
            state,
            batch,
        )
        users_file = self.root / "users.json"
        if users_file.is_file():
            try:
                raw = self._read("users.json", users_file)
                users = []
                for n, user in enumerate(parse_list(raw)):
                    problem = user_problem(user)
                    if problem is None:
                        users.append(user)
                    else:
                        batch.failures.append(Failure(f"users.json#{n}", problem))
            except (OSError, ValueError) as exc:
                batch.failures.append(Failure("users.json", f"unreadable user list: {exc}"))
            else:
                records = [RawRecord(f"user/{u['id']}", "user", u) for u in users]
                keys = tuple(r.key for r in records)
                self._emit_if_changed("users.json", users_file, raw, keys, records, old, state, batch)
        elif not self._users_reported:  # said once, in the run that first finds it missing
            batch.failures.append(
                Failure(
                    "users.json",
                    "missing from the export: authors are shown as user ids; re-export with users.json to get "
                    "names (said once; the next runs do not repeat it)",
                )
            )
            if "users.json" in old:
                batch.deleted += list(old["users.json"].keys)
                state.pop("users.json", None)
        return conversations, batch

    def _conversations(self, listed: list[Any], kind: str, where: str, batch: Batch) -> list[_Conversation]:
        """The usable entries of a conversation list; entries that are broken or name a folder outside are failures."""
        found: list[_Conversation] = []
        for n, data in enumerate(listed):
            problem = channel_problem(data)
            conv = self._conversation(data, kind) if problem is None else None
            if conv is not None and not plain_name(conv.folder):
                problem = f"conversation {conv.id} names folder {conv.folder[:60]!r}, which is not a plain folder name"
            if problem is not None or conv is None:
                batch.failures.append(Failure(f"{where}#{n}", problem or "unusable conversation"))
                continue
            found.append(conv)
        return found

    def _load_list(self, rel: str, path: Path) -> list[Any]:
        try:
            return parse_list(self._read(rel, path))
        except OSError as exc:
            raise ValueError(exc.strerror or str(exc)) from None

    def _check_readable(self, rel: str, path: Path) -> None:
        """Refuse a link that leads outside the export and a file over the size limit."""
        if not inside(self.root, path):
            raise ValueError(f"{rel} is a link to outside the export folder; not followed")
        size = path.stat().st_size
        if size > self.max_file_bytes:
            raise ValueError(
                f"{rel} is {size:,} bytes, over max_file_bytes={self.max_file_bytes:,}; raise it or split the file"
            )

    def _read(self, rel: str, path: Path) -> bytes:
        """A file of the export, read whole once it passes `_check_readable`."""
        self._check_readable(rel, path)
        return path.read_bytes()

    def _emit_if_changed(
        self,
        rel: str,
        path: Path,
        content: bytes,
        keys: tuple[str, ...],
        records: list[RawRecord],
        old: dict[str, FileState],
        state: dict[str, FileState],
        batch: Batch,
    ) -> None:
        stat = path.stat()
        digest = hashlib.sha256(content).hexdigest()
        previous = old.get(rel)
        state[rel] = FileState(mtime_ns=stat.st_mtime_ns, size=stat.st_size, sha256=digest, keys=keys)
        if previous is not None and previous.sha256 == digest:
            return
        batch.records += records
        if previous is not None:
            batch.deleted += sorted(set(previous.keys) - set(keys))

    def _conversation(self, data: JSON, kind: str) -> _Conversation:
        cid = str(data["id"])
        name = str(data.get("name") or cid)
        folder = cid if kind == "dm" else name
        return _Conversation(id=cid, name=name, folder=folder, kind=kind, data=data)

    def _wanted(self, conv: _Conversation) -> bool:
        return not self.channel_filter or conv.id in self.channel_filter or conv.name in self.channel_filter

    def _conversation_batches(
        self, conv: _Conversation, old: dict[str, FileState], state: dict[str, FileState], seen: set[str]
    ) -> Iterator[Batch]:
        """One channel's day files as batches of at most `batch_records` messages, read incrementally.

        Only the last batch of a channel may carry a cursor (the caller sets it), so a crash before it re-reads
        the channel's changed files next run; the deletions a changed file implies also come with the last one.
        """
        batch = Batch()
        candidates: set[str] = set()
        folder = self.root / conv.folder
        if folder.is_dir() and not inside(self.root, folder):
            batch.failures.append(Failure(conv.folder, "channel folder is a link to outside the export; not followed"))
            yield batch
            return
        day_files = sorted(folder.glob("*.json")) if folder.is_dir() else []
        for path in day_files:
            rel = f"{conv.folder}/{path.name}"
            seen.add(rel)
            if self.windowed and not self._day_may_hold_window(path.stem):
                continue
            stat = path.stat()
            previous = old.get(rel)
            unchanged = previous and (previous.mtime_ns, previous.size) == (stat.st_mtime_ns, stat.st_size)
            if unchanged and not self.windowed:
                continue
            try:
                day = self._open_day(rel, path)
            except (OSError, ValueError) as exc:
                # Keep the previous state: the old messages stay cached and the file is retried next run.
                batch.failures.append(Failure(rel, f"unreadable day file: {exc}"))
                continue
            if not self.windowed and previous is not None and previous.sha256 == day.sha256:
                state[rel] = FileState(
                    mtime_ns=stat.st_mtime_ns, size=stat.st_size, sha256=day.sha256, keys=previous.keys
                )
                continue
            keys: list[str] = []
            try:
                for n, message in enumerate(day.messages()):
                    problem = message_problem(message)
                    if problem is not None:
                        batch.failures.append(Failure(f"{rel}#{n}", problem))
                        continue
                    ts = message["ts"]
                    if self.windowed and not self._in_window(ts):
                        continue
                    data = {**message, "_channel": {"id": conv.id, "name": conv.name}}
                    batch.records.append(RawRecord(f"{conv.id}/{ts}", "message", data))
                    keys.append(f"{conv.id}/{ts}")
                    if len(batch.records) >= self.batch_records:
                        yield batch  # no cursor: the file is not finished
                        batch = Batch()
            except (OSError, ValueError) as exc:  # changed under us between the check and the read
                batch.failures.append(Failure(rel, f"unreadable day file: {exc}"))
                continue
            if self.windowed:
                continue  # a partial read: the file's state and any deletions wait for an unwindowed run
            state[rel] = FileState(mtime_ns=stat.st_mtime_ns, size=stat.st_size, sha256=day.sha256, keys=tuple(keys))
            if previous is not None:
                candidates.update(previous.keys)
        # A message that moved to another day file of the same channel is still alive.
        prefix = f"{conv.folder}/"
        alive = {key for rel, file in state.items() if rel.startswith(prefix) for key in file.keys}
        batch.deleted = sorted(candidates - alive)
        yield batch

    def _open_day(self, rel: str, path: Path) -> DayFile:
        """A day file checked whole (links, size, JSON syntax, nesting, a list on top) before any message is used."""
        self._check_readable(rel, path)
        return DayFile.open(path)

    def _vanished(self, old: dict[str, FileState], state: dict[str, FileState], seen: set[str]) -> Batch:
        """Files gone since the last run (or filtered out now): delete what only they contained."""
        gone = [rel for rel in old if rel not in seen]
        for rel in gone:
            state.pop(rel, None)
        alive = {key for file in state.values() for key in file.keys}
        deleted = sorted({key for rel in gone for key in old[rel].keys} - alive)
        return Batch(deleted=deleted, cursor=SlackExportCursor(files=dict(state)))

    # ------------------------------------------------------------------------------------------ normalise

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        return normalise_records(records)

    def normalise_parts(self, records: RecordSource) -> Iterator[Normalised]:
        return normalise_parts(records)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def build(ctx: SourceContext) -> SlackExportConnector:
    config: SlackExportSource = ctx.config
    return SlackExportConnector(
        ctx.resolve(config.path), config.channels, options=ctx.options, max_file_bytes=config.max_file_bytes
    )
