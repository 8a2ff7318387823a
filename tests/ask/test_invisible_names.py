"""A name that holds a character drawing nothing, through the real pipeline and the real command line.

Slack puts a zero-width space into a real name that looks like a handle ("antoniodavide.<U+200B>cali"). Typed by
hand, or copied from the chat, the name must still find its person: the questions below name them without the
character, and with it. A verb of saying no message uses ("What did Nayan mention?") is no topic the sources
must hold.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.textrules import visible
from tests.slack_export import write_export

NOW = "2026-06-20T09:00:00+00:00"
HIDDEN = "antoniodavide.\u200bcali"
MESSAGES = [
    ("U1", "Question: do we have a way to sign in to the UI through Okta?", datetime(2026, 6, 11, 8, 0, tzinfo=UTC)),
    ("U2", "The nightly compaction job moved to 02:00 UTC.", datetime(2026, 6, 12, 10, 0, tzinfo=UTC)),
    ("U1", "Is the Postgres connector ready for logical replication slots?", datetime(2026, 6, 15, 9, 0, tzinfo=UTC)),
]
runner = CliRunner()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    users = [
        {"id": "U1", "name": "antoniodavide.cali", "real_name": HIDDEN, "profile": {"real_name": HIDDEN}},
        {"id": "U2", "name": "nayan", "real_name": "Nayan Joshi"},
    ]
    export = write_export(tmp_path / "slack", "discussions", users, MESSAGES)
    config = tmp_path / "brief.toml"
    config.write_text(
        f'[workspace]\nname = "names"\n[sources.chat]\ntype = "slack_export"\npath = "{export}"\n', encoding="utf-8"
    )
    result = runner.invoke(app, ["--config", str(config), "ingest"])
    assert result.exit_code == 0, result.output
    return config


def test_visible_drops_only_characters_that_draw_nothing() -> None:
    assert visible(HIDDEN) == "antoniodavide.cali"
    assert visible("re\u00adsume \u202eabc\u202c") == "resume abc"
    # Joiners shape emoji and scripts: kept.
    assert visible("👩\u200d💻 क्\u200dष") == "👩\u200d💻 क्\u200dष"


@pytest.mark.parametrize("name", ["antoniodavide.cali", HIDDEN])
def test_a_person_whose_name_hides_a_character_is_found(workspace: Path, name: str) -> None:
    result = runner.invoke(app, ["--config", str(workspace), "ask", f"What did {name} ask?", "--now", NOW])
    assert result.exit_code == 0, result.output
    answer = result.output.split("\n", 1)[1]  # below the question as typed
    assert "antoniodavide.cali in #discussions" in answer and "Okta" in answer
    assert "compaction" not in answer  # Nayan's message is not theirs


@pytest.mark.parametrize("verb", ["mention", "post", "share", "suggest", "announce", "report"])
def test_a_verb_of_saying_no_message_uses_is_no_reason_to_refuse(workspace: Path, verb: str) -> None:
    question = f"What did Nayan Joshi {verb}?"
    result = runner.invoke(app, ["--config", str(workspace), "ask", question, "--now", NOW])
    assert result.exit_code == 0, result.output
    assert "compaction job moved" in result.output and "do not cover" not in result.output


def test_the_people_directory_shows_the_name_as_typed(workspace: Path) -> None:
    result = runner.invoke(app, ["--config", str(workspace), "people"])
    assert result.exit_code == 0, result.output
    assert "antoniodavide.cali" in result.output and "\u200b" not in result.output
