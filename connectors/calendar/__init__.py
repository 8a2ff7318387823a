"""Calendars: `.ics` files (`type = "ics"`) and Google Calendar (`type = "calendar"`).

Recurring events are expanded `expand_days` back and ahead of now (RRULE, RDATE, EXDATE, RECURRENCE-ID
overrides, cancelled occurrences, VTIMEZONE and floating times); each occurrence is one event chunk. Refs
`calendar:<UID>` and `calendar:<UID>@<recurrence-id>` for one occurrence of a series. Chunks carry the time the
event was written (`written_at`), so questions about next week's meetings see events scheduled after `now`.
Google Calendar is read through google-api-python-client with sync tokens (`connectors.calendar.google`), its
events turned into the same occurrence documents as an `.ics` file's.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Literal

from pydantic import Field

from briefing.sources import ApiSource, DocumentKind, Flag, KindLimits, Presentation, SourceBase, SourceDescriptor


class CalendarSource(ApiSource):
    """Google Calendar; `credentials_file` is a service-account key or an OAuth authorized-user file."""

    type: Literal["calendar"]
    calendars: list[str] = Field(default_factory=lambda: ["primary"])
    credentials_file: Path | None = None
    expand_days: int = Field(default=120, ge=1, le=3660)
    # Event times are shown in this zone; the calendar's own zone (from the API) when unset.
    timezone: str | None = None
    # A service account reads a user's calendars through domain-wide delegation: that user's address.
    delegated_user: str | None = None
    page_size: int = Field(default=250, ge=1, le=2500)


class IcsSource(SourceBase):
    type: Literal["ics"]
    path: Path
    expand_days: int = Field(default=120, ge=1, le=3660)
    # The zone event times are shown in, and floating times (no zone in the file) are read in; the calendar's
    # own X-WR-TIMEZONE, then UTC, when unset.
    timezone: str | None = None


EVENT = DocumentKind(
    "calendar_event",
    "chunkers.calendar:chunk_event",
    KindLimits(max_chars=1200, max_items=1, gap_hours=0.0, topic_threshold=0.0),
    scheduled=True,
)

ICS = SourceDescriptor(
    type="ics",
    config=IcsSource,
    factory="connectors.calendar.ics:build",
    family="calendar",
    container="calendar",
    presentation=Presentation(label="calendar", place="title_or_container"),
    kinds=(EVENT,),
    words=(r"meetings?|calendar(?:\s+invites?)?|invites?",),
    ref_patterns=(r"calendar:.+",),
    supports=frozenset({"deletions", "scopes"}),
    # chunkers.calendar copies the event's iCalendar STATUS, its all-day flag and its linked refs, and marks the
    # version a reader sees before the event's last change (connectors.calendar.changes).
    metadata={
        "cancelled": Flag("status", "CANCELLED"),
        "all_day": "all_day",
        "links": "links",
        "changed_later": "changed_later",
    },
    # No edit history: before its last change an event shows uncancelled and marked as changed later.
    history=("status", "time", "details"),
)
GOOGLE = replace(ICS, type="calendar", config=CalendarSource, factory="connectors.calendar.google:build")
