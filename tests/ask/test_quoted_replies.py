"""A reply's quoted lines ("> ...") are not its author's words: a review that quotes the pull request's
description and then answers is quoted, cited and attributed for its own sentence only.

The pull request comes from the local GitHub server (the REST API's shapes), synced by the real connector,
normalised and chunked as ingest does; the answer stage then reads the chunks.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.asof import visible
from briefing.digest import text as digest_text
from briefing.model import Chunk, ChunkLimits
from briefing.textrules import own_words
from chunkers.github import chunk_issue
from connectors.email.mime import clean_body
from connectors.github.client import make_client
from connectors.github.connector import GithubConnector
from connectors.http import HttpLayer
from tests.ask.chunks import assert_citations_valid, lines
from tests.ask.lines import open_answerer
from tests.ask.parsed import parsed
from tests.fakes.github_server import FakeGitHub, load, serve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github"
TOKEN = "ghp_test_token"
DESCRIPTION = "Retries now back off exponentially from 200 ms, capped at 30 seconds per payout."
# The reviewer quotes the description, then answers it in her own words.
OWN = "Thirty seconds holds the ledger lock far too long; cap the backoff at two seconds and add a test for it."
REVIEW = f"> {DESCRIPTION}\n\n{OWN}"
NOW = datetime(2026, 6, 4, 12, 0, tzinfo=UTC)


def _repo() -> dict[str, Any]:
    """The fixture repository's pull request 12, its description and one review that quotes it."""
    repo = copy.deepcopy(load(FIXTURES)["acme/api"])
    repo["issues"] = [dict(i, body=DESCRIPTION) for i in repo["issues"] if i["number"] == 12]
    repo["pulls"]["12"]["body"] = DESCRIPTION
    repo["comments"] = {}
    repo["review_comments"] = {}
    repo["reviews"]["12"] = [dict(repo["reviews"]["12"][0], body=REVIEW)]
    return repo


@pytest.fixture(scope="module")
def chunks() -> list[Chunk]:
    with serve(FakeGitHub({"acme/api": _repo()}, token=TOKEN)) as fake:
        http = HttpLayer(
            source="gh", vendor="GitHub", base_url=fake.api, credentials="GITHUB_TOKEN", sleep=lambda s: None,
            clock=time.time,
        )  # fmt: skip
        conn = GithubConnector(
            make_client(fake.api, TOKEN, http=http, seconds_between_requests=0),
            repos=["acme/api"],
            name="gh",
            http=http,
        )
        records = [r for batch in conn.fetch(conn.initial_cursor()) for r in batch.records]
    documents = {d.key: d for d in conn.normalise(records).documents}
    roomy = ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000)
    # What a reader sees after the review: the chunks of the pull request's state as of then.
    out = [c for c in (visible(c, NOW) for c in chunk_issue(documents["github:acme/api#12"], limits=roomy)) if c]
    assert any(DESCRIPTION in c.text and OWN in c.text for c in out), "the index text keeps the review whole"
    return out


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    yield from open_answerer(tmp_path_factory.mktemp("quoted-home"))


def test_a_review_is_quoted_for_its_own_words_never_for_the_text_it_quotes(
    answerer: ExtractiveAnswerer, chunks: list[Chunk]
) -> None:
    answer = answerer.answer(parsed("Which backoff cap did the reviewer want instead?", now=NOW), chunks)
    assert not answer.no_answer, answer.text
    shown = lines(answer)
    reviewer = [m for m in shown if m["attribution"].startswith("ana-lima")]
    assert reviewer, answer.text
    assert any("two seconds" in m["text"] for m in reviewer), answer.text
    # Nothing the reviewer only quoted is shown as hers, and no sentence shows twice.
    assert not any("200 ms" in m["text"] or "per payout" in m["text"] for m in reviewer), answer.text
    texts = [re.sub(r"\W+", " ", m["text"]).strip() for m in shown]
    assert len(texts) == len(set(texts)), answer.text
    assert_citations_valid(answer, chunks)
    review_refs = {u.ref for c in chunks for u in c.units if OWN in u.text}
    assert any(answer.cited[int(m["n"])][0] in review_refs for m in reviewer), answer.cited


def test_quoted_lines_are_dropped_outside_code_and_a_briefing_line_reads_the_reply() -> None:
    reply = "> Did the nightly export finish?\n> It was slow yesterday.\nIt finished at 04:10 after the retry.\n"
    code = "```\n> SELECT 1;\n```"
    assert own_words(reply).strip() == "It finished at 04:10 after the retry."
    assert own_words(code) == code
    assert (
        own_words(">100 rows fail after the upgrade.\nSeen on 2.1 too.")
        == ">100 rows fail after the upgrade.\nSeen on 2.1 too."
    )
    # A briefing reads the reply for what it says: the answer, not the question it quotes.
    assert digest_text.best_sentence(reply)[0] == "It finished at 04:10 after the retry."
    assert not digest_text.is_question("> Did the nightly export finish?\nIt finished at 04:10.")
    assert digest_text.gist("> Did it finish?") == "Did it finish?"  # a message that only quotes still reads


def test_a_mail_reply_keeps_its_own_words_only() -> None:
    """The mail reader cuts top-posted history and keeps one quoted line above each inline answer; that line is
    the quoted author's, so the reply's own words are its answer alone."""
    inline = (
        "On Mon, 2 Sep 2019, Will Deacon wrote:\n> This patch moves the lock into the driver.\n"
        "> It also drops the old helper.\n\nWhy drop the helper? The mediatek driver still calls it.\n"
    )
    body = clean_body(inline)
    assert "> It also drops the old helper." in body
    assert own_words(body).strip() == "Why drop the helper? The mediatek driver still calls it."
    top = "Applied to arm/mediatek, thanks.\n\nOn Mon, 2 Sep 2019, Will wrote:\n> The series adds MT8183.\n"
    assert own_words(clean_body(top)) == "Applied to arm/mediatek, thanks."
