"""A deterministic synthetic workspace: chunks with Slack-like metadata, unit dense vectors, BM25-like sparse.

Same seed, same size -> the same chunks, vectors and queries, so engines are compared on identical input. Dense vectors
are random by default (the engine, not the embedding model, is measured; bench/ingest_bench.py measures that), or
grown from real embeddings (`real=`) for the recall benchmark: random 384-d vectors are HNSW's hardest case and
understate its recall on what the product stores.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from briefing.embed import SparseVec
from briefing.model import Chunk, Unit

DIM = 384
VOCAB = 30_000
START = datetime(2025, 6, 1, tzinfo=UTC)
SPAN_DAYS = 365
CHANNELS = [f"team-{i:02d}" for i in range(40)]
PEOPLE = [f"Person {i:03d}" for i in range(200)]


def _word(i: int) -> str:
    consonants, vowels = "bcdfghjklmnprstvz", "aeiou"
    out = []
    i += 1
    while i:
        i, r = divmod(i, len(consonants) * len(vowels))
        out.append(consonants[r % len(consonants)] + vowels[r // len(consonants)])
    return "".join(out)


# Real-embedding mode (`Workspace(size, real=vectors)`): each point lies between a real vector and one of its
# nearest real neighbours (a random mix), plus isotropic noise of about this norm; queries are held-out real vectors.
NOISE_NORM = 0.25
NEIGHBOURS = 10
HELD_OUT = 200


@dataclass
class Workspace:
    size: int
    seed: int = 7
    real: np.ndarray | None = None  # unit vectors from the product's embedder (bench/real_vectors.py)

    def __post_init__(self) -> None:
        self._base: np.ndarray | None = None
        self._held: np.ndarray | None = None
        self._near: np.ndarray | None = None
        if self.real is not None:
            order = np.random.default_rng(self.seed).permutation(len(self.real))
            held = min(HELD_OUT, len(self.real) // 5)
            self._held = self.real[order[:held]]
            self._base = self.real[order[held:]]
            near = np.empty((len(self._base), NEIGHBOURS), dtype=np.int64)
            for start in range(0, len(self._base), 1024):
                sims = self._base[start : start + 1024] @ self._base.T
                for k in range(len(sims)):
                    sims[k, start + k] = -2.0
                near[start : start + 1024] = np.argsort(-sims, axis=1)[:, :NEIGHBOURS]
            self._near = near

    def _dense(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self._base is None or self._near is None:
            dense = rng.standard_normal((n, DIM)).astype(np.float32)
        else:
            i = rng.integers(0, len(self._base), n)
            j = self._near[i, rng.integers(0, NEIGHBOURS, n)]
            a = rng.uniform(0.0, 1.0, (n, 1)).astype(np.float32)
            dense = a * self._base[i] + (1 - a) * self._base[j]
            dense += rng.standard_normal((n, DIM)).astype(np.float32) * (NOISE_NORM / np.sqrt(DIM))
        dense /= np.linalg.norm(dense, axis=1, keepdims=True)
        return dense.astype(np.float32)

    def _zipf_terms(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return np.minimum(rng.zipf(1.3, size=n), VOCAB) - 1

    def batches(self, batch: int = 1000) -> Iterator[tuple[list[Chunk], np.ndarray, list[SparseVec]]]:
        """(chunks, dense vectors, sparse vectors) in batches, in a fixed order."""
        for start in range(0, self.size, batch):
            n = min(batch, self.size - start)
            rng = np.random.default_rng([self.seed, start])
            dense = self._dense(rng, n)
            chunks: list[Chunk] = []
            sparse: list[SparseVec] = []
            for j in range(n):
                i = start + j
                terms = self._zipf_terms(rng, int(rng.integers(40, 120)))
                ids, counts = np.unique(terms, return_counts=True)
                # BM25 term-frequency part (k1=1.2, b=0.75, average length 80): Qdrant's IDF modifier adds the rest.
                length = len(terms)
                tf = counts * 2.2 / (counts + 1.2 * (0.25 + 0.75 * length / 80))
                sparse.append(SparseVec(indices=[int(x) for x in ids], values=[float(x) for x in tf]))
                text = " ".join(_word(int(t)) for t in terms)
                chunks.append(self._chunk(i, text, rng))
            yield chunks, dense, sparse

    def _chunk(self, i: int, text: str, rng: np.random.Generator) -> Chunk:
        channel = CHANNELS[i % len(CHANNELS)]
        at = START + timedelta(seconds=int(i * SPAN_DAYS * 86400 / max(self.size, 1)))
        authors = sorted({PEOPLE[int(x)] for x in rng.integers(0, len(PEOPLE), size=3)})
        words = text.split()
        third = max(1, len(words) // 3)
        units = [
            Unit(
                ref=f"slack:C{channel.upper()}:{at.timestamp() + k:.6f}",
                text=" ".join(words[k * third : (k + 1) * third]),
                author=authors[k % len(authors)],
                at=at + timedelta(minutes=k),
            )
            for k in range(3)
        ]
        return Chunk(
            chunk_id=f"slack:{channel}:{i}",
            doc_key=f"slack:{channel}/{i // 4}",
            source_type="slack",
            kind="slack_thread",
            title=f"#{channel}",
            text=text,
            refs=[u.ref for u in units],
            start=at,
            end=at + timedelta(minutes=2),
            authors=authors,
            url=f"https://slack.test/{channel}/{i}",
            container=channel,
            tickets=[f"PLAT-{i % 500}"] if i % 7 == 0 else [],
            units=units,
            source_name="synthetic",
        )

    def queries(self, n: int = 60) -> list[tuple[np.ndarray, SparseVec, datetime]]:
        """Query vectors (a stored vector plus noise, so there is a true neighbour), sparse terms and a `now`."""
        rnd = random.Random(self.seed * 31 + self.size)
        out = []
        for _ in range(n):
            rng = np.random.default_rng(rnd.randrange(1 << 30))
            if self._held is not None:
                q = self._held[len(out) % len(self._held)].astype(np.float32)
            else:
                q = rng.standard_normal(DIM).astype(np.float32)
                q /= np.linalg.norm(q)
            terms = sorted({int(x) for x in np.minimum(rng.zipf(1.5, size=5), VOCAB) - 1})
            now = START + timedelta(days=rnd.uniform(SPAN_DAYS * 0.5, SPAN_DAYS * 1.1))
            out.append((q, SparseVec(indices=terms, values=[1.0] * len(terms)), now))
        return out
