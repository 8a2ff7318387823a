"""The Slack bot: no private content in a shared channel, no second answer to a replayed event, no controls."""

from __future__ import annotations

from typing import Any

from briefing.access import Principal, shared_scope
from briefing.settings import Settings, WorkspaceSettings
from briefing.slack_bot import render_answer
from tests.test_slack_bot import Bot, bot  # noqa: F401 (the fixture)

MENTION = {"type": "app_mention", "user": "U01PRIYA", "text": "<@U0BRIEF> who is on call this week?",
           "ts": "1781500009.000100", "channel": "C0HELP"}  # fmt: skip


def test_a_shared_channel_answer_reads_only_what_every_member_may(tmp_path: Any) -> None:
    settings = Settings(workspace=WorkspaceSettings(name="bot"), home=tmp_path)
    settings.sources = {"chat": None, "code": None}  # type: ignore[dict-item]
    alice = Principal("Alice", "person:a", ("everyone", "members:chat", "person:a", "chat/slack:U1", "mailbox:a@x"))
    shared = shared_scope(settings, alice)
    assert shared.readers == ("everyone", "members:chat")  # her private channel, DMs and repo are not in it
    owner = shared_scope(settings, Principal("Owner", None, None))
    assert owner.readers == ("everyone", "members:chat", "members:code")  # the owner too: never everything


def test_a_replayed_event_is_answered_once(bot: Bot) -> None:  # noqa: F811
    assert bot.send(MENTION, event_id="EvReplay") == 200
    assert bot.send(MENTION, event_id="EvReplay") == 200  # the same signed request again, within 5 minutes
    assert bot.send({**MENTION}, event_id="EvOther") == 200  # the same message under another event id
    assert bot.fake.wait_for(lambda f: len(f.updated) == 1)
    fresh = {**MENTION, "ts": "1781500010.000100"}
    assert bot.send(fresh, event_id="EvFresh") == 200
    assert bot.fake.wait_for(lambda f: len(f.updated) == 2)
    assert len(bot.fake.posted) == 2  # one placeholder per distinct question, none for the replays


def test_control_characters_and_mentions_never_reach_slack() -> None:
    result = {
        "answer": "Ask \x1b]0;pwned\x07Alice <!channel> <@U123> <!here> \x1b[2Jnow @here [1]",
        "citations": [{"n": 1, "refs": ["slack:C1:1\x07"], "url": "https://x.example/p"}],
    }
    text = render_answer(result)
    assert not any(ord(c) < 32 and c != "\n" for c in text) and "\x1b" not in text and "\x9b" not in text
    assert "<!channel>" not in text and "<@U123>" not in text and "<!here>" not in text
    assert "&lt;!channel&gt;" in text
    assert "@here" not in text and "@\u2060here" in text  # a bare broadcast, were the bot to post with link_names
