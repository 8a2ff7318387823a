"""The Slack Web API connector against a local server speaking Slack's API (tests/fakes/slack_api.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from slack_sdk import WebClient
from slack_sdk.http_retry import builtin_handlers
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from briefing.errors import AuthError, RateLimitedError
from briefing.model import Batch, Cursor
from briefing.registry import SourceContext, connector_for
from briefing.settings import source_adapter
from connectors.slack import SlackSource
from connectors.slack.api import SlackConnector
from connectors.slack.api_state import SlackCursor
from tests.fakes.slack_api import TOKEN, SlackFake
from tests.harness import SourceRunner

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "slack" / "workspace.json"
NOW = 1778241600.0  # 2026-05-08 12:00 UTC
ROOT = "1778076300.000100"  # the migration thread, 2026-05-06
OLD_ROOT = "1775034000.000100"  # a thread from 2026-04-01, outside the 14-day rescan window


@pytest.fixture
def fake() -> Iterator[SlackFake]:
    server = SlackFake.from_fixture(FIXTURE)
    server.start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The SDK sleeps Retry-After plus jitter between 429s; record the waits instead of spending them."""
    waits: list[float] = []

    class Clock:
        @staticmethod
        def sleep(seconds: float) -> None:
            waits.append(seconds)

    monkeypatch.setattr(builtin_handlers, "time", Clock)
    return waits


def _config(**overrides: Any) -> SlackSource:
    data = {"type": "slack", "token_env": "SLACK_TOKEN", "channels": ["platform-eng", "C02RAND"], **overrides}
    return source_adapter().validate_python(data)


def _connector(fake: SlackFake, token: str = TOKEN, clock: float = NOW, **overrides: Any) -> SlackConnector:
    config = _config(**overrides)
    client = WebClient(token=token, base_url=fake.url, retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=3)])
    return SlackConnector(client, config, name="team-slack", clock=lambda: clock)


class Runner(SourceRunner):
    """Collection through the real pipeline: records into the raw cache, deletions applied, then the cursor."""

    def run(self, stop_after: int | None = None) -> list[Batch]:
        return self.collect(stop_after=stop_after)

    @property
    def cursor(self) -> Cursor:
        saved = self.saved_cursor
        return self.connector.load_cursor(saved) if saved is not None else self.connector.initial_cursor()

    def texts(self) -> dict[str, str]:
        return {i.ref: i.text for d in self.normalise().documents for i in d.items}


def test_first_sync_reads_channels_users_history_and_threads(fake: SlackFake) -> None:
    runner = Runner(_connector(fake))
    batches = runner.run()
    assert [f for b in batches for f in b.failures] == []

    texts = runner.texts()
    assert texts[f"slack:C01PLAT:{ROOT}"] == (
        "Starting the migration plan (https://wiki.acme.example/migration) for PLAT-42 today. "
        "@Bob Okafor can you review?"
    )
    assert texts["slack:C01PLAT:1778076420.000200"] == "Looks good & I left comments on PR #17."  # a thread reply
    assert texts["slack:C01PLAT:1775035200.000200"] == "Agreed, PLAT-40 first."  # reply in an old thread
    assert texts["slack:C02RAND:1778137500.000300"] == "see #platform-eng"  # blocks only
    assert not any(key.startswith(("C03SALES/", "G04LEADS/")) for key in runner.cache)

    docs = {d.key: d for d in runner.normalise().documents}
    thread = docs[f"slack:C01PLAT/{ROOT}"]
    assert [i.metadata["ts"] for i in thread.items] == [ROOT, "1778076420.000200", "1778083200.000500"]
    assert thread.items[0].url == "https://acme-eng.slack.com/archives/C01PLAT/p1778076300000100"
    people = {p.id: p for p in runner.normalise().people}
    assert people["slack:U01ALICE"].emails == ("alice@acme.example",)

    # Cursor paging was followed everywhere (the fake serves two entries a page).
    assert len(fake.calls("users.list")) == 2
    assert len(fake.calls("conversations.history", channel="C01PLAT")) == 3
    assert {r.params["ts"] for r in fake.calls("conversations.replies")} == {ROOT, OLD_ROOT}
    assert isinstance(runner.cursor, SlackCursor)
    assert runner.cursor.channels["C01PLAT"].newest == "1778140800.000600"


