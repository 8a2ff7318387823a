"""The local git connector against small repositories built in tmp_path with the git CLI."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.errors import SourceError
from briefing.model import Batch, RawRecord
from briefing.registry import FetchOptions, SourceContext
from briefing.settings import source_adapter
from connectors.git.connector import GitConnector, GitCursor, build

ALICE = ("Alice Chen", "alice@example.test")
BOB = ("Bob Stone", "bob@example.test")


class Repo:
    """A scratch repository whose commits get fixed authors and dates."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True)
        self.git("init", "--quiet", "-b", "main")

    def git(self, *args: str, who: tuple[str, str] = ALICE, at: str = "2026-05-04T09:00:00+00:00") -> str:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.path),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": who[0],
            "GIT_AUTHOR_EMAIL": who[1],
            "GIT_AUTHOR_DATE": at,
            "GIT_COMMITTER_NAME": who[0],
            "GIT_COMMITTER_EMAIL": who[1],
            "GIT_COMMITTER_DATE": at,
        }
        cmd = ["git", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", *args]
        return subprocess.run(cmd, cwd=self.path, env=env, capture_output=True, text=True, check=True).stdout

    def commit(self, message: str, files: dict[str, str], *, who: tuple[str, str] = ALICE, at: str) -> str:
        for name, text in files.items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            self.git("add", "--", name)
        self.git("commit", "--quiet", "--allow-empty", "-m", message, who=who, at=at)
        return self.git("rev-parse", "HEAD").strip()


def connector(repo: Repo, options: FetchOptions | None = None, **config: object) -> GitConnector:
    table = source_adapter().validate_python({"type": "git", "path": str(repo.path), **config})
    return build(SourceContext(name="code", config=table, options=options or FetchOptions()))


def sync(conn: GitConnector, cursor: GitCursor | None = None) -> tuple[list[Batch], GitCursor]:
    batches = list(conn.fetch(cursor or conn.initial_cursor()))
    final = batches[-1].cursor
    assert isinstance(final, GitCursor)
    # The cursor must survive a JSON round trip, as the runner stores it.
    return batches, conn.load_cursor(final.model_dump(mode="json"))


def records(batches: list[Batch]) -> dict[str, RawRecord]:
    return {r.key: r for b in batches for r in b.records}


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "ledger-api")
    repo.commit("Add ledger entries\n\nFirst cut of PLAT-101.", {"ledger.py": "A = 1\n"}, at="2026-05-04T09:00:00Z")
    repo.commit(
        "Retry with jitter (#57)\n\nFixes PLAT-120.",
        {"ledger.py": "A = 1\nB = 2\n", "retry.py": "def backoff():\n    return 1\n"},
        who=BOB,
        at="2026-05-06T14:05:00+02:00",
    )
    return repo


def test_first_sync_reads_commits_with_stats_and_normalises_them_by_week(repo: Repo) -> None:
    batches, cursor = sync(connector(repo))
    found = records(batches)
    head = repo.git("rev-parse", "HEAD").strip()
    assert cursor.heads == {"main": head}
    second = found[head].data
    assert second["author"] == "Bob Stone" and second["subject"] == "Retry with jitter (#57)"
    assert second["insertions"] == 3 and second["deletions"] == 0
    assert {f["path"] for f in second["files"]} == {"ledger.py", "retry.py"}

    normalised = connector(repo).normalise(list(found.values()))
    assert not normalised.failures
    [week] = normalised.documents
    assert week.key == "git:ledger-api/main/2026-W19" and week.kind == "git_history"
    assert week.source_type == "git" and week.container == "ledger-api"
    first, item = week.items
    assert item.ref == f"git:ledger-api@{head}"
    assert item.occurred_at.isoformat() == "2026-05-06T12:05:00+00:00"  # the author date, in UTC
    assert "Fixes PLAT-120." in item.text and "retry.py (+2 -0)" in item.text
    assert item.metadata["parents"] == [first.ref.split("@")[1]]
    assert {p.name for p in normalised.people} == {"Alice Chen", "Bob Stone"}


def test_incremental_sync_reads_only_new_commits(repo: Repo) -> None:
    conn = connector(repo)
    _, cursor = sync(conn)
    assert records(list(conn.fetch(cursor))) == {}  # nothing new: nothing re-read
    new = repo.commit("Add statements index", {"schema.sql": "CREATE INDEX i;\n"}, at="2026-05-11T10:00:00Z")
    batches, cursor = sync(conn, cursor)
    assert list(records(batches)) == [new]
    assert cursor.heads["main"] == new


def test_annotated_and_lightweight_tags(repo: Repo) -> None:
    repo.git("tag", "-a", "v2.4.0", "-m", "ledger-api 2.4.0\n\nIdempotency keys.", at="2026-05-13T13:50:00Z")
    repo.git("tag", "nightly", "HEAD~1")
    conn = connector(repo)
    batches, cursor = sync(conn)
    found = records(batches)
    release = found["tag:v2.4.0"].data
    assert release["annotated"] and release["created_at"].startswith("2026-05-13T13:50:00")
    # A release lists the commits since the previous tag reachable from it.
    assert release["previous_tag"] == "nightly"
    assert [c["subject"] for c in release["commits"]] == ["Retry with jitter (#57)"]
    assert found["tag:nightly"].data["annotated"] is False
    docs = {d.key: d for d in conn.normalise(list(found.values())).documents}
    [tag_item] = docs["git:ledger-api@tag:v2.4.0"].items
    assert tag_item.ref == "git:ledger-api@tag:v2.4.0" and "Idempotency keys." in tag_item.text

    repo.git("tag", "-d", "nightly")
    again, _ = sync(conn, cursor)
    assert records(again) == {}  # unchanged tags are not re-read
    assert "tag:nightly" in {key for b in again for key in b.deleted}


