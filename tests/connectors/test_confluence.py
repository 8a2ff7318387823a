"""The Confluence connector against a local Confluence REST server (with the `/wiki` context path)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from briefing.errors import AuthError, RateLimitedError, SourceError
from briefing.model import Batch, ChunkLimits, RawRecord
from briefing.registry import FetchOptions, SourceContext
from briefing.settings import source_adapter
from chunkers.documents import chunk_document
from connectors.confluence.connector import TZ_SLACK, ConfluenceConnector, ConfluenceCursor, build
from tests.fakes.confluence_server import FakeConfluence, load, serve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "confluence"
SECRET = "secret-token"


@pytest.fixture
def fake() -> Iterator[FakeConfluence]:
    pages, comments = load(FIXTURES)
    server = FakeConfluence(pages, comments, user="bot@example.com", token=SECRET)
    server.max_limit = 2  # forces `_links.next` paging with the tiny fixture set
    with serve(server) as running:
        yield running


def connector(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch, token: str = SECRET, **config: Any
) -> ConfluenceConnector:
    monkeypatch.setenv("CONFLUENCE_USER", "bot@example.com")
    monkeypatch.setenv("CONFLUENCE_TOKEN", token)
    table = {
        "type": "confluence",
        "base_url": fake.base_url,
        "user_env": "CONFLUENCE_USER",
        "token_env": "CONFLUENCE_TOKEN",
        "spaces": ["ENG"],
        "max_retries": 2,
        **config,
    }
    built = build(SourceContext(name="wiki", config=source_adapter().validate_python(table)))
    built.http.sleep = lambda seconds: None
    return built


def sync(conn: ConfluenceConnector, cursor: ConfluenceCursor | None = None) -> tuple[list[Batch], ConfluenceCursor]:
    batches = list(conn.fetch(cursor or conn.initial_cursor()))
    last = batches[-1].cursor
    assert isinstance(last, ConfluenceCursor)
    return batches, conn.load_cursor(last.model_dump(mode="json"))  # round-trips like the cursor store


def records(batches: list[Batch]) -> dict[str, RawRecord]:
    """The page records (the access records each run re-reads, connectors.confluence.access, left out)."""
    return {r.key: r for b in batches for r in b.records if not r.key.startswith("access/")}


def test_first_sync_reads_pages_blog_posts_and_comments_of_configured_spaces(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches, cursor = sync(connector(fake, monkeypatch))

    got = records(batches)
    assert set(got) == {"1001", "1002", "1003", "2001"}  # not the HR page
    assert got["2001"].kind == "blogpost"
    assert [c["id"] for c in got["1002"].data["comments"]] == ["7001", "7002"]
    assert cursor.last_modified == datetime(2026, 6, 5, 16, 0, tzinfo=UTC)
    # Pages came in several responses, each `_links.next` followed under /wiki.
    searches = [params for path, params in fake.requests if path == "/wiki/rest/api/content/search"]
    assert any(params.get("start") == "2" for params in searches)
    assert all(path.startswith("/wiki/rest/api/") for path, _ in fake.requests)


def test_normalise_builds_one_document_per_page_with_breadcrumb_and_markdown(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = connector(fake, monkeypatch)
    batches, _ = sync(conn)
    out = conn.normalise(list(records(batches).values()))

    assert out.failures == []
    docs = {d.key: d for d in out.documents}
    design = docs["confluence:1002"]
    assert design.kind == "confluence_page" and design.source_type == "confluence"
    assert design.container == "ENG"
    assert design.url == f"{fake.base_url}/spaces/ENG/pages/1002/Queue+Migration+Design"
    assert design.title == "Engineering > Payments Home > Queue Migration Design"
    page = design.items[0]
    assert page.ref == "confluence:1002" and page.title == "Queue Migration Design"
    assert page.author == "Ben Ortiz"  # last editor
    assert page.occurred_at == datetime(2026, 6, 3, 14, 30, tzinfo=UTC)
    assert page.metadata["breadcrumb"] == "Engineering > Payments Home > Queue Migration Design"
    assert page.metadata["labels"] == ["design", "queue"]
    assert page.metadata["version"] == 4 and page.metadata["creator"] == "Ana Lima"
    assert "Owner: @Ben Ortiz." in page.text and "(PAY-42)" in page.text
    assert "```yaml\nbroker:\n  url: amqp://queue.example\n  prefetch: 50\n```" in page.text
    comments = design.items[1:]
    assert [c.ref for c in comments] == ["confluence:1002#comment-7001", "confluence:1002#comment-7002"]
    assert comments[1].author == "Ben Ortiz" and comments[1].metadata["in_reply_to"] == "7001"
    assert "Yes, 30 minutes" in comments[1].text
    assert {p.name for p in out.people} == {"Ana Lima", "Ben Ortiz"}


def test_document_chunker_keeps_breadcrumb_and_section_path_on_every_chunk(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = connector(fake, monkeypatch)
    batches, _ = sync(conn)
    design = next(d for d in conn.normalise(list(records(batches).values())).documents if d.key == "confluence:1002")

    chunks = chunk_document(design, limits=ChunkLimits(max_chars=260, max_tokens=200))

    breadcrumb = "Engineering > Payments Home > Queue Migration Design"
    assert len(chunks) > 2
    assert all(c.text.startswith(breadcrumb) for c in chunks)
    assert any(c.metadata["section_path"] == f"{breadcrumb} > Decision > Risks" for c in chunks)
    code = next(c for c in chunks if "```yaml" in c.text)
    assert code.text.count("```") == 2  # the code block is never cut
    # The page's chunks cite the page, each comment's chunk cites that comment (DESIGN.md refs).
    assert [c.refs for c in chunks if c.refs != ["confluence:1002"]] == [
        ["confluence:1002#comment-7001"],
        ["confluence:1002#comment-7002"],
    ]


def test_incremental_sync_asks_only_for_recent_changes(fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connector(fake, monkeypatch, overlap_minutes=30)
    _, cursor = sync(conn)
    edited = fake.pages["1003"]
    edited["version"] = dict(edited["version"], number=3, when="2026-06-10T07:00:00.000Z")
    edited["body"] = {"storage": {"value": "<p>Restart with <code>make restart-all</code>.</p>"}}
    fake.requests.clear()

    batches, cursor = sync(conn, cursor)

    # 2001 (the newest page of the first sync) is inside the overlap window; older pages are not read again.
    assert set(records(batches)) == {"1003", "2001"}
    assert cursor.last_modified == datetime(2026, 6, 10, 7, 0, tzinfo=UTC)
    since = datetime(2026, 6, 5, 16, 0, tzinfo=UTC) - timedelta(minutes=30) - TZ_SLACK
    first = fake.requests[0]
    assert first[0] == "/wiki/rest/api/content/search"
    assert f'lastmodified >= "{since:%Y-%m-%d %H:%M}"' in first[1]["cql"]
    assert 'space in ("ENG") AND type in (page, blogpost)' in first[1]["cql"]
    assert first[1]["expand"] == "body.storage,version,ancestors,metadata.labels,history,space"
    # Only the re-read pages' comments were read again.
    comment_reads = [p for p, _ in fake.requests if p.endswith("/child/comment")]
    assert sorted(comment_reads) == [
        "/wiki/rest/api/content/1003/child/comment",
        "/wiki/rest/api/content/2001/child/comment",
    ]


def test_deleted_pages_are_reported_and_moved_pages_refetched(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = connector(fake, monkeypatch)
    _, cursor = sync(conn)
    del fake.pages["2001"]  # deleted (or archived: no longer listed)
    moved = fake.pages["1003"]
    moved["ancestors"] = [{"id": "1001", "type": "page", "title": "Payments Home"}]  # a move keeps the version

    batches, cursor = sync(conn, cursor)

    assert [key for b in batches for key in b.deleted] == ["2001"]
    got = records(batches)
    assert set(got) == {"1003"}
    assert "2001" not in cursor.pages
    doc = conn.normalise([got["1003"]]).documents[0]
    assert doc.title == "Engineering > Payments Home > Broker Runbook"


def test_a_page_moved_to_an_unconfigured_space_is_deleted(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = connector(fake, monkeypatch)
    _, cursor = sync(conn)
    fake.pages["1001"]["space"] = copy.deepcopy(fake.pages["3001"]["space"])

    batches, _ = sync(conn, cursor)

    assert [key for b in batches for key in b.deleted] == ["1001"]


def test_rate_limits_are_waited_out(fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connector(fake, monkeypatch)
    waits: list[float] = []
    conn.http.sleep = waits.append
    fake.rate_limited = 2

    batches, _ = sync(conn)

    assert waits == [0.0, 0.0]  # Retry-After: 0 from the server
    assert set(records(batches)) == {"1001", "1002", "1003", "2001"}


def test_persistent_rate_limiting_raises_rate_limited(fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connector(fake, monkeypatch)
    fake.rate_limited = 100

    with pytest.raises(RateLimitedError, match=r"kept rate limiting \(HTTP 429\) while reading .* after 2 retries"):
        sync(conn)


def test_rejected_credentials_name_the_setting_never_the_secret(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = connector(fake, monkeypatch, token="wrong-token-value")

    with pytest.raises(AuthError) as info:
        sync(conn)

    message = str(info.value)
    assert "sources.wiki.token_env (CONFLUENCE_TOKEN)" in message
    assert "wrong-token-value" not in message and SECRET not in message


def test_missing_token_variable_is_an_auth_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONFLUENCE_TOKEN", raising=False)
    table = {"type": "confluence", "base_url": "http://127.0.0.1:9/wiki", "token_env": "CONFLUENCE_TOKEN"}

    with pytest.raises(AuthError, match="CONFLUENCE_TOKEN"):
        build(SourceContext(name="wiki", config=source_adapter().validate_python(table)))


def test_malformed_pages_become_failures_and_the_rest_is_kept(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.pages["1003"].pop("body")
    fake.pages["bad"] = {"type": "page", "title": "no id, no space"}  # the fake keeps it in every search
    fake.pages["bad"]["id"] = ""
    conn = connector(fake, monkeypatch)

    batches, _ = sync(conn)
    out = conn.normalise(list(records(batches).values()))

    assert [f.key for b in batches for f in b.failures] == ["search-result-0"]
    assert [f.key for f in out.failures] == ["1003"]
    assert {d.key for d in out.documents} == {"confluence:1001", "confluence:1002", "confluence:2001"}


def test_a_response_that_is_not_json_is_a_source_error(fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch) -> None:
    fake.broken_paths.add("/wiki/rest/api/content/search")

    with pytest.raises(SourceError, match="not JSON"):
        sync(connector(fake, monkeypatch))


def test_full_option_reads_everything_again(fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connector(fake, monkeypatch)
    _, cursor = sync(conn)
    conn.options = FetchOptions(full=True)
    fake.requests.clear()

    batches, _ = sync(conn, cursor)

    assert set(records(batches)) == {"1001", "1002", "1003", "2001"}
    assert "lastmodified >=" not in fake.requests[0][1]["cql"]


def test_sample_workspace_pages_sync_and_normalise_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    sample = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample" / "confluence"
    pages, comments = load(sample)
    with serve(FakeConfluence(pages, comments, token=SECRET)) as running:
        conn = connector(running, monkeypatch)
        batches, _ = sync(conn)
    out = conn.normalise(list(records(batches).values()))

    assert out.failures == [] and [f for b in batches for f in b.failures] == []
    titles = {d.key: d.title for d in out.documents}
    assert titles["confluence:524290"] == "Engineering > Platform Team Home > Ledger Aurora Migration Plan"
    plan = next(d for d in out.documents if d.key == "confluence:524290").items[0].text
    assert "| Total after resize | 5,240 |" in plan and "PLAT-101" in plan
