"""Slack mrkdwn, blocks and authors rendered as the reader sees them in Slack."""

from __future__ import annotations

import pytest

from connectors.slack.mrkdwn import message_text, render_mrkdwn
from connectors.slack.people import message_author

USERS = {"U1": "Ann Lee", "U2": "Bo Chen"}


@pytest.mark.parametrize(
    ("mrkdwn", "shown"),
    [
        # Code keeps every character: emphasis-like markers inside it are part of the code.
        ("```kwargs = {*args*, _private_}```", "```kwargs = {*args*, _private_}```"),
        ("call `_x_` then `*p*`", "call `_x_` then `*p*`"),
        ("```\nfor i in *_range_*:\n    pass\n```", "```\nfor i in *_range_*:\n    pass\n```"),
        # Asterisks with spaces around them are arithmetic or plain text, not emphasis.
        ("foo * bar * baz", "foo * bar * baz"),
        ("2*3*4 and a * b", "2*3*4 and a * b"),
        ("snake_case_name and __init__", "snake_case_name and __init__"),
        # Real emphasis is removed, nested too.
        ("*bold* and _italic_ and ~gone~", "bold and italic and gone"),
        ("*bold _and italic_ here*", "bold and italic here"),
        ("(*x*).", "(x)."),
        # Markers facing the outside of brackets are plain characters: "f(x)*g(y)*h(z)" is arithmetic.
        ("f(x)*g(y)*h(z) and )_y_(", "f(x)*g(y)*h(z) and )_y_("),
        # A link label is prose: its markers go; its address keeps its underscores.
        ("<http://foo|*bar ~baz~*>", "bar baz (http://foo)"),
        ("see <https://x.io/_a_/b|the _doc_>", "see the doc (https://x.io/_a_/b)"),
        ("*<@U1>* said so", "@Ann Lee said so"),
        ("`<@U2>` in code", "`@Bo Chen` in code"),
        ("a &lt;b&gt; *c*", "a <b> c"),
    ],
)
def test_mrkdwn_renders_like_slack(mrkdwn: str, shown: str) -> None:
    assert render_mrkdwn(mrkdwn, USERS) == shown


def test_section_block_mrkdwn_keeps_code() -> None:
    message = {
        "text": "",
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "*Deploy* `make _all_`"}}],
    }
    assert message_text(message, USERS, {}) == "Deploy `make _all_`"


def test_bot_user_is_named_by_its_bot_profile() -> None:
    # A bot user's id is not in users.list's humans; the message carries the bot's name.
    message = {"user": "UBOT", "bot_id": "B9", "bot_profile": {"name": "deploy-bot"}, "text": "shipped"}
    assert message_author(message, USERS) == "deploy-bot"


def test_known_user_wins_over_bot_profile() -> None:
    message = {"user": "U1", "bot_id": "B9", "bot_profile": {"name": "workflow"}, "text": "hi"}
    assert message_author(message, USERS) == "Ann Lee"


def test_legacy_file_comment_is_authored_by_its_commenter() -> None:
    message = {
        "type": "message",
        "subtype": "file_comment",
        "text": "<@U2> commented on <@U1>'s file report.pdf: looks good",
        "comment": {"id": "Fc1", "user": "U2", "comment": "looks good"},
    }
    assert message_author(message, USERS) == "Bo Chen"
