"""eval/probe_repliers.py: the topic of a ticket or mail probe asked as "Who replied to <topic>?", and its verdict."""

from __future__ import annotations

from typing import Any

import pytest

from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_repliers(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_repliers", "probe_threads")


def test_the_topic_is_the_summary_or_subject_without_the_probe_wording(probe_repliers: Any) -> None:
    assert probe_repliers.topic("How was Android crash on 6.2.0 resolved?") == "Android crash on 6.2.0"
    assert probe_repliers.topic("What was the feedback on Fix DSI transfers?") == "Fix DSI transfers"
    assert probe_repliers.topic("What is the fix for ListView scroll jump?") == "ListView scroll jump"


def test_the_first_name_named_decides_the_verdict(probe_repliers: Any) -> None:
    verdict = probe_repliers.verdict
    repliers, openers = {"Kevin Hilman"}, {"Neil Armstrong"}
    assert verdict("Kevin Hilman — Kevin Hilman in [PATCH] ...", repliers, openers, False) == "RIGHT"
    assert verdict("Neil Armstrong [1] and Kevin Hilman [2]", repliers, openers, False) == "ASKER"
    assert verdict("Arnd Bergmann — ...", repliers, openers, False) == "OTHER"
    assert verdict('KEY-1 ("Boot fails") is assigned to Kevin Hilman [1].', repliers, openers, False) == "RIGHT"
    assert verdict("The sources do not cover this.", repliers, openers, True) == "REFUSED"
