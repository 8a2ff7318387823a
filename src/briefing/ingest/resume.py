"""A long-lived writer's memory of how it last chunked each resumable document, so a re-run chunks only the tail.

A kind marked `resumable` (`briefing.sources.DocumentKind`) packs its items greedily in `(occurred_at, ref)`
order, each chunk `<doc key>::<n>` starting afresh at its first item, under a header that does not depend on the
items (a chat channel's top-level messages). Whether chunk n closes depends only on its own items and the item
after it, so when a document's items first differ at position e, every chunk that starts before the last chunk
start below e comes out the same, and chunking resumes there: only the chunks from that point on are made again.
An unchanged document is not chunked at all. Anything else that could change a chunk (the document's own fields,
the people directory, the audience, the embedding model) makes the whole document be chunked again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace

from briefing import registry
from briefing.errors import BriefError
from briefing.model import Chunk, Document, Item


def ordered(document: Document) -> list[Item]:
    """The items in the order a resumable chunker packs them."""
    return sorted(document.items, key=lambda i: (i.occurred_at, i.ref))


def _resumable(kind: str) -> bool:
    try:
        return registry.kind(kind).resumable
    except BriefError:
        return False


@dataclass
class _Entry:
    shape: int  # the document without its items, and the run's context
    items: list[int]  # one fingerprint per item, in chunking order
    starts: list[int]  # the position of each chunk's first item
    ids: list[str]
    tickets: list[list[str]]
    container: str


@dataclass
class Resumed:
    """One document of a window: what to chunk (None: nothing) and the chunks kept from the previous run."""

    document: Document
    chunk: Document | None
    offset: int = 0  # chunk numbers of the re-made chunks start here
    first: int = 0  # the position of the first re-made chunk's first item
    kept: list[str] = field(default_factory=list)
    kept_starts: list[int] = field(default_factory=list)
    kept_tickets: list[list[str]] = field(default_factory=list)
    container: str = ""
    items: list[Item] = field(default_factory=list)
    prints: list[int] = field(default_factory=list)
    shape: int = 0


class ChunkMemo:
    """Per source, what the last run chunked of each resumable document (kept in memory by `brief serve`)."""

    def __init__(self) -> None:
        self.entries: dict[str, _Entry] = {}
        # Kept chunk ids of documents whose re-made part gave no chunk (its chunking failed): a whole chunking
        # would give that document none, so the writer deletes them too.
        self.abandoned: list[str] = []

    def clear(self) -> None:
        self.entries.clear()

    def plan(self, window: Sequence[Document], context: int, existing: Collection[str]) -> list[Resumed]:
        """Each document of `window` with the part of it to chunk; `existing`: the chunk ids the index holds."""
        plans: list[Resumed] = []
        for doc in window:
            if not _resumable(doc.kind):
                self.entries.pop(doc.key, None)
                plans.append(Resumed(doc, doc))
                continue
            items = ordered(doc)
            prints = [hash(repr(item)) for item in items]
            shape = hash((repr(replace(doc, items=[])), context))
            plans.append(self._resume(doc, items, prints, shape, existing))
        return plans

    def _resume(
        self, doc: Document, items: list[Item], prints: list[int], shape: int, existing: Collection[str]
    ) -> Resumed:
        whole = Resumed(doc, doc, items=items, prints=prints, shape=shape)
        old = self.entries.pop(doc.key, None)
        if old is None or old.shape != shape or not all(cid in existing for cid in old.ids):
            return whole
        e = next((n for n, (a, b) in enumerate(zip(old.items, prints, strict=False)) if a != b), None)
        if e is None:
            e = min(len(old.items), len(prints))
            if len(old.items) == len(prints):
                e = len(prints) + 1  # nothing changed: every chunk is kept
        below = [start for start in old.starts if start < e]
        if not below:
            return whole
        offset = len(old.starts) if e > len(prints) else old.starts.index(below[-1])  # a split item's first piece
        first = old.starts[offset] if offset < len(old.starts) else len(items)
        tail = items[first:]
        return Resumed(
            doc,
            replace(doc, items=tail) if tail else None,
            offset=offset,
            first=first,
            kept=old.ids[:offset],
            kept_starts=old.starts[:offset],
            kept_tickets=old.tickets[:offset],
            container=old.container,
            items=items,
            prints=prints,
            shape=shape,
        )

    def renumbered(self, plans: Sequence[Resumed], chunks: Iterator[Chunk]) -> Iterator[Chunk]:
        """The chunks of the planned documents, numbered as chunking each whole document would; remembered."""
        by_key = {plan.document.key: plan for plan in plans if plan.items}
        made: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            plan = by_key.get(chunk.doc_key)
            if plan is not None:
                if plan.offset:
                    head, _, n = chunk.chunk_id.rpartition("::")
                    chunk.chunk_id = f"{head}::{int(n) + plan.offset}"
                made.setdefault(chunk.doc_key, []).append(chunk)
            yield chunk
        for key, plan in by_key.items():
            if plan.chunk is None or key in made:
                self._remember(plan, made.get(key, []))
            else:
                self.abandoned.extend(plan.kept)

    def _remember(self, plan: Resumed, chunks: list[Chunk]) -> None:
        position: dict[str, int] = {}
        for n in range(plan.first, len(plan.items)):
            position.setdefault(plan.items[n].ref, n)
        try:
            starts = plan.kept_starts + [position[chunk.refs[0]] for chunk in chunks]
        except (KeyError, IndexError):
            return  # a chunk that does not start at an item of its document: chunked whole next time
        self.entries[plan.document.key] = _Entry(
            plan.shape,
            plan.prints,
            starts,
            plan.kept + [c.chunk_id for c in chunks],
            plan.kept_tickets + [list(c.tickets) for c in chunks],
            plan.document.container,
        )
