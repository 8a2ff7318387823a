"""The JIRA connector against a local JIRA speaking the REST shapes, through atlassian-python-api."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from briefing.errors import AuthError, BriefError, ConfigError, RateLimitedError
from briefing.model import RawRecord
from briefing.registry import FetchOptions, SourceContext
from connectors.jira import JiraSource
from connectors.jira.connector import JiraConnector, build
from tests.fakes.jira_server import JiraFake
from tests.harness import SourceRunner

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "jira"
USER, TOKEN, PAT = "bot@acme.example", "s3cret-api-token-value", "pat-0123456789"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[JiraFake]:
    server = JiraFake.from_dir(FIXTURES, search_page_cap=2, embedded_comments=2, embedded_changelog=5, sub_page_cap=10)
    server.credentials = JiraFake.basic(USER, TOKEN)
    monkeypatch.setenv("JIRA_USER", USER)
    monkeypatch.setenv("JIRA_TOKEN", TOKEN)
    server.start()
    yield server
    server.stop()


class Runner(SourceRunner):
    """Collection through the real pipeline: records into the raw cache, deletions applied, then the cursor."""

    def __init__(self) -> None:
        super().__init__()
        self.sleeps: list[float] = []

    def connector(self, fake: JiraFake, *, options: FetchOptions | None = None, **config: Any) -> JiraConnector:
        settings: dict[str, Any] = {
            "type": "jira",
            "base_url": fake.url,
            "user_env": "JIRA_USER",
            "token_env": "JIRA_TOKEN",
            "projects": ["ACME"],
            "cloud": True,
        }
        settings.update(config)
        connector = build(
            SourceContext(name="tracker", config=JiraSource(**settings), options=options or FetchOptions())
        )
        connector.http.sleep = self.sleeps.append
        return connector

    def run(self, connector: JiraConnector, *, crash_after: int | None = None) -> list[str]:
        """Issue keys stored by this run, in order; `crash_after=n` dies after storing batch n, before its cursor.

        The access records every run re-reads (connectors.jira.access) are left out: tests of access read them."""
        batches = self.collect(connector, crash_after=crash_after)
        return [r.key for batch in batches for r in batch.records if not r.key.startswith("access/")]

    @property
    def cursor(self) -> dict[str, Any] | None:
        return self.saved_cursor

    @cursor.setter
    def cursor(self, value: dict[str, Any]) -> None:
        self.save_cursor(value)


def issue_keys(cache: dict[str, RawRecord]) -> set[str]:
    """The cached issues (not the access records)."""
    return {k for k in cache if not k.startswith("access/")}


def searches(fake: JiraFake) -> list[str]:
    """The distinct JQL queries sent for issues, in order (one query spans several pages); not the id listing."""
    return list(dict.fromkeys(r.jql for r in fake.log if "/search" in r.path and not r.jql.endswith("BY key ASC")))


def test_first_sync_cloud_reads_every_issue_with_all_comments_and_history(fake: JiraFake) -> None:
    runner = Runner()
    stored = runner.run(runner.connector(fake))

    assert stored == ["ACME-3", "ACME-1", "ACME-2", "ACME-4"]  # oldest update first
    assert runner.failures == []
    acme1 = runner.cache["ACME-1"].data
    assert [c["id"] for c in acme1["fields"]["comment"]["comments"]] == ["30001", "30002", "30003"]
    assert [h["id"] for h in acme1["changelog"]["histories"]] == ["40001", "40002", "40003"]
    assert acme1["names"] == {"customfield_10020": "Sprint", "customfield_10014": "Epic Link"}
    # Cloud: enhanced search with page tokens, v3 sub-resources, basic auth with the account email and token.
    search_calls = fake.requests_to("/search")
    assert {r.path for r in search_calls} == {"/rest/api/3/search/jql"}
    assert [bool(r.params.get("nextPageToken")) for r in search_calls] == [False, True]
    assert fake.requests_to("/issue/ACME-1/comment")[0].path == "/rest/api/3/issue/ACME-1/comment"
    assert all(r.authorization == JiraFake.basic(USER, TOKEN) for r in fake.log)
    assert searches(fake)[0] == 'project in ("ACME") ORDER BY updated ASC'
    assert runner.cursor is not None and runner.cursor["updated"] == "2026-05-08T16:45:00Z"


def test_server_uses_a_personal_access_token_and_start_at_paging(
    fake: JiraFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JIRA_PAT", PAT)
    fake.credentials = f"Bearer {PAT}"
    runner = Runner()
    stored = runner.run(runner.connector(fake, cloud=False, user_env=None, token_env="JIRA_PAT"))

    assert sorted(stored) == ["ACME-1", "ACME-2", "ACME-3", "ACME-4"]
    starts = [r.params["startAt"] for r in fake.requests_to("/rest/api/2/search")]
    assert starts == ["0", "2"]
    # Server embeds the whole changelog, so no changelog paging is needed there.
    assert fake.requests_to("/changelog") == []
    assert len(runner.cache["ACME-4"].data["changelog"]["histories"]) == 45


def test_incremental_run_asks_only_for_issues_updated_since_the_cursor(fake: JiraFake) -> None:
    runner = Runner()
    runner.run(runner.connector(fake))
    fake.log.clear()
    fake.touch("ACME-2", "2026-05-10T10:00:00.000+0000", summary="CSV export times out for merchants over 200k rows")
    fake.add_comment(
        "ACME-3",
        {
            "id": "30999",
            "author": {"accountId": "557058:bob", "displayName": "Bob Diaz"},
            "body": "Reopened?",
            "created": "2026-05-10T11:00:00.000+0000",
            "updated": "2026-05-10T11:00:00.000+0000",
        },
    )

    stored = runner.run(runner.connector(fake))

    # Cursor 16:45 minus the 60-minute overlap; the boundary issue ACME-4 comes back by design, ACME-1 does not.
    assert searches(fake) == ['project in ("ACME") AND updated >= "2026-05-08 15:45" ORDER BY updated ASC']
    assert stored == ["ACME-4", "ACME-2", "ACME-3"]
    assert "ACME-1" not in {r.path.split("/")[-2] for r in fake.requests_to("/issue/")}
    assert runner.cache["ACME-2"].data["fields"]["summary"].endswith("over 200k rows")
    assert runner.cache["ACME-3"].data["fields"]["comment"]["comments"][-1]["body"] == "Reopened?"
    assert runner.cursor is not None and runner.cursor["updated"] == "2026-05-10T11:00:00Z"


def test_jql_dates_are_written_in_the_accounts_time_zone(fake: JiraFake) -> None:
    fake.myself = {**fake.myself, "timeZone": "America/New_York"}
    runner = Runner()
    runner.cursor = {"updated": "2026-05-08T16:45:00Z", "keys": []}
    stored = runner.run(runner.connector(fake, overlap_minutes=0))

    assert searches(fake) == ['project in ("ACME") AND updated >= "2026-05-08 12:45" ORDER BY updated ASC']
    assert stored == ["ACME-4"]


def test_long_changelog_is_paged_and_kept_in_order(fake: JiraFake) -> None:
    runner = Runner()
    runner.run(runner.connector(fake))

    starts = [r.params["startAt"] for r in fake.requests_to("/issue/ACME-4/changelog")]
    assert starts == ["0", "10", "20", "30", "40"]
    histories = runner.cache["ACME-4"].data["changelog"]["histories"]
    assert [h["id"] for h in histories] == [str(41000 + n) for n in range(45)]
    assert len(runner.cache["ACME-4"].data["fields"]["comment"]["comments"]) == 7


def test_a_429_storm_is_waited_out_with_retry_after(fake: JiraFake) -> None:
    fake.rate_limit = 3
    runner = Runner()
    stored = runner.run(runner.connector(fake))

    assert runner.sleeps == [2.0, 2.0, 2.0]
    assert sorted(stored) == ["ACME-1", "ACME-2", "ACME-3", "ACME-4"]


def test_endless_429_ends_in_rate_limited_error(fake: JiraFake) -> None:
    fake.rate_limit = -1
    runner = Runner()
    with pytest.raises(RateLimitedError) as caught:
        runner.run(runner.connector(fake, max_retries=2))

    assert len(fake.log) == 3
    assert runner.sleeps == [2.0, 2.0]
    assert "sources.tracker.max_retries" in str(caught.value)
    assert runner.cursor is None


@pytest.mark.parametrize("status", [401, 403])
def test_rejected_credentials_name_the_setting_never_the_secret(
    fake: JiraFake, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    if status == 401:
        monkeypatch.setenv("JIRA_TOKEN", "wrong-token-value")
    else:
        fake.status_override = 403
    runner = Runner()
    with pytest.raises(AuthError) as caught:
        runner.run(runner.connector(fake))

    message = str(caught.value)
    assert "JIRA_TOKEN" in message and "sources.tracker.token_env" in message and f"HTTP {status}" in message
    assert "wrong-token-value" not in message and TOKEN not in message and "\n" not in message
    assert caught.value.exit_code == 5
    assert runner.cache == {}


def test_missing_token_variable_is_an_auth_error_naming_it(fake: JiraFake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JIRA_TOKEN")
    with pytest.raises(AuthError, match="JIRA_TOKEN"):
        Runner().connector(fake)


def test_a_malformed_issue_is_a_failure_and_the_rest_arrive(fake: JiraFake) -> None:
    fake.malformed = {"ACME-1"}
    runner = Runner()
    stored = runner.run(runner.connector(fake))

    assert stored == ["ACME-3", "ACME-2", "ACME-4"]
    assert [f.key for f in runner.failures] == ["ACME-1"]
    assert "ACME-1" in runner.failures[0].reason


def test_crash_mid_run_resumes_from_the_last_saved_cursor(fake: JiraFake) -> None:
    fake.search_page_cap = 1
    runner = Runner()
    with pytest.raises(KeyboardInterrupt):
        runner.run(runner.connector(fake), crash_after=2)  # ACME-2 stored, its cursor never saved
    assert set(issue_keys(runner.cache)) == {"ACME-3", "ACME-1", "ACME-2"}
    assert runner.cursor is not None and runner.cursor["updated"] == "2026-05-06T12:00:00Z"
    fake.log.clear()

    stored = runner.run(runner.connector(fake))

    assert searches(fake)[0] == 'project in ("ACME") AND updated >= "2026-05-06 11:00" ORDER BY updated ASC'
    assert stored == ["ACME-1", "ACME-2", "ACME-4"]
    assert set(issue_keys(runner.cache)) == {"ACME-1", "ACME-2", "ACME-3", "ACME-4"}
    assert runner.cursor is not None and runner.cursor["updated"] == "2026-05-08T16:45:00Z"


def test_full_run_reconciles_issues_deleted_at_the_source(fake: JiraFake) -> None:
    runner = Runner()
    runner.run(runner.connector(fake))
    del fake.issues["ACME-3"]
    fake.log.clear()

    runner.run(runner.connector(fake, options=FetchOptions(full=True)))

    assert searches(fake)[0] == 'project in ("ACME") ORDER BY updated ASC'
    assert set(issue_keys(runner.cache)) == {"ACME-1", "ACME-2", "ACME-4"}
    assert runner.cursor is not None and runner.cursor["keys"] == ["ACME-1", "ACME-2", "ACME-4"]


def test_incremental_run_reconciles_deletions_with_an_id_only_listing(fake: JiraFake) -> None:
    runner = Runner()
    runner.run(runner.connector(fake))
    del fake.issues["ACME-3"]
    fake.log.clear()
    runner.run(runner.connector(fake))
    assert "ACME-3" not in runner.cache
    assert set(issue_keys(runner.cache)) == {"ACME-1", "ACME-2", "ACME-4"}
    listing = [r for r in fake.log if "/search" in r.path and r.jql.endswith("ORDER BY key ASC")]
    assert listing and all(r.params.get("fields") == "key" for r in listing)  # cheap: keys only
    assert runner.cursor is not None and runner.cursor["keys"] == ["ACME-1", "ACME-2", "ACME-4"]


def test_a_windowed_run_deletes_nothing(fake: JiraFake) -> None:
    runner = Runner()
    runner.run(runner.connector(fake))
    del fake.issues["ACME-3"]
    runner.run(runner.connector(fake, options=FetchOptions(since=datetime(2026, 5, 1, tzinfo=UTC))))
    assert "ACME-3" in runner.cache


def test_since_and_until_bound_the_query(fake: JiraFake) -> None:
    options = FetchOptions(since=datetime(2026, 5, 5, tzinfo=UTC), until=datetime(2026, 5, 7, 9, 30, 30, tzinfo=UTC))
    runner = Runner()
    stored = runner.run(runner.connector(fake, options=options))
    assert searches(fake) == [
        'project in ("ACME") AND updated >= "2026-05-05 00:00" AND updated <= "2026-05-07 09:31" ORDER BY updated ASC'
    ]
    assert stored == ["ACME-3", "ACME-1", "ACME-2"]


def test_a_rejected_query_is_a_config_error_naming_the_setting(fake: JiraFake) -> None:
    runner = Runner()
    with pytest.raises(ConfigError, match="sources.tracker.jql"):
        runner.run(runner.connector(fake, jql="assignee was ever in membersOf(x)"))


def test_no_projects_and_no_jql_is_a_config_error(fake: JiraFake) -> None:
    runner = Runner()
    with pytest.raises(BriefError, match="projects"):
        runner.run(runner.connector(fake, projects=[]))


def test_normalise_makes_one_document_per_issue_with_native_refs(fake: JiraFake) -> None:
    runner = Runner()
    connector = runner.connector(fake)
    runner.run(connector)
    result = connector.normalise(list(runner.cache.values()))

    assert result.failures == []
    docs = {d.key: d for d in result.documents}
    assert set(docs) == {"jira:ACME-1", "jira:ACME-2", "jira:ACME-3", "jira:ACME-4"}
    doc = docs["jira:ACME-1"]
    assert (doc.kind, doc.source_type, doc.container) == ("jira_issue", "jira", "ACME")
    assert doc.title == "ACME-1: Export statements as CSV"
    assert doc.url == f"{fake.url}/browse/ACME-1"
    refs = [item.ref for item in doc.items]
    assert refs == [
        "jira:ACME-1",
        "jira:ACME-1#comment-30001",
        "jira:ACME-1#comment-30002",
        "jira:ACME-1#comment-30003",
        "jira:ACME-1#change-40001",
        "jira:ACME-1#change-40002",
        "jira:ACME-1#change-40003",
    ]
    body = doc.items[0]
    assert body.author == "Carol Park" and body.occurred_at == datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
    meta = body.metadata
    assert meta["status"] == "In Review" and meta["assignee"] == "Alice Chen" and meta["priority"] == "High"
    assert (
        meta["sprint"] == ["ACME Sprint 7"]
        and meta["epic"] == "ACME-10"
        and meta["labels"] == ["export", "customer-ask"]
    )
    assert meta["components"] == ["statements-api"] and meta["initial_status"] == "To Do"
    assert meta["links"] == [
        {
            "relation": "blocks",
            "key": "ACME-2",
            "summary": "CSV export times out for large merchants",
            "status": "To Do",
        }
    ]
    assert doc.items[4].text == "changed status: To Do -> In Progress" and doc.items[4].author == "Alice Chen"
    assert doc.items[5].text == "changed assignee: (none) -> Alice Chen"
    assert docs["jira:ACME-2"].items[0].metadata["epic"] == "ACME-10"  # Server-style Epic Link field
    people = {p.name: p for p in result.people}
    assert (
        people["Alice Chen"].emails == ("alice.chen@acme.example",) and people["Alice Chen"].id == "jira:557058:alice"
    )
    assert people["Carol Park"].emails == ()


def test_adf_description_is_rendered_as_text(fake: JiraFake) -> None:
    runner = Runner()
    connector = runner.connector(fake)
    runner.run(connector)
    docs = {d.key: d for d in connector.normalise(list(runner.cache.values())).documents}

    assert docs["jira:ACME-1"].items[0].text == (
        "## Goal\n\n"
        "Merchants want their monthly statements as CSV. Ask @Bob Diaz about the format; see "
        "the spec (https://wiki.acme.example/csv-spec).\n\n"
        "- one row per ledger entry\n"
        "- amounts in minor units, column `amount_minor`\n\n"
        "```sql\nSELECT * FROM entries WHERE statement_id = $1\n```"
    )
    assert docs["jira:ACME-1"].items[3].text == "@Alice Chen looks good, one nit on the header row."
    # Server/Data Center descriptions are plain strings (wiki markup) and stay as they are.
    assert docs["jira:ACME-2"].items[0].text.startswith("Merchants with more than 200k entries get a 504")


def test_normalise_turns_an_unreadable_record_into_a_failure(fake: JiraFake) -> None:
    runner = Runner()
    connector = runner.connector(fake)
    runner.run(connector)
    broken = copy.deepcopy(runner.cache["ACME-2"].data)
    del broken["fields"]["created"]
    records = [runner.cache["ACME-1"], RawRecord(key="ACME-2", kind="jira_issue", data=broken)]

    result = connector.normalise(records)

    assert [d.key for d in result.documents] == ["jira:ACME-1"]
    assert [f.key for f in result.failures] == ["ACME-2"]


@pytest.mark.slow
def test_reindex_needs_no_credentials_and_ingest_still_names_the_missing_one(
    fake: JiraFake, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A reindex reads the raw cache only: it runs with the token unset; an ingest, which contacts JIRA, does not."""
    from tests.harness import Workspace

    table = {"type": "jira", "base_url": fake.url, "user_env": "JIRA_USER", "token_env": "JIRA_TOKEN"}
    ws = Workspace(tmp_path, {"tracker": {**table, "projects": ["ACME"], "cloud": True}})
    first = ws.ingest("tracker").processed
    assert first is not None and first.documents > 0
    refs = ws.indexed_refs()
    monkeypatch.delenv("JIRA_TOKEN")
    monkeypatch.delenv("JIRA_USER")
    requests = len(fake.log)
    again = ws.ingest("tracker", collect_first=False).processed
    assert again is not None and again.documents == first.documents
    assert ws.indexed_refs() == refs and len(fake.log) == requests  # JIRA was not contacted
    with pytest.raises(AuthError, match="JIRA_TOKEN"):
        ws.ingest("tracker")
