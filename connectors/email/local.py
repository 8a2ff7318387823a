"""Local mailboxes: an mbox file (mboxrd un-escaping), a Maildir (with Maildir++ sub-folders) or a folder of .eml.

The cursor remembers each mailbox file's (mtime, size) and the Message-IDs it held. A scan re-reads only files
that changed; an mbox that changed is read whole. Messages whose file is gone, or that are no longer in a
changed mbox, are listed as deleted, so they leave the index on the next sync.
"""

from __future__ import annotations

import email.parser
import email.policy
import mailbox
import os
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from briefing.errors import SourceError
from briefing.model import JSON, Batch, Connector, Cursor, Failure, Normalised, RawRecord
from briefing.registry import SourceContext
from connectors.email import EmailSource
from connectors.email.mime import fallback_id, message_id_of, raw_to_data
from connectors.email.threads import normalise

_MBOXRD = re.compile(rb"^>(>*From )", re.MULTILINE)
_BATCH = 500


class MailboxCursor(Cursor):
    """Mailbox file (relative path) -> (mtime, size, Message-IDs it held)."""

    files: dict[str, tuple[float, int, list[str]]] = {}


def unescape_mboxrd(raw: bytes) -> bytes:
    """mboxrd: a body line `>From ` was `From ` (and `>>From ` was `>From `)."""
    return _MBOXRD.sub(rb"\1", raw)


def _message_id(raw: bytes) -> str:
    headers = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
    return message_id_of(headers.get("Message-ID")) or fallback_id(raw)


class LocalMailConnector:
    """Reads an mbox file, a Maildir or a folder of .eml files; see the module docstring."""

    def __init__(self, name: str, path: Path, *, full: bool = False) -> None:
        self.name = name
        self.path = path
        self.full = full

    def initial_cursor(self) -> MailboxCursor:
        return MailboxCursor()

    def load_cursor(self, data: JSON) -> MailboxCursor:
        return MailboxCursor.model_validate(data)

    # -- what is there ---------------------------------------------------------------------------------------
    def _files(self) -> list[tuple[str, Path, str]]:
        """(relative key, path, format) of every mailbox file: format is `mbox` or `message`."""
        path = self.path
        if not path.exists():
            raise SourceError(
                f"source '{self.name}': {path} does not exist (sources.{self.name}.path): "
                "point it at an mbox file, a Maildir or a folder of .eml files"
            )
        if path.is_file():
            return [(path.name, path, "mbox")]
        found: list[tuple[str, Path, str]] = []
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d != "tmp" and not (d.startswith(".") and not _maildir_sub(folder, d)))
            here = Path(folder)
            in_maildir = here.name in {"cur", "new"} and (here.parent / "cur").is_dir()
            for file in sorted(files):
                if file.startswith("."):
                    continue
                full = here / file
                rel = full.relative_to(path).as_posix()
                if in_maildir or file.lower().endswith(".eml"):
                    found.append((rel, full, "message"))
                elif file.lower().endswith(".mbox"):
                    found.append((rel, full, "mbox"))
        return found

    def _folder(self, rel: str) -> str:
        parts = rel.split("/")
        if parts[-2:-1] and parts[-2] in {"cur", "new"}:
            parts = parts[:-2]
        else:
            parts = parts[:-1]
        name = "/".join(p.lstrip(".") for p in parts)
        if not name and rel.lower().endswith(".mbox"):
            name = rel.rsplit("/", 1)[-1][: -len(".mbox")]
        return name or self.path.stem

    # -- collection ------------------------------------------------------------------------------------------
    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        previous = {} if self.full or not isinstance(cursor, MailboxCursor) else dict(cursor.files)
        files = self._files()
        state: dict[str, tuple[float, int, list[str]]] = {}
        batch = Batch(complete=not previous)
        kept: set[str] = set()
        for rel, path, fmt in files:
            try:
                stat = path.stat()
            except OSError as exc:
                batch.failures.append(Failure(rel, f"cannot be read: {exc.strerror or exc}"))
                continue
            old = previous.get(rel)
            if old is not None and (old[0], old[1]) == (stat.st_mtime, stat.st_size):
                state[rel] = old
                kept.update(old[2])
                continue
            keys: list[str] = []
            file_time = datetime.fromtimestamp(stat.st_mtime, UTC).isoformat()
            for key, raw, from_line in self._messages(rel, path, fmt, batch):
                keys.append(key)
                data: JSON = {**raw_to_data(raw), "folder": self._folder(rel), "file_time": file_time}
                if from_line:
                    data["mbox_from"] = from_line
                batch.records.append(RawRecord(key=key, kind="message", data=data))
            state[rel] = (stat.st_mtime, stat.st_size, keys)
            if not batch.complete and len(batch.records) >= _BATCH:
                yield batch
                batch = Batch()
        present = kept | {k for v in state.values() for k in v[2]}
        if previous:
            gone = {k for rel, v in previous.items() for k in v[2]} - present
            batch.deleted = sorted(gone)
        batch.cursor = MailboxCursor(files=state)
        yield batch

    def _messages(self, rel: str, path: Path, fmt: str, batch: Batch) -> Iterator[tuple[str, bytes, str]]:
        """(Message-ID, bytes, the mbox `From ` line or "") of each message in one mailbox file."""
        if fmt == "message":
            try:
                raw = path.read_bytes()
            except OSError as exc:
                batch.failures.append(Failure(rel, f"cannot be read: {exc.strerror or exc}"))
                return
            if not raw.strip():
                batch.failures.append(Failure(rel, "empty file, not a message"))
                return
            yield _message_id(raw), raw, ""
            return
        try:
            box = mailbox.mbox(path, create=False)
            keys = list(box.keys())
        except (OSError, mailbox.Error) as exc:
            batch.failures.append(Failure(rel, f"not a readable mbox file: {exc}"))
            return
        if not keys and path.stat().st_size and not path.read_bytes()[:5] == b"From ":
            batch.failures.append(Failure(rel, "not an mbox file (no 'From ' separator line at the start)"))
        try:
            for n, key in enumerate(keys):
                try:
                    whole = box.get_bytes(key, from_=True)
                    from_line, _, rest = whole.partition(b"\n")
                    raw = unescape_mboxrd(rest)
                except (OSError, mailbox.Error, KeyError) as exc:
                    batch.failures.append(Failure(f"{rel}#{n + 1}", f"message {n + 1} cannot be read: {exc}"))
                    continue
                if not raw.strip():
                    batch.failures.append(Failure(f"{rel}#{n + 1}", f"message {n + 1} is empty (truncated mbox?)"))
                    continue
                yield _message_id(raw), raw, from_line.decode("ascii", "replace").strip()
        finally:
            box.close()

    # -- normalisation ---------------------------------------------------------------------------------------
    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        return normalise(records, source_type="email")


def _maildir_sub(parent: str, name: str) -> bool:
    """Maildir++ keeps sub-folders as `.Name` with their own cur/new."""
    return (Path(parent) / name / "cur").is_dir()


def build(ctx: SourceContext) -> Connector:
    """The registry's factory for `type = "email"`: a local mailbox for `path`, IMAP for `host`."""
    config: EmailSource = ctx.config
    if config.path is None:
        from connectors.email.imap import build as build_imap

        imap: Connector = build_imap(ctx)
        return imap
    return LocalMailConnector(ctx.name, ctx.resolve(Path(config.path)), full=ctx.options.full)
