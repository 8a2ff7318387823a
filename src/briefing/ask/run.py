"""Run the ask graph for the service: build its dependencies from settings and shape the JSON result."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from briefing import registry
from briefing.ask.nodes import AskDeps
from briefing.ask.state import AskState

if TYPE_CHECKING:
    from briefing.service import Brief


def build_deps(brief: Brief, on_token: Callable[[str], None] | None = None) -> AskDeps:
    """Router and answer LMs when `[llm]` names them; otherwise the deterministic, extractive flow."""
    from briefing.ask.extractive import ExtractiveAnswerer
    from briefing.retrieve import Retriever

    settings = brief.settings
    router = answerer = None
    if settings.llm.model or settings.llm.router_model:
        from briefing.ask.lm import build_lm

        router_lm = build_lm(settings.llm, router=True)
        if router_lm is not None:
            from briefing.ask.router import Router

            router = Router(router_lm, max_steps=settings.llm.router_max_steps, timeout_s=settings.llm.timeout_s)
        answer_lm = build_lm(settings.llm)
        if answer_lm is not None:
            from briefing.ask.answer import LLMAnswerer

            answerer = LLMAnswerer(answer_lm)
    return AskDeps(
        settings=settings,
        retriever=Retriever(settings.retrieval, brief.index, brief.embedder),
        directory=brief.directory(),
        extractive=ExtractiveAnswerer(
            brief.embedder,
            min_evidence=settings.answer.min_evidence,
            max_sentences=settings.answer.max_sentences,
        ),
        router=router,
        answerer=answerer,
        on_token=on_token,
        source_types=sorted({registry.descriptor(c.type).family for c in settings.sources.values()}),
    )


def run_ask(deps: AskDeps, question: str, *, now: datetime, k: int = 10) -> dict[str, Any]:
    """The DESIGN.md ask object (question, now, constraints, hits, answer, citations, no_answer, timings) + trace."""
    from briefing.ask.graph import build_graph
    from briefing.service import hit_json

    t0 = time.perf_counter()
    final = build_graph(deps).invoke(AskState(question=question, now=now, k=k))
    total = round((time.perf_counter() - t0) * 1000, 1)
    constraints = final["constraints"]
    trace = dict(final["trace"])
    trace["router_steps"] = final["router_steps"]
    trace["removed_citations"] = final["removed_citations"]
    timings = {"retrieve": 0.0, "rerank": 0.0, "answer": 0.0, **final["timings_ms"], "total": total}
    return {
        "question": question,
        "now": now.isoformat(),
        "constraints": constraints.to_json() if constraints is not None else {},
        "hits": [hit_json(i, h.score, h.chunk) for i, h in enumerate(final["hits"], 1)],
        "answer": final["answer"],
        "citations": final["citations"],
        "no_answer": final["no_answer"],
        "timings_ms": timings,
        "trace": trace,
    }
