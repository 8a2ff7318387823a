"""Input that never breaks a run: hostile or broken records become counted failures with a one-line reason, the
rest of the run goes on, nothing indexed is lost, and the next run does not fail again.

Every test runs the real pipeline (raw cache, cursor, chunking, embedding, the Qdrant index) over files written
the way a real export or docs folder would hold them.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from briefing.errors import ConfigError, MassDeletionError, StateError
from briefing.model import RawRecord
from briefing.registry import FetchOptions
from briefing.settings import load_settings
from briefing.store import RawStore
from tests.harness import Workspace

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "slack_export" / "acme"
GOOD_TS = "1778250000.000100"  # 2026-05-08, in platform-eng


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


@pytest.fixture
def export(tmp_path: Path) -> Path:
    target = tmp_path / "export"
    shutil.copytree(FIXTURES, target)
    return target


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def _slack(tmp_path: Path, export: Path) -> Workspace:
    return Workspace(tmp_path / "ws", {"archive": {"type": "slack_export", "path": export}})


@pytest.mark.slow
def test_hostile_slack_records_are_counted_failures_and_the_rest_is_indexed(tmp_path: Path, export: Path) -> None:
    good = {"type": "message", "user": "U01ALICE", "ts": GOOD_TS, "text": "The zebra rollout finished cleanly"}
    hostile = [
        {"type": "message", "user": "U01ALICE", "ts": "1e300", "text": "huge ts"},
        {"type": "message", "user": "U01ALICE", "ts": "inf", "text": "infinite ts"},
        {"type": "message", "user": "U01ALICE", "ts": "1778250001.000100", "text": "x", "reply_count": "lots"},
        {"type": "message", "user": "U01ALICE", "ts": "1778250002.000100", "text": "x", "thread_ts": ["a"]},
        {"type": "message", "user": "U01ALICE", "ts": "1778250003.000100", "text": "x", "extra": _nested(200)},
    ]
    _write(export / "platform-eng" / "2026-05-09.json", [good, *hostile])
    # ~1,000 levels: json cannot even parse it; the whole day file is one failure, the other days go on.
    (export / "platform-eng" / "2026-05-10.json").write_text("[" * 1000 + "]" * 1000, encoding="utf-8")
    users = json.loads((export / "users.json").read_text(encoding="utf-8"))
    _write(export / "users.json", [*users, {"id": "U09ODD", "name": "odd", "profile": "not an object"}])

    ws = _slack(tmp_path, export)
    summary = ws.run()
    assert summary.error() is None
    mine = ("platform-eng/2026-05-09.json", "platform-eng/2026-05-10.json", "users.json#", "C01PLAT/1778250003")
    reasons = [f.reason for f in summary.sources[0].failures if f.key.startswith(mine)]
    assert len(reasons) == 7, reasons
    assert any("invalid ts ('1e300')" in r for r in reasons)
    assert any("invalid ts ('inf')" in r for r in reasons)
    assert any("reply_count ('lots')" in r for r in reasons)
    assert any("thread_ts" in r for r in reasons)
    assert any("nested more than" in r for r in reasons)
    assert any("nested too deeply" in r for r in reasons)
    assert any("profile of type str" in r for r in reasons)
    assert all("\n" not in r for r in reasons)
    assert f"slack:C01PLAT:{GOOD_TS}" in ws.indexed_refs()
    assert not any("1e300" in key or "inf" in key for key in ws.cached("archive"))

    # The next run reads the same export: no crash, and nothing indexed is lost.
    before = ws.indexed_refs()
    again = ws.run()
    assert again.error() is None
    assert ws.indexed_refs() == before


@pytest.mark.slow
def test_hostile_records_already_in_the_cache_do_not_break_reindexing(tmp_path: Path, export: Path) -> None:
    ws = _slack(tmp_path, export)
    ws.run()
    before = ws.indexed_refs()
    store = RawStore.for_source(ws.settings, "archive")
    try:  # written by an older version, before records were checked on the way in
        bad = {"ts": "1e300", "text": "boom", "_channel": {"id": "C01PLAT", "name": "platform-eng"}}
        odd_user = {"id": "U09ODD", "profile": "a string"}
        store.put_many([RawRecord("C01PLAT/1e300", "message", bad), RawRecord("user/U09ODD", "user", odd_user)])
    finally:
        store.close()
    run = ws.ingest("archive", collect_first=False)
    assert {f.key for f in run.failures} == {"C01PLAT/1e300", "user/U09ODD"}
    assert ws.indexed_refs() == before


@pytest.mark.slow
def test_an_emptied_channel_list_is_refused_until_confirmed(tmp_path: Path, export: Path) -> None:
    ws = _slack(tmp_path, export)
    ws.run()
    before = ws.indexed_refs()
    assert len(before) > 5
    (export / "channels.json").write_text("[]", encoding="utf-8")

    for _ in range(2):  # refused, and refused again next run: the deletions were kept, not forgotten
        summary = ws.run()
        error = summary.error()
        assert isinstance(error, MassDeletionError)
        assert error.exit_code == 12
        assert "--full --allow-deletions" in str(error)
        assert ws.indexed_refs() == before
        assert "channel/C01PLAT" in ws.cached("archive")

    confirmed = ws.run(options=FetchOptions(full=True, allow_deletions=True))
    assert confirmed.error() is None
    left = ws.indexed_refs()
    assert not any(ref.startswith(("slack:C01PLAT:", "slack:C02RAND:")) for ref in left)
    assert any(ref.startswith("slack:G01LEADS:") for ref in left)  # groups.json still lists its channel


@pytest.mark.slow
def test_the_export_reader_never_leaves_its_folder(tmp_path: Path, export: Path) -> None:
    outside = tmp_path / "outside"
    secret_day = [{"type": "message", "user": "U01ALICE", "ts": "1778250000.000200", "text": "OUTSIDE SECRET"}]
    _write(outside / "2026-05-09.json", secret_day)
    _write(tmp_path / "abs" / "2026-05-09.json", secret_day)
    channels = json.loads((export / "channels.json").read_text(encoding="utf-8"))
    channels += [
        {"id": "C07UP", "name": "../outside"},
        {"id": "C08ABS", "name": str(tmp_path / "abs")},
        {"id": "C09LINK", "name": "linked"},
    ]
    _write(export / "channels.json", channels)
    (export / "linked").symlink_to(outside, target_is_directory=True)
    (export / "random" / "2026-05-09.json").symlink_to(outside / "2026-05-09.json")

    ws = _slack(tmp_path, export)
    summary = ws.run()
    assert summary.error() is None
    texts = json.dumps([r.data for r in ws.cached("archive").values()])
    assert "OUTSIDE SECRET" not in texts
    reasons = " | ".join(f.reason for f in summary.sources[0].failures)
    assert "'../outside'" in reasons and "not a plain folder name" in reasons
    assert "outside the export" in reasons
    assert f"slack:C01PLAT:{'1778076300.000100'}" in ws.indexed_refs()  # the rest was ingested


@pytest.mark.slow
def test_a_missing_user_list_is_reported_once_in_the_run_report(tmp_path: Path, export: Path) -> None:
    users = (export / "users.json").read_bytes()
    (export / "users.json").unlink()
    ws = _slack(tmp_path, export)

    def said() -> list[str]:
        summary = ws.run()
        reasons = [f.reason for f in summary.sources[0].failures]
        recorded = [s["reason"] for s in ws.last_run("archive")["failure_samples"]]  # what `brief sources` shows
        assert [r for r in reasons if "users.json" in r] == [r for r in recorded if "users.json" in r]
        return [r for r in reasons if "users.json" in r or "user ids" in r]

    assert len(said()) == 1
    assert said() == []  # not on every run: the cursor remembers it was said
    (export / "random" / "2026-05-09.json").write_text("[]", encoding="utf-8")  # a changed export, still no users
    assert said() == []
    (export / "users.json").write_bytes(users)  # it comes back: names again, nothing to say
    assert said() == []
    (export / "users.json").unlink()  # and goes again: said again, once
    assert len(said()) == 1


@pytest.mark.parametrize("name", ["../..", "a/../../b", "/etc", ".hidden", "x" * 81])
def test_workspace_names_cannot_leave_brief_home(tmp_path: Path, name: str) -> None:
    config = tmp_path / "brief.toml"
    config.write_text(f"[workspace]\nname = {json.dumps(name)}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="workspace.name"):
        load_settings(config)


def test_source_names_cannot_leave_brief_home(tmp_path: Path) -> None:
    config = tmp_path / "brief.toml"
    config.write_text('[sources."../../up"]\ntype = "files"\npath = "."\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="not a valid name"):
        load_settings(config)


# ------------------------------------------------------------------------------------------------ files


def _docs(tmp_path: Path) -> tuple[Workspace, Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "runbook.md").write_text("# Runbook\n\nRestart the ingest worker with care.\n", encoding="utf-8")
    ws = Workspace(tmp_path / "ws", {"handbook": {"type": "files", "path": docs, "max_file_bytes": 100_000}})
    return ws, docs


@pytest.mark.slow
def test_files_symlink_loops_binary_and_oversized_files_are_failures(tmp_path: Path) -> None:
    ws, docs = _docs(tmp_path)
    (docs / "loop").symlink_to(docs / "loop")
    (docs / "sub").mkdir()
    (docs / "sub" / "up").symlink_to(docs, target_is_directory=True)  # a cycle back to the root
    rng = __import__("random").Random(7)
    (docs / "noise.md").write_bytes(bytes(rng.choice(range(1, 256)) for _ in range(50_000)))  # no NUL byte
    (docs / "huge.txt").write_text("word " * 40_000, encoding="utf-8")  # 200 KB, over the 100 KB limit

    summary = ws.run()
    assert summary.error() is None
    reasons = {f.key: f.reason for f in summary.sources[0].failures}
    assert "link loops" in reasons["loop"]
    assert "binary content" in reasons["noise.md"]
    assert "max_file_bytes" in reasons["huge.txt"]
    assert ws.indexed_refs() == {"file:runbook.md"}
    assert ws.run().error() is None


@pytest.mark.slow
def test_front_matter_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    ws, docs = _docs(tmp_path)
    levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    levels += [f"{c}: &{c} [{','.join(['*' + p] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)]
    bomb = "---\n" + "\n".join(levels) + "\n---\n# Bomb\n\nThe body is still indexed.\n"
    assert len(bomb.encode()) < 600
    (docs / "bomb.md").write_text(bomb, encoding="utf-8")
    started = time.process_time()
    summary = ws.run()
    assert time.process_time() - started < 60  # CPU seconds; the unguarded parse never finishes
    assert summary.error() is None
    assert "file:bomb.md" in ws.indexed_refs()
    cached = ws.cached("handbook")["bomb.md"].data
    assert len(json.dumps(cached)) < 10_000


@pytest.mark.slow
def test_an_edit_that_keeps_size_and_mtime_is_seen(tmp_path: Path) -> None:
    ws, docs = _docs(tmp_path)
    ws.run()
    page = docs / "runbook.md"
    stat = page.stat()
    page.write_text("# Runbook\n\nRestart the ingest daemon with care.\n"[: stat.st_size].ljust(stat.st_size))
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert page.stat().st_size == stat.st_size
    ws.run()
    assert "daemon" in ws.cached("handbook")["runbook.md"].data["content"]


# ------------------------------------------------------------------------------------------------ local state


@pytest.mark.slow
def test_a_damaged_raw_cache_names_the_repair(tmp_path: Path, export: Path) -> None:
    ws = _slack(tmp_path, export)
    ws.run()
    db = ws.settings.workspace_home / "raw" / "archive" / "cache.db"
    db.write_bytes(b"this is not a database at all" * 100)
    summary = ws.run()
    error = summary.error()
    assert isinstance(error, StateError)
    assert "damaged" in str(error) and "brief ingest archive --full" in str(error)
    repaired = ws.run(options=FetchOptions(full=True))
    assert repaired.error() is None
    assert f"slack:C01PLAT:{'1778076300.000100'}" in ws.indexed_refs()


class _Boom:
    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (Path.touch, (str(_Boom.marker),))

    marker = Path("/nonexistent")


@pytest.mark.slow
def test_a_tampered_cache_row_cannot_run_code(tmp_path: Path, export: Path) -> None:
    ws = _slack(tmp_path, export)
    ws.run()
    _Boom.marker = tmp_path / "pwned"
    db = ws.settings.workspace_home / "raw" / "archive" / "cache.db"
    with sqlite3.connect(db) as conn:  # a pickle row, as diskcache's default Disk would write it (mode 4)
        conn.execute("UPDATE Cache SET value = ?, mode = 4 WHERE key = 'channel/C01PLAT'", (pickle.dumps(_Boom()),))
    summary = ws.run(options=FetchOptions())
    assert not _Boom.marker.exists()
    assert isinstance(summary.error(), StateError)


def test_a_pickle_cache_from_an_older_version_is_not_read(tmp_path: Path) -> None:
    import diskcache

    legacy = tmp_path / "raw" / "old"
    cache = diskcache.Cache(str(legacy))
    cache.set("k", {"kind": "note", "data": {}})
    cache.close()
    with pytest.raises(StateError, match="pickle"):
        RawStore(legacy)


@pytest.mark.slow
def test_a_damaged_index_names_the_repair_and_reindex_full_rebuilds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from briefing.cli.app import app

    monkeypatch.setenv("BRIEF_QDRANT__ENGINE", "local")  # qdrant-client's local folder (meta.json + sqlite)
    ws, _ = _docs(tmp_path)
    ws.run()
    (ws.settings.workspace_home / "qdrant" / "meta.json").write_text("", encoding="utf-8")
    runner = CliRunner()
    search = runner.invoke(app, ["--config", str(ws.config), "search", "restart the worker"])
    assert search.exit_code == StateError.exit_code
    assert "damaged" in search.stderr and "brief reindex --full" in search.stderr
    assert "Traceback" not in search.output
    rebuilt = runner.invoke(app, ["--config", str(ws.config), "reindex", "--full"])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert ws.indexed_refs() == {"file:runbook.md"}


def test_deletions_found_before_a_crash_are_applied_by_the_next_run(tmp_path: Path, export: Path) -> None:
    from connectors.slack.export import SlackExportConnector
    from tests.harness import SourceRunner

    runner = SourceRunner(SlackExportConnector(export))
    runner.collect()
    gone = export / "platform-eng" / "2026-05-07.json"
    doomed = {f"C01PLAT/{m['ts']}" for m in json.loads(gone.read_text(encoding="utf-8")) if "ts" in m}
    assert doomed and doomed <= set(runner.cache)
    gone.unlink()
    # Dies before the last batch's cursor: deletions are applied only at the end of a run, so none happened.
    with pytest.raises(KeyboardInterrupt):
        runner.collect(crash_after=2)
    assert doomed <= set(runner.cache)  # nothing deleted halfway
    runner.collect()
    assert not doomed & set(runner.cache)


@pytest.mark.slow
def test_losing_more_than_the_deletion_share_is_refused_and_a_smaller_loss_is_not(tmp_path: Path) -> None:
    """Not only an emptied listing: a source that loses more than [sync] max_deletion_share (0.5) is refused."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(24):  # over deletion_guard_min_items (20), so the share rule applies
        (docs / f"page{n:02d}.md").write_text(f"# Page {n}\n\nRunbook step {n}: check the queue.\n", encoding="utf-8")
    ws = Workspace(tmp_path / "ws", {"handbook": {"type": "files", "path": docs}})
    assert ws.run().error() is None
    for n in range(13):  # 13 of 24: more than half
        (docs / f"page{n:02d}.md").unlink()
    error = ws.run().error()
    assert isinstance(error, MassDeletionError) and error.exit_code == 12
    assert "13 of its 24" in str(error)
    assert len(ws.indexed_refs()) == 24  # nothing deleted, nothing re-indexed
    (docs / "page00.md").write_text("# Page 0\n\nRunbook step 0: check the queue.\n", encoding="utf-8")
    for n in range(1, 6):  # back to 5 of 24 lost: under the share, applied without confirmation
        (docs / f"page{n:02d}.md").write_text(f"# Page {n}\n\nRunbook step {n}: check the queue.\n", encoding="utf-8")
    assert ws.run().error() is None
    assert ws.indexed_refs() == {f"file:page{n:02d}.md" for n in [0, 1, 2, 3, 4, 5, *range(13, 24)]}


@pytest.mark.slow
def test_a_slack_day_file_over_the_size_limit_is_skipped_with_its_reason(tmp_path: Path, export: Path) -> None:
    big = export / "random" / "2026-05-09.json"
    _write(
        big,
        [{"type": "message", "user": "U01ALICE", "ts": f"17783{n:05d}.000100", "text": "x" * 200} for n in range(200)],
    )  # about 50 KB
    ws = Workspace(tmp_path / "ws", {"archive": {"type": "slack_export", "path": export, "max_file_bytes": 20_000}})
    summary = ws.run()
    assert summary.error() is None
    reasons = {f.key: f.reason for f in summary.sources[0].failures}
    assert "max_file_bytes" in reasons["random/2026-05-09.json"]
    assert any(ref.startswith("slack:C01PLAT:") for ref in ws.indexed_refs())  # the rest was ingested
