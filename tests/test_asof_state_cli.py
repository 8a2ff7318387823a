"""`brief ask/digest/timeline --now` over a JIRA Server stand-in: a ticket resolved later is not shown resolved."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from tests.fakes.jira_server import JiraFake
from tests.test_asof_state import _server_issue

pytestmark = pytest.mark.slow
runner = CliRunner()
BEFORE = "2013-07-25T09:00:00+00:00"  # the ticket is In Progress; it is resolved at 13:00 UTC and closed on the 31st
AFTER = "2014-01-01T00:00:00+00:00"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("asof-state")
    issue = _server_issue()
    issue.pop("names")
    reporter = issue["fields"]["reporter"]
    when = "2013-07-24T10:00:00.000+0200"
    issue["fields"]["comment"] = {
        "comments": [{"id": "100", "author": reporter, "body": "Any movement on OpenShift?", "created": when}]
    }
    (root / "data").mkdir()
    (root / "data" / "issues.json").write_text(json.dumps([issue]), encoding="utf-8")
    fake = JiraFake.from_dir(root / "data")
    url = fake.start()
    config = root / "brief.toml"
    config.write_text(
        f'[workspace]\nname = "asof"\n\n[sources.aerogear]\ntype = "jira"\nbase_url = "{url}"\n'
        'user_env = "JIRA_USER"\ntoken_env = "JIRA_TOKEN"\nprojects = ["AEROGEAR"]\ncloud = false\n',
        encoding="utf-8",
    )
    ENV.update({"BRIEF_HOME": str(root / "home"), "JIRA_USER": "u", "JIRA_TOKEN": "t"})
    _run(config, "ingest")
    yield config
    fake.stop()


ENV: dict[str, str] = {}


def _run(config: Path, *args: str) -> str:
    result = runner.invoke(app, ["--config", str(config), *args], env=ENV)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_ask_before_the_resolution_sees_the_ticket_in_progress(workspace: Path) -> None:
    out = json.loads(_run(workspace, "ask", "What is the status of AEROGEAR-42?", "--json", "--now", BEFORE))
    shown = "\n".join(hit["text"] for hit in out["hits"])
    assert "Status: In Progress" in shown
    assert "Closed" not in shown and "Resolved" not in shown and "2013-07-31" not in shown


def test_ask_after_sees_it_closed(workspace: Path) -> None:
    out = json.loads(_run(workspace, "ask", "What is the status of AEROGEAR-42?", "--json", "--now", AFTER))
    assert "Status: Closed" in "\n".join(hit["text"] for hit in out["hits"])


def test_timeline_and_digest_as_of_an_earlier_now_show_no_later_state(workspace: Path) -> None:
    timeline = _run(workspace, "timeline", "AEROGEAR-42", "--now", BEFORE)
    digest = _run(workspace, "digest", "--since", "2013-07-01", "--now", BEFORE)
    for text in (timeline, digest):
        assert "Closed" not in text and "Resolved" not in text and "Done" not in text
    assert "In Progress" in timeline and "AEROGEAR-42" in digest
