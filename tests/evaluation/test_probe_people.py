"""eval/probe_people.py: "What did <replier> say about <topic> in <place>?" is asked of the sample's own
conversations, and an answer is right only when it leads with that replier's line there."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import SampleIndex
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_people(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_people", "probe_topics", "probe_threads")


def _answer(*cited: str, refused: bool = False, text: str = "") -> Any:
    return SimpleNamespace(no_answer=refused, citations=[SimpleNamespace(refs=[r]) for r in cited], answer=text)


def test_a_verdict_names_whose_line_led(probe_people: Any) -> None:
    probe = probe_people.PersonProbe(
        "slack:C/1.0", "What did Ana say about x in #help?", datetime(2026, 1, 1, tzinfo=UTC), "Ana Lima",
        frozenset({"r2"}),
    )  # fmt: skip
    authors = {"r1": "Bo Chen", "r2": "Ana Lima", "r9": "Ana Lima"}
    assert probe_people.judge(probe, _answer("r2", "r1"), authors) == "LEAD"
    assert probe_people.judge(probe, _answer("r9"), authors) == "BY PERSON"  # their line, elsewhere
    assert probe_people.judge(probe, _answer("r1", "r2"), authors) == "CITED"
    assert probe_people.judge(probe, _answer("r1"), authors) == "MISS"
    assert probe_people.judge(probe, _answer(refused=True), authors) == "REFUSED"


def test_an_answer_quoting_the_openers_field_rows_is_no_lead(probe_people: Any) -> None:
    probe = probe_people.PersonProbe(
        "jira:PLAT-7", "What did Ana say about x in PLAT?", datetime(2026, 1, 1, tzinfo=UTC), "Ana Lima",
        frozenset({"jira:PLAT-7"}),
    )  # fmt: skip
    authors = {"jira:PLAT-7": "Ana Lima"}
    rows = '- Ana Lima in PLAT-7: Export drops rows, Mon 2 Mar: "Type: Bug | Status: Closed | Reporter: Ana Lima" [1]'
    said = '- Ana Lima in PLAT-7: Export drops rows, Mon 2 Mar: "The export drops every null row." [1]'
    assert probe_people.judge(probe, _answer("jira:PLAT-7", text=rows), authors) == "RECORD"
    assert probe_people.judge(probe, _answer("jira:PLAT-7", text=said), authors) == "LEAD"


def test_a_person_is_named_as_asked(probe_people: Any) -> None:
    directory = SimpleNamespace(people=[SimpleNamespace(name="Sean Corfield", handles=("seancorfield",))])
    firsts = Counter({"sean": 1, "alex": 2})
    assert probe_people.name_as("Sean Corfield", "full", directory, firsts) == "Sean Corfield"
    assert probe_people.name_as("Sean Corfield", "handle", directory, firsts) == "seancorfield"
    assert probe_people.name_as("Sean Corfield", "first", directory, firsts) == "Sean"
    assert probe_people.name_as("Alex Miller", "first", directory, firsts) == ""  # two authors are called Alex


@pytest.mark.slow
def test_the_person_probes_of_the_sample_are_asked_and_counted(
    probe_people: Any, use_sample: SampleIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        chunks = list(view.chunks(Filter()))
        drawn = probe_people.person_probes(chunks, random.Random(7), directory=brief.directory())
        assert len(drawn) >= 5
        for probe in drawn:  # the person asked about wrote the lines that answer, and is named in the question
            assert probe.theirs and probe.person in probe.question
            assert probe.question.startswith("What did ")
        counts = probe_people.run(brief, 5, 7)
    assert counts["asked"] == 5
    assert sum(counts[v] for v in ("LEAD", "BY PERSON", "CITED", "MISS", "REFUSED")) == 5
    assert counts["LEAD"] >= 4  # measured 5 of the first 5 when written


@pytest.mark.slow
def test_the_opener_probes_ask_about_the_starter(probe_people: Any, use_sample: SampleIndex) -> None:
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        chunks = list(view.chunks(Filter()))
        repliers = probe_people.person_probes(chunks, random.Random(7), directory=brief.directory())
        openers = probe_people.person_probes(chunks, random.Random(7), directory=brief.directory(), who="opener")
    assert len(openers) >= 5
    units = {u.ref: u for c in chunks for u in c.units}
    for probe in openers:  # the one asked about wrote the conversation's opening, and only their lines answer
        assert probe.theirs and probe.person in probe.question and " reply to " not in probe.question
        assert all((units[r].author or "").strip() == probe.person for r in probe.theirs)
    assert {p.person for p in openers} != {p.person for p in repliers}
