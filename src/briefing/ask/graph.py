"""Wiring of the ask flow: extract -> route (LLM only) -> retrieve -> answer (DSPy or extractive) -> validate,
or extract -> route -> briefing for "what happened" questions over a window."""

from __future__ import annotations

from functools import partial
from typing import Any

from langgraph.graph import END, START, StateGraph

from briefing.ask import briefing_node, nodes, summary_node
from briefing.ask.nodes import AskDeps
from briefing.ask.state import AskState


def build_graph(deps: AskDeps) -> Any:
    """A compiled graph over `deps`; with no router or answer LM it is the deterministic, extractive flow."""
    graph = StateGraph(AskState)
    graph.add_node("extract", partial(nodes.extract_node, deps=deps))
    graph.add_node("retrieve", partial(nodes.retrieve_node, deps=deps))
    graph.add_node("extractive", partial(nodes.extractive_node, deps=deps))
    graph.add_node("briefing", partial(briefing_node.briefing_node, deps=deps))
    graph.add_node("summarize", partial(summary_node.summary_node, deps=deps))
    route = partial(briefing_node.route, settings=deps.settings)
    paths = ["briefing", "summarize", "retrieve"]
    graph.add_edge(START, "extract")
    # "What happened / what changed / any updates" over a window: the briefing engine, not top-k retrieval.
    if deps.router is not None:
        graph.add_node("route", partial(nodes.route_node, deps=deps))
        graph.add_edge("extract", "route")
        graph.add_conditional_edges("route", route, paths)
    else:
        graph.add_conditional_edges("extract", route, paths)
    graph.add_edge("briefing", END)
    graph.add_edge("summarize", END)
    if deps.answerer is not None:
        graph.add_node("answer", partial(nodes.llm_answer_node, deps=deps))
        graph.add_node("validate", partial(nodes.validate_node, deps=deps))
        graph.add_edge("retrieve", "answer")
        # An LM failure at answer time still yields an answer: the extractive one, noted in the trace.
        graph.add_conditional_edges(
            "answer",
            lambda state: "extractive" if state.trace.get("answer_fallback") else "validate",
            ["extractive", "validate"],
        )
        graph.add_edge("validate", END)
    else:
        graph.add_edge("retrieve", "extractive")
    graph.add_edge("extractive", END)
    return graph.compile()
