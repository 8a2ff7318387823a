"""What `search` and `ask` return: typed results the CLI renders; `to_json()` is the DESIGN.md JSON contract."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from briefing.model import Chunk

if TYPE_CHECKING:
    from briefing.question.constraints import Constraints
    from briefing.retrieve import Hit, Retrieval


def hit_json(rank: int, score: float, chunk: Chunk) -> dict[str, Any]:
    return {
        "rank": rank,
        "score": round(score, 4),
        "chunk_id": chunk.chunk_id,
        "source": chunk.source_type,
        "refs": list(chunk.refs),
        "title": chunk.title,
        "url": chunk.url,
        "occurred_at": chunk.start.isoformat(),
        "authors": list(chunk.authors),
        "text": chunk.text,
    }


@dataclass(frozen=True)
class Citation:
    """Answer marker `[n]` and the refs (and link) of the context item it points at."""

    n: int
    refs: list[str]
    url: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Citation:
        return cls(n=int(data["n"]), refs=list(data.get("refs") or ()), url=data.get("url"))

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "refs": list(self.refs), "url": self.url}


@dataclass(frozen=True, kw_only=True)
class SearchResult:
    """Ranked hits for one question as of `now`; `trace` is the diagnostics --show-trace prints."""

    question: str
    now: datetime
    constraints: Constraints | None
    hits: list[Hit]
    timings_ms: dict[str, float]
    trace: dict[str, Any] = field(default_factory=dict)
    retrieval: Retrieval | None = None

    def _head(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "now": self.now.isoformat(),
            "constraints": self.constraints.to_json() if self.constraints is not None else {},
            "hits": [hit_json(i, h.score, h.chunk) for i, h in enumerate(self.hits, 1)],
        }

    def to_json(self, *, trace: bool = False) -> dict[str, Any]:
        data = {**self._head(), "timings_ms": dict(self.timings_ms)}
        if trace:
            data["trace"] = self.trace
        return data


@dataclass(frozen=True, kw_only=True)
class AskResult(SearchResult):
    """A search plus the answer, its checked citations, and whether the sources cover the question."""

    answer: str
    citations: list[Citation] = field(default_factory=list)
    no_answer: bool = False

    def to_json(self, *, trace: bool = False) -> dict[str, Any]:
        data = {
            **self._head(),
            "answer": self.answer,
            "citations": [c.to_json() for c in self.citations],
            "no_answer": self.no_answer,
            "timings_ms": dict(self.timings_ms),
        }
        if trace:
            data["trace"] = self.trace
        return data
