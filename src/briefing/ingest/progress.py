"""What one source's ingest has done so far (items, chunks, chunks embedded) and about how long it has left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Stage = Literal["collecting", "indexing", "done"]


@dataclass(frozen=True)
class SourceProgress:
    """One source's counts at one moment of a run; `seconds` is the time spent in the current stage.

    Collecting, `items` counts the records fetched. Indexing, it counts the items (messages, comments, sections)
    of the documents chunked so far, out of `items_total` in the documents read from the raw cache so far;
    `to_embed` counts the changed chunks found so far, of which `embedded` are embedded and written.
    """

    source: str
    stage: Stage
    items: int = 0
    items_total: int = 0
    chunks: int = 0
    to_embed: int = 0
    embedded: int = 0
    seconds: float = 0.0

    def expected_to_embed(self) -> int:
        """The changed chunks the whole source will have, extrapolated from the items chunked so far."""
        if self.stage != "indexing" or not self.items or self.items >= self.items_total:
            return self.to_embed
        return max(self.to_embed, round(self.to_embed * self.items_total / self.items))

    def seconds_left(self) -> float | None:
        """About how long indexing has left at the rate chunks were embedded so far (None until one is known)."""
        if self.stage != "indexing" or not self.embedded or self.seconds <= 0:
            return None
        remaining = self.expected_to_embed() - self.embedded
        return max(0.0, remaining * self.seconds / self.embedded)

    def line(self) -> str:
        """One plain line: `lak: indexing: 812 of 2,022 items, 2,140 chunks, 640 of ~5,500 embedded, ~3 min left`."""
        if self.stage == "collecting":
            return f"{self.source}: collecting: {self.items:,} items fetched ({duration(self.seconds)})"
        if self.stage == "done":
            return (
                f"{self.source}: indexed {self.items:,} items as {self.chunks:,} chunks, {self.embedded:,} embedded "
                f"({duration(self.seconds)})"
            )
        if not self.items_total:
            return f"{self.source}: indexing: reading its cached records ({duration(self.seconds)})"
        expected = self.expected_to_embed()
        approx = "~" if expected != self.to_embed else ""
        text = (
            f"{self.source}: indexing: {self.items:,} of {self.items_total:,} items, {self.chunks:,} chunks, "
            f"{self.embedded:,} of {approx}{expected:,} embedded"
        )
        left = self.seconds_left()
        return text + (f", about {duration(left)} left" if left is not None else "")


def duration(seconds: float) -> str:
    """`42 s`, `3 min`, `1 h 5 min`."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


ProgressCallback = Callable[[SourceProgress], None]
"""Called from the ingest thread and the embedding thread alike: a display must be thread-safe."""
