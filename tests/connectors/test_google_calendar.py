"""Google Calendar through google-api-python-client against a local server speaking Calendar v3's shapes.

The same meetings as tests/connectors/test_ics.py, as Google's API returns them (a series with `recurrence`
lines, a moved instance with `recurringEventId`/`originalStartTime`), must give the same occurrence chunks as
the `.ics` file; sync tokens bring changes and deletions; 410 Gone lists the calendar again.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from briefing.errors import AuthError, RateLimitedError
from briefing.model import Chunk, ChunkLimits
from briefing.registry import FetchOptions, SourceContext
from chunkers.calendar import chunk_event
from connectors.calendar import CalendarSource
from connectors.calendar.google import GoogleCalendarConnector, build
from tests.connectors.test_ics import NOW, calendar, chunks_of
from tests.fakes.google_api import GoogleFake, serve
from tests.harness import SourceRunner

TEAM = "team@kestrelpay.example"
WIKI = "https://acme.atlassian.net/wiki/spaces/ENG/pages"
BERLIN = "Europe/Berlin"


def at(stamp: str) -> dict[str, str]:
    return {"dateTime": stamp, "timeZone": BERLIN}


PLANNING: dict[str, Any] = {
    "id": "planning",
    "iCalUID": "planning@team",
    "created": "2026-10-01T08:00:00.000Z",
    "updated": "2026-10-01T08:00:00.000Z",
    "summary": "Sprint planning",
    "start": at("2026-10-20T10:00:00+02:00"),
    "end": at("2026-10-20T10:45:00+02:00"),
    "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4", "EXDATE;TZID=Europe/Berlin:20261103T100000"],
    "organizer": {"email": "dana@example.com", "displayName": "Dana Levi"},
    "attendees": [
        {"email": "sam@example.com", "displayName": "Sam Ortiz", "responseStatus": "accepted"},
        {"email": "priya@example.com", "displayName": "Priya Raman", "responseStatus": "declined"},
        {"email": "lee@example.com", "displayName": "Lee Wong", "responseStatus": "needsAction"},
    ],
    "location": "https://meet.example.com/plan",
    "description": "Notes: https://acme.atlassian.net/wiki/spaces/ENG/pages/4242/Planning+notes\n"
    "Agenda: PAY-12 and the ledger cut-over.",
}
MOVED: dict[str, Any] = {
    "id": "planning_20261027T090000Z",
    "iCalUID": "planning@team",
    "recurringEventId": "planning",
    "created": "2026-10-01T08:00:00.000Z",
    "updated": "2026-10-01T08:00:00.000Z",  # not changed since, like its twin in the .ics file
    "summary": "Sprint planning (moved to Wednesday)",
    "originalStartTime": at("2026-10-27T10:00:00+01:00"),
    "start": at("2026-10-28T14:00:00+01:00"),
    "end": at("2026-10-28T14:45:00+01:00"),
    "organizer": {"email": "dana@example.com", "displayName": "Dana Levi"},
}
OFFSITE: dict[str, Any] = {
    "id": "offsite",
    "iCalUID": "offsite@team",
    "created": "2026-09-01T08:00:00.000Z",
    "updated": "2026-09-01T08:00:00.000Z",
    "summary": "Team offsite",
    "start": {"date": "2026-10-22"},
    "end": {"date": "2026-10-24"},
}


@pytest.fixture
def fake() -> Iterator[GoogleFake]:
    server = GoogleFake(now=NOW)
    server.add_calendar(TEAM, "Team", BERLIN)
    for event in (PLANNING, MOVED, OFFSITE):
        server.put_event(TEAM, copy.deepcopy(event))
    with serve(server):
        yield server


class Runner(SourceRunner):
    def __init__(self, fake: GoogleFake, tmp_path: Path) -> None:
        super().__init__()
        self.fake = fake
        self.file = tmp_path / "calendar.json"
        self.file.write_text(json.dumps(fake.authorized_user()), encoding="utf-8")
        self.sleeps: list[float] = []

    def calendar(self, *, full: bool = False, **config: Any) -> GoogleCalendarConnector:
        settings: dict[str, Any] = {
            "type": "calendar",
            "base_url": self.fake.url,
            "credentials_file": self.file,
            "calendars": [TEAM],
        }
        settings.update(config)
        ctx = SourceContext(
            name="meetings", config=CalendarSource(**settings), options=FetchOptions(full=full), now=NOW
        )
        connector = build(ctx)
        connector.call.layer.sleep = self.sleeps.append
        return connector

    def chunks(self, connector: GoogleCalendarConnector) -> dict[str, Chunk]:
        normalised = self.normalise(connector)
        assert normalised.failures == []
        return {  # each event as it stands (not the earlier version a reader before its last change sees)
            chunk.refs[0]: chunk
            for doc in normalised.documents
            for chunk in chunk_event(doc, limits=ChunkLimits(max_chars=1200))
            if chunk.valid_until is None
        }


def test_the_same_meetings_give_the_same_chunks_as_the_ics_file(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner(fake, tmp_path)
    connector = runner.calendar()
    runner.collect(connector)
    google = runner.chunks(connector)

    path = tmp_path / "team.ics"
    path.write_text(calendar(), encoding="utf-8")
    ics = {
        ref: chunk
        for ref, chunk in chunks_of(path).items()
        if ref.startswith(("calendar:planning", "calendar:offsite"))
    }

    assert sorted(google) == sorted(ics)  # EXDATE honoured, the moved instance in its slot, the all-day event
    for ref in (
        "calendar:planning@team@20261020T080000Z",
        "calendar:planning@team@20261110T090000Z",
        "calendar:offsite@team",
    ):
        assert google[ref].text == ics[ref].text
        assert (google[ref].start, google[ref].end, google[ref].written_at) == (
            ics[ref].start,
            ics[ref].end,
            ics[ref].written_at,
        )
    moved = google["calendar:planning@team@20261027T090000Z"]
    assert moved.start == datetime(2026, 10, 28, 13, 0, tzinfo=UTC) and "moved to Wednesday" in moved.text
    # Across the end of summer time the meeting stays at 10:00 Berlin time.
    assert "10:00-10:45 Europe/Berlin (09:00 UTC)" in google["calendar:planning@team@20261110T090000Z"].text
    events = [entry for entry in fake.log if entry.path.endswith("/events")]
    assert events[0].params["singleEvents"] == ["false"] and "syncToken" not in events[0].params


def test_sync_token_brings_changes_cancellations_and_deletions(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner(fake, tmp_path)
    runner.collect(runner.calendar())
    token = runner.saved_cursor["calendars"][TEAM]["sync_token"]  # type: ignore[index]

    fake.put_event(
        TEAM,
        {
            "id": "planning_20261110T090000Z",
            "iCalUID": "planning@team",
            "recurringEventId": "planning",
            "status": "cancelled",
            "originalStartTime": at("2026-11-10T10:00:00+01:00"),
        },
    )
    fake.delete_event(TEAM, "offsite")
    fake.put_event(
        TEAM,
        {
            "id": "review",
            "summary": "Incident review",
            "created": "2026-10-14T08:00:00.000Z",
            "start": at("2026-10-21T15:00:00+02:00"),
            "end": at("2026-10-21T16:00:00+02:00"),
            "hangoutLink": "https://meet.google.com/abc-defg-hij",
            "description": f'Doc: <a href="{WIKI}/777/Review">review notes</a>',
        },
    )
    connector = runner.calendar()
    runner.collect(connector)

    calls = [entry for entry in fake.log if entry.path.endswith("/events")]
    assert calls[-1].params["syncToken"] == [token]
    assert not any(key.endswith("/offsite") for key in runner.cache)
    chunks = runner.chunks(connector)
    assert "calendar:offsite@team" not in chunks
    assert chunks["calendar:planning@team@20261110T090000Z"].text.startswith("CANCELLED: Meeting: Sprint planning")
    review = chunks["calendar:review@google.com"].text
    assert "Link: https://meet.google.com/abc-defg-hij" in review and "Linked: confluence:777" in review


def test_deleting_a_series_removes_its_instances_too(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner(fake, tmp_path)
    runner.collect(runner.calendar())
    fake.delete_event(TEAM, "planning")
    connector = runner.calendar()
    runner.collect(connector)
    assert sorted(runner.cache) == [f"{TEAM}/offsite"]
    assert list(runner.chunks(connector)) == ["calendar:offsite@team"]


def test_an_expired_sync_token_lists_the_calendar_again(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner(fake, tmp_path)
    runner.collect(runner.calendar())
    del fake.calendars[TEAM]["events"]["offsite"]  # gone without a tombstone the old token could list
    fake.token_floor = fake.change + 1  # every token issued so far answers 410 Gone
    runner.collect(runner.calendar())
    assert f"{TEAM}/offsite" not in runner.cache and f"{TEAM}/planning" in runner.cache
    listings = [entry for entry in fake.log if entry.path.endswith("/events")]
    assert "syncToken" in listings[-2].params and "syncToken" not in listings[-1].params


def test_listings_are_paged_and_a_shared_event_is_indexed_once(fake: GoogleFake, tmp_path: Path) -> None:
    fake.page_size = 1
    fake.add_calendar("dana@example.com", "Dana", BERLIN)
    fake.put_event("dana@example.com", copy.deepcopy(OFFSITE))
    runner = Runner(fake, tmp_path)
    connector = runner.calendar(calendars=[TEAM, "dana@example.com"])
    runner.collect(connector)
    assert len(runner.cache) == 4
    chunks = runner.chunks(connector)
    assert chunks["calendar:offsite@team"].container == "Team"  # the first configured calendar wins
    assert len([ref for ref in chunks if ref.startswith("calendar:offsite")]) == 1


def test_rate_limits_are_waited_out_then_exit_6(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner(fake, tmp_path)
    fake.rate_limit, fake.retry_after = 1, "4"
    runner.collect(runner.calendar())
    assert runner.sleeps == [4.0] and len(runner.cache) == 3
    fake.rate_limit = -1
    with pytest.raises(RateLimitedError):
        runner.collect(runner.calendar(max_retries=1))
    assert len(runner.cache) == 3


def test_doctor_probe_is_one_authenticated_call_per_calendar(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner(fake, tmp_path)
    runner.calendar().check()
    assert [entry.path for entry in fake.log if entry.method == "GET"] == [
        f"/calendar/v3/calendars/{TEAM}/events".replace("@", "%40")
    ]
    fake.revoke()
    fake.refresh_token = "1//rotated-elsewhere-0002"  # the file's refresh token no longer works
    with pytest.raises(AuthError):
        runner.calendar().check()
