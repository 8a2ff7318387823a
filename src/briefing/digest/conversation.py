"""A conversation of a briefing window: its units with what cites them, its recorded transitions, its topic words.

A document (a thread, a ticket, a PR, a page, an email thread) is one conversation, and a document kind marked
`stream` (a channel's top-level messages) gives one conversation per chunk, the chunker's burst of consecutive
messages (`briefing.digest.gather`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from briefing import registry
from briefing.errors import BriefError
from briefing.model import Chunk, Unit
from briefing.sources import DocumentKind, Presentation
from briefing.textrules import STOPWORDS

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.#/-]*[a-z0-9]|[a-z0-9]")


@dataclass(frozen=True)
class Seen:
    """One unit with what it needs to be cited: its chunk's link and its time (the chunk's when it has none)."""

    unit: Unit
    at: datetime
    url: str
    chunk: Chunk


@dataclass(frozen=True)
class Transition:
    """A change of state the source's own history records: a ticket's status (from -> to), a PR merged or closed,
    a page created or updated to a version; who, when, and the unit it is cited to (chunk metadata "events")."""

    event: str
    at: datetime
    by: str | None
    ref: str
    before: str | None = None
    after: str | None = None
    version: int | None = None

    def describe(self) -> str:
        who = f" by {self.by}" if self.by else ""
        if self.event == "status":
            return f"{self.before or '(none)'} → {self.after or '(none)'}{who}"
        if self.event == "updated" and self.version:
            return f"updated to version {self.version}{who}"
        return f"{self.event}{who}"


def transitions(chunks: Iterable[Chunk]) -> list[Transition]:
    """Every recorded transition of these chunks, once each, in time order."""
    found: dict[tuple[str, str, str, str], Transition] = {}
    for chunk in chunks:
        for raw in registry.meta(chunk, "events"):
            if not isinstance(raw, dict) or not raw.get("event") or not raw.get("at"):
                continue
            try:
                at = datetime.fromisoformat(str(raw["at"]).replace("Z", "+00:00"))
            except ValueError:
                continue
            if at.tzinfo is None:
                continue
            version = raw.get("version")
            made = Transition(
                event=str(raw["event"]),
                at=at,
                by=str(raw["by"]) if raw.get("by") else None,
                ref=str(raw.get("ref") or chunk.doc_key),
                before=str(raw["from"]) if raw.get("from") else None,
                after=str(raw["to"]) if raw.get("to") else None,
                version=version if isinstance(version, int) else None,
            )
            found.setdefault((made.event, made.at.isoformat(), made.ref, made.after or ""), made)
    return sorted(found.values(), key=lambda t: (t.at, t.ref))


@dataclass
class Conversation:
    key: str
    doc_key: str
    source_type: str
    kind: str
    container: str
    title: str
    units: list[Seen] = field(default_factory=list)  # inside the window, in time order
    earlier: list[Seen] = field(default_factory=list)  # of the same conversation, before the window
    tickets: set[str] = field(default_factory=set)
    threaded: bool = False
    stream: bool = False
    changes: list[Transition] = field(default_factory=list)  # recorded transitions inside the window

    @property
    def opener(self) -> Seen:
        """The message the conversation opens with; in a channel's stream, a greeting on its own ("Hi", "hello
        all") opens nothing: its writer's next message, before anyone else speaks, does."""
        seen = [*self.earlier, *self.units]
        if self.stream:
            from briefing.digest.text import is_filler

            for first, then in zip(seen, seen[1:], strict=False):
                if first.unit.author != then.unit.author or not is_filler(first.unit.text):
                    break
                if not is_filler(then.unit.text):
                    return then
        return seen[0]

    @property
    def opened_in_window(self) -> bool:
        return not self.earlier

    def people(self) -> list[str]:
        return list(dict.fromkeys(s.unit.author for s in self.units if s.unit.author))

    def text(self) -> str:
        return "\n".join([self.title, *(s.unit.text for s in (*self.earlier, *self.units))])


def among(chunks: Iterable[Chunk]) -> Callable[[Conversation], bool]:
    """Whether a conversation is one of these chunks' own: a document's (a thread, a ticket, a page) by its key, a
    stream's burst by a message it shares with them (a channel's top-level messages are one document of many
    conversations, so its key would bring them all)."""
    docs: set[str] = set()
    units: set[tuple[str, str]] = set()
    for chunk in chunks:
        docs.add(chunk.doc_key)
        units.update((chunk.doc_key, u.ref) for u in chunk.units)

    def holds(conv: Conversation) -> bool:
        if conv.stream:
            return any((conv.doc_key, s.unit.ref) in units for s in conv.units)
        return conv.doc_key in docs

    return holds


def kind_of(name: str) -> DocumentKind | None:
    try:
        return registry.kind(name)
    except BriefError:
        return None


def presentation(source_type: str) -> Presentation:
    found = registry.family(source_type)
    return found.presentation if found is not None else Presentation(label=source_type)


def unit_url(chunk: Chunk, unit: Unit) -> str:
    """The link that opens one unit (`Unit.url`: a message permalink, a comment), else its chunk's link."""
    return unit.url or chunk.url


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def topic_terms(topic: str) -> set[str]:
    return {_stem(w.strip(".-")) for w in _TOKEN.findall(topic.lower()) if len(w) > 1 and w not in STOPWORDS}


def matches_topic(conversation: Conversation, terms: set[str]) -> bool:
    """Most of the topic's words occur in the conversation (all of them for a one- or two-word topic)."""
    if not terms:
        return True
    tokens = _TOKEN.findall(conversation.text().lower())
    # "ledger-api#431" and "kestrelpay/ledger-api" also name "ledger-api".
    parts = [p for t in tokens for p in re.split(r"[#/.:]", t) if p]
    have = {_stem(w.strip(".-")) for w in (*tokens, *parts)}
    found = len(terms & have)
    return found == len(terms) if len(terms) <= 2 else found / len(terms) >= 0.6


def seen_units(chunk: Chunk) -> list[Seen]:
    return [Seen(u, u.at or chunk.start, unit_url(chunk, u), chunk) for u in chunk.units]


def dedupe(seen: Iterable[Seen]) -> list[Seen]:
    """One entry per unit (a unit repeated in overlapping chunks counts once), in time order; the pieces of a long
    message split over chunks stay, in the order of their chunks."""
    out: dict[tuple[str, str], Seen] = {}
    for s in seen:
        out.setdefault((s.unit.ref, s.unit.text), s)
    return sorted(out.values(), key=lambda s: (s.at, s.unit.ref, _piece(s.chunk)))


def _piece(chunk: Chunk) -> int:
    """Where a piece of a message split over chunks comes in the message: its chunk's place in the conversation
    (the number the chunk id ends with). A document's sections share one ref and time and keep the order they
    were read in."""
    return chunk.ordinal if presentation(chunk.source_type).conversational else 0


def messages(units: Sequence[Seen]) -> int:
    """How many messages the units are: a long message split over chunks is one."""
    return len({s.unit.ref for s in units})
