"""Email threads -> chunks of consecutive messages along the reply tree, each message with its envelope.

Every message opens with one line: time, sender, recipients and subject (`[2019-09-03 10:00 UTC] Will Deacon to
Catalin Marinas, linux-arm-kernel | Re: [PATCH v5 3/7] arm64: ...`), then its cleaned text. A chunk closes on size
(characters, messages, tokens), when the subject changes (the next patch of a series and its review), and on a
topic shift when item vectors are given. A message too long for one chunk is split at paragraphs, then
sentences, then words; each piece repeats the message's envelope line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from chunkers.similarity import topic_shift
from chunkers.slack import find_tickets, line_time

_PREFIX = re.compile(r"^\s*(?:(?:re|fwd?|aw|sv|antw|wg)\s*:\s*)+", re.IGNORECASE)
_SEPARATORS = (re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"(?<=[.!?])\s+"), re.compile(r"\s+"))


def _names(entries: object, limit: int = 3) -> str:
    names: list[str] = []
    if isinstance(entries, list):
        for entry in entries:
            if isinstance(entry, list | tuple) and len(entry) == 2:
                label = str(entry[0] or entry[1])
                if label and label not in names:
                    names.append(label)
    shown = ", ".join(names[:limit])
    return f"{shown} and {len(names) - limit} more" if len(names) > limit else shown


def envelope(item: Item) -> str:
    """`[time] Sender to A, B | Subject`: who wrote to whom, when, about what."""
    meta = item.metadata
    recipients = _names([*meta.get("to", []), *meta.get("cc", [])])
    to = f" to {recipients}" if recipients else ""
    return f"[{line_time(item.occurred_at)}] {item.author or 'unknown'}{to} | {item.title}"


def header(document: Document) -> str:
    place = f" ({document.container})" if document.container else ""
    started = document.metadata.get("participants", [])
    by = f", started by {started[0]}" if started else ""
    return f"Email thread{place}: {document.title}{by}"


def _subject_key(item: Item) -> str:
    return _PREFIX.sub("", item.title).strip().lower()


@dataclass
class _Open:
    blocks: list[str] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    truncated: bool = False


def _fits(head: str, blocks: Sequence[str], n: int, limits: ChunkLimits) -> bool:
    text = "\n".join([head, *blocks])
    return len(text) <= limits.max_chars and n <= limits.max_items and limits.count_tokens(text) <= limits.max_tokens


def _split(text: str, check: Callable[[str], bool], level: int = 0) -> list[tuple[str, bool]]:
    """Pieces of `text` that each pass `check`, cut at paragraphs, lines, sentences, then words; True: mid-word."""
    if check(text):
        return [(text, False)]
    if level >= len(_SEPARATORS):
        return _hard_cut(text, check)
    parts = [p for p in _SEPARATORS[level].split(text) if p.strip()]
    if len(parts) <= 1:
        return _split(text, check, level + 1)
    joiner = "\n\n" if level == 0 else ("\n" if level == 1 else " ")
    out: list[tuple[str, bool]] = []
    current = ""
    for part in parts:
        candidate = f"{current}{joiner}{part}" if current else part
        if check(candidate):
            current = candidate
            continue
        if current:
            out.append((current, False))
        if check(part):
            current = part
        else:
            out += _split(part, check, level + 1)
            current = ""
    if current:
        out.append((current, False))
    return out


def _hard_cut(text: str, fits: Callable[[str], bool]) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    rest = text
    while rest:
        lo, hi = 1, len(rest)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(rest[:mid]):
                lo = mid
            else:
                hi = mid - 1
        out.append((rest[:lo], True))
        rest = rest[lo:]
    return out


def chunk_thread(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """One email thread document (items in reply-tree order) as chunks."""
    head = header(document)
    done: list[_Open] = []
    current = _Open()
    previous: Item | None = None

    def close() -> None:
        nonlocal current
        if current.items:
            done.append(current)
        current = _Open()

    for item in document.items:
        top = envelope(item)
        block = f"{top}\n{item.text.strip()}"
        if current.items and previous is not None:
            moved_on = _subject_key(item) != _subject_key(previous) and _subject_key(item) != _subject_key(
                current.items[0]
            )
            if moved_on or topic_shift(previous, item, vectors, limits, len(current.items)):
                close()
        if _fits(head, [*current.blocks, block], len(current.items) + 1, limits):
            pass
        elif _fits(head, [block], 1, limits):
            close()
        else:
            close()

            def ok(piece: str, top: str = top) -> bool:
                return _fits(head, [f"{top}\n{piece}"], 1, limits)

            for piece, cut in _split(item.text.strip(), ok):
                text = f"{top}\n{piece}"
                done.append(_Open([text], [Unit(item.ref, text, item.author, item.occurred_at)], [item], cut))
            previous = item
            continue
        current.blocks.append(block)
        current.units.append(Unit(item.ref, block, item.author, item.occurred_at))
        current.items.append(item)
        previous = item
    close()
    return [_build(document, head, n, part) for n, part in enumerate(done)]


def _build(document: Document, head: str, n: int, part: _Open) -> Chunk:
    text = "\n".join([head, *part.blocks])
    first = part.items[0]
    return Chunk(
        chunk_id=f"{document.key}::{n}",
        doc_key=document.key,
        source_type=document.source_type,
        kind=document.kind,
        title=document.title,
        text=text,
        refs=list(dict.fromkeys(i.ref for i in part.items)),
        start=min(i.occurred_at for i in part.items),
        end=max(i.occurred_at for i in part.items),
        authors=list(dict.fromkeys(i.author for i in part.items if i.author)),
        url=first.url or document.url,
        container=document.container,
        tickets=find_tickets(text),
        units=part.units,
        metadata={
            "thread": document.metadata.get("root"),
            "subjects": list(dict.fromkeys(i.title for i in part.items)),
            "senders": list(dict.fromkeys(str(i.metadata.get("from", ["", ""])[1]) for i in part.items)),
        },
        truncated=part.truncated,
    )
