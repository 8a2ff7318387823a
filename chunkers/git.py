"""Git history -> chunks of consecutive commits, one line per commit with its date, author, id and stats.

`[2026-05-06] Alice Chen abc1234: subject (+12 -3, 4 files)`, then the message body and the files touched,
indented. A chunk closes on size (characters, commits, tokens of the whole text) or on a topic shift when
vectors are given. Tag items (releases) get the same treatment with their annotation and the commits they add.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from chunkers.packing import OpenChunk, build_chunk
from chunkers.similarity import topic_shift
from chunkers.slack import find_tickets

MAX_FILES_LISTED = 6
_ISSUE_REF = re.compile(r"(?<![\w&/])#(\d+)\b")


def commit_line(item: Item) -> str:
    """The one-line summary of a commit or tag item."""
    meta = item.metadata
    day = item.occurred_at.strftime("%Y-%m-%d")
    author = item.author or "unknown"
    if item.kind == "tag":
        target = str(meta.get("commit") or "")[:7]
        message = " ".join(str(meta.get("message") or "").split()[:30])
        return f"[{day}] {author} tag {meta.get('name')} on {target}" + (f": {message}" if message else "")
    subject = meta.get("subject") or item.title or item.text.split("\n", 1)[0]
    line = f"[{day}] {author} {str(meta.get('sha', ''))[:7]}: {subject}"
    if meta.get("files") is None:  # a commit listing without stats (an export): unknown, not "+0 -0"
        return line
    files = meta.get("files") or []
    plural = "s" if len(files) != 1 else ""
    return f"{line} (+{meta.get('insertions', 0)} -{meta.get('deletions', 0)}, {len(files)} file{plural})"


def _details(item: Item) -> list[str]:
    """The indented lines under a commit's summary: its body, then the files it touched."""
    meta = item.metadata
    if item.kind == "tag":
        rest = item.text.split("\n")[1:]
        message = str(meta.get("message") or "").strip()
        if message and rest and rest[0].strip() == message.split("\n")[0].strip():
            rest = rest[len(message.split("\n")) :]
        return [f"  {line}" for line in rest if line.strip()]
    lines = [f"  {line.strip()}" for line in str(meta.get("body") or "").splitlines() if line.strip()]
    files = [f.get("path", "") for f in meta.get("files") or []]
    if files:
        more = f" and {len(files) - MAX_FILES_LISTED} more" if len(files) > MAX_FILES_LISTED else ""
        lines.append(f"  files: {', '.join(files[:MAX_FILES_LISTED])}{more}")
    return lines


def _fits(text: str, n_items: int, limits: ChunkLimits) -> bool:
    return (
        len(text) <= limits.max_chars and n_items <= limits.max_items and limits.count_tokens(text) <= limits.max_tokens
    )


def _block(item: Item, head: str, limits: ChunkLimits) -> tuple[str, bool]:
    """A commit's text, with its details shortened from the end until it fits a chunk alone."""
    first = commit_line(item)
    details = _details(item)
    while details and not _fits("\n".join([head, first, *details]), 1, limits):
        details.pop()
        if details:
            details[-1] = details[-1] + " ..."
    block = "\n".join([first, *details])
    if _fits(f"{head}\n{block}", 1, limits):
        return block, len(details) < len(_details(item))
    keep = len(first)
    while keep > 20 and not _fits(f"{head}\n{first[:keep]}", 1, limits):
        keep = keep * 3 // 4
    return first[:keep], True


def chunk_commits(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """Consecutive commits of one document (a branch's week, or a tag) packed into chunks that fit `limits`."""
    head = document.title
    done: list[OpenChunk] = []
    current = OpenChunk()
    previous: Item | None = None
    for item in sorted(document.items, key=lambda i: i.occurred_at):
        block, cut = _block(item, head, limits)
        candidate = "\n".join([head, *current.blocks, block])
        shift = previous is not None and topic_shift(previous, item, vectors, limits, len(current.items))
        if current.items and (shift or not _fits(candidate, len(current.items) + 1, limits)):
            done.append(current)
            current = OpenChunk()
        current.blocks.append(block)
        current.items.append(item)
        current.units.append(
            Unit(ref=item.ref, text=block, author=item.author, at=item.occurred_at, url=item.url or document.url)
        )
        current.truncated = current.truncated or cut
        previous = item
    if current.items:
        done.append(current)
    return [_build(document, head, n, part) for n, part in enumerate(done)]


def _tickets(text: str) -> list[str]:
    # Squash merges end with "(#412)": in a commit message a bare #N is a pull request or issue. The GitHub
    # repository behind a local clone is unknown here, so it stays `#N`; links become `github:owner/repo#N`.
    found = find_tickets(text) + [f"#{n}" for n in _ISSUE_REF.findall(text)]
    return list(dict.fromkeys(found))


def _build(document: Document, head: str, n: int, part: OpenChunk) -> Chunk:
    shas = [str(i.metadata.get("sha") or i.metadata.get("commit") or "") for i in part.items]
    metadata = {
        "repo": document.metadata.get("repo", document.container),
        "branch": document.metadata.get("branch"),
        "tag": document.metadata.get("tag"),
        "commits": [s for s in shas if s],
    }
    return build_chunk(document, head, n, part, tickets=_tickets, metadata=metadata)
