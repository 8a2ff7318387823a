"""Watches fire once per matching event; the batch connectors still run inside the process on their schedule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from briefing import pipeline
from briefing.devserver.slack import SlackFake
from briefing.ops import watch
from briefing.settings import load_settings
from tests.serve.conftest import start, write_config
from tests.serve.test_serve_webhooks import _message


def _runs(home: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (home / "logs" / "runs.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_a_watch_fires_once_per_matching_event(tmp_path: Path, secrets: None, slack_fake: SlackFake) -> None:
    config = write_config(tmp_path, slack_fake.url, extra='[delivery]\nfile = "notes.md"\n')
    settings = load_settings(config)
    pipeline.run(settings, ["team"])
    watch.add_watch(settings, target=None, query="502", sources=["team"])
    served = start(config, slack_fake)
    try:
        first = _message()
        assert served.slack(first)[0] == 200
        assert served.slack(first)[1].get("duplicate") is True  # Slack's retry of the same event
        quiet = _message("Lunch is at noon today.", ts="1596183990.000100")
        assert served.slack(quiet)[0] == 200
        served.publish()
        notes = (tmp_path / "notes.md").read_text()
        assert notes.count("slack:C111:1596183880.004200") == 1 and "Lunch" not in notes
        again = _message("Still 502 on checkout from the EU region.", ts="1596184100.000200")
        assert served.slack(again)[0] == 200
        served.publish()
        notes = (tmp_path / "notes.md").read_text()
        assert notes.count("slack:C111:1596183880.004200") == 1
        assert notes.count("slack:C111:1596184100.000200") == 1
    finally:
        served.server.stop()


@pytest.mark.slow
def test_unchanged_text_is_not_embedded_again_and_untouched_sources_are_not_processed(
    tmp_path: Path, secrets: None, slack_fake: SlackFake
) -> None:
    config = write_config(tmp_path, slack_fake.url)
    pipeline.run(load_settings(config), ["team"])
    served = start(config, slack_fake)
    try:
        served.slack(_message())
        served.publish()
        served.slack(_message("A second, unrelated note about the office plants.", ts="1596290000.000100"))
        served.publish()
        runs = [r for r in _runs(served.server.settings.home) if r["command"] == "serve"]
        sources = runs[-1]["sources"]
        assert isinstance(sources, dict) and set(sources) == {"team"}
        # Three messages in two conversations: only the chunk holding the new message is embedded again.
        assert sources["team"]["chunks"] >= 2 and sources["team"]["embedded"] < sources["team"]["chunks"]
    finally:
        served.server.stop()


@pytest.mark.slow
def test_the_batch_sync_runs_on_its_schedule_and_reconciles_what_no_event_announced(
    tmp_path: Path, secrets: None, slack_fake: SlackFake
) -> None:
    config = write_config(tmp_path, slack_fake.url, sync_every_s=600)
    pipeline.run(load_settings(config), ["team"])
    served = start(config, slack_fake)
    try:
        # A message whose event never arrived (the app was down, the delivery failed).
        slack_fake.post("C111", {"type": "message", "user": "U111", "text": INCIDENT_MISSED, "ts": "1596185000.000300"})
        served.ingestor.tick()
        assert "slack:C111:1596185000.000300" not in served.refs("Which region lost its database replica?")
        served.clock.now += 600
        served.ingestor.tick()
        assert "slack:C111:1596185000.000300" in served.refs("Which region lost its database replica?")
        last = _runs(served.server.settings.home)[-1]
        # The Web API sync re-reads the channel (users, channel, both messages...); GitHub and JIRA are down here.
        assert last["command"] == "ingest" and last["paths"]["sync"]["team"] >= 2
    finally:
        served.server.stop()


INCIDENT_MISSED = "The eu-west database replica was lost at 03:10; failover to eu-central finished at 03:25."
