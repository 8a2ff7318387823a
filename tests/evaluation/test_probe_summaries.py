"""eval/probe_summaries.py: a summary of one conversation is read for how much of it the answer covers."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import SampleIndex
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_summaries(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_summaries")


def test_a_summary_is_scored_on_its_own_messages_people_ending_and_words(probe_summaries: Any) -> None:
    probe = probe_summaries.Probe(
        "jira:PLAT-1", "Summarize the discussion in PLAT-1.", datetime(2026, 1, 1, tzinfo=UTC),
        frozenset({"r1", "r2", "r3", "r4", "r5"}), "r5", frozenset({"Ana", "Bo"}), ("parquet", "footer"),
    )  # fmt: skip
    cited = [SimpleNamespace(refs=[ref]) for ref in ("r1", "r5", "x9")]
    answer = SimpleNamespace(
        no_answer=False, citations=cited, answer='- Ana in PLAT-1: "Parquet it is" [1]\n- Bo in PLAT-1: "Done" [2]'
    )
    got = probe_summaries.score(probe, answer)
    assert got["own"] == pytest.approx(2 / 3)
    assert got["messages"] == pytest.approx(2 / 5)
    assert got["people"] == 1.0 and got["last"] == 1.0
    assert got["words"] == 0.5  # "parquet" said, "footer" not


@pytest.mark.slow
def test_the_summary_probes_of_the_sample_are_asked_and_scored(
    probe_summaries: Any, use_sample: SampleIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        drawn = probe_summaries.probes(view.chunks(Filter()), random.Random(7), "title")
        assert len(drawn) >= 3
        assert all(p.last in p.refs and len(p.refs) >= probe_summaries.MIN_MESSAGES for p in drawn)
        line = probe_summaries.run(brief, 3, 7, "title", False)
    assert line.startswith("asked 3:")
    assert "own" in line and "words" in line
