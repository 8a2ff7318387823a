"""Calendars from icalendar's and recurring-ical-events' own tests read with the values those tests assert."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from briefing.model import Document
from connectors.calendar.ics import IcsConnector

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ics_library"


def _documents(name: str, now: datetime) -> list[Document]:
    connector = IcsConnector("cal", FIXTURES / name, expand_days=400, clock=lambda: now)
    batch = next(iter(connector.fetch(connector.initial_cursor())))
    assert batch.failures == []
    normalised = connector.normalise(batch.records)
    assert normalised.failures == []
    return list(normalised.documents)


def test_an_rdate_period_starts_and_ends_in_the_files_zone() -> None:
    docs = _documents("issue_113_period_in_rdate.ics", datetime(2023, 12, 1, tzinfo=UTC))
    pst = timezone(timedelta(hours=-8))
    extra = next(d for d in docs if d.items[0].occurred_at.date().isoformat() == "2023-12-13")
    assert extra.items[0].occurred_at == datetime(2023, 12, 13, 12, 0, tzinfo=pst)
    assert datetime.fromisoformat(extra.metadata["end"]) == datetime(2023, 12, 13, 15, 0, tzinfo=pst)
    assert "20:00-23:00 UTC" in extra.items[0].text


@pytest.mark.parametrize(
    ("name", "start", "end"),
    [
        ("issue_132_swapped_start_and_end.ics", datetime(2023, 12, 18, 23, 30), datetime(2023, 12, 18, 23, 45)),
        ("end_before_start_event.ics", datetime(2019, 3, 4, 8, 0), datetime(2019, 3, 4, 8, 30)),
    ],
)
def test_swapped_start_and_end_are_read_as_the_span_they_bound(name: str, start: datetime, end: datetime) -> None:
    (doc,) = _documents(name, datetime(2019, 3, 1, tzinfo=UTC))
    assert doc.items[0].occurred_at.replace(tzinfo=None) == start
    assert datetime.fromisoformat(doc.metadata["end"]).replace(tzinfo=None) == end


def test_a_zone_defined_in_the_file_is_honoured_and_an_event_without_uid_is_kept_under_a_stable_id() -> None:
    (doc,) = _documents("issue_237_custom_vtimezone_no_uid.ics", datetime(2017, 5, 1, tzinfo=UTC))
    # 13:30 in "(UTC-03:00) Brasília" (standard time in May) is 16:30 UTC; read as UTC it would be 13:30.
    assert doc.items[0].occurred_at.astimezone(UTC) == datetime(2017, 5, 11, 16, 30, tzinfo=UTC)
    assert "16:30-17:00 UTC" in doc.items[0].text
    (again,) = _documents("issue_237_custom_vtimezone_no_uid.ics", datetime(2017, 5, 1, tzinfo=UTC))
    assert doc.key == again.key and doc.key.startswith("calendar:derived-")
