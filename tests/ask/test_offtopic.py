"""Off-topic questions: a question about something the workspace never talks about is refused, naming
the words no source holds, even where the linear confidence alone would have answered or hedged it; an on-topic
paraphrase with words the sources do not use is still answered."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import off_topic
from briefing.service import Brief, parse_now
from briefing.settings import load_settings
from tests.conftest import SampleIndex

pytestmark = pytest.mark.slow
NOW = parse_now("2026-06-15T09:00:00+00:00")


@pytest.fixture
def sample(use_sample: SampleIndex) -> Iterator[Brief]:
    with Brief(load_settings(use_sample.config)) as opened:
        yield opened


@pytest.mark.parametrize(
    ("question", "named"),
    [
        # Each was answered before (confidence 0.66, 0.70, 0.49) from #random's small talk about plants and walks.
        ("How often should tomato plants be watered in summer?", ["'tomato'"]),
        ("What dog breed is best for a small apartment?", ["'breed'"]),
        ("How do I repot an orchid without damaging the roots?", ["'repot'", "'orchid'", "'damaging'"]),
    ],
)
def test_an_off_topic_question_is_refused_naming_its_words(sample: Brief, question: str, named: list[str]) -> None:
    result = sample.ask(question, now=NOW, k=10).to_json(trace=True)
    assert result["no_answer"] is True
    assert result["citations"] == []
    assert result["answer"].startswith("The sources do not cover this")
    assert "no indexed source mentions" in result["answer"]
    for word in named:
        assert word in result["answer"]
    assert result["trace"]["features"]["off_topic"] == 1.0


@pytest.mark.parametrize(
    "question",
    [
        # "coordinated" is in no sample document; the incident thread names who ran the response.
        "Who coordinated the response to the 19 May outage?",
        # Half its topic words ("drove", "switchover") are in no document (they say "cutover"), yet it is answered.
        "Who drove the production switchover to Aurora?",
    ],
)
def test_an_on_topic_paraphrase_with_unknown_words_is_still_answered(sample: Brief, question: str) -> None:
    result = sample.ask(question, now=parse_now("2026-06-15T09:00:00+00:00"), k=10).to_json(trace=True)
    assert result["no_answer"] is False
    assert result["citations"]
    assert result["trace"]["features"]["off_topic"] == 0.0


def test_without_the_workspace_vocabulary_nothing_is_called_off_topic() -> None:
    # An answerer built without an index has no topic-word counts: the rule must not fire on a low similarity.
    assert not off_topic({"best_dense": 0.05})
    assert off_topic({"best_dense": 0.1, "topic_n": 4.0, "topic_absent": 2.0, "topic_rare": 2.0})
    assert not off_topic({"best_dense": 0.1, "topic_n": 4.0, "topic_absent": 1.0, "topic_rare": 1.0})
