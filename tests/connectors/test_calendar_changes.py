"""Calendar events changed after they were written: before the change, never the later state as known then.

Calendars give no edit history, only CREATED / LAST-MODIFIED / SEQUENCE (Google: `created`, `updated`,
`sequence`). Asked before an event's last change, a reader sees it uncancelled and marked as changed later;
from the change on, as it stands. Both the `.ics` reader and Google Calendar (through the local Calendar v3
server) give the same, and `brief ask` says so in its meetings list.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing import registry
from briefing.asof import visible
from briefing.cli.app import app
from briefing.model import Chunk, ChunkLimits
from chunkers.calendar import chunk_event
from connectors.calendar.ics import IcsConnector
from tests.connectors.test_google_calendar import PLANNING, TEAM, Runner
from tests.fakes.google_api import GoogleFake, serve
from tests.harness import SourceRunner

NOW = datetime(2026, 10, 16, 9, 0, tzinfo=UTC)
BEFORE = datetime(2026, 10, 14, 9, 0, tzinfo=UTC)  # a Wednesday: "next week" is 19-25 October
AFTER = datetime(2026, 10, 15, 9, 0, tzinfo=UTC)
ICS = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
X-WR-CALNAME:Team
BEGIN:VEVENT
UID:review@team
CREATED:20261001T080000Z
LAST-MODIFIED:20261014T120000Z
DTSTAMP:20261014T120000Z
SEQUENCE:1
STATUS:CANCELLED
DTSTART:20261020T130000Z
DTEND:20261020T140000Z
SUMMARY:Ledger design review
ORGANIZER;CN=Dana Levi:mailto:dana@example.com
DESCRIPTION:Walk through the ledger cut-over design.
END:VEVENT
BEGIN:VEVENT
UID:sync@team
CREATED:20261001T080000Z
LAST-MODIFIED:20261014T120000Z
DTSTART:20261021T090000Z
DTEND:20261021T093000Z
SUMMARY:Payments sync
DESCRIPTION:Agenda added later: PAY-12.
END:VEVENT
BEGIN:VEVENT
UID:retro@team
CREATED:20261001T080000Z
LAST-MODIFIED:20261001T080000Z
DTSTART:20261022T150000Z
DTEND:20261022T160000Z
SUMMARY:Retro
END:VEVENT
END:VCALENDAR
"""


def _seen(chunks: list[Chunk], now: datetime) -> list[Chunk]:
    return [c for c in (visible(c, now) for c in chunks) if c is not None]


@pytest.fixture
def events(tmp_path: Path) -> dict[str, list[Chunk]]:
    (tmp_path / "team.ics").write_text(ICS, encoding="utf-8")
    runner = SourceRunner(IcsConnector("meetings", tmp_path / "team.ics", clock=lambda: NOW))
    runner.collect()
    normalised = runner.normalise()
    assert normalised.failures == []
    return {d.key: list(chunk_event(d, limits=ChunkLimits(max_chars=1200))) for d in normalised.documents}


def test_a_cancellation_after_now_is_not_known_at_now(events: dict[str, list[Chunk]]) -> None:
    review = events["calendar:review@team"]
    (then,) = _seen(review, BEFORE)
    assert then.text.startswith("Meeting: Ledger design review") and not registry.meta(then, "cancelled")
    assert "Changed later: edited after this moment; its time, place and details may be the later ones." in then.text
    assert registry.meta(then, "changed_later")
    (later,) = _seen(review, AFTER)
    assert later.text.startswith("CANCELLED: Meeting: Ledger design review") and registry.meta(later, "cancelled")
    assert "Changed later" not in later.text and not registry.meta(later, "changed_later")
    assert _seen(review, datetime(2026, 9, 30, tzinfo=UTC)) == []  # not in the calendar yet


