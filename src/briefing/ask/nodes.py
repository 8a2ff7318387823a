"""The ask graph's nodes: each takes the state and the injected dependencies and returns an update."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from briefing.ask.citations import ground, refusal
from briefing.ask.lm import call_count, calls_since
from briefing.ask.state import AskState
from briefing.model import Chunk
from briefing.question.constraints import Constraints, Directory
from briefing.question.model import Question
from briefing.question.parse import from_constraints, parse
from briefing.question.timeexpr import Calendar
from briefing.settings import Settings

if TYPE_CHECKING:
    from briefing.ask.answer import LLMAnswerer
    from briefing.ask.extractive import ExtractiveAnswer, ExtractiveAnswerer
    from briefing.ask.router import Router
    from briefing.retrieve import Hit, Retriever
    from briefing.retrieve.exchanges import ChannelReader

log = logging.getLogger(__name__)


@dataclass
class AskDeps:
    """Everything the graph needs, built by the caller (the service, or a test with fakes)."""

    settings: Settings
    retriever: Retriever
    directory: Directory
    extractive: ExtractiveAnswerer
    router: Router | None = None
    answerer: LLMAnswerer | None = None
    on_token: Callable[[str], None] | None = None
    source_types: list[str] = field(default_factory=list)


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 1)


def _calendar(state: AskState, deps: AskDeps) -> Calendar:
    ws = deps.settings.workspace
    return Calendar(state.question.now, ws.timezone, ws.week_start)


def describe_search(constraints: Constraints | None, configured: list[str], timezone: str = "UTC") -> str:
    """What was searched, in words, for refusals: sources, time window, channels/projects, people."""
    # Only sources that are configured were searched: "PRs" in a question does not mean GitHub was.
    asked = [s for s in (constraints.sources if constraints else []) if not configured or s in configured]
    sources = asked or configured
    parts = [", ".join(sources)] if sources else []
    if constraints is None:
        return "; ".join(parts)
    if constraints.time is not None:
        zone = ZoneInfo(timezone)
        first = constraints.time.start.astimezone(zone).date()
        # The window is [start, end): the last day searched is the one before `end`.
        last = (constraints.time.end - timedelta(microseconds=1)).astimezone(zone).date()
        parts.append(f"{first}" if first == last else f"{first} to {last}")
    places = [f"#{c}" for c in constraints.channels] + list(constraints.projects)
    if places:
        parts.append("in " + ", ".join(places))
    if constraints.people:
        parts.append("people " + ", ".join(constraints.people))
    return "; ".join(parts)


def searched_scope(state: AskState, deps: AskDeps) -> str:
    """What was searched for this question, in words (for refusals)."""
    return describe_search(state.question.constraints, deps.source_types, deps.settings.workspace.timezone)


# -- nodes --------------------------------------------------------------------------------------------------------
def extract_node(state: AskState, deps: AskDeps) -> dict[str, Any]:
    """The one reading of the question's words: constraints, intent, answer kind (`briefing.question.parse`)."""
    t0 = time.perf_counter()
    ws = deps.settings.workspace
    question = parse(
        state.question.text,
        now=state.question.now,
        timezone=ws.timezone,
        week_start=ws.week_start,
        directory=deps.directory,
    )
    return {
        "question": question,
        "trace": {"constraints": question.constraints.to_json(), "router": "off (no LLM configured)"},
        "timings_ms": {"extract": _ms(t0)},
    }


def route_node(state: AskState, deps: AskDeps) -> dict[str, Any]:
    from briefing.ask.tools import RouterTools

    assert deps.router is not None
    t0 = time.perf_counter()
    question = state.question
    tools = RouterTools.start(question.constraints, deps.directory, _calendar(state, deps), deps.retriever)
    before = call_count(deps.router.lm)
    result = deps.router.route(question.text, question.now.isoformat(), question.constraints, tools)
    calls = calls_since(deps.router.lm, before)  # a request still running past the budget is not listed
    return {
        # The routed constraints may change the kind ("last week" makes a briefing): the question is read anew.
        "question": from_constraints(question.text, question.now, result.constraints),
        "router_steps": result.steps,
        "fetched": result.fetched,
        "queries": result.queries,
        "hits": result.searched,
        "trace": {
            "router": result.status,
            "router_plan": result.plan,
            "routed_constraints": result.constraints.to_json(),
            "model_calls": [*state.trace.get("model_calls", []), *calls],
        },
        "timings_ms": {"route": _ms(t0)},
    }