def test_incremental_run_reads_only_the_window_and_changed_threads(fake: SlackFake) -> None:
    runner = Runner(_connector(fake))
    runner.run()
    fake.log.clear()
    fake.post("C02RAND", {"type": "message", "user": "U03CARA", "ts": "1778230000.000400", "text": "new one"})

    batches = runner.run()
    histories = fake.calls("conversations.history")
    assert {r.params["channel"] for r in histories} == {"C01PLAT", "C02RAND"}
    # The window ends at the channel's newest message when that is older than the clock (a quiet channel).
    cursor = runner.cursor
    assert isinstance(cursor, SlackCursor)
    for request in histories:
        newest = float(cursor.channels[request.params["channel"]].newest)
        assert float(request.params["oldest"]) <= min(NOW, newest) - 14 * 86400 + 1
    assert fake.calls("conversations.replies") == []  # no thread changed
    stored = {r.key for b in batches for r in b.records}
    assert "C02RAND/1778230000.000400" in stored
    assert f"C01PLAT/{OLD_ROOT}" not in stored  # older than the window: not fetched again
    assert runner.texts()["slack:C02RAND:1778230000.000400"] == "new one"


def test_late_reply_to_a_thread_is_found(fake: SlackFake) -> None:
    runner = Runner(_connector(fake))
    runner.run()
    fake.log.clear()
    late = {
        "type": "message",
        "user": "U03CARA",
        "ts": "1778235000.000700",
        "thread_ts": ROOT,
        "text": "Done, no loss.",
    }
    fake.post("C01PLAT", late)

    runner.run()
    assert {r.params["ts"] for r in fake.calls("conversations.replies")} == {ROOT}  # only the changed thread
    thread = next(d for d in runner.normalise().documents if d.key == f"slack:C01PLAT/{ROOT}")
    assert thread.items[-1].text == "Done, no loss."


def test_edit_replaces_the_cached_message(fake: SlackFake) -> None:
    runner = Runner(_connector(fake))
    runner.run()
    fake.edit("C01PLAT", "1778077200.000300", "Deploy window moved to Friday 09:00 UTC", "1778200000.000000")

    runner.run()
    items = {i.ref: i for d in runner.normalise().documents for i in d.items}
    edited = items["slack:C01PLAT:1778077200.000300"]
    assert edited.text == "Deploy window moved to Friday 09:00 UTC"
    assert edited.metadata["edited"] == "1778200000.000000"


def test_deletions_in_the_window_and_deletion_events_remove_messages(fake: SlackFake) -> None:
    runner = Runner(_connector(fake))
    runner.run()
    fake.delete("C01PLAT", "1778079600.000400")  # the bot message, gone without trace
    fake.delete("C01PLAT", "1778076420.000200")  # a thread reply
    # A reply in an old thread, outside the window: only the deletion event can tell.
    fake.delete("C01PLAT", "1775035200.000200")
    event = {
        "type": "message",
        "subtype": "message_deleted",
        "hidden": True,
        "ts": "1778236000.000001",
        "deleted_ts": "1775035200.000200",
    }
    fake.post("C01PLAT", event)

    batches = runner.run()
    deleted = {k for b in batches for k in b.deleted}
    assert deleted == {"C01PLAT/1778079600.000400", "C01PLAT/1778076420.000200", "C01PLAT/1775035200.000200"}
    texts = runner.texts()
    assert "slack:C01PLAT:1778079600.000400" not in texts
    assert "slack:C01PLAT:1778076420.000200" not in texts
    assert "slack:C01PLAT:1775035200.000200" not in texts
    assert "slack:C01PLAT:1778236000.000001" not in texts  # the event itself is not a message
    assert f"slack:C01PLAT:{OLD_ROOT}" in texts  # outside the window: kept, never judged deleted


def test_rate_limit_storm_is_waited_out(fake: SlackFake, no_sleep: list[float]) -> None:
    fake.rate_limit = 3
    fake.retry_after = 2
    runner = Runner(_connector(fake))
    runner.run()
    assert f"slack:C01PLAT:{ROOT}" in runner.texts()
    assert len(no_sleep) == 3 and all(2 <= w < 3 for w in no_sleep)


