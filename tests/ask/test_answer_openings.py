"""A question that restates a help thread's opening question is answered by that thread's reply, not by a line of
another conversation that happens to score higher; within the thread, the earliest close reply answers the opening
and the later ones discuss it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, slack, thread_part
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("openings-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


ROOT = at(8, 4, 9)
OPENING = "Is running the OLake worker on serverless AWS containers like Fargate, without a Docker socket, supported?"
THREAD = [
    thread_part(ROOT.timestamp(), 0, "Vikas Singh", OPENING, ("Vikas Singh", OPENING, ROOT)),
    thread_part(
        ROOT.timestamp(),
        1,
        "Vikas Singh",
        OPENING,
        (
            "Saksham",
            "AWS Fargate is not officially supported for now, but we do support docker and helm, so you can try those.",
            at(8, 4, 11),
        ),
    ),
]
ELSEWHERE = slack(
    "slack:CGEN::0",
    "general",
    ("Nayan", "The OLake worker requires access to Docker images to fetch and run the connector images.", at(5, 21)),
)


def test_the_reply_of_the_thread_the_question_restates_leads(answerer: ExtractiveAnswerer) -> None:
    context = [*THREAD, ELSEWHERE]
    answer = answerer.answer(
        parsed("Is running the OLake worker on serverless AWS containers, without a Docker socket, supported?"), context
    )
    first = answer.text.splitlines()[0]
    assert first.startswith("- Saksham in #help"), answer.text
    assert "not officially supported" in first
    assert_citations_valid(answer, context)


def test_without_a_thread_that_asked_it_the_best_line_leads(answerer: ExtractiveAnswerer) -> None:
    # The same reply in a thread that opened with another question: one line among others.
    other = "How much memory does the OLake worker need for a full load?"
    reply = thread_part(ROOT.timestamp(), 1, "Vikas Singh", other, ("Saksham", THREAD[1].units[0].text, at(8, 4, 11)))
    answer = answerer.answer(
        parsed("Is running the OLake worker on serverless AWS containers, without a Docker socket, supported?"),
        [ELSEWHERE, reply],
    )
    assert answer.text.splitlines()[0].startswith("- Nayan in #general"), answer.text


ERRORS_ROOT = at(2, 5, 17)
ERRORS_OPENING = (
    "I've been reading about the officially recommended approach for handling expected errors. What does the core "
    "team suggest?"
)
ERRORS = [
    thread_part(ERRORS_ROOT.timestamp(), 0, "Dominic", ERRORS_OPENING, ("Dominic", ERRORS_OPENING, ERRORS_ROOT)),
    thread_part(
        ERRORS_ROOT.timestamp(),
        1,
        "Dominic",
        ERRORS_OPENING,
        (
            "didibus",
            "As far as I know, the core team recommends sticking to plain Java exceptions using ex-info and ex-data "
            "with try.",
            at(2, 5, 17, 41),
        ),
    ),
    thread_part(
        ERRORS_ROOT.timestamp(),
        2,
        "Dominic",
        ERRORS_OPENING,
        (
            "noisesmith",
            "my take is like didibus - if you add something other than exceptions for failure states you introduce "
            "one more kind of failure for surrounding code to handle, and error handling gets harder",
            at(2, 5, 18, 38),
        ),
    ),
]


def test_the_earliest_close_reply_of_the_thread_leads(answerer: ExtractiveAnswerer) -> None:
    question = parsed(
        "What approach to expected errors does the core team recommend, according to the discussion on error handling?"
    )
    answer = answerer.answer(question, ERRORS)
    first = answer.text.splitlines()[0]
    assert first.startswith("- didibus in #help"), answer.text
    assert "ex-info" in first
    assert_citations_valid(answer, ERRORS)
