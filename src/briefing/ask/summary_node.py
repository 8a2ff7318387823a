"""The ask flow's summary branch: broad questions that top-k retrieval answers badly go to `brief summarize`.

"What are the main problems users hit with X", "summarize the discussion about Y": such a question is about many
conversations at once, so it searches the per-conversation summaries first and quotes the best conversations'
own units (`briefing.summaries`). The routing is conservative: only these phrasings (a plain "summarize X" or
"overview of X" is usually about one document and stays with retrieval), only with a topic left, never with a
time window (that is a briefing), a ticket or a PR (that is one item), and only when summaries were computed at
ingest (`briefing.question.kind.wants_summary` reads the question; the graph checks the summaries). Everything
else keeps the ordinary path.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from briefing.ask.state import AskState

if TYPE_CHECKING:
    from briefing.ask.nodes import AskDeps


def summary_node(state: AskState, deps: AskDeps) -> dict[str, Any]:
    from briefing import summaries
    from briefing.retrieve import Hit

    t0 = time.perf_counter()
    found = summaries.answer(
        deps.settings, deps.retriever.index, deps.retriever.embedder, state.question.text, now=state.question.now
    )
    answer = summaries.render(found, "text", sources=False)  # the ask lists its citations itself
    citations = [c for line in found.lines for c in line.citations]
    chunks: dict[str, Any] = {}
    for line in found.lines:
        for chunk in line.chunks:
            chunks.setdefault(chunk.chunk_id, (chunk, line.score))
    hits = [Hit(chunk=c, score=score, origin="summaries") for c, score in chunks.values()][: state.k]
    if deps.on_token is not None:
        deps.on_token(answer)
    return {
        "answer": answer,
        "no_answer": not found.lines,
        "citations": citations,
        "hits": hits,
        "evidence": [h.chunk for h in hits],
        "trace": {
            "answerer": "summaries (per-conversation summaries searched first, then the conversations' units)",
            "summaries": {"searched": found.searched, "matched": found.matched, "lines": len(found.lines)},
        },
        "timings_ms": {
            "retrieve": found.timings_ms.get("summaries", 0.0),
            "answer": round((time.perf_counter() - t0) * 1000, 1),
        },
    }
