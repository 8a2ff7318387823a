"""A Slack export day file of any size is read and cached a bounded number of messages at a time, and the cache is
normalised one channel at a time (issue 16: memory bounded by streaming)."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path

import pytest

from briefing.ingest import normalised_parts
from briefing.model import StreamingNormaliser
from briefing.store import RawStore
from connectors.slack.export import SlackExportConnector, SlackExportCursor
from tests.harness import SourceRunner

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "slack_export"
BASE = 1_778_000_000


def _key(n: int) -> str:
    return f"C01PLAT/{BASE + n}.{n:06d}"


@pytest.fixture
def export(tmp_path: Path) -> Path:
    target = tmp_path / "export"
    shutil.copytree(FIXTURES / "acme", target)
    return target


def _day(count: int, *, words: int = 12) -> list[dict[str, object]]:
    text = " ".join(["rollout"] * words)
    return [
        {"type": "message", "user": "U01ALICE", "ts": f"{BASE + n}.{n:06d}", "text": f"{text} {n}"}
        for n in range(count)
    ]


def _write_day(export: Path, messages: list[dict[str, object]], name: str = "2026-05-20.json") -> Path:
    path = export / "platform-eng" / name
    path.write_text(json.dumps(messages), encoding="utf-8")
    return path


def test_a_big_day_file_is_cached_in_bounded_batches_and_the_cursor_moves_only_after_it(export: Path) -> None:
    _write_day(export, _day(2_500))
    connector = SlackExportConnector(export, channels=["platform-eng"], batch_records=1_000)
    batches = list(connector.fetch(connector.initial_cursor()))

    mine = {_key(n) for n in range(2_500)}
    big = [b for b in batches if any(r.key in mine for r in b.records)]
    assert len(big) >= 3  # 2,500 messages of one day file, 1,000 at a time
    assert all(len(b.records) <= 1_000 for b in batches)
    # Only the channel's last batch moves the cursor, and by then the big file is in it, with every key.
    assert [b.cursor is None for b in big] == [True] * (len(big) - 1) + [False]
    cursor = big[-1].cursor
    assert isinstance(cursor, SlackExportCursor)
    assert len(cursor.files["platform-eng/2026-05-20.json"].keys) == 2_500
    cached = {r.key for b in batches for r in b.records}
    assert mine <= cached


def test_a_run_ended_inside_a_big_day_file_rereads_it_and_loses_nothing(export: Path) -> None:
    _write_day(export, _day(2_500))
    runner = SourceRunner(SlackExportConnector(export, channels=["platform-eng"], batch_records=1_000))
    runner.collect(stop_after=2)  # the meta batch and the channel's first 1,000 messages, then the run ends
    assert 0 < len({_key(n) for n in range(2_500)} & set(runner.cache)) <= 1_000
    assert "platform-eng/2026-05-20.json" not in (runner.saved_cursor or {}).get("files", {})
    runner.collect()
    assert {_key(n) for n in range(2_500)} <= set(runner.cache)
    again = runner.collect()
    assert not any(b.records for b in again)  # the file is now known: nothing re-read


def test_reading_a_day_file_holds_one_batch_not_the_file(export: Path) -> None:
    path = _write_day(export, _day(3_000, words=200))
    size = path.stat().st_size
    assert size > 3_000_000
    connector = SlackExportConnector(export, channels=["platform-eng"], batch_records=100)
    tracemalloc.start()
    try:
        seen = 0
        for batch in connector.fetch(connector.initial_cursor()):
            seen += len(batch.records)
            del batch
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen >= 3_000
    # Reading the file whole costs its bytes plus its parsed messages (more than twice its size); a stream holds
    # a read buffer, one batch of 100 messages and the file's message keys (for its cursor).
    assert peak < size / 4, (peak, size)


def test_a_broken_day_file_is_one_failure_and_caches_none_of_its_messages(export: Path) -> None:
    good = json.dumps(_day(50))
    (export / "platform-eng" / "2026-05-20.json").write_text(good[:-200], encoding="utf-8")  # cut off mid-message
    (export / "platform-eng" / "2026-05-21.json").write_text(
        '[{"type": "message", "user": "U01ALICE", "ts": "1778900000.000100", "text": "ok", "score": NaN}]',
        encoding="utf-8",
    )
    connector = SlackExportConnector(export, channels=["platform-eng"], batch_records=10)
    batches = list(connector.fetch(connector.initial_cursor()))
    failures = {f.key: f.reason for b in batches for f in b.failures}
    keys = {r.key for b in batches for r in b.records}
    assert failures["platform-eng/2026-05-20.json"].startswith("unreadable day file: not valid JSON")
    assert "\n" not in failures["platform-eng/2026-05-20.json"]
    assert not {_key(n) for n in range(50)} & keys
    # JSON only Python reads (NaN) is still read, as before.
    assert "C01PLAT/1778900000.000100" in keys


def test_the_export_is_normalised_one_channel_at_a_time_with_the_same_documents(tmp_path: Path, export: Path) -> None:
    _write_day(export, _day(300))
    connector = SlackExportConnector(export)
    runner = SourceRunner(connector)
    runner.collect()
    store = RawStore(tmp_path / "raw")
    try:
        store.put_many(runner.cache.values())
        whole = connector.normalise(list(store.records()))
        assert isinstance(connector, StreamingNormaliser)
        parts = list(normalised_parts(connector, store))
    finally:
        store.close()

    assert len(parts) == 1 + 3  # users and channels, then each of the three channels
    assert parts[0].people and not parts[0].documents
    for part in parts[1:]:
        assert len({d.metadata["channel_id"] for d in part.documents}) == 1
    streamed = [d for part in parts for d in part.documents]
    assert [(d.key, d.title, d.url, d.readers, [i.ref for i in d.items]) for d in streamed] == [
        (d.key, d.title, d.url, d.readers, [i.ref for i in d.items]) for d in whole.documents
    ]
    assert [p.name for p in parts[0].people] == [p.name for p in whole.people]
    assert sorted(f.key for part in parts for f in part.failures) == sorted(f.key for f in whole.failures)
