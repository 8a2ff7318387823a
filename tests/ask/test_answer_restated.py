"""A question that restates how a conversation opened is answered by that conversation's reply, not by a line of
another conversation that shares more of its words (a channel message, a remark elsewhere)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, first_line, slack, thread_part, ticket_chunk
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("restated-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


ROOT = at(2, 4, 9)
OPENING = "Does anyone know of some examples of implementing file download with ClojureScript in the browser?"
# Only the reply's part of the thread was retrieved; its header says what the thread opened with.
REPLY = thread_part(
    ROOT.timestamp(),
    1,
    "Anh Tran",
    OPENING,
    ("Satoshi", "I build a Blob from the response and click a hidden anchor with a download attribute.", at(2, 4, 10)),
)
CHANNEL = slack(
    "slack:CCLJS::0",
    "clojurescript",
    (
        "Mia Berg",
        "Some examples of implementing file download with ClojureScript in the browser never start the download.",
        at(2, 3, 15),
    ),
)


def test_the_thread_reply_leads_over_another_conversation(answerer: ExtractiveAnswerer) -> None:
    context = [CHANNEL, REPLY]
    answer = answerer.answer(parsed(OPENING), context)
    assert first_line(answer).startswith("- Satoshi in #help"), answer.text
    assert "hidden anchor" in first_line(answer)
    assert_citations_valid(answer, context)


def test_a_question_in_other_words_keeps_the_best_line(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("Which ClojureScript downloads never start in the browser?"), [CHANNEL, REPLY])
    assert first_line(answer).startswith("- Mia Berg in #clojurescript"), answer.text


SUMMARY = "TableView crashes when its window closes during a pending request"
TICKET = Chunk(
    chunk_id="jira:APP-25391::0",
    doc_key="jira:APP-25391",
    source_type="jira",
    kind="jira_issue",
    title=f"APP-25391: {SUMMARY}",
    text="Uriel Lizama: The app dies on Android after a data request.\nHans Knoechel: Pending requests are cancelled.",
    refs=["jira:APP-25391", "jira:APP-25391#comment-2"],
    start=at(3, 1, 9),
    end=at(3, 9, 9),
    authors=["Hans Knoechel", "Uriel Lizama"],
    container="APP",
    units=[
        Unit("jira:APP-25391", "The app dies on Android after a data request.", "Uriel Lizama", at(3, 1, 9)),
        Unit(
            "jira:APP-25391#comment-2",
            "Pending requests are now cancelled when the window goes away; PR merged for 7.4.0.",
            "Hans Knoechel",
            at(3, 9, 9),
        ),
    ],
)
REMARK = slack(
    "slack:CMOBILE::0",
    "mobile",
    ("Lena Vogel", f"Seen it too: the {SUMMARY} on 7.3.1.", at(3, 5, 12)),
)


def test_a_fix_question_naming_a_ticket_is_led_by_its_comment(answerer: ExtractiveAnswerer) -> None:
    context = [REMARK, TICKET]
    answer = answerer.answer(parsed(f"How was {SUMMARY} resolved?"), context)
    assert first_line(answer).startswith("- Hans Knoechel"), answer.text
    assert_citations_valid(answer, context)


def test_a_question_that_asks_no_fix_keeps_the_best_line(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed(f"Who else saw the {SUMMARY}?"), [REMARK, TICKET])
    assert "Lena Vogel in #mobile" in first_line(answer), answer.text
    assert "Hans Knoechel" not in first_line(answer)


ORIENTATION = "Window orientation should return the screen orientation in split-screen mode"
# Filed by the developer who then fixed it: his own comment links the pull request; QA's verification comes later.
OWN_FIX = ticket_chunk(
    "APP-25467",
    ORIENTATION,
    [
        Unit(
            "jira:APP-25467",
            "In split-screen mode the window orientation reports the device orientation, not the screen's.",
            "Joshua Quick",
            at(3, 1, 9),
        ),
        Unit(
            "jira:APP-25467#comment-1",
            "PR (master): https://github.com/example/app/pull/9585",
            "Joshua Quick",
            at(3, 4, 9),
        ),
        Unit(
            "jira:APP-25467#comment-2",
            "Changes to the split-screen orientation are seen in SDK 7.0.0.v20171114.",
            "Abir Mukherjee",
            at(3, 15, 9),
        ),
    ],
    "APP",
)


def test_the_openers_own_comment_stating_the_fix_leads_its_item(answerer: ExtractiveAnswerer) -> None:
    # Someone else's later comment is not the answer when the one who filed it linked the fix himself.
    answer = answerer.answer(parsed("What fixed the window orientation in split-screen mode?"), [OWN_FIX])
    assert first_line(answer).startswith("- Joshua Quick"), answer.text
    assert "pull/9585" in first_line(answer)
    assert_citations_valid(answer, [OWN_FIX])
