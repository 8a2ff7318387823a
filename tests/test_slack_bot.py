"""`brief slack-bot` end to end: signed Slack events POSTed over HTTP to the Bolt app, which answers from the sample
index through the local Slack Web API (the connector tests' server); the replies are read back from that server."""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from slack_sdk.signature import SignatureVerifier
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.devserver.slack import TOKEN, SlackFake
from briefing.mcp_server import BriefTools
from briefing.settings import load_settings
from briefing.slack_bot import (
    EVENTS_PATH,
    PLACEHOLDER,
    UNKNOWN_USER,
    Secrets,
    SlackBot,
    person_for,
    render_answer,
    serve_in_thread,
)

NOW = "2026-06-15T09:00:00+00:00"
SIGNING_SECRET = "8f2b0c1d9e7a6b5c4d3e2f1a0b9c8d7e"
USERS = [{"id": "U01PRIYA", "name": "priya", "real_name": "Priya Raman"}, {"id": "U0BRIEF", "name": "brief"}]
CHANNELS = [{"id": "C0HELP", "name": "help", "is_channel": True, "is_member": True}]


@dataclass
class Bot:
    fake: SlackFake
    url: str
    tools: BriefTools

    def send(self, event: dict[str, Any], *, secret: str = SIGNING_SECRET, event_id: str = "Ev01") -> int:
        """POST an Events API callback as Slack does: JSON body, timestamp and v0 signature headers."""
        body = json.dumps(
            {
                "token": "verification-token-unused",
                "team_id": "T01ACME",
                "api_app_id": "A0BRIEF",
                "type": "event_callback",
                "event_id": event_id,
                "event_time": int(time.time()),
                "authorizations": [{"team_id": "T01ACME", "user_id": "U0BRIEF", "is_bot": True}],
                "event": event,
            }
        )
        stamp = str(int(time.time()))
        request = urllib.request.Request(
            self.url,
            data=body.encode(),
            method="POST",
            headers={
                "Content-Type": "application/json",
                "X-Slack-Request-Timestamp": stamp,
                "X-Slack-Signature": SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return exc.code

    def ask(self, channel: str, text: str, ts: str, **extra: Any) -> None:
        """The user's message lands in Slack (the fake) and Slack tells the bot about it."""
        self.fake.post(channel, {"type": "message", "user": "U01PRIYA", "text": text, "ts": ts, **extra})


@pytest.fixture
def bot(use_sample: Any) -> Iterator[Bot]:
    fake = SlackFake(users=USERS, channels=CHANNELS, messages={"C0HELP": []})
    settings = load_settings(use_sample.config)
    settings.slack_bot.base_url = fake.start()
    tools = BriefTools(settings)
    slack_bot = SlackBot(settings, Secrets(TOKEN, SIGNING_SECRET, None), tools=tools, now=NOW)
    server = slack_bot.http_server("127.0.0.1", 0)
    stop = serve_in_thread(server)
    yield Bot(fake, f"http://127.0.0.1:{server.server_port}{EVENTS_PATH}", tools)
    stop()
    slack_bot.close()
    fake.stop()


def test_a_mention_is_answered_in_its_thread_with_permalinks(bot: Bot) -> None:
    question = "What did we decide about connection pooling?"
    bot.ask("C0HELP", f"<@U0BRIEF> {question}", "1781500000.000100")
    status = bot.send(
        {"type": "app_mention", "user": "U01PRIYA", "text": f"<@U0BRIEF> {question}", "ts": "1781500000.000100",
         "channel": "C0HELP", "event_ts": "1781500000.000100"}
    )  # fmt: skip
    assert status == 200
    assert bot.fake.wait_for(lambda f: bool(f.updated)), "the placeholder was never updated"
    # First a placeholder in the asker's thread, then that same message replaced by the answer.
    placeholder = bot.fake.posted[0]
    assert placeholder["channel"] == "C0HELP" and placeholder["thread_ts"] == "1781500000.000100"
    assert placeholder["text"] == PLACEHOLDER
    update = bot.fake.updated[0]
    assert (update["channel"], update["ts"]) == ("C0HELP", placeholder["ts"])
    reply = next(m for m in bot.fake.messages["C0HELP"] if m["ts"] == placeholder["ts"])
    assert reply["text"] == update["text"] != PLACEHOLDER
    # The same answer `brief ask` gives, its markers linked to the cited items' permalinks.
    expected = bot.tools.ask(question, k=8, now=NOW)
    assert not expected["no_answer"] and expected["citations"]
    for citation in expected["citations"]:
        assert citation["url"], f"citation {citation['n']} has no permalink"
        assert f"<{citation['url']}|[{citation['n']}]>" in reply["text"]
    assert "*Sources*" in reply["text"]
    assert len(bot.fake.posted) == 1  # one message in the thread, edited in place


def test_a_direct_message_is_answered_in_the_dm(bot: Bot) -> None:
    bot.ask("D01PRIYA", "who is on call this week?", "1781500001.000100")
    bot.send(
        {"type": "message", "channel_type": "im", "user": "U01PRIYA", "text": "who is on call this week?",
         "ts": "1781500001.000100", "channel": "D01PRIYA", "event_ts": "1781500001.000100"}
    )  # fmt: skip
    assert bot.fake.wait_for(lambda f: bool(f.updated))
    posted = bot.fake.posted[0]
    assert posted["channel"] == "D01PRIYA" and not posted.get("thread_ts")  # a DM is answered in the DM itself
    assert "<https://" in bot.fake.updated[0]["text"]


def test_a_channel_message_without_a_mention_and_the_bots_own_messages_get_no_reply(bot: Bot) -> None:
    bot.send(
        {"type": "message", "channel_type": "channel", "user": "U01PRIYA", "text": "pooling?",
         "ts": "1781500002.000100", "channel": "C0HELP"}, event_id="Ev02"
    )  # fmt: skip
    bot.send(
        {"type": "message", "channel_type": "im", "user": "U0BRIEF", "bot_id": "B0BRIEF", "text": "searching",
         "ts": "1781500003.000100", "channel": "D01PRIYA"}, event_id="Ev03"
    )  # fmt: skip
    # Then a mention; once it is answered, the earlier two (handled first) would have posted too had they replied.
    bot.send(
        {"type": "app_mention", "user": "U01PRIYA", "text": "<@U0BRIEF> on-call rota?", "ts": "1781500004.000100",
         "channel": "C0HELP"}, event_id="Ev04"
    )  # fmt: skip
    assert bot.fake.wait_for(lambda f: bool(f.updated))
    assert [p["thread_ts"] for p in bot.fake.posted] == ["1781500004.000100"]


def test_a_question_the_sources_do_not_cover_is_refused_without_sources(bot: Bot) -> None:
    bot.send(
        {"type": "app_mention", "user": "U01PRIYA", "text": "<@U0BRIEF> what is the capital of Mongolia?",
         "ts": "1781500005.000100", "channel": "C0HELP"}
    )  # fmt: skip
    assert bot.fake.wait_for(lambda f: bool(f.updated))
    expected = bot.tools.ask("what is the capital of Mongolia?", k=8, now=NOW)
    assert expected["no_answer"]
    text = bot.fake.updated[0]["text"]
    # The bot answers as the asking user: a refusal under an access scope names no word of the question.
    assert text.startswith("The sources do not cover this") and "mongolia" not in text.lower()


def test_an_unsigned_or_wrongly_signed_event_is_rejected_and_nothing_is_posted(bot: Bot) -> None:
    event = {"type": "app_mention", "user": "U01PRIYA", "text": "<@U0BRIEF> pooling?", "ts": "1.0", "channel": "C0HELP"}
    assert bot.send(event, secret="not-the-signing-secret") == 401
    bot.send({**event, "text": "<@U0BRIEF> on-call?", "ts": "2.0"}, event_id="Ev09")  # a good one, to wait on
    assert bot.fake.wait_for(lambda f: bool(f.updated))
    assert [p["thread_ts"] for p in bot.fake.posted] == ["2.0"]


def test_the_url_verification_handshake_echoes_the_challenge(bot: Bot) -> None:
    body = json.dumps({"token": "x", "challenge": "c-3f9a", "type": "url_verification"})
    stamp = str(int(time.time()))
    request = urllib.request.Request(
        bot.url,
        data=body.encode(),
        headers={
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": SignatureVerifier(SIGNING_SECRET).generate_signature(timestamp=stamp, body=body),
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert json.loads(response.read())["challenge"] == "c-3f9a"


def test_the_token_and_secret_never_reach_the_log(bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    mention = {"type": "app_mention", "user": "U01PRIYA", "text": "<@U0BRIEF> pooling?", "ts": "3.0"}
    bot.send({**mention, "channel": "C0HELP"})
    assert bot.fake.wait_for(lambda f: bool(f.updated))
    assert caplog.records  # Bolt and the bot did log at debug
    assert TOKEN not in caplog.text and SIGNING_SECRET not in caplog.text


def test_quoted_source_text_cannot_ping_or_disguise_a_link() -> None:
    result = {
        "answer": "Ravi wrote <!channel> see <https://evil.example|the runbook> [1].",
        "citations": [
            {"n": 1, "refs": ["slack:C0HELP:1781.5"], "url": "https://acme-eng.slack.com/archives/C0HELP/p17815"}
        ],
        "no_answer": False,
    }
    text = render_answer(result)
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text
    assert "<https://evil.example|" not in text
    assert "<https://acme-eng.slack.com/archives/C0HELP/p17815|[1]>" in text


def test_missing_token_variable_is_one_line_naming_it(use_sample: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["--config", str(use_sample.config), "slack-bot"])
    assert result.exit_code == 3
    assert "SLACK_BOT_TOKEN is not set" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_user_the_people_directory_does_not_know_gets_no_answer(bot: Bot) -> None:
    """Fail closed: a Slack user who is in no ingested source is not answered from the owner's view."""
    bot.send(
        {"type": "app_mention", "user": "U0STRANGER", "text": "<@U0BRIEF> What did we decide about connection pooling?",
         "ts": "1781500006.000100", "channel": "C0HELP"}
    )  # fmt: skip
    assert bot.fake.wait_for(lambda f: bool(f.updated))
    assert bot.fake.updated[0]["text"] == UNKNOWN_USER


def test_the_answer_is_the_asking_users_own_view(bot: Bot, use_sample: Any) -> None:
    """The bot asks as the Slack user's person: the sample's handbook (a files source with no `audience`) is the
    owner's alone, so the owner's answer cites it and the asking engineer's does not."""
    question = "Who should a new engineer ask about Terraform and on-call?"
    owner = bot.tools.ask(question, k=8, now=NOW)
    assert any(ref.startswith("file:") for c in owner["citations"] for ref in c["refs"])
    bot.send(
        {"type": "app_mention", "user": "U01PRIYA", "text": f"<@U0BRIEF> {question}", "ts": "1781500007.000100",
         "channel": "C0HELP"}
    )  # fmt: skip
    assert bot.fake.wait_for(lambda f: bool(f.updated))
    person = person_for(load_settings(use_sample.config), "U01PRIYA")
    assert person is not None
    scoped = bot.tools.ask(question, k=8, now=NOW, acting_as=person, shared=True)  # asked in a shared channel
    assert not any(ref.startswith("file:") for c in scoped["citations"] for ref in c["refs"])
    assert bot.fake.updated[0]["text"] == render_answer(scoped)
    assert bot.tools.brief.principal.owner  # the next question is the owner's again
