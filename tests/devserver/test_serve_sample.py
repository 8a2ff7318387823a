"""`serve_sample`: the sample's Slack, JIRA, Confluence and GitHub stand-ins on 127.0.0.1, for the demo's config."""

from __future__ import annotations

import base64
import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from briefing.cli.demo import api_sources, sample_dir, without_source
from briefing.devserver import DEMO_TOKEN, DEMO_USER, serve_sample
from briefing.settings import load_settings

BASIC = "Basic " + base64.b64encode(f"{DEMO_USER}:{DEMO_TOKEN}".encode()).decode()


def get(url: str, authorization: str) -> tuple[int, object]:
    request = urllib.request.Request(url, headers={"Authorization": authorization})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, None


def test_serves_the_sample_on_loopback_with_the_demo_credentials_and_stops_on_exit() -> None:
    with serve_sample(sample_dir()) as urls:
        assert set(urls) == {"slack", "jira", "confluence", "github"}
        assert all(url.startswith("http://127.0.0.1:") for url in urls.values())
        status, me = get(f"{urls['jira']}/rest/api/3/myself", BASIC)
        assert status == 200 and isinstance(me, dict)
        assert get(f"{urls['jira']}/rest/api/3/myself", "Basic bm9ib2R5Om5vcGU=")[0] == 401
        status, page = get(f"{urls['confluence']}/rest/api/content/524292", BASIC)
        assert status == 200 and isinstance(page, dict) and page["title"] == "On-call Handbook"
        status, issues = get(f"{urls['github']}/repos/kestrelpay/payout-worker/issues?state=all", f"token {DEMO_TOKEN}")
        assert status == 200 and isinstance(issues, list) and {i["number"] for i in issues} >= {55, 57}
        status, team = get(f"{urls['slack']}auth.test", f"Bearer {DEMO_TOKEN}")
        assert status == 200 and isinstance(team, dict) and team["ok"] is True
        assert get(f"{urls['slack']}auth.test", "Bearer xoxb-nope")[1] == {"ok": False, "error": "invalid_auth"}
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"{urls['jira']}/rest/api/3/myself", timeout=2)


def test_a_sample_without_api_data_serves_nothing(tmp_path: Path) -> None:
    with serve_sample(tmp_path) as urls:
        assert urls == {}


def test_demo_config_points_every_api_source_at_the_servers_and_names_only_env_vars(tmp_path: Path) -> None:
    workspace = tmp_path / "sample"
    shutil.copytree(sample_dir() / "github", workspace / "github")
    sample_config = (sample_dir() / "brief.toml").read_text(encoding="utf-8")
    assert 'type = "slack_export"' in sample_config  # the sample itself reads the export, without servers
    (workspace / "brief.toml").write_text(without_source(sample_config, "team-slack"), encoding="utf-8")
    (workspace / "git" / "ledger-api").mkdir(parents=True)
    urls = {
        "slack": "http://127.0.0.1:4/api/",
        "jira": "http://127.0.0.1:1",
        "confluence": "http://127.0.0.1:2/wiki",
        "github": "http://127.0.0.1:3/api/v3",
    }
    text = api_sources(urls, workspace, workspace / "git" / "ledger-api")
    assert f'"{DEMO_TOKEN}"' not in text and DEMO_USER not in text
    with (workspace / "brief.toml").open("a", encoding="utf-8") as fh:
        fh.write(text)
    sources = load_settings(workspace / "brief.toml").sources
    assert {name: config.type for name, config in sources.items()} == {
        "handbook": "files",
        "team-slack": "slack",
        "team-mail": "email",
        "team-calendar": "ics",
        "tracker": "jira",
        "wiki": "confluence",
        "code": "github",
        "ledger-git": "git",
    }
    assert sources["team-slack"].base_url == urls["slack"] and sources["team-slack"].channels == []
    assert sources["team-slack"].token_env == "BRIEF_DEMO_SLACK_TOKEN"
    assert sources["tracker"].base_url == urls["jira"] and sources["tracker"].projects == ["PLAT"]
    assert sources["tracker"].cloud is True and sources["wiki"].spaces == ["ENG"]
    assert sources["code"].repos == ["kestrelpay/ledger-api", "kestrelpay/payout-worker", "kestrelpay/platform-infra"]
    assert sources["ledger-git"].path == Path("git/ledger-api")
