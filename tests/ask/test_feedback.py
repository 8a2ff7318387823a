"""Questions about the feedback on a post: the replies answer them, not the post, which shares their words."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Unit
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, lines, ticket_chunk
from tests.ask.parsed import parsed

KEY = "PLAT-120"
PROPOSAL = ticket_chunk(
    KEY,
    "Move the settlement report to a daily Parquet export",
    [
        Unit(
            ref=f"jira:{KEY}",
            text="Proposal: move the settlement report to a daily Parquet export so finance can query it directly.",
            author="Dana Kim",
            at=at(6, 1, 9),
        ),
        Unit(
            ref=f"jira:{KEY}#comment-1",
            text="Finance would rather keep CSV for a quarter; their spreadsheets cannot open the new files yet.",
            author="Sam Roy",
            at=at(6, 2, 9),
        ),
    ],
    "PLAT",
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("feedback-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


@pytest.mark.parametrize(
    "question",
    [
        "What was the feedback on moving the settlement report to a daily Parquet export?",
        "What did reviewers say about the daily Parquet export of the settlement report?",
        "How did people react to moving the settlement report to a daily Parquet export?",
        "What were the reactions to moving the settlement report to a daily Parquet export?",
        "Did anyone reply to the proposal to move the settlement report to a daily Parquet export?",
    ],
)
def test_the_feedback_on_a_post_is_led_by_a_reply(answerer: ExtractiveAnswerer, question: str) -> None:
    answer = answerer.answer(parsed(question), [PROPOSAL])
    assert not answer.no_answer, answer.text
    assert lines(answer)[0]["text"].startswith("Finance would rather keep CSV"), answer.text
    assert_citations_valid(answer, [PROPOSAL])


def test_what_a_proposal_says_is_still_answered_by_the_proposal(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("What does the proposal for the settlement report say?"), [PROPOSAL])
    assert lines(answer)[0]["text"].startswith("Proposal: move the settlement report"), answer.text
