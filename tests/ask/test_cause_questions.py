"""A cause question about a state change is answered by the line that gives the reason, not by the line that
records the change: "Why was the export ticket reopened?" quotes the comment saying why; "Why did X crash?" the
comment that states the cause, not the report or a reproduction of it; "What did P change to resolve X?" the comment
that states the change, not the one that says what did not resolve it; on hand-built chunks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.ask.extractive.acts import stated_cause_leads
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.question.answer_type import extra_of
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import LINE, assert_citations_valid, at, first_quote, slack, ticket_chunk
from tests.ask.parsed import parsed

TICKET = slack(
    "slack:CTRACKER::0",
    "tracker",
    ("jirabot", "PLAT-140 Parquet export ticket: status changed from Resolved to Reopened.", at(6, 8, 9, 0)),
    (
        "Lena Vogt",
        "I reopened the Parquet export ticket because the export still drops the footer on files over 2 GB.",
        at(6, 8, 9, 5),
    ),
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("cause-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=defaults.max_sentences, hedge_below=0.0)
    embedder.close()


def test_why_was_it_reopened_quotes_the_reason_first(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("Why was the Parquet export ticket reopened?"), [TICKET])
    assert not answer.no_answer
    first = LINE.match(answer.text.splitlines()[0])
    assert first is not None, answer.text
    assert first["attribution"].startswith("Lena Vogt"), answer.text
    assert "footer" in first["text"]


def test_a_status_question_still_reads_the_state_change(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("What is the status of the Parquet export ticket?"), [TICKET])
    assert answer.text.splitlines()[0].startswith("Reopened — jirabot in #tracker"), answer.text


@pytest.mark.parametrize(
    ("question", "cause"),
    [
        ("Why was the Parquet export ticket reopened?", True),
        ("How come the Parquet export ticket got reopened?", True),
        ("What was the root cause of the payout outage?", True),
        ("Which tickets did Lena resolve last week?", False),
        ("Which pull request fixed the footer bug?", False),
        ("What caused the payout outage?", True),
        ("What is causing the export timeouts?", True),
        ("What was behind the payout outage?", True),
        ("Which change caused the footer regression?", False),
        ("Who was behind the payout redesign?", False),
    ],
)
def test_only_a_why_question_is_a_cause_question(question: str, cause: bool) -> None:
    # Which ticket was resolved, which PR fixed it: the record of the change is the answer there.
    extra = extra_of(parsed(question))
    assert extra["asks_cause"] is cause
    if cause:  # answered by a reply, not by the report it replies to
        assert extra["asks_fix"], question


def _ticket(key: str, title: str, *units: tuple[str, str, str]) -> Chunk:
    """A ticket as a tracker's connector gives it: its description (the unit whose ref is the ticket's key), then
    its comments, an hour apart."""
    made = [
        Unit(f"jira:{key}{ref}", text, author, at(8, 29 + i // 3, 9 + i % 3))
        for i, (ref, author, text) in enumerate(units)
    ]
    return ticket_chunk(key, title, made, key.split("-")[0])


CRASH = _ticket(
    "APP-206",
    "Android: apps using the barcode module crash with SDK 6.2.0",
    ("", "Ewan Harris", "Apps using the barcode module crash on Android with SDK 6.2.0; the same code works in 6.1.2."),
    (
        "#comment-1",
        "Michael Gangolf",
        "I can reproduce it: the barcode module crashes on Android with SDK 6.2.0 and works with SDK 6.1.2.",
    ),
    ("#comment-2", "Hans Knoechel", "Caused by APP-20037, which removed getAppCurrentActivity from the core."),
    ("#comment-3", "Gary Mathews", "master: https://github.com/acme/app/pull/9371"),
)
SIGNING = _ticket(
    "APP-318",
    "iOS: Cannot build for devices with 6.2.0",
    ("", "Eric Wieber", "Device builds fail with 'No profile for team' code signing errors after updating to 6.2.0."),
    (
        "#comment-1",
        "Chris Barber",
        "In my tests, removing the team setting didn't resolve the code signing failures for device builds.",
    ),
    (
        "#comment-2",
        "Chris Barber",
        "I have enabled code signing for device builds and added validation of the provisioning profile's certs.",
    ),
)


def test_why_did_it_crash_quotes_the_comment_stating_the_cause(answerer: ExtractiveAnswerer) -> None:
    # The description and the reproduction say what happened, in the question's words; the cause is stated once.
    answer = answerer.answer(
        parsed("Why did apps using the barcode module crash on Android with SDK 6.2.0 when 6.1.2 worked?"), [CRASH]
    )
    who, text = first_quote(answer)
    assert who.startswith("Hans Knoechel"), answer.text
    assert "APP-20037" in text
    assert_citations_valid(answer, [CRASH])


@pytest.mark.parametrize(
    "question",
    [
        "What caused the barcode module crash on Android with SDK 6.2.0?",
        "What was behind the barcode module crash on Android with SDK 6.2.0?",
        "How come the barcode module crashed on Android with SDK 6.2.0?",
    ],
)
def test_what_caused_it_is_asked_the_same_way(answerer: ExtractiveAnswerer, question: str) -> None:
    # A cause asked in other words ("what was behind", "how come") is led by the comment stating it as well.
    answer = answerer.answer(parsed(question), [CRASH])
    assert first_quote(answer)[0].startswith("Hans Knoechel"), answer.text


def test_what_did_they_change_quotes_the_change_not_what_did_not_work(answerer: ExtractiveAnswerer) -> None:
    question = parsed("What did Chris Barber change to resolve the code signing failures for device builds?")
    answer = answerer.answer(question, [SIGNING])
    who, text = first_quote(answer)
    assert who.startswith("Chris Barber"), answer.text
    assert text.startswith("I have enabled code signing"), answer.text


def test_what_the_ticket_reports_is_still_the_report(answerer: ExtractiveAnswerer) -> None:
    # Not a cause or fix question: the statement of the cause does not lead it.
    answer = answerer.answer(parsed("What was reported about the barcode module on Android?"), [CRASH])
    assert not first_quote(answer)[0].startswith("Hans Knoechel"), answer.text


def test_a_later_part_does_not_ask_for_the_fix_its_first_part_asked(answerer: ExtractiveAnswerer) -> None:
    # "..., and what does it now require?" is scored with the first part's topic words ("fixed" among them), but it
    # asks what the change requires, not what fixed the failures: a comment stating the fix does not lead it.
    question = parsed("What fixed the code signing failures, and what does it now require?")
    second = extra_of(question)["part_readings"][1].as_scored(question)
    assert "fixed" in second.text
    for asked, lifted in ((question, True), (second, False)):
        evidence = answerer.candidates([SIGNING])
        for ev in evidence:
            ev.score = 0.2 if ev.text.startswith("I have enabled") else 0.5
        stated_cause_leads(asked, evidence)
        change = next(ev for ev in evidence if ev.text.startswith("I have enabled"))
        assert (change.score > 0.5) is lifted
