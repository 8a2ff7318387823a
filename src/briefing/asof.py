"""A chunk as it was at `now`: the index stores chunks as they are today, questions see them as of their `now`.

A chunk whose first unit is after `now` did not exist yet; a chunk superseded by `now` (`valid_until`, a state of
an item with history that a later state replaced) is no longer true. A chunk that began before `now` but holds units
written later (thread replies, ticket comments) is cut to its units at or before `now`: its text, refs, end,
authors and ticket mentions are re-derived from what remains, and its `chunk_id` stays the same.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime

from briefing.model import Chunk, Unit


def visible(chunk: Chunk, now: datetime) -> Chunk | None:
    """`chunk` as of `now`, or None when nothing of it had been written yet."""
    if (chunk.written_at or chunk.start) > now:
        return None
    if chunk.valid_until is not None and chunk.valid_until <= now:
        return None
    return cut(chunk, [u.at is not None and u.at > now for u in chunk.units])


def cut(chunk: Chunk, hidden: list[bool]) -> Chunk | None:
    """`chunk` without the units marked `hidden` (one flag per unit), its text, refs, end, authors and ticket
    mentions re-derived from what remains; None when nothing remains."""
    if not any(hidden):
        return chunk
    kept = [u for u, h in zip(chunk.units, hidden, strict=True) if not h]
    if not kept:
        return None
    gone = [u for u, h in zip(chunk.units, hidden, strict=True) if h]
    text = _cut_text(chunk.text, chunk.units, hidden)
    if text is None:
        text = _rebuild(chunk.text, kept)
    kept_refs = {u.ref for u in kept}
    gone_refs = {u.ref for u in gone} - kept_refs
    stamps = [u.at for u in kept if u.at is not None]
    unit_authors = {u.author for u in chunk.units if u.author}
    kept_authors = {u.author for u in kept if u.author}
    gone_text = "\n".join(u.text for u in gone)
    return replace(
        chunk,
        text=text,
        refs=[r for r in chunk.refs if r not in gone_refs],
        end=min(chunk.end, max([chunk.start, *stamps])),
        # Authors no unit names (a ticket's reporter) stay; those only hidden units name go.
        authors=[a for a in chunk.authors if a in kept_authors or a not in unit_authors],
        tickets=[t for t in chunk.tickets if _mentions(text, t) or not _mentions(gone_text, t)],
        units=kept,
    )


def _cut_text(text: str, units: list[Unit], hidden: list[bool]) -> str | None:
    """The text without the lines of hidden units, or None when the units cannot be located in order."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for unit in units:
        needle = unit.text.strip()
        at = text.find(needle, cursor) if needle else -1
        if at < 0:
            return None
        line_start = text.rfind("\n", 0, at) + 1
        start = line_start if line_start >= cursor else at
        line_end = text.find("\n", at + len(needle))
        end = len(text) if line_end < 0 else line_end
        spans.append((start, end))
        cursor = end
    out = text
    # Right to left, so earlier offsets stay valid; each removed span takes the line break before it.
    for (start, end), gone in reversed(list(zip(spans, hidden, strict=True))):
        if not gone:
            continue
        lead = start
        while lead > 0 and out[lead - 1] == "\n":
            lead -= 1
        if lead == 0:
            while end < len(out) and out[end] == "\n":
                end += 1
        out = out[:lead] + out[end:]
    return out


def _rebuild(text: str, kept: list[Unit]) -> str:
    """A faithful-enough text when the units cannot be mapped to lines: the header, then one line per unit."""
    first = text.split("\n", 1)[0]
    head = [first] if first and not any(u.text.strip() and u.text.strip() in first for u in kept) else []
    lines = [
        f"[{u.at.astimezone(UTC):%Y-%m-%d %H:%M} UTC] {u.author or 'unknown'}: {' '.join(u.text.split())}"
        if u.at is not None
        else " ".join(u.text.split())
        for u in kept
    ]
    return "\n".join([*head, *lines])


def _mentions(text: str, ticket: str) -> bool:
    if ticket in text:
        return True
    number = ticket.rsplit("#", 1)[-1]
    return "#" in ticket and number.isdigit() and re.search(rf"(?:#|/){number}\b", text) is not None
