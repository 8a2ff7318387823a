"""`.ics` calendars: recurrence tables, zones, cancelled and broken events, deletions, and the as-of rule."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.asof import visible
from briefing.model import Chunk, ChunkLimits
from chunkers.calendar import chunk_event
from connectors.calendar.ics import IcsConnector
from tests.harness import SourceRunner

NOW = datetime(2026, 10, 15, 9, 0, tzinfo=UTC)

BERLIN = """BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE"""

EVENTS = """BEGIN:VEVENT
UID:planning@team
CREATED:20261001T080000Z
DTSTAMP:20261001T080000Z
DTSTART;TZID=Europe/Berlin:20261020T100000
DTEND;TZID=Europe/Berlin:20261020T104500
RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4
EXDATE;TZID=Europe/Berlin:20261103T100000
SUMMARY:Sprint planning
ORGANIZER;CN=Dana Levi:mailto:dana@example.com
ATTENDEE;CN=Sam Ortiz;PARTSTAT=ACCEPTED:mailto:sam@example.com
ATTENDEE;CN=Priya Raman;PARTSTAT=DECLINED:mailto:priya@example.com
ATTENDEE;CN=Lee Wong:mailto:lee@example.com
LOCATION:https://meet.example.com/plan
DESCRIPTION:Notes: https://acme.atlassian.net/wiki/spaces/ENG/pages/4242/Planning+notes\\nAgenda: PAY-12 a
 nd the ledger cut-over.
