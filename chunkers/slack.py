"""Slack conversations -> chunks of consecutive messages, every line keeping its speaker and time.

A chunk closes on a long silence, on size (characters, messages, tokens of the whole chunk text), or on a topic
shift (cosine of consecutive message vectors below the threshold, only once a chunk holds two messages). A
message too long for one chunk is split at paragraph, then sentence, then word boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from briefing.textrules import ISSUE_URL, find_ticket_keys
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


@dataclass
class _Open:
    """The chunk being filled: its lines and the units behind them."""

    lines: list[str] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    truncated: bool = False


def _fits(head: str, lines: Sequence[str], n_items: int, limits: ChunkLimits) -> bool:
    text = "\n".join([head, *lines])
    return (
        len(text) <= limits.max_chars and n_items <= limits.max_items and limits.count_tokens(text) <= limits.max_tokens
    )


def _pieces(item: Item, head: str, limits: ChunkLimits) -> list[tuple[str, bool]]:
    """Split one message's text into pieces that each fit a chunk alone; True marks a mid-word cut."""

    def ok(piece: str) -> bool:
        return _fits(head, [message_line(item, piece)], 1, limits)

    def split(text: str, level: int) -> list[tuple[str, bool]]:
        if ok(text):
            return [(text, False)]
        separators = [re.compile(r"\n\s*\n"), _SENTENCE_END, re.compile(r"\s+")]
        if level >= len(separators):
            return _hard_cut(text)
        parts = [p for p in separators[level].split(text) if p.strip()]
        if len(parts) <= 1:
            return split(text, level + 1)
        out: list[tuple[str, bool]] = []
        current = ""
        for part in parts:
            candidate = f"{current} {part}" if current else part
            if ok(candidate):
                current = candidate
                continue
            if current:
                out.append((current, False))
            if ok(part):
                current = part
            else:
                out += split(part, level + 1)
                current = ""
        if current:
            out.append((current, False))
        return out

    def _hard_cut(text: str) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        rest = text
        while rest:
            lo, hi = 1, len(rest)
            while lo < hi:  # the longest prefix that still fits
                mid = (lo + hi + 1) // 2
                if ok(rest[:mid]):
                    lo = mid
                else:
                    hi = mid - 1
            out.append((rest[:lo], True))
            rest = rest[lo:]
        return out

    return split(item.text, 0)


def chunk_messages(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """A Slack channel or thread document as chunks of consecutive messages."""
    head = header(document)
    items = sorted(document.items, key=lambda i: (i.occurred_at, i.ref))
    done: list[_Open] = []
    current = _Open()
    previous: Item | None = None

    def close() -> None:
        nonlocal current
        if current.items:
            done.append(current)
        current = _Open()

    for item in items:
        line = message_line(item)
        joins = False
        if current.items and previous is not None:
            # The topic is asked last, only where it decides: after a long silence, or when the message does
            # not fit the open chunk, a new chunk starts whatever the topic (so those messages need no vector).
            gap = (item.occurred_at - previous.occurred_at).total_seconds()
            joins = (
                gap <= limits.gap_seconds
                and _fits(head, [*current.lines, line], len(current.items) + 1, limits)
                and not topic_shift(previous, item, vectors, limits, len(current.items))
            )
        if joins or not current.items and _fits(head, [line], 1, limits):
            current.lines.append(line)
            current.units.append(Unit(item.ref, flatten(item.text), item.author, item.occurred_at, item.url))
            current.items.append(item)
        elif _fits(head, [line], 1, limits):
            close()
            current.lines.append(line)
            current.units.append(Unit(item.ref, flatten(item.text), item.author, item.occurred_at, item.url))
            current.items.append(item)
        else:
            close()
            for piece, cut in _pieces(item, head, limits):
                done.append(
                    _Open(
                        lines=[message_line(item, piece)],
                        units=[Unit(item.ref, flatten(piece), item.author, item.occurred_at, item.url)],
                        items=[item],
                        truncated=cut,
                    )
                )
        previous = item
    close()
    return [_build(document, head, n, chunk) for n, chunk in enumerate(done)]


def _build(document: Document, head: str, n: int, chunk: _Open) -> Chunk:
    text = "\n".join([head, *chunk.lines])
    first = chunk.items[0]
    return Chunk(
        chunk_id=f"{document.key}::{n}",
        doc_key=document.key,
        source_type=document.source_type,
        kind=document.kind,
        title=document.title,
        text=text,
        refs=list(dict.fromkeys(i.ref for i in chunk.items)),
        start=min(i.occurred_at for i in chunk.items),
        end=max(i.occurred_at for i in chunk.items),
        authors=list(dict.fromkeys(i.author for i in chunk.items if i.author)),
        url=first.url or document.url,
        container=document.container,
        tickets=find_tickets(text),
        units=chunk.units,
        metadata={
            "channel_id": document.metadata.get("channel_id"),
            "thread_ts": document.metadata.get("thread_ts"),
        },
        truncated=chunk.truncated,
    )
