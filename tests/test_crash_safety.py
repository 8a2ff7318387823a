"""Crash safety: `brief ingest` SIGKILLed at every step of a sync, restarted, ends where an uninterrupted run ends.

Each case runs the real CLI in a subprocess with `BRIEF_TEST_KILL_AT=POINT@N` (`briefing.killpoint`), so the
process dies with SIGKILL the Nth time it reaches POINT: after a batch is fetched, inside the raw-cache
transaction, with the cursor's temporary file written but not yet renamed, after the cursor is saved, before and
inside the deletion of cached records, after normalising, while chunking, between embedding and upsert, after an
upsert, before publishing and while replacing `CURRENT`, before the run record is saved. The test then runs
`brief ingest` again, without the variable, and compares the index (every chunk's id, hash and text; no id
twice), the raw cache (every key) and each source's cursor with those of an uninterrupted run.

Two runs are covered: the first ingest of a small workspace (a docs folder and a Slack export) and, from the
state an uninterrupted first ingest left, an incremental one after files were edited, added and deleted and
Slack day files were changed, added and deleted. Four cases (inside the cache transaction, between embedding
and upsert, inside publishing, inside a deletion) run in the fast suite; the others are marked `slow`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from briefing.index import Filter, Index
from briefing.settings import load_settings
from briefing.store import RawStore, SourceState

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("docs", "chat")
EPOCH = 1_780_000_000  # every file's mtime is fixed, so cursors (which remember mtimes) compare exactly


def _touch(path: Path, offset: int) -> None:
    os.utime(path, ns=((EPOCH + offset) * 10**9, (EPOCH + offset) * 10**9))


def _doc(title: str, sections: int, seed: str) -> str:
    parts = [f"# {title}\n"]
    for n in range(sections):
        parts.append(
            f"## {seed} step {n}\n\nThe {seed} team checks the queue depth before step {n}, then restarts worker "
            f"{n} and watches the error rate for ten minutes. Escalate to the on-call lead if it stays high.\n"
        )
    return "\n".join(parts)


def _day(channel: str, day: int, count: int, edited: bool = False) -> list[dict[str, Any]]:
    base = 1_777_000_000 + day * 86_400
    messages = []
    for n in range(count):
        ts = f"{base + n * 600}.{n:06d}"
        text = f"{channel} update {day}-{n}: the rollout of service {n} is at stage {day}, nothing blocked."
        if edited and n == 0:
            text = f"{channel} update {day}-{n} (corrected): the rollout of service {n} was paused for a fix."
        message: dict[str, Any] = {"type": "message", "user": f"U{n % 3}", "text": text, "ts": ts}
        if n == 1:
            message["thread_ts"] = ts
            message["reply_count"] = 1
        if n == 2:
            message["thread_ts"] = f"{base + 600}.000001"
            message["parent_user_id"] = "U1"
        messages.append(message)
    return messages


def make_workspace(root: Path) -> None:
    """A docs folder of 5 pages and a Slack export of 3 channels x 2 days, every mtime fixed."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    for n, name in enumerate(["deploy", "oncall", "payments", "search", "hiring"]):
        (docs / f"{name}.md").write_text(_doc(name.capitalize() + " runbook", 3 + n % 2, name), encoding="utf-8")
    export = root / "export"
    export.mkdir()
    channels = ["general", "incidents", "platform"]
    (export / "channels.json").write_text(
        json.dumps([{"id": f"C{n}", "name": name} for n, name in enumerate(channels)]), encoding="utf-8"
    )
    users = [{"id": f"U{n}", "name": f"user{n}", "real_name": f"Person {n}"} for n in range(3)]
    (export / "users.json").write_text(json.dumps(users), encoding="utf-8")
    for name in channels:
        (export / name).mkdir()
        for day in (1, 2):
            (export / name / f"2026-04-0{day}.json").write_text(json.dumps(_day(name, day, 4)), encoding="utf-8")
    (root / "brief.toml").write_text(
        '[workspace]\nname = "crash"\n'
        '[sources.docs]\ntype = "files"\npath = "docs"\n'
        '[sources.chat]\ntype = "slack_export"\npath = "export"\n'
        '[embedding]\nwarm_at = "ingest"\n',  # the warm step runs in the ingest, between its kill points
        encoding="utf-8",
    )
    for n, path in enumerate(sorted(p for p in root.rglob("*") if p.is_file())):
        _touch(path, n)


