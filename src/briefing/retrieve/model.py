"""What a retrieval takes (`SearchQuery`) and returns (`Retrieval` of ranked `Hit`s with their evidence)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from briefing.model import Chunk

if TYPE_CHECKING:
    from briefing.question.constraints import Constraints


@dataclass(frozen=True)
class SearchQuery:
    """One retrieval: the text, the instant it is asked "as of" (required), its constraints and how many hits."""

    text: str
    now: datetime
    constraints: Constraints | None = None
    k: int = 10


@dataclass
class Hit:
    """A ranked chunk with the evidence of how it got its score."""

    chunk: Chunk
    score: float = 0.0
    fused: float = 0.0
    dense_rank: int | None = None
    sparse_rank: int | None = None
    # Rank among the candidates by their best unit's cosine (the unit list), and that cosine.
    unit_rank: int | None = None
    unit_score: float | None = None
    # The position in `chunk.units` of that best unit.
    unit_pos: int | None = None
    boosts: dict[str, float] = field(default_factory=dict)
    origin: str = "search"
    # Cut to `now` (units written later removed) and re-scored on the remaining text.
    cut: bool = False
    # The better hit this one nearly repeats (moved below the top k).
    duplicate_of: str | None = None

    def to_trace(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk.chunk_id,
            "title": self.chunk.title,
            "score": round(self.score, 4),
            "fused": round(self.fused, 4),
            "dense_rank": self.dense_rank,
            "sparse_rank": self.sparse_rank,
            "unit_rank": self.unit_rank,
            "boosts": {k: round(v, 3) for k, v in self.boosts.items()},
            "origin": self.origin,
            "cut": self.cut,
            "duplicate_of": self.duplicate_of,
        }


@dataclass
class Retrieval:
    hits: list[Hit]
    candidates: list[Hit]
    filters: dict[str, Any]
    timings_ms: dict[str, float]
    reranker: str
    # The top k before `spread_documents`: the answer stage reads its context from these (the strongest chunks,
    # several sections of the document asked about), the hit list shows more documents. None: same as `hits`.
    strongest: list[Hit] | None = None
