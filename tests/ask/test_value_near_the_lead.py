"""A number or date question is answered only when a line close enough to lead the answer states the value: a price
stated far down the ranking, for another thing, does not make "Having a failover is okay too" an answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, slack
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("value-lead-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


TESTING = slack(
    "slack:CDB::0",
    "datomic",
    (
        "Frankie",
        "So let's say I have some code that uses the Datomic Cloud Solo topology and I want to test it locally",
        at(6, 1),
    ),
    ("Stu", "I would encourage you to try testing against Solo first", at(6, 1, 11)),
)
PRO_PRICE = slack(
    "slack:CDB::1",
    "datomic",
    (
        "dadair",
        "In the Datomic pricing model for Pro, it says $5000/yr for a system. Is a system one transactor?",
        at(6, 2),
    ),
    ("Tim", "That's my understanding, yes.", at(6, 2, 11)),
)


def test_a_price_only_far_below_the_best_line_is_no_answer(answerer: ExtractiveAnswerer) -> None:
    question = parsed("How much does a Datomic Cloud Solo system cost per month?", places=["datomic"])
    answer = answerer.answer(question, [TESTING, PRO_PRICE])
    assert answer.no_answer, answer.text
    assert "state no amount" in answer.text


def test_a_price_on_the_leading_line_answers(answerer: ExtractiveAnswerer) -> None:
    solo = slack(
        "slack:CDB::2",
        "datomic",
        ("Marshall", "A Datomic Cloud Solo system costs about $1 a day, so roughly $30 per month on AWS.", at(6, 3)),
    )
    question = parsed("How much does a Datomic Cloud Solo system cost per month?", places=["datomic"])
    answer = answerer.answer(question, [TESTING, PRO_PRICE, solo])
    assert not answer.no_answer, answer.text
    assert "$30 per month" in answer.text.splitlines()[0], answer.text
