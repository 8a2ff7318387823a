"""A question that names a past time is answered from that time: a better-worded line from another month does not
lead, a timeline lists only the asked days, and a window that holds nothing on the topic is said so."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from briefing.ask.extractive import ExtractiveAnswer, ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk
from briefing.question.parse import parse
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, slack

NOW = datetime(2026, 5, 20, 9, 0, tzinfo=UTC)
# Yesterday's incident says what broke ("5xx", "pool"); of the question's words only "production".
YESTERDAY = slack(
    "slack:CINCIDENTS::19",
    "incidents",
    (
        "Tomás Herrera",
        "Production incident: payouts returned 5xx errors for twenty minutes after the pool filled up.",
        at(5, 19, 14),
    ),
    ("Sam Whitfield", "Rolled back the payout worker to 1.8.2; the errors stopped at 14:40.", at(5, 19, 15)),
)
# Last month's post-mortem is worded like the question.
LAST_MONTH = slack(
    "slack:CPLATENG::4",
    "platform-eng",
    ("Priya Raman", "What went wrong in production: the deploy broke production checkout for ten minutes.", at(4, 14)),
    ("Marcus Okafor", "Production went wrong because the migration locked the orders table.", at(4, 14, 11)),
)
CONTEXT = [LAST_MONTH, YESTERDAY]


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("window-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


# A day whose only message is about something else.
LUNCH = slack(
    "slack:CGENERAL::22", "general", ("Nadia Petrova", "Team lunch is at noon in the big room.", at(4, 22, 11))
)


def _ask(
    answerer: ExtractiveAnswerer, text: str, now: datetime = NOW, context: list[Chunk] = CONTEXT
) -> ExtractiveAnswer:
    answer = answerer.answer(parse(text, now=now), context)
    if not answer.no_answer:
        assert_citations_valid(answer, context)
    return answer


def test_yesterdays_incident_answers_over_a_better_worded_line_from_last_month(answerer: ExtractiveAnswerer) -> None:
    answer = _ask(answerer, "What went wrong in production yesterday?")
    assert not answer.no_answer, answer.text
    assert answer.cited and set(answer.cited[min(answer.cited)]) <= set(YESTERDAY.refs), answer.text
    assert "5xx" in answer.text and "checkout" not in answer.text, answer.text


def test_yesterdays_lines_answer_when_they_hold_none_of_the_questions_words(answerer: ExtractiveAnswerer) -> None:
    # "broke" is in last month's lines only; yesterday's incident, on the topic, still answers.
    answer = _ask(answerer, "What broke yesterday?")
    assert not answer.no_answer, answer.text
    assert all(set(refs) <= set(YESTERDAY.refs) for refs in answer.cited.values()), answer.text


def test_a_window_that_holds_nothing_on_the_topic_is_said_so(answerer: ExtractiveAnswerer) -> None:
    # Asked on 23 April: the day before holds only a lunch note; the lines of 14 April are not presented as its.
    asked = datetime(2026, 4, 23, 9, 0, tzinfo=UTC)
    answer = _ask(answerer, "What went wrong in production yesterday?", asked, [*CONTEXT, LUNCH])
    assert not answer.no_answer, answer.text
    assert answer.text.startswith("Nothing from yesterday; the closest, from Tue 14 Apr 2026:"), answer.text
    assert "lunch" not in answer.text, answer.text


def test_a_window_that_holds_nothing_at_all_is_refused_or_said_so(answerer: ExtractiveAnswerer) -> None:
    answer = _ask(answerer, "What went wrong in production yesterday?", datetime(2026, 4, 30, 9, 0, tzinfo=UTC))
    assert answer.no_answer or answer.text.startswith("Nothing from yesterday;"), answer.text


# This morning's line is newer than yesterday's but was not said yesterday.
THIS_MORNING = slack(
    "slack:CINCIDENTS::20",
    "incidents",
    ("Priya Raman", "Production is calm this morning; the payout worker runs 1.9.0 again.", at(5, 20, 8)),
)


def test_each_part_of_a_two_part_question_is_answered_from_the_asked_window(answerer: ExtractiveAnswerer) -> None:
    answer = _ask(answerer, "What broke production yesterday and who rolled it back?")
    assert not answer.no_answer and answer.cited, answer.text
    assert all(set(refs) <= set(YESTERDAY.refs) for refs in answer.cited.values()), answer.text
    assert "checkout" not in answer.text and "migration" not in answer.text, answer.text


def test_a_two_part_question_whose_window_holds_nothing_says_so(answerer: ExtractiveAnswerer) -> None:
    asked = datetime(2026, 4, 23, 9, 0, tzinfo=UTC)
    answer = _ask(answerer, "What broke production yesterday and who rolled it back?", asked, [*CONTEXT, LUNCH])
    assert answer.no_answer or answer.text.startswith("Nothing from yesterday; the closest, from"), answer.text
    assert "lunch" not in answer.text, answer.text


def test_the_newest_state_asked_of_a_past_day_is_that_days(answerer: ExtractiveAnswerer) -> None:
    context = [*CONTEXT, THIS_MORNING]
    answer = _ask(answerer, "What was the latest on production yesterday?", context=context)
    assert not answer.no_answer and answer.cited, answer.text
    assert set(answer.cited[min(answer.cited)]) <= set(YESTERDAY.refs), answer.text
    assert "this morning" not in answer.text.split("\n")[0], answer.text


def test_the_newest_state_of_a_window_that_holds_nothing_says_so(answerer: ExtractiveAnswerer) -> None:
    asked = datetime(2026, 4, 23, 9, 0, tzinfo=UTC)
    answer = _ask(answerer, "What was the latest on production yesterday?", asked, [*CONTEXT, LUNCH])
    assert answer.no_answer or answer.text.startswith("Nothing from yesterday; the closest, from"), answer.text
    assert "lunch" not in answer.text, answer.text
