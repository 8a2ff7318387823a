"""How an issue was resolved is what someone other than its reporter said: the issue's record, its description and
its reporter's later comments state the problem; a bare close notice says only that it was closed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.question.parse import wants
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, first_line
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("reporter-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


KEY = "github:acme/ledger#412"
TITLE = "Payout export drops rows with a null currency"


def _issue(*units: Unit) -> Chunk:
    return Chunk(
        chunk_id=f"{KEY}::0",
        doc_key=KEY,
        source_type="github",
        kind="issue",
        title=f"acme/ledger#412: {TITLE}",
        text="\n".join(f"{u.author}: {u.text}" for u in units),
        refs=[u.ref for u in units],
        start=units[0].at or at(1, 1),
        end=units[-1].at or at(1, 1),
        authors=sorted({u.author for u in units if u.author}),
        container="acme/ledger",
        units=list(units),
    )


RECORD = Unit(
    KEY,
    f'Issue #412 "{TITLE}" authored by mira, opened 2026-03-02, closed 2026-03-06 by tomas | state: closed',
    "mira",
    at(3, 2, 9),
)
DESCRIPTION = Unit(
    KEY,
    "The payout export drops every row whose currency is null, so the monthly payout totals come out short.",
    "mira",
    at(3, 2, 9),
)
REPORTER_AGAIN = Unit(
    f"{KEY}/comment-1",
    "[2026-03-03 10:00] mira: Still seeing the payout export drop the null currency rows on the nightly run.",
    "mira",
    at(3, 3, 10),
)
FIX = Unit(
    f"{KEY}/comment-2",
    "[2026-03-05 16:20] tomas: The exporter now falls back to the account's default currency instead of skipping "
    "the row; shipped in 2.8.1.",
    "tomas",
    at(3, 5, 16),
)
CLOSING = Unit(f"{KEY}/comment-3", "[2026-03-06 09:00] tomas: Closing.", "tomas", at(3, 6, 9))
ISSUE = [_issue(RECORD, DESCRIPTION, REPORTER_AGAIN, FIX, CLOSING)]


@pytest.mark.parametrize(
    "question",
    [
        "How was the payout export dropping rows with a null currency resolved?",
        "What was done about the payout export dropping rows with a null currency?",
        "What is the fix for payout export drops rows with a null currency?",
        # The reporter's later comment words it best: it still reports, it does not answer.
        "How was the payout export dropping the null currency rows on the nightly run resolved?",
    ],
)
def test_how_it_was_resolved_is_led_by_the_maintainers_reply(answerer: ExtractiveAnswerer, question: str) -> None:
    answer = answerer.answer(parsed(question), ISSUE)
    lead = first_line(answer)
    assert "default currency" in lead, answer.text
    assert lead.startswith("- tomas"), answer.text
    assert answer.cited[1] == [FIX.ref], "the reply is cited [1]"
    assert_citations_valid(answer, ISSUE)


def test_what_was_reported_is_still_the_description(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed(f"What was reported in the issue about {TITLE.lower()}?"), ISSUE)
    assert first_line(answer).startswith("- mira"), answer.text


def test_a_how_question_is_not_a_status_question() -> None:
    assert "fields" not in wants(parsed("How was the export bug resolved?")).kinds
    assert "fields" in wants(parsed("Was the export bug resolved?")).kinds


PSK_KEY = "github:acme/ledger#578"
PSK_TITLE = "Uniqueness of PSK proposals within a commit"
PSK = [
    Chunk(
        chunk_id=f"{PSK_KEY}::0",
        doc_key=PSK_KEY,
        source_type="github",
        kind="issue",
        title=f"acme/ledger#578: {PSK_TITLE}",
        text="",
        refs=[PSK_KEY, f"{PSK_KEY}/comment-1"],
        start=at(2, 4, 9),
        end=at(2, 7, 20),
        authors=["sam", "tomleavy"],
        container="acme/ledger",
        units=[
            Unit(
                PSK_KEY, f'Issue #578 "{PSK_TITLE}" authored by tomleavy, opened 2026-02-04 | state: closed', "tomleavy"
            ),
            Unit(
                PSK_KEY,
                "Should multiple PSK proposals within a commit be able to reference the same PSK id?",
                "tomleavy",
                at(2, 4, 9),
            ),
            Unit(
                f"{PSK_KEY}/comment-1",
                "[2026-02-07 20:39] sam: I agree, duplicates are an error. Committer MUST NOT include duplicate PSK "
                "proposals; receivers MUST reject a commit with duplicates. @tomleavy - Please send a PR!",
                "sam",
                at(2, 7, 20),
            ),
        ],
    )
]


@pytest.mark.parametrize("ask", ["Please send a PR!", "Can you send a PR?", "Could you please send a patch for it?"])
def test_a_reply_that_decides_and_asks_for_a_pull_request_is_not_a_holding_reply(
    answerer: ExtractiveAnswerer, ask: str
) -> None:
    reply = PSK[0].units[-1]
    asking = replace(reply, text=reply.text.replace("Please send a PR!", ask))
    chunk = replace(PSK[0], units=[*PSK[0].units[:-1], asking])
    answer = answerer.answer(parsed(f"How was {PSK_TITLE.lower()} resolved?"), [chunk])
    assert first_line(answer).startswith("- sam"), answer.text
    assert "duplicates are an error" in first_line(answer)
