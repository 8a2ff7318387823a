"""The router's tools: plain functions over one question's working constraints and evidence.

Each tool changes a copy of the deterministic constraints (or adds evidence), records one step for the trace and
returns a short observation for the model. Names are checked against the `Directory` of values known from the
index, so the router cannot invent a channel, person or ticket; an unknown name returns the closest known ones.
"""

from __future__ import annotations

import copy
import difflib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from briefing.model import Chunk
from briefing.question.constraints import Constraints, Directory, source_names
from briefing.question.timeexpr import Calendar, TimeWindow, find_windows, merge
from briefing.textrules import issue_ref, ticket_key

if TYPE_CHECKING:
    from briefing.retrieve import Hit, Retriever

KINDS = ("people", "channels", "projects", "tickets", "sources")
MAX_LISTED = 60
MAX_FETCHED_CHUNKS = 12


class RouterClosed(RuntimeError):
    """A tool was called after the router's time budget ran out; its result is discarded."""


@dataclass
class RouterTools:
    """The tool set for one question. `closed` is set when the router stops, so a late call changes nothing."""

    constraints: Constraints
    directory: Directory
    calendar: Calendar
    retriever: Retriever | None = None
    k: int = 5
    steps: list[dict[str, Any]] = field(default_factory=list)
    fetched: list[Chunk] = field(default_factory=list)
    searched: list[Hit] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closed: bool = False

    @classmethod
    def start(
        cls, extracted: Constraints, directory: Directory, calendar: Calendar, retriever: Retriever | None
    ) -> RouterTools:
        return cls(copy.deepcopy(extracted), directory, calendar, retriever)

    @property
    def now(self) -> datetime:
        """The question's `now`: searches and fetches see the index as of this instant."""
        return self.calendar.now

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def functions(self) -> list[Callable[..., str]]:
        """The callables handed to the router (their names and docstrings are the model's tool descriptions)."""
        return [
            self.set_time_window,
            self.set_sources,
            self.boost_people,
            self.boost_container,
            self.fetch_item,
            self.search,
            self.list_known,
        ]

    def _record(self, tool: str, args: dict[str, Any], result: str) -> str:
        with self._lock:
            if self._closed:
                raise RouterClosed("the router's time budget is over")
            self.steps.append({"tool": tool, "input": args, "result": result[:300]})
        return result

    # -- tools ------------------------------------------------------------------------------------------------
    def set_time_window(self, start: str, end: str = "", only: bool = False) -> str:
        """Restrict or boost a time window. start/end: ISO dates (YYYY-MM-DD, end inclusive) or phrases like
        'last week'; only=true makes it a hard filter (use only when the user says 'only')."""
        args = {"start": start, "end": end, "only": only}
        window = self._window(start, end)
        if window is None:
            return self._record("set_time_window", args, f"could not read a date from {start!r} / {end!r}")
        self.constraints.time = window
        self._hard("time", only)
        result = f"time window {window.start.isoformat()} to {window.end.isoformat()}" + (
            " (hard filter)" if only else " (boost)"
        )
        return self._record("set_time_window", args, result)

    def set_sources(self, sources: list[str], only: bool = False) -> str:
        """Boost source types (slack, jira, confluence, github, git, email, calendar, files); only=true keeps
        nothing else (use only when the user says so explicitly)."""
        args = {"sources": sources, "only": only}
        wanted = [s.strip().lower() for s in _as_list(sources)]
        names = source_names()
        known = [s for s in wanted if s in names]
        unknown = [s for s in wanted if s not in names]
        if not known:
            return self._record("set_sources", args, f"unknown source types {unknown}; use {list(names)}")
        self.constraints.sources = known
        self._hard("source", only)
        note = f"; ignored unknown {unknown}" if unknown else ""
        return self._record("set_sources", args, f"sources {known}" + (" (hard filter)" if only else "") + note)

    def boost_people(self, names: list[str]) -> str:
        """Boost chunks written by or mentioning these people (names, handles or emails from list_known)."""
        args = {"names": names}
        found: list[str] = []
        missing: list[str] = []
        for raw in _as_list(names):
            person = self._person(raw)
            (found if person else missing).append(person or raw)
        for name in found:
            if name not in self.constraints.people:
                self.constraints.people.append(name)
            for known in self.directory.people:
                if known.name == name and known.id and known.id not in self.constraints.person_ids:
                    self.constraints.person_ids.append(known.id)
        result = f"boosting people {found}" if found else "no known person matched"
        if missing:
            result += f"; unknown {missing}, closest known: {self._closest(missing, self._people_names())}"
        return self._record("boost_people", args, result)

    def boost_container(self, names: list[str]) -> str:
        """Boost a Slack channel, JIRA project, Confluence space, repository or folder by its known name."""
        args = {"names": names}
        channels = {c.lower(): c for c in self.directory.channels}
        projects = {p.lower(): p for p in self.directory.projects}
        found: list[str] = []
        missing: list[str] = []
        for raw in _as_list(names):
            key = raw.strip().lstrip("#").lower()
            if key in channels:
                _append(self.constraints.channels, channels[key])
                found.append(channels[key])
            elif key in projects:
                _append(self.constraints.projects, projects[key])
                found.append(projects[key])
            else:
                missing.append(raw)
        result = f"boosting {found}" if found else "no known channel or project matched"
        if missing:
            result += f"; unknown {missing}, closest known: {self._closest(missing, self.directory.listed())}"
        return self._record("boost_container", args, result)

    def fetch_item(self, key: str) -> str:
        """Put a whole item in the evidence by key: a ticket (PLAT-123), a PR or issue (owner/repo#12 or #12),
        or any native ref (slack:C..:ts, confluence:ID, file:path) with its thread or page."""
        args = {"key": key}
        if self.retriever is None:
            return self._record("fetch_item", args, "no index available")
        chunks = self._fetch(key.strip())
        new = [c for c in chunks if c.chunk_id not in {f.chunk_id for f in self.fetched}][:MAX_FETCHED_CHUNKS]
        with self._lock:
            if self._closed:
                raise RouterClosed("the router's time budget is over")
            self.fetched.extend(new)
        if not chunks:
            return self._record("fetch_item", args, f"nothing indexed under {key!r}")
        titles = sorted({c.title for c in chunks})[:3]
        return self._record("fetch_item", args, f"added {len(new)} chunk(s) of {titles} to the evidence")

    def search(self, query: str) -> str:
        """Run an extra retrieval with a rewritten query (synonyms, the underlying topic) under the current
        constraints; its best hits join the candidates."""
        args = {"query": query}
        if self.retriever is None or not query.strip():
            return self._record("search", args, "no search run")
        from briefing.retrieve import SearchQuery

        hits = self.retriever.retrieve(SearchQuery(query, now=self.now, constraints=self.constraints, k=self.k)).hits
        for hit in hits:
            hit.origin = "router-search"
        with self._lock:
            if self._closed:
                raise RouterClosed("the router's time budget is over")
            self.searched.extend(hits)
            self.queries.append(query)
        titles = [h.chunk.title[:60] for h in hits]
        return self._record("search", args, f"{len(hits)} hit(s): {titles}")

    def list_known(self, kind: str) -> str:
        """List real values to use in the other tools: kind is people, channels, projects, tickets or sources."""
        args = {"kind": kind}
        kind = kind.strip().lower()
        values: list[str]
        if kind == "people":
            values = self._people_names()
        elif kind == "channels":
            values = [c for c in self.directory.channels if c not in self.directory.unlisted]
        elif kind == "projects":
            values = [p for p in self.directory.projects if p not in self.directory.unlisted]
        elif kind == "tickets":
            values = sorted(self.directory.ticket_keys)
        elif kind == "sources":
            values = list(source_names())
        else:
            return self._record("list_known", args, f"unknown kind {kind!r}; use one of {list(KINDS)}")
        more = f" (+{len(values) - MAX_LISTED} more)" if len(values) > MAX_LISTED else ""
        return self._record("list_known", args, ", ".join(values[:MAX_LISTED]) + more or "none")

    # -- helpers ----------------------------------------------------------------------------------------------
    def _hard(self, kind: str, only: bool) -> None:
        if only:
            self.constraints.hard.add(kind)
        else:
            self.constraints.hard.discard(kind)

    def _window(self, start: str, end: str) -> TimeWindow | None:
        first = self._day_or_phrase(start)
        if first is None:
            return None
        if not end.strip():
            return first
        last = self._day_or_phrase(end)
        if last is None:
            return None
        lo, hi = min(first.start, last.start), max(first.end, last.end)
        return TimeWindow(lo, hi, None, f"router: {start} to {end}")

    def _day_or_phrase(self, text: str) -> TimeWindow | None:
        text = text.strip()
        if not text:
            return None
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            parsed = None
        if parsed is not None:
            if parsed.tzinfo is None and len(text) <= 10:
                lo, hi = self.calendar.days(parsed.date())
                return TimeWindow(lo, hi, None, f"router: {text}")
            aware = parsed if parsed.tzinfo else parsed.replace(tzinfo=self.calendar.zone)
            return TimeWindow(aware, aware + timedelta(seconds=1), None, f"router: {text}")
        return merge(find_windows(text, self.calendar))

    def _people_names(self) -> list[str]:
        return sorted({p.name for p in self.directory.people})

    def _person(self, raw: str) -> str | None:
        needle = raw.strip().lstrip("@").lower()
        if not needle:
            return None
        for person in self.directory.people:
            names = {person.name.lower(), *(h.lstrip("@").lower() for h in person.handles)}
            names |= {e.lower() for e in person.emails}
            if needle in names:
                return person.name
        firsts = [p for p in self.directory.people if p.name.split() and p.name.split()[0].lower() == needle]
        return firsts[0].name if len(firsts) == 1 else None

    @staticmethod
    def _closest(missing: list[str], known: list[str]) -> list[str]:
        lowered = {k.lower(): k for k in known}
        out: list[str] = []
        for raw in missing:
            out.extend(lowered[m] for m in difflib.get_close_matches(raw.lower(), list(lowered), n=3, cutoff=0.5))
        return list(dict.fromkeys(out))[:5]

    def _fetch(self, key: str) -> list[Chunk]:
        assert self.retriever is not None
        refs: list[str] = []
        doc_keys: list[str] = []
        doc_ids: list[str] = []
        # "PLAT-7", "acme/api#12" or a native ref with its source's prefix ("jira:PLAT-7"): the item's own id.
        prefix, _, rest = key.partition(":")
        bare = rest if rest and prefix in source_names() else key
        if ticket := ticket_key(bare):
            doc_ids.append(ticket)
        elif ref := issue_ref(bare):
            repos = [ref[0]] if ref[0] else [p for p in self.directory.projects if "/" in p]
            doc_ids.extend(f"{repo}#{ref[1]}" for repo in repos)
        elif ":" in key:
            refs = doc_keys = [key]
        # A ref inside a thread or page brings the whole document, so the answer sees the conversation.
        return self.retriever.index.view(self.now).fetch(
            refs=refs, doc_keys=doc_keys, doc_ids=doc_ids, whole_documents=True
        )


def _as_list(value: Any) -> list[str]:
    """Models sometimes send one string where a list was asked for."""
    if isinstance(value, str):
        return [v for v in re.split(r"\s*,\s*", value) if v]
    return [str(v) for v in value or []]


def _append(values: list[str], value: str) -> None:
    if value not in values:
        values.append(value)
