"""A file's bytes as text: encodings detected, binary content refused, a PDF's pages and info read (pypdf)."""

from __future__ import annotations

import io
import logging
from datetime import UTC, datetime


class Unreadable(Exception):
    """A file that is there but cannot be turned into text; becomes a Failure with this message."""


def decode_text(raw: bytes) -> tuple[str, str | None]:
    """Text from bytes: UTF-8 (BOM or not), UTF-16 with a BOM, else Windows-1252/Latin-1 with a note."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), None
        except UnicodeDecodeError:
            raise Unreadable("starts with a UTF-16 byte order mark but is not valid UTF-16") from None
    if b"\x00" in raw:
        raise Unreadable("binary content (NUL bytes), not text")
    if _looks_binary(raw):
        raise Unreadable("binary content (mostly control bytes or invalid text), not text; not indexed")
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
    raise Unreadable("not valid UTF-8 text")  # unreachable: latin-1 decodes any byte string


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


def pdf_pages(raw: bytes) -> tuple[list[str], str | None]:
    """A PDF's pages and its title (None when the info dictionary names none)."""
    pages, info = pdf_document(raw)
    return pages, info.get("title")


def pdf_document(raw: bytes) -> tuple[list[str], dict[str, str]]:
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
                raise Unreadable("PDF is encrypted and needs a password")
        pages = [page.extract_text() or "" for page in reader.pages]
    except Unreadable:
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
        raise Unreadable(f"PDF cannot be parsed (corrupt or not a PDF): {exc}") from None
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
