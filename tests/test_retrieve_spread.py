"""A long document does not fill the top k with sections that cite nothing new (real local Qdrant, bundled models).

Every section of a long post shares its title and topic words, so on a question that shares them the post took most
of the top 10 and pushed out the thread reply that answers it. Now a chunk that cites nothing its document's better
chunks in the top k do not already cite keeps a place only while its document has fewer than `PER_DOCUMENT` there
(`PER_TOP_DOCUMENT` for the best hit's document); the others follow the top k in order. A thread's or a channel log's
chunks each cite other messages, so they are not held back.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

import briefing.retrieve.spread as spread_module
from briefing.embed import Embedder
from briefing.index import Index
from briefing.model import Chunk, Unit
from briefing.question.constraints import extract
from briefing.retrieve import Hit, Retriever, SearchQuery, spread_documents
from briefing.settings import EmbeddingSettings, QdrantSettings, RetrievalSettings, Settings, WorkspaceSettings

NOW = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
T0 = datetime(2026, 7, 22, 10, 0, tzinfo=UTC)
POST = "file:blog/cdc-architecture.md"
TITLE = "Running the sync CLI as a long-lived CDC process"
SECTIONS = [
    "The sync CLI reads the change stream and writes Iceberg files; a long-lived CDC process keeps the stream open.",
    "Running the sync CLI as a long-lived CDC process: the process checkpoints its position after every batch.",
    "A long-lived CDC process of the sync CLI restarts from its checkpoint after a crash, so no change is lost.",
    "The sync CLI as a CDC process: batch size, flush interval and the long-lived process's memory settings.",
    "When the sync CLI runs as a long-lived CDC process, the stream's lag is a metric of the process.",
    "Architecture of the sync CLI: the reader, the long-lived CDC process, the writer and the Iceberg commit.",
]
QUESTION = "Can the sync CLI run as a long-lived CDC process, or does it exit after each run?"
ASKED = "Is there a daemon mode for the tool, or does it stop when it is done?"
REPLY = "Not yet: it stops after every run today, so schedule it every few minutes with cron or Airflow."


def _section(n: int, text: str) -> Chunk:
    return Chunk(
        chunk_id=f"{POST}::{n}",
        doc_key=POST,
        source_type="files",
        kind="document",
        title=TITLE,
        text=f"{TITLE} > Part {n}\n{text}",
        refs=[POST],
        start=T0,
        end=T0,
        container="blog",
        units=[Unit(POST, text, None, T0)],
    )


def _thread() -> Chunk:
    at = T0 + timedelta(days=5)
    asked = Unit("slack:CHELP:300.1", ASKED, "ravi", at)
    answer = Unit("slack:CHELP:300.2", REPLY, "dana", at + timedelta(minutes=20))
    return Chunk(
        chunk_id="slack:CHELP/300.1::0",
        doc_key="slack:CHELP/300.1",
        source_type="slack",
        kind="slack_thread",
        title="#help thread",
        text=f"[{at:%Y-%m-%d %H:%M} UTC] ravi: {asked.text}\n[{answer.at:%Y-%m-%d %H:%M} UTC] dana: {REPLY}",
        refs=[asked.ref, answer.ref],
        start=at,
        end=answer.at or at,
        authors=["ravi", "dana"],
        container="help",
        units=[asked, answer],
    )


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Retriever]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("models"))
    settings = Settings(
        workspace=WorkspaceSettings(name="unittest", timezone="UTC"),
        qdrant=QdrantSettings(path=tmp_path_factory.mktemp("qdrant")),
        sources={"s": {"type": "slack_export", "path": "x"}},
    )
    index = Index.open(settings)
    found = [_section(n, t) for n, t in enumerate(SECTIONS)] + [_thread()]
    texts = [c.text for c in found]
    index.ensure(embedder.dim, embedder.name)
    index.upsert(found, embedder.dense(texts), embedder.sparse(texts), embedder.name)
    yield Retriever(RetrievalSettings(), index, embedder)
    index.close()
    embedder.close()


def _top(retriever: Retriever, k: int) -> list[str]:
    constraints = extract(QUESTION, now=NOW)
    found = retriever.retrieve(SearchQuery(QUESTION, now=NOW, constraints=constraints, k=k))
    return [h.chunk.chunk_id for h in found.hits]


K = 5


@pytest.mark.slow
def test_the_reply_gets_a_place_beside_the_posts_best_sections(retriever: Retriever) -> None:
    top = _top(retriever, K)
    assert "slack:CHELP/300.1::0" in top
    # The post is the best hit's document: it keeps PER_TOP_DOCUMENT places, not all of them.
    assert top[0].startswith(POST)
    assert sum(1 for c in top if c.startswith(POST)) == spread_module.PER_TOP_DOCUMENT == K - 1


def test_without_the_cap_the_post_fills_the_top_k(retriever: Retriever, monkeypatch: pytest.MonkeyPatch) -> None:
    k = K
    monkeypatch.setattr(spread_module, "PER_DOCUMENT", 0)
    assert "slack:CHELP/300.1::0" not in _top(retriever, k)


def _hit(chunk_id: str, doc: str, refs: list[str], score: float) -> Hit:
    chunk = Chunk(
        chunk_id=chunk_id,
        doc_key=doc,
        source_type="files",
        kind="document",
        title=doc,
        text=chunk_id,
        refs=refs,
        start=T0,
        end=T0,
    )
    return Hit(chunk=chunk, score=score)


def test_chunks_that_cite_nothing_new_follow_the_top_k_in_order() -> None:
    ranked = [_hit(f"{POST}::{n}", POST, [POST], 1.0 - n / 100) for n in range(4)]
    ranked.insert(3, _hit("file:other.md::0", "file:other.md", ["file:other.md"], 0.9))
    out = [h.chunk.chunk_id for h in spread_documents(ranked, k=3, cap=2)]
    assert out == [f"{POST}::0", f"{POST}::1", "file:other.md::0", f"{POST}::2", f"{POST}::3"]


def test_the_best_documents_cap_is_its_own() -> None:
    other = "file:other.md"
    ranked = [_hit(f"{POST}::{n}", POST, [POST], 1.0 - n / 100) for n in range(3)]
    ranked += [_hit(f"{other}::{n}", other, [other], 0.9 - n / 100) for n in range(3)]
    ranked.append(_hit("file:third.md::0", "file:third.md", ["file:third.md"], 0.5))
    out = [h.chunk.chunk_id for h in spread_documents(ranked, k=5, cap=1, top_cap=3)]
    # The best hit's post keeps three places, the other file one; the third file takes the fifth.
    assert out == [
        f"{POST}::0",
        f"{POST}::1",
        f"{POST}::2",
        f"{other}::0",
        "file:third.md::0",
        f"{other}::1",
        f"{other}::2",
    ]


def test_chunks_that_bring_other_messages_keep_their_places() -> None:
    log = "slack:CANN"
    ranked = [_hit(f"{log}::{n}", log, [f"slack:CANN:{n}.1"], 1.0 - n / 100) for n in range(4)]
    out = spread_documents(ranked, k=4, cap=1)
    assert [h.chunk.chunk_id for h in out] == [f"{log}::{n}" for n in range(4)]


def test_the_answer_context_keeps_the_strongest_chunks(retriever: Retriever) -> None:
    # The hit list is spread over more documents; the answer stage reads the strongest chunks, as ranked before.
    constraints = extract(QUESTION, now=NOW)
    found = retriever.retrieve(SearchQuery(QUESTION, now=NOW, constraints=constraints, k=K))
    assert found.strongest is not None
    strongest = [h.chunk.chunk_id for h in found.strongest]
    assert all(c.startswith(POST) for c in strongest)  # the post's sections outrank the reply on this question
    assert "slack:CHELP/300.1::0" in [h.chunk.chunk_id for h in found.hits]
