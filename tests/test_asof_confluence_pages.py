"""A wiki page asked about at three moments answers from the version of then, end to end through the CLI.

The page is perceval's recorded Confluence Server page at three versions (tests/fixtures/confluence_versions),
served by the local Confluence server, ingested by `brief ingest` and asked with `brief ask --now`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from tests.connectors.test_confluence_versions import SECRET, _current, _recorded
from tests.fakes.confluence_server import FakeConfluence, serve

runner = CliRunner()
CYCLE = "How long is the CENGN iteration cycle?"
LICLIPSE = "Is LiClipse installed?"
# now -> (what the cycle question answers, the version its citation opens, whether LiClipse was written by then).
MOMENTS = {
    "2016-06-12T00:00:00+00:00": ("2 week", "&pageVersion=1", False),
    "2016-06-18T00:00:00+00:00": ("2 week", "&pageVersion=2", True),
    "2016-06-21T00:00:00+00:00": ("3 week", "/display/DEV/", False),
}


def _ask(config: Path, question: str, now: str) -> Any:
    result = runner.invoke(app, ["--config", str(config), "ask", question, "--now", now, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_page_is_answered_and_cited_as_it_stood_at_each_now(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATL_USER", "bot@example.com")
    monkeypatch.setenv("ATL_TOKEN", SECRET)
    server = FakeConfluence([_current()], {}, user="bot@example.com", token=SECRET)
    server.versions = {"1": {1: _recorded(1), 2: _recorded(2)}}
    with serve(server) as fake:
        config = tmp_path / "brief.toml"
        config.write_text(
            f"""[workspace]
name = "pages"

[sources.wiki]
type = "confluence"
base_url = "{fake.base_url}"
user_env = "ATL_USER"
token_env = "ATL_TOKEN"
spaces = ["DEV"]
""",
            encoding="utf-8",
        )
        ingested = runner.invoke(app, ["--config", str(config), "ingest"])
        assert ingested.exit_code == 0, ingested.output

        before = _ask(config, CYCLE, "2016-06-09T00:00:00+00:00")  # the page did not exist yet
        assert before["citations"] == [] and "week" not in before["answer"]
        for now, (cycle, version, liclipse) in MOMENTS.items():
            asked = _ask(config, CYCLE, now)
            assert asked["answer"].startswith(cycle), (now, asked["answer"])
            assert [c["refs"] for c in asked["citations"]] == [["confluence:1"]]
            assert version in asked["citations"][0]["url"]
            later = {"3 week"} if cycle == "2 week" else set()
            assert not any(words in json.dumps(asked) for words in later)
            installed = _ask(config, LICLIPSE, now)
            assert ("[x] Download and install LiClipse" in installed["answer"]) is liclipse, (now, installed)
            if not liclipse:
                assert installed["citations"] == []
        _get_item_reads_the_version_of_then(config)


def _get_item_reads_the_version_of_then(config: Path) -> None:
    """The MCP tool reads a page by its ref through the same View: the text of then, nothing before creation."""
    from briefing.errors import InputError
    from briefing.mcp_server import BriefTools
    from briefing.settings import load_settings

    tools = BriefTools(load_settings(config))
    try:
        with pytest.raises(InputError):
            tools.get_item("confluence:1", now="2016-06-09T00:00:00+00:00")
        then = json.dumps(tools.get_item("confluence:1", now="2016-06-12T00:00:00+00:00"))
        assert "2 week iteration cycle" in then and "LiClipse" not in then and "3 week" not in then
        today = json.dumps(tools.get_item("confluence:1", now="2016-06-21T00:00:00+00:00"))
        assert "3 week iteration cycle" in today and "2 week" not in today
    finally:
        tools.close()