def _with_router_hits(found: list[Hit], state: AskState, deps: AskDeps) -> tuple[list[Hit], list[str]]:
    """`found` with the router's searched and fetched items, best first, and the fetched items' ids."""
    from briefing.retrieve import Hit

    ranked: dict[str, Hit] = {h.chunk.chunk_id: h for h in found}
    # Hits of the router's rewritten queries compete on score with the main query's.
    for hit in state.hits:
        if hit.chunk.chunk_id not in ranked or ranked[hit.chunk.chunk_id].score < hit.score:
            ranked[hit.chunk.chunk_id] = hit
    top = max((h.score for h in ranked.values()), default=0.0)
    fetched_ids = []
    for chunk in state.fetched:
        # Fetched by key: in the context whatever their similarity, ranked above everything searched.
        known = ranked.get(chunk.chunk_id)
        hit = replace(known) if known is not None else Hit(chunk=chunk, origin="router-fetch")
        if known is not None:
            hit.origin = f"{hit.origin}+router-fetch"
        hit.boosts = {**hit.boosts, "fetched": deps.settings.retrieval.boost_ticket}
        hit.score = top + deps.settings.retrieval.boost_ticket
        ranked[chunk.chunk_id] = hit
        fetched_ids.append(chunk.chunk_id)
    order = sorted(ranked.values(), key=lambda h: (-h.score, h.chunk.chunk_id))
    return order[: max(state.k, len(fetched_ids))], fetched_ids


def _channel_reader(deps: AskDeps, now: datetime) -> ChannelReader:
    """Reads a channel's chunks by document key over a time range, as of `now` (`retrieve.exchanges`)."""
    from briefing.index import Filter

    view = deps.retriever.index.view(now)
    return lambda key, start, end: view.chunks(Filter(doc_keys=(key,), start=start, end=end))


def retrieve_node(state: AskState, deps: AskDeps) -> dict[str, Any]:
    from briefing.retrieve import SearchQuery
    from briefing.retrieve.context import answer_context

    question = state.question
    query = SearchQuery(question.text, now=question.now, constraints=question.constraints, k=state.k)
    retrieval = deps.retriever.retrieve(query)
    hits, fetched_ids = _with_router_hits(retrieval.hits, state, deps)
    # The context is read from the strongest chunks (before the hit list is spread over more documents).
    strongest = hits if retrieval.strongest is None else _with_router_hits(retrieval.strongest, state, deps)[0]
    limit = deps.settings.answer.max_context_chunks
    # Fetched items lead the context but leave room for a few searched chunks beside them.
    fetched = [h.chunk for h in strongest if h.chunk.chunk_id in fetched_ids][: max(1, limit - 3)]
    rest = [h.chunk for h in strongest if h.chunk.chunk_id not in fetched_ids]
    evidence = (fetched + rest)[:limit]
    # The best single messages and the opening of the best thread follow, when the strongest chunks left them out.
    evidence = answer_context(retrieval.candidates, evidence, _channel_reader(deps, question.now))
    candidates = list(retrieval.candidates) + [h for h in state.hits if h not in retrieval.candidates]
    return {
        "hits": hits,
        "evidence": evidence,
        "trace": {
            "filters": retrieval.filters,
            "reranker": retrieval.reranker,
            "candidates": [h.to_trace() for h in sorted(candidates, key=lambda h: -h.fused)],
            "reranked": [h.to_trace() for h in hits],
            "router_queries": list(state.queries),
            "context": [
                {"n": i, "chunk_id": c.chunk_id, "title": c.title, "refs": c.refs} for i, c in enumerate(evidence, 1)
            ],
        },
        "timings_ms": {
            "retrieve": round(retrieval.timings_ms.get("retrieve", 0.0), 1),
            "rerank": round(retrieval.timings_ms.get("rerank", 0.0), 1),
        },
    }


def extractive_answer(
    deps: AskDeps, question: Question, context: Sequence[Chunk], *, searched: str
) -> ExtractiveAnswer:
    """The fact answer quoted from `context`: the one call into the extractive answerer, as of the question's now."""
    from briefing.ask.role_parts import with_role_parts

    view = deps.retriever.index.view(question.now)
    answer = deps.extractive.answer(question, context, scope=searched, view=view)
    # A two-part question's role part ("..., and who is it assigned to?") is read from the item's state.
    return with_role_parts(question, answer, context, view)


def answer_update(
    state: AskState,
    deps: AskDeps,
    answer: ExtractiveAnswer,
    t0: float,
    found: dict[str, Any] | None = None,
    *,
    answerer: str | None = None,
) -> dict[str, Any]:
    """The state update of an answer read from the sources (`found`: what a kind node adds to the trace)."""
    # Each marker numbers one quoted unit, and its link opens that unit (the message, comment or section).
    citations = [{"n": n, "refs": refs, "url": answer.urls.get(n, "")} for n, refs in sorted(answer.cited.items())]
    if deps.on_token is not None:
        deps.on_token(answer.text)
    return {
        "answer": answer.text,
        "no_answer": answer.no_answer,
        "citations": citations,
        "trace": {
            "answerer": answerer or state.trace.get("answerer") or "extractive (no LLM configured)",
            "evidence": [
                {
                    "n": e.n,
                    "ref": e.ref,
                    "score": round(e.score, 3),
                    "dense": round(e.dense, 3),
                    "lexical": round(e.lexical, 3),
                    "text": e.text[:160],
                }
                for e in answer.evidence
            ],
            "best_evidence_score": round(answer.best_score, 4),
            "confidence": round(answer.confidence, 4),
            "features": {k: round(v, 4) for k, v in answer.features.items()},
            "threshold": deps.extractive.min_evidence,
            **(found or {}),
            **({"rescoring": answer.rescoring} if answer.rescoring else {}),
        },
        "timings_ms": {"answer": _ms(t0)},
    }


