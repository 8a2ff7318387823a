"""`brief demo` end to end: every API connector and the local ones ingest cleanly; answers cite JIRA and GitHub."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.settings import load_settings
from briefing.store import SourceState

JIRA_QUESTION = "What is the status of PLAT-101?"
GITHUB_QUESTION = "Which PR added the statements index?"
NO_ANSWER_QUESTION = "What is our policy on pets in the office?"  # the demo's own question the sample does not cover
SOURCES = {
    "team-slack": "slack",
    "handbook": "files",
    "tracker": "jira",
    "wiki": "confluence",
    "code": "github",
    "ledger-git": "git",
    "team-mail": "email",
    "team-calendar": "ics",
}


@pytest.mark.slow
def test_demo_ingests_every_source_type_and_answers_with_cross_source_citations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the demo's temporary home lands here
    home_before = os.environ["BRIEF_HOME"]
    result = CliRunner().invoke(
        app, ["demo", "--keep", "-q", JIRA_QUESTION, "-q", GITHUB_QUESTION, "-q", NO_ANSWER_QUESTION]
    )
    assert result.exit_code == 0, result.output
    output = result.stdout
    # The demo's home and credentials were for its own run only.
    assert os.environ["BRIEF_HOME"] == home_before
    assert not [name for name in os.environ if name.startswith("BRIEF_DEMO_")]

    # The sources table: one row per source, each with zero failures.
    for name, kind in SOURCES.items():
        assert re.search(rf"^\s*{name}\s+{kind}\s+[1-9]\d*\s+[1-9]\d*\s+[1-9]\d*\s+0\s*$", output, re.M), output
    [home] = tmp_path.glob("brief-demo-*")
    monkeypatch.setenv("BRIEF_HOME", str(home))
    settings = load_settings(home / "sample" / "brief.toml")
    assert {name: c.type for name, c in settings.sources.items()} == SOURCES
    for name in SOURCES:
        run = SourceState.for_source(settings, name).data["last_run"]
        assert run["failures"] == 0 and run["chunks"] > 0, (name, run)

    # Answers, in the order asked, each followed by its citations.
    jira_part, rest = output.split(GITHUB_QUESTION)
    github_part, no_answer_part = rest.split(NO_ANSWER_QUESTION)
    assert JIRA_QUESTION in jira_part
    assert re.search(r"^\s*\[\d+\] jira:PLAT-\d+", jira_part, re.M), jira_part
    assert re.search(r"^\s*\[\d+\] github:kestrelpay/[\w.-]+#\d+", github_part, re.M), github_part
    # Nothing in the sample covers pets (only #random's channel purpose names them): the demo says so, citing none.
    assert "The sources do not cover this" in no_answer_part and "'pets'" in no_answer_part, no_answer_part
    assert not re.search(r"^\s*\[\d+\] ", no_answer_part, re.M), no_answer_part
