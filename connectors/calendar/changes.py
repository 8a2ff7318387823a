"""An event changed after it was put in the calendar: what a reader before that change is shown.

Calendars keep no edit history. An event gives when it was created (CREATED; Google's `created`), when it was last
changed (LAST-MODIFIED; `updated`) and how many significant revisions its organiser made (SEQUENCE; `sequence`: its
time, place, recurrence or status). Between creation and the last change the event was in the calendar, but in a
state nobody recorded. A reader in that span sees it as an earlier version of the event (chunkers.versions'
convention: an item valid until the change) that:

- is not cancelled: a cancellation is itself a change, so one made after the moment asked about had not happened;
- says that it changed later, and, when the organiser never revised it (SEQUENCE 0), that its time is the one
  first set; otherwise that its time, place and details may be the later ones.

From the last change on, the event reads as it stands.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from briefing.model import Item

# Header line of the note, kept on every piece of a long event (chunkers.calendar).
NOTE = "Changed later:"
# A change this close to the creation is the creation itself (Google stamps them milliseconds apart).
SAME_MOMENT = timedelta(minutes=1)
_CANCELLED = "CANCELLED: "


def note(sequence: int) -> str:
    """The line a reader before the last change sees."""
    if sequence > 0:
        return f"{NOTE} edited after this moment; its time, place and details may be the later ones."
    return f"{NOTE} edited after this moment, never rescheduled; its description and replies may be the later ones."


def earlier(item: Item, written: datetime | None, modified: datetime | None, sequence: int) -> Item | None:
    """The event as shown between its creation and its last change, or None when it was not changed since."""
    if written is None or modified is None or modified - written <= SAME_MOMENT:
        return None
    lines = item.text.split("\n")
    lines[0] = lines[0].removeprefix(_CANCELLED)
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("When:")), 1)
    lines.insert(at, note(sequence))
    status = str(item.metadata.get("status") or "")
    metadata = {
        **item.metadata,
        "status": "confirmed" if status == "cancelled" else status,
        "written_at": written.isoformat(),
        "valid_until": modified.isoformat(),
        "changed_later": True,
    }
    return replace(item, text="\n".join(lines), metadata=metadata)
