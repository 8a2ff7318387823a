"""Enumerating a briefing window: every conversation with a unit in it, by time (never similarity top-k).

Items come from a payload filter and a scroll through a View (as of its `now`). Chunks are grouped into
conversations from their own fields and their source's descriptor. Only units written inside the window are
cited; earlier ones (a thread's root from last week) give context.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from briefing.digest.conversation import (
    Conversation,
    Seen,
    Transition,
    dedupe,
    kind_of,
    matches_topic,
    seen_units,
    topic_terms,
    transitions,
)
from briefing.digest.exchanges import join_exchanges
from briefing.digest.model import Scope
from briefing.index import Filter, doc_id
from briefing.model import Chunk, Unit

if TYPE_CHECKING:
    from briefing.view import View


def gather(
    view: View, start: datetime, end: datetime, scope: Scope, *, burst_gap: timedelta, forward: bool = False
) -> list[Conversation]:
    """Every conversation with a unit in [start, min(end, now)) inside the scope, read through `view` (as of now).

    `forward`: the window may reach past `now` ("what's planned next week"): what is scheduled in it and was
    entered before `now` (a calendar event written last week for next Tuesday) counts; nothing written later.
    """
    end = end if forward else min(end, view.now)
    if end <= start:
        return []
    flt = Filter(
        start=start,
        end=end,
        source_types=scope.sources,
        containers=scope.containers,
    )
    chunks = view.chunks(flt)
    if scope.tickets:
        # A scope's item and a mention are each a key ("PLAT-7") or a qualified ref ("<family>:owner/repo#12"):
        # both sides are compared as ids, so an item named by its qualified ref finds its own chunks.
        wanted = {doc_id(t) for t in scope.tickets}
        chunks = [c for c in chunks if wanted & {doc_id(t) for t in c.tickets} or doc_id(c.doc_key) in wanted]
    kinds = {c.kind: kind_of(c.kind) for c in chunks}
    # Whole documents for the conversations that began before the window (a thread's root, a ticket's body).
    whole = sorted({c.doc_key for c in chunks if not (kinds[c.kind] and kinds[c.kind].stream)})  # type: ignore[union-attr]
    context: dict[str, list[Chunk]] = {}
    if whole:
        for chunk in view.chunks(Filter(doc_keys=tuple(whole))):
            context.setdefault(chunk.doc_key, []).append(chunk)
    found: dict[str, Conversation] = {}
    # A long post is split over several chunks of its stream: the pieces are one conversation, not one each.
    posted: dict[tuple[str, str], str] = {}
    for chunk in chunks:
        kind = kinds[chunk.kind]
        stream = bool(kind and kind.stream)
        key = chunk.chunk_id if stream else chunk.doc_key
        if stream:
            refs = [(chunk.doc_key, u.ref) for u in chunk.units]
            key = next((posted[r] for r in refs if r in posted), key)
            posted.update(dict.fromkeys(refs, key))
        conv = found.get(key)
        if conv is None:
            conv = found[key] = Conversation(
                key=key,
                doc_key=chunk.doc_key,
                source_type=chunk.source_type,
                kind=chunk.kind,
                container=chunk.container,
                title=chunk.title,
                threaded=bool(kind and kind.threaded),
                stream=stream,
            )
        conv.tickets.update(chunk.tickets)
        conv.units.extend(seen_units(chunk))
    out = []
    for conv in found.values():
        own = context.get(conv.doc_key, [])
        every = dedupe([s for c in own for s in seen_units(c)] + conv.units)
        if conv.stream:
            every = dedupe(conv.units)
        else:
            conv.changes = [t for t in transitions(own) if start <= t.at < end]
            every = dedupe(every + change_units(conv.changes, every, own))
        conv.units = [s for s in every if start <= s.at < end]
        conv.earlier = [s for s in every if s.at < start]
        if conv.units:
            out.extend(bursts(conv, burst_gap) if conv.stream else [conv])
    # A reply after a silence opens a conversation of its own: it joins the question it answers.
    out = join_exchanges(out)
    if scope.people:
        people = {p.lower() for p in scope.people}
        out = [c for c in out if any((s.unit.author or "").lower() in people for s in c.units)]
    terms = topic_terms(scope.topic)
    return [c for c in out if matches_topic(c, terms)]


def change_units(changes: list[Transition], every: list[Seen], chunks: list[Chunk]) -> list[Seen]:
    """A unit to cite for each transition no unit records at its time (a merge, a page version)."""
    have = {(s.unit.ref, s.at) for s in every}
    out: list[Seen] = []
    for change in changes:
        if (change.ref, change.at) in have or not chunks:
            continue
        home = next((s for s in every if s.unit.ref == change.ref), None)
        chunk = home.chunk if home is not None else chunks[0]
        url = home.url if home is not None else chunk.url
        unit = Unit(change.ref, change.describe(), change.by, change.at, url)
        out.append(Seen(unit, change.at, url, chunk))
    return out


def bursts(conv: Conversation, burst_gap: timedelta) -> list[Conversation]:
    """A stream chunk split where its posts are more than `burst_gap` apart: each burst is a conversation."""
    groups: list[list[Seen]] = [[]]
    for seen in conv.units:
        if groups[-1] and seen.at - groups[-1][-1].at > burst_gap:
            groups.append([])
        groups[-1].append(seen)
    if len(groups) == 1:
        return [conv]
    return [
        Conversation(
            key=f"{conv.key}@{group[0].unit.ref}",
            doc_key=conv.doc_key,
            source_type=conv.source_type,
            kind=conv.kind,
            container=conv.container,
            title=conv.title,
            units=group,
            tickets=conv.tickets,
            threaded=conv.threaded,
            stream=True,
        )
        for group in groups
    ]
