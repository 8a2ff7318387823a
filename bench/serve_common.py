"""What the `brief serve` benchmarks share: a Slack workspace on the local Slack server, a real `brief serve`
process, and signed Events API deliveries to it (as Slack sends them: retried until answered 200)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from slack_sdk.signature import SignatureVerifier

from briefing import pipeline
from briefing.devserver.slack import TOKEN, SlackFake
from briefing.settings import load_settings

REPO = Path(__file__).resolve().parents[1]
SECRET = "bench-signing-secret-4f3e2d1c"  # noqa: S105 (a local benchmark's made-up secret)
CHANNEL = "C0INC"


def workspace(root: Path, *, delay_s: float) -> tuple[Path, SlackFake, dict[str, str]]:
    """A config with one Slack source (synced once, so its channel is known) and its webhook; the env to run it."""
    fake = SlackFake(
        users=[{"id": "U0OPS", "name": "ops", "real_name": "Ops Person"}],
        channels=[{"id": CHANNEL, "name": "incidents", "is_channel": True, "is_member": True}],
        messages={
            CHANNEL: [{"type": "message", "user": "U0OPS", "text": "Incident channel opened.", "ts": "1.000001"}]
        },
    )
    url = fake.start()
    root.mkdir(parents=True, exist_ok=True)
    config = root / "brief.toml"
    config.write_text(
        f'[workspace]\nname = "bench"\n[sources.team]\ntype = "slack"\ntoken_env = "SLACK_TOKEN"\nbase_url = "{url}"\n'
        f"[digest]\nsummaries = false\n[metrics]\nenabled = true\n"
        f"[serve]\npublish_delay_s = {delay_s}\nsync_every_s = 0\n"
        '[serve.webhooks.team]\nsecret_env = "SLACK_SIGNING_SECRET"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEF_")}
    env.update(
        BRIEF_HOME=str(root / "home"),
        SLACK_TOKEN=TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        PYTHONPATH=os.pathsep.join([str(REPO / "src"), str(REPO)]),
    )
    os.environ.update(BRIEF_HOME=env["BRIEF_HOME"], SLACK_TOKEN=TOKEN, SLACK_SIGNING_SECRET=SECRET)
    pipeline.run(load_settings(config), ["team"])
    return config, fake, env


class ServeProcess:
    """`brief serve --port 0` in a child process; `url` once it says it listens."""

    def __init__(self, config: Path, env: dict[str, str]) -> None:
        self.config, self.env = config, env
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> ServeProcess:
        args = [sys.executable, "-m", "briefing", "--config", str(self.config), "serve", "--port", "0"]
        self.proc = subprocess.Popen(args, env=self.env, stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        while True:
            line = self.proc.stderr.readline()
            if not line:
                raise RuntimeError(f"brief serve exited with {self.proc.wait()} before listening")
            if " on http://" in line:
                self.url = line.split(" on ", 1)[1].split(" ", 1)[0]
                return self

    def kill(self) -> None:
        """SIGKILL: no drain, no publish (what a crash or the OOM killer does)."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def terminate(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=7200)


def message_event(n: int, text: str) -> tuple[str, dict[str, Any]]:
    ts = f"{1_700_000_000 + n}.{n % 1_000_000:06d}"
    event = {"type": "message", "user": "U0OPS", "text": text, "ts": ts, "channel": CHANNEL, "event_ts": ts}
    payload = {"type": "event_callback", "team_id": "T01ACME", "event_id": f"Ev{n:08d}", "event": event}
    return ts, payload


def deliver(server: ServeProcess, payload: dict[str, Any], *, retry_s: float = 900.0) -> dict[str, Any]:
    """POST one signed event, retrying while the server is down (Slack retries until it gets a 200)."""
    body = json.dumps(payload)
    deadline = time.monotonic() + retry_s
    while True:
        stamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": SignatureVerifier(SECRET).generate_signature(timestamp=stamp, body=body),
        }
        request = urllib.request.Request(f"{server.url}/hooks/team", data=body.encode(), headers=headers)  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (http to the local server)
                answer: dict[str, Any] = json.loads(response.read())
                return answer
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
