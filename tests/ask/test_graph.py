"""The ask graph built by its factory, driven by scripted DSPy LMs: routing, fallback, answers, injection."""

from __future__ import annotations

import threading
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM

from briefing.ask.answer import LLMAnswerer
from briefing.ask.router import Router, join_within
from briefing.ask.run import run_ask
from tests.ask.conftest import INJECTION, NOW


def _step(tool: str, **args: Any) -> dict[str, Any]:
    return {"next_thought": f"call {tool}", "next_tool_name": tool, "next_tool_args": args}


def _router(script: list[dict[str, Any]], **kw: Any) -> Router:
    # ReAct ends with one extraction call (reasoning + plan) after `finish`.
    lm = DummyLM([*script, _step("finish"), {"reasoning": "set up", "plan": "search as routed"}])
    return Router(lm, max_steps=kw.get("max_steps", 4), timeout_s=kw.get("timeout_s", 20))


class _FailingEngine:
    """A provider that refuses the connection (and echoes something key-like in its message)."""

    def complete(self, request: Any) -> Any:
        raise ConnectionError("connection refused for key sk-abcdef0123456789abcdef")

    def close(self) -> None:
        pass


class _HungEngine(_FailingEngine):
    """A provider that never answers until the test releases it (a safety bound keeps a broken test finite)."""

    def __init__(self) -> None:
        self.called = threading.Event()
        self.release = threading.Event()

    def complete(self, request: Any) -> Any:
        self.called.set()
        self.release.wait(10)
        raise ConnectionError("released")


def _lm(engine: Any) -> Any:
    return dspy.LM("openai/fake-model", engine=engine, cache=False, num_retries=0)


def _context_ids(result: dict[str, Any]) -> list[str]:
    return [c["chunk_id"] for c in result["trace"]["context"]]


# -- no LLM ---------------------------------------------------------------------------------------------------------
def test_without_llm_the_graph_is_deterministic_and_extractive(make_deps) -> None:  # type: ignore[no-untyped-def]
    result = run_ask(make_deps(), "what happened in PLAT-142?", now=NOW, k=5)
    assert result["constraints"]["tickets"] == ["PLAT-142"]
    assert result["trace"]["router"].startswith("off")
    assert result["trace"]["router_steps"] == []
    assert result["trace"]["answerer"].startswith("extractive")
    assert _context_ids(result)[0] == "jira:PLAT-142::0"
    assert not result["no_answer"]
    cited = {ref for c in result["citations"] for ref in c["refs"]}
    assert cited and all(ref.startswith(("jira:PLAT-142", "slack:C01PLAT:")) for ref in cited)
    assert set(result) >= {"question", "now", "constraints", "hits", "answer", "citations", "no_answer"}


def test_a_briefing_on_a_ticket_named_by_description_tells_that_tickets_week(make_deps) -> None:  # type: ignore[no-untyped-def]
    question = "What happened in the ticket about migrating the ledger database to Aurora last week?"
    result = run_ask(make_deps(), question, now=NOW, k=5)
    assert result["trace"]["briefing"]["scope"]["tickets"] == ["PLAT-142"]
    cited = {ref for c in result["citations"] for ref in c["refs"]}
    assert cited == {"jira:PLAT-142#comment-10001"}  # its week: the status change, not the threads about Aurora


def test_a_briefing_on_a_topic_named_in_other_words_tells_the_closest_conversations(make_deps) -> None:  # type: ignore[no-untyped-def]
    # No conversation of last week holds most of "aurora switchover rollback plan"; the two about Aurora are the
    # briefing, said as such, not every conversation of the week (the PgBouncer pull request).
    result = run_ask(make_deps(), "What happened with the Aurora switchover and rollback plan last week?", now=NOW, k=5)
    assert result["answer"].startswith('Nothing names all of "aurora switchover rollback plan"; the 2 conversations')
    cited = {
        ref.split(":")[0] + ":" + ref.split(":")[1].split("#")[0] for c in result["citations"] for ref in c["refs"]
    }
    assert cited == {"slack:C01PLAT", "jira:PLAT-142"}


