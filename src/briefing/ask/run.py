"""Run the ask graph for the service: build its dependencies from settings and shape the typed result."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from briefing import registry
from briefing.ask.nodes import AskDeps
from briefing.ask.state import AskState
from briefing.question.model import Question

if TYPE_CHECKING:
    from briefing.ask.learned.model import AnswerModel
    from briefing.ask.rescoring import SentenceRescorer
    from briefing.embed import Embedder
    from briefing.index import Index
    from briefing.question.values import Directory
    from briefing.results import AskResult
    from briefing.settings import AnswerSettings, Settings


class Workspace(Protocol):
    """What the ask flow needs of an open workspace (`briefing.service.Brief` is one)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def index(self) -> Index: ...

    @property
    def embedder(self) -> Embedder: ...

    def directory(self) -> Directory: ...


def build_deps(brief: Workspace, on_token: Callable[[str], None] | None = None) -> AskDeps:
    """Router and answer LMs when `[llm]` names them; otherwise the deterministic, extractive flow."""
    from briefing.ask.extractive import ExtractiveAnswerer
    from briefing.ask.vocabulary import Vocabulary
    from briefing.retrieve import Retriever

    settings = brief.settings
    router = answerer = None
    if settings.llm.model or settings.llm.router_model:
        from briefing.ask.lm import build_lm

        router_lm = build_lm(settings.llm, router=True)
        if router_lm is not None:
            from briefing.ask.router import Router

            router = Router(router_lm, max_steps=settings.llm.router_max_steps, timeout_s=settings.llm.router_timeout_s)
        answer_lm = build_lm(settings.llm)
        if answer_lm is not None:
            from briefing.ask.answer import LLMAnswerer
            from briefing.ask.tune import load_program, program_path

            answerer = LLMAnswerer(answer_lm, load_program(program_path(settings)))
    return AskDeps(
        settings=settings,
        retriever=Retriever(settings.retrieval, brief.index, brief.embedder),
        directory=brief.directory(),
        extractive=ExtractiveAnswerer(
            brief.embedder.for_model(settings.answer.sentence_model),
            min_evidence=settings.answer.min_evidence,
            max_sentences=settings.answer.max_sentences,
            timezone=settings.workspace.timezone,
            vocabulary=Vocabulary(brief.index, brief.embedder) if settings.retrieval.sparse else None,
            rescorer=rescorer(settings.answer, brief.embedder),
            model=answer_model(settings),
            learned_refusal=settings.answer.refusal == "learned",
            aboutness=tuple(settings.answer.aboutness),
            windowed=settings.answer.windowed,
            inside_close=settings.answer.window_close,
        ),
        router=router,
        answerer=answerer,
        on_token=on_token,
        source_types=sorted({registry.descriptor(c.type).family for c in settings.sources.values()}),
    )


def answer_model(settings: Settings) -> AnswerModel | None:
    """The learned ranker and refusal model when `[answer] ranker = "learned"`, else None (the rules)."""
    if settings.answer.ranker != "learned":
        return None
    from briefing.ask.learned.model import load_model, sha256_file, shipped_model

    if not settings.answer.ranker_model:
        return shipped_model()
    path = settings.resolve(Path(settings.answer.ranker_model))
    return load_model(path, sha256_file(path))


def rescorer(answer: AnswerSettings, embedder: Embedder) -> SentenceRescorer | None:
    """The second model's reading of the best sentences (`[answer] rescore_model`), or None when it is unset."""
    if not answer.rescore_model:
        return None
    from briefing.ask.rescoring import SentenceRescorer

    return SentenceRescorer(
        embedder.for_model(answer.rescore_model),
        top_n=answer.rescore_top,
        weight=answer.rescore_weight,
        mode=answer.rescore_mode,
        cite_margin=answer.rescore_cite_margin,
    )


def answer(deps: AskDeps, question: str, *, now: datetime, k: int = 10) -> AskResult:
    """Run the graph for one question as of `now`: hits, answer, checked citations, timings and the trace."""
    from briefing.ask.graph import build_graph
    from briefing.ask.segment import reading
    from briefing.ask.splits import stored_splits
    from briefing.results import AskResult, Citation

    t0 = time.perf_counter()
    # The answer reads its units' sentence splits from the vector cache and keeps the ones it had to make.
    with reading(stored_splits(deps.retriever.embedder)):
        final = build_graph(deps).invoke(AskState(question=Question(text=question, now=now), k=k))
    total = round((time.perf_counter() - t0) * 1000, 1)
    trace = dict(final["trace"])
    trace["router_steps"] = final["router_steps"]
    trace["removed_citations"] = final["removed_citations"]
    return AskResult(
        question=question,
        now=now,
        constraints=final["question"].constraints,
        hits=list(final["hits"]),
        answer=final["answer"],
        citations=[Citation.from_json(c) for c in final["citations"]],
        no_answer=final["no_answer"],
        timings_ms={"retrieve": 0.0, "rerank": 0.0, "answer": 0.0, **final["timings_ms"], "total": total},
        trace=trace,
    )


def run_ask(deps: AskDeps, question: str, *, now: datetime, k: int = 10) -> dict[str, Any]:
    """`answer(...)` as the DESIGN.md ask object with its trace (for tests and tools that read JSON)."""
    return answer(deps, question, now=now, k=k).to_json(trace=True)
