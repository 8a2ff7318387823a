"""What a question asks for beyond its topic (`Constraints`), and the names it resolves against (`Directory`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from briefing.model import Person
from briefing.question.timewindow import Span, TimeWindow


@dataclass
class Directory:
    """Metadata values known from the index, so that names in a question resolve to real values."""

    people: list[Person] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)
    ticket_keys: set[str] = field(default_factory=set)
    # Channels and projects that resolve when named but are never listed (direct messages: names of who talks).
    unlisted: set[str] = field(default_factory=set)

    def listed(self) -> list[str]:
        """The channel and project names that may be shown as known ones (hints, suggestions)."""
        return [c for c in (*self.channels, *self.projects) if c not in self.unlisted]


@dataclass
class Constraints:
    """What a question asks for, beyond its topic; every field is a soft boost unless its kind is in `hard`."""

    time: TimeWindow | None = None
    sources: list[str] = field(default_factory=list)
    people: list[str] = field(default_factory=list)
    # The people directory's ids of `people` (briefing.people), matched against chunks' author and mention ids.
    person_ids: list[str] = field(default_factory=list)
    # (name, as written): how the question wrote each person it names ("hknoechel", "Hans" for "Hans Knöchel").
    person_forms: list[tuple[str, str]] = field(default_factory=list)
    channels: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)
    tickets: list[str] = field(default_factory=list)
    prs: list[str] = field(default_factory=list)
    # Release versions named ("v0.8.0", "1.10.2"), without a leading "v": each matches only itself (`version_match`).
    versions: list[str] = field(default_factory=list)
    hard: set[str] = field(default_factory=set)
    intent: str = "fact"
    # (kind, span): kind is one of time, source, person, channel, project, ticket, pr, version.
    spans: list[tuple[str, Span]] = field(default_factory=list)

    def is_empty(self) -> bool:
        """True when nothing narrows the search (the intent alone does not)."""
        values = (self.sources, self.people, self.channels, self.projects, self.tickets, self.prs)
        return self.time is None and not any(values)

    def to_json(self) -> dict[str, Any]:
        return {
            "time": self.time.to_json() if self.time else None,
            "sources": list(self.sources),
            "people": list(self.people),
            "person_ids": list(self.person_ids),
            "person_forms": [list(pair) for pair in self.person_forms],
            "channels": list(self.channels),
            "projects": list(self.projects),
            "tickets": list(self.tickets),
            "prs": list(self.prs),
            "versions": list(self.versions),
            "hard": sorted(self.hard),
            "intent": self.intent,
            "spans": [span.to_json(kind) for kind, span in self.spans],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Constraints:
        """The inverse of `to_json`, for graph state and traces read back from JSON."""
        time = data.get("time")
        window = None
        if time:
            span = time.get("span")
            window = TimeWindow(
                datetime.fromisoformat(time["start"]),
                datetime.fromisoformat(time["end"]),
                Span(span["start"], span["end"], span["text"]) if span else None,
                time.get("label", ""),
                time.get("note", ""),
            )
        return cls(
            time=window,
            sources=list(data.get("sources", [])),
            people=list(data.get("people", [])),
            person_ids=list(data.get("person_ids", [])),
            person_forms=[(str(name), str(form)) for name, form in data.get("person_forms", [])],
            channels=list(data.get("channels", [])),
            projects=list(data.get("projects", [])),
            tickets=list(data.get("tickets", [])),
            prs=list(data.get("prs", [])),
            versions=list(data.get("versions", [])),
            hard=set(data.get("hard", [])),
            intent=data.get("intent", "fact"),
            spans=[(s["kind"], Span(s["start"], s["end"], s["text"])) for s in data.get("spans", [])],
        )
