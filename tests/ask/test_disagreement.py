"""Sources that disagree on the value asked, through the real pipeline and the real command line.

A small workspace: a Slack export and a handbook page. The page says the exporter is pinned to one version, a
later Slack message says another: the answer shows both values, newest first, each cited to its own unit. A
question whose best lines state one value about the asked thing (and another value about something else) stays
a single answer led by that value.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from tests.slack_export import write_export

NOW = "2026-06-20T09:00:00+00:00"
PAGE = """---
title: "Deploy handbook"
date: 2026-06-02
author: Priya Raman
---

# Deploy handbook

## Ledger exporter

The ledger exporter is pinned to version 2.4.1 in the production deploy.

## Billing worker

The billing worker runs nightly and is pinned to version 3.1.0 in the production deploy.
"""
MESSAGES = [
    ("U1", "Morning all, the staging database restarts at noon today.", datetime(2026, 6, 11, 8, 0, tzinfo=UTC)),
    (
        "U2",
        "Heads up: the ledger exporter is pinned to version 2.5.0 in the production deploy since Tuesday.",
        datetime(2026, 6, 12, 10, 0, tzinfo=UTC),
    ),
    ("U1", "The payout dashboard moved to the new Grafana folder.", datetime(2026, 6, 12, 15, 0, tzinfo=UTC)),
]
runner = CliRunner()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path
    users = [
        {"id": "U1", "name": "priya", "real_name": "Priya Raman"},
        {"id": "U2", "name": "tom", "real_name": "Tom Berg"},
    ]
    export = write_export(root / "slack", "platform", users, MESSAGES)
    (root / "docs").mkdir()
    (root / "docs" / "deploy.md").write_text(PAGE, encoding="utf-8")
    config = root / "brief.toml"
    config.write_text(
        '[workspace]\nname = "disagreement"\n'
        f'[sources.chat]\ntype = "slack_export"\npath = "{export}"\n'
        f'[sources.handbook]\ntype = "files"\npath = "{root / "docs"}"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["--config", str(config), "ingest"])
    assert result.exit_code == 0, result.output
    return config


def ask(config: Path, question: str) -> dict:
    result = runner.invoke(app, ["--config", str(config), "ask", question, "--json", "--now", NOW])
    assert result.exit_code == 0, result.output
    answer: dict = json.loads(result.stdout)
    return answer


@pytest.mark.slow
def test_two_sources_that_state_different_versions_are_both_shown_newest_first(workspace: Path) -> None:
    answer = ask(workspace, "Which version is the ledger exporter pinned to in the production deploy?")
    assert not answer["no_answer"]
    first = answer["answer"].splitlines()[0]
    # "Sources differ: 2.5.0 (Slack, Fri 12 Jun) [1]; 2.4.1 (..., Tue 2 Jun) [2]": the Slack message is newer.
    m = re.match(r"Sources differ: 2\.5\.0 \(([^)]*)\) \[(\d)\]; 2\.4\.1 \(([^)]*)\) \[(\d)\]$", first)
    assert m, answer["answer"]
    assert "12 Jun" in m[1] and "2 Jun" in m[3]
    cited = {str(c["n"]): c["refs"] for c in answer["citations"]}
    assert cited[m[2]][0].startswith("slack:"), cited
    assert cited[m[4]][0].startswith("file:"), cited
    # Each side is quoted below with its own citation.
    assert "version 2.5.0" in answer["answer"] and "version 2.4.1" in answer["answer"]


@pytest.mark.slow
def test_a_different_value_about_another_thing_is_no_disagreement(workspace: Path) -> None:
    answer = ask(workspace, "Which version is the billing worker pinned to in the production deploy?")
    assert not answer["no_answer"]
    first = answer["answer"].splitlines()[0]
    assert not first.startswith("Sources differ"), answer["answer"]
    assert first.startswith("3.1.0 — "), answer["answer"]
