"""Slack events over Socket Mode: the real slack-sdk client against a local endpoint, into the same path as webhooks.

`brief serve` asks the local Slack Web API (`apps.connections.open`, with the app-level token) for the WebSocket
URL of `SocketModeServer`, which sends recorded envelope shapes around the recorded Events API payloads. What a
user notices: each event is acknowledged once it is in the raw cache, becomes citable after the publish delay,
and a dropped connection neither loses nor doubles an event.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from briefing import pipeline
from briefing.cli.app import app
from briefing.devserver.slack import APP_TOKEN, SlackFake
from briefing.settings import load_settings
from tests.serve.conftest import Served, fixture, start, write_config
from tests.serve.slack_socket import SocketModeServer, envelope

STREAM = '[serve.streams.team]\ntoken_env = "SLACK_APP_TOKEN"\n'


def _message(text: str, ts: str) -> dict[str, Any]:
    payload = fixture("slack/message.json")
    payload["event"].update({"text": text, "ts": ts, "event_ts": ts, "blocks": []})
    payload["event_id"] = f"Ev{ts.replace('.', '')}"
    return payload


@pytest.fixture
def socket_server(slack_fake: SlackFake) -> Iterator[SocketModeServer]:
    server = SocketModeServer()
    slack_fake.socket_url = server.url
    yield server
    server.stop()


@pytest.fixture
def streamed(
    tmp_path: Path, secrets: None, slack_fake: SlackFake, socket_server: SocketModeServer, monkeypatch: Any
) -> Iterator[Served]:
    monkeypatch.setenv("SLACK_APP_TOKEN", APP_TOKEN)
    config = write_config(tmp_path, slack_fake.url, extra=STREAM)
    assert not pipeline.run(load_settings(config), ["team"]).broken
    running = start(config, slack_fake)
    assert socket_server.wait_for(lambda s: s.connections == 1, timeout=30)
    yield running
    running.server.stop()


def _all_acked(server: SocketModeServer, n: int) -> bool:
    return len(server.sent) >= n and not server.unacked and not server.queued


def test_socket_mode_events_are_acknowledged_cached_and_citable(
    streamed: Served, socket_server: SocketModeServer
) -> None:
    incident = _message(
        "Checkout fails with 502 since the 14:05 deploy; rolling back build 4121 now.", "1596183880.004200"
    )
    noise = _message("lunch order closes at noon", "1596183890.004300")
    edit = fixture("slack/message_changed.json")
    edit["event"]["message"]["text"] = "Checkout recovered after rolling back build 4121; the cause was a pool limit."
    edit["event"]["previous_message"]["ts"] = "1596183880.004200"
    edit["event_id"] = "EvEdit"
    gone = fixture("slack/message_deleted.json")
    gone["event"]["deleted_ts"] = "1596183890.004300"
    gone["event_id"] = "EvGone"
    rename = fixture("slack/channel_rename.json")
    rename["event"]["channel"].update({"id": "C111", "name": "inc-payments", "name_normalized": "inc-payments"})
    rename["event_id"] = "EvRename"
    first = envelope(incident)
    retried = {**envelope(incident), "retry_attempt": 1, "retry_reason": "timeout"}  # Slack's retry: same event id
    late = envelope({**incident, "event_id": "EvLateCopy"})  # the message again, after its edit: the edit stays
    socket_server.send(first, envelope(noise), envelope(edit), envelope(gone), envelope(rename), retried, late)
    assert socket_server.wait_for(lambda s: _all_acked(s, 7), timeout=60)
    assert first["envelope_id"] in socket_server.acked and retried["envelope_id"] in socket_server.acked

    cached = streamed.cached("team")
    assert cached["C111/1596183880.004200"]["text"].startswith("Checkout recovered")
    assert "C111/1596183890.004300" not in cached
    assert cached["channel/C111"]["name"] == "inc-payments"
    assert streamed.ingestor.accepted == 6  # the retried copy is a duplicate
    with urllib.request.urlopen(f"{streamed.server.url}/healthz", timeout=30) as response:
        assert json.loads(response.read())["streams"] == {"team": "connected"}
    streamed.ingestor.tick()
    assert "slack:C111:1596183880.004200" not in streamed.refs("Which build was rolled back for checkout?")
    streamed.publish()
    answer = streamed.ask("Which build was rolled back for checkout?")
    assert "slack:C111:1596183880.004200" in {r for c in answer["citations"] for r in c["refs"]}
    assert "pool limit" in json.dumps(answer)  # the edited text is what is cited


def test_a_dropped_connection_loses_and_doubles_nothing(streamed: Served, socket_server: SocketModeServer) -> None:
    texts = {
        "1596184000.000100": "Database failover to the replica in eu-west finished at 15:10.",
        "1596184010.000200": "The failover left the reporting job pointing at the old primary host.",
        "1596184020.000300": "Reporting job repointed to the new primary; nightly export rerun queued.",
    }
    payloads = [_message(text, ts) for ts, text in texts.items()]
    socket_server.send(envelope(payloads[0]))
    assert socket_server.wait_for(lambda s: _all_acked(s, 1), timeout=60)
    socket_server.hang_up_after_next = True  # the second is sent, then the socket closes before its ack is read
    socket_server.send(envelope(payloads[1]), envelope(payloads[2]))
    assert socket_server.wait_for(lambda s: s.connections == 2, timeout=60)  # the client opened a new one
    assert socket_server.wait_for(lambda s: _all_acked(s, 4), timeout=60)
    resent = [e for e in socket_server.sent if e["retry_attempt"] == 1]
    assert [e["payload"]["event_id"] for e in resent] == [payloads[1]["event_id"]]

    cached = streamed.cached("team")
    assert {k for k in cached if k.startswith("C111/15961840")} == {f"C111/{ts}" for ts in texts}
    assert streamed.ingestor.accepted == 3  # each event once, whether or not the first copy was stored
    streamed.publish()
    refs = streamed.refs("Where does the reporting job point after the failover?")
    assert refs & {"slack:C111:1596184010.000200", "slack:C111:1596184020.000300"}

    socket_server.send(fixture("slack/socket_mode/disconnect.json"))  # Slack asks the client to move
    assert socket_server.wait_for(lambda s: s.connections == 3, timeout=60)
    socket_server.send(envelope(_message("Export rerun finished; the numbers match the replica.", "1596184030.000400")))
    assert socket_server.wait_for(lambda s: _all_acked(s, 5), timeout=60)
    assert "C111/1596184030.000400" in streamed.cached("team") and streamed.ingestor.accepted == 4


def test_a_refused_app_token_is_one_line_naming_the_setting(
    tmp_path: Path, secrets: None, slack_fake: SlackFake, socket_server: SocketModeServer, monkeypatch: Any
) -> None:
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1-A111-not-the-token")
    config = write_config(tmp_path, slack_fake.url, extra=STREAM)
    result = CliRunner().invoke(app, ["--config", str(config), "serve", "--port", "0"])
    assert result.exit_code == 5, result.output
    assert "serve.streams.team" in result.output and "invalid_auth" in result.output
    assert "xapp-1-A111-not-the-token" not in result.output
    assert socket_server.connections == 0
