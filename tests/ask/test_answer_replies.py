"""In a channel conversation the reply that answers is cited, not the question asked beside it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, lines, slack
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("replies-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


def test_the_reply_is_cited_not_the_question_beside_it(answerer: ExtractiveAnswerer) -> None:
    """The question in the channel shares nearly every word with the one asked; the next message, by someone else,
    answers it in other words. The answer quotes and cites that reply alone."""
    question = "Where can I find the staging logs of the payout worker?"
    reply = "They are shipped to the ops bucket under payout/, one file per run, kept for two weeks."
    chunk = slack(
        "slack:CPLATFORM::4",
        "platform",
        ("Ana Lima", question, at(6, 3, 9, 0)),
        ("Ben Okoro", reply, at(6, 3, 9, 4)),
        ("Ana Lima", "Thanks!", at(6, 3, 9, 5)),
    )
    answer = answerer.answer(parsed("Where are the staging logs of the payout worker kept?"), [chunk])
    assert not answer.no_answer, answer.text
    first = lines(answer)[0]
    assert first["attribution"].startswith("Ben Okoro"), answer.text
    assert "ops bucket" in first["text"]
    cited = [ref for refs in answer.cited.values() for ref in refs]
    assert cited == [chunk.units[1].ref], answer.text
    assert_citations_valid(answer, [chunk])


def test_a_reply_whose_code_holds_a_question_mark_still_answers(answerer: ExtractiveAnswerer) -> None:
    """A "?" in code (a SQL placeholder) does not make the reply a question: it answers the question before it and
    leads, as a reply in words would."""
    reply = "`java.jdbc` takes positional parameters: `SELECT * FROM pay WHERE pay_day = ? AND kind = ?` with a vector."
    chunk = slack(
        "slack:CSQL::2",
        "sql",
        ("Ana Lima", "How do I run a java.jdbc query with named parameters like :day?", at(6, 3, 9, 0)),
        ("Ben Okoro", reply, at(6, 3, 9, 3)),
    )
    answer = answerer.answer(parsed("How do I run a java.jdbc query with named parameters like :day?"), [chunk])
    assert not answer.no_answer, answer.text
    assert lines(answer)[0]["attribution"].startswith("Ben Okoro"), answer.text
    assert_citations_valid(answer, [chunk])
