"""Watches: after each ingest, every new item that matches a watch produces one cited notification, once.

A watch is a ticket key (`PLAT-123`: items of that ticket, and items anywhere that mention it) or a query
(`outage OR incident`, `"connection pool" AND timeout`, `-test`; words match whole words, case-insensitively),
optionally limited to sources (a configured name, a type or a family). Adding a watch records what already
matches, so only items indexed afterwards notify.

Exactly once, crash-safe: the state file (`workspaces/<name>/watches.json`, written atomically) holds, per
watch, the refs already seen and an outbox of notifications not yet delivered, one entry per target. A run
first moves new matches into the outbox *and* marks them seen in one write, then delivers the outbox entry by
entry, removing each after its target accepted it. A crash before the first write loses nothing (the items are
still unseen); after it, the next run delivers what is left. Only a crash between a target accepting a message
and the state write that follows can repeat that one message (its Message-ID is stable, so mail clients fold it).
"""

from __future__ import annotations

import functools
import logging
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

from briefing import registry
from briefing.errors import BriefError, InputError
from briefing.model import Chunk, Unit
from briefing.ops import metrics
from briefing.ops.deliver import Message, Target, targets
from briefing.ops.safe import one_line
from briefing.ops.scrub import scrub
from briefing.ops.watch_store import WatchStore as WatchStore
from briefing.settings import Settings
from briefing.textrules import ticket_key

if TYPE_CHECKING:
    from briefing.index import Index
    from briefing.view import View

log = logging.getLogger(__name__)


# ------------------------------------------------------------------------------------------ matching


@dataclass(frozen=True)
class Query:
    """`a OR b c` = a, or (b and c); `"a phrase"`; `-word` or `NOT word` excludes."""

    alternatives: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # (required, excluded) per alternative

    @classmethod
    def parse(cls, text: str) -> Query:
        tokens = re.findall(r'-?"[^"]+"|\S+', text)
        alternatives: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
        required: list[str] = []
        excluded: list[str] = []
        negate = False
        for word in tokens:
            if word == "OR":
                if required:
                    alternatives.append((tuple(required), tuple(excluded)))
                required, excluded, negate = [], [], False
                continue
            if word == "AND":
                continue
            if word == "NOT":
                negate = True
                continue
            exclude = negate or (word.startswith("-") and len(word) > 1)
            term = word[1:] if word.startswith("-") and len(word) > 1 else word
            term = term.strip('"').strip()
            if term:
                (excluded if exclude else required).append(term.lower())
            negate = False
        if required:
            alternatives.append((tuple(required), tuple(excluded)))
        if not alternatives:
            raise InputError(f"watch query '{text}' has no words to match: use e.g. \"outage OR incident\"")
        return cls(tuple(alternatives))

    def matches(self, text: str) -> bool:
        lowered = text.lower()
        return any(
            all(_has(lowered, t) for t in required) and not any(_has(lowered, t) for t in excluded)
            for required, excluded in self.alternatives
        )


