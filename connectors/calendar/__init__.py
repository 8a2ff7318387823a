"""Calendars: `.ics` files (`type = "ics"`) and Google Calendar (`type = "calendar"`).

Accepted by the config contract; the connectors are not built yet, so `brief ingest` says so (exit code 3).
Refs `calendar:<UID>` and `calendar:<UID>@<recurrence-id>` for one occurrence.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Literal

from pydantic import Field

from briefing.sources import ApiSource, Presentation, SourceBase, SourceDescriptor


class CalendarSource(ApiSource):
    type: Literal["calendar"]
    calendars: list[str] = Field(default_factory=lambda: ["primary"])
    credentials_env: str | None = None


class IcsSource(SourceBase):
    type: Literal["ics"]
    path: Path


ICS = SourceDescriptor(
    type="ics",
    config=IcsSource,
    factory=None,
    family="calendar",
    container="calendar",
    presentation=Presentation(label="calendar", place="title_or_container"),
    words=(r"meetings?|calendar(?:\s+invites?)?|invites?",),
    ref_patterns=(r"calendar:.+",),
)
GOOGLE = replace(ICS, type="calendar", config=CalendarSource)
