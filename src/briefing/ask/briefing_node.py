"""The ask flow's briefing branch: "what happened / what changed / what's new / any updates / recap" over a window.

Such questions go to the briefing engine (every conversation in the window, by time) instead of top-k
retrieval. A window with activity is always answered; an empty one gets "Nothing in #x between A and B", which
is an answer (with what was searched), not a refusal.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from briefing.ask.state import AskState
from briefing.model import Chunk
from briefing.question.parse import wants

if TYPE_CHECKING:
    from briefing.ask.nodes import AskDeps
    from briefing.digest.llm import LineWriter
    from briefing.digest.model import Scope

DEFAULT_DAYS = 7
# A briefing whose topic no conversation of the window names in full (most of its words) covers the conversations
# of the first CLOSEST retrieved chunks that hold a word of it, not every conversation of the window.
CLOSEST = 5


def _line_writer(deps: AskDeps) -> LineWriter | None:
    """The LLM line writer when an LLM answers; imported only then (DSPy is the optional `llm` extra)."""
    if deps.answerer is None:
        return None
    from briefing.digest.llm import LineWriter

    return LineWriter(deps.answerer.lm)


def _retrieved(state: AskState, deps: AskDeps, window: tuple[datetime, datetime] | None = None) -> list[Chunk]:
    """The chunks the fact path retrieves for the question; only those inside `window` (a hard filter) when given."""
    from briefing.question.timewindow import TimeWindow
    from briefing.retrieve import SearchQuery

    question = state.question
    constraints = question.constraints
    if window is not None:
        bounded = TimeWindow(window[0], window[1], None, "the briefing's window")
        constraints = replace(constraints, time=bounded, hard={*constraints.hard, "time"})
    query = SearchQuery(question.text, now=question.now, constraints=constraints, k=state.k)
    return [hit.chunk for hit in deps.retriever.retrieve(query).hits]


def _described_scope(state: AskState, deps: AskDeps, scope: Scope) -> Scope:
    """The scope of a briefing on an item named by description ("what happened in the ticket about X last
    week?"): that item, found as the fact path finds it, in place of the topic's words; `scope` otherwise."""
    from briefing.ask.described import briefed_item
    from briefing.index.payload import doc_id

    question = state.question
    evidence = _retrieved(state, deps)
    key = briefed_item(question, scope.topic, evidence, deps.retriever.index.view(question.now))
    return scope if key is None else replace(scope, tickets=(doc_id(key),), topic="")


def _closest(state: AskState, deps: AskDeps, topic: str, window: tuple[datetime, datetime]) -> list[Chunk]:
    """The window's chunks the fact path ranks first for the question that hold a word of its topic, CLOSEST at
    most: what a briefing on a topic no conversation names in full is about."""
    from briefing.digest.conversation import topic_terms

    terms = topic_terms(topic)
    held = [c for c in _retrieved(state, deps, window) if terms & topic_terms(f"{c.title} {c.text}")]
    return held[:CLOSEST]


def briefing_node(state: AskState, deps: AskDeps) -> dict[str, Any]:
    from briefing.digest import render
    from briefing.digest.conversation import among
    from briefing.digest.engine import Briefer
    from briefing.digest.item import answer_text as item_text
    from briefing.digest.item import item_digest
    from briefing.digest.model import Scope
    from briefing.digest.places import channel_scope, places
    from briefing.retrieve import Hit

    t0 = time.perf_counter()
    question = state.question
    asked = wants(question)
    constraints = question.constraints
    now = question.now
    if constraints.time is not None:
        start, end = constraints.time.start, constraints.time.end
    else:
        start, end = now - timedelta(days=DEFAULT_DAYS), now
    forward = asked.forward and end > now
    if forward:
        start = max(start, now)  # what is ahead: from now to the window's end
    scope = Scope(
        sources=tuple(constraints.sources),
        containers=tuple(dict.fromkeys([*constraints.channels, *constraints.projects])),
        people=tuple(constraints.people),
        tickets=tuple(constraints.tickets),
        topic=asked.topic,
    )
    scope = channel_scope(scope, deps.directory)
    if not scope.tickets and scope.topic:
        scope = _described_scope(state, deps, scope)
    settings = deps.settings
    briefer = Briefer(
        deps.retriever.index,
        timezone=settings.workspace.timezone,
        max_lines=settings.digest.max_lines,
        burst_minutes=settings.digest.burst_minutes,
        writer=_line_writer(deps),
    )
    shown = places(scope, deps.directory)
    searched = briefer.describe(start, end if forward else min(end, now), scope, shown, deps.source_types)
    # A named item's window ("what happened in PLAT-7 last week?"): its own progression, not every conversation
    # that mentions it; when it had none, the window's mentions of it are the answer below.
    story = None if forward or not scope.tickets else item_digest(briefer, start, end, now=now, scope=scope,
                                                                  searched=searched)  # fmt: skip
    digest = story or briefer.digest(start, end, now=now, scope=scope, searched=searched, forward=forward)
    note = ""
    if digest.empty and scope.topic:
        # The topic is what is left of the question after its constraints. When no conversation names it in full,
        # the conversations closest to it are the answer, said as such; with none, the window's activity is.
        broad = Scope(scope.sources, scope.containers, scope.people, scope.tickets)
        searched = briefer.describe(start, end if forward else min(end, now), broad, shown, deps.source_types)
        nearest = [] if forward else _closest(state, deps, scope.topic, (start, min(end, now)))
        keep = among(nearest) if nearest else None
        wider = briefer.digest(start, end, now=now, scope=broad, searched=searched, forward=forward, keep=keep)
        if not wider.empty and keep is not None:
            n = wider.conversations
            closest = "the conversation" if n == 1 else f"the {n} conversations"
            note = f'Nothing names all of "{scope.topic}"; {closest} closest to it instead.\n'
            digest = wider
        else:
            if keep is not None:
                wider = briefer.digest(start, end, now=now, scope=broad, searched=searched, forward=forward)
            if not wider.empty:
                note = f'Nothing mentions "{scope.topic}"; everything in the window instead.\n'
                digest = wider
    digest.places = shown
    answer = note + (item_text(digest) if story is not None else render.answer_text(digest))
    citations = [c.to_json() for c in digest.citations()]
    chunks: dict[str, tuple[Chunk, float]] = {}
    for line in digest.lines():
        for chunk in line.chunks:
            chunks.setdefault(chunk.chunk_id, (chunk, line.score))
    # Most important conversations first; every cited chunk is the context, the first k are the hits.
    evidence = [
        Hit(chunk=c, score=round(score, 4), origin="briefing")
        for c, score in sorted(chunks.values(), key=lambda cs: -cs[1])
    ]
    # The hits: the cited chunks, then the rest of the window's conversations, k in all.
    cited_ids = {h.chunk.chunk_id for h in evidence}
    rest = [Hit(chunk=c, score=0.0, origin="briefing-window") for c in digest.evidence if c.chunk_id not in cited_ids]
    hits = (evidence + rest)[: state.k]
    if len(hits) < state.k:
        # A quiet window: the remaining hits come from the one retrieval path, so `-k` still means k hits.
        from briefing.retrieve import SearchQuery

        seen = {h.chunk.chunk_id for h in hits}
        found = deps.retriever.retrieve(SearchQuery(question.text, now=now, constraints=constraints, k=state.k))
        hits += [h for h in found.hits if h.chunk.chunk_id not in seen][: state.k - len(hits)]
    if deps.on_token is not None:
        deps.on_token(answer)
    return {
        "answer": answer,
        "no_answer": False,
        "citations": citations,
        "hits": hits,
        "evidence": [h.chunk for h in evidence],
        "trace": {
            "answerer": (
                "item briefing (the item's state changes and key comments in the window, by time)"
                if story is not None
                else "briefing engine (every conversation in the window, by time)"
            )
            + (
                f"; lines by the LLM: {briefer.writer.written} written, {briefer.writer.fallbacks} extractive"
                if briefer.writer is not None and story is None
                else ""
            ),
            "candidates": [h.to_trace() for h in evidence],
            "context": [
                {"n": i, "chunk_id": h.chunk.chunk_id, "title": h.chunk.title, "refs": h.chunk.refs}
                for i, h in enumerate(evidence, 1)
            ],
            "briefing": {
                "window": [digest.start.isoformat(), digest.end.isoformat()],
                "scope": digest.scope.to_json(),
                "conversations": digest.conversations,
                "shown": len(digest.lines()),
                "more": len(digest.more),
                "searched": digest.searched,
            },
        },
        "timings_ms": {
            "retrieve": digest.timings_ms.get("enumerate", 0.0),
            "answer": round((time.perf_counter() - t0) * 1000, 1),
        },
    }
