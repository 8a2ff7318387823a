"""Topic-shift detection shared by the chunkers of conversations (Slack, tickets, pull requests, commits)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from briefing.model import TOPIC_OFF, ChunkLimits, Item


def drifted(vectors: Mapping[str, Sequence[float]] | None, previous_ref: str, ref: str, threshold: float) -> bool:
    """True when both items have vectors and their cosine is under `threshold` (a change of topic).

    Vectors are unit-normalised, so the dot product is the cosine. Missing vectors never split; with a threshold
    of `TOPIC_OFF` or less nothing splits and no vector is asked for.
    """
    if vectors is None or threshold <= TOPIC_OFF:
        return False
    a, b = vectors.get(previous_ref), vectors.get(ref)
    if a is None or b is None:
        return False
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):  # rows of the ingest's vector matrix
        return float(np.dot(a.astype(np.float64), b.astype(np.float64))) < threshold
    return sum(x * y for x, y in zip(a, b, strict=False)) < threshold


def topic_shift(
    previous: Item, item: Item, vectors: Mapping[str, Sequence[float]] | None, limits: ChunkLimits, size: int
) -> bool:
    """Start a new chunk at `item`? Never on topic alone while the open chunk has fewer than 2 items."""
    return size >= 2 and drifted(vectors, previous.ref, item.ref, limits.topic_threshold)
