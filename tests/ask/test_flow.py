"""Without an LLM the ask graph runs without LangGraph, and gives what LangGraph's run of the same wiring gives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from briefing.ask import graph
from briefing.ask.flow import END, START, Flow
from briefing.ask.run import run_ask
from tests.ask.conftest import NOW
from tests.probe import run_probe

QUESTIONS = [
    "what happened in PLAT-142?",
    "when is the aurora cutover?",
    "what happened in #platform-eng last week?",
    "who reviewed the payments retry change?",
    "what is the capital of France?",
]


def _same(result: dict[str, Any]) -> dict[str, Any]:
    """A result without its timings (the only part two runs may differ in)."""
    out = {k: v for k, v in result.items() if k != "timings_ms"}
    out["trace"] = {k: v for k, v in result["trace"].items() if k != "timings_ms"}
    return out


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_plain_flow_answers_as_langgraph_does(make_deps, monkeypatch, question: str) -> None:  # type: ignore[no-untyped-def]
    from langgraph.graph import StateGraph

    plain = run_ask(make_deps(), question, now=NOW, k=5)
    monkeypatch.setattr(graph, "Flow", StateGraph)
    with_langgraph = run_ask(make_deps(), question, now=NOW, k=5)
    assert _same(plain) == _same(with_langgraph)


def test_the_entry_and_exit_are_langgraphs() -> None:
    import langgraph.graph

    assert (START, END) == (langgraph.graph.START, langgraph.graph.END)


def test_a_node_with_two_ways_out_is_refused() -> None:
    from briefing.ask.state import AskState

    flow = Flow(AskState)
    flow.add_edge("extract", "retrieve")
    with pytest.raises(ValueError, match="two ways out"):
        flow.add_edge("extract", "briefing")


def test_asking_without_an_llm_imports_no_langgraph() -> None:
    probe = (
        "import json, sys\n"
        "from briefing.ask import graph, run\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('langgraph', 'langsmith', 'langchain_core', 'dspy', 'litellm'))))\n"
    )
    assert json.loads(run_probe(probe)) == []