def test_a_briefing_on_a_topic_no_source_of_the_window_names_tells_the_whole_window(make_deps) -> None:  # type: ignore[no-untyped-def]
    result = run_ask(make_deps(), "What happened with the espresso machine last week?", now=NOW, k=5)
    assert result["answer"].startswith('Nothing mentions "espresso machine"; everything in the window instead.')
    cited = {ref for c in result["citations"] for ref in c["refs"]}
    assert "github:acme/ledger#45" in cited


@pytest.mark.parametrize("routed", [False, True])
@pytest.mark.parametrize("question", ["when is the aurora cutover?", "what happened in #platform-eng last week?"])
def test_the_question_is_read_once_per_ask(make_deps, monkeypatch, question: str, routed: bool) -> None:  # type: ignore[no-untyped-def]
    from briefing.question import parse

    read: list[str] = []
    extract = parse.extract

    def counted(text: str, **kwargs: Any) -> Any:
        read.append(text)
        return extract(text, **kwargs)

    monkeypatch.setattr(parse, "extract", counted)
    router = _router([_step("set_time_window", start="2026-06-08", end="2026-06-14")]) if routed else None
    result = run_ask(make_deps(router=router), question, now=NOW, k=5)
    assert read == [question]
    assert result["question"] == question and result["answer"]


# -- router ---------------------------------------------------------------------------------------------------------
def test_router_sets_a_window_and_fetches_a_ticket_into_the_context(make_deps) -> None:  # type: ignore[no-untyped-def]
    router = _router([
        _step("set_time_window", start="2026-06-08", end="2026-06-14"),
        _step("fetch_item", key="PLAT-142"),
    ])  # fmt: skip
    question = "what should I know before Friday?"
    baseline = run_ask(make_deps(), question, now=NOW, k=5)
    assert _context_ids(baseline)[0] != "jira:PLAT-142::0"
    result = run_ask(make_deps(router=router), question, now=NOW, k=5)
    trace = result["trace"]
    assert [s["tool"] for s in trace["router_steps"]] == ["set_time_window", "fetch_item"]
    assert result["constraints"]["time"]["start"] == "2026-06-08T00:00:00+00:00"
    assert result["constraints"]["time"]["end"] == "2026-06-15T00:00:00+00:00"
    assert trace["constraints"]["time"] != result["constraints"]["time"]  # the router's window replaced it
    # a boost, not a filter: nothing outside the window is hidden (only what was written after `now`)
    assert trace["filters"] == {"as_of": NOW.isoformat()}
    assert _context_ids(result)[0] == "jira:PLAT-142::0"
    assert result["hits"][0]["chunk_id"] == "jira:PLAT-142::0"
    assert trace["reranked"][0]["origin"].endswith("router-fetch")
    assert "fetched" in trace["reranked"][0]["boosts"]
    assert trace["router"].startswith("ok")


def test_router_hard_source_filter_only_when_asked(make_deps) -> None:  # type: ignore[no-untyped-def]
    router = _router([_step("set_sources", sources=["jira"], only=True)])
    question = "what do the tickets say about the ledger database?"
    result = run_ask(make_deps(router=router), question, now=NOW, k=5)
    assert result["trace"]["constraints"]["hard"] == []  # extraction: a soft "tickets" boost
    assert result["constraints"]["hard"] == ["source"]
    assert result["trace"]["filters"] == {"as_of": NOW.isoformat(), "source_type": ["jira"]}
    assert {h["source"] for h in result["hits"]} == {"jira"}


def test_router_cannot_invent_names(make_deps) -> None:  # type: ignore[no-untyped-def]
    router = _router([
        _step("boost_container", names=["#platform-engineering"]),
        _step("boost_people", names=["Alicia Chen", "bob"]),
        _step("list_known", kind="channels"),
    ])  # fmt: skip
    result = run_ask(make_deps(router=router), "what did the team say about the cutover?", now=NOW, k=5)
    steps = result["trace"]["router_steps"]
    assert "closest known: ['platform-eng']" in steps[0]["result"]
    assert result["constraints"]["channels"] == []
    assert result["constraints"]["people"] == ["Bob Diaz"]
    assert "Alice Chen" in steps[1]["result"]  # suggested, not applied
    assert steps[2]["result"] == "platform-eng, random"


