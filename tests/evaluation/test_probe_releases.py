"""eval/probe_releases.py: a release line's item becomes "Which release added <item>?", asked after the line
(answerable, naming its version) and the day before it existed (unanswerable), which `brief eval` reads as any dev
set."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from briefing.evaluation.cases import load_cases
from tests.ask.chunks import at, doc, slack
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_releases(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_releases", "probe_refusals", "probe_threads")


ANNOUNCEMENT = slack(
    "slack:CANN::0",
    "announcements",
    (
        "nayan",
        "OLake Go v0.7.4 Released: https://example.org/v0.7.4 What's New • feat: add integration test cases for 2pc "
        "by @vaibhav in #865 (https://example.org/pull/865) • chore: bump dependencies by @bot in #870",
        at(6, 1),
    ),
    ("ana", "Thanks for the quick turnaround on this one!", at(6, 2)),
)
NOTES = doc(
    "release/v0.8.0.md",
    "OLake Go (v0.8.0 - v0.8.2)",
    "docs",
    at(7, 1),
    "# OLake Go (v0.8.0 - v0.8.2)",
    "1. **Schema filtering for PostgreSQL discovery -** <br/> Added an optional schemas field to the discover step.",
)


def test_each_release_line_gives_one_question_from_its_own_item(probe_releases: Any) -> None:
    drawn = probe_releases.release_probes([ANNOUNCEMENT, NOTES], random.Random(7))
    asked = {p.question: p.versions for p in drawn}
    assert asked == {
        "Which release added integration test cases for 2pc?": ("0.7.4",),
        "Which release added Schema filtering for PostgreSQL discovery?": ("0.8.0", "0.8.2"),
    }


def test_a_probe_is_asked_after_its_line_and_the_day_before_it(probe_releases: Any, tmp_path: Path) -> None:
    (probe,) = probe_releases.release_probes([ANNOUNCEMENT], random.Random(7))
    path = tmp_path / "probes.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in probe_releases.as_cases([probe])))
    after, before = load_cases(path)
    assert (after.no_answer, after.gold_refs, after.answer_keywords) == (False, (probe.key,), (("0.7.4",),))
    assert after.now_dt == datetime(2026, 6, 2, 10, tzinfo=UTC)
    assert (before.no_answer, before.gold_refs, before.now_dt) == (True, (), datetime(2026, 5, 31, 10, tzinfo=UTC))


def test_an_answer_is_right_when_its_first_line_names_the_version_or_its_lead_cites_the_line(
    probe_releases: Any,
) -> None:
    from types import SimpleNamespace

    from briefing.results import Citation

    (probe,) = probe_releases.release_probes([ANNOUNCEMENT], random.Random(7))

    def answer(text: str, refs: list[str]) -> SimpleNamespace:  # what the check reads of an ask result
        return SimpleNamespace(answer=text, citations=[Citation(1, refs)])

    assert probe_releases.names_release(answer("v0.7.4 — Nayan in #announcements [1]", ["slack:X:1"]), probe)
    assert probe_releases.names_release(answer("The release notes of June [1]", [probe.key]), probe)
    assert not probe_releases.names_release(answer("v0.7.5 — Nayan [1]", ["slack:X:1"]), probe)
