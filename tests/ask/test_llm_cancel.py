"""A model request abandoned at its budget is closed, so a one-slot server (llama.cpp's) is free for the next one.

Before, the router's worker thread gave up waiting but its request stayed open until its own timeout: a local
server kept working on it for 1,347 s and the next request (the answer) queued behind it. The server here holds
its first request until the client closes the connection; the router's deadline is injected (no waiting on the
clock), so the test shows the close happens when the router gives up, not when a timeout fires.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from briefing.ask.answer import LLMAnswerer
from briefing.ask.lm import build_lm
from briefing.ask.router import Router
from briefing.ask.run import run_ask
from briefing.settings import LLMSettings
from tests.ask.conftest import NOW
from tests.fakes.openai_server import Reply, chat_fields, one_slot_llm

ANSWER = Reply(content=chat_fields(answer="PLAT-142 moved the Aurora cutover to June 12 [1].", sufficient=True))


def _settings(url: str, **kw: Any) -> LLMSettings:
    return LLMSettings(model="openai/one-slot", api_base=url, **kw)


@pytest.mark.slow
def test_the_router_request_is_closed_when_the_router_gives_up(make_deps) -> None:  # type: ignore[no-untyped-def]
    with one_slot_llm(ANSWER) as (url, server):

        def budget_ends_once_the_request_is_on_the_server(worker: threading.Thread, timeout_s: float) -> bool:
            assert server.received.wait(30)
            return False  # the router's budget is over while the server works on its request

        # timeouts far beyond the test: only the router's giving up can close the request
        lm = build_lm(_settings(url, timeout_s=600, router_timeout_s=600), router=True)
        router = Router(lm, max_steps=4, timeout_s=600, wait=budget_ends_once_the_request_is_on_the_server)
        answerer = LLMAnswerer(build_lm(_settings(url, timeout_s=10)))  # bounds the test if the slot stays busy
        result = run_ask(make_deps(router=router, answerer=answerer), "what happened in PLAT-142?", now=NOW, k=5)
        closed = server.closed.wait(10)
        served = len(server.requests)
    assert closed  # the server saw the abandoned request's connection end
    assert result["trace"]["router"].startswith("fallback: timeout")
    assert result["constraints"]["tickets"] == ["PLAT-142"]  # the deterministic constraints
    # the one slot was free for the answer: it came from the model, not from the extractive fallback
    assert served >= 2
    assert result["answer"].startswith("PLAT-142 moved the Aurora cutover to June 12")


def test_an_answer_request_is_closed_at_its_timeout(make_deps) -> None:  # type: ignore[no-untyped-def]
    with one_slot_llm(ANSWER) as (url, server):
        answerer = LLMAnswerer(build_lm(_settings(url, timeout_s=0.5)))
        result = run_ask(make_deps(answerer=answerer), "what happened in PLAT-142?", now=NOW, k=5)
        closed = server.closed.is_set()
    assert closed  # closed by the client at its timeout, before the answer stage went on
    # the retry found the slot free and got the model's answer
    assert result["answer"].startswith("PLAT-142 moved the Aurora cutover to June 12")
