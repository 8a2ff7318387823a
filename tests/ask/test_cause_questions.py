"""A cause question about a state change is answered by the line that gives the reason, not by the line that
records the change: "Why was the export ticket reopened?" quotes the comment saying why, on hand-built chunks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.question.answer_type import extra_of
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import LINE, at, slack
from tests.ask.parsed import parsed

TICKET = slack(
    "slack:CTRACKER::0",
    "tracker",
    ("jirabot", "PLAT-140 Parquet export ticket: status changed from Resolved to Reopened.", at(6, 8, 9, 0)),
    (
        "Lena Vogt",
        "I reopened the Parquet export ticket because the export still drops the footer on files over 2 GB.",
        at(6, 8, 9, 5),
    ),
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("cause-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=defaults.max_sentences, hedge_below=0.0)
    embedder.close()


def test_why_was_it_reopened_quotes_the_reason_first(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("Why was the Parquet export ticket reopened?"), [TICKET])
    assert not answer.no_answer
    first = LINE.match(answer.text.splitlines()[0])
    assert first is not None, answer.text
    assert first["attribution"].startswith("Lena Vogt"), answer.text
    assert "footer" in first["text"]


def test_a_status_question_still_reads_the_state_change(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("What is the status of the Parquet export ticket?"), [TICKET])
    assert answer.text.splitlines()[0].startswith("Reopened — jirabot in #tracker"), answer.text


@pytest.mark.parametrize(
    ("question", "cause"),
    [
        ("Why was the Parquet export ticket reopened?", True),
        ("What was the root cause of the payout outage?", True),
        ("Which tickets did Lena resolve last week?", False),
        ("Which pull request fixed the footer bug?", False),
    ],
)
def test_only_a_why_question_is_a_cause_question(question: str, cause: bool) -> None:
    # Which ticket was resolved, which PR fixed it: the record of the change is the answer there.
    assert extra_of(parsed(question))["asks_cause"] is cause
