"""eval/probe_briefings.py: a briefing probe names its conversation's topic, some of it in other words."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_briefings(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_briefings", "probe_topics", "probe_threads")


def test_foreign_words_replace_the_end_of_the_topic_only(probe_briefings: Any) -> None:
    question = "What happened in #help about stream results Postgres blowups over the past week?"
    asked = probe_briefings.foreign_topic(question, 2, ["tulip"], random.Random(1))
    assert asked == "What happened in #help about stream results tulip tulip over the past week?"


def test_a_briefing_is_judged_by_the_share_of_its_citations_that_are_the_conversations(probe_briefings: Any) -> None:
    probe = SimpleNamespace(thread_refs=frozenset({"r1", "r2"}))
    cite = SimpleNamespace
    answer = SimpleNamespace(
        answer='Nothing names all of "x"; the 2 conversations closest to it instead.',
        citations=[cite(refs=["r1"]), cite(refs=["r9"]), cite(refs=["r8"]), cite(refs=["r2"])],
    )
    got = probe_briefings.judge(probe, answer)
    assert got == {"cited": 1.0, "share": 0.5, "citations": 4.0, "fallback": 1.0}
    assert probe_briefings.judge(probe, SimpleNamespace(answer="", citations=[]))["cited"] == 0.0
    assert "median citations 4" in probe_briefings.summary([got])
