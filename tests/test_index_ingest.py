"""Ingest throughput rules: per-item vectors only where a topic split can use them, bounded embedding batches."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from briefing.embed import Embedder
from briefing.ingest import item_vectors
from briefing.model import Document, Item
from briefing.settings import EmbeddingSettings, Settings

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


class CountingEmbedder(Embedder):
    """The real embedder's interface with deterministic vectors, counting what it is asked to embed."""

    def __init__(self) -> None:
        super().__init__(EmbeddingSettings(), Path("."))
        self.embedded: list[str] = []

    def dense_cached(self, texts: Sequence[str], *, max_chars: int = 2000) -> np.ndarray:
        self.embedded.extend(texts)
        return np.ones((len(texts), 4), dtype=np.float32) / 2

    def close(self) -> None:
        pass


def _doc(key: str, kind: str, n: int) -> Document:
    items = [
        Item(
            ref=f"{key}#{i}",
            source_type="slack",
            kind="message",
            text=f"{key} message {i}",
            occurred_at=T0 + timedelta(minutes=i),
        )  # fmt: skip
        for i in range(n)
    ]
    return Document(key=key, kind=kind, source_type="slack", title=key, items=items)


def test_only_documents_that_can_split_on_topic_get_item_vectors() -> None:
    embedder = CountingEmbedder()
    docs = [_doc("lone", "slack_thread", 1), _doc("pair", "slack_thread", 2), _doc("page", "file", 3)]
    vectors: dict[str, Any] = item_vectors(docs, embedder)
    # One message cannot shift topic; a file page is not a topic-split kind.
    assert sorted(vectors) == ["pair#0", "pair#1"]
    assert embedder.embedded == ["pair message 0", "pair message 1"]


def test_embedding_batches_default_to_eight() -> None:
    assert Settings().embedding.batch_size == 8


class TopicEmbedder(Embedder):
    """The real embedder and its on-disk vector cache, with a model whose vector is the message's topic word."""

    TOPICS = {"pool": [1.0, 0.0, 0.0], "release": [0.0, 1.0, 0.0], "hiring": [0.0, 0.0, 1.0]}

    def __init__(self, home: Path) -> None:
        super().__init__(EmbeddingSettings(), home)
        self.embedded: list[str] = []

    def dense(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.embedded.extend(texts)
        return np.asarray([self.TOPICS[t.split()[0]] for t in texts], dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def _conversations(seed: int) -> list[Document]:
    """Channels and threads with bursts, long silences, topic changes and long messages (size closes)."""
    import random

    rng = random.Random(seed)
    docs = []
    for d in range(6):
        at, topic, items = T0, "pool", []
        for i in range(rng.randint(1, 40)):
            at += timedelta(hours=5) if rng.random() < 0.15 else timedelta(minutes=rng.randint(1, 30))
            topic = rng.choice(list(TopicEmbedder.TOPICS)) if rng.random() < 0.25 else topic
            words = " ".join(["detail"] * rng.choice([3, 8, 40, 120]))
            items.append(
                Item(ref=f"d{d}#{i}", source_type="slack", kind="message", text=f"{topic} {words} {i}", occurred_at=at)
            )
        kind = "slack_thread" if d % 2 else "slack_channel"
        docs.append(Document(key=f"slack:d{d}", kind=kind, source_type="slack", title=f"d{d}", items=items))
    return docs


def test_topic_vectors_only_where_a_boundary_depends_on_them_and_the_same_chunks(tmp_path: Path) -> None:
    from briefing.ingest import chunk_documents, kind_limits
    from briefing.registry import chunker_for, kind

    settings = Settings()
    for seed in range(5):
        docs = _conversations(seed)
        embedder = TopicEmbedder(tmp_path / str(seed))
        chunks, failures = chunk_documents(settings, docs, embedder, "team")
        assert not failures
        every = {i.ref: TopicEmbedder.TOPICS[i.text.split()[0]] for doc in docs for i in doc.items}
        expected = [
            (c.chunk_id, c.text, c.refs)
            for doc in docs
            for c in chunker_for(doc.kind)(
                doc,
                limits=kind_limits(settings, kind(doc.kind), embedder.count_tokens),
                vectors={i.ref: every[i.ref] for i in doc.items} if len(doc.items) > 1 else None,
            )
        ]
        assert [(c.chunk_id, c.text, c.refs) for c in chunks] == expected  # as if every message were embedded
        assert len(expected) > len(docs)  # the conversations did split
        assert len(embedder.embedded) < 0.7 * sum(len(doc.items) for doc in docs if len(doc.items) > 1)
        assert len(embedder.embedded) == len(set(embedder.embedded))  # never twice
        # A re-chunk reads the vectors from the on-disk cache: nothing is embedded again.
        again = TopicEmbedder(tmp_path / str(seed))
        assert [c.text for c in chunk_documents(settings, docs, again, "team")[0]] == [c for _, c, _ in expected]
        assert again.embedded == []


def test_a_message_after_a_long_silence_or_at_a_chunks_start_needs_no_vector(tmp_path: Path) -> None:
    from briefing.ingest import chunk_documents

    def item(n: int, topic: str, minutes: int) -> Item:
        at = T0 + timedelta(minutes=minutes)
        return Item(ref=f"c#{n}", source_type="slack", kind="message", text=f"{topic} note {n}", occurred_at=at)

    # Two messages, a five-hour silence, two more: no chunk ever holds two messages before a topic can shift.
    quiet = [item(0, "pool", 0), item(1, "pool", 5), item(2, "release", 300), item(3, "pool", 305)]
    doc = Document(key="slack:c", kind="slack_channel", source_type="slack", title="c", items=quiet)
    embedder = TopicEmbedder(tmp_path)
    chunks, _ = chunk_documents(Settings(), [doc], embedder, "team")
    assert embedder.embedded == [] and [c.refs for c in chunks] == [["c#0", "c#1"], ["c#2", "c#3"]]

    # A third message in the burst: its topic and its predecessor's decide whether it joins.
    burst = [*quiet[:2], item(4, "hiring", 9)]
    doc = Document(key="slack:b", kind="slack_channel", source_type="slack", title="b", items=burst)
    chunks, _ = chunk_documents(Settings(), [doc], embedder, "team")
    assert sorted(embedder.embedded) == ["hiring note 4", "pool note 1"]
    assert [c.refs for c in chunks] == [["c#0", "c#1"], ["c#4"]]


def test_a_topic_threshold_of_minus_one_turns_topic_splits_off_and_embeds_no_message(tmp_path: Path) -> None:
    from briefing.ingest import chunk_documents
    from briefing.settings import ChunkingSettings

    docs = _conversations(3)
    split, _ = chunk_documents(Settings(), docs, TopicEmbedder(tmp_path / "on"), "team")
    off = Settings(chunking=ChunkingSettings(slack_topic_threshold=-1))
    embedder = TopicEmbedder(tmp_path / "off")
    chunks, failures = chunk_documents(off, docs, embedder, "team")
    assert not failures and embedder.embedded == []
    # Only silences and size close a chunk now: fewer, longer chunks over the same messages, in the same order.
    assert len(chunks) < len(split)
    assert [r for c in chunks for r in c.refs] == [r for c in split for r in c.refs]
