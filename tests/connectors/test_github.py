"""The GitHub connector, with PyGithub pointed at a local GitHub REST server (`/api/v3`, Link paging)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from copy import deepcopy
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.errors import AuthError, RateLimitedError, SourceError
from briefing.ingest import collect
from briefing.model import Batch, ChunkLimits, RawRecord
from briefing.registry import FetchOptions, SourceContext
from briefing.settings import load_settings, source_adapter
from briefing.store import RawStore
from chunkers.code import chunk_code
from connectors.github.client import make_client
from connectors.github.code import MAX_FILE_BYTES
from connectors.github.connector import OVERLAP, GithubConnector, GithubCursor, build
from connectors.github.documents import linked_issues
from connectors.http import HttpLayer
from tests.fakes.github_server import FakeGitHub, blob_sha, load, serve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github"
TOKEN = "ghp_test_token"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with serve(FakeGitHub(load(FIXTURES), token=TOKEN)) as running:
        yield running


def connector(
    fake: FakeGitHub,
    token: str = TOKEN,
    repos: tuple[str, ...] = ("acme/api", "acme/web"),
    code_paths: tuple[str, ...] = (),
    options: FetchOptions | None = None,
    waits: list[float] | None = None,
    reconcile_hours: float = 24.0,
) -> GithubConnector:
    http = HttpLayer(
        source="code",
        vendor="GitHub",
        base_url=fake.api,
        credentials="sources.code.token_env (GITHUB_TOKEN)",
        max_retries=2,
        sleep=waits.append if waits is not None else lambda seconds: None,
        clock=lambda: time.time(),
    )
    return GithubConnector(
        make_client(fake.api, token, http=http, seconds_between_requests=0),
        repos=repos,
        name="code",
        token_setting="sources.code.token_env (GITHUB_TOKEN)",
        code_paths=code_paths,
        options=options,
        http=http,
        reconcile_hours=reconcile_hours,
    )


def sync(conn: GithubConnector, cursor: GithubCursor | None = None) -> tuple[list[Batch], GithubCursor]:
    batches = list(conn.fetch(cursor or conn.initial_cursor()))
    last = batches[-1].cursor
    assert isinstance(last, GithubCursor)
    return batches, conn.load_cursor(last.model_dump(mode="json"))


def records(batches: list[Batch]) -> dict[str, RawRecord]:
    """The item records (the access records each run re-reads, connectors.github.access, left out)."""
    return {r.key: r for b in batches for r in b.records if not r.key.startswith("access/")}


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
    since: dict[str, str | None] = {}
    for path, params in fake.requests:  # the `since` listing (the number walk is due only every reconcile_hours)
        if path.endswith("/issues"):
            since.setdefault(path, params.get("since"))
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
    waits: list[float] = []

    batches, _ = sync(connector(fake, repos=("acme/web",), waits=waits))

    assert "acme/web#5" in records(batches)
    assert fake.requests[0] == fake.requests[1]  # the limited request was sent again
    assert waits == [0.0]  # Retry-After: 0, or a reset time already passed


def test_persistent_rate_limiting_raises_rate_limited(fake: FakeGitHub) -> None:
    fake.primary_limited = 100
    waits: list[float] = []

    with pytest.raises(RateLimitedError, match=r"rate limiting \(HTTP 403\) while reading repository acme/api") as info:
        sync(connector(fake, waits=waits))

    assert len(waits) == 2 and len(fake.requests) == 3  # max_retries=2, then the error
    assert info.value.exit_code == 6


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


@pytest.mark.slow
def test_reindex_builds_the_source_without_a_token_and_contacts_nothing(
    fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A reindex reads the raw cache only: with the token unset it rebuilds the same index and sends no request."""
    from tests.harness import Workspace

    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    table = {"type": "github", "base_url": fake.api, "token_env": "GITHUB_TOKEN", "repos": ["acme/web"]}
    ws = Workspace(tmp_path, {"code": table})
    first = ws.ingest("code").processed
    assert first is not None and first.documents > 0
    refs = ws.indexed_refs()
    monkeypatch.delenv("GITHUB_TOKEN")
    sent = len(fake.requests)
    again = ws.ingest("code", collect_first=False).processed
    assert again is not None and again.documents == first.documents
    assert ws.indexed_refs() == refs and len(fake.requests) == sent


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


