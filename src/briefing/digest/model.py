"""What a briefing is made of: a window, a scope, sections of one cited line per conversation.

`Digest.to_json()` is the DESIGN.md digest contract: `{"window": [start, end], "scope": {...}, "sections":
[{"title", "lines": [{"text", "occurred_at", "citations": [{"n", "refs", "url"}]}]}], "more": [titles]}`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from briefing.model import Chunk


@dataclass(frozen=True)
class Scope:
    """What a briefing is limited to; every field set must match, any value within a field may."""

    sources: tuple[str, ...] = ()  # chunk source types (families): "slack", "files"
    containers: tuple[str, ...] = ()  # channels, projects, folders, repositories (without a leading "#")
    people: tuple[str, ...] = ()  # display names as chunks carry them
    tickets: tuple[str, ...] = ()  # ticket keys or item ids (PLAT-137, owner/repo#12)
    topic: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "sources": list(self.sources),
            "channels": list(self.containers),
            "people": list(self.people),
            "tickets": list(self.tickets),
            "topic": self.topic or None,
        }

    def describe(self, places: Sequence[str] = ()) -> str:
        parts = []
        if self.containers:
            parts.append("in " + ", ".join(places or self.containers))
        if self.people:
            parts.append("by " + ", ".join(self.people))
        if self.tickets:
            parts.append("about " + ", ".join(self.tickets))
        if self.topic:
            parts.append(f'about "{self.topic}"')
        return "; ".join(parts)


@dataclass(frozen=True)
class Cited:
    """One citation: the unit (message, comment, section) a line's claim comes from, and its link."""

    n: int
    refs: list[str]
    url: str

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "refs": list(self.refs), "url": self.url}


@dataclass
class Line:
    """One conversation, in one line: what it is about, what happened in the window, who, when; cited."""

    text: str
    occurred_at: datetime
    citations: list[Cited]
    title: str
    key: str
    status: str
    people: list[str]
    score: float
    last_at: datetime
    section: str = ""
    chunks: list[Chunk] = field(default_factory=list)  # the chunk of each citation, in order (not serialised)

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "occurred_at": self.occurred_at.isoformat(),
            "citations": [c.to_json() for c in self.citations],
            "title": self.title,
            "status": self.status,
            "people": list(self.people),
            "conversation": self.key,
        }


@dataclass
class Section:
    title: str
    lines: list[Line] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "lines": [line.to_json() for line in self.lines]}


@dataclass
class Digest:
    """A briefing over [start, end) as of `now`."""

    start: datetime
    end: datetime
    now: datetime
    scope: Scope
    sections: list[Section]
    more: list[str]
    searched: str
    conversations: int
    timezone: str = "UTC"
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Every chunk the window's conversations were read from, most important conversation first (not serialised).
    evidence: list[Chunk] = field(default_factory=list)
    places: list[str] = field(default_factory=list)  # the scope's containers as an answer names them ("#help")

    @property
    def empty(self) -> bool:
        return self.conversations == 0

    def lines(self) -> list[Line]:
        return [line for section in self.sections for line in section.lines]

    def citations(self) -> list[Cited]:
        """Each citation once (two lines may cite one unit under one number)."""
        return list({c.n: c for line in self.lines() for c in line.citations}.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "window": [self.start.isoformat(), self.end.isoformat()],
            "now": self.now.isoformat(),
            "scope": self.scope.to_json(),
            "sections": [s.to_json() for s in self.sections],
            "more": list(self.more),
            "conversations": self.conversations,
            "searched": self.searched,
            "timings_ms": dict(self.timings_ms),
        }
