"""The answer's first line by the kind of value asked, on hand-built chunks: a duration for "how long", an amount
of money for a cost, the state a thing is in, a link or a path; each cited to the unit it was read from, with the
sentence after it. A sentence that states no value of the kind is quoted as it is, with no value invented.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.question.answer_type import extra_of
from tests.ask.chunks import LINE, at, doc, slack
from tests.ask.lines import first_line, open_answerer
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    yield from open_answerer(tmp_path_factory.mktemp("value-kinds-home"))


MIGRATION = slack(
    "slack:CPLATFORM::0",
    "platform",
    (
        "Tomás Herrera",
        "The initial bulk copy of the ledger data into Aurora ran for 18 h 40 min across 6 workers.",
        at(6, 2, 9),
    ),
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How long did the initial bulk copy run?", "duration"),
        ("How much did we spend on AWS in July?", "amount"),
        ("What is the current status of the export fix?", "status"),
        ("Where does the request to retire the legacy endpoint stand?", "status"),
        ("Which URL has the design document?", "link"),
        ("What path holds the replica promotion script?", "path"),
        ("How many workers ran the copy?", "number"),
        ("Is the export still failing?", "yesno"),
    ],
)
def test_the_question_names_the_kind_of_value_it_asks_for(question: str, kind: str) -> None:
    assert extra_of(parsed(question))["value_kind"] == kind


def test_a_how_long_question_is_answered_by_the_duration_not_another_number(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, "How long did the initial bulk copy of the ledger data run?", MIGRATION)
    assert line.startswith("18 h 40 min — Tomás Herrera in #platform")
    assert LINE.match(line) and line.endswith("[1]")


def test_a_status_question_is_answered_by_the_state_a_change_led_to(answerer: ExtractiveAnswerer) -> None:
    ticket = slack(
        "slack:CEXPORT::0",
        "exports",
        ("jirabot", "PLAT-88 Parquet export fix: status changed from In Progress to In Review.", at(6, 3, 11)),
    )
    line = first_line(answerer, "What is the status of the Parquet export fix?", ticket)
    assert line.startswith("In Review — jirabot in #exports")


def test_a_link_question_is_answered_by_the_address_and_a_path_question_by_the_path(
    answerer: ExtractiveAnswerer,
) -> None:
    page = doc(
        "runbooks/failover.md",
        "Failover runbook > Where things are",
        "Lena Vogt",
        at(5, 20),
        "The failover dashboard is at https://grafana.example.test/d/failover and the promotion script lives in "
        "ops/scripts/promote_replica.sh on the bastion host.",
    )
    assert first_line(answerer, "Which URL has the failover dashboard?", page).startswith(
        "https://grafana.example.test/d/failover — "
    )
    assert first_line(answerer, "What path holds the replica promotion script?", page).startswith(
        "ops/scripts/promote_replica.sh — "
    )


def test_a_cost_question_is_answered_by_the_amount_of_money(answerer: ExtractiveAnswerer) -> None:
    bill = slack(
        "slack:CFINOPS::0",
        "finops",
        ("Priya Raman", "The AWS bill for July came in at $14,200 across 40 nodes, mostly EC2.", at(8, 3, 9)),
    )
    assert first_line(answerer, "How much did we spend on AWS in July?", bill).startswith("$14,200 — ")


def test_a_sentence_without_a_value_of_the_kind_is_quoted_as_it_is(answerer: ExtractiveAnswerer) -> None:
    note = slack(
        "slack:CEXPORT::1",
        "exports",
        ("Tom Berg", "The Parquet export fix is waiting on the mobile team's sign-off.", at(6, 4, 10)),
    )
    line = first_line(answerer, "What is the status of the Parquet export fix?", note)
    assert line.startswith("- Tom Berg in #exports"), line


def test_how_long_ago_asks_when_and_a_hash_states_no_number(answerer: ExtractiveAnswerer) -> None:
    # "How long ago" is answered by the day it happened; the digits that open a commit hash are no quantity.
    assert extra_of(parsed("How long ago was v0.9.3 released?"))["span_kind"] == "time"
    release = slack(
        "slack:CRELEASES::0",
        "releases",
        ("releasebot", "Tag v0.9.3 at commit 795adb81415a, published 2026-08-18.", at(8, 18, 9)),
    )
    line = first_line(answerer, "How long ago was v0.9.3 released?", release)
    assert line.startswith("2026-08-18 — releasebot in #releases"), line
    count = slack(
        "slack:CRELEASES::1", "releases", ("releasebot", "Commit 795adb81415a changed 12 files.", at(8, 18, 9))
    )
    assert first_line(answerer, "How many files did commit 795adb81415a change?", count).startswith("12 files — ")
