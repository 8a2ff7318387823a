"""A question that asks what the replies, answers or responses said ("What did the replies in #help say about
...?", "..., according to the answers in #datomic?") is answered by a reply, never by the report they replied to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.question.cues import asks_fix
from tests.ask.chunks import help_thread
from tests.ask.lines import first_line, open_answerer


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    yield from open_answerer(Path(tmp_path_factory.mktemp("asked-replies-home")))


REPORT = "Hi, I got a request entity too large error when I create a job from the UI with a big stream config."
THREAD = help_thread(
    REPORT,
    REPORT,
    "That comes from the nginx proxy in front of the UI; raise client_max_body_size to 100m and reload it.",
)


def test_the_reply_answers_a_question_about_the_replies(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, "What did the replies in #help say about the error when creating a job?", *THREAD)
    assert line.startswith("- Omar Haddad in #help"), line


def test_a_question_about_the_error_keeps_the_report(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, "Which error did Priya get when creating a job from the UI?", *THREAD)
    assert line.startswith("- Priya Shah in #help"), line


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("How do you count a system for licensing, according to the answers in #datomic?", True),
        ("How did people respond? What were the responses to the outage report?", True),
        ("Which answer led the first weekly poll?", False),
    ],
)
def test_asking_for_the_replies_is_asking_for_the_fix(question: str, asks: bool) -> None:
    assert asks_fix(question) is asks
