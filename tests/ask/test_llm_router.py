"""The router under a small model's mistakes, replayed over HTTP through the real LiteLLM/DSPy stack.

The scripted server (tests/fakes/openai_server.py) answers in the OpenAI chat-completion wire format with the
tool calls a Qwen2.5-Coder 1.5B model made when it was run as the router: it copied the constraint JSON's `label` and
`span` keys into set_time_window, which DSPy rejected with "Arg label is not in the tool's args" every round.
"""

from __future__ import annotations

from typing import Any

import pytest

from briefing.ask.lm import LOCAL_PLACEHOLDER_KEY, build_lm, is_loopback
from briefing.ask.router import Router
from briefing.ask.run import run_ask
from briefing.settings import LLMSettings
from tests.ask.conftest import NOW
from tests.fakes.openai_server import Reply, chat_fields, scripted_llm


def _settings(url: str, **kw: Any) -> LLMSettings:
    return LLMSettings(model="openai/scripted-model", api_base=url, **kw)


def _step(tool: str, **args: Any) -> Reply:
    return Reply(content=chat_fields(next_thought=f"call {tool}", next_tool_name=tool, next_tool_args=args))


def _finish_and_plan() -> list[Reply]:
    return [_step("finish"), Reply(content=chat_fields(reasoning="set up", plan="search as routed"))]


def _user_text(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in request["messages"] if m["role"] == "user")


def test_label_and_span_copied_from_the_constraints_are_mapped_not_looped(make_deps) -> None:  # type: ignore[no-untyped-def]
    # The model's real call: the extracted window's keys, with a phrase in `label` and the span object beside it.
    copied = {"label": "last week", "span": {"kind": "time", "text": "last week", "start": 30, "end": 39}}
    with scripted_llm(_step("set_time_window", **copied), *_finish_and_plan()) as (url, fake):
        router = Router(build_lm(_settings(url), router=True), max_steps=4, timeout_s=60)
        result = run_ask(make_deps(router=router), "what changed in the ledger database?", now=NOW, k=5)
    trace = result["trace"]
    assert trace["router"].startswith("ok")
    assert [s["tool"] for s in trace["router_steps"]] == ["set_time_window"]
    assert result["constraints"]["time"]["start"] < NOW.isoformat()  # the window was applied
    assert len(fake.requests) == 3  # one tool call, finish, the plan: 0 loops
    observation = _user_text(fake.requests[1])
    assert "not in the tool's args" not in observation and "Traceback" not in observation
    assert "ignored arguments ['span']" in observation


def test_the_model_is_shown_the_tools_own_argument_names(make_deps) -> None:  # type: ignore[no-untyped-def]
    with scripted_llm(*_finish_and_plan()) as (url, fake):
        router = Router(build_lm(_settings(url), router=True), max_steps=2, timeout_s=60)
        result = run_ask(make_deps(router=router), "what happened yesterday in the ledger database?", now=NOW, k=5)
    sent = _user_text(fake.requests[0])
    assert '"start"' in sent
    assert '"label"' not in sent and '"span"' not in sent
    assert result["constraints"]["time"]  # the deterministic window stays the floor


def test_a_bad_argument_gets_one_short_line_back_and_the_floor_holds(make_deps) -> None:  # type: ignore[no-untyped-def]
    script = [_step("set_sources", sources={"not": "a list"}), *_finish_and_plan()]
    with scripted_llm(*script) as (url, fake):
        router = Router(build_lm(_settings(url), router=True), max_steps=4, timeout_s=60)
        result = run_ask(make_deps(router=router), "what happened in PLAT-142?", now=NOW, k=5)
    observation = _user_text(fake.requests[1])
    assert "error:" in observation and "Traceback" not in observation
    assert result["constraints"]["tickets"] == ["PLAT-142"]
    assert result["hits"][0]["chunk_id"] == "jira:PLAT-142::0"


