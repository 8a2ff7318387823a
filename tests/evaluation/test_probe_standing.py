"""eval/probe_standing.py: 'What is the latest on "<title>"?' of the sample's conversations, asked and counted."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.conftest import SampleIndex
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_standing(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_standing")


@pytest.mark.slow
def test_the_standing_probes_of_the_sample_are_asked_and_counted(
    probe_standing: Any, use_sample: SampleIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        drawn = probe_standing.probes(view.chunks(Filter()), random.Random(7), "stand")
        assert len(drawn) >= 3
        for question, _now, refs, last in drawn:  # the yardstick is the conversation's own last message
            assert question.startswith("Where does") and last in refs
        line = probe_standing.run(brief, 4, 7, "latest")
    assert line.startswith("asked 4:")
    assert int(line.rsplit(" ", 1)[1]) >= 2
