"""The briefing engine: a window and a scope -> every conversation active in it -> ranked, cited lines.

Conversations are enumerated by time through a View as of the digest's `now` (`briefing.digest.gather`), ranked
(`LineMaker.score`) and written one line each (`briefing.digest.lines`); with an LLM configured, a `Rewriter`
(`briefing.digest.llm.LineWriter`) rewrites each line from the same evidence.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo

from briefing.digest.conversation import Conversation
from briefing.digest.gather import gather
from briefing.digest.lines import LineMaker
from briefing.digest.model import Digest, Line, Scope, Section
from briefing.view import as_of

if TYPE_CHECKING:
    from briefing.index import Index
    from briefing.view import View


class Rewriter(Protocol):
    """Writes a line again from the same evidence (an LLM: `briefing.digest.llm.LineWriter`); counts what it kept."""

    written: int
    fallbacks: int

    def rewrite(self, conv: Conversation, extractive: Line, first_n: int, day: Callable[[datetime], str]) -> Line: ...


class Briefer:
    """Builds digests over one index (or one reader's View of it); `max_lines` caps the lines shown, the rest is
    listed under `more`."""

    def __init__(
        self,
        index: Index | View,
        *,
        timezone: str = "UTC",
        max_lines: int = 40,
        burst_minutes: float = 30,
        writer: Rewriter | None = None,
    ) -> None:
        self.index = index
        self.writer = writer  # with an LLM configured: writes each line from the same evidence (digest.llm)
        self.burst_gap = timedelta(minutes=burst_minutes)
        self.timezone = timezone
        self.zone = ZoneInfo(timezone)
        self.max_lines = max_lines

    def conversations(
        self, start: datetime, end: datetime, now: datetime, scope: Scope, *, forward: bool = False
    ) -> list[Conversation]:
        """Every conversation with a unit in [start, min(end, now)) inside the scope, as of `now`.

        `forward`: the window may reach past `now` ("what's planned next week"): what is scheduled in it and was
        entered before `now` (a calendar event written last week for next Tuesday) counts; nothing written later.
        """
        return gather(as_of(self.index, now), start, end, scope, burst_gap=self.burst_gap, forward=forward)

    @staticmethod
    def section_title(conv: Conversation) -> str:
        return LineMaker.section_title(conv)

    @staticmethod
    def about(conv: Conversation) -> str:
        return LineMaker.about(conv)

    def digest(
        self,
        start: datetime,
        end: datetime,
        *,
        now: datetime,
        scope: Scope = Scope(),  # noqa: B008 - frozen, never mutated
        searched: str = "",
        max_lines: int | None = None,
        forward: bool = False,
        keep: Callable[[Conversation], bool] | None = None,
    ) -> Digest:
        """The window's conversations in `scope` (only those `keep` holds, when given), ranked and written."""
        t0 = time.perf_counter()
        writes = LineMaker(self.zone, now)
        convs = self.conversations(start, end, now, scope, forward=forward)
        if keep is not None:
            convs = [c for c in convs if keep(c)]
        if not forward:
            end = min(end, now)
        t1 = time.perf_counter()
        limit = self.max_lines if max_lines is None else max_lines
        score = writes.score
        ranked = sorted(convs, key=lambda c: (-score(c), -c.units[-1].at.timestamp(), c.key))
        if end > now:  # what is ahead reads in the order it will happen
            ranked = sorted(convs, key=lambda c: (c.units[0].at, -score(c), c.key))
        shown, rest = ranked[:limit], ranked[limit:]
        # Numbered in reading order: sections by their most important line, lines most important first.
        by_section: dict[str, list[Conversation]] = {}
        for conv in shown:
            by_section.setdefault(writes.section_title(conv), []).append(conv)
        sections: list[Section] = []
        n = 1
        for title, group in by_section.items():
            section = Section(title=title)
            for conv in group:
                made = writes.line(conv, n)
                if self.writer is not None:
                    made = self.writer.rewrite(conv, made, n, writes.day)
                n += len(made.citations)
                section.lines.append(made)
            sections.append(section)
        more = [f"{writes.section_title(c)}: {writes.about(c)}" for c in rest]
        evidence = list({s.chunk.chunk_id: s.chunk for c in ranked for s in c.units}.values())
        return Digest(
            start=start,
            end=end,
            now=now,
            scope=scope,
            sections=sections,
            more=more,
            searched=searched or self.describe(start, end, scope),
            conversations=len(convs),
            timezone=self.timezone,
            evidence=evidence,
            timings_ms={
                "enumerate": round((t1 - t0) * 1000, 1),
                "write": round((time.perf_counter() - t1) * 1000, 1),
            },
        )

    def describe(
        self, start: datetime, end: datetime, scope: Scope, places: Sequence[str] = (), sources: Sequence[str] = ()
    ) -> str:
        first = start.astimezone(self.zone).date()
        last = (end - timedelta(microseconds=1)).astimezone(self.zone).date()
        span = f"{first}" if first == last else f"{first} to {last}"
        parts = [", ".join(scope.sources or sources) or "all sources", span]
        if scope.describe(places):
            parts.append(scope.describe(places))
        return "; ".join(parts)


def window_label(start: datetime, end: datetime, timezone: str) -> str:
    zone = ZoneInfo(timezone)
    first = start.astimezone(zone)
    last = (end - timedelta(microseconds=1)).astimezone(zone)
    if first.date() == last.date():
        return f"on {first:%a} {first.date()}"
    return f"between {first:%a} {first.date()} and {last:%a} {last.date()}"


def nothing(
    scope: Scope, start: datetime, end: datetime, timezone: str, searched: str, places: Sequence[str] = ()
) -> str:
    """The answer for an empty window: what was searched, not a refusal."""
    where = ", ".join(places or scope.containers)
    place = f" in {where}" if where else ""
    who = f" from {', '.join(scope.people)}" if scope.people else ""
    about = f' about "{scope.topic}"' if scope.topic else ""
    return f"Nothing{about}{place}{who} {window_label(start, end, timezone)} (searched: {searched})."
