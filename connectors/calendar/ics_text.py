"""iCalendar text cut by event: each UID's VEVENT blocks, the time zones and properties, and a calendar of a few."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

_EVENT_BLOCK = re.compile(r"^BEGIN:VEVENT\r?\n.*?^END:VEVENT\r?$", re.MULTILINE | re.DOTALL)
_TZ_BLOCK = re.compile(r"^BEGIN:VTIMEZONE\r?\n.*?^END:VTIMEZONE\r?$", re.MULTILINE | re.DOTALL)
_UID = re.compile(r"^UID:(.+?)\r?$", re.MULTILINE)


def wrap_events(events: Sequence[str], zones: Sequence[str], props: Sequence[str]) -> str:
    """A calendar holding just these events, with the time zones and calendar properties they need."""
    return "\r\n".join(["BEGIN:VCALENDAR", "VERSION:2.0", *props, *zones, *events, "END:VCALENDAR"]) + "\r\n"


def split_events(text: str) -> tuple[dict[str, list[str]], list[str], list[str], list[str]]:
    """UID -> its VEVENT blocks, the VTIMEZONE blocks, calendar-level properties, and blocks without a UID."""
    text = text.replace("\r\n", "\n").replace("\n ", "").replace("\n\t", "").replace("\n", "\r\n")
    zones = [m.group(0) for m in _TZ_BLOCK.finditer(text)]
    head = text.split("BEGIN:VEVENT", 1)[0]
    head = _TZ_BLOCK.sub("", head)
    props = [
        line
        for line in head.splitlines()
        if line.startswith(("X-WR-CALNAME", "X-WR-TIMEZONE", "PRODID", "CALSCALE", "METHOD"))
    ]
    by_uid: dict[str, list[str]] = defaultdict(list)
    orphans: list[str] = []
    for block in _EVENT_BLOCK.finditer(text):
        uid = _UID.search(block.group(0))
        if uid:
            by_uid[uid.group(1).strip()].append(block.group(0))
        else:
            orphans.append(block.group(0))
    return by_uid, zones, props, orphans
