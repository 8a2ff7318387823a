"""Email threads -> chunks of consecutive messages along the reply tree, each message with its envelope.

Every message opens with one line: time, sender, recipients and subject (`[2019-09-03 10:00 UTC] Will Deacon to
Catalin Marinas, linux-arm-kernel | Re: [PATCH v5 3/7] arm64: ...`), then its cleaned text. A chunk closes on size
(characters, messages, tokens), when the subject changes (the next patch of a series and its review), and on a
topic shift when item vectors are given. A message too long for one chunk is split at paragraphs, then
sentences, then words; each piece repeats the message's envelope line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from chunkers.packing import LINE, PARAGRAPH, SENTENCE, WORDS, OpenChunk, build_chunk, fits, split_to_fit
from chunkers.similarity import topic_shift
from chunkers.slack import find_tickets, line_time

_PREFIX = re.compile(
    r"^\s*(?:(?:re|fwd?|fw|aw|sv|vs|antw|wg|tr|rif|odp|enc|res)\s*(?:\[\d+\]|\(\d+\))?\s*:\s*)+", re.IGNORECASE
)
# A message too long for a chunk is cut at paragraphs, then lines, sentences and words, each joined back as it was.
LEVELS = ((PARAGRAPH, "\n\n"), (LINE, "\n"), (SENTENCE, " "), (WORDS, " "))


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


def chunk_thread(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """One email thread document (items in reply-tree order) as chunks."""
    head = header(document)
    done: list[OpenChunk] = []
    current = OpenChunk()
    previous: Item | None = None

    def close() -> None:
        nonlocal current
        if current.items:
            done.append(current)
        current = OpenChunk()

    for item in document.items:
        top = envelope(item)
        block = f"{top}\n{item.text.strip()}"
        if current.items and previous is not None:
            moved_on = _subject_key(item) != _subject_key(previous) and _subject_key(item) != _subject_key(
                current.items[0]
            )
            if moved_on or topic_shift(previous, item, vectors, limits, len(current.items)):
                close()
        if fits(head, [*current.blocks, block], len(current.items) + 1, limits):
            pass
        elif fits(head, [block], 1, limits):
            close()
        else:
            close()

            def ok(piece: str, top: str = top) -> bool:
                return fits(head, [f"{top}\n{piece}"], 1, limits)

            for piece, cut in split_to_fit(item.text.strip(), ok, LEVELS):
                text = f"{top}\n{piece}"
                done.append(OpenChunk([text], [Unit(item.ref, text, item.author, item.occurred_at)], [item], cut))
            previous = item
            continue
        current.blocks.append(block)
        current.units.append(Unit(item.ref, block, item.author, item.occurred_at))
        current.items.append(item)
        previous = item
    close()
    return [_build(document, head, n, part) for n, part in enumerate(done)]


def _build(document: Document, head: str, n: int, part: OpenChunk) -> Chunk:
    metadata = {
        "thread": document.metadata.get("root"),
        "subjects": list(dict.fromkeys(i.title for i in part.items)),
        "senders": list(dict.fromkeys(str(i.metadata.get("from", ["", ""])[1]) for i in part.items)),
    }
    return build_chunk(document, head, n, part, tickets=find_tickets, metadata=metadata)
