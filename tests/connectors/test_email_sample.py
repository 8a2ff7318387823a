"""The sample team's mailbox and calendar through the real command line: ingest, ask, cite, and the as-of rule."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample"


@pytest.mark.slow
def test_sample_mail_and_calendar_answer_with_citations(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE / "mail", tmp_path / "mail")
    shutil.copytree(SAMPLE / "calendar", tmp_path / "calendar")
    config = tmp_path / "brief.toml"
    config.write_text(
        '[workspace]\nname = "mailcal"\n[sources.team-mail]\ntype = "email"\npath = "mail/team.mbox"\n'
        '[sources.team-calendar]\ntype = "ics"\npath = "calendar/team.ics"\nexpand_days = 3650\n',
        encoding="utf-8",
    )
    runner = CliRunner()
    result = runner.invoke(app, ["--config", str(config), "ingest"])
    assert result.exit_code == 0, result.output

    def ask(question: str, now: str) -> dict:  # type: ignore[type-arg]
        result = runner.invoke(app, ["--config", str(config), "ask", question, "--json", "--now", now])
        assert result.exit_code == 0, result.output
        answer: dict = json.loads(result.stdout)  # type: ignore[type-arg]
        return answer

    budget = ask("How much did Ruth approve for the Aurora database budget?", "2026-06-15T09:00:00+00:00")
    cited = {ref for c in budget["citations"] for ref in c["refs"]}
    assert "email:budget-2@kestrelpay.example" in cited and "5,500" in budget["answer"]

    # Asked on Monday 15 June: Tuesday's Q3 planning is in the future but already in the calendar.
    week = ask("When is the Q3 planning meeting?", "2026-06-15T09:00:00+00:00")
    refs = {ref for hit in week["hits"] for ref in hit["refs"]}
    assert "calendar:q3-planning@kestrelpay.example" in refs
    # Asked before it was put in the calendar (created 10 June), it does not exist yet.
    early = ask("When is the Q3 planning meeting?", "2026-06-08T09:00:00+00:00")
    assert "calendar:q3-planning@kestrelpay.example" not in {ref for hit in early["hits"] for ref in hit["refs"]}

    # "What meetings do we have this week?" is the calendar's list for the week, in time order, each cited, with
    # the meetings still to come; asked a week earlier, the planning meeting was not in the calendar yet.
    agenda = ask("What meetings do we have this week?", "2026-06-15T09:00:00+00:00")
    lines = agenda["answer"].splitlines()
    assert lines[0] == "8 meetings this week, in time order:", agenda["answer"]
    assert lines[1].startswith("- Mon 15 Jun 10:00-10:15 UTC: Platform standup (organiser Priya Raman) [1]")
    assert "- Tue 16 Jun 13:00-15:00 UTC: Q3 planning (organiser Priya Raman) [4]" in lines
    assert len(agenda["citations"]) == 8 and agenda["no_answer"] is False
    assert {"calendar:q3-planning@kestrelpay.example"} <= {ref for c in agenda["citations"] for ref in c["refs"]}
    before = ask("What meetings do we have next week?", "2026-06-08T09:00:00+00:00")
    assert before["answer"].startswith("7 meetings next week, in time order:"), before["answer"]
    assert "Q3 planning" not in before["answer"]
    # A person named keeps the meetings that name them: Marcus has his 1:1, not Aiko's.
    marcus_week = ask("Which meetings does Marcus have this week?", "2026-06-15T09:00:00+00:00")
    assert marcus_week["answer"].startswith("7 meetings with Marcus Okafor this week"), marcus_week["answer"]
    assert "Priya / Marcus 1:1" in marcus_week["answer"] and "Priya / Aiko 1:1" not in marcus_week["answer"]
    # A calendar with nothing in the window says so, as an answer that cites nothing.
    august = ask("What meetings do we have in August?", "2026-06-15T09:00:00+00:00")
    assert august["answer"] == "No meetings in August in the calendar." and august["citations"] == []
    assert august["no_answer"] is False

    # "When is the next standup?" is the calendar's next occurrence after the question's now, cited by it.
    standup = ask("When is the next standup?", "2026-06-15T09:00:00+00:00")
    assert standup["answer"] == "Mon 15 Jun 10:00-10:15 UTC: Platform standup (organiser Priya Raman) [1]"
    assert standup["citations"][0]["refs"] == ["calendar:standup-1000@kestrelpay.example@20260615T100000Z"]
    later = ask("When is the next standup?", "2026-06-15T10:05:00+00:00")
    assert later["answer"].startswith("Tue 16 Jun 10:00-10:15 UTC: Platform standup"), later["answer"]

    people = runner.invoke(app, ["--config", str(config), "people", "--json"])
    assert people.exit_code == 0, people.output
    marcus = next(p for p in json.loads(people.stdout)["people"] if p["name"] == "Marcus Okafor")
    # The mail sender and the calendar attendee are one person.
    assert {i["source"] for i in marcus["identities"]} == {"team-mail", "team-calendar"}
