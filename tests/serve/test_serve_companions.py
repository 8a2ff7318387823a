"""The MCP tools (authenticated HTTP) and the Slack bot can run inside `brief serve`, reading what it publishes."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from slack_sdk.signature import SignatureVerifier

from briefing import pipeline
from briefing.devserver.slack import TOKEN, SlackFake
from briefing.mcp_auth import ensure_token
from briefing.settings import load_settings
from tests.serve.conftest import SLACK_SECRET, start, write_config


def _status(request: urllib.request.Request) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.mark.slow
def test_mcp_and_the_slack_bot_run_in_the_same_process(
    tmp_path: Path, secrets: None, slack_fake: SlackFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", TOKEN)
    bot_table = f'[slack_bot]\nport = 0\nbase_url = "{slack_fake.url}"\n'
    config = write_config(tmp_path, slack_fake.url, serve_keys="mcp_port = 0\nslack_bot = true\n", extra=bot_table)
    pipeline.run(load_settings(config), ["team"])
    served = start(config, slack_fake)
    try:
        mcp, bot = served.server.companions.mcp_url, served.server.companions.slack_url
        assert mcp and bot
        anonymous = urllib.request.Request(mcp, data=b"{}", method="POST")
        assert _status(anonymous)[0] == 401
        token, _, _ = ensure_token(served.server.settings.home)
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-03-26",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ).encode()
        headers = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        status, answer = _status(urllib.request.Request(mcp, data=body, method="POST", headers=headers))
        assert status == 200 and b"serverInfo" in answer
        challenge = json.dumps({"token": "t", "challenge": "c-42", "type": "url_verification"})
        stamp = str(int(time.time()))
        signed = {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": SignatureVerifier(SLACK_SECRET).generate_signature(timestamp=stamp, body=challenge),
        }
        status, answer = _status(urllib.request.Request(bot, data=challenge.encode(), method="POST", headers=signed))
        assert status == 200 and b"c-42" in answer
    finally:
        served.server.stop()
