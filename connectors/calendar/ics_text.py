"""An iCalendar file cut by event with icalendar: each UID's events with the file's own time zones and properties.

The file is parsed once as it is; each group is serialised by icalendar with every VTIMEZONE of its calendar
(a zone the file defines, such as `(UTC-03:00) Brasília`, is honoured when the group is read back). An event
without a UID gets a stable id derived from its content, so it is kept and stays the same document next time.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Any

DERIVED_PREFIX = "derived-"


def derived_uid(event: Any) -> str:
    """A stable id for an event without a UID: a hash of the event as the file writes it."""
    return DERIVED_PREFIX + hashlib.sha256(event.to_ical()).hexdigest()[:24]


def split_events(text: str) -> dict[str, str]:
    """UID -> an iCalendar text holding that UID's events (series and overrides) and the zones they may need.

    Raises ValueError when icalendar cannot read the file at all.
    """
    import icalendar

    calendars = icalendar.Calendar.from_ical(text, multiple=True)
    out: dict[str, str] = {}
    for calendar in calendars:
        zones = [c for c in calendar.subcomponents if c.name == "VTIMEZONE"]
        groups: dict[str, list[Any]] = defaultdict(list)
        for event in calendar.walk("VEVENT"):
            uid = " ".join(str(event.get("UID", "") or "").split())
            if not uid:
                uid = derived_uid(event)
                event.add("UID", uid)
            groups[uid].append(event)
        for uid, events in groups.items():
            part = icalendar.Calendar()
            for name, value in calendar.items():
                part[name] = value
            part.subcomponents.extend(zones)
            part.subcomponents.extend(events)
            out[uid] = part.to_ical().decode("utf-8")
    return out
