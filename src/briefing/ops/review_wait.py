"""Review-wait watches: a review requested from a person still pending longer than a threshold, as of now.

Read from what a reader sees at `now` (`briefing.view`): the state chunk of an open item lists, in the
`review_waits` role, each review still requested in its interval and since when (a review by that person, a
removed request, a merge or a close ends the interval, so it no longer lists them). The person is looked up in
the people directory at every run, so each of their handles (a GitHub login joined to their Slack account)
counts. Each wait notifies once: its key is the item, the reviewer and when the request was made.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from briefing import people, registry
from briefing.errors import InputError
from briefing.model import Chunk
from briefing.ops.deliver import Message
from briefing.ops.safe import one_line

if TYPE_CHECKING:
    from briefing.settings import Settings


class Watch(Protocol):
    """What this module reads of a watch (`briefing.ops.watch.Watch`)."""

    @property
    def id(self) -> str: ...

    @property
    def reviewer(self) -> str | None: ...

    @property
    def wait_hours(self) -> float: ...

    def label(self) -> str: ...

    def wants_chunk(self, chunk: Chunk, settings: Settings) -> bool: ...


MARKER = "[brief] watch"


def person_handles(settings: Settings, term: str) -> set[str]:
    """The handles of the person `term` names in the people directory (just `term` when nobody is found)."""
    record = people.find(people.records_for(settings), term)
    handles = {h.lower() for h in record.handles} if record is not None else set()
    return handles or {term.strip().lstrip("@").lower()}


def check_person(settings: Settings, term: str) -> str:
    """`term` when the people directory names exactly one person by it; else a one-line error."""
    records = people.records_for(settings)
    found = people.find_all(records, term) if term.strip() else []
    if len(found) != 1:
        what = "nobody" if not found else f"{len(found)} people ({', '.join(r.name for r in found[:5])})"
        raise InputError(f"--review-waiting '{term}' names {what} in the people directory: see `brief people`")
    return term


def _parse(value: object) -> datetime | None:
    try:
        at = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def due(
    settings: Settings, chunks: Sequence[Chunk], watch: Watch, now: datetime, handles: Iterable[str] | None = None
) -> list[tuple[str, Message]]:
    """(key, notification) for each review requested from the watch's person and pending longer than its hours."""
    who = {h.lower() for h in (handles if handles is not None else person_handles(settings, watch.reviewer or ""))}
    limit = timedelta(hours=watch.wait_hours)
    found: dict[str, tuple[str, Message]] = {}
    for chunk in chunks:
        if not watch.wants_chunk(chunk, settings):
            continue
        for wait in registry.meta(chunk, "review_waits"):
            reviewer, at = str(wait.get("by") or ""), _parse(wait.get("at"))
            if reviewer.lower() not in who or at is None or now - at < limit:
                continue
            ref = str(wait.get("ref") or chunk.doc_key)
            key = f"review-wait {ref} {reviewer} {at.isoformat()}"
            found.setdefault(key, (key, render(watch, chunk, ref, reviewer, at, now)))
    return sorted(found.values())


def render(watch: Watch, chunk: Chunk, ref: str, reviewer: str, at: datetime, now: datetime) -> Message:
    """One cited notification: which item, who was asked, since when and for how long."""
    hours = (now - at).total_seconds() / 3600
    since = at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    title = one_line(chunk.title or chunk.container, 80)
    lines = [
        f"Review waiting on {reviewer} for {hours:.0f} h (watch {watch.label()}, {watch.id}):",
        f"{title}: review requested from {reviewer} {since}, not given yet [1]",
        "",
        f"[1] {ref}" + (f" {chunk.url}" if chunk.url else ""),
    ]
    subject = f"{MARKER} {watch.label()}: {title}"
    return Message(subject=subject, text="\n".join(lines), key=f"watch-{watch.id}-{ref}-{reviewer}")