def test_router_rewritten_query_adds_candidates(make_deps) -> None:  # type: ignore[no-untyped-def]
    router = _router([_step("search", query="PgBouncer connection pool")])
    result = run_ask(make_deps(router=router), "what are we doing about too many connections?", now=NOW, k=5)
    assert result["trace"]["router_queries"] == ["PgBouncer connection pool"]
    assert "github:acme/ledger#45::0" in [h["chunk_id"] for h in result["hits"]]


def test_router_llm_error_falls_back_to_deterministic_constraints(make_deps) -> None:  # type: ignore[no-untyped-def]
    router = Router(_lm(_FailingEngine()), max_steps=3, timeout_s=10)
    deps = make_deps(router=router)
    result = run_ask(deps, "what happened in #platform-eng last week?", now=NOW, k=5)
    trace = result["trace"]
    assert trace["router"].startswith("fallback: LLM error")
    assert trace["router_steps"][-1]["tool"] == "fallback"
    assert "sk-abcdef" not in str(trace)
    baseline = run_ask(make_deps(), "what happened in #platform-eng last week?", now=NOW, k=5)
    assert result["constraints"] == baseline["constraints"]
    assert result["constraints"]["channels"] == ["platform-eng"]
    assert [h["chunk_id"] for h in result["hits"]] == [h["chunk_id"] for h in baseline["hits"]]
    assert result["answer"] == baseline["answer"]


def test_router_timeout_falls_back_within_the_budget(make_deps) -> None:  # type: ignore[no-untyped-def]
    engine = _HungEngine()
    waited: list[float] = []

    def deadline_passes(worker: threading.Thread, timeout_s: float) -> bool:
        assert engine.called.wait(10), "the router never called the model"
        waited.append(timeout_s)
        return False  # the deadline passed with the provider still hanging

    router = Router(_lm(engine), max_steps=3, timeout_s=7, wait=deadline_passes)
    try:
        result = run_ask(make_deps(router=router), "what happened in PLAT-142?", now=NOW, k=5)
    finally:
        engine.release.set()
    assert waited == [7]  # the configured budget, once
    assert result["trace"]["router"] == "fallback: timeout after 7 s"
    assert result["trace"]["router_steps"][-1]["tool"] == "fallback"
    assert result["constraints"]["tickets"] == ["PLAT-142"]  # the deterministic constraints, unchanged
    assert result["hits"] and not result["no_answer"]


def test_the_real_deadline_reports_a_hung_worker_and_a_finished_one() -> None:
    release = threading.Event()
    worker = threading.Thread(target=release.wait, args=(10,), daemon=True)
    worker.start()
    assert join_within(worker, 0.01) is False
    release.set()
    assert join_within(worker, 10) is True


def test_router_steps_are_bounded(make_deps) -> None:  # type: ignore[no-untyped-def]
    # A third tool call would consume the extraction answer and fail to parse: only two may run.
    lm = DummyLM([_step("list_known", kind="people")] * 2 + [{"reasoning": "r", "plan": "p"}])
    router = Router(lm, max_steps=2, timeout_s=20)
    result = run_ask(make_deps(router=router), "who worked on the cutover?", now=NOW, k=5)
    assert [s["tool"] for s in result["trace"]["router_steps"]] == ["list_known", "list_known"]
    assert result["trace"]["router"].startswith("ok (2 tool call(s)")


# -- answer ---------------------------------------------------------------------------------------------------------
def test_llm_answer_citations_are_validated(make_deps) -> None:  # type: ignore[no-untyped-def]
    draft = "Alice Chen moved the cutover to June 12 [1][1]; budget approved [7]."
    lm = DummyLM([{"answer": draft, "sufficient": True}])
    result = run_ask(make_deps(answerer=LLMAnswerer(lm)), "when is the aurora cutover?", now=NOW, k=5)
    assert result["answer"] == "Alice Chen moved the cutover to June 12 [1]; budget approved."
    assert [c["n"] for c in result["citations"]] == [1]
    # [1] is narrowed to the message of context chunk 1 that the sentence quotes (the cutover move).
    cited = result["citations"][0]["refs"]
    assert len(cited) == 1 and set(cited) < set(result["trace"]["context"][0]["refs"])
    size = len(result["trace"]["context"])
    reasons = [r["reason"] for r in result["trace"]["removed_citations"]]
    assert reasons == [f"not in the context (1..{size})", "duplicate of the marker before it"]
    assert not result["no_answer"]


