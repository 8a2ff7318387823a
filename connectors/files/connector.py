"""The `files` source: a folder of Markdown/MDX, plain text and PDF files, read incrementally.

The cursor remembers each file's (mtime, size, sha256). A later scan hashes every file (an edit can keep both
size and mtime) and re-reads those whose content hash differs; files that vanished (or became empty) are listed
in `Batch.deleted`. Files over `max_file_bytes`, binary content under a text name, and links that leave the root
or loop are skipped, each as a failure with its reason.
A first or `--full` scan reads everything into one complete batch, so stale cached files are dropped.
`--since`/`--until` read only files whose mtime falls in the window: a partial scan that deletes nothing and
leaves the other files' state alone, so a later plain scan still reads what it skipped.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath

from briefing.errors import SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, RawRecord
from briefing.registry import SourceContext
from connectors.files import FilesSource
from connectors.files.documents import file_document
from connectors.files.reading import Unreadable, decode_text, pdf_document

log = logging.getLogger(__name__)

FORMATS = {".md": "markdown", ".mdx": "markdown", ".markdown": "markdown", ".txt": "text", ".pdf": "pdf"}
_BATCH_FILES = 200
_BATCH_CHARS = 20_000_000


class FilesCursor(Cursor):
    """Relative path -> (mtime, size, sha256) of every file read successfully."""

    files: dict[str, tuple[float, int, str]] = {}


@dataclass
class _Entry:
    rel: str
    path: Path
    mtime: float
    size: int


@dataclass
class _Scan:
    entries: list[_Entry] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A shell glob over forward-slash paths: `**/` spans zero or more folders, `*` and `?` stay in one."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class FilesConnector:
    """Reads a folder; see the module docstring for the incremental contract."""

    def __init__(
        self,
        name: str,
        root: Path,
        include: Sequence[str],
        exclude: Sequence[str],
        full: bool = False,
        since: datetime | None = None,
        until: datetime | None = None,
        max_file_bytes: int = 20_000_000,
    ):
        self.max_file_bytes = max_file_bytes
        self.name = name
        self.since = since.timestamp() if since is not None else None
        self.until = until.timestamp() if until is not None else None
        self.root = root
        self.include = [glob_regex(p.lstrip("/")) for p in include]
        self.exclude = [glob_regex(p.lstrip("/")) for p in exclude]
        self.full = full
        # Files left out on the last fetch because they were empty (reported, never failures).
        self.skipped: list[str] = []

    def initial_cursor(self) -> FilesCursor:
        return FilesCursor()

    def load_cursor(self, data: JSON) -> FilesCursor:
        return FilesCursor.model_validate(data)

    # -- collection ------------------------------------------------------------------------------------------

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        previous = cursor.files if isinstance(cursor, FilesCursor) else {}
        if self.full:
            previous = {}
        scan = self._scan()
        self.skipped = scan.skipped
        windowed = self.since is not None or self.until is not None
        if windowed:
            scan.entries = [e for e in scan.entries if self._in_window(e.mtime)]
        present = {e.rel for e in scan.entries}
        state = dict(previous)
        deleted = [] if windowed else sorted(k for k in previous if k not in present)
        for key in deleted:
            del state[key]
        first_scan = not previous and not windowed

        batch = Batch(deleted=deleted, failures=list(scan.failures), complete=first_scan)
        chars = 0
        for entry in scan.entries:
            old = previous.get(entry.rel)
            if entry.size > self.max_file_bytes:
                batch.failures.append(
                    Failure(
                        entry.rel,
                        f"skipped: {entry.size:,} bytes, over sources.{self.name}.max_file_bytes="
                        f"{self.max_file_bytes:,} (raise it to index this file)",
                    )
                )
                continue
            try:
                raw = entry.path.read_bytes()
            except OSError as exc:
                batch.failures.append(Failure(entry.rel, f"cannot be read: {exc.strerror or exc}"))
                continue
            digest = hashlib.sha256(raw).hexdigest()
            if old is not None and old[2] == digest:
                # Touched but not changed: remember the new mtime so the next scan skips the hash too.
                state[entry.rel] = (entry.mtime, entry.size, digest)
                continue
            try:
                record = self._record(entry, raw, digest)
            except Unreadable as exc:
                batch.failures.append(Failure(entry.rel, str(exc)))
                continue
            except Exception as exc:  # noqa: BLE001 - one bad file must never abort the scan
                batch.failures.append(Failure(entry.rel, f"could not be read: {type(exc).__name__}: {exc}"))
                continue
            if record is None:
                self.skipped.append(entry.rel)
                if entry.rel in state:
                    del state[entry.rel]
                    batch.deleted.append(entry.rel)
                continue
            batch.records.append(record)
            state[entry.rel] = (entry.mtime, entry.size, digest)
            chars += entry.size
            if not first_scan and (len(batch.records) >= _BATCH_FILES or chars >= _BATCH_CHARS):
                batch.cursor = FilesCursor(files=dict(state))
                yield batch
                batch, chars = Batch(), 0
        batch.cursor = FilesCursor(files=dict(state))
        yield batch

    def _in_window(self, mtime: float) -> bool:
        return (self.since is None or mtime >= self.since) and (self.until is None or mtime <= self.until)

    def _scan(self) -> _Scan:
        root = self.root
        if not root.exists():
            raise SourceError(
                f"source '{self.name}': folder {root} does not exist (sources.{self.name}.path): "
                "fix the path or create the folder"
            )
        if not root.is_dir():
            raise SourceError(f"source '{self.name}': {root} is not a folder (sources.{self.name}.path)")
        real_root = root.resolve()
        scan = _Scan()
        try:
            self._walk(root, real_root, PurePosixPath(), {real_root}, scan)
        except PermissionError:
            raise SourceError(f"source '{self.name}': folder {root} cannot be read (permission denied)") from None
        scan.entries.sort(key=lambda e: e.rel)
        return scan

    def _walk(self, folder: Path, real_root: Path, rel: PurePosixPath, seen: set[Path], scan: _Scan) -> None:
        try:
            children = sorted(os.scandir(folder), key=lambda d: d.name)
        except PermissionError:
            if rel == PurePosixPath():
                raise
            scan.failures.append(Failure(str(rel), "folder cannot be read (permission denied)"))
            return
        for child in children:
            if child.name.startswith("."):
                continue
            child_rel = rel / child.name
            path = Path(child.path)
            if child.is_symlink():
                try:
                    target = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    scan.failures.append(Failure(child_rel.as_posix(), "link loops or leads nowhere; not followed"))
                    continue
                # A link may point anywhere; only what stays inside the root belongs to this source.
                if not target.is_relative_to(real_root):
                    continue
            try:
                is_dir = child.is_dir()
                is_file = child.is_file()
            except OSError:
                continue
            if is_dir:
                try:
                    real = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    continue
                if real in seen:
                    continue
                seen.add(real)
                self._walk(path, real_root, child_rel, seen, scan)
            elif is_file:
                key = child_rel.as_posix()
                if FORMATS.get(path.suffix.lower()) is None or not self._selected(key):
                    continue
                stat = path.stat()
                if stat.st_size == 0:
                    scan.skipped.append(key)
                    continue
                scan.entries.append(_Entry(key, path, stat.st_mtime, stat.st_size))

    def _selected(self, key: str) -> bool:
        if not any(p.match(key) for p in self.include):
            return False
        return not any(p.match(key) for p in self.exclude)

    def _record(self, entry: _Entry, raw: bytes, digest: str) -> RawRecord | None:
        fmt = FORMATS[entry.path.suffix.lower()]
        data: JSON = {
            "path": entry.rel,
            "mtime": entry.mtime,
            "size": entry.size,
            "sha256": digest,
            "format": fmt,
        }
        if fmt == "pdf":
            pages, info = pdf_document(raw)
            if not any(p.strip() for p in pages):
                raise Unreadable(f"PDF has no extractable text in {len(pages)} page(s) (scanned images?)")
            data["pages"] = pages
            data.update(info)
        else:
            text, note = decode_text(raw)
            if not text.strip():
                return None
            data["content"] = text
            if note:
                data["note"] = note
        return RawRecord(key=entry.rel, kind="file", data=data)

    # -- normalisation ---------------------------------------------------------------------------------------

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        out = Normalised()
        for record in records:
            try:
                out.documents.append(file_document(record))
            except Exception as exc:  # noqa: BLE001 - one bad record must never abort the run
                out.failures.append(Failure(record.key, f"could not be normalised: {type(exc).__name__}: {exc}"))
        return out


def build(ctx: SourceContext) -> FilesConnector:
    """The registry's factory for `type = "files"`."""
    config: FilesSource = ctx.config
    root = ctx.resolve(Path(config.path))
    options = ctx.options
    return FilesConnector(
        ctx.name,
        root,
        config.include,
        config.exclude,
        full=options.full,
        since=options.since,
        until=options.until,
        max_file_bytes=config.max_file_bytes,
    )
