"""The answer line and the quotes, on hand-built chunks: the first line is a value of the shape the question asks
for, a quote shows the sentence of its own message that holds what was asked, and a holding reply is not quoted
when a line close to the best one says something.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.question.answer_type import answer_kind
from tests.ask.chunks import at, doc, slack
from tests.ask.lines import first_line, open_answerer
from tests.ask.parsed import parsed

BENCHMARK = doc(
    "blog/dms.md",
    "AWS DMS vs OLake Go",
    "anshika",
    at(6, 16),
    "In a published benchmark on just over 4 billion rows, OLake Go ran the full load about 4.6x faster than "
    "AWS DMS and cost roughly 38 % less on compute.",
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    yield from open_answerer(tmp_path_factory.mktemp("answer-spans-home"))


def test_a_factor_question_is_answered_by_the_factor_not_another_number(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, "By roughly what factor was OLake Go quicker in the published benchmark?", BENCHMARK)
    assert line.startswith("4.6x — ")


def test_a_percentage_question_is_answered_by_the_percentage(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, "In the published benchmark, what percentage did OLake Go save?", BENCHMARK)
    assert line.startswith("38 % — ")


def test_a_rate_question_without_a_rate_gets_no_number_line(answerer: ExtractiveAnswerer) -> None:
    # "4 billion rows" is a count, "4.6x" a factor: neither says how many rows a second.
    line = first_line(answerer, "How many rows per second did OLake Go load in the DMS benchmark?", BENCHMARK)
    assert line.startswith('- "AWS DMS vs OLake Go"')


def test_a_count_question_takes_the_number_of_the_counted_thing(answerer: ExtractiveAnswerer) -> None:
    postmortem = doc(
        "postmortems/inc-14.md",
        "Postmortem INC-14 > Impact",
        "Lena Vogt",
        at(5, 22),
        "Merchants could not create transfers: 3,912 failed transfer requests and 0 ledger discrepancies over "
        "22 minutes.",
    )
    line = first_line(answerer, "How many minutes could merchants not create transfers?", postmortem)
    assert line.startswith("22 minutes — ")


def test_a_time_of_day_an_identifier_or_a_products_number_is_not_a_quantity(answerer: ExtractiveAnswerer) -> None:
    notice = slack(
        "slack:CGENERAL::7",
        "general",
        (
            "Nadia Petrova",
            "Update: the ledger database on PostgreSQL 15 moves in a read-only window at 05:30 UTC (see #1035); "
            "it holds 1.9 TB.",
            at(5, 21),
        ),
    )
    line = first_line(answerer, "How big is the ledger database that is being moved?", notice)
    assert line.startswith("1.9 TB — ")


def test_a_moved_date_answers_with_the_date_it_moved_to(answerer: ExtractiveAnswerer) -> None:
    change = slack(
        "slack:CPLATENG::3",
        "platform-eng",
        ("Priya Raman", "Date change: the production cutover moves from Thu 28 May to Tue 9 June.", at(5, 21)),
    )
    line = first_line(answerer, "When is the production cutover scheduled?", change)
    assert line.startswith("9 June — ")


def test_who_in_a_relative_clause_does_not_make_a_person_question() -> None:
    assert answer_kind("In #contributing, which issues were offered to the newcomer who asked for #649?", "fact") == ""
    assert answer_kind("Who posts the release announcements?", "fact") == "person"
    assert answer_kind("Which engineer who joined in May owns billing?", "fact") == "person"


def test_a_yes_or_no_is_never_read_off_a_question(answerer: ExtractiveAnswerer) -> None:
    thread = slack(
        "slack:CHELP::9",
        "help",
        ("Sandeep", "Will moving a CDC job from 0.8.2 to 0.9.0 change the Iceberg tables created earlier?", at(8, 10)),
    )
    question = "Will moving a CDC job from 0.8.2 to 0.9.0 change Iceberg tables created earlier?"
    line = first_line(answerer, question, thread)
    assert not line.startswith(("Yes", "No"))


def test_a_quote_adds_the_sentence_of_its_message_that_holds_what_was_asked(answerer: ExtractiveAnswerer) -> None:
    reply = slack(
        "slack:CHELP::4",
        "help",
        (
            "Badal",
            "I get it, @Ruslan 1. Yes. Every full refresh first drops the iceberg table from the catalog, so the table "
            "is briefly unavailable for a short period of time while the new one is written. Another approach would "
            "be an append-only job for your table. But this would create duplicate rows for your cdc changes. For "
            "now you can dedup the rows in the query engine. 2. No, towards the write phase, we don't use Iceberg "
            "branches right now, we directly create the new snapshot on the main branch.",
            at(6, 1),
        ),
    )
    question = "During a full refresh, is the table briefly unavailable, and are Iceberg branches used?"
    answer = answerer.answer(parsed(question), [reply])
    assert "drops the iceberg table" in answer.text and "branches" in answer.text
    assert answer.cited == {1: [reply.refs[0]]}


def test_a_holding_reply_is_not_quoted_when_a_close_line_says_something(answerer: ExtractiveAnswerer) -> None:
    thread = slack(
        "slack:CHELP::5",
        "help",
        ("Avinash", "The cron jobs broke since yesterday, see the screenshot.", at(7, 5, 8)),
        ("shubham", "We will check why the Kafka ingestion jobs are failing with a missing logs directory.", at(7, 5)),
        (
            "Vishal",
            "The Kafka ingestion jobs were failing because the log cleanup TTL removed the logs directory; "
            "raise the TTL.",
            at(7, 5, 10),
        ),
    )
    answer = answerer.answer(
        parsed("Why were the Kafka ingestion jobs failing with a missing logs directory?"), [thread]
    )
    assert "log cleanup TTL" in answer.text
    assert "We will check" not in answer.text
    assert answer.cited == {1: [thread.refs[2]]}


def test_a_long_message_cut_before_the_asked_words_shows_the_part_that_holds_them(
    answerer: ExtractiveAnswerer,
) -> None:
    bullets = " ".join(f"• chore: bump dependency number {i} of the chart by @Schitiz in #{170 + i}" for i in range(6))
    release = slack(
        "slack:CANNOUNCE::2",
        "announcements",
        (
            "Nayan Joshi",
            f"OLake Helm v0.0.25 Released: Features & Fixes in this release: {bullets} • fix: the liveness and "
            "readiness probes no longer wrap their commands in a timeout",
            at(6, 29),
        ),
    )
    question = "What did the Helm chart release change about the liveness and readiness probes?"
    answer = answerer.answer(parsed(question), [release])
    assert "no longer wrap their commands in a timeout" in answer.text
    assert answer.cited == {1: [release.refs[0]]}


def test_who_posts_is_answered_by_the_author_not_someone_the_post_mentions(answerer: ExtractiveAnswerer) -> None:
    announcements = slack(
        "slack:CANNOUNCE::3",
        "announcements",
        ("Nayan Joshi", "OLake UI v0.4.6 released: the catalog test connection by @Arsalan Ahmed in #380.", at(6, 13)),
        ("Nayan Joshi", "OLake Go v0.9.0 released: version logging by @Vaibhav Verma in #1001.", at(7, 28)),
    )
    line = first_line(answerer, "Who posts the release announcements for the OLake components?", announcements)
    assert line.startswith("Nayan Joshi — ")


def test_a_plain_yes_needs_the_line_to_state_what_is_asked(answerer: ExtractiveAnswerer) -> None:
    # The line names the decision record but says nothing of it still holding: no confirmation is invented.
    names_it = slack(
        "slack:CPLAT::7",
        "platform",
        ("Lena", "ADR-0007 on connection pooling is linked from the runbook for the database team.", at(5, 10)),
    )
    line = first_line(answerer, "Is ADR-0007 on connection pooling still in force?", names_it)
    assert "Yes — " not in line and "No — " not in line and "ADR-0007" in line
    # A line that states the asked state answers it.
    states_it = slack(
        "slack:CPLAT::8",
        "platform",
        ("Lena", "ADR-0007 on connection pooling is still in force for the database team.", at(5, 10)),
    )
    assert "Yes — Lena" in first_line(answerer, "Is ADR-0007 on connection pooling still in force?", states_it)
