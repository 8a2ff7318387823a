"""The application service: one object that owns settings, index and models, used by the CLI and the evaluation.

`search` and `ask` return typed results (`briefing.results`) whose `to_json()` is DESIGN.md "Machine-readable
output"; their `trace` is what the CLI prints with --show-trace.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from briefing import registry
from briefing.access import Principal, open_index, principal_for
from briefing.embed import Embedder
from briefing.errors import IndexError_, InputError
from briefing.index import Index
from briefing.model import Person
from briefing.ops import hooks
from briefing.people import PersonRecord, corrections_path, records_for
from briefing.results import AskResult, SearchResult, hit_json
from briefing.settings import Settings
from briefing.store import SourceState

if TYPE_CHECKING:
    from briefing.question.values import Directory

MAX_QUESTION_CHARS = 4000
__all__ = ["AskResult", "Brief", "SearchResult", "check_question", "hit_json", "parse_now"]


def parse_now(value: str | None) -> datetime:
    if not value:
        return datetime.now(UTC)
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"--now '{value}' is not an ISO-8601 time: use e.g. 2026-06-15T09:00:00+00:00") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def check_question(question: str) -> str:
    text = " ".join(question.split())
    if not text:
        raise InputError('the question is empty: ask something, e.g. brief ask "what happened last week?"')
    if len(text) > MAX_QUESTION_CHARS:
        raise InputError(f"the question is {len(text)} characters long; the limit is {MAX_QUESTION_CHARS}: shorten it")
    return text


def _stat(path: Path) -> tuple[int, ...] | None:
    """What tells a file's versions apart (replaced atomically: a new inode), or None when it is missing."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class Brief:
    """Open once per command; close (or use as a context manager) to release the local index lock."""

    def __init__(self, settings: Settings, *, embedder: Embedder | None = None, index: Index | None = None) -> None:
        self.settings = settings
        self.embedder = embedder or Embedder(settings.embedding, settings.home)
        self._index = index
        # Who this command reads as (`--as`, else the owner); every read through `index` is scoped to it.
        self.principal: Principal = principal_for(settings)
        self._directory: tuple[tuple[tuple[int, ...] | None, ...], Directory] | None = None

    @property
    def index(self) -> Index:
        if self._index is None:
            self._index = open_index(self.settings, self.principal)
        return self._index

    def close(self) -> None:
        hooks.flush_questions()
        self.embedder.close()
        if self._index is not None:
            self._index.close()
            self._index = None

    def __enter__(self) -> Brief:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- metadata ---------------------------------------------------------------------------------------------
    def people(self) -> list[Person]:
        """One `Person` per human across every source (briefing.people), with every name and handle they use."""
        return [record.person() for record in self.person_records()]

    def person_records(self) -> list[PersonRecord]:
        return records_for(self.settings)

    @property
    def people_file(self) -> Path:
        return corrections_path(self.settings)

    def directory(self) -> Directory:
        """The people, containers and ticket keys a question's names resolve to; read again only when a file it
        is read from (the sources' state files, the people corrections) has changed."""
        if not self.principal.owner:
            return self._read_directory()
        files = [SourceState.path_for(self.settings, name) for name in self.settings.sources]
        key = tuple(_stat(path) for path in [*files, self.people_file])
        if self._directory is None or self._directory[0] != key:
            self._directory = (key, self._read_directory())
        return self._directory[1]

    def _read_directory(self) -> Directory:
        from briefing.question.values import Directory

        channels: set[str] = set()
        projects: set[str] = set()
        tickets: set[str] = set()
        unlisted: set[str] = set()
        for name, config in self.settings.sources.items():
            info = SourceState.for_source(self.settings, name).data.get("directory", {})
            descriptor = registry.descriptor(config.type)
            target = channels if descriptor.container_is_channel else projects
            target.update(info.get("containers", []))
            tickets.update(info.get("tickets", []))
            if descriptor.unlisted_containers:
                pattern = re.compile(descriptor.unlisted_containers)
                unlisted.update(c for c in info.get("containers", []) if pattern.fullmatch(str(c)))
        if not self.principal.owner:
            # A restricted reader learns no container name it cannot read (a DM's name says who talks privately).
            channels, projects = self._readable(channels), self._readable(projects)
        return Directory(
            people=self.people(),
            channels=sorted(channels),
            projects=sorted(projects),
            ticket_keys=tickets,
            unlisted=unlisted & (channels | projects),
        )

    def _readable(self, containers: set[str]) -> set[str]:
        from briefing.index import Filter

        if not containers or not self.index.exists():
            return set()
        return {c for c in containers if self.index.count(Filter(containers=(c,))) > 0}

    def _require_index(self) -> None:
        # A principal who may read nothing gets "not covered", not "the index is empty" (which it is not).
        if not self.index.exists() or (self.principal.owner and self.index.count() == 0):
            raise IndexError_(
                f"the index for workspace '{self.settings.workspace.name}' is empty: run `brief ingest` first"
            )

    # -- search / ask -----------------------------------------------------------------------------------------
    def constraints(self, question: str, now: datetime) -> Any:
        from briefing.question.constraints import extract

        ws = self.settings.workspace
        return extract(question, now=now, timezone=ws.timezone, week_start=ws.week_start, directory=self.directory())

    def search(self, question: str, *, now: datetime, k: int = 10) -> SearchResult:
        from briefing.retrieve import Retriever, SearchQuery

        question = check_question(question)
        self._require_index()
        t0 = time.perf_counter()
        constraints = self.constraints(question, now)
        t_extract = (time.perf_counter() - t0) * 1000
        retrieval = Retriever(self.settings.retrieval, self.index, self.embedder).retrieve(
            SearchQuery(question, now=now, constraints=constraints, k=k)
        )
        result = SearchResult(
            question=question,
            now=now,
            constraints=constraints,
            hits=list(retrieval.hits),
            timings_ms={
                "extract": round(t_extract, 1),
                "retrieve": round(retrieval.timings_ms.get("retrieve", 0.0), 1),
                "rerank": round(retrieval.timings_ms.get("rerank", 0.0), 1),
            },
            trace={
                "constraints": constraints.to_json(),
                "filters": retrieval.filters,
                "access": self.principal.describe(),
                "reranker": retrieval.reranker,
                "candidates": [h.to_trace() for h in sorted(retrieval.candidates, key=lambda h: -h.fused)],
                "reranked": [h.to_trace() for h in retrieval.hits],
            },
            retrieval=retrieval,
        )
        hooks.record_question(self.settings, "search", result)
        return result

    def ask(
        self,
        question: str,
        *,
        now: datetime,
        k: int = 10,
        on_token: Callable[[str], None] | None = None,
    ) -> AskResult:
        """Run the ask graph (briefing.ask.graph); `on_token` receives the answer text as it is generated."""
        from briefing.ask.run import answer, build_deps

        question = check_question(question)
        self._require_index()
        result = answer(build_deps(self, on_token), question, now=now, k=k)
        result.trace["access"] = self.principal.describe()
        hooks.record_question(self.settings, "ask", result)
        return result
