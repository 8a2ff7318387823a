"""The sample's Slack Web API stand-in: the API connector reads from it exactly what the export connector reads."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from dataclasses import astuple
from pathlib import Path

import pytest

from briefing.cli.demo import sample_dir
from briefing.devserver import DEMO_TOKEN, SAMPLE_SLACK_TEAM, serve_sample
from briefing.devserver.slack import SlackFake
from briefing.model import Item
from briefing.registry import SourceContext
from briefing.settings import source_adapter
from connectors.slack import api as slack
from connectors.slack import export as slack_export
from tests.harness import SourceRunner

EXPORT = sample_dir() / "slack_export"


def collect(
    connector: slack.SlackConnector | slack_export.SlackExportConnector, home: Path | None = None
) -> dict[str, Item]:
    """A first full ingest through the pipeline's collection (raw cache, cursor), then everything normalised."""
    runner = SourceRunner(connector, home=home)
    assert runner.collect() and runner.failures == []
    normalised = runner.normalise()
    assert normalised.failures == []
    return {item.ref: item for document in normalised.documents for item in document.items}


def api_connector(base_url: str, monkeypatch: pytest.MonkeyPatch) -> slack.SlackConnector:
    monkeypatch.setenv("BRIEF_DEMO_SLACK_TOKEN", DEMO_TOKEN)
    data = {"type": "slack", "base_url": base_url, "token_env": "BRIEF_DEMO_SLACK_TOKEN"}
    config = source_adapter().validate_python(data)
    return slack.build(SourceContext(name="team-slack", config=config))


@pytest.fixture(scope="module")
def from_export(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Item]:
    return collect(slack_export.SlackExportConnector(EXPORT), home=tmp_path_factory.mktemp("export-home"))


@pytest.fixture
def small_pages() -> Iterator[SlackFake]:
    """The sample served three entries a page, so every list and history is read over many cursors."""
    fake = SlackFake.from_export(EXPORT, token=DEMO_TOKEN, team=SAMPLE_SLACK_TEAM, page_size=3)
    fake.start()
    yield fake
    fake.stop()


def test_the_api_connector_reads_the_same_messages_as_the_export_connector(
    from_export: dict[str, Item], monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve_sample(sample_dir()) as urls:
        from_api = collect(api_connector(urls["slack"], monkeypatch))
    assert len(from_export) > 200
    assert all(ref.startswith(("slack:C", "slack:G")) for ref in from_export)
    assert set(from_api) == set(from_export)
    assert {ref: item.text for ref, item in from_api.items()} == {ref: item.text for ref, item in from_export.items()}
    # Authors, times, threads and permalinks agree too: the demo's answers cite the same things either way.
    assert {ref: astuple(item) for ref, item in from_api.items()} == {
        ref: astuple(item) for ref, item in from_export.items()
    }


def test_paging_through_every_cursor_loses_nothing(
    from_export: dict[str, Item], small_pages: SlackFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    from_api = collect(api_connector(small_pages.url, monkeypatch))
    assert {ref: item.text for ref, item in from_api.items()} == {ref: item.text for ref, item in from_export.items()}
    history = small_pages.calls("conversations.history")
    assert len([r for r in history if r.params.get("cursor")]) >= 50 and small_pages.calls("conversations.replies")
    assert all(int(r.params["limit"]) > 3 for r in history)  # the server, not the client, chose the page size


def call(base_url: str, method: str, token: str, **params: str) -> dict[str, object]:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    request = urllib.request.Request(f"{base_url}{method}?{query}", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        data = json.loads(response.read())
    assert isinstance(data, dict)
    return data


def test_history_lists_thread_roots_and_broadcasts_and_replies_list_the_whole_thread(small_pages: SlackFake) -> None:
    url = small_pages.url
    messages: list[dict[str, str]] = []
    cursor = ""
    while True:
        page = call(url, "conversations.history", DEMO_TOKEN, channel="C03INCIDNT", limit="100", cursor=cursor)
        assert page["ok"] is True and len(page["messages"]) <= 3  # type: ignore[arg-type]
        messages += page["messages"]  # type: ignore[arg-type]
        cursor = page["response_metadata"]["next_cursor"]  # type: ignore[index]
        if not cursor:
            assert page["has_more"] is False
            break
    stamps = [float(m["ts"]) for m in messages]
    assert stamps == sorted(stamps, reverse=True)  # newest first, as Slack pages history
    assert all(m.get("thread_ts") in (None, m["ts"]) or m.get("subtype") == "thread_broadcast" for m in messages)
    root = next(m for m in messages if int(m.get("reply_count") or 0) > 0)
    thread = call(url, "conversations.replies", DEMO_TOKEN, channel="C03INCIDNT", ts=root["ts"], limit="100")
    assert thread["messages"][0]["ts"] == root["ts"]  # type: ignore[index]
    assert "replies" not in root  # an export-only field the Web API no longer sends


def test_a_wrong_token_is_invalid_auth_and_the_team_is_the_samples(small_pages: SlackFake) -> None:
    assert call(small_pages.url, "auth.test", "xoxb-wrong") == {"ok": False, "error": "invalid_auth"}
    team = call(small_pages.url, "auth.test", DEMO_TOKEN)
    assert team["ok"] is True and team["url"] == "https://kestrelpay.slack.com/" and team["team_id"] == "T01KESTREL"
