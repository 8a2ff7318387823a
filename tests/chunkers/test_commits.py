"""Commit-history chunks: one summary line per commit, bounded by the limits, with refs and tickets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from briefing.devserver import git_repo as builder
from briefing.model import ChunkLimits, Document, Item
from briefing.registry import SourceContext
from briefing.settings import source_adapter
from chunkers.git import chunk_commits
from connectors.git.connector import build

START = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


def commit(n: int, subject: str, *, body: str = "", author: str = "Alice Chen", files: int = 1) -> Item:
    sha = f"{n:02d}" + "abc1234" + "0" * 31
    changed = [{"path": f"src/file{k}.go", "insertions": 4, "deletions": 1} for k in range(files)]
    return Item(
        ref=f"git:ledger-api@{sha}",
        source_type="git",
        kind="commit",
        text=f"{subject}\n\n{body}".strip(),
        occurred_at=START + timedelta(hours=n),
        author=author,
        title=subject,
        container="ledger-api",
        metadata={
            "sha": sha,
            "subject": subject,
            "body": body,
            "files": changed,
            "insertions": 4 * files,
            "deletions": files,
        },
    )


def week(items: list[Item]) -> Document:
    return Document(
        key="git:ledger-api/main/2026-W19",
        kind="git_history",
        source_type="git",
        title="ledger-api main: commits in 2026-W19",
        items=items,
        container="ledger-api",
        metadata={"repo": "ledger-api", "branch": "main"},
    )


def test_one_line_per_commit_with_date_author_sha_and_stats() -> None:
    items = [
        commit(1, "Retry with jitter (#57)", body="Fixes PLAT-120 after the incident.", files=3),
        commit(2, "Tidy logging", author="Bob Stone"),
    ]
    [chunk] = chunk_commits(week(items), limits=ChunkLimits())
    lines = chunk.text.splitlines()
    assert lines[0] == "ledger-api main: commits in 2026-W19"
    assert lines[1] == "[2026-05-04] Alice Chen 01abc12: Retry with jitter (#57) (+12 -3, 3 files)"
    assert "  Fixes PLAT-120 after the incident." in lines
    assert "[2026-05-04] Bob Stone 02abc12: Tidy logging (+4 -1, 1 file)" in lines
    assert chunk.refs == [i.ref for i in items] and [u.ref for u in chunk.units] == chunk.refs
    assert chunk.units[1].author == "Bob Stone" and chunk.units[1].at == items[1].occurred_at
    assert chunk.tickets == ["PLAT-120", "#57"]
    assert chunk.authors == ["Alice Chen", "Bob Stone"]
    assert (chunk.start, chunk.end) == (items[0].occurred_at, items[1].occurred_at)
    assert chunk.chunk_id == "git:ledger-api/main/2026-W19::0" and chunk.container == "ledger-api"


def test_chunks_close_on_item_count_and_token_budget() -> None:
    items = [commit(n, f"Change number {n}", body="Some detail. " * 5) for n in range(7)]
    by_count = chunk_commits(week(items), limits=ChunkLimits(max_items=3, max_tokens=4000, max_chars=20000))
    assert [len(c.refs) for c in by_count] == [3, 3, 1]
    assert [c.chunk_id for c in by_count] == [f"git:ledger-api/main/2026-W19::{n}" for n in range(3)]
    limits = ChunkLimits(max_tokens=60, max_chars=2000)
    by_tokens = chunk_commits(week(items), limits=limits)
    assert len(by_tokens) > 2
    assert all(limits.count_tokens(c.text) <= 60 for c in by_tokens)
    assert [r for c in by_tokens for r in c.refs] == [i.ref for i in items]  # every commit, in order, once


def test_github_links_become_native_refs_and_a_bare_number_stays_bare() -> None:
    body = "Same fix as https://github.com/kestrelpay/payout-worker/pull/57 (PLAT-120)."
    [chunk] = chunk_commits(week([commit(1, "Retry with jitter (#58)", body=body)]), limits=ChunkLimits())
    assert chunk.tickets == ["PLAT-120", "github:kestrelpay/payout-worker#57", "#58"]


def test_topic_shift_splits_only_when_vectors_are_given() -> None:
    items = [commit(n, f"Change {n}") for n in range(4)]
    vectors = {i.ref: ([1.0, 0.0] if n < 2 else [0.0, 1.0]) for n, i in enumerate(items)}
    limits = ChunkLimits(topic_threshold=0.5, max_tokens=4000, max_chars=20000)
    assert [len(c.refs) for c in chunk_commits(week(items), limits=limits, vectors=vectors)] == [2, 2]
    assert [len(c.refs) for c in chunk_commits(week(items), limits=limits)] == [4]


def test_a_huge_message_is_shortened_to_fit_and_flagged() -> None:
    item = commit(1, "Rewrite the settlement batch", body="\n".join(f"Line {n} of detail." for n in range(200)))
    limits = ChunkLimits(max_tokens=80, max_chars=600)
    [chunk] = chunk_commits(week([item]), limits=limits)
    assert chunk.truncated and limits.count_tokens(chunk.text) <= 80 and len(chunk.text) <= 600
    assert chunk.text.splitlines()[1].startswith("[2026-05-04] Alice Chen 01abc12: Rewrite the settlement batch")


def test_sample_repository_is_deterministic_and_chunks_like_the_story(tmp_path: Path) -> None:
    first, second = builder.build(tmp_path / "a"), builder.build(tmp_path / "b")
    heads = [builder._git(repo, "show-ref") for repo in (first, second)]
    assert heads[0] == heads[1]  # same commit ids on every build: gold refs can name them

    table = source_adapter().validate_python({"type": "git", "path": str(first), "code_paths": ["internal"]})
    conn = build(SourceContext(name="ledger-git", config=table))
    records = [r for batch in conn.fetch(conn.initial_cursor()) for r in batch.records]
    documents = {d.key: d for d in conn.normalise(records).documents}
    [release] = chunk_commits(documents["git:ledger-api@tag:v2.5.0"], limits=ChunkLimits())
    assert "PLAT-130" in release.tickets and "#426" in release.tickets
    assert release.text.splitlines()[1].startswith("[2026-06-04] Sam Whitfield tag v2.5.0 on ")
    [incident_week] = chunk_commits(documents["git:ledger-api/main/2026-W21"], limits=ChunkLimits())
    assert incident_week.authors == ["Sam Whitfield", "Tomás Herrera"]
    assert {"PLAT-115", "PLAT-118"} <= set(incident_week.tickets)
    assert "git:ledger-api:internal/settlement/batch.go" in documents


def test_registry_routes_git_history_documents_to_this_chunker() -> None:
    from briefing.registry import chunker_for

    items = [commit(1, "Retry with jitter (#57)"), commit(2, "Tidy logging")]
    assert chunker_for("git_history")(week(items), limits=ChunkLimits()) == chunk_commits(
        week(items), limits=ChunkLimits()
    )
