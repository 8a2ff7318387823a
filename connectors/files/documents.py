"""A cached file record as a Document: its title, authors and date from front matter, name or a date line."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any

from briefing.model import JSON, Document, Item, RawRecord
from connectors.files.markdown import clean_markdown, first_h1, split_front_matter

_DATED_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[-_]|$)")


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
