"""A served workspace (Slack, GitHub, JIRA) with webhooks, driven over real HTTP on 127.0.0.1:0.

The Slack source is first synced from the local Slack Web API (`briefing.devserver.slack`), as a real deployment
syncs before it serves: the sync decides which channels are collected. The recorded payloads live in
`tests/fixtures/webhooks/` (their origin and license in its README). Time is injected: `Served.clock` moves the
publish delay, `Served.wall` is the time signatures are checked against.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from slack_sdk.signature import SignatureVerifier
from typer.testing import CliRunner

from briefing import pipeline
from briefing.cli.app import app
from briefing.devserver.slack import TOKEN, SlackFake
from briefing.serve.process import Server
from briefing.settings import load_settings
from briefing.store import RawStore

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "webhooks"
SLACK_SECRET = "8f2b0c1d9e7a6b5c4d3e2f1a0b9c8d7e"
GITHUB_SECRET = "gh-webhook-secret-5c4d3e2f"
JIRA_SECRET = "jira-url-secret-0b9c8d7e6f"
USERS = [{"id": "U111", "name": "priya", "real_name": "Priya Raman"}, {"id": "W111", "name": "sam"}]
CHANNELS = [{"id": "C111", "name": "incidents", "is_channel": True, "is_member": True}]


def fixture(path: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / path).read_text(encoding="utf-8"))
    return data


@dataclass
class Clock:
    now: float

    def __call__(self) -> float:
        return self.now


@dataclass
class Served:
    config: Path
    server: Server
    clock: Clock
    wall: Clock
    fake: SlackFake
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ingestor(self) -> Any:
        assert self.server.ingestor is not None
        return self.server.ingestor

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            f"{self.server.url}{path}",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", **headers},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return int(response.status), json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")

    def slack(
        self, payload: dict[str, Any], *, secret: str = SLACK_SECRET, stamp: float | None = None
    ) -> tuple[int, dict[str, Any]]:
        body = json.dumps(payload)
        when = str(int(self.wall.now if stamp is None else stamp))
        signature = SignatureVerifier(secret).generate_signature(timestamp=when, body=body)
        headers = {"X-Slack-Request-Timestamp": when, "X-Slack-Signature": signature}
        return self.post("/hooks/team", body.encode(), headers)

    def github(
        self, event: str, payload: dict[str, Any], delivery: str, *, secret: str = GITHUB_SECRET
    ) -> tuple[int, dict[str, Any]]:
        body = json.dumps(payload).encode()
        signature = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        headers = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery, "X-Hub-Signature-256": signature}
        return self.post("/hooks/gh", body, headers)

    def jira(self, payload: dict[str, Any], *, secret: str = JIRA_SECRET) -> tuple[int, dict[str, Any]]:
        return self.post(f"/hooks/tickets/{secret}", json.dumps(payload).encode(), {})

    def publish(self) -> None:
        """Move the injected clock past the publish delay and let the writer run, as its thread would."""
        self.clock.now += self.server.settings.serve.publish_delay_s
        self.ingestor.tick()

    def cached(self, source: str) -> dict[str, Any]:
        store = RawStore.for_source(self.server.settings, source)
        try:
            return {r.key: r.data for r in store.records()}
        finally:
            store.close()

    def ask(self, question: str) -> dict[str, Any]:
        result = CliRunner().invoke(app, ["--config", str(self.config), "ask", question, "--json"])
        assert result.exit_code == 0, result.output
        answer: dict[str, Any] = json.loads(result.stdout)
        return answer

    def refs(self, question: str) -> set[str]:
        return {ref for c in self.ask(question)["citations"] for ref in c["refs"]}


def write_config(root: Path, slack_url: str, *, sync_every_s: float = 0, extra: str = "", serve_keys: str = "") -> Path:
    config = root / "brief.toml"
    config.write_text(
        f"""[workspace]
name = "ops"
[sources.team]
type = "slack"
token_env = "SLACK_TOKEN"
base_url = "{slack_url}"
[sources.gh]
type = "github"
repos = ["Codertocat/Hello-World"]
token_env = "GH_TOKEN"
base_url = "http://127.0.0.1:9"
max_retries = 0
[sources.tickets]
type = "jira"
projects = ["INDEV", "BBCOM"]
token_env = "JIRA_TOKEN"
base_url = "http://127.0.0.1:9"
max_retries = 0
[digest]
summaries = false
[serve]
sync_every_s = {sync_every_s}
{serve_keys}[serve.webhooks.team]
secret_env = "SLACK_SIGNING_SECRET"
[serve.webhooks.gh]
secret_env = "GH_WEBHOOK_SECRET"
[serve.webhooks.tickets]
secret_env = "JIRA_WEBHOOK_SECRET"
{extra}""",
        encoding="utf-8",
    )
    return config


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "SLACK_TOKEN": TOKEN,
        "GH_TOKEN": "ghp_test_token_0000",
        "JIRA_TOKEN": "jira-test-token-0000",
        "SLACK_SIGNING_SECRET": SLACK_SECRET,
        "GH_WEBHOOK_SECRET": GITHUB_SECRET,
        "JIRA_WEBHOOK_SECRET": JIRA_SECRET,
    }.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def slack_fake() -> Iterator[SlackFake]:
    opened = {
        "type": "message",
        "user": "U111",
        "text": "Opening the incident channel for the week.",
        "ts": "1596180000.000100",
    }
    fake = SlackFake(users=USERS, channels=CHANNELS, messages={"C111": [opened]})
    fake.start()
    yield fake
    fake.stop()


def start(config: Path, fake: SlackFake, *, wall: float | None = None) -> Served:
    settings = load_settings(config)
    clock, walls = Clock(1000.0), Clock(wall if wall is not None else time.time())
    server = Server(settings, port=0, background=False, clock=clock, wall=walls)
    server.start()
    return Served(config, server, clock, walls, fake)


@pytest.fixture
def served(tmp_path: Path, secrets: None, slack_fake: SlackFake) -> Iterator[Served]:
    config = write_config(tmp_path, slack_fake.url)
    summary = pipeline.run(load_settings(config), ["team"])
    assert not summary.broken, summary
    running = start(config, slack_fake)
    yield running
    running.server.stop()
