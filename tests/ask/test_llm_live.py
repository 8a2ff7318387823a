"""The LLM path against a real model server: `pytest -m live_llm` with BRIEF_LIVE_LLM_API_BASE set.

Skipped unless a server is named (tests/conftest.py), e.g. a llama.cpp server on this machine:
`BRIEF_LIVE_LLM_API_BASE=http://127.0.0.1:8080/v1 BRIEF_LIVE_LLM_MODEL=openai/local pytest -m live_llm`.
Whatever the model says, the answer is the model's grounded sentences or the extractive answer, the router keeps
the deterministic constraints, and every model request is in the trace.
"""

from __future__ import annotations

import re

import pytest

from briefing.ask.answer import LLMAnswerer
from briefing.ask.lm import build_lm
from briefing.ask.router import Router
from briefing.ask.run import run_ask
from briefing.settings import LLMSettings
from tests.ask.conftest import NOW
from tests.conftest import LIVE_LLM_API_BASE, LIVE_LLM_MODEL

pytestmark = pytest.mark.live_llm


def _settings() -> LLMSettings:
    return LLMSettings(model=LIVE_LLM_MODEL, api_base=LIVE_LLM_API_BASE, timeout_s=600, router_timeout_s=600)


def test_a_real_model_answers_within_the_contract(make_deps) -> None:  # type: ignore[no-untyped-def]
    answerer = LLMAnswerer(build_lm(_settings()))
    extractive = run_ask(make_deps(), "when is the Aurora cutover?", now=NOW, k=5)
    result = run_ask(make_deps(answerer=answerer), "when is the Aurora cutover?", now=NOW, k=5)
    calls = result["trace"]["model_calls"]
    assert calls and all(c["role"] == "answer" and c["ms"] > 0 for c in calls)
    if result["trace"]["answerer"].startswith("dspy") and not result["no_answer"]:
        assert re.search(r"\[\d+\]", result["answer"])  # every printed model sentence is cited
        assert result["citations"]
    elif not result["no_answer"]:
        assert result["answer"] == extractive["answer"]


def test_a_real_model_routes_without_losing_the_deterministic_constraints(make_deps) -> None:  # type: ignore[no-untyped-def]
    router = Router(build_lm(_settings(), router=True), max_steps=4, timeout_s=600)
    result = run_ask(make_deps(router=router), "what happened in PLAT-142 last week?", now=NOW, k=5)
    assert "PLAT-142" in result["constraints"]["tickets"]
    assert result["trace"]["router"].startswith(("ok", "fallback"))
    assert all(c["role"] == "router" for c in result["trace"]["model_calls"])
