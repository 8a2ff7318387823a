"""The answer first: the value asked for leads (a setting, a number, the newest version, a person, a date, yes or
no), and each part of a two-part question gets its line."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import CONTEXT, RELEASES, SETTINGS_DOC, assert_citations_valid, at, first_line, slack
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("extractive-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


def test_a_setting_question_leads_with_the_setting(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(
        parsed("Under which table property does the writer keep its commit progress?"), [SETTINGS_DOC]
    )
    assert first_line(answer).startswith("olake_2pc — "), answer.text
    assert_citations_valid(answer, [SETTINGS_DOC])


def test_a_number_question_leads_with_the_number_near_its_words(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("How long is the first pause before a failed chunk is retried?"), [SETTINGS_DOC])
    assert first_line(answer).startswith("60 seconds — "), answer.text


def test_a_latest_state_question_takes_the_newest_statement_and_says_when(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("What is the newest OLake Go version?", intent="latest"), [RELEASES])
    head = first_line(answer)
    assert head.startswith("As of Wed 12 Aug 2026: v0.9.3 — Nayan Joshi in #releases"), answer.text
    assert answer.cited[1] == [RELEASES.units[1].ref]


def tag(version: str, when: datetime) -> Chunk:
    ref = f"github:datazip-inc/olake@release:{version}"
    text = f"Tag {version} at commit 2b1f68a95b46."
    return Chunk(
        chunk_id=f"{ref}::0",
        doc_key=ref,
        source_type="github",
        kind="github_issue",
        title=f"datazip-inc/olake release {version}",
        text=text,
        refs=[ref],
        start=when,
        end=when,
        container="datazip-inc/olake",
        units=[Unit(ref=ref, text=text, author=None, at=when)],
    )


ANNOUNCED = slack(
    "slack:CANNOUNCE::0",
    "announcements",
    ("Nayan Joshi", "OLake Go v0.9.3 Released! Release notes for OLake Go: faster full loads.", at(8, 20, 6)),
    ("Nayan Joshi", "OLake Go v0.9.0 Released! Release notes for OLake Go: version logged on startup.", at(7, 28, 9)),
)


def test_the_most_recent_tag_is_the_newest_value_stated_not_the_best_worded_line(answerer: ExtractiveAnswerer) -> None:
    # The newest tag reads "Tag v0.9.4 at commit ..."; the announcement of the tag before it matches the question's
    # words better. A tag's values are versions, though the question does not say "version".
    context = [tag("v0.9.4", at(8, 21, 8)), ANNOUNCED]
    answer = answerer.answer(
        parsed("What is the most recent OLake Go tag?", intent="latest", now=at(8, 22, 9)), context
    )
    assert first_line(answer).startswith("As of Fri 21 Aug 2026: v0.9.4 — "), answer.text
    assert answer.cited[1] == ["github:datazip-inc/olake@release:v0.9.4"]


def test_the_latest_state_is_as_of_the_questions_now(answerer: ExtractiveAnswerer) -> None:
    # Asked on 15 Aug, the v0.9.3 message of 20 Aug has not been stated yet.
    context = [ANNOUNCED, RELEASES]
    answer = answerer.answer(parsed("What is the newest OLake Go version?", intent="latest", now=at(8, 15, 9)), context)
    assert first_line(answer).startswith("As of Wed 12 Aug 2026: v0.9.3 — Nayan Joshi in #releases"), answer.text
    assert ANNOUNCED.units[0].ref not in {r for refs in answer.cited.values() for r in refs}


def test_a_state_record_speaks_for_the_last_day_it_states(answerer: ExtractiveAnswerer) -> None:
    """A pull request's record is stamped with the day it was opened; the state it states ("merged 2022-06-03") is
    as of the day it was merged, and the answer says so, not "as of" the day it was opened."""
    opened = datetime(2022, 5, 29, 9, tzinfo=UTC)
    said = 'PR #706 "Clean up struct names" authored by ana, opened 2022-05-29, merged 2022-06-03 by bo | state: merged'
    key = "github:proto/proto#706"
    record = Chunk(
        chunk_id=f"{key}::0",
        doc_key=key,
        source_type="github",
        kind="github_issue",
        title="proto/proto#706: Clean up struct names",
        text=said,
        refs=[key],
        start=opened,
        end=opened,
        authors=["ana"],
        container="proto/proto",
        units=[Unit(ref=key, text=said, author="ana", at=opened)],
    )
    question = parsed(
        "What is the latest on the struct names clean-up?", intent="latest", now=datetime(2022, 7, 1, tzinfo=UTC)
    )
    answer = answerer.answer(question, [record])
    assert not answer.no_answer, answer.text
    assert first_line(answer).startswith("As of Fri 3 Jun 2022:"), answer.text


def test_the_newest_release_of_a_named_product_is_its_own_not_another_products(answerer: ExtractiveAnswerer) -> None:
    # Three products announce releases in one channel; the newest announcement is of another product.
    announcements = slack(
        "slack:CANNOUNCE::1",
        "announcements",
        ("Nayan Joshi", "OLake Workers v0.3.9 Released! Workers now retry failed uploads.", at(6, 22, 9)),
        ("Nayan Joshi", "OLake UI v0.4.7 Released! Bulk edit for table configurations.", at(6, 22, 10)),
        ("Nayan Joshi", "OLake Helm v0.0.24 Released! The job service account is enabled by default.", at(6, 24, 9)),
    )
    asked = parsed("What is the newest OLake Workers release?", intent="latest", now=at(6, 30, 9))
    answer = answerer.answer(asked, [announcements])
    assert first_line(answer).startswith("As of Mon 22 Jun 2026: v0.3.9 — "), answer.text
    assert answer.cited[1] == [announcements.units[0].ref]


def test_a_who_question_leads_with_the_person(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("Who raised the PgBouncer pool size during the outage?", intent="who"), CONTEXT)
    assert first_line(answer).startswith("Lena Vogt — "), answer.text


def test_a_who_question_reads_a_first_name_as_the_person_who_has_it(answerer: ExtractiveAnswerer) -> None:
    rota = slack(
        "slack:CPLAT::30",
        "platform-eng",
        ("Priya Raman", "On-call rota: week of 15 June, on call: Lena (swapped; originally Tomás).", at(6, 12, 9)),
        ("Lena Vogt", "Confirmed, I have the pager from Monday.", at(6, 12, 10)),
        ("Tomás Herrera", "Thanks!", at(6, 12, 11)),
    )
    answer = answerer.answer(parsed("Who is on call for the week of 15 June?", intent="who"), [rota])
    # The line's writer is not the answer; the first name it gives is, by the full name its owner posts under.
    assert first_line(answer).startswith("Lena Vogt — Priya Raman in #platform-eng"), answer.text
    # A first name after "with" is the other party: the one who wrote "I am on call" is.
    swap = slack(
        "slack:CPLAT::31",
        "platform-eng",
        ("Tomás Herrera", "On call this week (swapped with Lena). Cutover tomorrow at 05:30.", at(6, 8, 9)),
        ("Lena Vogt", "Thanks for taking it.", at(6, 8, 10)),
    )
    answer = answerer.answer(parsed("Who covered on-call for the week starting 8 June?", intent="who"), [swap])
    assert first_line(answer).startswith("Tomás Herrera — Tomás Herrera in #platform-eng"), answer.text


def test_a_when_question_leads_with_the_date(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("When was OLake Go v0.9.2 released?", intent="when"), [RELEASES])
    assert first_line(answer).startswith("Mon 20 Jul 2026 (the date of the message) — "), answer.text


def test_a_yes_no_question_leads_with_yes_or_no(answerer: ExtractiveAnswerer) -> None:
    worker = slack(
        "slack:CHELP::9",
        "help",
        ("Ravi Kumar", "Can the worker run on ECS Fargate without a Docker socket?", at(7, 3, 9)),
        ("Hana Ito", "Running the worker on Fargate without a Docker socket is not supported; use Helm.", at(7, 3, 10)),
    )
    answer = answerer.answer(parsed("Is running the worker on Fargate without a Docker socket supported?"), [worker])
    assert first_line(answer).startswith("No — Hana Ito in #help"), answer.text


def test_a_no_about_something_else_does_not_deny_the_question(answerer: ExtractiveAnswerer) -> None:
    # "no merchant impact" is about the impact; the line confirms the move the question asks about.
    moved = slack(
        "slack:CGEN::4",
        "general",
        (
            "Ruth Adeyemi",
            "Congratulations: the ledger database moved to Aurora this morning with no merchant impact.",
            at(6, 9, 9),
        ),
    )
    answer = answerer.answer(parsed("Is the ledger database on Aurora?"), [moved])
    assert first_line(answer).startswith("Yes — Ruth Adeyemi in #general"), answer.text
    still = slack(
        "slack:CGEN::5",
        "general",
        ("Ruth Adeyemi", "The ledger database is not on Aurora yet: the cutover moved to Tuesday.", at(6, 8, 9)),
    )
    answer = answerer.answer(parsed("Is the ledger database on Aurora?"), [still])
    assert first_line(answer).startswith("No — Ruth Adeyemi in #general"), answer.text


def test_each_part_of_a_two_part_question_is_answered(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(
        parsed("Who raised the pool size during the outage, and how many transfer requests failed?"), CONTEXT
    )
    rows = answer.text.splitlines()
    assert rows[0].startswith("Who raised the pool size during the outage: Lena Vogt — Lena Vogt in #incidents")
    assert rows[1].startswith("How many transfer requests failed: 3,912 transfer requests — "), answer.text
    assert_citations_valid(answer, CONTEXT)


def test_a_part_the_sources_do_not_cover_is_named(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(
        parsed("How many transfer requests failed, and which Kafka topic did the retries go to?"), CONTEXT
    )
    assert not answer.no_answer
    assert "Which Kafka topic did the retries go to: the sources do not say." in answer.text.splitlines(), answer.text
    assert "3,912" in answer.text


def test_each_part_of_a_question_after_a_statement_is_about_what_the_statement_names(
    answerer: ExtractiveAnswerer,
) -> None:
    fusion = slack(
        "slack:CANNOUNCE::2",
        "announcements",
        ("Nayan Joshi", "OLake Fusion v0.2.0 Released! Compaction runs on a schedule of your choice.", at(8, 21, 9)),
    )
    asked = parsed(
        "We run OLake Go in production. What is its newest version, and what does that release bring?",
        intent="latest",
        now=at(8, 22, 9),
    )
    answer = answerer.answer(asked, [ANNOUNCED, fusion])
    assert first_line(answer).startswith("What is its newest version: v0.9.3 — "), answer.text
    assert "Fusion" not in first_line(answer)