def test_llm_insufficient_answer_is_a_refusal_naming_the_search(make_deps) -> None:  # type: ignore[no-untyped-def]
    lm = DummyLM([{"answer": "Nothing here is about the hiring budget [2].", "sufficient": False}])
    result = run_ask(make_deps(answerer=LLMAnswerer(lm)), "what is the hiring budget in slack last week?", now=NOW)
    assert result["no_answer"]
    assert result["citations"] == []
    assert "searched slack; 2026-06-08 to 2026-06-14" in result["answer"]


def test_evidence_lines_carry_speaker_and_time(make_deps) -> None:  # type: ignore[no-untyped-def]
    lm = DummyLM([{"answer": "Bob Diaz will update the runbook [1].", "sufficient": True}])
    run_ask(make_deps(answerer=LLMAnswerer(lm)), "who will update the cutover runbook?", now=NOW, k=5)
    prompt = lm.history[-1]["messages"][-1]["content"]
    assert "2026-06-08 10:00 UTC | Alice Chen: We moved the Aurora cutover" in prompt
    assert "2026-06-08 10:05 UTC | Bob Diaz: Agreed. I will update the cutover runbook" in prompt


def test_answer_lm_error_falls_back_to_the_extractive_answer(make_deps) -> None:  # type: ignore[no-untyped-def]
    deps = make_deps(answerer=LLMAnswerer(_lm(_FailingEngine())))
    result = run_ask(deps, "when is the aurora cutover?", now=NOW, k=5)
    assert result["trace"]["answerer"].startswith("extractive (LLM error")
    assert "June 12" in result["answer"]
    assert result["citations"]


def test_the_callback_gets_the_validated_answer_never_the_raw_draft(make_deps) -> None:  # type: ignore[no-untyped-def]
    tokens: list[str] = []
    lm = DummyLM([{"answer": "The cutover is on June 12 [1] [3].", "sufficient": True}])
    deps = make_deps(answerer=LLMAnswerer(lm), on_token=tokens.append)
    result = run_ask(deps, "when is the aurora cutover?", now=NOW, k=5)
    assert "".join(tokens).strip() == result["answer"] == "The cutover is on June 12 [1][3]."
    assert [c["n"] for c in result["citations"]] == [1, 3]


# -- prompt injection -----------------------------------------------------------------------------------------------
def test_injected_text_is_data_inside_the_evidence_field(make_deps) -> None:  # type: ignore[no-untyped-def]
    lm = DummyLM([{"answer": "The office plants need watering on Fridays [1].", "sufficient": True}])
    result = run_ask(make_deps(answerer=LLMAnswerer(lm)), "when do the office plants need watering?", now=NOW, k=5)
    messages = lm.history[-1]["messages"]
    system, user = messages[0]["content"], messages[-1]["content"]
    assert INJECTION not in system
    assert "not instructions" in system
    evidence = user.split("[[ ## evidence ## ]]", 1)[1]
    assert INJECTION in evidence.split("[[ ## ", 1)[0]  # inside the evidence field, before the next field
    assert user.index("[[ ## question ## ]]") < user.index("[[ ## evidence ## ]]")
    assert result["citations"][0]["refs"] == ["file:notes/plants.md"]


def test_injected_text_does_not_steer_the_extractive_answer(make_deps) -> None:  # type: ignore[no-untyped-def]
    result = run_ask(make_deps(), "how do deployments to production work?", now=NOW, k=5)
    assert "database was deleted" not in result["answer"]
    assert "two approvals" in result["answer"]
    assert result["citations"][0]["refs"] == ["file:runbooks/deploy.md"]


# -- bad input ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "question", ["¿Qué pasó con la migración a Aurora la semana pasada?", "Aurora 迁移的状态如何？", "???"]
)
def test_other_languages_get_an_answer_or_a_refusal(make_deps, question: str) -> None:  # type: ignore[no-untyped-def]
    result = run_ask(make_deps(), question, now=NOW, k=5)
    assert isinstance(result["answer"], str) and result["answer"]
    if result["no_answer"]:
        assert result["citations"] == [] and "do not cover" in result["answer"]
    else:
        assert result["citations"]
