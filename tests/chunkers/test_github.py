"""The GitHub issue chunker: golden output for fixture issues, then its splitting rules one by one."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from briefing.model import ChunkLimits, Document, Item
from chunkers.github import chunk_issue
from tests.golden_files import check_golden, to_json

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "github"
T0 = datetime(2026, 6, 2, 9, 0, tzinfo=UTC)


def words(text: str) -> int:
    return len(text.split())


def _document(data: dict[str, Any]) -> Document:
    items = [
        Item(
            ref=i["ref"],
            source_type="github",
            kind=i["kind"],
            text=i["text"],
            occurred_at=datetime.fromisoformat(i["occurred_at"]),
            author=i["author"],
            title=i["title"],
            url=i["url"],
            container=i["container"],
            thread=i["thread"],
            metadata=i["metadata"],
        )
        for i in data["items"]
    ]
    return Document(
        key=data["key"],
        kind=data["kind"],
        source_type="github",
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
        max_tokens=spec["max_tokens"], max_chars=spec["max_chars"], max_items=spec["max_items"], count_tokens=words
    )
    got = [to_json(c) for doc in data["documents"] for c in chunk_issue(_document(doc), limits=limits)]
    check_golden(request, GOLDEN / "expected.json", got)


def issue(comments: list[tuple[str, str]], *, body: str = "The payout job retries too fast.") -> Document:
    """An issue with one comment per (author, text), a minute apart."""
    common = {"source_type": "github", "title": "Payout retries", "container": "acme/api"}
    items = [Item(ref="github:acme/api#10", kind="issue", text=body, occurred_at=T0, author="ana", **common)]
    for n, (author, text) in enumerate(comments):
        items.append(
            Item(
                ref=f"github:acme/api#10/comment-{n}",
                kind="comment",
                text=text,
                occurred_at=T0 + timedelta(minutes=n + 1),
                author=author,
                metadata={"comment_id": n},
                **common,
            )
        )
    meta = {"repo": "acme/api", "number": 10, "is_pull_request": False, "state": "open", "author": "ana"}
    return Document(
        key="github:acme/api#10",
        kind="github_issue",
        source_type="github",
        title="acme/api#10: Payout retries",
        items=items,
        container="acme/api",
        metadata={**meta, "labels": ["bug"], "assignees": [], "created_at": T0.isoformat()},
    )


def unit(angle: float) -> list[float]:
    return [math.cos(angle), math.sin(angle)]


def test_discussion_splits_on_topic_change_only_when_vectors_are_given() -> None:
    doc = issue([("ben", "Pool exhausted at 14:12."), ("ana", "Add jitter."), ("cy", "Lunch on Friday?")])
    vectors = {
        "github:acme/api#10/comment-0": unit(0.0),
        "github:acme/api#10/comment-1": unit(0.2),  # close to the previous comment
        "github:acme/api#10/comment-2": unit(1.5),  # a different subject
    }
    limits = ChunkLimits(topic_threshold=0.5)

    chunks = chunk_issue(doc, limits=limits, vectors=vectors)
    with_vectors = [c for c in chunks if c.metadata["section"] == "discussion"]
    without = [c for c in chunk_issue(doc, limits=limits) if c.metadata["section"] == "discussion"]

    assert [c.refs for c in with_vectors] == [
        ["github:acme/api#10/comment-0", "github:acme/api#10/comment-1"],
        ["github:acme/api#10/comment-2"],
    ]
    assert len(without) == 1 and len(without[0].refs) == 3


def test_every_chunk_fits_the_limits_and_keeps_the_title_line() -> None:
    long_comment = " ".join(f"word{n}." for n in range(300))
    doc = issue([("ben", long_comment), *[("ana", f"Short note {n}.") for n in range(12)]], body=long_comment)
    limits = ChunkLimits(max_tokens=60, max_chars=500, max_items=5, count_tokens=words)

    chunks = chunk_issue(doc, limits=limits)

    assert all(words(c.text) <= 60 and len(c.text) <= 500 for c in chunks)
    assert chunks[0].text.startswith("acme/api#10: Payout retries (issue, open)")  # the state chunk says its state
    assert all(c.text.startswith("acme/api#10: Payout retries (issue") for c in chunks)
    assert all(not c.truncated for c in chunks)
    assert [c.chunk_id for c in chunks] == [f"github:acme/api#10::{n}" for n in range(len(chunks))]
    discussion = [c for c in chunks if c.metadata["section"] == "discussion"]
    assert all(len(set(c.refs)) <= 5 for c in discussion)
    # Every word of the long comment survives the cut, in order.
    pieces = [u.text for c in discussion for u in c.units if u.ref == "github:acme/api#10/comment-0"]
    assert len(pieces) > 1 and all(piece in c.text for c in discussion for piece in [u.text for u in c.units])
    assert " ".join(pieces).replace("[2026-06-02 09:01] ben: ", "").split() == long_comment.split()


def test_body_chunk_carries_the_attributes_and_the_ticket_refs() -> None:
    doc = issue([], body="Seen in PAY-42, fixed by acme/api#12 and #14.")
    doc.metadata.update(assignees=["ben"], milestone="June", closed_at="2026-06-05T10:00:00+00:00", state="closed")

    [before, chunk] = chunk_issue(doc, limits=ChunkLimits())

    # Open until it was closed, closed from then on: one state chunk per interval.
    assert before.text.splitlines()[0] == "acme/api#10: Payout retries (issue, open)" and "closed" not in before.text
    assert before.valid_until == chunk.written_at == datetime(2026, 6, 5, 10, 0, tzinfo=UTC)
    assert chunk.text.splitlines()[:3] == [
        "acme/api#10: Payout retries (issue, closed)",
        'Issue #10 "Payout retries" authored by ana, opened 2026-06-02, closed 2026-06-05 | state: closed | '
        "labels: bug | assignees: ben | milestone: June",
        "",
    ]
    assert chunk.tickets == ["github:acme/api#10", "PAY-42", "github:acme/api#12", "github:acme/api#14"]
    assert chunk.end == datetime(2026, 6, 5, 10, 0, tzinfo=UTC)  # closing counts in the chunk's time span
