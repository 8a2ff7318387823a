"""eval/probe_topics.py: a conversation probe is asked again in its rarest words and the place it was in."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_topics(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_topics", "probe_threads")


def _probe(module: Any, question: str) -> Any:
    return module.Probe(
        "slack:C/1.0", question, datetime(2026, 1, 1, tzinfo=UTC), frozenset({"r2"}), frozenset({"r1"}),
        frozenset({"r1", "r2"}), "thread",
    )  # fmt: skip


def test_the_rarest_words_are_kept_in_the_question_order(probe_topics: Any) -> None:
    # Chunk counts by stem, as `content_words` gives them ("postgr", "blowup").
    spread = Counter({"stream": 3, "large": 40, "query": 30, "result": 9, "postgr": 5, "memory": 12, "without": 90})
    probe = _probe(probe_topics, "How do I stream large query results from Postgres without memory blowups?")
    asked = probe_topics.topic_question(probe, "#help", spread)
    assert asked == "What did the replies in #help say about stream results Postgres blowups?"


def test_the_templated_lead_in_is_not_a_topic(probe_topics: Any) -> None:
    probe = _probe(probe_topics, 'How was this resolved: "sync pods crash after the upgrade to 0.9"?')
    asked = probe_topics.topic_question(probe, "#help", Counter())
    assert asked is not None and "resolved" not in asked, asked
    assert probe_topics.topic_question(_probe(probe_topics, "Any idea why?"), "#help", Counter()) is None


def test_the_said_template_names_no_reply(probe_topics: Any) -> None:
    probe = _probe(probe_topics, "How do I stream large query results from Postgres?")
    asked = probe_topics.topic_question(probe, "#help", Counter(), "said")
    assert asked is not None and asked.startswith("What was said in #help about ") and "repl" not in asked, asked


def test_a_templated_ticket_or_mail_probe_keeps_only_what_it_asks_about(probe_topics: Any) -> None:
    spread = Counter({"scroll": 2, "textarea": 3, "tableview": 4, "inside": 50})
    ticket = _probe(probe_topics, "How was textarea scroll inside tableview resolved?")
    asked = probe_topics.topic_question(ticket, "TIMOB", spread, "said")
    assert asked == "What was said in TIMOB about textarea scroll inside tableview?"
    mail = _probe(probe_topics, "What did reviewers say about fix scroll inside tableview?")
    asked = probe_topics.topic_question(mail, "the list", spread, "said")
    assert asked is not None and "reviewers" not in asked and "say" not in asked.split(), asked
