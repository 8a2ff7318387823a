"""Gmail through google-api-python-client (static discovery) against a local server speaking Gmail v1's shapes.

The real client runs unchanged: credentials from a file, tokens from the file's token_uri (served locally),
messages in raw format, history-id sync. What a user notices: the right messages land in the raw cache and
leave it when deleted, one thread is one document, errors exit with the documented codes and name no secret.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from briefing.errors import AuthError, ConfigError, RateLimitedError, SourceError
from briefing.registry import FetchOptions, SourceContext
from connectors.email import GmailSource
from connectors.email.gmail import GmailConnector, build
from tests.fakes.google_api import GoogleFake, serve
from tests.harness import SourceRunner

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def mail(n: int, subject: str, *, reply_to: int | None = None, body: str = "", sender: str = "Dana Lee") -> bytes:
    address = sender.split()[0].lower() + "@kestrelpay.example"
    lines = [
        f"Message-ID: <m{n}@kestrelpay.example>",
        f"From: {sender} <{address}>",
        "To: Payments Team <payments@kestrelpay.example>",
        f"Subject: {subject}",
        f"Date: Mon, 30 Nov 2026 09:{n:02d}:00 +0000",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8",
    ]
    if reply_to is not None:
        lines += [f"In-Reply-To: <m{reply_to}@kestrelpay.example>", f"References: <m{reply_to}@kestrelpay.example>"]
    text = body or f"Message {n} about the settlement retry plan."
    return ("\r\n".join(lines) + "\r\n\r\n" + text + "\r\n").encode()


@pytest.fixture
def fake() -> Iterator[GoogleFake]:
    server = GoogleFake(now=NOW)
    server.labels["Label_7"] = "Payments"
    server.labels["CATEGORY_PROMOTIONS"] = "CATEGORY_PROMOTIONS"
    with serve(server):
        yield server


def credentials(tmp_path: Path, info: dict[str, Any], name: str = "gmail.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(info), encoding="utf-8")
    return path


class Runner(SourceRunner):
    def __init__(self) -> None:
        super().__init__()
        self.sleeps: list[float] = []

    def gmail(self, fake: GoogleFake, tmp_path: Path, *, full: bool = False, **config: Any) -> GmailConnector:
        settings: dict[str, Any] = {
            "type": "gmail",
            "base_url": fake.url,
            "credentials_file": credentials(tmp_path, fake.authorized_user()),
        }
        settings.update(config)
        ctx = SourceContext(name="gmail", config=GmailSource(**settings), options=FetchOptions(full=full))
        connector = build(ctx)
        connector.call.layer.sleep = self.sleeps.append
        return connector


def api_calls(fake: GoogleFake, path_end: str) -> list[Any]:
    return [entry for entry in fake.log if entry.method == "GET" and entry.path.endswith(path_end)]


def test_full_sync_reads_matching_messages_in_raw_format_and_threads_them(fake: GoogleFake, tmp_path: Path) -> None:
    thread = fake.add_message(mail(1, "Settlement retries"))
    fake.add_message(mail(2, "Re: Settlement retries", reply_to=1), thread_id=thread)
    fake.add_message(mail(3, "Spring sale!", body="Buy now"), labels=["INBOX", "CATEGORY_PROMOTIONS"])
    fake.add_message(mail(4, "Old settlement note"), when=NOW - timedelta(days=200))
    runner = Runner()
    connector = runner.gmail(fake, tmp_path, query="newer_than:90d -category:promotions")
    runner.collect(connector)

    assert set(runner.cache) == {"m1@kestrelpay.example", "m2@kestrelpay.example"}
    fetched = api_calls(fake, "/messages/" + thread)
    assert fetched and all(entry.params["format"] == ["raw"] for entry in fetched)
    # The token came from the file's token_uri (this server), by the refresh token; it is what the API saw.
    grants = [entry for entry in fake.log if entry.path == "/token"]
    assert [g.params["grant_type"] for g in grants] == [["refresh_token"]]
    assert all(entry.authorization.startswith("Bearer ya29.fake-") for entry in fake.log if entry.method == "GET")

    documents = runner.normalise(connector).documents
    assert len(documents) == 1
    assert [item.ref for item in documents[0].items] == ["email:m1@kestrelpay.example", "email:m2@kestrelpay.example"]
    assert documents[0].items[0].author == "Dana Lee"


def test_a_service_account_key_signs_its_own_token_request(fake: GoogleFake, tmp_path: Path) -> None:
    fake.add_message(mail(1, "Settlement retries"))
    runner = Runner()
    key = credentials(tmp_path, fake.service_account(), "sa.json")
    runner.collect(runner.gmail(fake, tmp_path, credentials_file=key, delegated_user="manager@kestrelpay.example"))
    assert set(runner.cache) == {"m1@kestrelpay.example"}
    grant = next(entry for entry in fake.log if entry.path == "/token")
    assert grant.params["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]


def test_history_sync_adds_deletes_and_follows_labels(fake: GoogleFake, tmp_path: Path) -> None:
    first = fake.add_message(mail(1, "Settlement retries"), labels=["INBOX", "Label_7"])
    second = fake.add_message(mail(2, "Card network outage"), labels=["INBOX", "Label_7"])
    third = fake.add_message(mail(3, "Payments roadmap"), labels=["INBOX", "Label_7"])
    fake.add_message(mail(4, "Lunch on Friday"), labels=["INBOX"])
    runner = Runner()
    connector = runner.gmail(fake, tmp_path, labels=["Payments"])
    runner.collect(connector)
    assert set(runner.cache) == {f"m{n}@kestrelpay.example" for n in (1, 2, 3)}
    listings = len(api_calls(fake, "/messages"))
    since = (runner.saved_cursor or {})["history_id"]

    fake.add_message(mail(5, "Re: Settlement retries", reply_to=1), labels=["INBOX", "Label_7"], thread_id=first)
    fake.add_message(mail(6, "Team offsite"), labels=["INBOX"])  # not in the configured label
    fake.delete_message(second)
    fake.relabel(third, remove=["Label_7"])
    fake.relabel(first, add=["TRASH"])
    runner.collect(runner.gmail(fake, tmp_path, labels=["Payments"]))

    assert set(runner.cache) == {"m5@kestrelpay.example"}
    history = api_calls(fake, "/history")
    assert history and history[0].params["startHistoryId"] == [since]
    assert len(api_calls(fake, "/messages")) == listings  # no second listing of the mailbox


def test_incremental_additions_must_match_the_query(fake: GoogleFake, tmp_path: Path) -> None:
    fake.add_message(mail(1, "Settlement retries"))
    runner = Runner()
    runner.collect(runner.gmail(fake, tmp_path, query="settlement"))
    fake.add_message(mail(2, "Settlement dashboards", body="The settlement graphs are live."))
    fake.add_message(mail(3, "Lunch", body="Pizza on Friday"))
    runner.collect(runner.gmail(fake, tmp_path, query="settlement"))
    assert set(runner.cache) == {"m1@kestrelpay.example", "m2@kestrelpay.example"}


def test_history_too_old_lists_again_fetching_only_unseen_messages(fake: GoogleFake, tmp_path: Path) -> None:
    kept = fake.add_message(mail(1, "Settlement retries"))
    gone = fake.add_message(mail(2, "Card network outage"))
    runner = Runner()
    runner.collect(runner.gmail(fake, tmp_path))
    fake.delete_message(gone)
    fake.add_message(mail(3, "Payments roadmap"))
    fake.history_floor = fake.history_id + 1  # Gmail no longer has the history since our id: 404
    fetched_before = len(api_calls(fake, "/messages/" + kept))
    runner.collect(runner.gmail(fake, tmp_path))

    assert set(runner.cache) == {"m1@kestrelpay.example", "m3@kestrelpay.example"}
    assert len(api_calls(fake, "/messages/" + kept)) == fetched_before  # content never changes: not fetched again
    # The next run is incremental again, from the history id of the resync.
    fake.history_floor = 0
    fake.add_message(mail(4, "Incident review"))
    runner.collect(runner.gmail(fake, tmp_path))
    assert "m4@kestrelpay.example" in runner.cache


def test_listing_and_history_are_paged(fake: GoogleFake, tmp_path: Path) -> None:
    fake.page_size = 2
    for n in range(1, 6):
        fake.add_message(mail(n, f"Topic {n}"))
    runner = Runner()
    runner.collect(runner.gmail(fake, tmp_path))
    assert len(runner.cache) == 5
    for n in range(6, 11):
        fake.add_message(mail(n, f"Topic {n}"))
    runner.collect(runner.gmail(fake, tmp_path))
    assert len(runner.cache) == 10
    assert any(entry.params.get("pageToken") for entry in api_calls(fake, "/history"))


def test_rate_limits_are_waited_out_then_exit_6(fake: GoogleFake, tmp_path: Path) -> None:
    fake.add_message(mail(1, "Settlement retries"))
    runner = Runner()
    fake.rate_limit, fake.retry_after = 2, "7"
    runner.collect(runner.gmail(fake, tmp_path))
    assert runner.sleeps == [7.0, 7.0]
    assert "m1@kestrelpay.example" in runner.cache

    fake.rate_limit, fake.rate_limit_403 = -1, True  # Gmail's 403 rateLimitExceeded, for ever
    with pytest.raises(RateLimitedError) as caught:
        runner.collect(runner.gmail(fake, tmp_path, max_retries=2))
    assert caught.value.exit_code == 6
    assert "m1@kestrelpay.example" in runner.cache  # nothing cached is lost


def test_rejected_refresh_exits_5_without_the_secret(fake: GoogleFake, tmp_path: Path) -> None:
    info = {**fake.authorized_user(), "refresh_token": "1//revoked-refresh-token-9999"}
    runner = Runner()
    connector = runner.gmail(fake, tmp_path, credentials_file=credentials(tmp_path, info, "old.json"))
    with pytest.raises(AuthError) as caught:
        runner.collect(connector)
    assert caught.value.exit_code == 5
    assert "revoked-refresh-token" not in str(caught.value)
    assert "credentials_file" in str(caught.value)


def test_an_expired_access_token_is_refreshed_at_the_token_uri(fake: GoogleFake, tmp_path: Path) -> None:
    fake.add_message(mail(1, "Settlement retries"))
    runner = Runner()
    connector = runner.gmail(fake, tmp_path)
    runner.collect(connector)
    fake.revoke()
    fake.add_message(mail(2, "Card network outage"))
    runner.collect(connector)
    assert "m2@kestrelpay.example" in runner.cache
    assert len([entry for entry in fake.log if entry.path == "/token"]) == 2


def test_a_redirect_to_another_host_never_gets_the_token(fake: GoogleFake, tmp_path: Path) -> None:
    other = GoogleFake(now=NOW)
    with serve(other):
        fake.redirect_to = other.url
        runner = Runner()
        with pytest.raises(SourceError):
            runner.collect(runner.gmail(fake, tmp_path))
    assert [entry.authorization for entry in other.log] == []  # not even followed


def test_credentials_file_problems_exit_5_with_what_to_do(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner()
    with pytest.raises(AuthError, match="does not exist"):
        runner.gmail(fake, tmp_path, credentials_file=tmp_path / "missing.json")
    client = credentials(tmp_path, {"installed": {"client_id": "x", "client_secret": "y-secret-value"}}, "client.json")
    with pytest.raises(AuthError, match="consent flow") as caught:
        runner.gmail(fake, tmp_path, credentials_file=client)
    assert "y-secret-value" not in str(caught.value)
    with pytest.raises(AuthError, match="not JSON"):
        bad = tmp_path / "bad.json"
        bad.write_text("{", encoding="utf-8")
        runner.gmail(fake, tmp_path, credentials_file=bad)


def test_plain_http_is_refused_off_loopback(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner()
    with pytest.raises(ConfigError, match="base_url"):
        runner.gmail(fake, tmp_path, base_url="http://mail.example.com")
    info = {**fake.authorized_user(), "token_uri": "http://tokens.example.com/token"}
    with pytest.raises(ConfigError, match="token_uri"):
        runner.gmail(fake, tmp_path, credentials_file=credentials(tmp_path, info, "plain.json"))


def test_an_unknown_label_is_a_config_error_naming_it(fake: GoogleFake, tmp_path: Path) -> None:
    runner = Runner()
    with pytest.raises(ConfigError, match="'Payroll'") as caught:
        runner.collect(runner.gmail(fake, tmp_path, labels=["Payroll"]))
    assert caught.value.exit_code == 2


@pytest.mark.slow
def test_brief_ingest_indexes_gmail_and_google_calendar_and_deletes_what_went(fake: GoogleFake, tmp_path: Path) -> None:
    """Through the registry and the whole pipeline (raw cache, chunks, index), as `brief ingest` runs them."""
    from tests.harness import Workspace

    fake.add_message(mail(1, "Settlement retries"))
    gone = fake.add_message(mail(2, "Card network outage"))
    fake.add_calendar("primary", "Dana", "Europe/Berlin")
    start = {"dateTime": "2026-12-02T10:00:00+01:00", "timeZone": "Europe/Berlin"}
    end = {"dateTime": "2026-12-02T11:00:00+01:00", "timeZone": "Europe/Berlin"}
    fake.put_event("primary", {"id": "review", "summary": "Incident review", "start": start, "end": end})
    file = credentials(tmp_path, fake.authorized_user())
    sources = {
        "gmail": {"type": "gmail", "base_url": fake.url, "credentials_file": file},
        "meetings": {"type": "calendar", "base_url": fake.url, "credentials_file": file},
    }
    ws = Workspace(tmp_path / "ws", sources)
    summary = ws.run()
    assert summary.broken == [] and summary.failure_count == 0
    assert ws.indexed_refs() == {
        "email:m1@kestrelpay.example",
        "email:m2@kestrelpay.example",
        "calendar:review@google.com",
    }

    fake.delete_message(gone)
    fake.delete_event("primary", "review")
    assert ws.run().broken == []
    assert ws.indexed_refs() == {"email:m1@kestrelpay.example"}
