"""Fuzzing Slack rendering: mrkdwn, Block Kit, attachments, authors and whole export records never crash."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from briefing.model import RawRecord
from connectors.slack.mrkdwn import message_text, render_attachments, render_blocks, render_mrkdwn
from connectors.slack.normalise import normalise_records
from connectors.slack.people import message_author
from tests.fuzz.strategies import DEEP, FAST, MRKDWN_TOKENS, json_scalars, json_values, slack_blocks, tokens_text

USERS = {"U1": "Ann Lee", "U2": "Bo Chen"}
CHANNELS = {"C1": "general"}
BUDGETS = [pytest.param(FAST, id="fast"), pytest.param(DEEP, id="deep", marks=pytest.mark.slow)]


@pytest.mark.parametrize("budget", BUDGETS)
def test_mrkdwn_never_crashes_and_stays_proportional(budget: Any) -> None:
    @budget
    @given(tokens_text(MRKDWN_TOKENS, 80))
    def check(text: str) -> None:
        out = render_mrkdwn(text, USERS, CHANNELS)
        assert isinstance(out, str)
        assert len(out) <= 2 * len(text) + 16

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_code_and_marker_free_text_come_back_unchanged(budget: Any) -> None:
    code_chars = st.text(st.characters(blacklist_characters="`<>&", blacklist_categories=["Cs"]), max_size=40)
    plain = st.text(st.characters(blacklist_characters="*_~`<>&", blacklist_categories=["Cs"]), max_size=40)

    @budget
    @given(code_chars, plain)
    def check(code: str, prose: str) -> None:
        if "\n" not in code and code:
            assert render_mrkdwn(f"`{code}`") == f"`{code}`"
        assert render_mrkdwn(f"```{code}```") == f"```{code}```"
        assert render_mrkdwn(prose) == prose

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_blocks_attachments_and_authors_never_crash(budget: Any) -> None:
    attachments = (
        st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "pretext": json_scalars,
                    "title": json_scalars,
                    "text": tokens_text(MRKDWN_TOKENS, 10) | json_scalars,
                    "fallback": json_scalars,
                    "fields": st.lists(
                        st.dictionaries(st.sampled_from(["title", "value"]), json_scalars) | json_values
                    ),
                },
            )
            | json_values,
            max_size=3,
        )
        | json_scalars
    )
    message = st.fixed_dictionaries(
        {},
        optional={
            "text": tokens_text(MRKDWN_TOKENS, 20) | json_scalars,
            "blocks": slack_blocks(),
            "attachments": attachments,
            "files": st.lists(json_values, max_size=3) | json_scalars,
            "user": st.sampled_from(["U1", "U9", ""]) | json_scalars,
            "bot_id": json_scalars,
            "subtype": st.sampled_from(["bot_message", "file_comment", "thread_broadcast"]) | json_scalars,
            "username": json_scalars,
            "bot_profile": json_values,
            "user_profile": json_values,
            "comment": json_values,
        },
    )

    @budget
    @given(message)
    def check(msg: dict[str, Any]) -> None:
        assert isinstance(render_blocks(msg.get("blocks"), USERS, CHANNELS), str)
        assert isinstance(render_attachments(msg.get("attachments"), USERS, CHANNELS), str)
        assert isinstance(message_text(msg, USERS, CHANNELS), str)
        author = message_author(msg, USERS)
        assert author is None or isinstance(author, str)

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_export_records_become_documents_or_counted_failures(budget: Any) -> None:
    ts = st.integers(1_500_000_000, 1_800_000_000).map(lambda s: f"{s}.{s % 997:06d}")
    message = st.fixed_dictionaries(
        {"ts": ts, "_channel": st.just({"id": "C1", "name": "general"})},
        optional={
            "type": st.just("message"),
            "text": tokens_text(MRKDWN_TOKENS, 20),
            "user": st.sampled_from(["U1", "U2", "U9"]),
            "thread_ts": ts,
            "reply_count": st.integers(0, 5),
            "subtype": st.sampled_from(["bot_message", "channel_join", "file_comment", "thread_broadcast"]),
            "blocks": slack_blocks(),
            "files": st.lists(json_values, max_size=2),
            "bot_profile": json_values,
            "edited": json_values,
            "hidden": st.booleans(),
        },
    )
    user = st.fixed_dictionaries(
        {"id": st.sampled_from(["U1", "U2"])},
        optional={"name": st.text(max_size=8), "real_name": st.text(max_size=8), "profile": st.just({})},
    )

    @budget
    @given(st.lists(message, max_size=8), st.lists(user, max_size=2))
    def check(messages: list[dict[str, Any]], users: list[dict[str, Any]]) -> None:
        records = [RawRecord(f"m{i}", "message", m) for i, m in enumerate(messages)]
        records += [RawRecord(f"u{i}", "user", u) for i, u in enumerate(users)]
        out = normalise_records(records)
        refs = [item.ref for doc in out.documents for item in doc.items]
        assert len(refs) == len(set(refs)) or len({m["ts"] for m in messages}) < len(messages)
        assert len(refs) + len(out.failures) <= len(messages)
        for doc in out.documents:
            assert doc.items and all(item.text for item in doc.items)

    check()