# Conditional requests ------------------------------------------------------------------------------------------


def test_an_unchanged_repository_is_answered_304_and_its_items_are_still_read(fake: FakeGitHub) -> None:
    conn = connector(fake, repos=("acme/api",))
    _, cursor = sync(conn)
    assert fake.not_modified == [] and cursor.meta["acme/api"].etag.startswith('W/"')
    fake.repos["acme/api"]["issues"][2]["updated_at"] = "2026-06-10T12:00:00Z"

    batches, cursor = sync(conn, cursor)

    assert fake.not_modified == ["/api/v3/repos/acme/api"]
    assert "acme/api#13" in records(batches)  # issues are listed off the repository all the same
    assert cursor.meta["acme/api"].default_branch == "main"  # kept from the first run

    fake.repos["acme/api"]["repo"]["default_branch"] = "trunk"
    _, cursor = sync(conn, cursor)
    assert fake.not_modified == ["/api/v3/repos/acme/api"]  # a changed repository is read again
    assert cursor.meta["acme/api"].default_branch == "trunk"


# Code files ----------------------------------------------------------------------------------------------------

APP_PY = '''"""Ledger entry points."""

import json


def post_entry(entry):
    """Write one ledger entry (KPAY-120)."""
    return json.dumps(entry)


class Reconciler:
    def run(self):
        return "ok"
'''
RETRY_GO = """package worker

// Backoff doubles the wait up to a ceiling.
func Backoff(attempt int) int {
\treturn 1 << attempt
}
"""
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
BIG = "x = 1\n" * (MAX_FILE_BYTES // 6 + 10)


def with_code(fake: FakeGitHub) -> dict[str, object]:
    files: dict[str, object] = {
        "src/app.py": APP_PY,
        "src/worker/retry.go": RETRY_GO,
        "src/generated/big.py": BIG,
        "assets/logo.png": PNG,
        "README.md": "# api\n",
        "src/notes.txt": "not code",
    }
    fake.repos["acme/api"]["code"] = {"committed_at": "2026-06-05T09:00:00Z", "files": files}
    return files


def code_connector(fake: FakeGitHub, **kwargs: object) -> GithubConnector:
    return connector(fake, repos=("acme/api",), code_paths=("src", "assets/logo.png"), **kwargs)  # type: ignore[arg-type]


def blob_requests(fake: FakeGitHub) -> list[str]:
    return [path.rsplit("/", 1)[1] for path, _ in fake.requests if "/git/blobs/" in path]


def test_first_sync_reads_code_files_of_the_default_branch_and_skips_binaries_and_big_files(
    fake: FakeGitHub,
) -> None:
    files = with_code(fake)
    conn = code_connector(fake)

    batches, cursor = sync(conn)

    code = {k: r for k, r in records(batches).items() if r.kind == "github_file"}
    assert set(code) == {"acme/api:src/app.py", "acme/api:src/worker/retry.go"}
    assert code["acme/api:src/app.py"].data["text"] == APP_PY
    # The big file is judged by the tree's size, never downloaded; the binary is downloaded once, then remembered.
    assert sorted(blob_requests(fake)) == sorted(blob_sha(c) for c in (APP_PY.encode(), RETRY_GO.encode(), PNG))
    state = cursor.code["acme/api"]
    assert set(state.files) == {"src/app.py", "src/worker/retry.go", "src/generated/big.py", "assets/logo.png"}
    assert state.head and state.ref_etag and [f for b in batches for f in b.failures] == []
    assert files  # untouched

    out = conn.normalise(list(code.values()))
    doc = next(d for d in out.documents if d.key == "github:acme/api:src/app.py")
    assert doc.kind == "code_file" and doc.source_type == "github" and doc.container == "acme/api"
    assert doc.items[0].ref == "github:acme/api:src/app.py"
    assert doc.items[0].occurred_at == datetime(2026, 6, 5, 9, 0, tzinfo=UTC)
    assert doc.url == f"https://github.com/acme/api/blob/{state.head}/src/app.py"
    assert doc.metadata["path"] == "src/app.py"
    chunks = chunk_code(doc, limits=ChunkLimits(max_tokens=4000, max_chars=16000))
    symbols = {c.metadata["symbol"]: (c.metadata["start_line"], c.metadata["end_line"]) for c in chunks}
    assert symbols["post_entry"] == (6, 8) and symbols["Reconciler"] == (11, 13)
    assert all(c.refs == ["github:acme/api:src/app.py"] and c.metadata["language"] == "python" for c in chunks)
    assert "KPAY-120" in next(c for c in chunks if c.metadata["symbol"] == "post_entry").tickets


def test_an_unchanged_branch_costs_304s_and_no_tree_or_blob_requests(fake: FakeGitHub) -> None:
    with_code(fake)
    conn = code_connector(fake)
    _, cursor = sync(conn)
    fake.requests.clear()

    batches, after = sync(conn, cursor)

    assert fake.not_modified == ["/api/v3/repos/acme/api", "/api/v3/repos/acme/api/git/ref/heads/main"]
    paths = [path for path, _ in fake.requests]
    assert not [p for p in paths if "/git/trees/" in p or "/git/blobs/" in p or "/git/commits/" in p]
    assert not [r for r in records(batches).values() if r.kind == "github_file"]
    assert after.code == cursor.code


def test_a_changed_and_a_deleted_file_cost_one_blob_and_one_deletion(fake: FakeGitHub) -> None:
    files = with_code(fake)
    conn = code_connector(fake)
    _, cursor = sync(conn)
    changed = APP_PY + "\n\ndef close_books():\n    return None\n"
    files["src/app.py"] = changed
    del files["src/worker/retry.go"]
    fake.requests.clear()

    batches, after = sync(conn, cursor)

    assert blob_requests(fake) == [blob_sha(changed.encode())]
    code = {k: r for k, r in records(batches).items() if r.kind == "github_file"}
    assert set(code) == {"acme/api:src/app.py"} and code["acme/api:src/app.py"].data["text"] == changed
    assert [k for b in batches for k in b.deleted] == ["acme/api:src/worker/retry.go"]
    assert "src/worker/retry.go" not in after.code["acme/api"].files
    assert after.code["acme/api"].head != cursor.code["acme/api"].head


def test_a_file_that_turns_binary_leaves_the_cache(fake: FakeGitHub) -> None:
    files = with_code(fake)
    conn = code_connector(fake)
    _, cursor = sync(conn)
    files["src/app.py"] = b"\x00\x01compiled"

    batches, after = sync(conn, cursor)

    assert "acme/api:src/app.py" not in records(batches)
    assert "acme/api:src/app.py" in [k for b in batches for k in b.deleted]
    assert after.code["acme/api"].files["src/app.py"] == blob_sha(b"\x00\x01compiled")


def test_dropping_code_paths_deletes_the_stored_files(fake: FakeGitHub) -> None:
    with_code(fake)
    _, cursor = sync(code_connector(fake))

    batches, after = sync(connector(fake, repos=("acme/api",)), cursor)

    deleted = {k for b in batches for k in b.deleted}
    assert {"acme/api:src/app.py", "acme/api:src/worker/retry.go"} <= deleted
    assert after.code == {}


def test_a_repository_without_commits_is_a_failure_not_an_abort(fake: FakeGitHub) -> None:
    batches, _ = sync(code_connector(fake))  # acme/api has no code in the fixture: GitHub answers 409

    assert [f.key for b in batches for f in b.failures] == ["acme/api:"]
    assert "acme/api#12" in records(batches)


# Deletions at the source ---------------------------------------------------------------------------------------


def test_issues_deleted_at_the_source_leave_on_the_next_incremental_or_full_sync(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    config = tmp_path / "brief.toml"
    config.write_text(
        f'[workspace]\nname = "t"\n[sources.gh]\ntype = "github"\nbase_url = "{fake.api}"\n'
        'token_env = "GITHUB_TOKEN"\nrepos = ["acme/api"]\ncode_paths = ["src"]\n'
    )
    settings = load_settings(config)
    files = with_code(fake)
    original = deepcopy(fake.repos["acme/api"]["issues"])

    def stored() -> set[str]:
        store = RawStore.for_source(settings, "gh")
        try:
            return store.keys()
        finally:
            store.close()

    collect(settings, "gh", FetchOptions(), code_connector(fake, reconcile_hours=0))
    assert {"acme/api#13", "acme/api:src/app.py"} <= stored()
    # Issue #13 is deleted (GitHub lets admins delete issues); the `since` listing cannot say so.
    fake.repos["acme/api"]["issues"] = [i for i in original if i["number"] != 13]
    del files["src/notes.txt"]  # not code: changes nothing stored

    collect(settings, "gh", FetchOptions(), code_connector(fake, reconcile_hours=0))
    assert "acme/api#13" not in stored()  # reconciled by the number listing (every sync at reconcile_hours = 0)
    fake.repos["acme/api"]["issues"] = deepcopy(original)  # #13 comes back (a transfer undone)

    full = FetchOptions(full=True)
    collect(settings, "gh", full, code_connector(fake, options=full, reconcile_hours=0))
    assert "acme/api#13" in stored()
    fake.repos["acme/api"]["issues"] = [i for i in original if i["number"] != 13]
    report = collect(settings, "gh", full, code_connector(fake, options=full, reconcile_hours=0))
    assert report.failures == []
    keys = stored()
    assert "acme/api#13" not in keys
    assert {"acme/api#10", "acme/api#12", "acme/api@release:v1.1.0", "acme/api:src/app.py"} <= keys


def test_deleted_comments_leave_on_the_next_incremental_sync_without_the_issue_changing(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """A deleted issue comment or PR review comment changes no `updated_at`: the cheap listings still find it."""
    config = tmp_path / "brief.toml"
    config.write_text(
        f'[workspace]\nname = "t"\n[sources.gh]\ntype = "github"\nbase_url = "{fake.api}"\n'
        'token_env = "GITHUB_TOKEN"\nrepos = ["acme/api"]\n'
    )
    settings = load_settings(config)

    def comment_ids() -> tuple[set[int], set[int]]:
        store = RawStore.for_source(settings, "gh")
        try:
            cached = {r.key: r.data for r in store.records()}
        finally:
            store.close()
        issue = {c["id"] for c in cached["acme/api#10"]["comments"]}
        return issue, {c["id"] for c in cached["acme/api#12"]["review_comments"]}

    collect(settings, "gh", FetchOptions(), connector(fake, repos=("acme/api",), reconcile_hours=0))
    assert comment_ids() == ({501, 502, 503}, {8001, 8002, 8003})

    repo = fake.repos["acme/api"]
    repo["comments"]["10"] = [c for c in repo["comments"]["10"] if c["id"] != 502]
    next(i for i in repo["issues"] if i["number"] == 10)["comments"] = 2  # GitHub's count follows; updated_at not
    repo["review_comments"]["12"] = [c for c in repo["review_comments"]["12"] if c["id"] != 8002]
    fake.requests.clear()
    collect(settings, "gh", FetchOptions(), connector(fake, repos=("acme/api",), reconcile_hours=0))
    assert comment_ids() == ({501, 503}, {8001, 8003})
    paths = [path for path, _ in fake.requests]
    assert "/api/v3/repos/acme/api/issues/13/comments" not in paths  # only the issues that lost a comment
    assert paths.count("/api/v3/repos/acme/api/issues/10/comments") == 1

    fake.requests.clear()  # nothing changed: the PR is not read again (#10, the newest, is in the `since` overlap)
    collect(settings, "gh", FetchOptions(), connector(fake, repos=("acme/api",), reconcile_hours=0))
    assert not any(path.endswith(("/12/comments", "/pulls/12", "/12/reviews")) for path, _ in fake.requests)
    assert comment_ids() == ({501, 503}, {8001, 8003})
