"""The offline GitHub export (`type = "github"` with `path`): flat and REST shapes, incremental by content hash."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from briefing.errors import ConfigError
from briefing.index import Index
from tests.harness import Workspace

SHA = [
    "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
    "0f1e2d3c4b5a69788796a5b4c3d2e1f001234567",
    "1234567890abcdef1234567890abcdef12345678",
]


def _write(folder: Path, name: str, data: Any) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(data), encoding="utf-8")


def flat_export(folder: Path) -> None:
    """The shape of a simple export (and of ../shared/corpora/olake/github)."""
    pulls = [
        {
            "number": 41,
            "title": "Retry payouts with backoff",
            "author": "dana",
            "merged_at": "2026-05-04T10:00:00+05:30",
            "merge_commit_sha": SHA[0],
            "body": "Payout retries now back off exponentially. Fixes #40.",
        },
        {
            "number": 42,
            "title": "Draft: ledger export",
            "author": "eli",
            "merged_at": None,
            "created_at": "2026-05-06T09:00:00Z",
            "body": "Exports the ledger to Parquet files.",
        },
    ]
    commits = [
        {
            "sha": SHA[0],
            "date": "2026-05-04T10:00:00+05:30",
            "author": "Dana Ruiz",
            "email": "dana@example.com",
            "message": "Retry payouts with backoff (#41)\n\nExponential, capped at five minutes.",
        },
        {
            "sha": SHA[1],
            "date": "2026-05-05T12:00:00Z",
            "author": "Eli Park",
            "message": "Bump the ledger schema to v7",
        },
        {"sha": SHA[2], "date": "2026-05-12T08:00:00Z", "author": "Dana Ruiz", "message": "Release 1.4.0"},
    ]
    tags = [
        {"tag_name": "v1.4.0", "created_at": "2026-05-12T08:05:00Z", "sha": SHA[2]},
        {"tag_name": "v1.3.9", "created_at": "2026-04-30T08:05:00Z", "sha": SHA[1]},
    ]
    _write(folder, "pulls.json", pulls)
    _write(folder, "commits.json", commits)
    _write(folder, "tags.json", tags)


def workspace(tmp_path: Path, folder: Path, repo: str = "acme/payments", **extra: Any) -> Workspace:
    return Workspace(tmp_path / "ws", {"gh": {"type": "github", "path": folder, "repos": [repo], **extra}})


def refs_and_texts(ws: Workspace) -> tuple[set[str], str]:
    with Index.open(ws.settings) as index:
        points = list(index.scroll(fields=["refs", "text"]))
    return {r for p in points for r in p.payload["refs"]}, "\n".join(p.payload["text"] for p in points)


@pytest.mark.slow
def test_a_flat_export_is_indexed_with_github_refs(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    flat_export(folder)
    ws = workspace(tmp_path, folder)
    run = ws.ingest("gh")
    assert run.error is None and run.failures == []
    refs, texts = refs_and_texts(ws)
    assert {"github:acme/payments#41", "github:acme/payments#42"} <= refs
    assert {f"github:acme/payments@{sha}" for sha in SHA} <= refs
    assert {"github:acme/payments@release:v1.4.0", "github:acme/payments@release:v1.3.9"} <= refs
    assert "back off exponentially" in texts and "Bump the ledger schema to v7" in texts
    cached = ws.cached("gh")
    assert cached["acme/payments#41"].data["issue"]["user"] == {"login": "dana"}
    assert cached["acme/payments#41"].data["pull"]["merged_at"] == "2026-05-04T10:00:00+05:30"


@pytest.mark.slow
def test_the_export_is_incremental_by_content_and_deletions_leave(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    flat_export(folder)
    ws = workspace(tmp_path, folder)
    ws.ingest("gh")
    again = ws.ingest("gh")
    assert again.collected is not None and again.collected.fetched == 0
    assert again.processed is not None and again.processed.embedded == 0

    pulls = json.loads((folder / "pulls.json").read_text())
    pulls[1]["body"] = "Exports the ledger to Parquet files, partitioned by day."
    (folder / "pulls.json").write_text(json.dumps(pulls))
    commits = json.loads((folder / "commits.json").read_text())
    (folder / "commits.json").write_text(json.dumps(commits[:2]))  # the newest commit was rewritten away
    changed = ws.ingest("gh")
    assert changed.collected is not None
    assert changed.collected.fetched == 1 and changed.collected.deleted == 1  # only #42, and the lost commit
    refs, texts = refs_and_texts(ws)
    assert f"github:acme/payments@{SHA[2]}" not in refs and "partitioned by day" in texts
    assert "github:acme/payments#41" in refs

    (folder / "tags.json").unlink()  # a file removed from the export: its records leave
    ws.ingest("gh")
    refs, _ = refs_and_texts(ws)
    assert not any("@release:" in r for r in refs) and "github:acme/payments#41" in refs


@pytest.mark.slow
def test_rest_list_shapes_are_read_too(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    _write(
        folder,
        "pulls.json",
        [
            {
                "number": 7,
                "title": "Add rate limiting",
                "user": {"login": "dana"},
                "state": "closed",
                "body": "Token bucket per client.",
                "created_at": "2026-05-01T09:00:00Z",
                "updated_at": "2026-05-02T09:00:00Z",
                "merged_at": "2026-05-02T09:00:00Z",
                "html_url": "https://github.example.com/acme/payments/pull/7",
                "base": {"ref": "main"},
                "head": {"ref": "rate-limit"},
            }
        ],
    )
    _write(
        folder,
        "issues.json",
        [
            {
                "number": 8,
                "title": "Payouts stuck in pending",
                "user": {"login": "eli"},
                "state": "open",
                "body": "Since Tuesday payouts stay pending.",
                "created_at": "2026-05-03T09:00:00Z",
                "updated_at": "2026-05-03T10:00:00Z",
            }
        ],
    )
    _write(
        folder,
        "commits.json",
        [
            {
                "sha": SHA[0],
                "html_url": "https://github.example.com/acme/payments/commit/" + SHA[0],
                "commit": {
                    "message": "Add rate limiting (#7)",
                    "author": {"name": "Dana Ruiz", "email": "d@example.com", "date": "2026-05-02T09:00:00Z"},
                },
                "author": {"login": "dana"},
            }
        ],
    )
    _write(folder, "tags.json", [{"name": "v2.0.0", "commit": {"sha": SHA[0]}}])  # GET /tags: no date of its own
    ws = workspace(tmp_path, folder)
    run = ws.ingest("gh")
    assert run.failures == []
    refs, texts = refs_and_texts(ws)
    assert {"github:acme/payments#7", "github:acme/payments#8", f"github:acme/payments@{SHA[0]}"} <= refs
    assert "github:acme/payments@release:v2.0.0" in refs
    cached = ws.cached("gh")
    assert cached["acme/payments@release:v2.0.0"].data["created_at"] == "2026-05-02T09:00:00Z"  # from the commit
    assert cached["acme/payments#7"].kind == "pull_request" and cached["acme/payments#8"].kind == "issue"
    assert cached["acme/payments#7"].data["issue"]["html_url"].startswith("https://github.example.com/")


@pytest.mark.slow
def test_a_malformed_entry_is_a_failure_and_the_rest_is_indexed(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    flat_export(folder)
    pulls = json.loads((folder / "pulls.json").read_text())
    pulls += [{"number": "many", "title": "bad"}, {"number": 50, "title": "no dates"}, "not an object"]
    (folder / "pulls.json").write_text(json.dumps(pulls))
    (folder / "commits.json").write_text("[{broken")
    ws = workspace(tmp_path, folder)
    run = ws.ingest("gh")
    assert run.error is None
    keys = sorted(f.key for f in run.failures)
    assert keys == ["commits.json", "pulls.json#2", "pulls.json#3", "pulls.json#4"]
    assert "github:acme/payments#41" in refs_and_texts(ws)[0]


@pytest.mark.parametrize(
    ("extra", "message"),
    [({"repos": ["acme/a", "acme/b"]}, "one repository"), ({"code_paths": ["src"]}, "code_paths needs the GitHub API")],
)
def test_export_configuration_mistakes_are_one_line(tmp_path: Path, extra: dict[str, Any], message: str) -> None:
    folder = tmp_path / "export"
    flat_export(folder)
    ws = workspace(tmp_path, folder, **extra)
    from briefing.ingest import make_connector

    with pytest.raises(ConfigError, match=message):
        make_connector(ws.settings, "gh")


def test_the_olake_github_export_is_read_in_full(tmp_path: Path, olake: Path) -> None:
    folder = tmp_path / "export"
    shutil.copytree(olake / "github", folder)
    counts = {name: len(json.loads((folder / f"{name}.json").read_text())) for name in ("pulls", "commits", "tags")}
    ws = workspace(tmp_path, folder, repo="datazip-inc/olake")
    run = ws.ingest("gh")
    assert run.error is None and run.failures == []
    assert run.collected is not None and run.collected.fetched == sum(counts.values())
    refs, _ = refs_and_texts(ws)
    first_pull = json.loads((folder / "pulls.json").read_text())[0]["number"]
    assert f"github:datazip-inc/olake#{first_pull}" in refs
    assert sum(r.startswith("github:datazip-inc/olake@release:") for r in refs) == counts["tags"]
    again = ws.ingest("gh")
    assert again.collected is not None and again.collected.fetched == 0


def test_a_new_tag_names_itself_on_the_prs_merged_before_it(tmp_path: Path) -> None:
    from connectors.github.export import GithubExportConnector

    folder = tmp_path / "export"
    flat_export(folder)
    connector = GithubExportConnector("gh", folder, "acme/payments")
    [first] = list(connector.fetch(connector.initial_cursor()))
    pulls = {r.key: r for r in first.records if r.kind == "pull_request"}
    # PR 41 was merged on 4 May: v1.4.0 (12 May) is the first tag after it, and v1.4.0 lists it.
    assert pulls["acme/payments#41"].data["pull"]["next_tag"]["tag"] == "v1.4.0"
    [tag] = [r for r in first.records if r.key == "acme/payments@release:v1.4.0"]
    assert [p["number"] for p in tag.data["merged_pulls"]] == [41]
    assert "PR #41 Retry payouts with backoff (by dana), before v1.4.0" in tag.data["body"]
    # The unmerged draft names no tag.
    assert "next_tag" not in pulls["acme/payments#42"].data["pull"]

    # A tag cut earlier than v1.4.0 and after the merge: pulls.json is unchanged, yet PR 41 is emitted again.
    tags = json.loads((folder / "tags.json").read_text(encoding="utf-8"))
    tags.append({"tag_name": "v1.3.10", "created_at": "2026-05-05T08:00:00Z", "sha": SHA[1]})
    _write(folder, "tags.json", tags)
    [second] = list(connector.fetch(first.cursor))
    again = {r.key: r for r in second.records}
    assert again["acme/payments#41"].data["pull"]["next_tag"]["tag"] == "v1.3.10"
    assert [p["number"] for p in again["acme/payments@release:v1.3.10"].data["merged_pulls"]] == [41]
    assert again["acme/payments@release:v1.4.0"].data["merged_pulls"] == []
