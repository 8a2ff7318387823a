"""The refusal's value-shape check: a question that asks for an amount of money, the version of a named
product, or a rate is refused when none of its best sentences states one, and answered when one does.

Before this check these near misses were answered with high confidence: every word of "Which Debezium version
was the MySQL user running?" is in OLake's release notes, which state OLake's own versions, not Debezium's.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.question.answer_type import answer_type
from briefing.question.shape import value_asked
from briefing.service import Brief, parse_now
from briefing.settings import AnswerSettings, EmbeddingSettings, load_settings
from tests.ask.chunks import at, doc, slack
from tests.ask.parsed import parsed
from tests.conftest import SampleIndex

NOW = parse_now("2026-06-15T09:00:00+00:00")

RELEASE = doc(
    "release/v0.9.3.md",
    "OLake Go v0.9.3 > What's new",
    "nayan",
    at(8, 18),
    "OLake Go v0.9.3 is out. MySQL CDC now reads binlog row metadata and resumes after a restart.",
    "The Debezium-compatible event format keeps the MySQL user's existing consumers working.",
)
MYSQL_USER = slack(
    "slack:CHELP::7",
    "help",
    ("Ravi", "Before trying OLake CDC our MySQL user was running Debezium 2.5.4 against the replica.", at(8, 2, 10)),
    ("Nayan", "Thanks, that explains the offsets you saw.", at(8, 2, 11)),
)
BENCHMARK = doc(
    "blog/dms-benchmark.md",
    "OLake Go vs AWS DMS > Results",
    "priya",
    at(6, 16),
    "OLake Go ran the full load about 4.6x faster than AWS DMS and cost roughly 4.6x less on compute.",
    "The CDC test pushed 50 million change records across the two tables.",
)
BENCHMARK_NUMBERS = doc(
    "blog/dms-benchmark-numbers.md",
    "OLake Go vs AWS DMS > Numbers",
    "priya",
    at(6, 16),
    "One full-load run of AWS DMS cost $41.20 in the benchmark, and OLake Go sustained 46,000 rows/sec during CDC.",
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("value-refusals-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


def test_a_version_of_another_product_is_not_answered_by_our_own_versions(answerer: ExtractiveAnswerer) -> None:
    question = "Which Debezium version was the MySQL user running before trying OLake CDC?"
    answer = answerer.answer(parsed(question), [RELEASE], scope="files, slack")
    assert answer.no_answer and answer.cited == {}
    assert "state no version" in answer.text
    assert "v0.9.3" not in answer.text


def test_the_same_version_question_is_answered_when_the_product_version_is_stated(
    answerer: ExtractiveAnswerer,
) -> None:
    question = "Which Debezium version was the MySQL user running before trying OLake CDC?"
    answer = answerer.answer(parsed(question), [RELEASE, MYSQL_USER], scope="files, slack")
    assert not answer.no_answer
    assert "2.5.4" in answer.text
    assert answer.features["value_miss"] == 0.0


def test_a_dollar_cost_is_not_answered_by_a_cost_factor(answerer: ExtractiveAnswerer) -> None:
    question = "What was the dollar cost of one AWS DMS full-load run in the benchmark?"
    answer = answerer.answer(parsed(question), [BENCHMARK], scope="files")
    assert answer.no_answer and "state no amount" in answer.text
    answered = answerer.answer(parsed(question), [BENCHMARK, BENCHMARK_NUMBERS], scope="files")
    assert not answered.no_answer and "$41.20" in answered.text


def test_a_rate_is_not_answered_by_a_speed_up_factor(answerer: ExtractiveAnswerer) -> None:
    question = "How many rows per second did OLake Go sustain during the CDC test?"
    answer = answerer.answer(parsed(question), [BENCHMARK], scope="files")
    assert answer.no_answer and "state no rate" in answer.text
    answered = answerer.answer(parsed(question), [BENCHMARK, BENCHMARK_NUMBERS], scope="files")
    assert not answered.no_answer and "46,000" in answered.text


def test_a_question_that_asks_no_value_shape_is_not_judged_by_the_check(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(
        parsed("Why did OLake Go cost less than AWS DMS in the benchmark?"), [BENCHMARK], scope="files"
    )
    assert answer.features["value_miss"] == 0.0
    assert not answer.no_answer


FOOTER = slack(
    "slack:CHELP::9",
    "help",
    ("Anirudh", "The sync fails reading one Parquet file: the footer is about 106 MB.", at(5, 12, 9)),
    ("Nayan", "The failure is caused by oversized Parquet footer metadata.", at(5, 12, 10)),
)
FOOTER_ISSUE = slack(
    "slack:CHELP::10",
    "help",
    ("Nayan", "We opened GitHub issue #1142 to track the oversized Parquet footer problem.", at(5, 13, 10)),
)


def test_an_issue_number_question_needs_an_issue_number(answerer: ExtractiveAnswerer) -> None:
    question = "Which GitHub issue number tracks the oversized Parquet footer problem?"
    answer = answerer.answer(parsed(question), [FOOTER], scope="slack")
    assert answer.no_answer and "state no issue or PR number" in answer.text
    answered = answerer.answer(parsed(question), [FOOTER, FOOTER_ISSUE], scope="slack")
    assert not answered.no_answer and "#1142" in answered.text


@pytest.mark.slow
def test_a_version_refusal_names_the_product_no_source_mentions(use_sample: SampleIndex) -> None:
    # Over the sample workspace (which never mentions ZooKeeper) the refusal names the word, as the vocabulary
    # check did before, rather than only "state no version".
    with Brief(load_settings(use_sample.config)) as brief:
        result = brief.ask("Which ZooKeeper version does the ledger database use?", now=NOW, k=10).to_json()
    assert result["no_answer"] is True
    assert "no indexed source mentions 'zookeeper'" in result["answer"]


def test_a_product_named_with_a_bare_major_version_states_its_version(answerer: ExtractiveAnswerer) -> None:
    support = slack(
        "slack:CHELP::11",
        "help",
        ("Nayan", "OLake Go supports Postgres 12 or later as a CDC source, through logical replication.", at(7, 1)),
    )
    answer = answerer.answer(
        parsed("Which Postgres version does OLake Go support as a CDC source?"), [support], scope="slack"
    )
    assert not answer.no_answer and answer.features["value_miss"] == 0.0
    assert "12" in answer.text


@pytest.mark.parametrize(
    ("question", "shape"),
    [
        ("What was the dollar cost of one full-load run?", "amount"),
        ("What is the salary range for the opening?", "amount"),
        # The money or rate word is not the thing asked for: a model, optimisations, a strategy.
        ("What pricing model does OLake use?", ""),
        ("Which cost optimisations did the team make?", ""),
        ("What rate limiting strategy does the API use?", ""),
        ("What was the error rate of the ledger-api?", "rate"),
        ("Which Debezium version was the user running?", "version"),
        ("Which GitHub issue number tracks the footer problem?", "reference"),
        ("Why did the cost go up in July?", ""),
    ],
)
def test_the_value_shape_a_question_asks_for(question: str, shape: str) -> None:
    assert value_asked(question, answer_type(question, "fact")) == shape


def test_a_budget_stated_as_a_count_answers_a_budget_question(answerer: ExtractiveAnswerer) -> None:
    # Not every budget is money: "a budget of 40 nodes" states the budget asked for.
    scaling = doc(
        "docs/autoscaling.md",
        "Cluster autoscaling",
        "ops",
        at(7, 1),
        "The Karpenter autoscaler for the staging cluster got a budget of 40 nodes; production keeps the node groups.",
    )
    answer = answerer.answer(
        parsed("Which budget did the Karpenter autoscaler get for the staging cluster?"), [scaling]
    )
    assert not answer.no_answer and answer.features["value_miss"] == 0.0
    assert "40 nodes" in answer.text
