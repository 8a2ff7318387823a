""" "What did Hans say about the ticket about the search bar?" quotes Hans's comment on that ticket: not the
ticket's own description (which says what the ticket is), nor his better-worded comment on a similar ticket; on
hand-built tickets."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.question.acts import said_on_item
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, first_quote, ticket_chunk
from tests.ask.parsed import parsed


def ticket(key: str, title: str, *units: tuple[str, str, datetime]) -> Chunk:
    """A ticket: its description (ref: the ticket's key) by its reporter, then its comments."""
    doc_key = f"jira:{key}"
    made = [
        Unit(ref=doc_key if i == 0 else f"{doc_key}#comment-{100 + i}", text=text, author=who, at=when)
        for i, (who, text, when) in enumerate(units)
    ]
    return ticket_chunk(key, title, made, "APP")


EXTENDS = ticket(
    "APP-12",
    "iOS: Search bar in absolute-positioned list view extends when focused",
    (
        "Vijay Singh",
        "When the search bar in an absolute-positioned list view is focused, the search bar extends over the "
        "whole list view.",
        at(10, 16, 9, 0),
    ),
    ("Hans Knöchel", "I can reproduce it on iOS 11 only; iOS 9 and iOS 10 keep the frame.", at(10, 17, 11, 0)),
    ("Vijay Singh", "It also happens with a table view, so the list view is not the cause.", at(10, 18, 8, 0)),
)
# The same person on a similar ticket, worded closer to the question than their comment on the one asked about.
POSITIONED = ticket(
    "APP-9",
    "iPhone X: Search bar in list view gets wrongly positioned",
    ("Ana Ruiz", "The search bar in the list view is placed at the wrong position on iPhone X.", at(9, 15, 9, 0)),
    (
        "Hans Knöchel",
        "The search bar in a list view extends when focused because iOS 11 resets the search bar frame.",
        at(9, 15, 12, 0),
    ),
)

# A pull request the same reviewer approved with a bare verdict, and commented on in words.
RETRIES = ticket(
    "APP-30",
    "Add retries to the export client",
    ("kim", "Retries the export client's requests with a backoff.", at(11, 2, 9, 0)),
    ("lee", "[2017-11-03 10:00] lee approved", at(11, 3, 10, 0)),
    ("lee", "Stop after five tries at most, or a dead server keeps everything waiting.", at(11, 3, 9, 0)),
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("said-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=defaults.max_sentences, hedge_below=0.0)
    embedder.close()


def test_what_a_person_said_about_a_ticket_is_their_comment_on_it_not_elsewhere(answerer: ExtractiveAnswerer) -> None:
    question = parsed(
        "What did Hans Knöchel say about the ticket about search bar in absolute-positioned list view extends when "
        "focused?",
        people=["Hans Knöchel"],
    )
    answer = answerer.answer(question, [POSITIONED, EXTENDS])
    assert not answer.no_answer
    who, text = first_quote(answer)
    assert who.startswith("Hans Knöchel") and "APP-12" in who and "iOS 11 only" in text, answer.text
    assert answer.cited[min(answer.cited)] == ["jira:APP-12#comment-101"], answer.text


def test_what_the_reporter_said_about_their_ticket_is_their_comment_not_the_description(
    answerer: ExtractiveAnswerer,
) -> None:
    question = parsed(
        "What did Vijay Singh say about the ticket about search bar in absolute-positioned list view extends when "
        "focused?",
        people=["Vijay Singh"],
    )
    answer = answerer.answer(question, [EXTENDS, POSITIONED])
    who, text = first_quote(answer)
    assert who.startswith("Vijay Singh") and "table view" in text, answer.text


def test_a_person_who_only_reported_the_ticket_is_quoted_from_its_description(answerer: ExtractiveAnswerer) -> None:
    question = parsed(
        "What did Ana Ruiz say about the ticket about search bar in list view gets wrongly positioned?",
        people=["Ana Ruiz"],
    )
    answer = answerer.answer(question, [POSITIONED, EXTENDS])
    who, text = first_quote(answer)
    assert who.startswith("Ana Ruiz") and "wrong position" in text, answer.text


@pytest.mark.parametrize("asked", ["What was Hans Knöchel's take on", "What were Hans Knöchel's comments on"])
def test_a_persons_take_on_a_ticket_is_their_comment_on_it(answerer: ExtractiveAnswerer, asked: str) -> None:
    question = parsed(
        f"{asked} the ticket about search bar in absolute-positioned list view extends when focused?",
        people=["Hans Knöchel"],
    )
    answer = answerer.answer(question, [POSITIONED, EXTENDS])
    who, _ = first_quote(answer)
    assert who.startswith("Hans Knöchel"), answer.text
    assert answer.cited[min(answer.cited)] == ["jira:APP-12#comment-101"], answer.text


def test_what_a_reviewer_said_is_their_words_not_their_bare_verdict(answerer: ExtractiveAnswerer) -> None:
    question = parsed("What did lee say about the ticket about add retries to the export client?", people=["lee"])
    answer = answerer.answer(question, [RETRIES, EXTENDS])
    who, text = first_quote(answer)
    assert who.startswith("lee") and "five tries" in text, answer.text


@pytest.mark.parametrize(
    ("question", "people", "said", "described"),
    [
        (
            "What did Hans say about the ticket about the search bar?",
            ["Hans"],
            ("Hans",),
            " the search bar?",
        ),
        ("What has Ana written on the PR that adds retries?", ["Ana"], ("Ana",), " adds retries?"),
        ("What was Hans's take on the ticket about the search bar?", ["Hans"], ("Hans",), " the search bar?"),
        ("What were Ana's comments on the PR that adds retries?", ["Ana"], ("Ana",), " adds retries?"),
        ("How did Hans weigh in on the ticket about the search bar?", ["Hans"], ("Hans",), " the search bar?"),
        ("What was Hans's ticket about?", ["Hans"], (), ""),
        ("What did Hans say about the search bar?", ["Hans"], (), ""),
        ("What did the team ask Ana about the ticket about exports?", ["Ana"], (), ""),
        ("Who did Hans assign the ticket about exports to?", ["Hans"], (), ""),
    ],
)
def test_the_person_whose_words_about_one_item_are_asked(
    question: str, people: list[str], said: tuple[str, ...], described: str
) -> None:
    assert said_on_item(parsed(question, people=people)) == (said, described)
