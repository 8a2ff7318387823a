"""Embedding runs ahead of the index writer in a thread, bounded: memory stays at a few rounds of vectors."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any, cast

import numpy as np
import pytest

from briefing.embed import Embedder, SparseVec
from briefing.ingest import EMBED_AHEAD, _embedded_rounds
from briefing.model import Chunk


def _chunks(n: int) -> list[Chunk]:
    at = datetime(2026, 2, 2, tzinfo=UTC)
    return [
        Chunk(
            chunk_id=f"c{i}",
            doc_key=f"d{i}",
            source_type="files",
            kind="file",
            title="",
            text=f"text {i}",
            refs=[f"file:{i}"],
            start=at,
            end=at,
        )  # fmt: skip
        for i in range(n)
    ]


class _Counting:
    """Stands in for the embedder (our own interface): counts rounds embedded, can fail at one, can be held."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.rounds = 0
        self.fail_at = fail_at
        self.lock = threading.Lock()

    def dense(self, texts: list[str]) -> np.ndarray:
        with self.lock:
            self.rounds += 1
            if self.fail_at is not None and self.rounds == self.fail_at:
                raise RuntimeError("onnx ran out of memory")
        return np.ones((len(texts), 4), dtype=np.float32)

    def sparse(self, texts: list[str]) -> list[SparseVec]:
        return [SparseVec(indices=[1], values=[1.0]) for _ in texts]


def test_rounds_come_in_order_and_the_embedder_never_runs_far_ahead() -> None:
    fake = _Counting()
    seen: list[str] = []
    ahead: list[int] = []
    for consumed, (part, dense, sparse, _) in enumerate(_embedded_rounds(_chunks(100), 10, cast(Embedder, fake)), 1):
        assert len(part) == len(dense) == len(sparse)
        seen.extend(c.chunk_id for c in part)
        ahead.append(fake.rounds - consumed)
    assert seen == [f"c{i}" for i in range(100)]
    # The queue holds EMBED_AHEAD rounds, and one more may be in the embedder's hands.
    assert max(ahead) <= EMBED_AHEAD + 1


def test_an_embedding_failure_reaches_the_caller_after_the_rounds_before_it() -> None:
    got: list[Any] = []
    with pytest.raises(RuntimeError, match="out of memory"):
        for part, *_ in _embedded_rounds(_chunks(50), 10, cast(Embedder, _Counting(fail_at=3))):
            got.append(part)
    assert len(got) == 2


def test_a_caller_that_stops_early_ends_the_embedder() -> None:
    fake = _Counting()
    rounds = _embedded_rounds(_chunks(1000), 10, cast(Embedder, fake))
    next(rounds)
    rounds.close()  # the generator's cleanup stops and joins the thread
    assert not any(t.name == "brief-embed" for t in threading.enumerate())
    assert fake.rounds <= EMBED_AHEAD + 2
