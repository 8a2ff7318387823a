"""The JIRA issue chunker: golden output for the fixture issues, and each splitting rule on its own."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from briefing.model import Chunk, ChunkLimits, Document, RawRecord
from chunkers.jira import chunk_issue
from connectors.jira.normalise import issue_document, normalise_issues
from tests.golden_files import check_golden, document_from_json, to_json

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "jira"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "jira"
NAMES = {"customfield_10020": "Sprint", "customfield_10014": "Epic Link"}
BASE = "https://acme.atlassian.net"
ROOMY = ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000)


def words(text: str) -> int:
    return len(text.split())


def fixture_documents() -> list[Document]:
    issues = json.loads((FIXTURES / "issues.json").read_text(encoding="utf-8"))
    records = [RawRecord(i["key"], "jira_issue", {**i, "names": NAMES}) for i in issues]
    return normalise_issues(records, base_url=BASE).documents


def test_golden(request: pytest.FixtureRequest) -> None:
    data = json.loads((GOLDEN / "input.json").read_text(encoding="utf-8"))
    spec = data["limits"]
    limits = ChunkLimits(max_tokens=spec["max_tokens"], max_chars=spec["max_chars"], max_items=spec["max_items"])
    got = [to_json(c) for doc in data["documents"] for c in chunk_issue(document_from_json(doc), limits=limits)]
    check_golden(request, GOLDEN / "expected.json", got)


def test_golden_input_matches_what_the_connector_normalises() -> None:
    """The golden input is the fixture issues as normalised today, so the two cannot drift apart silently."""
    data = json.loads((GOLDEN / "input.json").read_text(encoding="utf-8"))
    assert data["documents"] == [to_json(d) for d in fixture_documents()]


def docs() -> dict[str, Document]:
    return {d.key: d for d in fixture_documents()}


def current(chunks: list[Chunk]) -> list[Chunk]:
    """The chunks a reader sees today: earlier states of the state chunk are superseded."""
    return [c for c in chunks if c.valid_until is None]


def test_sections_come_in_order_with_deterministic_ids() -> None:
    chunks = current(chunk_issue(docs()["jira:ACME-1"], limits=ROOMY))

    assert [c.chunk_id for c in chunks] == [f"jira:ACME-1::{n}" for n in range(4)]
    assert [c.metadata["section"] for c in chunks] == ["body", "links", "history", "comments"]
    body, links, history, comments = chunks
    assert body.text.startswith("ACME-1: Export statements as CSV\n\nType: Story | Status: In Review | Priority: High")
    assert "Sprint: ACME Sprint 7 | Epic: ACME-10" in body.text and "## Goal" in body.text
    assert links.text.splitlines()[1:] == [
        # The linked issues' summaries and states are read from them as of `now` (tests/test_linked_state.py).
        "ACME-1 has parent ACME-10 (Epic)",
        "ACME-1 blocks ACME-2",
    ]
    assert history.text.splitlines()[1] == "2026-05-04 Alice Chen changed status: To Do -> In Progress"
    assert comments.refs == [f"jira:ACME-1#comment-{n}" for n in (30001, 30002, 30003)]
    assert comments.url == f"{BASE}/browse/ACME-1?focusedCommentId=30001"
    assert all(c.tickets[0] == "ACME-1" for c in chunks)
    assert links.tickets == ["ACME-1", "ACME-10", "ACME-2"]
    assert "UTF-8" not in comments.tickets  # "UTF-8 without BOM" is not a ticket
    assert body.authors == ["Carol Park", "Alice Chen"]  # reporter and assignee
    assert current(chunk_issue(docs()["jira:ACME-1"], limits=ROOMY)) == chunks


def test_no_links_chunk_without_relationships() -> None:
    chunks = current(chunk_issue(docs()["jira:ACME-3"], limits=ROOMY))
    assert [c.metadata["section"] for c in chunks] == ["body"]


def test_history_holds_twenty_changes_per_chunk() -> None:
    history = [c for c in chunk_issue(docs()["jira:ACME-4"], limits=ROOMY) if c.metadata["section"] == "history"]

    assert [len(c.units) for c in history] == [20, 20, 5]
    assert all(u.ref.startswith("jira:ACME-4#change-") for c in history for u in c.units)
    assert history[0].refs[0] == "jira:ACME-4#change-41000" and history[-1].refs[-1] == "jira:ACME-4#change-41044"
    # Status at the end of each run of changes, replayed from the changelog.
    assert [c.metadata["status_at"] for c in history] == ["In Review", "To Do", "In Progress"]


def _thread(texts: list[str], *, status_change_after: int | None = None) -> Document:
    """An issue with one comment per text, an hour apart, optionally moving to Done after comment n."""
    t0 = datetime(2026, 5, 11, 9, 0, tzinfo=UTC)
    comments = [
        {
            "id": str(500 + n),
            "author": {"accountId": f"acc-{n % 2}", "displayName": ["Alice Chen", "Bob Diaz"][n % 2]},
            "body": text,
            "created": (t0 + timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%S.000+0000"),
        }
        for n, text in enumerate(texts)
    ]
    histories = []
    if status_change_after is not None:
        when = t0 + timedelta(hours=status_change_after, minutes=30)
        histories.append(
            {
                "id": "900",
                "author": {"accountId": "acc-0", "displayName": "Alice Chen"},
                "created": when.strftime("%Y-%m-%dT%H:%M:%S.000+0000"),
                "items": [{"field": "status", "fromString": "In Progress", "toString": "Done"}],
            }
        )
    data = {
        "key": "OPS-7",
        "fields": {
            "summary": "Flaky deploys",
            "status": {"name": "Done" if histories else "In Progress"},
            "project": {"key": "OPS"},
            "created": "2026-05-11T08:00:00.000+0000",
            "updated": "2026-05-12T08:00:00.000+0000",
            "comment": {"comments": comments},
        },
        "changelog": {"histories": histories},
    }
    return issue_document(data, base_url=BASE)


def _comment_chunks(doc: Document, limits: ChunkLimits, vectors: dict[str, list[float]] | None = None) -> list[Chunk]:
    return [c for c in chunk_issue(doc, limits=limits, vectors=vectors) if c.metadata["section"] == "comments"]


def test_comments_split_where_the_topic_changes() -> None:
    doc = _thread(["deploy fails on step 3", "yes, the cache key", "lunch on friday?", "pizza works"])
    refs = [i.ref for i in doc.items if i.kind == "comment"]
    vectors = {refs[0]: [1.0, 0.0], refs[1]: [0.98, 0.2], refs[2]: [0.0, 1.0], refs[3]: [0.1, 0.995]}
    limits = ChunkLimits(max_tokens=10_000, max_chars=100_000, max_items=50, topic_threshold=0.5)

    split = _comment_chunks(doc, limits, vectors)
    whole = _comment_chunks(doc, limits, None)

    assert [c.refs for c in split] == [refs[:2], refs[2:]]
    assert [c.refs for c in whole] == [refs]


def test_comments_are_bounded_by_count_and_characters() -> None:
    doc = _thread([f"comment number {n} about the deploy" for n in range(7)])
    by_count = _comment_chunks(doc, ChunkLimits(max_tokens=10_000, max_chars=100_000, max_items=3))
    by_chars = _comment_chunks(doc, ChunkLimits(max_tokens=10_000, max_chars=200, max_items=50))

    assert [len(c.units) for c in by_count] == [3, 3, 1]
    assert all(len(c.text) <= 200 for c in by_chars) and len(by_chars) > 1
    assert [r for c in by_chars for r in c.refs] == [i.ref for i in doc.items if i.kind == "comment"]


def test_every_chunk_fits_the_token_limit_and_a_long_comment_is_split() -> None:
    long_text = " ".join(f"word{n}" for n in range(200)) + "."
    doc = _thread(["short one", long_text, "after"])
    limits = ChunkLimits(max_tokens=40, max_chars=100_000, max_items=50, count_tokens=words)

    chunks = chunk_issue(doc, limits=limits)

    assert all(words(c.text) <= 40 for c in chunks)
    assert not any(c.truncated for c in chunks)
    long_ref = "jira:OPS-7#comment-501"
    pieces = [u for c in chunks for u in c.units if u.ref == long_ref]
    assert len(pieces) > 1 and " ".join(p.text for p in pieces) == long_text
    lines = [line for c in chunks for line in c.text.splitlines() if "word" in line]
    assert all(line.startswith("2026-05-11 Bob Diaz: ") for line in lines)


def test_status_at_follows_the_changelog() -> None:
    doc = _thread(["still broken", "fixed by the cache change", "confirmed, closing"], status_change_after=1)
    limits = ChunkLimits(max_tokens=10_000, max_chars=100_000, max_items=1)

    chunks = _comment_chunks(doc, limits)

    assert [c.metadata["status_at"] for c in chunks] == ["In Progress", "In Progress", "Done"]
    assert all(c.tickets == ["OPS-7"] for c in chunks)
    assert [c.authors for c in chunks] == [["Alice Chen"], ["Bob Diaz"], ["Alice Chen"]]
