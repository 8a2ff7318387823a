"""eval/probe_phrasings.py: the structure-made probes asked in other words a manager uses."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import SampleIndex
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_phrasings(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_phrasings")


@pytest.mark.slow
def test_asking_to_be_caught_up_gives_the_days_briefing_on_the_sample(
    probe_phrasings: Any, use_sample: SampleIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "What did I miss in #c on <day>?" and the other catch-up phrasings give what "What happened in #c on
    <day>?" gives, on every (channel, day) drawn."""
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        probe_phrasings.catchup(brief, 3, 7)
    lines = [line for line in capsys.readouterr().out.splitlines() if "the same briefing" in line]
    assert len(lines) == len(probe_phrasings.CATCHUP_FORMS)
    assert all(line.endswith("3 of 3") for line in lines), lines


@pytest.mark.slow
def test_a_summary_asked_for_its_main_points_covers_the_conversation_on_the_sample(
    probe_phrasings: Any, use_sample: SampleIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    """Asked for the main points of a named discussion, or what was discussed in it, the answer quotes at least
    half of the conversation's messages (up to six), as a summary does, and nothing is refused."""
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        probe_phrasings.summaries(brief, 3, 7, "title")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(probe_phrasings.TITLE_FORMS)
    assert all("refused 0.00" in line for line in lines), lines
    for line in lines:
        if line.startswith(("What were the main points", "What was discussed")):
            assert float(line.split(" messages ")[1].split()[0]) >= 0.5, line
