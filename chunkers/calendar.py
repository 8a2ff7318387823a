"""Calendar events -> one chunk per occurrence: title, time, organiser, attendees, place, links, description.

The chunk starts and ends with the occurrence (so "next week" finds it by time) and carries the time the event
was written as `written_at` (so it is visible "as of" any moment after it was put in the calendar, even when
the meeting is later). An event whose description is too long for one chunk is split at paragraphs, each piece
repeating the event's header lines. An earlier version of the event (an item whose metadata carries
`valid_until`, `connectors.calendar.changes`) is chunked the same way, hidden from that moment on, its chunks
`<doc key>::v<i>::<n>` (chunkers.versions' convention).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from chunkers.email import LEVELS
from chunkers.packing import split_to_fit
from chunkers.slack import find_tickets

_HEADER_KEYS = (
    "Meeting:",
    "CANCELLED: Meeting:",
    "When:",
    "Changed later:",
    "Organiser:",
    "Attendees:",
    "Where:",
    "Link:",
    "Linked:",
)


def _written(item: Item, key: str = "written_at") -> datetime | None:
    value = item.metadata.get(key)
    if not value:
        return None
    return datetime.fromisoformat(str(value))


def chunk_event(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """One event occurrence as one chunk (or a few, when its description is long)."""
    chunks: list[Chunk] = []
    for v, item in enumerate(document.items):
        until = _written(item, "valid_until")
        prefix = f"{document.key}::v{v}::" if until is not None else f"{document.key}::"
        ordinal = len(chunks) if until is None else 0
        lines = item.text.split("\n")
        n_head = 0
        while n_head < len(lines) and lines[n_head].startswith(_HEADER_KEYS):
            n_head += 1
        head = "\n".join(lines[:n_head])
        body = "\n".join(lines[n_head:]).strip()

        def ok(piece: str, head: str = head) -> bool:
            text = f"{head}\n{piece}"
            return len(text) <= limits.max_chars and limits.count_tokens(text) <= limits.max_tokens

        pieces = split_to_fit(body, ok, LEVELS) if body else [("", False)]
        end = datetime.fromisoformat(str(item.metadata.get("end") or item.occurred_at.isoformat()))
        for piece, cut in pieces:
            text = f"{head}\n{piece}".strip()
            chunks.append(
                Chunk(
                    chunk_id=f"{prefix}{ordinal}",
                    doc_key=document.key,
                    source_type=document.source_type,
                    kind=document.kind,
                    title=document.title,
                    text=text,
                    refs=[item.ref],
                    start=item.occurred_at,
                    end=max(end, item.occurred_at),
                    authors=[item.author] if item.author else [],
                    url=item.url or document.url,
                    container=document.container,
                    tickets=find_tickets(text),
                    # No time of its own: a unit is "written" with its chunk, not at the meeting's time.
                    units=[Unit(item.ref, text, item.author, None)],
                    metadata={
                        "uid": item.metadata.get("uid"),
                        "status": item.metadata.get("status"),
                        "attendees": item.metadata.get("attendees", []),
                        "links": item.metadata.get("links", []),
                        "all_day": item.metadata.get("all_day", False),
                        "changed_later": bool(item.metadata.get("changed_later")),
                    },
                    truncated=cut,
                    written_at=_written(item),
                    valid_until=until,
                )
            )
            ordinal += 1
    return chunks
