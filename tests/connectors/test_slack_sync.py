"""Slack Web API sync over months: a quiet channel, late replies to old threads, edits and deleted replies.

The local server speaks Slack's API (tests/fakes/slack_api.py); the connector's clock is injected, so "weeks
later" costs no waiting.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from connectors.slack.api_state import SlackCursor
from tests.connectors.test_slack import FIXTURE, NOW, OLD_ROOT, Runner, _connector
from tests.fakes.slack_api import SlackFake

NEWEST = "1778140800.000600"  # the newest message of #platform-eng (2026-05-07)
OLD_REPLY = "1775035200.000200"  # the only reply to OLD_ROOT, 36 days older than NEWEST
QUIET = float(NEWEST) + 30 * 86400  # the run's clock a month later: nothing was posted since
LATE = f"{QUIET - 3600:.6f}"


@pytest.fixture
def fake() -> Iterator[SlackFake]:
    server = SlackFake.from_fixture(FIXTURE)
    server.start()
    yield server
    server.stop()


def _late_reply(fake: SlackFake) -> None:
    reply = {"type": "message", "user": "U03CARA", "ts": LATE, "thread_ts": OLD_ROOT, "text": "Closing this: done."}
    fake.post("C01PLAT", reply)


def test_after_a_quiet_month_late_replies_edits_and_deleted_replies_are_all_seen(fake: SlackFake) -> None:
    runner = Runner(_connector(fake, clock=NOW))
    runner.run()
    assert f"slack:C01PLAT:{OLD_REPLY}" in runner.texts()

    _late_reply(fake)
    fake.edit("C01PLAT", NEWEST, "Reminder: retro moved to Monday", edited_ts=f"{QUIET - 60:.6f}")
    fake.delete("C01PLAT", OLD_REPLY)
    fake.log.clear()
    runner.connector = _connector(fake, clock=QUIET)
    runner.run()

    texts = runner.texts()
    assert texts[f"slack:C01PLAT:{LATE}"] == "Closing this: done."  # a root 36 days older than the newest
    assert texts[f"slack:C01PLAT:{NEWEST}"] == "Reminder: retro moved to Monday"  # the quiet channel re-read
    assert f"slack:C01PLAT:{OLD_REPLY}" not in texts  # the deleted reply left the cache
    polls = fake.calls("conversations.replies", ts=OLD_ROOT)
    assert polls and polls[0].params["oldest"] == OLD_REPLY  # polled from the last reply seen


def test_thread_polls_are_bounded_per_run_and_reported(fake: SlackFake) -> None:
    runner = Runner(_connector(fake, clock=NOW))
    runner.run()
    _late_reply(fake)
    fake.log.clear()

    runner.connector = _connector(fake, clock=QUIET, thread_polls_per_run=0)
    runner.run()
    assert fake.calls("conversations.replies", ts=OLD_ROOT) == []
    assert f"slack:C01PLAT:{LATE}" not in runner.texts()  # over budget: waits for a later run
    cursor = runner.cursor
    assert isinstance(cursor, SlackCursor)
    assert cursor.thread_polls == 0 and cursor.api_calls == len(fake.log)

    runner.connector = _connector(fake, clock=QUIET + 3600, thread_polls_per_run=1)
    runner.run()
    assert f"slack:C01PLAT:{LATE}" in runner.texts()
    cursor = runner.cursor
    assert isinstance(cursor, SlackCursor) and cursor.thread_polls == 1


def test_threads_beyond_the_horizon_are_not_polled(fake: SlackFake) -> None:
    runner = Runner(_connector(fake, clock=NOW))
    runner.run()
    fake.log.clear()
    runner.connector = _connector(fake, clock=QUIET, thread_horizon_days=20)
    runner.run()
    assert fake.calls("conversations.replies", ts=OLD_ROOT) == []


def test_a_recently_polled_old_thread_waits_before_the_next_poll(fake: SlackFake) -> None:
    runner = Runner(_connector(fake, clock=NOW))
    runner.run()
    runner.connector = _connector(fake, clock=QUIET)
    runner.run()
    fake.log.clear()
    runner.connector = _connector(fake, clock=QUIET + 600)  # ten minutes later: a 2-month-old thread can wait
    runner.run()
    assert fake.calls("conversations.replies", ts=OLD_ROOT) == []
