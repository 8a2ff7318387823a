"""One day convention in a workspace outside UTC: a day a line names ("on 5 March", "2026-03-05") is that calendar
day in the workspace's zone, like the day a question names; a line's own time is an instant, placed on the
workspace's day it fell on."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from briefing.ask.extractive import ExtractiveAnswer, ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.question.parse import parse
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, slack, ticket_chunk

ZONE = "America/Los_Angeles"
# 6 March, 09:00 in Los Angeles: "yesterday" is 5 March there, 08:00 UTC on the 5th to 08:00 UTC on the 6th.
MORNING_AFTER = datetime(2026, 3, 6, 17, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("zone-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(
        embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences, timezone=ZONE
    )
    embedder.close()


def _ask(answerer: ExtractiveAnswerer, text: str, now: datetime, context: list[Chunk]) -> ExtractiveAnswer:
    answer = answerer.answer(parse(text, now=now, timezone=ZONE), context)
    if not answer.no_answer:
        assert_citations_valid(answer, context)
    return answer


def test_a_line_naming_the_asked_day_answers_for_that_local_day(answerer: ExtractiveAnswerer) -> None:
    # Said on 2 March about 5 March: in Los Angeles "5 March" is the day asked about as "yesterday" on the 6th.
    plan = slack(
        "slack:CPAYMENTS::2",
        "payments",
        ("Priya Raman", "The payout migration runs on 5 March; the rollback plan is in the runbook.", at(3, 2, 18)),
    )
    answer = _ask(answerer, "What did the team say about the payout migration yesterday?", MORNING_AFTER, [plan])
    assert not answer.no_answer, answer.text
    assert not answer.text.startswith("Nothing from"), answer.text
    assert "payout migration runs on 5 March" in answer.text, answer.text


def test_a_line_naming_the_next_day_is_not_the_asked_days(answerer: ExtractiveAnswerer) -> None:
    # Asked on 5 March about 4 March (Los Angeles): a line about the cutover "on 5 March" does not name 4 March,
    # although midnight UTC starting the 5th is still the 4th in Los Angeles.
    plan = slack(
        "slack:CPAYMENTS::1",
        "payments",
        ("Priya Raman", "The payout cutover is on 5 March, after the freeze lifts.", at(3, 1, 18)),
    )
    asked = datetime(2026, 3, 5, 17, 0, tzinfo=UTC)
    answer = _ask(answerer, "What did the team say about the payout cutover yesterday?", asked, [plan])
    # Refused (the day holds nothing), or answered as another day's line: never presented as 4 March's.
    assert answer.no_answer or answer.text.startswith("Nothing from yesterday; the closest, from Sun 1 Mar"), (
        answer.text
    )


def test_a_line_stated_on_the_local_evening_before_is_that_days_not_the_next(answerer: ExtractiveAnswerer) -> None:
    # 03:00 UTC on 5 March is 19:00 on 4 March in Los Angeles: a line from 4 March, dated so, and not from 5 March.
    evening = slack(
        "slack:CPAYMENTS::4",
        "payments",
        (
            "Sam Whitfield",
            "Payout worker restarted after the queue backed up.",
            datetime(2026, 3, 5, 3, 0, tzinfo=UTC),
        ),
    )
    asked = datetime(2026, 3, 10, 17, 0, tzinfo=UTC)
    on_4th = _ask(answerer, "What did the team say about the payout worker on 4 March?", asked, [evening])
    assert not on_4th.no_answer and not on_4th.text.startswith("Nothing from"), on_4th.text
    assert "Wed 4 Mar" in on_4th.text and "Payout worker restarted" in on_4th.text, on_4th.text
    on_5th = _ask(answerer, "What did the team say about the payout worker on 5 March?", asked, [evening])
    assert on_5th.no_answer or on_5th.text.startswith("Nothing from 5 March; the closest, from Wed 4 Mar"), on_5th.text


def test_a_tickets_state_rows_do_not_move_an_evening_update_onto_the_next_day(answerer: ExtractiveAnswerer) -> None:
    # Resolved on the evening of 4 March in Los Angeles (03:00 UTC on the 5th): the state's rows say "2026-03-05",
    # the UTC day ingest writes. Asked about 5 March, the ticket is not presented as that day's.
    evening = datetime(2026, 3, 5, 3, 0, tzinfo=UTC)
    ticket = ticket_chunk(
        "PAY-7",
        "Payout worker stalls when the queue backs up",
        [
            Unit("jira:PAY-7", "The payout worker stalls when the queue backs up.", "Sam Whitfield", at(3, 2)),
            Unit(
                "jira:PAY-7",
                "Status: Resolved | Resolution: Fixed | Components: payout worker\n"
                "Created: 2026-03-02 | Updated: 2026-03-05 | Resolved: 2026-03-05",
                None,
                evening,
            ),
        ],
        "PAY",
    )
    asked = datetime(2026, 3, 10, 17, 0, tzinfo=UTC)
    answer = _ask(answerer, "What did the team say about the payout worker stalls on 5 March?", asked, [ticket])
    assert answer.no_answer or answer.text.startswith("Nothing from 5 March; the closest, from"), answer.text


def test_a_ticket_comment_is_named_on_its_local_day(answerer: ExtractiveAnswerer) -> None:
    # A tracker's comments are instants too: 03:00 UTC on 5 March is named Wed 4 Mar in Los Angeles.
    evening = datetime(2026, 3, 5, 3, 0, tzinfo=UTC)
    ticket = ticket_chunk(
        "PAY-8",
        "Payout worker restarts",
        [Unit("jira:PAY-8?focusedCommentId=1", "Payout worker restarted after the queue backed up.", "Sam", evening)],
        "PAY",
    )
    asked = datetime(2026, 3, 10, 17, 0, tzinfo=UTC)
    answer = _ask(answerer, "What did the team say about the payout worker on 4 March?", asked, [ticket])
    assert not answer.no_answer and not answer.text.startswith("Nothing from"), answer.text
    assert "Wed 4 Mar" in answer.text and "Thu 5 Mar" not in answer.text, answer.text
