"""The LLM path over real HTTP: `dspy.LM` through LiteLLM against a local OpenAI-compatible server.

The server (tests/fakes/openai_server.py) answers on 127.0.0.1 with scripted replies in the OpenAI wire format,
so the request the provider SDK sends and the response it parses are the real ones: the answer module, the
ReAct router's tool selection, token streaming, a timeout, a dropped and a refused connection.
"""

from __future__ import annotations

import re
import threading
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from briefing.ask.answer import LLMAnswerer
from briefing.ask.lm import build_lm
from briefing.ask.router import Router
from briefing.ask.run import run_ask
from briefing.settings import LLMSettings
from tests.ask.conftest import NOW
from tests.fakes.openai_server import Reply, chat_fields, dropping_server, refused_url, scripted_llm

KEY = "sk-test-0123456789abcdefghij"


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRIEF_TEST_LLM_KEY", KEY)


def _settings(url: str, **kw: Any) -> LLMSettings:
    return LLMSettings(model="openai/scripted-model", api_base=url, api_key_env="BRIEF_TEST_LLM_KEY", **kw)


def _step(tool: str, **args: Any) -> Reply:
    return Reply(content=chat_fields(next_thought=f"call {tool}", next_tool_name=tool, next_tool_args=args))


def _finish_and_plan() -> list[Reply]:
    return [_step("finish"), Reply(content=chat_fields(reasoning="set up", plan="search as routed"))]


def _user_text(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in request["messages"] if m["role"] == "user")


def test_answer_module_over_http_cites_the_evidence_it_was_sent(make_deps) -> None:  # type: ignore[no-untyped-def]
    reply = chat_fields(answer="The pooler is PgBouncer in transaction mode [1].", sufficient=True)
    with scripted_llm(Reply(content=reply)) as (url, fake):
        answerer = LLMAnswerer(build_lm(_settings(url)))
        result = run_ask(make_deps(answerer=answerer), "which connection pooler did we pick?", now=NOW, k=5)
    assert result["answer"].startswith("The pooler is PgBouncer")
    assert not result["no_answer"]
    assert result["citations"] and result["citations"][0]["n"] == 1
    assert result["citations"][0]["refs"]  # resolved to refs that were in the context
    (request,) = fake.requests
    assert request["model"] == "scripted-model"
    assert fake.headers[0]["authorization"] == f"Bearer {KEY}"  # the key from the named variable, only in a header
    sent = _user_text(request)
    assert "which connection pooler did we pick?" in sent and "[1]" in sent  # the numbered evidence went out


def test_the_reader_gets_the_validated_answer_not_the_stream(make_deps) -> None:  # type: ignore[no-untyped-def]
    # The draft is not streamed to the terminal: a sentence the checks drop must never have been shown.
    reply = chat_fields(answer="The cutover moved to June 12 [1]. Budget was $4.61 million.", sufficient=True)
    tokens: list[str] = []
    with scripted_llm(Reply(content=reply, stream_pieces=6)) as (url, _fake):
        answerer = LLMAnswerer(build_lm(_settings(url)))
        deps = make_deps(answerer=answerer, on_token=tokens.append)
        result = run_ask(deps, "when is the cutover?", now=NOW, k=5)
    assert result["answer"] == "The cutover moved to June 12 [1]."
    assert "".join(tokens) == result["answer"]


def test_router_tool_calls_over_http_change_the_search(make_deps) -> None:  # type: ignore[no-untyped-def]
    script = [
        _step("set_time_window", start="2026-06-08", end="2026-06-14"),
        _step("fetch_item", key="PLAT-142"),
        *_finish_and_plan(),
    ]
    with scripted_llm(*script) as (url, fake):
        router = Router(build_lm(_settings(url), router=True), max_steps=4, timeout_s=60)
        result = run_ask(make_deps(router=router), "what should I know before Friday?", now=NOW, k=5)
    trace = result["trace"]
    assert [s["tool"] for s in trace["router_steps"]] == ["set_time_window", "fetch_item"]
    assert trace["router"].startswith("ok")
    assert result["constraints"]["time"]["start"] == "2026-06-08T00:00:00+00:00"
    assert result["hits"][0]["chunk_id"] == "jira:PLAT-142::0"
    assert len(fake.requests) == 4
    # the second request carries the first tool's observation back to the model
    assert "set_time_window" in _user_text(fake.requests[1])