def test_rewritten_history_is_read_again_and_dropped_commits_are_deleted(
    repo: Repo, caplog: pytest.LogCaptureFixture
) -> None:
    conn = connector(repo)
    _, cursor = sync(conn)
    dropped = cursor.heads["main"]
    repo.git("reset", "--quiet", "--hard", "HEAD~1")
    replacement = repo.commit("Retry with jitter, take two", {"retry.py": "pass\n"}, at="2026-05-07T09:00:00Z")
    batches, cursor = sync(conn, cursor)
    found = records(batches)
    assert replacement in found and len(found) == 2  # the whole branch again, not just the new commit
    assert dropped in {key for b in batches for key in b.deleted}
    assert cursor.heads["main"] == replacement
    assert "rewritten" in caplog.text


def test_branches_do_not_repeat_shared_commits(repo: Repo) -> None:
    base = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "--quiet", "-b", "feature")
    feature = repo.commit("Feature work", {"f.py": "x = 1\n"}, at="2026-05-12T09:00:00Z")
    conn = connector(repo, branches=["main", "feature", "missing"])
    batches, cursor = sync(conn)
    found = records(batches)
    assert found[base].data["branch"] == "main" and found[feature].data["branch"] == "feature"
    assert len(found) == 3
    assert [f.key for b in batches for f in b.failures] == ["branch:missing"]
    keys = {d.key for d in conn.normalise(list(found.values())).documents}
    assert keys == {"git:ledger-api/main/2026-W19", "git:ledger-api/feature/2026-W20"}


def test_missing_path_and_plain_folder_name_the_setting(tmp_path: Path) -> None:
    table = source_adapter().validate_python({"type": "git", "path": str(tmp_path / "nowhere")})
    conn = build(SourceContext(name="code", config=table))
    with pytest.raises(SourceError, match=r"sources\.code\.path.*nowhere.*does not exist"):
        list(conn.fetch(conn.initial_cursor()))
    plain = tmp_path / "plain"
    plain.mkdir()
    table = source_adapter().validate_python({"type": "git", "path": str(plain), "name": "svc"})
    conn = build(SourceContext(name="code", config=table))
    with pytest.raises(SourceError, match=r"sources\.code\.path.*plain.*not a git repository"):
        list(conn.fetch(conn.initial_cursor()))


def test_code_paths_read_changed_files_only_and_delete_removed_ones(repo: Repo) -> None:
    repo.commit("Docs", {"docs/notes.md": "# Notes\n", "logo.png": "binary"}, at="2026-05-08T09:00:00Z")
    conn = connector(repo, code_paths=["retry.py", "docs/"], name="ledger")
    batches, cursor = sync(conn)
    found = records(batches)
    assert sorted(k for k in found if k.startswith("file:")) == ["file:docs/notes.md", "file:retry.py"]
    assert found["file:retry.py"].data["blob"] == cursor.files["retry.py"]
    docs = {d.key: d for d in conn.normalise(list(found.values())).documents}
    code = docs["git:ledger:retry.py"]
    assert code.kind == "code_file" and code.items[0].ref == "git:ledger:retry.py"
    assert code.items[0].text == "def backoff():\n    return 1\n"

    repo.commit("Faster retry", {"retry.py": "def backoff():\n    return 0\n"}, at="2026-05-09T09:00:00Z")
    repo.git("rm", "--quiet", "docs/notes.md")
    repo.git("commit", "--quiet", "-m", "Drop notes", at="2026-05-09T10:00:00Z")
    batches, cursor = sync(conn, cursor)
    found = records(batches)
    assert sorted(k for k in found if k.startswith("file:")) == ["file:retry.py"]
    assert "file:docs/notes.md" in {key for b in batches for key in b.deleted}
    assert set(cursor.files) == {"retry.py"}


def test_unparseable_cached_commit_is_a_failure_not_a_crash(repo: Repo) -> None:
    conn = connector(repo)
    batches, _ = sync(conn)
    bad = RawRecord(key="0" * 40, kind="git_commit", data={"sha": "0" * 40, "authored_at": "not a date"})
    normalised = conn.normalise([*records(batches).values(), bad])
    assert [f.key for f in normalised.failures] == ["0" * 40]
    assert len(normalised.documents) == 1


def test_since_and_until_read_only_the_commits_in_range(repo: Repo) -> None:
    late = repo.commit("Add statements index", {"schema.sql": "CREATE INDEX i;\n"}, at="2026-05-11T10:00:00Z")
    middle = repo.git("rev-parse", "HEAD~1").strip()
    window = FetchOptions(since=datetime(2026, 5, 5, tzinfo=UTC), until=datetime(2026, 5, 10, tzinfo=UTC))

    batches, cursor = sync(connector(repo, options=window))

    assert [k for k in records(batches) if not k.startswith("tag:")] == [middle]
    assert [k for b in batches for k in b.deleted] == []
    # The heads did not move: a plain run afterwards still reads the commits outside the window.
    assert cursor.heads == {}
    later, _ = sync(connector(repo), cursor)
    assert late in records(later) and len(records(later)) == 3
