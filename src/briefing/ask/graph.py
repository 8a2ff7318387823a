"""Wiring of the ask flow: extract -> route (LLM only) -> the node of the question's answer kind (LangGraph).

A briefing ("what happened" over a window) and a summary (a broad question, when the per-conversation summaries
exist) have their own nodes. Every other kind starts from retrieval: a fact is written from the context (by the
extractive answerer, or by the LLM and then validated); a named item's fields, an outline, a listing or meetings
are read from the index and fall back to the fact answer when the index holds nothing of their kind. An LLM swaps
only the fact writer.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from briefing.ask import briefing_node, kind_nodes, nodes, summary_node
from briefing.ask.flow import END, START, Flow
from briefing.ask.nodes import AskDeps
from briefing.ask.state import AskState
from briefing.question.parse import wants
from briefing.settings import Settings

# The kinds answered from retrieval, each by its own node ("fact" by the writer).
FROM_RETRIEVAL = ("fields", "outline", "listing", "meetings", "fact")


def first_node(state: AskState, settings: Settings) -> str:
    """ "briefing" or "summary" (only when the summaries were computed) for those kinds; else "retrieve"."""
    kind = state.question.kind
    if kind == "briefing":
        return "briefing"
    if kind == "summary":
        from briefing import summaries

        if summaries.available(settings):
            return "summary"
    return "retrieve"


def after_retrieve(state: AskState, writer: str) -> str:
    """The node of the first kind the question may take that retrieval answers (the fact `writer` for a fact)."""
    kind = next(k for k in (*wants(state.question).kinds, "fact") if k in FROM_RETRIEVAL)
    return writer if kind == "fact" else kind


def build_graph(deps: AskDeps) -> Any:
    """A compiled graph over `deps`; with no router or answer LM it is the deterministic, extractive flow, whose
    nodes run one after another (`briefing.ask.flow`, the same wiring without importing LangGraph)."""
    graph: Any
    if deps.router is None and deps.answerer is None:
        graph = Flow(AskState)
    else:
        from langgraph.graph import StateGraph

        graph = StateGraph(AskState)
    graph.add_node("extract", partial(nodes.extract_node, deps=deps))
    graph.add_node("briefing", partial(briefing_node.briefing_node, deps=deps))
    graph.add_node("summary", partial(summary_node.summary_node, deps=deps))
    graph.add_node("retrieve", partial(nodes.retrieve_node, deps=deps))
    graph.add_node("extractive", partial(nodes.extractive_node, deps=deps))
    for kind in FROM_RETRIEVAL[:-1]:
        graph.add_node(kind, partial(kind_nodes.kind_node, kind=kind, deps=deps))
    first = partial(first_node, settings=deps.settings)
    graph.add_edge(START, "extract")
    if deps.router is not None:
        graph.add_node("route", partial(nodes.route_node, deps=deps))
        graph.add_edge("extract", "route")
        graph.add_conditional_edges("route", first, ["briefing", "summary", "retrieve"])
    else:
        graph.add_conditional_edges("extract", first, ["briefing", "summary", "retrieve"])
    graph.add_edge("briefing", END)
    graph.add_edge("summary", END)
    writer = "answer" if deps.answerer is not None else "extractive"
    graph.add_conditional_edges("retrieve", partial(after_retrieve, writer=writer), [writer, *FROM_RETRIEVAL[:-1]])
    if deps.answerer is not None:
        graph.add_node("answer", partial(nodes.llm_answer_node, deps=deps))
        graph.add_node("validate", partial(nodes.validate_node, deps=deps))
        for kind in FROM_RETRIEVAL[:-1]:
            # Nothing of its kind in the index: the LLM writes the fact answer, as for any fact question.
            graph.add_conditional_edges(kind, lambda state: "answer" if state.declined else END, ["answer", END])
        # An LM failure at answer time still yields an answer: the extractive one, noted in the trace.
        graph.add_conditional_edges(
            "answer",
            lambda state: "extractive" if state.trace.get("answer_fallback") else "validate",
            ["extractive", "validate"],
        )
        graph.add_edge("validate", END)
    else:
        for kind in FROM_RETRIEVAL[:-1]:
            graph.add_edge(kind, END)
    graph.add_edge("extractive", END)
    return graph.compile()
