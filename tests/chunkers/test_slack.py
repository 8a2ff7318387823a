"""The Slack chunker: golden output for a small workspace, and the splitting rules one by one."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from briefing.model import ChunkLimits, Document, Item
from chunkers.slack import chunk_messages, find_tickets
from tests.golden_files import check_golden, to_json

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "slack"
T0 = datetime(2026, 5, 6, 14, 5, tzinfo=UTC)


def words(text: str) -> int:
    return len(text.split())


def _document(data: dict[str, Any]) -> Document:
    items = [
        Item(
            ref=i["ref"],
            source_type="slack",
            kind="message",
            text=i["text"],
            occurred_at=datetime.fromisoformat(i["occurred_at"]),
            author=i["author"],
            url=i["url"],
            container=data["container"],
            thread=i["thread"],
            metadata=i["metadata"],
        )
        for i in data["items"]
    ]
    return Document(
        key=data["key"],
        kind=data["kind"],
        source_type="slack",
        title=data["title"],
        items=items,
        url=data["url"],
        container=data["container"],
        metadata=data["metadata"],
    )


def test_golden(request: pytest.FixtureRequest) -> None:
    data = json.loads((GOLDEN / "input.json").read_text(encoding="utf-8"))
    spec = data["limits"]
    limits = ChunkLimits(
        max_tokens=spec["max_tokens"],
        max_chars=spec["max_chars"],
        max_items=spec["max_items"],
        gap_seconds=spec["gap_seconds"],
        count_tokens=words,
    )
    got = [to_json(c) for doc in data["documents"] for c in chunk_messages(_document(doc), limits=limits)]
    check_golden(request, GOLDEN / "expected.json", got)


def _item(n: int, text: str, minutes: float, author: str = "Alice Chen") -> Item:
    return Item(
        ref=f"slack:C01PLAT:17780763{n:02d}.000100",
        source_type="slack",
        kind="message",
        text=text,
        occurred_at=T0 + timedelta(minutes=minutes),
        author=author,
        container="platform-eng",
    )


def _doc(items: list[Item], kind: str = "slack_channel", **meta: Any) -> Document:
    return Document(
        key="slack:C01PLAT" if kind == "slack_channel" else "slack:C01PLAT/1778076300.000100",
        kind=kind,
        source_type="slack",
        title="#platform-eng",
        items=items,
        container="platform-eng",
        metadata={"channel_id": "C01PLAT", "thread_ts": None, **meta},
    )


def test_lines_keep_speaker_and_time_under_a_header() -> None:
    items = [_item(1, "Cutover at 10:00?\nOr later?", 0), _item(2, "10:00 works", 3, "Bob Okafor")]
    thread = _doc(items, "slack_thread", root_author="Alice Chen")
    [chunk] = chunk_messages(thread, limits=ChunkLimits())
    assert chunk.text.splitlines() == [
        "#platform-eng, thread started by Alice Chen",
        "[2026-05-06 14:05 UTC] Alice Chen: Cutover at 10:00? Or later?",
        "[2026-05-06 14:08 UTC] Bob Okafor: 10:00 works",
    ]
    assert chunk.chunk_id == "slack:C01PLAT/1778076300.000100::0"
    assert chunk.authors == ["Alice Chen", "Bob Okafor"]
    assert chunk.start == T0 and chunk.end == T0 + timedelta(minutes=3)
    assert [u.ref for u in chunk.units] == chunk.refs == [i.ref for i in items]
    assert chunk.units[1].author == "Bob Okafor"
    [channel_chunk] = chunk_messages(_doc(items), limits=ChunkLimits())
    assert channel_chunk.text.splitlines()[0] == "#platform-eng"


def test_long_silence_starts_a_new_chunk() -> None:
    items = [_item(1, "morning", 0), _item(2, "still here", 60), _item(3, "evening", 60 + 5 * 60)]
    chunks = chunk_messages(_doc(items), limits=ChunkLimits(gap_seconds=4 * 3600))
    assert [c.refs for c in chunks] == [[items[0].ref, items[1].ref], [items[2].ref]]
    assert chunks[1].chunk_id == "slack:C01PLAT::1"


def test_size_limits_start_new_chunks() -> None:
    items = [_item(n, f"message number {n} about the rollout", n) for n in range(7)]
    by_items = chunk_messages(_doc(items), limits=ChunkLimits(max_items=3))
    assert [len(c.refs) for c in by_items] == [3, 3, 1]
    by_chars = chunk_messages(_doc(items), limits=ChunkLimits(max_chars=150))
    assert all(len(c.text) <= 150 for c in by_chars)
    assert len(by_chars) > 1


def test_token_limit_is_respected_on_the_whole_chunk_text() -> None:
    items = [_item(n, "alpha beta gamma delta epsilon " * 3, n) for n in range(10)]
    chunks = chunk_messages(_doc(items), limits=ChunkLimits(max_tokens=50, count_tokens=words))
    assert len(chunks) > 1
    assert all(words(c.text) <= 50 for c in chunks)
    assert [r for c in chunks for r in c.refs] == [i.ref for i in items]


def test_topic_shift_splits_only_after_two_messages() -> None:
    east, north = [1.0, 0.0], [0.0, 1.0]
    items = [_item(n, f"m{n}", n) for n in range(5)]
    vectors = {items[0].ref: east, items[1].ref: east, items[2].ref: north, items[3].ref: north, items[4].ref: east}
    limits = ChunkLimits(topic_threshold=0.5)
    chunks = chunk_messages(_doc(items), limits=limits, vectors=vectors)
    # 0-1 on one topic; 2 shifts; 3 agrees with 2; 4 shifts but its chunk holds two messages only then.
    assert [c.refs for c in chunks] == [[items[0].ref, items[1].ref], [items[2].ref, items[3].ref], [items[4].ref]]

    lone = {items[0].ref: east, items[1].ref: north, items[2].ref: north}
    assert len(chunk_messages(_doc(items[:3]), limits=limits, vectors=lone)) == 1
    assert len(chunk_messages(_doc(items), limits=limits, vectors=None)) == 1


def test_long_message_is_split_at_sentences_and_keeps_its_ref() -> None:
    sentences = [f"Sentence {n} explains one more step of the migration plan." for n in range(30)]
    long = _item(1, " ".join(sentences), 0)
    items = [_item(0, "before", -1), long, _item(2, "after", 1)]
    limits = ChunkLimits(max_tokens=60, max_chars=2000, count_tokens=words)
    chunks = chunk_messages(_doc(items), limits=limits)

    counts = Counter(r for c in chunks for r in c.refs)
    assert counts[items[0].ref] == 1 and counts[items[2].ref] == 1
    assert counts[long.ref] >= 3
    pieces = [c for c in chunks if c.refs == [long.ref]]
    assert all(words(c.text) <= 60 and not c.truncated for c in pieces)
    assert all(c.text.splitlines()[1].startswith("[2026-05-06 14:05 UTC] Alice Chen: Sentence") for c in pieces)
    # Nothing is lost: the pieces put back together are the message.
    assert " ".join(c.units[0].text for c in pieces) == long.text
    assert [c.chunk_id for c in chunks] == [f"slack:C01PLAT::{n}" for n in range(len(chunks))]


def test_unsplittable_message_is_cut_and_marked_truncated() -> None:
    blob = "x" * 3000
    chunks = chunk_messages(_doc([_item(1, blob, 0)]), limits=ChunkLimits(max_chars=500))
    assert len(chunks) > 1
    assert all(c.truncated and len(c.text) <= 500 for c in chunks)
    assert "".join(c.units[0].text for c in chunks) == blob


def test_every_ref_lands_in_exactly_one_chunk() -> None:
    items = [_item(n, ("word " * (n * 7 % 40)) + f"message {n}", n * 13) for n in range(40)]
    chunks = chunk_messages(_doc(items), limits=ChunkLimits(max_tokens=80, max_items=5, gap_seconds=3600))
    assert Counter(r for c in chunks for r in c.refs) == Counter(i.ref for i in items)
    assert all(c.metadata == {"channel_id": "C01PLAT", "thread_ts": None} for c in chunks)


def test_ticket_keys_and_pull_requests() -> None:
    text = (
        "PLAT-42 blocks PAY-7; see PR #17 and https://github.com/acme/api/pull/311, issue #99 is unrelated, "
        "UTF-8 and SHA-256 are not tickets, pr #18 too"
    )
    assert find_tickets(text) == ["PLAT-42", "PAY-7", "github:acme/api#311", "#17", "#18"]