def test_native_tool_calls_the_router_does_not_use_fall_back_cleanly(make_deps) -> None:  # type: ignore[no-untyped-def]
    # A model that ignores the field format and answers with OpenAI function calls: nothing is applied blindly.
    native = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "set_sources", "arguments": '{"sources": ["jira"], "only": true}'},
    }
    with scripted_llm(*[Reply(content=None, tool_calls=[native]) for _ in range(6)]) as (url, _fake):
        router = Router(build_lm(_settings(url), router=True), max_steps=2, timeout_s=60)
        result = run_ask(make_deps(router=router), "what do the tickets say about the ledger database?", now=NOW, k=5)
    assert result["trace"]["router"].startswith("fallback")
    assert result["constraints"]["hard"] == []  # the hard source filter was not applied
    assert result["hits"]  # the deterministic search still answered


def test_server_error_falls_back_and_the_router_does_not_retry(make_deps) -> None:  # type: ignore[no-untyped-def]
    with scripted_llm(*[Reply(status=503, content="overloaded") for _ in range(8)]) as (url, fake):
        router = Router(build_lm(_settings(url), router=True), max_steps=4, timeout_s=60)
        result = run_ask(make_deps(router=router), "what happened in PLAT-142?", now=NOW, k=5)
    assert result["trace"]["router"].startswith("fallback: LLM error")
    assert result["constraints"]["tickets"] == ["PLAT-142"]
    # one HTTP attempt per adapter (DSPy's chat format, then its JSON fallback): no LiteLLM or SDK retries
    assert len(fake.requests) <= 2


def test_dropped_connections_are_attempted_a_bounded_number_of_times(make_deps) -> None:  # type: ignore[no-untyped-def]
    with dropping_server() as (url, attempts):
        router = Router(build_lm(_settings(url), router=True), max_steps=4, timeout_s=60)
        result = run_ask(make_deps(router=router), "what happened in PLAT-142?", now=NOW, k=5)
        router_attempts = attempts[0]
        answerer = LLMAnswerer(build_lm(_settings(url)))
        with pytest.raises(Exception, match="Connection error"):
            answerer.answer("what happened?", NOW.isoformat(), [])
        answer_attempts = attempts[0] - router_attempts
    assert result["trace"]["router"].startswith("fallback: LLM error")
    assert 1 <= router_attempts <= 2
    assert 2 <= answer_attempts <= 4  # one retry for the answer LM (per adapter), never LiteLLM's default three


def test_refused_connection_falls_back_without_leaking_the_key(make_deps) -> None:  # type: ignore[no-untyped-def]
    router = Router(build_lm(_settings(refused_url()), router=True), max_steps=4, timeout_s=60)
    result = run_ask(make_deps(router=router), "what happened in PLAT-142?", now=NOW, k=5)
    status = result["trace"]["router"]
    assert status.startswith("fallback: LLM error") and "Connection" in status
    assert KEY not in str(result)
    assert result["hits"][0]["chunk_id"] == "jira:PLAT-142::0"


def test_a_request_longer_than_timeout_s_is_abandoned(make_deps) -> None:  # type: ignore[no-untyped-def]
    release = threading.Event()
    late = [Reply(content=chat_fields(answer="late", sufficient=True), hold=release) for _ in range(4)]
    try:
        with scripted_llm(*late) as (url, fake):
            answerer = LLMAnswerer(build_lm(_settings(url, timeout_s=0.5)))
            with pytest.raises(Exception, match="(?i)timed? ?out"):
                answerer.answer("when is the cutover?", NOW.isoformat(), [])
            attempts = len(fake.requests)
            release.set()
    finally:
        release.set()
    assert 1 <= attempts <= 4  # the request and at most one retry per adapter, each cut at timeout_s


def test_the_model_reads_now_and_the_evidence_times_in_the_workspaces_zone(make_deps) -> None:  # type: ignore[no-untyped-def]
    # The question's days are read in the workspace's zone; the model sees the same clock, not UTC.
    reply = chat_fields(answer="The pooler is PgBouncer in transaction mode [1].", sufficient=True)
    with scripted_llm(Reply(content=reply)) as (url, fake):
        deps = make_deps(answerer=LLMAnswerer(build_lm(_settings(url))))
        workspace = deps.settings.workspace.model_copy(update={"timezone": "America/Los_Angeles"})
        deps.settings = deps.settings.model_copy(update={"workspace": workspace})
        run_ask(deps, "which connection pooler did we pick?", now=NOW, k=5)
    sent = _user_text(fake.requests[0])
    assert NOW.astimezone(ZoneInfo("America/Los_Angeles")).isoformat() in sent
    assert re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} P[DS]T \|", sent) and " UTC |" not in sent
