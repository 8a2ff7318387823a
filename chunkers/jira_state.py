"""A JIRA issue's tracked state over time: its crawl-time fields walked back through its changelog.

The issue as fetched holds its state now; each changelog entry says what a field was before it. Undoing the
entries newest first gives the state in every interval between two entries, so a question asked as of an earlier
moment reads the status, assignee, versions... the ticket had then. Before the moment from which the changelog is
complete (`history_from`: the creation when the whole changelog was fetched, the last update when none was), the
tracked state is unknown and shown as such, never as the later state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from briefing.model import Document, Item, Unit

# Changelog field (lower case, Server and Cloud spellings) -> (attribute, how a change is undone).
_SCALAR, _MEMBER, _WORDS, _COMMAS = "scalar", "member", "words", "commas"
_FIELDS: dict[str, tuple[str, str]] = {
    "status": ("status", _SCALAR),
    "assignee": ("assignee", _SCALAR),
    "priority": ("priority", _SCALAR),
    "resolution": ("resolution", _SCALAR),
    "fix version": ("fix_versions", _MEMBER),
    "fixversions": ("fix_versions", _MEMBER),
    "version": ("affects_versions", _MEMBER),
    "versions": ("affects_versions", _MEMBER),
    "component": ("components", _MEMBER),
    "components": ("components", _MEMBER),
    "labels": ("labels", _WORDS),
    "sprint": ("sprint", _COMMAS),
}
TRACKED = ("status", "assignee", "priority", "resolution", "fix_versions", "affects_versions", "components")
TRACKED_LISTS = ("fix_versions", "affects_versions", "components", "labels", "sprint")


@dataclass(frozen=True)
class State:
    """The tracked fields from `start` until `until` (None: still so); `known` False before the changelog says."""

    start: datetime
    until: datetime | None
    values: Mapping[str, Any]
    known: bool
    updated: datetime | None
    resolved: datetime | None
    by: str | None = None  # who made the change that began it (None: the creation)
    # In an interval whose state is otherwise unknown, the fields still known (the resolution, from the issue's
    # resolution date: JIRA resets that date whenever the resolution is set again, so it held since then).
    partial: tuple[str, ...] = ()


def tracks(field: str) -> bool:
    """Whether a changelog field is part of the tracked state."""
    return field.lower() in _FIELDS


def states(meta: Mapping[str, Any], changes: Sequence[Item], created: datetime) -> list[State]:
    """The issue's states in time order, covering [created, forever); the last one is the crawl-time state."""
    current: dict[str, Any] = {name: _copy(meta.get(name)) for name in (*TRACKED, "labels", "sprint")}
    history_from = _parse(meta.get("history_from")) or created
    crawl_updated = _parse(meta.get("updated"))
    crawl_resolved = _parse(meta.get("resolved"))
    entries = sorted(
        (item for item in changes if any(tracks(str(c.get("field", ""))) for c in _changes(item))),
        key=lambda item: item.occurred_at,
    )
    # Walk back: the state after each entry, newest first.
    after: list[tuple[datetime, dict[str, Any], str | None]] = []
    state = current
    for item in reversed(entries):
        if item.occurred_at < history_from:
            break
        after.append((item.occurred_at, state, item.author))
        state = _undo(state, _changes(item))
    first_known = history_from if history_from > created else created
    timeline: list[tuple[datetime, dict[str, Any], bool, str | None]] = [
        (created, state, history_from <= created, None)
    ]
    resolved_unrecorded = (
        crawl_resolved is not None and created < crawl_resolved < first_known and bool(state.get("resolution"))
    )
    if resolved_unrecorded and crawl_resolved is not None:
        timeline.append((crawl_resolved, state, False, None))
    if history_from > created:
        timeline.append((first_known, state, True, None))
    timeline.extend((at, values, True, by) for at, values, by in reversed(after))
    out: list[State] = []
    for n, (start, values, known, by) in enumerate(timeline):
        until = timeline[n + 1][0] if n + 1 < len(timeline) else None
        if until is not None and until <= start:
            continue  # superseded at its own moment (two entries at once): never visible
        last = until is None
        resolved = _resolved_at(values, start, entries, crawl_resolved, last) if known else None
        partial: tuple[str, ...] = ()
        if not known and resolved_unrecorded and start == crawl_resolved:
            resolved, partial = crawl_resolved, ("resolution",)
        updated = crawl_updated if last else start
        out.append(State(start, until, values, known, updated, resolved, by, partial))
    return out


@dataclass(frozen=True)
class Statuses:
    """The status before the first recorded status change, then (when, new status) in time order."""

    initial: str | None
    changes: list[tuple[datetime, str | None]]

    def at(self, when: datetime) -> str | None:
        status = self.initial
        for changed_at, value in self.changes:
            if changed_at <= when:
                status = value
        return status


def status_timeline(changes: list[Item], initial: str | None) -> Statuses:
    timeline: list[tuple[datetime, str | None]] = []
    for item in sorted(changes, key=lambda i: i.occurred_at):
        for change in item.metadata.get("changes") or []:
            if change.get("field") == "status":
                timeline.append((item.occurred_at, change.get("to")))
    return Statuses(initial, timeline)


def status_events(document: Document, units: list[Unit]) -> list[dict[str, Any]]:
    """The status transitions these history units record (from the changelog): from, to, who, when, the unit."""
    changes = {item.ref: item.metadata.get("changes") or [] for item in document.items if item.kind == "change"}
    events: list[dict[str, Any]] = []
    for unit in dict.fromkeys(units):
        for change in changes.get(unit.ref, []):
            if str(change.get("field", "")).lower() == "status" and unit.at is not None:
                events.append(
                    {
                        "event": "status",
                        "from": change.get("from"),
                        "to": change.get("to"),
                        "at": unit.at.isoformat(),
                        "by": unit.author,
                        "ref": unit.ref,
                    }
                )
    return events


def _resolved_at(
    values: Mapping[str, Any], start: datetime, entries: list[Item], crawl: datetime | None, last: bool
) -> datetime | None:
    """When the resolution this state holds was set (None when unresolved)."""
    if not values.get("resolution"):
        return None
    if last and crawl is not None:
        return crawl
    set_at = [
        item.occurred_at
        for item in entries
        if item.occurred_at <= start
        and any(str(c.get("field", "")).lower() == "resolution" and c.get("to") for c in _changes(item))
    ]
    if set_at:
        return max(set_at)
    return crawl if crawl is not None and crawl <= start else None


def _undo(state: Mapping[str, Any], changes: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The state before one changelog entry (its changes undone, last change first)."""
    out = {name: _copy(value) for name, value in state.items()}
    for change in reversed(changes):
        rule = _FIELDS.get(str(change.get("field", "")).lower())
        if rule is None:
            continue
        name, how = rule
        old, new = change.get("from"), change.get("to")
        if how == _SCALAR:
            out[name] = old
        elif how == _MEMBER:
            members = [m for m in out.get(name) or [] if m != new] if new else list(out.get(name) or [])
            if old and old not in members:
                members.append(old)
            out[name] = members
        elif how == _WORDS:
            out[name] = str(old).split() if old else []
        else:
            out[name] = [part.strip() for part in str(old).split(",") if part.strip()] if old else []
    return out


def _changes(item: Item) -> list[Mapping[str, Any]]:
    return [c for c in item.metadata.get("changes") or [] if isinstance(c, Mapping)]


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list | tuple) else value


def _parse(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None