def extractive_node(state: AskState, deps: AskDeps) -> dict[str, Any]:
    """The fact node's writer without an LLM (and after an LLM failure): sentences quoted from the context."""
    t0 = time.perf_counter()
    answer = extractive_answer(deps, state.question, state.evidence, searched=searched_scope(state, deps))
    return answer_update(state, deps, answer, t0)


def llm_answer_node(state: AskState, deps: AskDeps) -> dict[str, Any]:
    assert deps.answerer is not None
    t0 = time.perf_counter()
    if not state.evidence:
        return {"draft": "", "sufficient": False, "trace": {"answerer": "llm (no evidence: not called)"}}
    before = call_count(deps.answerer.lm)
    try:
        question = state.question
        # Not streamed to the reader: only the validated answer is shown (validate_node hands it to `on_token`).
        # `now` and the evidence's times in the workspace's zone: the model names the days the window is read in.
        zone = ZoneInfo(deps.settings.workspace.timezone)
        draft = deps.answerer.answer(
            question.text, question.now.astimezone(zone).isoformat(), state.evidence, zone=zone
        )
    except Exception as exc:
        from briefing.ask.router import _short

        log.warning("answer LM failed (%s); answering extractively", type(exc).__name__)
        note = f"extractive (LLM error: {type(exc).__name__}: {_short(exc)})"
        # The failed model work keeps its own timing: the extractive writer's "answer" follows it.
        return {
            "trace": {"answerer": note, "answer_fallback": True, "model_calls": _answer_calls(state, deps, before)},
            "timings_ms": {"llm_failed": _ms(t0)},
        }
    model = getattr(deps.answerer.lm, "model", "llm")
    return {
        "draft": draft.text,
        "sufficient": draft.sufficient,
        "trace": {
            "answerer": f"dspy {model}" + (" (streamed)" if draft.streamed else ""),
            "draft": draft.text,
            "model_calls": _answer_calls(state, deps, before),
        },
        "timings_ms": {"answer": _ms(t0)},
    }


def _answer_calls(state: AskState, deps: AskDeps, before: int) -> list[dict[str, Any]]:
    assert deps.answerer is not None
    return [*state.trace.get("model_calls", []), *calls_since(deps.answerer.lm, before)]


def validate_node(state: AskState, deps: AskDeps) -> dict[str, Any]:
    """The contract on the model's draft: only its sentences found in the evidence are printed, each cited.

    One refusal decision, made here once: a draft the model called insufficient is refused in brief's words (what
    was searched); a draft with nothing found in the evidence is replaced by the extractive answer, which then
    decides alone. The model's text never becomes a refusal's reason.
    """
    t0 = time.perf_counter()
    searched = searched_scope(state, deps)
    if not state.evidence:
        return {
            "answer": refusal(searched),
            "no_answer": True,
            "citations": [],
            "timings_ms": {"validate": _ms(t0)},
        }
    if not state.sufficient:  # the refusal, worded by brief: what was searched, never the model's restatement
        return {
            "answer": refusal(searched),
            "no_answer": True,
            "citations": [],
            "trace": {"validation": "refused: the model judged the evidence insufficient"},
            "timings_ms": {"validate": _ms(t0)},
        }
    grounded = ground(state.draft, state.evidence, sufficient=True)
    checks = {"dropped_sentences": grounded.dropped, "attached_citations": grounded.attached}
    if grounded.fallback:
        answer = extractive_answer(deps, state.question, state.evidence, searched=searched)
        found = {**checks, "validation": f"extractive answer: {grounded.fallback}"}
        update = answer_update(state, deps, answer, t0, found, answerer=f"extractive ({grounded.fallback})")
        update["removed_citations"] = grounded.removed
        update["timings_ms"] = {"validate": _ms(t0)}
        return update
    if deps.on_token is not None:
        deps.on_token(grounded.text)
    note = "ok" if not (grounded.dropped or grounded.attached) else "sentences dropped or citations attached"
    return {
        "answer": grounded.text,
        "no_answer": False,
        "citations": grounded.citations,
        "removed_citations": grounded.removed,
        "trace": {**checks, "validation": note},
        "timings_ms": {"validate": _ms(t0)},
    }