def _has(lowered: str, term: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", lowered) is not None


def _mentions_key(unit: Unit, key: str) -> bool:
    pattern = rf"(?<![A-Za-z0-9]){re.escape(key)}(?![0-9])"
    return re.search(pattern, unit.ref) is not None or re.search(pattern, unit.text) is not None


@dataclass(frozen=True)
class Watch:
    id: str
    query: str
    ticket: str | None
    sources: tuple[str, ...]
    created_at: str
    reviewer: str | None = None  # a review-wait watch (briefing.ops.review_wait): the person asked to review
    wait_hours: float = 24.0

    def to_json(self) -> dict[str, Any]:
        data = {k: getattr(self, k) for k in ("id", "query", "ticket", "created_at")}
        extra = {"reviewer": self.reviewer, "wait_hours": self.wait_hours} if self.reviewer else {}
        return {**data, "sources": list(self.sources), **extra}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Watch:
        return cls(
            id=str(data["id"]),
            query=str(data.get("query") or ""),
            ticket=data.get("ticket"),
            sources=tuple(data.get("sources") or ()),
            created_at=str(data.get("created_at") or ""),
            reviewer=data.get("reviewer"),
            wait_hours=float(data.get("wait_hours") or 24.0),
        )

    def label(self) -> str:
        scope = f" in {', '.join(self.sources)}" if self.sources else ""
        what = f"review waiting on {self.reviewer} > {self.wait_hours:g} h" if self.reviewer else None
        return f"{what or self.ticket or self.query}{scope}"

    def wants_chunk(self, chunk: Chunk, settings: Settings) -> bool:
        if not self.sources:
            return True
        config = settings.sources.get(chunk.source_name)
        names = {chunk.source_name, chunk.source_type, config.type if config else ""}
        return bool(names & set(self.sources))

    def matches(self, unit: Unit) -> bool:
        if self.ticket:
            return _mentions_key(unit, self.ticket)
        return _parsed(self.query).matches(unit.text)


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> Query:
    return Query.parse(text)


def check_sources(settings: Settings, sources: Iterable[str]) -> tuple[str, ...]:
    known = set(settings.sources) | set(registry.source_types()) | set(registry.families())
    chosen = tuple(dict.fromkeys(s.strip() for s in sources if s.strip()))
    for source in chosen:
        if source not in known:
            names = ", ".join(sorted(settings.sources)) or "none configured"
            raise InputError(f"--source '{source}' is neither a configured source ({names}) nor a source type")
    return chosen


# ------------------------------------------------------------------------------------------ state


# Every notification opens with this, so that one posted to a channel brief also ingests never notifies again.
MARKER = "[brief] watch"


def _units(chunks: Iterable[Chunk]) -> Iterable[tuple[Chunk, Unit]]:
    for chunk in chunks:
        units = chunk.units or [Unit(ref=ref, text=chunk.text) for ref in chunk.refs[:1]]
        for unit in units:
            if MARKER not in unit.text[:200]:
                yield chunk, unit


def _visible(index: Index | View, now: datetime) -> list[Chunk]:
    """Every chunk the watch's reader sees at `now`."""
    from briefing.view import as_of

    return as_of(index, now).chunks()


def _scan(settings: Settings, chunks: list[Chunk], watch: Watch) -> list[tuple[Chunk, Unit]]:
    found: dict[str, tuple[Chunk, Unit]] = {}
    for chunk, unit in _units(chunks):
        if unit.ref not in found and watch.wants_chunk(chunk, settings) and watch.matches(unit):
            found[unit.ref] = (chunk, unit)
    return sorted(found.values(), key=lambda cu: (cu[1].at or cu[0].start, cu[1].ref))


def add_watch(
    settings: Settings,
    *,
    target: str | None,
    query: str | None,
    sources: Iterable[str],
    now: datetime | None = None,
    reviewer: str | None = None,
    wait_hours: float = 24.0,
) -> tuple[Watch, int]:
    """Add a watch and record what already matches (no notification for those); returns it and that count.

    A review-wait watch records nothing: a review already waiting longer than its hours notifies at the next run.
    """
    from briefing.access import open_index

    if reviewer is not None:
        if target or query or wait_hours <= 0:
            raise InputError("--review-waiting takes a person and --hours above 0, without a ticket or --query")
        from briefing.ops.review_wait import check_person

        made = datetime.now(UTC).isoformat(timespec="seconds")
        watch = Watch(uuid.uuid4().hex[:8], "", None, check_sources(settings, sources), made, reviewer, wait_hours)
        check_person(settings, reviewer)
        return _saved(settings, watch, []), 0
    if bool(target) == bool(query):
        raise InputError('give either a ticket key (brief watch add PLAT-123) or --query "words", not both')
    key = ticket_key(target) if target else None
    text = query or target or ""
    if target and key is None:
        text = target  # not a ticket key: watch for the words
    if key is None:
        Query.parse(text)  # a one-line error now rather than at the next ingest
    watch = Watch(
        id=uuid.uuid4().hex[:8],
        query="" if key else text,
        ticket=key,
        sources=check_sources(settings, sources),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    with open_index(settings) as index:
        existing = [unit.ref for _, unit in _scan(settings, _visible(index, now or datetime.now(UTC)), watch)]
    return _saved(settings, watch, existing), len(existing)


def _saved(settings: Settings, watch: Watch, seen: list[str]) -> Watch:
    store = WatchStore.for_settings(settings)
    with store.lock:
        data = store.load()
        data["watches"].append(watch.to_json())
        data["seen"][watch.id] = sorted(seen)
        store.save(data)
    return watch


def remove_watch(settings: Settings, watch_id: str) -> Watch:
    store = WatchStore.for_settings(settings)
    with store.lock:
        data = store.load()
        for raw in data["watches"]:
            if raw["id"] == watch_id or (raw.get("ticket") and raw["ticket"] == watch_id):
                data["watches"].remove(raw)
                data["seen"].pop(raw["id"], None)
                data["outbox"] = [o for o in data["outbox"] if o["watch"] != raw["id"]]
                store.save(data)
                return Watch.from_json(raw)
    known = ", ".join(w["id"] for w in data["watches"]) or "none"
    raise InputError(f"no watch '{watch_id}' (watches: {known}); see `brief watch list`")


def _label(settings: Settings, chunk: Chunk) -> str:
    config = settings.sources.get(chunk.source_name)
    try:
        return registry.descriptor(config.type).presentation.label if config else chunk.source_type
    except BriefError:
        return chunk.source_type


def render(settings: Settings, watch: Watch, chunk: Chunk, unit: Unit) -> Message:
    """One cited notification: where and who, the item's text, and its citation (ref and link)."""
    when = (unit.at or chunk.start).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    place = chunk.container or chunk.title
    where = f"{_label(settings, chunk)} {place}".strip()
    who = unit.author or ", ".join(chunk.authors[:1]) or "someone"
    subject = f"{MARKER} {watch.label()}: {one_line(chunk.title or place, 80)}"
    lines = [
        f"New item matching watch {watch.label()} ({watch.id}), {where}:",
        f"{who}, {when}: {one_line(unit.text, 600)} [1]",
        "",
        f"[1] {unit.ref}" + (f" {chunk.url}" if chunk.url else ""),
    ]
    return Message(subject=subject, text="\n".join(lines), key=f"watch-{watch.id}-{unit.ref}")


def _new(settings: Settings, chunks: list[Chunk], watch: Watch, now: datetime) -> list[tuple[str, Message]]:
    """(seen key, notification) for each item the watch matches at `now`."""
    if watch.reviewer:
        from briefing.ops import review_wait

        return review_wait.due(settings, chunks, watch, now)
    return [(unit.ref, render(settings, watch, chunk, unit)) for chunk, unit in _scan(settings, chunks, watch)]


def run_watches(
    settings: Settings,
    *,
    run_id: str,
    now: datetime | None = None,
    stream: TextIO | None = None,
    chosen: list[Target] | None = None,
    errors: list[str] | None = None,
) -> dict[str, int]:
    """Find new matches, queue them, deliver the queue; returns counts (new, delivered, failed, queued).

    Each failed delivery's scrubbed error is appended to `errors` ("target: reason") when a list is given.
    """
    from briefing.access import open_index

    store = WatchStore.for_settings(settings)
    outlets = chosen if chosen is not None else targets(settings, stream=stream)
    counts = {"new": 0, "delivered": 0, "failed": 0, "queued": 0}
    with store.lock:
        data = store.load()
        watches = [Watch.from_json(w) for w in data["watches"]]
        if watches:
            when = now or datetime.now(UTC)
            with open_index(settings) as index:
                chunks = _visible(index, when)  # read once for every watch
            for watch in watches:
                seen = set(data["seen"].get(watch.id, []))
                for key, message in _new(settings, chunks, watch, when):
                    if key in seen:
                        continue
                    seen.add(key)
                    for outlet in outlets:
                        data["outbox"].append(
                            {
                                "id": f"{message.key}>{outlet.name}",
                                "watch": watch.id,
                                "ref": key,
                                "target": outlet.name,
                                "subject": message.subject,
                                "text": message.text,
                                "key": message.key,
                                "run_id": run_id,
                                "attempts": 0,
                            }
                        )
                    counts["new"] += 1
                data["seen"][watch.id] = sorted(seen)
            # Matches are queued and marked seen in one atomic write, before anything is sent.
            store.save(data)
        by_name = {o.name: o for o in outlets}
        down: set[str] = set()  # a target that failed once this run is not retried until the next run
        for entry in list(data["outbox"]):
            found = by_name.get(entry["target"])
            if found is None or entry["target"] in down:
                continue  # target removed from the config, or down: kept queued for a later run
            outlet = found
            try:
                outlet.send(Message(subject=entry["subject"], text=entry["text"], key=entry["key"]))
            except BriefError as exc:
                entry["attempts"] = int(entry.get("attempts", 0)) + 1
                entry["last_error"] = scrub(str(exc))  # a server's reply may echo a credential
                counts["failed"] += 1
                down.add(outlet.name)
                metrics.inc("brief_notifications", target=outlet.name, status="failed")
                log.warning("watch notification %s via %s failed: %s", entry["ref"], outlet.name, entry["last_error"])
                if errors is not None:
                    errors.append(f"{outlet.name}: {entry['last_error']}")
                store.save(data)
                continue
            data["outbox"].remove(entry)
            store.save(data)
            counts["delivered"] += 1
            metrics.inc("brief_notifications", target=outlet.name, status="delivered")
        counts["queued"] = len(data["outbox"])
    return counts
