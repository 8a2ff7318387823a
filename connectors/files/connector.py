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
import io
import logging
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from briefing.errors import SourceError
from briefing.model import JSON, Batch, Cursor, Document, Failure, Item, Normalised, RawRecord
from briefing.registry import SourceContext
from connectors.files import FilesSource
from connectors.files.markdown import clean_markdown, first_h1, split_front_matter

log = logging.getLogger(__name__)

FORMATS = {".md": "markdown", ".mdx": "markdown", ".markdown": "markdown", ".txt": "text", ".pdf": "pdf"}
_BATCH_FILES = 200
_BATCH_CHARS = 20_000_000
_DATED_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[-_]|$)")


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
            except _Unreadable as exc:
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
            pages, info = _pdf_document(raw)
            if not any(p.strip() for p in pages):
                raise _Unreadable(f"PDF has no extractable text in {len(pages)} page(s) (scanned images?)")
            data["pages"] = pages
            data.update(info)
        else:
            text, note = _decode(raw)
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


class _Unreadable(Exception):
    """A file that is there but cannot be turned into text; becomes a Failure with this message."""


def _decode(raw: bytes) -> tuple[str, str | None]:
    """Text from bytes: UTF-8 (BOM or not), UTF-16 with a BOM, else Windows-1252/Latin-1 with a note."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), None
        except UnicodeDecodeError:
            raise _Unreadable("starts with a UTF-16 byte order mark but is not valid UTF-16") from None
    if b"\x00" in raw:
        raise _Unreadable("binary content (NUL bytes), not text")
    if _looks_binary(raw):
        raise _Unreadable("binary content (mostly control bytes or invalid text), not text; not indexed")
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        where = exc.start
    for encoding in ("cp1252", "latin-1"):
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        return text, f"not valid UTF-8 (byte {where}); decoded as {encoding}"
    raise _Unreadable("not valid UTF-8 text")  # unreachable: latin-1 decodes any byte string


_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13)) + b"\x7f"


def _looks_binary(raw: bytes, sample: int = 65_536) -> bool:
    """Random or compiled bytes under a text name: many control bytes, or UTF-8 that breaks again and again."""
    head = raw[:sample]
    if not head:
        return False
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    if controls / len(head) > 0.02:
        return True
    text = head.decode("utf-8", errors="replace")
    # One or two bad bytes are a legacy encoding; invalid sequences throughout are not text at all.
    return text.count("\ufffd") / max(len(text), 1) > 0.10


def _pdf_pages(raw: bytes) -> tuple[list[str], str | None]:
    pages, info = _pdf_document(raw)
    return pages, info.get("title")


def _pdf_document(raw: bytes) -> tuple[list[str], dict[str, str]]:
    """The pages' text and what the info dictionary says: its title, and its creation (else modification) date.

    A PDF copied or checked out has a meaningless mtime (a checkout dated the sample's plan after every question
    asked of it, so "as of" hid it); the date the document was made is in the file itself.
    """
    import struct
    import zlib

    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    # pypdf logs every recoverable oddity of a damaged file as a warning; the Failure says what matters.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            try:
                opened = bool(reader.decrypt(""))
            except Exception:  # noqa: BLE001 - unsupported encryption algorithms raise various errors
                opened = False
            if not opened:
                raise _Unreadable("PDF is encrypted and needs a password")
        pages = [page.extract_text() or "" for page in reader.pages]
    except _Unreadable:
        raise
    # A damaged file can fail anywhere in pypdf (found by fuzzing: LimitReachedError, struct and zlib errors).
    except (
        PyPdfError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        OSError,
        ArithmeticError,
        RecursionError,
        struct.error,
        zlib.error,
    ) as exc:
        raise _Unreadable(f"PDF cannot be parsed (corrupt or not a PDF): {exc}") from None
    info: dict[str, str] = {}
    try:
        meta = reader.metadata
        title = str(meta.title).strip() if meta and meta.title else ""
        if title:
            info["title"] = title
    except Exception:  # noqa: BLE001 - metadata is optional; a broken info dictionary must not lose the text
        meta = None
    for attr in ("creation_date", "modification_date"):
        try:
            when = getattr(meta, attr) if meta is not None else None
        except Exception:  # noqa: BLE001 - a malformed date string ("D:2026...") raises in pypdf; skip it
            when = None
        if isinstance(when, datetime):
            info["date"] = (when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)).isoformat()
            break
    return pages, info


def file_document(record: RawRecord) -> Document:
    """One Document with one Item for a cached file record."""
    data = record.data
    rel = data["path"]
    fmt = data.get("format", "text")
    stem = PurePosixPath(rel).stem
    parts = PurePosixPath(rel).parts
    container = parts[0] if len(parts) > 1 else ""
    metadata: JSON = {"path": rel, "format": fmt}
    front: dict[str, Any] = {}
    if fmt == "pdf":
        pages = [_tidy_pdf_page(p) for p in data.get("pages", [])]
        # A form feed marks each page break so the chunker can tell which page a paragraph is on.
        text = "\n\f\n".join(pages)
        metadata["pages"] = len(pages)
        title = data.get("title") or stem
    elif fmt == "markdown":
        front, body, error = split_front_matter(data.get("content", ""))
        text = clean_markdown(body, mdx=True if rel.lower().endswith(".mdx") else None)
        if error:
            metadata["front_matter_error"] = error
        title = _text_value(front.get("title")) or first_h1(text) or stem
    else:
        text = data.get("content", "").replace("\r\n", "\n")
        title = stem
    if front:
        metadata["front_matter"] = front
    if data.get("note"):
        metadata["note"] = data["note"]
    authors = _authors(front)
    if authors:
        metadata["authors"] = authors
    ref = f"file:{rel}"
    item = Item(
        ref=ref,
        source_type="files",
        kind="file",
        text=text,
        occurred_at=_occurred_at(front or {"date": data.get("date")}, stem, float(data.get("mtime", 0.0)), text),
        author=", ".join(authors) if authors else None,
        title=title,
        container=container,
        metadata=dict(metadata),
    )
    return Document(
        key=ref,
        kind="document",
        source_type="files",
        title=title,
        items=[item],
        container=container,
        metadata=metadata,
    )


def _text_value(value: Any) -> str:
    return str(value).strip() if isinstance(value, str | int | float) and str(value).strip() else ""


def _authors(front: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for key in ("authors", "author"):
        value = front.get(key)
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, dict):
                v = v.get("name") or v.get("key") or v.get("title")
            if _text_value(v) and _text_value(v) not in names:
                names.append(_text_value(v))
    return names


_MONTHS = "january february march april may june july august september october november december".split()
_PROSE_DATE = re.compile(
    r"\b(" + "|".join(m.capitalize() for m in _MONTHS) + r")\s+(\d{1,2}),?\s+(\d{4})\b|\b(\d{4})-(\d{2})-(\d{2})\b"
)


def _dateline(text: str) -> datetime | None:
    """The latest date on a short date line near the top ("April 21, 2026 - June 29, 2026" in release notes)."""
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for line in lines[:3]:
        if len(line) > 80:
            continue
        found: list[datetime] = []
        for match in _PROSE_DATE.finditer(line):
            try:
                if match.group(1):
                    month = _MONTHS.index(match.group(1).lower()) + 1
                    found.append(datetime(int(match.group(3)), month, int(match.group(2)), tzinfo=UTC))
                else:
                    found.append(datetime(int(match.group(4)), int(match.group(5)), int(match.group(6)), tzinfo=UTC))
            except ValueError:
                continue
        rest = re.findall(r"[A-Za-z]+", _PROSE_DATE.sub(" ", line))
        if found and len(rest) <= 3:  # a date line, not a sentence that mentions a date
            return max(found)
    return None


def _occurred_at(front: dict[str, Any], stem: str, mtime: float, text: str = "") -> datetime:
    for key in ("date", "last_updated", "updated", "last_update"):
        value = front.get(key)
        if isinstance(value, dict):
            value = value.get("date")
        when = _parse_date(value)
        if when is not None:
            return when
    # Docusaurus and Jekyll blogs date a post by its file name (`2026-06-12-title.md`).
    dated = _DATED_NAME.match(stem)
    if dated:
        when = _parse_date("-".join(dated.groups()))
        if when is not None:
            return when
    # A file copied or checked out has a meaningless mtime; a date line at the top is better evidence.
    return _dateline(text) or datetime.fromtimestamp(mtime, tz=UTC)


def _parse_date(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _tidy_pdf_page(page: str) -> str:
    # Extracted PDF text has a line per visual line; keep paragraph breaks, rejoin hyphenated words.
    page = page.replace("\r\n", "\n").replace("\f", "\n")
    page = re.sub(r"(\w)-\n(\w)", r"\1\2", page)
    return re.sub(r"[ \t]+\n", "\n", page).strip()


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
