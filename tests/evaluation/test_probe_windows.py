"""eval/probe_windows.py: a conversation is asked about with a window worded to hold it ("yesterday", "last week",
"on <day>") and with a near miss just after it; citations are judged by when they were stated."""

from __future__ import annotations

from datetime import UTC, date, datetime
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.conftest import SampleIndex
from tests.evaluation.scripts import eval_script

ZONE = ZoneInfo("UTC")


@pytest.fixture
def probe_windows(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_windows", "probe_topics", "probe_threads")


def _probe(module: Any, now: datetime) -> Any:
    return module.Probe(
        "slack:C/1.0", "How do I x?", now, frozenset({"r2"}), frozenset({"r1"}), frozenset({"r1", "r2"}), "thread"
    )


def _window(module: Any, asked: Any) -> tuple[datetime, datetime]:
    window: tuple[datetime, datetime] | None = module.window_of(asked.question, asked.now, "UTC", "monday")
    assert window is not None, asked.question
    return window


@pytest.mark.parametrize("form", ["yesterday", "this week", "last week", "on"])
def test_the_held_window_holds_the_reply_and_the_near_miss_does_not(probe_windows: Any, form: str) -> None:
    day = date(2026, 5, 13)  # a Wednesday; the conversation ends that day
    probe = _probe(probe_windows, datetime(2026, 5, 14, 9, tzinfo=UTC))
    held, miss = probe_windows.asks(probe, form, day, day, "pool timeout", ZONE)
    reply = datetime(2026, 5, 13, 15, tzinfo=UTC)
    start, end = _window(probe_windows, held)
    assert held.held and start <= reply < end, (held, start, end)
    assert held.now >= probe.now  # the whole conversation is in the index when it is asked
    start, end = _window(probe_windows, miss)
    assert not miss.held and not start <= reply < end and miss.now >= held.now, (miss, start, end)
    if form != "on":
        assert form in held.question and "pool timeout" in held.question


def test_a_verdict_reads_when_each_citation_was_stated(probe_windows: Any) -> None:
    window = (datetime(2026, 5, 13, tzinfo=UTC), datetime(2026, 5, 14, tzinfo=UTC))
    # A ticket's header is dated by its last update, its description by its creation: either may be in the window.
    times = {"r1": [datetime(2026, 5, 1, tzinfo=UTC), datetime(2026, 5, 13, 8, tzinfo=UTC)], "r2": [window[0]]}
    times["old"] = [datetime(2026, 4, 1, tzinfo=UTC)]
    probe = _probe(probe_windows, window[1])

    def answer(*refs: str, text: str = "- x [1]", refused: bool = False) -> Any:
        return SimpleNamespace(no_answer=refused, answer=text, citations=[SimpleNamespace(refs=[r]) for r in refs])

    assert probe_windows.judge(answer("r2", "old"), window, times, True, probe) == "IN+reply"
    assert probe_windows.judge(answer("old", "r1"), window, times, True, probe) == "OUT"
    assert probe_windows.judge(answer("r1"), window, times, True, probe) == "IN"
    assert probe_windows.judge(answer("old"), window, times, False, probe) == "PRESENTED"
    assert probe_windows.judge(answer("r1", "undated"), window, times, False, probe) == "WINDOW-ONLY"
    said = answer("old", text="Nothing from yesterday; the closest, from Wed 1 Apr 2026:\n- x [1]")
    assert probe_windows.judge(said, window, times, False, probe) == "SAID"
    assert probe_windows.judge(answer(refused=True), window, times, False, probe) == "REFUSED"


@pytest.mark.slow
def test_the_sample_is_asked_about_its_conversations_days(
    probe_windows: Any, use_sample: SampleIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        counts = probe_windows.run(brief, 12, 7)
    assert counts["held asked"] >= 4 and counts["miss asked"] >= 4
    held_in = sum(v for k, v in counts.items() if k.startswith("held IN"))
    assert held_in >= counts["held asked"] - 1  # measured: every first citation inside the window when written
    assert counts["miss PRESENTED"] == 0  # measured 2 of 7 before an answer from other days said so
    summary = probe_windows.summary(counts)
    assert summary.startswith(f"held {counts['held asked']}: first citation inside {held_in}")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == counts["held asked"] + counts["miss asked"]


@pytest.mark.parametrize(("ask", "intent", "parts"), [("latest", "latest", 1), ("parts", "fact", 2)])
def test_the_newest_and_two_part_wordings_keep_the_window(
    probe_windows: Any, ask: str, intent: str, parts: int
) -> None:
    from briefing.question.parse import parse

    probe = _probe(probe_windows, datetime(2026, 5, 14, 9, tzinfo=UTC))
    day = date(2026, 5, 13)
    held, _ = probe_windows.asks(probe, "yesterday", day, day, "pool timeout", ZONE, probe_windows.ASKS[ask])
    question = parse(held.question, now=held.now)
    assert question.intent == intent and max(len(question.parts), 1) == parts, question
    assert question.window is not None and question.window.label == "yesterday", question