END:VEVENT
BEGIN:VEVENT
UID:planning@team
CREATED:20261001T080000Z
RECURRENCE-ID;TZID=Europe/Berlin:20261027T100000
DTSTART;TZID=Europe/Berlin:20261028T140000
DTEND;TZID=Europe/Berlin:20261028T144500
SUMMARY:Sprint planning (moved to Wednesday)
ORGANIZER;CN=Dana Levi:mailto:dana@example.com
END:VEVENT
BEGIN:VEVENT
UID:offsite@team
CREATED:20260901T080000Z
DTSTART;VALUE=DATE:20261022
DTEND;VALUE=DATE:20261024
SUMMARY:Team offsite
END:VEVENT
BEGIN:VEVENT
UID:retro@team
CREATED:20260901T080000Z
STATUS:CANCELLED
DTSTART;TZID=Europe/Berlin:20261016T150000
DTEND;TZID=Europe/Berlin:20261016T160000
RRULE:FREQ=WEEKLY;COUNT=3
SUMMARY:Retro
END:VEVENT
BEGIN:VEVENT
UID:focus@team
CREATED:20260901T080000Z
DTSTART:20261021T090000
DTEND:20261021T110000
SUMMARY:Focus time
END:VEVENT
END:VCALENDAR
"""


def calendar(extra: str = "") -> str:
    head = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\nX-WR-CALNAME:Team\nX-WR-TIMEZONE:Europe/Berlin\n"
    return head + BERLIN + "\n" + extra + EVENTS


def chunks_of(path: Path, **kwargs: object) -> dict[str, Chunk]:
    connector = IcsConnector("meetings", path, clock=lambda: NOW, **kwargs)  # type: ignore[arg-type]
    runner = SourceRunner(connector)
    runner.collect()
    normalised = runner.normalise()
    assert normalised.failures == []
    out: dict[str, Chunk] = {}
    for doc in normalised.documents:
        for chunk in chunk_event(doc, limits=ChunkLimits(max_chars=1200)):
            if chunk.valid_until is None:  # as it stands; `versions_of` gives its earlier version too
                out[chunk.refs[0]] = chunk
    return out


def test_recurrence_table(tmp_path: Path) -> None:
    path = tmp_path / "team.ics"
    path.write_text(calendar(), encoding="utf-8")
    chunks = chunks_of(path)
    planning = sorted(r for r in chunks if r.startswith("calendar:planning@team@"))
    # Four Tuesdays from 20 Oct, the third one (3 Nov) excluded, the second moved to Wednesday.
    assert planning == [
        "calendar:planning@team@20261020T080000Z",
        "calendar:planning@team@20261027T090000Z",
        "calendar:planning@team@20261110T090000Z",
    ]
    first = chunks["calendar:planning@team@20261020T080000Z"].text
    assert "When: Tue 2026-10-20 10:00-10:45 Europe/Berlin (08:00 UTC)" in first
    assert "Attendees: Sam Ortiz (accepted), Priya Raman (declined), Lee Wong (no response)" in first
    assert "Organiser: Dana Levi" in first and "Where: https://meet.example.com/plan" in first
    assert "Linked: confluence:4242" in first and "PAY-12 and the ledger cut-over" in first
    moved = chunks["calendar:planning@team@20261027T090000Z"]
    assert moved.start == datetime(2026, 10, 28, 13, 0, tzinfo=UTC) and "moved to Wednesday" in moved.text
    # Across the end of summer time the meeting stays at 10:00 local, an hour later in UTC.
    last = chunks["calendar:planning@team@20261110T090000Z"]
    assert last.start == datetime(2026, 11, 10, 9, 0, tzinfo=UTC) and "10:00-10:45 Europe/Berlin" in last.text


def test_all_day_floating_and_cancelled(tmp_path: Path) -> None:
    path = tmp_path / "team.ics"
    path.write_text(calendar(), encoding="utf-8")
    chunks = chunks_of(path)
    offsite = chunks["calendar:offsite@team"]
    assert "When: Thu 2026-10-22 to Fri 2026-10-23 (all day)" in offsite.text
    # A floating time is read in the calendar's zone (X-WR-TIMEZONE), or in the configured one.
    assert chunks["calendar:focus@team"].start == datetime(2026, 10, 21, 7, 0, tzinfo=UTC)
    in_utc = chunks_of(path, timezone="UTC")
    assert in_utc["calendar:focus@team"].start == datetime(2026, 10, 21, 9, 0, tzinfo=UTC)
    retro = [c for r, c in chunks.items() if r.startswith("calendar:retro@team@")]
    assert len(retro) == 3 and all(c.text.startswith("CANCELLED: Meeting: Retro") for c in retro)


def test_future_meetings_are_visible_as_of_now(tmp_path: Path) -> None:
    path = tmp_path / "team.ics"
    path.write_text(calendar(), encoding="utf-8")
    future = chunks_of(path)["calendar:planning@team@20261110T090000Z"]
    assert future.start > NOW
    assert visible(future, NOW) is not None  # scheduled later, written earlier
    assert visible(future, datetime(2026, 9, 30, tzinfo=UTC)) is None  # not yet in the calendar


def test_broken_event_is_counted_and_the_rest_continues(tmp_path: Path) -> None:
    broken = "BEGIN:VEVENT\nUID:broken@team\nDTSTART:not-a-date\nSUMMARY:Broken\nEND:VEVENT\n"
    (tmp_path / "a.ics").write_text(calendar(broken), encoding="utf-8")
    (tmp_path / "b.ics").write_text("this is not a calendar", encoding="utf-8")
    connector = IcsConnector("meetings", tmp_path, clock=lambda: NOW)
    runner = SourceRunner(connector)
    runner.collect()
    assert [f.key for f in runner.failures] == ["b.ics"]
    normalised = runner.normalise()
    assert [f.key for f in normalised.failures] == ["broken@team"]
    assert "calendar:offsite@team" in {d.key for d in normalised.documents}


def test_a_calendar_file_with_a_byte_order_mark_reads_like_one_without(tmp_path: Path) -> None:
    path = tmp_path / "team.ics"
    path.write_bytes(b"\xef\xbb\xbf" + calendar().encode("utf-8"))
    assert "calendar:planning@team@20261020T080000Z" in chunks_of(path)


def test_an_event_whose_recurrence_rule_is_malformed_is_still_shown_once(tmp_path: Path) -> None:
    # Escaped separators (as one exporter writes them) make the rule unreadable; the meeting itself is known.
    odd = (
        "BEGIN:VEVENT\nUID:standup@team\nDTSTAMP:20261001T080000Z\nDTSTART;TZID=Europe/Berlin:20261019T091500\n"
        "DTEND;TZID=Europe/Berlin:20261019T093000\nRRULE:FREQ=DAILY\\;UNTIL=20261120T080000Z\\;BYDAY=MO\\, TU\n"
        "SUMMARY:Daily stand-up\nEND:VEVENT\n"
    )
    path = tmp_path / "team.ics"
    path.write_text(calendar(odd), encoding="utf-8")
    standups = [c for r, c in chunks_of(path).items() if r.startswith("calendar:standup@team")]
    assert len(standups) == 1 and "Meeting: Daily stand-up" in standups[0].text


def test_removed_event_leaves_on_resync(tmp_path: Path) -> None:
    path = tmp_path / "team.ics"
    path.write_text(calendar(), encoding="utf-8")
    connector = IcsConnector("meetings", path, clock=lambda: NOW)
    runner = SourceRunner(connector)
    runner.collect()
    assert "offsite@team" in runner.cache
    text = calendar()
    start = text.index("BEGIN:VEVENT\nUID:offsite@team")
    path.write_text(text[:start] + text[text.index("END:VEVENT", start) + len("END:VEVENT\n") :], encoding="utf-8")
    runner.collect()
    assert "offsite@team" not in runner.cache and "planning@team" in runner.cache


@pytest.mark.parametrize("value", ["Mars/Olympus", "not a zone"])
def test_unknown_timezone_is_a_config_error(tmp_path: Path, value: str) -> None:
    from briefing.errors import ConfigError
    from briefing.registry import SourceContext
    from connectors.calendar import IcsSource
    from connectors.calendar.ics import build

    config = IcsSource(type="ics", path=tmp_path / "x.ics", timezone=value)
    with pytest.raises(ConfigError, match=r"sources\.meetings\.timezone"):
        build(SourceContext(name="meetings", config=config))
