"""Slack conversations -> chunks of consecutive messages, every line keeping its speaker and time.

A chunk closes on a long silence, on size (characters, messages, tokens of the whole chunk text), or on a topic
shift (cosine of consecutive message vectors below the threshold, only once a chunk holds two messages). A
message too long for one chunk is split at paragraph, then sentence, then word boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from briefing.textrules import ISSUE_URL, find_ticket_keys
from chunkers.packing import PARAGRAPH, SENTENCE, WORDS, OpenChunk, build_chunk, fits, split_to_fit
from chunkers.similarity import topic_shift

_PR_REF = re.compile(r"(?:\b[Pp][Rr]\s*#|\bpull/)(\d+)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def line_time(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC")


def message_line(item: Item, text: str | None = None) -> str:
    """`[2026-05-06 14:05 UTC] Alice Chen: text` on one line (the message's own line breaks are flattened)."""
    body = flatten(item.text if text is None else text)
    return f"[{line_time(item.occurred_at)}] {item.author or 'unknown'}: {body}"


def flatten(text: str) -> str:
    return " ".join(text.split())


def header(document: Document) -> str:
    label = f"#{document.container}" if document.container else document.title
    if document.kind != "slack_thread":
        return label
    root_author = document.metadata.get("root_author")
    head = f"{label}, thread started by {root_author}" if root_author else f"{label}, thread"
    # Replies often make no sense without the question they answer ("try setting it to 64"): every chunk of a
    # thread carries the gist of its root message, so a late reply is still found by the root's words.
    root = next((i for i in document.items if i.thread and i.ref.endswith(f":{i.thread}")), None)
    if root is not None and root.text.strip():
        gist = _SENTENCE_END.split(flatten(root.text), maxsplit=1)[0]
        if len(gist) > 160:
            gist = gist[:157].rsplit(" ", 1)[0] + "..."
        head = f"{head}: {gist}"
    return head


def find_tickets(text: str) -> list[str]:
    """Ticket keys (PROJ-123) and pull requests: `github:owner/repo#123` from a GitHub link, else `#123` (`PR #123`).

    The qualified form is the item's native ref, as the GitHub and documents chunkers write it.
    """
    found = find_ticket_keys(text)
    qualified = ISSUE_URL.findall(text)
    found += [f"github:{repo}#{number}" for repo, number in qualified]
    # A bare `pull/123` inside a github.com address is already listed with its repository.
    found += [f"#{number}" for number in _PR_REF.findall(text) if number not in {n for _, n in qualified}]
    return list(dict.fromkeys(found))


# A message too long for a chunk is cut at paragraphs, sentences, then words; its line is flattened anyway.
_LEVELS = ((PARAGRAPH, " "), (SENTENCE, " "), (WORDS, " "))


def _pieces(item: Item, head: str, limits: ChunkLimits) -> list[tuple[str, bool]]:
    """Split one message's text into pieces that each fit a chunk alone; True marks a mid-word cut."""

    def ok(piece: str) -> bool:
        return fits(head, [message_line(item, piece)], 1, limits)

    return split_to_fit(item.text, ok, _LEVELS)


def chunk_messages(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """A Slack channel or thread document as chunks of consecutive messages."""
    head = header(document)
    items = sorted(document.items, key=lambda i: (i.occurred_at, i.ref))
    done: list[OpenChunk] = []
    current = OpenChunk()
    previous: Item | None = None

    def close() -> None:
        nonlocal current
        if current.items:
            done.append(current)
        current = OpenChunk()

    for item in items:
        line = message_line(item)
        joins = False
        if current.items and previous is not None:
            # The topic is asked last, only where it decides: after a long silence, or when the message does
            # not fit the open chunk, a new chunk starts whatever the topic (so those messages need no vector).
            gap = (item.occurred_at - previous.occurred_at).total_seconds()
            joins = (
                gap <= limits.gap_seconds
                and fits(head, [*current.blocks, line], len(current.items) + 1, limits)
                and not topic_shift(previous, item, vectors, limits, len(current.items))
            )
        if joins or not current.items and fits(head, [line], 1, limits):
            current.blocks.append(line)
            current.units.append(Unit(item.ref, flatten(item.text), item.author, item.occurred_at, item.url))
            current.items.append(item)
        elif fits(head, [line], 1, limits):
            close()
            current.blocks.append(line)
            current.units.append(Unit(item.ref, flatten(item.text), item.author, item.occurred_at, item.url))
            current.items.append(item)
        else:
            close()
            for piece, cut in _pieces(item, head, limits):
                done.append(
                    OpenChunk(
                        blocks=[message_line(item, piece)],
                        units=[Unit(item.ref, flatten(piece), item.author, item.occurred_at, item.url)],
                        items=[item],
                        truncated=cut,
                    )
                )
        previous = item
    close()
    return [_build(document, head, n, chunk) for n, chunk in enumerate(done)]


def _build(document: Document, head: str, n: int, chunk: OpenChunk) -> Chunk:
    metadata = {"channel_id": document.metadata.get("channel_id"), "thread_ts": document.metadata.get("thread_ts")}
    return build_chunk(document, head, n, chunk, tickets=find_tickets, metadata=metadata)
