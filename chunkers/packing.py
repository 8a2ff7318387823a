"""What the conversation chunkers (Slack, email, git) share: the chunk being filled, the size check, the split
of one item too long for a chunk alone, and the `Chunk` built from the items it packed.

Each chunker keeps its own line format, header and closing rules; this module only packs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit

PARAGRAPH = re.compile(r"\n\s*\n")
LINE = re.compile(r"\n")
SENTENCE = re.compile(r"(?<=[.!?])\s+")
WORDS = re.compile(r"\s+")


@dataclass
class OpenChunk:
    """The chunk being filled: its text blocks (one per item, or piece of one) and the units behind them."""

    blocks: list[str] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    truncated: bool = False


def fits(head: str, blocks: Sequence[str], n_items: int, limits: ChunkLimits) -> bool:
    """Whether `head` and `blocks`, one per line, stay within the characters, items and tokens of `limits`."""
    text = "\n".join([head, *blocks])
    return (
        len(text) <= limits.max_chars and n_items <= limits.max_items and limits.count_tokens(text) <= limits.max_tokens
    )


def split_to_fit(
    text: str,
    check: Callable[[str], bool],
    levels: Sequence[tuple[re.Pattern[str], str]],
    level: int = 0,
) -> list[tuple[str, bool]]:
    """Pieces of `text` that each pass `check`, cut at each level's separator in turn and packed greedily with its
    joiner; past the last level, at the longest prefix that fits. True marks a piece cut mid-word."""
    if check(text):
        return [(text, False)]
    if level >= len(levels):
        return hard_cut(text, check)
    separator, joiner = levels[level]
    parts = [p for p in separator.split(text) if p.strip()]
    if len(parts) <= 1:
        return split_to_fit(text, check, levels, level + 1)
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
            out += split_to_fit(part, check, levels, level + 1)
            current = ""
    if current:
        out.append((current, False))
    return out


def longest_prefix(text: str, check: Callable[[str], bool], *, minimum: int = 0) -> str:
    """The longest prefix of `text` that passes `check` (binary search on length), never under `minimum`
    characters; `check` must hold for every prefix shorter than one that holds."""
    lo, hi = min(minimum, len(text)), len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if check(text[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def hard_cut(text: str, check: Callable[[str], bool]) -> list[tuple[str, bool]]:
    """`text` as consecutive longest prefixes that pass `check` (at least one character each), all mid-word."""
    out: list[tuple[str, bool]] = []
    rest = text
    while rest:
        cut = longest_prefix(rest, check, minimum=1)
        out.append((cut, True))
        rest = rest[len(cut) :]
    return out


def build_chunk(
    document: Document,
    head: str,
    n: int,
    part: OpenChunk,
    *,
    tickets: Callable[[str], list[str]],
    metadata: dict[str, Any],
) -> Chunk:
    """Chunk `n` of `document`: `head` then the blocks; refs, span, authors and link from the packed items."""
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
        tickets=tickets(text),
        units=part.units,
        metadata=metadata,
        truncated=part.truncated,
    )
