"""Run cases through the production ask path (`Brief.ask`) and keep the raw per-case records."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from briefing.evaluation.cases import Case

if TYPE_CHECKING:
    from briefing.results import AskResult


class Asker(Protocol):
    def ask(self, question: str, *, now: Any, k: int = 10) -> AskResult: ...


def record_for(case: Case, result: AskResult, wall_ms: float) -> dict[str, Any]:
    """The per-case record of DESIGN.md "Evaluation cases": everything needed to recompute the metrics."""
    timings = {key: float(value) for key, value in result.timings_ms.items()}
    timings["total"] = round(wall_ms, 1)
    return {
        "id": case.id,
        "category": case.category,
        "question": case.question,
        "now": case.now,
        "gold_refs": list(case.gold_refs),
        "answer_keywords": [list(group) for group in case.answer_keywords],
        "expected_no_answer": case.no_answer,
        "hits": [
            {"rank": rank, "refs": list(hit.chunk.refs), "chunk_id": hit.chunk.chunk_id, "score": round(hit.score, 4)}
            for rank, hit in enumerate(result.hits, 1)
        ],
        "citations": [{"n": c.n, "refs": list(c.refs)} for c in result.citations],
        "answer": result.answer,
        "no_answer": result.no_answer,
        "timings_ms": timings,
    }


def run_cases(
    brief: Asker,
    cases: Sequence[Case],
    *,
    k: int = 10,
    warmup: bool = True,
    progress: Callable[[int, int, Case], None] | None = None,
) -> list[dict[str, Any]]:
    """Ask every case's question with the case's `now`, once each; a warm-up loads the local models untimed."""
    from briefing.service import parse_now

    if warmup and cases:
        _warm_up(brief, cases[0], k)
    records = []
    for i, case in enumerate(cases, 1):
        t0 = time.perf_counter()
        result = brief.ask(case.question, now=parse_now(case.now), k=k)
        records.append(record_for(case, result, (time.perf_counter() - t0) * 1000))
        if progress is not None:
            progress(i, len(cases), case)
    return records


def _warm_up(brief: Asker, case: Case, k: int) -> None:
    """Load the embedding, reranking and sentence models before the timed asks, without a model call.

    With an LLM configured the warm-up is a search (no chat request: the first case is asked once, timed); without
    one, an extractive ask costs no model call and also loads the sentence model.
    """
    from briefing.service import parse_now

    settings = getattr(brief, "settings", None)
    llm = getattr(settings, "llm", None)
    search = getattr(brief, "search", None)
    if llm is not None and (llm.model or llm.router_model):
        if search is not None:
            search(case.question, now=parse_now(case.now), k=k)
        return
    brief.ask(case.question, now=parse_now(case.now), k=k)
