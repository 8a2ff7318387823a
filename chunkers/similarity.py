"""Topic-shift detection shared by the chunkers of conversations (Slack, tickets, pull requests, commits)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def drifted(vectors: Mapping[str, Sequence[float]] | None, previous_ref: str, ref: str, threshold: float) -> bool:
    """True when both items have vectors and their cosine is under `threshold` (a change of topic).

    Vectors are unit-normalised, so the dot product is the cosine. Missing vectors never split.
    """
    if vectors is None:
        return False
    a, b = vectors.get(previous_ref), vectors.get(ref)
    if a is None or b is None:
        return False
    return sum(x * y for x, y in zip(a, b, strict=False)) < threshold
