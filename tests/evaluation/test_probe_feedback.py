"""eval/probe_feedback.py: 'What was the feedback on "<title>"?' of the sample's conversations, asked and counted."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.conftest import SampleIndex
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_feedback(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_feedback")


@pytest.mark.slow
def test_the_feedback_probes_of_the_sample_are_asked_and_counted(
    probe_feedback: Any, use_sample: SampleIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        drawn = probe_feedback.probes(view.chunks(Filter()), random.Random(7))
        assert len(drawn) >= 3
        for question, _now, starter, by in drawn:  # each conversation has a reply by someone else
            assert question.startswith("What was the feedback on")
            assert any(author != starter for author in by.values())
        line = probe_feedback.run(brief, 3, 7)
    assert line.startswith("asked 3:")
    replies = int(line.rsplit(" ", 1)[1])
    assert replies >= 2  # 2 of 3 when written (0 before a reply led the feedback on a post)
