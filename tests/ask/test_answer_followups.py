"""Two-part questions whose later part refers back to the first ("..., and what got better in it?"), questions that
name their place first, and people asked about as the ones who acted: what the answer shows for each."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, slack
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("followups-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


RELEASE = slack(
    "slack:CSDK::0",
    "sdk",
    ("Mira Chen", "I'll push the new version of the Ledger SDK this week", at(6, 1)),
    ("Tom Berg", "Looking forward to it, the old retry logic keeps biting us", at(6, 1, 11)),
    (
        "Mira Chen",
        "Ledger SDK 2.4.0 is out. Retries got a lot of subtle bugs fixed, and the client now has better error "
        "reporting",
        at(6, 4),
    ),
)


def test_a_part_that_refers_back_is_answered_from_the_first_parts_message(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("Which Ledger SDK version came out in June, and what got better in it?"), [RELEASE])
    rows = answer.text.splitlines()
    assert rows[0].startswith("Which Ledger SDK version came out in June: 2.4.0 — Mira Chen in #sdk"), answer.text
    # The message that named the version also says what got better: it is pointed to, not quoted a second time,
    # and the promise to release ("I'll push the new version this week") is not cited.
    assert rows[1] == "What got better in it: the same message [1]", answer.text
    assert answer.cited == {1: [RELEASE.units[2].ref]}


def test_a_part_the_first_parts_message_does_not_speak_to_keeps_its_own_line(answerer: ExtractiveAnswerer) -> None:
    incident = slack(
        "slack:CPAY::0",
        "payments",
        ("Lena Vogt", "The money-column migration in 2.5.0 cast amounts to integers and dropped the cents.", at(6, 2)),
        ("Ruth Adeyemi", "The nightly dry run against the staging copy caught it before production.", at(6, 2, 12)),
    )
    answer = answerer.answer(
        parsed("What was wrong with the money-column migration in 2.5.0, and how was it caught?"), [incident]
    )
    rows = answer.text.splitlines()
    assert "same message" not in answer.text, answer.text
    assert rows[1].startswith("How was it caught: Ruth Adeyemi in #payments"), answer.text
    assert_citations_valid(answer, [incident])


def test_what_a_person_released_is_answered_with_the_version(answerer: ExtractiveAnswerer) -> None:
    tools = slack(
        "slack:CBUILD::0",
        "build",
        (
            "Sean Park",
            'Decided to release `[seanpark/gradle-tools-deps "0.4.1"]`, which adds a `-x` option to run the main '
            "namespace",
            at(6, 3),
        ),
        ("Ana Ruiz", "@Sean Park thanks, will try it on the monorepo", at(6, 3, 11)),
    )
    question = parsed("What did Sean Park release for Gradle, and what options did it add?", people=["Sean Park"])
    answer = answerer.answer(question, [tools])
    rows = answer.text.splitlines()
    # "release" is what Sean did, not a product named "Sean Park": the version he released answers the first part.
    assert rows[0].startswith("What did Sean Park release for Gradle: 0.4.1 — Sean Park in #build"), answer.text
    assert rows[1] == "What options did it add: -x [1]", answer.text
    assert answer.cited == {1: [tools.units[0].ref]}


def test_a_question_that_names_its_place_first_is_answered_part_by_part(answerer: ExtractiveAnswerer) -> None:
    jobs = slack(
        "slack:CJOBS::0",
        "jobs",
        ("Rich Taylor", "Metail, a fashion-tech company in Cambridge, is hiring two Clojure developers.", at(6, 5)),
        ("Ana Ruiz", "Are you open to remote people?", at(6, 5, 11)),
        ("Rich Taylor", "We prefer co-location but would be open to remote depending on experience.", at(6, 5, 12)),
    )
    question = parsed(
        "In #jobs, which fashion-tech company in Cambridge was hiring, and would it consider remote people?",
        places=["jobs"],
    )
    answer = answerer.answer(question, [jobs])
    rows = answer.text.splitlines()
    assert rows[0].startswith("In #jobs, which fashion-tech company in Cambridge was …:"), answer.text
    assert "Metail" in rows[0]
    assert rows[1].startswith("Would it consider remote people:"), answer.text
    assert "open to remote" in rows[1]
    assert_citations_valid(answer, [jobs])


def test_a_person_asked_about_as_the_subject_is_answered_from_their_own_messages(answerer: ExtractiveAnswerer) -> None:
    funds = slack(
        "slack:CCIDER::0",
        "cider",
        ("Tim Xu", "@Bo Batt have you spent the money yet?", at(6, 6)),
        (
            "Bo Batt",
            "Not yet. I was planning to use them for conference trips or for funding some important features.",
            at(6, 6, 11),
        ),
    )
    page = slack(
        "slack:CCIDER::1",
        "cider",
        ("Jo Maya", "@Bo Batt didn't have time this last week. Plan to finish it this weekend.", at(6, 1)),
    )
    question = parsed("What did Bo Batt plan to spend the donations on?", people=["Bo Batt"])
    answer = answerer.answer(question, [funds, page])
    assert answer.text.startswith("- Bo Batt in #cider"), answer.text
    # Jo's line mentions Bo and a plan, but it is Jo's plan: it is not cited as Bo's.
    assert "Jo Maya" not in answer.text, answer.text
    assert_citations_valid(answer, [funds, page])
