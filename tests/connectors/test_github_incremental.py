"""A later GitHub sync asks for what changed since its cursor, never re-walking the whole issue listing.

Against the local GitHub server: the second sync lists issues `since` the cursor and the repository's comments
`since` the cursor, and still picks up an edited issue, a comment edited without its issue moving, a new comment
and a new review; the whole listing (deleted issues) is walked again only once `reconcile_hours` have passed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from briefing.model import Batch
from connectors.github.connector import GithubConnector, GithubCursor
from tests.connectors.test_github import FIXTURES, TOKEN, connector, records
from tests.fakes.github_server import FakeGitHub, load, serve

ISSUES = "/api/v3/repos/acme/api/issues"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with serve(FakeGitHub(load(FIXTURES), token=TOKEN)) as running:
        yield running


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _conn(fake: FakeGitHub, clock: Clock) -> GithubConnector:
    conn = connector(fake, repos=("acme/api",))
    conn.clock = clock
    return conn


def _sync(conn: GithubConnector, cursor: GithubCursor | None = None) -> tuple[list[Batch], GithubCursor]:
    batches = list(conn.fetch(cursor or conn.initial_cursor()))
    last = batches[-1].cursor
    assert isinstance(last, GithubCursor)
    return batches, conn.load_cursor(last.model_dump(mode="json"))


def _walks(fake: FakeGitHub) -> list[dict[str, str]]:
    """The issue listings that walk the whole repository (no `since`)."""
    return [params for path, params in fake.requests if path == ISSUES and "since" not in params]


def test_a_second_sync_fetches_only_what_changed_and_still_sees_edits_comments_and_reviews(
    fake: FakeGitHub,
) -> None:
    clock = Clock()
    conn = _conn(fake, clock)
    _, cursor = _sync(conn)
    repo = fake.repos["acme/api"]
    issues = {i["number"]: i for i in repo["issues"]}
    # #13's body is edited (its updated_at moves); #12's comment is edited (GitHub need not move the issue).
    issues[13].update(body="Rewritten: the runbook owns this now.", updated_at="2026-06-10T09:00:00Z")
    repo["comments"]["12"][0].update(body="Load test passed at 2x traffic.", updated_at="2026-06-10T09:05:00Z")
    fake.requests.clear()
    clock.now += timedelta(hours=1)

    batches, cursor = _sync(conn, cursor)

    got = records(batches)
    assert got["acme/api#13"].data["issue"]["body"].startswith("Rewritten")
    assert got["acme/api#12"].data["comments"][0]["body"] == "Load test passed at 2x traffic."
    assert _walks(fake) == []  # no `issues?sort=created&state=all` walk without `since`
    listed = [params for path, params in fake.requests if path == ISSUES]
    assert listed and all(params.get("since") for params in listed)
    comment_listings = [p for path, p in fake.requests if path.endswith(("/issues/comments", "/pulls/comments"))]
    assert len(comment_listings) == 2 and all(p.get("since") for p in comment_listings)
    assert not any(path.endswith("/pulls/13") for path, _ in fake.requests)

    # A new comment and a new review move their item's updated_at: the `since` listing returns it.
    repo["comments"]["13"] = [
        {
            "id": 991,
            "user": {"login": "ben-ortiz", "id": 102},
            "created_at": "2026-06-11T08:00:00Z",
            "updated_at": "2026-06-11T08:00:00Z",
            "body": "Runbook link added.",
            "html_url": "https://github.com/acme/api/issues/13#issuecomment-991",
        }
    ]
    issues[13].update(comments=1, updated_at="2026-06-11T08:00:00Z")
    review = dict(repo["reviews"]["12"][-1], id=7003, state="COMMENTED", body="Post-merge: looks fine in prod.")
    repo["reviews"]["12"].append(dict(review, submitted_at="2026-06-11T09:00:00Z"))
    issues[12]["updated_at"] = "2026-06-11T09:00:00Z"
    fake.requests.clear()
    clock.now += timedelta(hours=1)

    batches, cursor = _sync(conn, cursor)

    got = records(batches)
    assert [c["id"] for c in got["acme/api#13"].data["comments"]] == [991]
    assert [r["id"] for r in got["acme/api#12"].data["reviews"]][-1] == 7003
    assert _walks(fake) == []


def test_the_whole_listing_is_walked_for_deletions_once_reconcile_hours_have_passed(fake: FakeGitHub) -> None:
    clock = Clock()
    conn = _conn(fake, clock)
    _, cursor = _sync(conn)
    repo = fake.repos["acme/api"]
    repo["issues"] = [i for i in repo["issues"] if i["number"] != 13]  # an admin deleted #13
    fake.requests.clear()
    clock.now += timedelta(hours=2)

    batches, cursor = _sync(conn, cursor)
    assert _walks(fake) == [] and not [k for b in batches for k in b.deleted]

    clock.now += timedelta(hours=23)
    batches, cursor = _sync(conn, cursor)
    assert len(_walks(fake)) == 1
    assert [k for b in batches for k in b.deleted] == ["acme/api#13"]
    assert cursor.reconciled["acme/api"] == clock.now