def test_a_local_server_needs_no_key(make_deps, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with scripted_llm(
        Reply(content=chat_fields(answer="PgBouncer runs in transaction mode [1].", sufficient=True))
    ) as (
        url,
        fake,
    ):
        from briefing.ask.answer import LLMAnswerer

        answerer = LLMAnswerer(build_lm(_settings(url)))
        result = run_ask(make_deps(answerer=answerer), "which connection pooler did we pick?", now=NOW, k=5)
    assert result["answer"].startswith("PgBouncer runs in transaction mode")
    assert fake.headers[0]["authorization"] == f"Bearer {LOCAL_PLACEHOLDER_KEY}"


@pytest.mark.parametrize(
    ("base", "loopback"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434", True),
        ("http://[::1]:8000/v1", True),
        ("https://api.example.com/v1", False),
        ("http://10.0.0.5:8080/v1", False),
        (None, False),
    ],
)
def test_only_a_loopback_api_base_goes_without_a_key(base: str | None, loopback: bool) -> None:
    assert is_loopback(base) is loopback


def test_the_router_requests_are_cut_to_its_budget() -> None:
    lm = build_lm(
        LLMSettings(model="openai/m", api_base="http://127.0.0.1:9/v1", timeout_s=300, router_timeout_s=20), router=True
    )
    answer_lm = build_lm(LLMSettings(model="openai/m", api_base="http://127.0.0.1:9/v1", timeout_s=300))
    assert lm.kwargs["timeout"] == 20
    assert answer_lm.kwargs["timeout"] == 300


def test_every_model_call_is_in_the_trace_with_its_time_and_tokens(make_deps) -> None:  # type: ignore[no-untyped-def]
    script = [_step("set_time_window", start="2026-06-08", end="2026-06-14"), *_finish_and_plan()]
    answer = Reply(content=chat_fields(answer="We moved the Aurora cutover to June 12 [1].", sufficient=True))
    with scripted_llm(*script, answer) as (url, _fake):
        router = Router(build_lm(_settings(url), router=True), max_steps=4, timeout_s=60)
        from briefing.ask.answer import LLMAnswerer

        deps = make_deps(router=router, answerer=LLMAnswerer(build_lm(_settings(url))))
        result = run_ask(deps, "when is the Aurora cutover?", now=NOW, k=5)
    calls = result["trace"]["model_calls"]
    assert [c["role"] for c in calls] == ["router"] * 3 + ["answer"]
    assert all(c["ms"] >= 0 and c["prompt_tokens"] == 10 and c["completion_tokens"] == 5 for c in calls)


def test_a_failed_answer_keeps_its_time_in_timings(make_deps) -> None:  # type: ignore[no-untyped-def]
    from briefing.ask.answer import LLMAnswerer

    with scripted_llm(*[Reply(status=503, content="overloaded") for _ in range(6)]) as (url, _fake):
        deps = make_deps(answerer=LLMAnswerer(build_lm(_settings(url))))
        result = run_ask(deps, "when is the Aurora cutover?", now=NOW, k=5)
    assert result["trace"]["answerer"].startswith("extractive (LLM error")
    assert "llm_failed" in result["timings_ms"] and result["timings_ms"]["answer"] >= 0
    assert result["trace"]["model_calls"] and all(c["error"] for c in result["trace"]["model_calls"])


def test_the_request_in_flight_is_closed_when_the_router_budget_runs_out(make_deps) -> None:  # type: ignore[no-untyped-def]
    import threading

    release = threading.Event()
    held = [Reply(content=chat_fields(next_thought="t", next_tool_name="finish", next_tool_args={}), hold=release)]
    try:
        with scripted_llm(*held * 4) as (url, _fake):
            lm = build_lm(_settings(url, timeout_s=600, router_timeout_s=0.5), router=True)
            router = Router(lm, max_steps=4, timeout_s=0.5)
            result = run_ask(make_deps(router=router), "what happened in PLAT-142?", now=NOW, k=5)
            worker = next((t for t in threading.enumerate() if t.name == "brief-router"), None)
            if worker is not None:
                worker.join(30)  # the request closes at the budget, not after timeout_s = 600
            assert worker is None or not worker.is_alive()
    finally:
        release.set()
    assert result["trace"]["router"].startswith("fallback: timeout")
    assert result["constraints"]["tickets"] == ["PLAT-142"]
    assert lm.calls and lm.calls[0]["error"]  # cut at the budget (closed by the router or by its timeout)
