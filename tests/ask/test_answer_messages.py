"""Answer composition, on hand-built chunks: a message is quoted as the message it is.

A long Slack message is cut across chunks; the quote of its first piece used to stop mid-sentence ("feat(mongodb):
capture full document on …") though the next chunk of the context held the rest. And the first line quoted one or
two sentences of a short message, leaving out the sentence after them (the workaround after the problem).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import WHOLE_MESSAGE, ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, slack
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("answer-messages-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=defaults.max_sentences, hedge_below=0.0)
    embedder.close()


RELEASE_HEAD = (
    ":rotating_light: OLake Go v0.7.4 Released :rotating_light: What's New • feat: add integration test cases for "
    "2pc by @Vaibhav Verma in #865 • fix: upgrade golang.org/x/crypto to v0.52.0 to patch 5 SSH vulnerabilities by "
    "@Vikash in #960 • feat: wire SIGINT/SIGTERM into root context for graceful shutdown by @jonathan in #946 • "
    "fix: retry the commit when the catalog times out by @Ankit in #951 • feat(mongodb): capture full document on"
)
RELEASE_TAIL = "delete via pre-images by @Vikash in #964. Thanks for the contribution!"


def _piece(ordinal: int, author: str, text: str, when_minute: int = 0) -> Chunk:
    # The chunk id numbers the chunk's place in the channel (`Chunk.ordinal`).
    return slack(f"slack:CANNOUNCE::{ordinal}", "announcements", (author, text, at(6, 1, 6, when_minute)))


def test_a_message_cut_across_chunks_is_quoted_on_into_the_next_piece(answerer: ExtractiveAnswerer) -> None:
    head = _piece(3, "Nayan Joshi", RELEASE_HEAD)
    tail = _piece(4, "Nayan Joshi", RELEASE_TAIL)
    answer = answerer.answer(parsed("What did the v0.7.4 release add for MongoDB?"), [head, tail])
    assert "capture full document on delete via pre-images" in " ".join(answer.text.split()), answer.text
    # One message, one citation.
    assert set(answer.cited) == {1} and answer.cited[1] == head.refs


def test_overlapping_chunks_do_not_repeat_the_message(answerer: ExtractiveAnswerer) -> None:
    head = _piece(3, "Nayan Joshi", RELEASE_HEAD)
    # The chunker repeated the end of the previous chunk at the start of this one.
    tail = _piece(4, "Nayan Joshi", f"feat(mongodb): capture full document on {RELEASE_TAIL}")
    answer = answerer.answer(parsed("What did the v0.7.4 release add for MongoDB?"), [head, tail])
    flat = " ".join(answer.text.split())
    assert flat.count("capture full document on") == 1 and "pre-images" in flat, answer.text


def test_the_next_chunk_of_another_message_is_not_appended(answerer: ExtractiveAnswerer) -> None:
    head = _piece(3, "Nayan Joshi", RELEASE_HEAD)
    other = _piece(4, "Vikash", "delete handling for MongoDB is next on my list, after the Kafka source.", 30)
    answer = answerer.answer(parsed("What did the v0.7.4 release add for MongoDB?"), [head, other])
    first = answer.text.splitlines()[0]
    assert "Kafka source" not in first, answer.text


FINDING = (
    "Hello everyone, I've been exploring olake lately and i found that the local postgres setup guide uses "
    "`host.docker.internal` as the host address. This works on Windows and macOS because Docker Desktop makes "
    "host.docker.internal available inside containers. On Linux, Docker doesn't provide this by default, so it "
    "didn't resolve on my machine. The workaround is to use the docker bridge ip as the host address, so the docs "
    "need an update."
)


def test_the_first_line_shows_a_short_message_whole(answerer: ExtractiveAnswerer) -> None:
    chunk = slack(
        "slack:CCONTRIB::5",
        "contributing",
        ("Karthik Balasubramanian", FINDING, at(7, 9)),
        ("Nayan Joshi", "Thanks Karthik, could you open a PR for the docs change? We will review it.", at(7, 9, 11)),
    )
    answer = answerer.answer(parsed("What did Karthik find wrong in the local Postgres setup guide on Linux?"), [chunk])
    first = answer.text.splitlines()[0]
    # The problem and, in the same message, the workaround, in the message's order.
    assert "host.docker.internal" in first and "docker bridge ip" in first, answer.text
    assert first.index("host.docker.internal") < first.index("docker bridge ip")


def test_a_long_message_is_still_cut(answerer: ExtractiveAnswerer) -> None:
    filler = " ".join(f"Step {i}: check the pod logs of the sync and the worker again." for i in range(1, 40))
    long_text = f"The sync crashes because the pod runs out of memory during the full load. {filler}"
    assert len(long_text) > WHOLE_MESSAGE
    chunk = slack("slack:CHELP::1", "help", ("shubham", long_text, at(7, 2)))
    answer = answerer.answer(parsed("Why does the sync crash during the full load?"), [chunk])
    assert len(answer.text.splitlines()[0]) < WHOLE_MESSAGE, answer.text


def _plan(ordinal: int, text: str) -> Chunk:
    ref = "file:planning/q3-plan.pdf"
    return Chunk(
        chunk_id=f"{ref}::{ordinal}",
        doc_key=ref,
        source_type="files",
        kind="document",
        title="Platform team: Q3 plan",
        text=text,
        refs=[ref],
        start=at(6, 12),
        end=at(6, 12),
        authors=["Nadia Petrova"],
        container="planning",
        units=[Unit(ref=ref, text=text, author="Nadia Petrova", at=at(6, 12))],
    )


def test_a_document_line_that_opens_a_list_at_its_chunk_end_shows_the_list(answerer: ExtractiveAnswerer) -> None:
    # The PDF's first chunk ends where its priority list begins; the list is the next chunk.
    head = _plan(
        0,
        "Platform team: Q3 plan (one-pager), draft of 12 June for the quarter planning kick-off. Where we are: the "
        "ledger database runs on Aurora since the cutover.\nQ3 priorities for the platform team\n1.",
    )
    rest = _plan(
        1,
        "Per-merchant rate limits on transfers (PLAT-124), owner Marcus. 2. Decommission the old database hosts "
        "(PLAT-128), owner Lena. 3. Statements performance, owner Aiko.",
    )
    other = slack("slack:CLUNCH::1", "random", ("Tomás", "Lunch on Friday is at the usual place.", at(6, 12)))
    answer = answerer.answer(parsed("What are the platform team's Q3 priorities?"), [head, other, rest])
    first = answer.text.splitlines()[0]
    assert "Q3 priorities" in first and "PLAT-124" in first and "PLAT-128" in first, answer.text
    assert answer.cited[1] == head.refs
