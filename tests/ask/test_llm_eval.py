"""`brief eval` with an LLM configured asks every case once: the warm-up makes no model call."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from briefing.evaluation.cases import Case
from briefing.evaluation.runner import run_cases
from briefing.results import AskResult
from briefing.settings import LLMSettings

CASES = [
    Case("c1", "when is the cutover?", "2026-06-10T09:00:00+00:00", (), (), False, "fact"),
    Case("c2", "who owns PLAT-142?", "2026-06-10T09:00:00+00:00", (), (), False, "fact"),
]


class _Counting:
    def __init__(self, llm: LLMSettings) -> None:
        self.settings = SimpleNamespace(llm=llm)
        self.asked: list[str] = []
        self.searched: list[str] = []

    def ask(self, question: str, *, now: Any, k: int = 10) -> AskResult:
        self.asked.append(question)
        return AskResult(question=question, now=now, constraints=None, hits=[], timings_ms={}, answer="a")

    def search(self, question: str, *, now: Any, k: int = 10) -> None:
        self.searched.append(question)


@pytest.mark.parametrize(("llm", "asks"), [(LLMSettings(model="openai/m"), 2), (LLMSettings(), 3)])
def test_the_first_case_is_not_asked_the_model_twice(llm: LLMSettings, asks: int) -> None:
    brief = _Counting(llm)
    records = run_cases(brief, CASES, k=5)
    assert len(records) == 2
    assert len(brief.asked) == asks  # with an LLM: each case once; without: one extractive warm-up ask
    assert brief.searched == (["when is the cutover?"] if llm.model else [])
