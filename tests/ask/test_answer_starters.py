"""The one who asked does not answer: a help thread's opening question, restated by the question, gives way to the
thread's reply; for a fix question, a ticket's description gives way to the comment that answered it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, first_line, thread_part
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("starters-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


ROOT = at(2, 4, 9)
OPENING = "Does anyone know of some examples of implementing file download with ClojureScript in the browser?"
THREAD = [
    thread_part(ROOT.timestamp(), 0, "Anh Tran", OPENING, ("Anh Tran", OPENING, ROOT)),
    thread_part(
        ROOT.timestamp(),
        1,
        "Anh Tran",
        OPENING,
        (
            "Satoshi",
            "I build a Blob from the response and click a hidden anchor with a download attribute.",
            at(2, 4, 10),
        ),
    ),
]


def test_the_reply_leads_when_the_question_restates_the_opening(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed(OPENING), THREAD)
    assert first_line(answer).startswith("- Satoshi in #help"), answer.text
    assert "hidden anchor" in first_line(answer)
    assert_citations_valid(answer, THREAD)


def test_what_was_asked_is_still_answered_by_the_opening(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("What did Anh ask about file download with ClojureScript?"), THREAD)
    assert first_line(answer).startswith("- Anh Tran in #help"), answer.text


def _ticket(*units: Unit) -> Chunk:
    return Chunk(
        chunk_id="jira:APP-25391::0",
        doc_key="jira:APP-25391",
        source_type="jira",
        kind="jira_issue",
        title="APP-25391: TableView crashes when its window closes during a pending request",
        text="\n".join(f"{u.author}: {u.text}" for u in units),
        refs=[u.ref for u in units],
        start=units[0].at or at(1, 1),
        end=units[-1].at or at(1, 1),
        authors=sorted({u.author for u in units if u.author}),
        container="APP",
        units=list(units),
    )


TICKET = _ticket(
    Unit(
        "jira:APP-25391",
        "The TableView crashes when its window closes while a data request is still pending.",
        "Uriel Lizama",
        at(3, 1, 9),
    ),
    Unit(
        "jira:APP-25391#comment-2",
        "The pending requests are now cancelled when the window closes; PR merged for 7.4.0.",
        "Hans Knoechel",
        at(3, 9, 9),
    ),
)


def test_a_fix_question_is_answered_by_the_comment_not_the_description(answerer: ExtractiveAnswerer) -> None:
    question = parsed("How was the TableView crash when its window closes during a pending request resolved?")
    answer = answerer.answer(question, [TICKET])
    assert first_line(answer).startswith("- Hans Knoechel"), answer.text
    assert_citations_valid(answer, [TICKET])


def test_what_the_ticket_reports_is_still_its_description(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("What does the TableView crash ticket report?"), [TICKET])
    assert first_line(answer).startswith("- Uriel Lizama"), answer.text
