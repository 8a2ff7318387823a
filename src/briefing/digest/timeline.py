"""`brief timeline`: the dated events about a topic or a ticket across sources, each cited, each shown once.

The conversations come from the briefing engine (by time, with a ticket or topic scope). Each gives its opening
and the units that say something happened (decided, resolved, merged, released, a status change). The same
event reported by two sources (a PR merged, announced in Slack and in the release notes) on the same day, with
the same kind and the same keys, is shown once with both citations.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from briefing.digest import text as tx
from briefing.digest.conversation import Conversation, Seen
from briefing.digest.engine import Briefer
from briefing.digest.model import Cited, Scope
from briefing.textrules import find_ticket_keys, issue_ref, ticket_key

if TYPE_CHECKING:
    from briefing.service import Brief

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_KINDS = ("released", "merged", "decided", "resolved", "incident", "status")
_ISSUE_NUMBER = re.compile(r"#\d+")


@dataclass
class Event:
    at: datetime
    kind: str
    text: str
    where: str
    keys: frozenset[str]
    citations: list[Cited] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at.isoformat(),
            "kind": self.kind,
            "text": self.text,
            "where": self.where,
            "citations": [c.to_json() for c in self.citations],
        }


@dataclass
class Timeline:
    subject: str
    now: datetime
    start: datetime | None
    end: datetime | None
    events: list[Event]
    timezone: str = "UTC"

    def to_json(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "now": self.now.isoformat(),
            "window": [self.start.isoformat() if self.start else None, (self.end or self.now).isoformat()],
            "events": [e.to_json() for e in self.events],
        }


def subject_scope(subject: str) -> Scope:
    """A ticket key or item id is a ticket scope; anything else is a topic."""
    key = ticket_key(subject.strip())
    if key is not None:
        return Scope(tickets=(key,))
    ref = issue_ref(subject.strip())
    if ref is not None and ref[0]:
        return Scope(tickets=(f"{ref[0]}#{ref[1]}",))
    return Scope(topic=subject.strip())


def _kind_of(seen: Seen, opening: bool) -> str | None:
    found = tx.signals(seen.unit.text)
    for kind in _KINDS:
        if kind in found:
            return kind
    return "opened" if opening else None


def events(briefer: Briefer, convs: list[Conversation]) -> list[Event]:
    out: list[Event] = []
    for conv in convs:
        where = briefer.section_title(conv)
        every = [*conv.earlier, *conv.units] if conv.opened_in_window else conv.units
        window_units = {id(s) for s in conv.units}
        recorded = {(c.ref, c.at): c for c in conv.changes}
        history = {c.ref for c in conv.changes}
        own = frozenset(k for k in conv.tickets if k.split(":", 1)[-1] in conv.doc_key) or frozenset({conv.doc_key})
        for i, seen in enumerate(every):
            if id(seen) not in window_units:
                continue
            opening = i == 0 and conv.opened_in_window
            change = recorded.pop((seen.unit.ref, seen.at), None)
            if change is not None:  # the source's own history: the transition as it records it
                title = f" ({tx.short(conv.title, 80)})" if conv.title else ""
                text = f"{change.event} in {where}{title}: {change.describe()}"
                out.append(Event(seen.at, change.event, text, where, own, [Cited(0, [seen.unit.ref], seen.url)]))
                continue
            kind: str | None = _kind_of(seen, opening)
            if kind == "status" and (opening or conv.changes):
                # The recorded history is the authority on status; an item's opening attribute line is no change.
                kind = "opened" if opening else None
            if kind is None or (kind == "opened" and not opening):
                continue
            if not opening and seen.unit.ref in history:
                continue  # the item's own attribute lines restate what its recorded history already says
            sentence = tx.gist(seen.unit.text, 200) if opening else tx.best_sentence(seen.unit.text)[0]
            if not sentence or (not opening and tx.is_filler(sentence)):
                continue
            who = seen.unit.author or "unknown"
            label = "started" if kind == "opened" else kind
            text = f'{label} in {where}: {who}: "{sentence}"'
            if not conv.stream and not conv.threaded and not opening and conv.title:
                text = f'{kind} in {where} ({tx.short(conv.title, 80)}): {who}: "{sentence}"'
            keys = frozenset(find_ticket_keys(seen.unit.text)) | frozenset(_ISSUE_NUMBER.findall(seen.unit.text))
            out.append(Event(seen.at, kind, text, where, keys, [Cited(0, [seen.unit.ref], seen.url)]))
    return out


def dedupe(found: list[Event], zone: ZoneInfo) -> list[Event]:
    """One event per (day, kind, keys) when it names keys: the same merge or release told by two sources."""
    kept: dict[tuple[Any, ...], Event] = {}
    order: list[Event] = []
    for event in sorted(found, key=lambda e: e.at):
        if event.keys and event.kind != "opened":
            key = (event.at.astimezone(zone).date(), event.kind, event.keys)
            if key in kept:
                first = kept[key]
                first.citations.extend(c for c in event.citations if c.refs not in [x.refs for x in first.citations])
                continue
            kept[key] = event
        order.append(event)
    n = 1
    for event in order:
        for i, cited in enumerate(event.citations):
            event.citations[i] = Cited(n, cited.refs, cited.url)
            n += 1
    return order


def build(
    brief: Brief, subject: str, *, now: datetime, start: datetime | None = None, end: datetime | None = None
) -> Timeline:
    brief._require_index()
    tz = brief.settings.workspace.timezone
    briefer = Briefer(brief.index, timezone=tz)
    scope = subject_scope(subject)
    convs = briefer.conversations(start or EPOCH, end or now, now, scope)
    found = dedupe(events(briefer, convs), ZoneInfo(tz))
    return Timeline(subject=subject, now=now, start=start, end=end, events=found, timezone=tz)


def render(timeline: Timeline, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(timeline.to_json(), ensure_ascii=False) + "\n"
    zone = ZoneInfo(timeline.timezone)
    md = fmt == "md"
    lines = [f"# Timeline: {timeline.subject}" if md else f"Timeline: {timeline.subject}", ""]
    if not timeline.events:
        until = timeline.now.astimezone(zone)
        lines.append(f'Nothing about "{timeline.subject}" in the indexed sources up to {until:%Y-%m-%d %H:%M %Z}.')
        return "\n".join(lines) + "\n"
    for event in timeline.events:
        local = event.at.astimezone(zone)
        marks = "".join(f"[[{c.n}]]({c.url})" if md and c.url else f"[{c.n}]" for c in event.citations)
        lines.append(f"- {local:%a %Y-%m-%d %H:%M} {event.text} {marks}")
    lines.append("")
    for event in timeline.events:
        for c in event.citations:
            lines.append(f"[{c.n}] {' '.join(c.refs)}" + (f" {c.url}" if c.url else "") + ("  " if md else ""))
    return "\n".join(lines).rstrip() + "\n"
