"""Links: the pages, tickets and pull requests the top hits point to, pulled in right after the hit that links."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from briefing import registry
from briefing.index import Filter, doc_id
from briefing.model import Chunk
from briefing.retrieve.model import Hit

if TYPE_CHECKING:
    from briefing.question.constraints import Constraints
    from briefing.view import View

# Links are followed from this many top hits, and at most this many linked chunks per hit are pulled in.
LINK_FROM_TOP = 3
MAX_LINKED = 3
# Whether links are followed from a hit naming more than MAX_LINKED items (a listing).
LINK_LISTS = False


def follow_links(view: View, ranked: list[Hit], constraints: Constraints | None, flt: Filter) -> list[Hit]:
    """The pages, tickets and pull requests that the top hits link to, placed right after the hit that links.

    A meeting's notes page or a ticket's pull request is the evidence for "what did we decide in Tuesday's
    planning" or "how was PLAT-142 fixed", whatever its similarity to the question. Links are followed from a
    hit the question is about: the best one, one it named (a ticket), or one of a source it asked for.
    """
    sources = set(constraints.sources) if constraints is not None else set()
    links: list[tuple[Hit, list[str]]] = []
    for pos, hit in enumerate(ranked[:LINK_FROM_TOP]):
        about = pos == 0 or "direct" in hit.origin or hit.chunk.source_type in sources
        refs = linked_refs(hit.chunk)
        # A hit that names more items than it can bring (a tag listing the pull requests before it) is a list,
        # not a link: which of them the question is about is for their own scores to say.
        if about and refs and (LINK_LISTS or len(refs) <= MAX_LINKED):
            links.append((hit, refs))
    if not links:
        return ranked
    wanted = list(dict.fromkeys(r for _, refs in links for r in refs))
    found = view.fetch(refs=wanted, doc_ids=[doc_id(r) for r in wanted], within=flt)
    by_id = {h.chunk.chunk_id: h for h in ranked}
    out = list(ranked)
    placed: set[str] = set()
    for parent, refs in links:
        targets = [c for c in found if set(c.refs) & set(refs) or doc_id(c.doc_key) in {doc_id(r) for r in refs}]
        # A linked item's first chunk first: an item with history states there what it was as of `now`.
        targets.sort(key=lambda c: c.ordinal != 0)
        for n, chunk in enumerate(targets[:MAX_LINKED], 1):
            if chunk.chunk_id in placed or chunk.chunk_id == parent.chunk.chunk_id:
                continue
            placed.add(chunk.chunk_id)
            hit = by_id.get(chunk.chunk_id) or Hit(chunk=chunk, origin="linked")
            score = parent.score - 1e-3 * n
            if hit.score < score:
                hit.boosts["linked"] = round(score - hit.score, 4)
                hit.score = score
                if "linked" not in hit.origin:
                    hit.origin = "linked" if hit.origin == "linked" else f"{hit.origin}+linked"
            if chunk.chunk_id not in by_id:
                out.append(hit)
                by_id[chunk.chunk_id] = hit
    return sorted(out, key=lambda h: -h.score)


def linked_refs(chunk: Chunk) -> list[str]:
    """Native refs of the items a chunk links to: its `links` (an event's notes and tickets, a ticket's links)
    and the pull requests and tickets it names that are not its own."""
    own = {doc_id(chunk.doc_key), *chunk.refs}
    named = [t for t in chunk.tickets if t not in own and doc_id(t) not in own]
    refs = [*registry.meta(chunk, "links"), *named]
    return [r for r in dict.fromkeys(refs) if r and r not in own]


def is_named_item(chunk: Chunk, tickets: Sequence[str]) -> bool:
    """The chunk belongs to a ticket or pull request the question named, by its key ("PLAT-142") or its full ref
    ("github:owner/repo#45", what "PR 45" resolves to), rather than merely mentioning it."""
    return doc_id(chunk.doc_key) in tickets or chunk.doc_key in tickets