def change_workspace(root: Path) -> None:
    """What happens between two syncs: pages edited, added and deleted; day files changed, added and deleted."""
    docs = root / "docs"
    (docs / "deploy.md").write_text(_doc("Deploy runbook", 2, "deploy-v2"), encoding="utf-8")
    (docs / "hiring.md").unlink()
    (docs / "billing.md").write_text(_doc("Billing runbook", 2, "billing"), encoding="utf-8")
    export = root / "export"
    (export / "general" / "2026-04-01.json").write_text(json.dumps(_day("general", 1, 3, edited=True)))
    (export / "incidents" / "2026-04-02.json").unlink()
    (export / "platform" / "2026-04-03.json").write_text(json.dumps(_day("platform", 3, 4)), encoding="utf-8")
    for n, path in enumerate(sorted(p for p in root.rglob("*") if p.is_file())):
        _touch(path, 1000 + n)


def brief_ingest(root: Path, home: Path, kill: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEF_")}
    env["BRIEF_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO), env.get("PYTHONPATH", "")])
    if kill is not None:
        env["BRIEF_TEST_KILL_AT"] = kill
    return subprocess.run(
        [sys.executable, "-m", "briefing", "--config", str(root / "brief.toml"), "ingest"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@dataclass(frozen=True)
class Snapshot:
    chunks: dict[str, dict[str, tuple[str, str]]]  # source -> chunk id -> (hash, text)
    points: dict[str, int]  # source -> points stored (a duplicate would make it larger than the ids)
    cached: dict[str, frozenset[str]]
    cursors: dict[str, Any]
    pending: dict[str, list[str]]


def snapshot(root: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Snapshot:
    monkeypatch.setenv("BRIEF_HOME", str(home))
    settings = load_settings(root / "brief.toml")
    chunks: dict[str, dict[str, tuple[str, str]]] = {}
    points: dict[str, int] = {}
    with Index.open(settings) as index:
        for source in SOURCES:
            stored = list(index.scroll(Filter(source_names=(source,)), fields=["chunk_id", "hash", "text"]))
            points[source] = len(stored)
            chunks[source] = {p.payload["chunk_id"]: (p.payload["hash"], p.payload["text"]) for p in stored}
    cached = {}
    for source in SOURCES:
        store = RawStore.for_source(settings, source)
        try:
            cached[source] = frozenset(store.keys())
        finally:
            store.close()
    states = {source: SourceState.for_source(settings, source) for source in SOURCES}
    return Snapshot(
        chunks=chunks,
        points=points,
        cached=cached,
        cursors={s: state.cursor for s, state in states.items()},
        pending={s: sorted(state.pending_deletions) for s, state in states.items()},
    )


@dataclass(frozen=True)
class Baseline:
    root: Path  # the workspace before the change
    changed: Path  # the workspace after it
    first_home: Path  # BRIEF_HOME after an uninterrupted first ingest
    first: Snapshot
    second: Snapshot  # after an uninterrupted incremental ingest of `changed`


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Baseline:
    base = tmp_path_factory.mktemp("crash-baseline")
    root = base / "workspace"
    make_workspace(root)
    changed = base / "changed"
    shutil.copytree(root, changed)
    change_workspace(changed)
    first_home = base / "home-first"
    done = brief_ingest(root, first_home)
    assert done.returncode == 0, done.stderr
    second_home = base / "home-second"
    shutil.copytree(first_home, second_home)
    done = brief_ingest(changed, second_home)
    assert done.returncode == 0, done.stderr
    with pytest.MonkeyPatch.context() as mp:
        first = snapshot(root, first_home, mp)
        second = snapshot(changed, second_home, mp)
    # The workspace is big enough to mean something, and the change really changes all three things.
    assert all(first.chunks[s] for s in SOURCES)
    for source in SOURCES:
        assert first.cached[source] - second.cached[source], f"{source}: the change deletes nothing"
        assert second.cached[source] - first.cached[source], f"{source}: the change adds nothing"
        assert set(first.chunks[source].items()) - set(second.chunks[source].items())
    return Baseline(root=root, changed=changed, first_home=first_home, first=first, second=second)


# (point@hit, run): "first" kills the first ingest of the workspace, "next" the incremental one after the change.
# Hits count over the whole run: docs is collected and indexed before chat.
FAST = {("cache.write@3", "first"), ("embed@2", "first"), ("publish.swap@1", "first"), ("deletion.delete@1", "next")}
CASES = [
    # collection and the raw cache
    ("collect.batch@1", "first"),  # docs fetched, nothing stored
    ("cache.write@3", "first"),  # inside the docs cache transaction
    ("cache.written@1", "first"),  # docs cached, cursor not saved
    ("state.replace@2", "first"),  # docs cursor written to its temporary file, not renamed (1: the cache marker)
    ("cursor.saved@1", "first"),  # docs cursor saved, nothing indexed
    ("collect.batch@3", "first"),  # chat: the first channel fetched
    ("cache.write@12", "first"),  # inside a chat channel's cache transaction
    ("cursor.saved@4", "first"),  # chat: a channel's cursor saved, later channels not read
    # chunking, embedding, indexing, publishing
    ("normalise@1", "first"),
    ("chunk@4", "first"),
    ("embed@1", "first"),  # docs vectors computed, not upserted
    ("index.upsert@1", "first"),  # docs upserted, not published
    ("run.save@1", "first"),
    ("publish@1", "first"),
    ("publish.swap@1", "first"),  # the docs generation complete, CURRENT not replaced
    ("published@1", "first"),  # docs visible, chat not started
    ("embed@2", "first"),  # chat vectors computed
    ("embed.warmed@1", "first"),  # docs upserted and the vector cache warmed for them, not published
    ("publish.swap@2", "first"),
    # the incremental run: deletions, stale chunks, changed chunks
    ("collect.batch@1", "next"),
    ("cursor.saved@1", "next"),
    ("deletion.apply@1", "next"),  # docs: a deleted page found, its record not deleted
    ("deletion.delete@1", "next"),  # inside the deletion transaction
    ("deletion.applied@1", "next"),  # record deleted, pending list not cleared
    ("index.stale@1", "next"),  # the deleted page's chunks about to leave the index
    ("embed@1", "next"),
    ("publish.swap@1", "next"),
    ("records.save@1", "next"),  # docs chunks written and stale ones deleted, the chunking record not saved
    ("publish@1", "next"),  # docs chunking record saved, the changed chunks not published
    ("cursor.saved@3", "next"),  # chat: the edited channel's cursor saved
    ("deletion.apply@2", "next"),  # chat: the deleted day file's messages
    ("deletion.delete@3", "next"),  # inside chat's deletion transaction
    ("index.stale@2", "next"),
    ("publish.swap@2", "next"),
]
PARAMS = [pytest.param(point, run, marks=() if (point, run) in FAST else pytest.mark.slow) for point, run in CASES]


def test_the_sweep_covers_every_phase() -> None:
    points = {point.split("@")[0] for point, _ in CASES}
    assert len(CASES) >= 20
    assert points >= {"collect.batch", "cache.write", "state.replace", "chunk", "embed", "index.upsert"}
    assert points >= {"publish.swap", "deletion.apply", "deletion.delete", "index.stale", "cursor.saved"}


@pytest.mark.parametrize(("point", "run"), PARAMS)
@pytest.mark.slow
def test_a_sigkill_at_any_point_loses_duplicates_and_changes_nothing(
    point: str, run: str, baseline: Baseline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    if run == "first":
        root, expected = baseline.root, baseline.first
    else:
        root, expected = baseline.changed, baseline.second
        shutil.copytree(baseline.first_home, home)

    killed = brief_ingest(root, home, kill=point)
    assert killed.returncode == -signal.SIGKILL, f"{point} was never reached: {killed.stderr[-2000:]}"
    assert f"kill point {point}" in killed.stderr

    restarted = brief_ingest(root, home)
    assert restarted.returncode == 0, restarted.stderr[-2000:]

    after = snapshot(root, home, monkeypatch)
    for source in SOURCES:
        got, want = after.chunks[source], expected.chunks[source]
        assert sorted(set(want) - set(got)) == [], f"{source}: chunks lost"
        assert sorted(set(got) - set(want)) == [], f"{source}: chunks that should not be there"
        assert [cid for cid in want if got[cid] != want[cid]] == [], f"{source}: chunks changed"
        assert after.points[source] == len(got), f"{source}: a chunk is stored twice"
        assert after.cached[source] == expected.cached[source], f"{source}: raw cache differs"
        assert after.cursors[source] == expected.cursors[source], f"{source}: cursor differs"
        assert after.pending[source] == [], f"{source}: deletions left pending"


@pytest.mark.slow
def test_a_sigkill_after_the_writer_sealed_a_segment_mid_write_loses_nothing(
    baseline: Baseline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that seals a segment every 8 points flushes its unpublished generation mid-write (to hand the
    segment's memory back); killed right after one such flush, the restarted ingest ends where a plain one does."""
    root = tmp_path / "workspace"
    shutil.copytree(baseline.root, root)  # the same files and mtimes; only the config differs
    config = root / "brief.toml"
    config.write_text(config.read_text(encoding="utf-8") + "[qdrant]\nsegment_points = 8\n", encoding="utf-8")
    home = tmp_path / "home"
    killed = brief_ingest(root, home, kill="index.sealed@2")
    assert killed.returncode == -signal.SIGKILL, f"no segment was sealed: {killed.stderr[-2000:]}"
    restarted = brief_ingest(root, home)
    assert restarted.returncode == 0, restarted.stderr[-2000:]
    after = snapshot(root, home, monkeypatch)
    for source in SOURCES:
        assert after.chunks[source] == baseline.first.chunks[source], f"{source}: the index differs"
        assert after.points[source] == len(after.chunks[source]), f"{source}: a chunk is stored twice"
        assert after.cached[source] == baseline.first.cached[source], f"{source}: raw cache differs"
        assert after.cursors[source] == baseline.first.cursors[source], f"{source}: cursor differs"


@pytest.mark.slow
def test_indexing_streams_embedding_starts_before_the_last_document_is_chunked(tmp_path: Path) -> None:
    """Memory is bounded by a window of documents, not the source: the order of the steps shows it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(70):  # more than one window (64 documents) and more than one embedding round (64 chunks)
        (docs / f"page{n:02d}.md").write_text(f"# Page {n}\n\nRunbook step {n}: check the queue.\n", encoding="utf-8")
    (tmp_path / "brief.toml").write_text(
        '[workspace]\nname = "stream"\n[sources.docs]\ntype = "files"\npath = "docs"\n[embedding]\nround_chunks = 64\n',
        encoding="utf-8",
    )
    traced = brief_ingest(tmp_path, tmp_path / "home", kill="trace")
    assert traced.returncode == 0, traced.stderr[-2000:]
    steps = [line.rsplit(" ", 1)[-1] for line in traced.stderr.splitlines() if line.startswith("kill point reached")]
    assert steps.count("chunk") == 70 and steps.count("embed") == 2 and steps.count("embed.queued") == 2
    last_chunk = len(steps) - 1 - steps[::-1].index("chunk")
    # The first round went to the embedding thread mid-source (`briefing.ingest.EmbedQueue`, at most two rounds
    # waiting), so it is embedded and upserted while the rest is chunked, not after the whole source.
    assert steps.index("embed.queued") < last_chunk