def test_endless_rate_limit_is_a_rate_limited_error(fake: SlackFake) -> None:
    fake.rate_limit = 100
    with pytest.raises(RateLimitedError, match="auth.test"):
        Runner(_connector(fake)).run()


def test_crash_mid_run_resumes_without_gaps_or_duplicates(fake: SlackFake) -> None:
    reference = Runner(_connector(fake))
    reference.run()

    runner = Runner(_connector(fake))
    runner.run(stop_after=2)  # users and channels, then #platform-eng; the process dies before #random
    assert not any(k.startswith("C02RAND/") for k in runner.cache)
    assert isinstance(runner.cursor, SlackCursor) and set(runner.cursor.channels) == {"C01PLAT"}
    fake.log.clear()
    runner.run()
    assert {k: r.data for k, r in runner.cache.items()} == {k: r.data for k, r in reference.cache.items()}
    assert float(fake.calls("conversations.history", channel="C02RAND")[0].params["oldest"]) == 0
    assert float(fake.calls("conversations.history", channel="C01PLAT")[0].params["oldest"]) > 0


def test_crash_through_the_real_runner_keeps_the_cursor_behind_the_records(fake: SlackFake) -> None:
    from briefing.ingest import collect
    from briefing.registry import FetchOptions
    from briefing.settings import Settings
    from briefing.store import RawStore, SourceState

    settings = Settings()
    connector = _connector(fake)

    class Dies:
        def __getattr__(self, name: str) -> Any:
            return getattr(connector, name)

        def fetch(self, cursor: Cursor) -> Iterator[Batch]:
            for n, batch in enumerate(connector.fetch(cursor)):
                yield batch
                if n == 1:
                    raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        collect(settings, "team-slack", FetchOptions(), connector=Dies())  # type: ignore[arg-type]
    saved = SourceState.for_source(settings, "team-slack").cursor
    assert saved is not None and set(saved["channels"]) == {"C01PLAT"}
    report = collect(settings, "team-slack", FetchOptions(), connector=connector)
    assert report.failures == []
    store = RawStore.for_source(settings, "team-slack")
    try:
        keys = store.keys()
    finally:
        store.close()
    assert {f"C01PLAT/{ROOT}", "C02RAND/1778137500.000300", "user/U01ALICE"} <= keys


def test_rejected_token_is_an_auth_error_naming_the_setting(fake: SlackFake) -> None:
    with pytest.raises(AuthError) as caught:
        Runner(_connector(fake, token="xoxb-wrong")).run()
    message = str(caught.value)
    assert "sources.team-slack.token_env" in message and "SLACK_TOKEN" in message
    assert "xoxb-wrong" not in message


def test_malformed_message_is_a_failure_and_the_rest_continues(fake: SlackFake) -> None:
    fake.broken = {"C02RAND"}
    batches = Runner(_connector(fake)).run()
    failures = [f for b in batches for f in b.failures]
    assert [f.key for f in failures] == ["C02RAND/history#0"]
    stored = {r.key for b in batches for r in b.records}
    assert "C02RAND/1778137200.000200" in stored and f"C01PLAT/{ROOT}" in stored


def test_unknown_channel_is_reported_and_private_channels_need_the_switch(fake: SlackFake) -> None:
    batches = Runner(_connector(fake, channels=["eng-leads", "nope"])).run()
    assert {f.key for b in batches for f in b.failures} == {"channel/eng-leads", "channel/nope"}
    runner = Runner(_connector(fake, channels=["eng-leads"], include_private=True))
    runner.run()
    assert runner.texts()["slack:G04LEADS:1778090400.000100"] == "Headcount: one more SRE role in Q3."


def test_build_reads_the_token_from_the_named_variable(fake: SlackFake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_TOKEN", TOKEN)
    ctx = SourceContext(name="team-slack", config=_config(base_url=fake.url.rstrip("/")))
    connector = connector_for(ctx)
    assert isinstance(connector, SlackConnector)
    assert connector.client.base_url == fake.url
    assert any(isinstance(h, RateLimitErrorRetryHandler) for h in connector.client.retry_handlers)
    batches = list(connector.fetch(connector.initial_cursor()))
    assert any(r.key == f"C01PLAT/{ROOT}" for b in batches for r in b.records)
    monkeypatch.delenv("SLACK_TOKEN")
    with pytest.raises(AuthError, match="SLACK_TOKEN"):
        connector_for(ctx)
