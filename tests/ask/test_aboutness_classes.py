"""Which questions the subject cap holds to the conversation about their subject (`[answer] aboutness`).

"How do I rotate the billing webhook's API key?" asked before anyone wrote how to: the closest line is a ticket
about a failing export job that mentions the rotated key in passing. With "howto" among the capped classes the
question is refused as being about a different problem; once the how-to ticket exists it is answered from it. By
default only fix questions are capped (the other classes did not hold on the corpora that did not choose the
threshold, docs/answering.md "Refusal"), so the default answer is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
from pydantic import ValidationError

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.question.cues import aboutness_class
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, ticket_chunk
from tests.ask.parsed import parsed


def _ticket(key: str, title: str, *comments: tuple[str, str, datetime]) -> Chunk:
    made = [Unit(ref=f"jira:{key}#{n}", text=t, author=a, at=w) for n, (a, t, w) in enumerate(comments)]
    return ticket_chunk(key, title, made, "OPS")


EXPORT_401 = _ticket(
    "OPS-210",
    "Nightly export job fails with 401 Unauthorized",
    ("lena", "The nightly export job fails with 401 Unauthorized since Tuesday.", at(3, 1)),
    (
        "marco",
        "Someone rotated the billing webhook API key on Tuesday; the export job still read the old API key from its "
        "config. I pointed it at the secrets store, so it reads the current billing webhook API key now.",
        at(3, 2),
    ),
)
ROTATE_HOWTO = _ticket(
    "OPS-244",
    "How to rotate the API key of the billing webhook",
    ("priya", "The billing webhook's API key leaked in a screenshot; we need to rotate it.", at(4, 1)),
    (
        "marco",
        "To rotate the billing webhook API key, create a new key in the billing dashboard, store it with `ops secrets "
        "set billing-webhook`, then revoke the old one.",
        at(4, 2),
    ),
)
QUESTION = "How do I rotate the API key of the billing webhook?"


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Embedder]:
    made = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("aboutness-home"))
    yield made
    made.close()


def _answerer(embedder: Embedder, settings: AnswerSettings) -> ExtractiveAnswerer:
    return ExtractiveAnswerer(
        embedder,
        min_evidence=settings.min_evidence,
        max_sentences=settings.max_sentences,
        aboutness=settings.aboutness,
    )


def test_a_how_to_question_about_another_problem_is_refused_when_how_to_questions_are_capped(
    embedder: Embedder,
) -> None:
    answerer = _answerer(embedder, AnswerSettings.model_validate({"aboutness": ["fix", "howto"]}))
    refused = answerer.answer(parsed(QUESTION), [EXPORT_401], scope="jira")
    assert refused.no_answer
    assert "about a different problem" in refused.text
    assert "export job" not in refused.text
    answered = answerer.answer(parsed(QUESTION), [EXPORT_401, ROTATE_HOWTO], scope="jira")
    assert not answered.no_answer
    assert "OPS-244" in answered.text
    assert "create a new key in the billing dashboard" in answered.text


def test_by_default_only_fix_questions_are_held_to_their_subject(embedder: Embedder) -> None:
    answerer = _answerer(embedder, AnswerSettings())
    answer = answerer.answer(parsed(QUESTION), [EXPORT_401], scope="jira")
    assert not answer.no_answer
    assert "subject_miss" not in answer.features
    fix = answerer.answer(parsed("How was the leaked billing webhook API key fixed?"), [EXPORT_401], scope="jira")
    assert "lead_subject" in fix.features


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How was the export job failing with 401 resolved?", "fix"),
        ("What was done about the leaked API key?", "fix"),  # asks for what fixed it: a fix question
        ("How was the outage on Tuesday handled?", "outcome"),
        ("What happened with the staging migration?", "outcome"),
        ("How do I rotate the API key?", "howto"),
        ("How can the billing webhook's key be rotated?", "howto"),
        ("What was the feedback on the runtime PM patch?", "feedback"),
        ("What did reviewers say about the clock driver series?", "feedback"),
        ("What did reviewers say about Fix DSI transfers?", "fix"),
        ("What is the status of OPS-244?", ""),
        ("How many jobs failed on Tuesday?", ""),
    ],
)
def test_each_question_form_falls_in_its_class(question: str, expected: str) -> None:
    assert aboutness_class(question) == expected


def test_an_unknown_class_is_rejected_by_name() -> None:
    with pytest.raises(ValidationError, match="aboutness"):
        AnswerSettings.model_validate({"aboutness": ["fix", "gossip"]})


@pytest.mark.parametrize("question", ["How was OPS-210 resolved?", "Who resolved OPS-210?", "What fixed OPS-210?"])
def test_a_fix_question_that_names_its_ticket_by_key_is_not_held_to_its_wording(
    embedder: Embedder, question: str
) -> None:
    # A key names the conversation exactly, and "How was OPS-210 resolved?" shares no word with its title: the
    # subject cap, which compares the two, would call the ticket another problem.
    from briefing.question.parse import parse

    report, fix = EXPORT_401.units
    # As the JIRA chunker writes it: the description is the item's own unit (its ref is the key).
    ticket = ticket_chunk("OPS-210", EXPORT_401.title.split(": ", 1)[-1], [Unit("jira:OPS-210", report.text,
                          report.author, report.at), Unit("jira:OPS-210#comment-1", fix.text, fix.author, fix.at)],
                          "OPS")  # fmt: skip
    answer = _answerer(embedder, AnswerSettings()).answer(parse(question, now=at(5, 1)), [ticket])
    assert not answer.no_answer, answer.text
    assert {ref for refs in answer.cited.values() for ref in refs} <= {"jira:OPS-210", "jira:OPS-210#comment-1"}
