"""The GitHub connector, with PyGithub pointed at a local GitHub REST server (`/api/v3`, Link paging)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.errors import AuthError, RateLimitedError, SourceError
from briefing.model import Batch, RawRecord
from briefing.registry import SourceContext
from briefing.settings import source_adapter
from connectors.github import OVERLAP, GithubConnector, GithubCursor, build, linked_issues, make_client
from tests.fakes.github_server import FakeGitHub, load, serve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github"
TOKEN = "ghp_test_token"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with serve(FakeGitHub(load(FIXTURES), token=TOKEN)) as running:
        yield running


def connector(
    fake: FakeGitHub, token: str = TOKEN, repos: tuple[str, ...] = ("acme/api", "acme/web")
) -> GithubConnector:
    client = make_client(fake.api, token, max_retries=2, seconds_between_requests=0)
    return GithubConnector(client, repos=repos, name="code", token_setting="sources.code.token_env (GITHUB_TOKEN)")


def sync(conn: GithubConnector, cursor: GithubCursor | None = None) -> tuple[list[Batch], GithubCursor]:
    batches = list(conn.fetch(cursor or conn.initial_cursor()))
    last = batches[-1].cursor
    assert isinstance(last, GithubCursor)
    return batches, conn.load_cursor(last.model_dump(mode="json"))


def records(batches: list[Batch]) -> dict[str, RawRecord]:
    return {r.key: r for b in batches for r in b.records}


def test_first_sync_reads_issues_pull_requests_with_discussion_and_releases(fake: FakeGitHub) -> None:
    batches, cursor = sync(connector(fake))

    got = records(batches)
    assert set(got) == {
        "acme/api#10",
        "acme/api#12",
        "acme/api#13",
        "acme/web#5",
        "acme/api@release:v1.0.0",
        "acme/api@release:v1.1.0",
    }
    pr = got["acme/api#12"]
    assert pr.kind == "pull_request" and got["acme/api#10"].kind == "issue"
    assert pr.data["pull"]["merged_by"]["login"] == "ana-lima"
    assert [r["state"] for r in pr.data["reviews"]] == ["CHANGES_REQUESTED", "APPROVED"]
    assert [c["id"] for c in pr.data["review_comments"]] == [8001, 8002, 8003]  # two pages, via Link
    assert [c["id"] for c in got["acme/api#10"].data["comments"]] == [501, 502, 503]
    assert cursor.repos == {
        "acme/api": datetime(2026, 6, 5, 10, 30, tzinfo=UTC),
        "acme/web": datetime(2026, 6, 3, 8, 0, tzinfo=UTC),
    }
    issue_lists = [params for path, params in fake.requests if path == "/api/v3/repos/acme/api/issues"]
    assert issue_lists[0] == {"state": "all", "sort": "updated", "direction": "asc", "per_page": "100"}
    assert issue_lists[1]["page"] == "2"  # followed the Link header to this server
    # An issue with no comments costs no comment request.
    assert "/api/v3/repos/acme/api/issues/13/comments" not in {path for path, _ in fake.requests}


def test_incremental_sync_passes_since_and_reads_only_updated_items(fake: FakeGitHub) -> None:
    conn = connector(fake)
    _, cursor = sync(conn)
    issue = fake.repos["acme/api"]["issues"][2]
    issue.update(updated_at="2026-06-10T12:00:00Z", comments=1)
    fake.repos["acme/api"]["comments"]["13"] = [
        {
            "id": 990,
            "user": {"login": "ben-ortiz", "id": 102},
            "created_at": "2026-06-10T12:00:00Z",
            "updated_at": "2026-06-10T12:00:00Z",
            "body": "Draft is in the runbook now.",
            "html_url": "https://github.com/acme/api/issues/13#issuecomment-990",
        }
    ]
    fake.requests.clear()

    batches, cursor = sync(conn, cursor)

    issues = {k for k in records(batches) if "#" in k}
    # #13 changed; the newest item of each repository sits on the overlap boundary and is read again; #12 is not.
    assert issues == {"acme/api#13", "acme/api#10", "acme/web#5"}
    assert records(batches)["acme/api#13"].data["comments"][0]["id"] == 990
    since = {path: params.get("since") for path, params in fake.requests if path.endswith("/issues")}
    expected = (datetime(2026, 6, 5, 10, 30, tzinfo=UTC) - OVERLAP).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert since["/api/v3/repos/acme/api/issues"] == expected
    assert cursor.repos["acme/api"] == datetime(2026, 6, 10, 12, 0, tzinfo=UTC)


def test_a_deleted_release_is_reported(fake: FakeGitHub) -> None:
    conn = connector(fake)
    _, cursor = sync(conn)
    fake.repos["acme/api"]["releases"].pop()  # v1.0.0

    batches, cursor = sync(conn, cursor)

    assert [key for b in batches for key in b.deleted] == ["acme/api@release:v1.0.0"]
    assert cursor.releases["acme/api"] == ["v1.1.0"]


def test_normalise_builds_issue_documents_with_refs_per_comment_review_and_review_comment(fake: FakeGitHub) -> None:
    conn = connector(fake)
    batches, _ = sync(conn)
    out = conn.normalise(list(records(batches).values()))

    assert out.failures == []
    docs = {d.key: d for d in out.documents}
    pr = docs["github:acme/api#12"]
    assert pr.kind == "github_issue" and pr.source_type == "github" and pr.container == "acme/api"
    assert pr.url == "https://github.com/acme/api/pull/12"
    assert [(i.ref, i.kind) for i in pr.items] == [
        ("github:acme/api#12", "pull_request"),
        ("github:acme/api#12/comment-601", "comment"),
        ("github:acme/api#12/comment-7001", "review"),
        ("github:acme/api#12/comment-7002", "review"),
        ("github:acme/api#12/comment-8001", "review_comment"),
        ("github:acme/api#12/comment-8002", "review_comment"),
        ("github:acme/api#12/comment-8003", "review_comment"),
    ]
    meta = pr.metadata
    assert meta["state"] == "merged" and meta["merged_by"] == "ana-lima"
    assert meta["linked_issues"] == ["acme/api#10"]
    assert meta["labels"] == ["backend"] and meta["assignees"] == ["ben-ortiz"]
    assert meta["milestone"] == "June stability"
    assert [e["event"] for e in meta["events"]] == ["opened", "merged"]
    assert pr.items[2].metadata["state"] == "CHANGES_REQUESTED"
    assert pr.items[4].metadata["path"] == "worker/retry.go"
    release = docs["github:acme/api@release:v1.1.0"]
    assert release.items[0].ref == "github:acme/api@release:v1.1.0"
    assert release.items[0].occurred_at == datetime(2026, 6, 5, 14, 0, tzinfo=UTC)
    assert {p.handles[0] for p in out.people} == {"ana-lima", "ben-ortiz", "cy-park"}


@pytest.mark.parametrize("knob", ["primary_limited", "secondary_limited", "too_many"])
def test_rate_limits_are_waited_out(fake: FakeGitHub, knob: str) -> None:
    setattr(fake, knob, 1)
    started = time.monotonic()

    batches, _ = sync(connector(fake, repos=("acme/web",)))

    assert "acme/web#5" in records(batches)
    assert fake.requests[0] == fake.requests[1]  # the limited request was sent again
    assert time.monotonic() - started < 10


def test_persistent_rate_limiting_raises_rate_limited(fake: FakeGitHub) -> None:
    fake.primary_limited = 100

    with pytest.raises(RateLimitedError, match="rate limiting while reading repository acme/api"):
        sync(connector(fake))


def test_rejected_token_names_the_setting_never_the_secret(fake: FakeGitHub) -> None:
    with pytest.raises(AuthError) as info:
        sync(connector(fake, token="ghp_wrong_secret_value"))

    assert "sources.code.token_env (GITHUB_TOKEN)" in str(info.value)
    assert "ghp_wrong_secret_value" not in str(info.value) and TOKEN not in str(info.value)


def test_unknown_repository_is_a_source_error(fake: FakeGitHub) -> None:
    with pytest.raises(SourceError, match="acme/nope was not found"):
        sync(connector(fake, repos=("acme/nope",)))


def test_build_reads_the_token_from_the_named_variable(fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    table = {"type": "github", "base_url": fake.api, "token_env": "GITHUB_TOKEN", "repos": ["acme/web"]}
    config = source_adapter().validate_python(table)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    with pytest.raises(AuthError, match="GITHUB_TOKEN"):
        build(SourceContext(name="code", config=config))

    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    built = build(SourceContext(name="code", config=config))
    built.client.requester.seconds_between_requests = 0  # keep the test fast; production waits 0.25 s
    batches, _ = sync(built)
    assert "acme/web#5" in records(batches)


def test_malformed_items_become_failures_and_the_rest_is_kept(fake: FakeGitHub) -> None:
    api = fake.repos["acme/api"]
    api["issues"][0]["updated_at"] = None  # issue 10
    api["comments"]["12"][0].pop("created_at")
    conn = connector(fake, repos=("acme/api",))

    batches, _ = sync(conn)
    out = conn.normalise(list(records(batches).values()))

    assert [f.key for b in batches for f in b.failures] == ["acme/api#10"]
    assert "acme/api#12" in records(batches) and "acme/api#10" not in records(batches)
    assert [f.key for f in out.failures] == ["acme/api#12/comment"]
    pr = next(d for d in out.documents if d.key == "github:acme/api#12")
    assert "github:acme/api#12/comment-601" not in [i.ref for i in pr.items]
    assert "github:acme/api#12/comment-7001" in [i.ref for i in pr.items]


def test_linked_issues_are_read_from_closing_keywords() -> None:
    body = "Fixes #3, closes acme/web#9 and resolved: #4. Mentions #5 only."
    assert linked_issues(body, "acme/api") == ["acme/api#3", "acme/web#9", "acme/api#4"]


def test_sample_workspace_repositories_sync_and_normalise_cleanly() -> None:
    sample = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample" / "github"
    with serve(FakeGitHub(load(sample), token=TOKEN)) as running:
        conn = connector(running, repos=tuple(sorted(load(sample))))
        batches, _ = sync(conn)
    out = conn.normalise(list(records(batches).values()))

    assert out.failures == [] and [f for b in batches for f in b.failures] == []
    docs = {d.key: d for d in out.documents}
    assert docs["github:kestrelpay/ledger-api#431"].metadata["linked_issues"] == ["kestrelpay/ledger-api#430"]
    assert docs["github:kestrelpay/platform-infra#92"].metadata["state"] == "closed"
    assert "github:kestrelpay/ledger-api@release:v2.5.1" in docs