def test_an_event_never_rescheduled_keeps_its_time_and_says_its_details_may_be_newer(
    events: dict[str, list[Chunk]],
) -> None:
    (then,) = _seen(events["calendar:sync@team"], BEFORE)
    assert "When: Wed 2026-10-21 09:00-09:30 UTC" in then.text
    assert "never rescheduled; its description and replies may be the later ones" in then.text
    (unchanged,) = events["calendar:retro@team"]  # never changed after it was written: one version
    assert unchanged.valid_until is None and "Changed later" not in unchanged.text


@pytest.fixture
def fake() -> Iterator[GoogleFake]:
    server = GoogleFake(now=NOW)
    server.add_calendar(TEAM, "Team", "Europe/Berlin")
    moved = copy.deepcopy(PLANNING)
    moved.pop("recurrence")
    moved.update(id="planning", updated="2026-10-14T12:00:00.000Z", sequence=2)
    server.put_event(TEAM, moved)
    with serve(server) as running:
        yield running


def test_google_events_read_the_same_from_created_updated_and_sequence(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner(fake, tmp_path)
    connector = runner.calendar()
    runner.collect(connector)
    (document,) = runner.normalise(connector).documents
    chunks = list(chunk_event(document, limits=ChunkLimits(max_chars=1200)))

    (then,) = _seen(chunks, BEFORE)
    assert "its time, place and details may be the later ones" in then.text
    (later,) = _seen(chunks, AFTER)
    assert "Changed later" not in later.text and later.text.startswith("Meeting: Sprint planning")


def test_the_meetings_list_marks_what_changed_after_now(tmp_path: Path) -> None:
    (tmp_path / "team.ics").write_text(ICS, encoding="utf-8")
    config = tmp_path / "brief.toml"
    config.write_text('[workspace]\nname = "cal"\n\n[sources.meetings]\ntype = "ics"\npath = "team.ics"\n')
    cli = CliRunner()
    assert cli.invoke(app, ["--config", str(config), "ingest"]).exit_code == 0

    def meetings(now: datetime) -> str:
        args = ["--config", str(config), "ask", "What meetings do we have next week?", "--json"]
        result = cli.invoke(app, [*args, "--now", now.isoformat()])
        assert result.exit_code == 0, result.output
        return str(json.loads(result.stdout)["answer"])

    before = meetings(BEFORE)
    assert "Ledger design review (changed after this moment: details may be the later ones)" in before
    assert "cancelled" not in before and "Retro (changed" not in before
    after = meetings(AFTER)
    assert "Ledger design review (cancelled)" in after and "changed after" not in after


def test_is_it_cancelled_is_answered_from_the_event_as_it_stood_at_now(tmp_path: Path) -> None:
    (tmp_path / "team.ics").write_text(ICS, encoding="utf-8")
    config = tmp_path / "brief.toml"
    config.write_text('[workspace]\nname = "cal"\n\n[sources.meetings]\ntype = "ics"\npath = "team.ics"\n')
    cli = CliRunner()
    assert cli.invoke(app, ["--config", str(config), "ingest"]).exit_code == 0

    def ask(now: datetime) -> dict[str, object]:
        args = ["--config", str(config), "ask", "Is the ledger design review cancelled?", "--json"]
        result = cli.invoke(app, [*args, "--now", now.isoformat()])
        assert result.exit_code == 0, result.output
        return dict(json.loads(result.stdout))

    before = ask(BEFORE)  # the cancellation came later: not known, so not cancelled
    assert str(before["answer"]).startswith("No (not cancelled) — Ledger design review")
    assert "CANCELLED" not in str(before["answer"])
    assert [c["refs"] for c in before["citations"]] == [["calendar:review@team"]]  # type: ignore[attr-defined]
    after = ask(AFTER)
    assert str(after["answer"]).startswith("Yes (cancelled) — Ledger design review")
    assert [c["refs"] for c in after["citations"]] == [["calendar:review@team"]]  # type: ignore[attr-defined]
