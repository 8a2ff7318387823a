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
