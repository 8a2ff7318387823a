"""Linked issues as of `now` and as their reader may see them.

A JIRA issue's links chunk names the issues it links to ("AEROGEAR-7 is blocked by AEROGEAR-42"), without the
status the crawl saw (a later state) and without their summaries (their own text, which a reader of the linking
issue may not be allowed to read). The linked issue's state comes from its own state chunk, fetched through the
reader's `View` when the links are followed: as of `now`, and only for a reader who may read it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from briefing.embed import SparseVec
from briefing.index import Filter, Index
from briefing.model import Chunk, ChunkLimits
from briefing.retrieve.links import follow_links
from briefing.retrieve.model import Hit
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings
from chunkers.jira import chunk_issue
from connectors.jira.normalise import issue_document
from tests.test_asof_state import _server_issue

ROOMY = ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000)
SECRET_SUMMARY = "Run SimplePush on OpenShift"  # the linked (restricted) issue's summary


def _linking_issue() -> dict[str, Any]:
    """A public issue blocked by AEROGEAR-42, as a Server search answer lists it: the link holds the other
    issue's summary and its status at crawl time (Closed)."""
    linked = {"key": "AEROGEAR-42", "fields": {"summary": SECRET_SUMMARY, "status": {"name": "Closed"}}}
    return {
        "id": "12000",
        "key": "AEROGEAR-7",
        "fields": {
            "summary": "Push release checklist",
            "project": {"key": "AEROGEAR"},
            "issuetype": {"name": "Task"},
            "status": {"name": "Open"},
            "created": "2013-07-01T10:00:00.000+0200",
            "updated": "2013-07-01T10:00:00.000+0200",
            "description": "Everything the push release waits on.",
            "issuelinks": [{"type": {"name": "Blocks", "inward": "is blocked by", "outward": "blocks"},
                            "inwardIssue": linked}],
            "comment": {"comments": []},
        },
    }  # fmt: skip


def _chunks() -> tuple[list[Chunk], list[Chunk]]:
    base = "https://issues.example.org"
    public = chunk_issue(issue_document(_linking_issue(), base_url=base), limits=ROOMY)
    restricted = chunk_issue(issue_document(_server_issue(), base_url=base), limits=ROOMY)
    for chunk in public:
        chunk.readers, chunk.source_name = ["team", "security"], "jira"
    for chunk in restricted:
        chunk.readers, chunk.source_name = ["security"], "jira"
    return public, restricted


def test_the_links_chunk_stores_neither_the_linked_summary_nor_its_crawl_time_status() -> None:
    public, _ = _chunks()
    links = next(c for c in public if c.metadata["section"] == "links")
    assert "AEROGEAR-7 is blocked by AEROGEAR-42" in links.text
    assert all(SECRET_SUMMARY not in c.text and "Closed" not in c.text for c in public)
    assert links.metadata["links"] == ["jira:AEROGEAR-42"]


def _sparse(text: str) -> SparseVec:
    terms = sorted({sum(map(ord, w)) % 997 for w in text.lower().split()})
    return SparseVec(indices=terms, values=[1.0] * len(terms))


@pytest.fixture(params=["edge", "local"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Index]:
    settings = Settings(
        workspace=WorkspaceSettings(name="links"),
        qdrant=QdrantSettings(path=tmp_path / "index", engine="local" if request.param == "local" else "edge"),
    )
    idx = Index.open(settings)
    public, restricted = _chunks()
    chunks = [*public, *restricted]
    idx.ensure(4, "m")
    idx.upsert(chunks, np.ones((len(chunks), 4), dtype=np.float32), [_sparse(c.text) for c in chunks], "m")
    idx.commit()
    yield idx
    idx.close()


def _followed(index: Index, now: str, readers: tuple[str, ...]) -> list[Chunk]:
    view = index.view(datetime.fromisoformat(now).astimezone(UTC), readers)
    [links] = [c for c in view.chunks(Filter(tickets=("AEROGEAR-7",))) if c.metadata["section"] == "links"]
    return [h.chunk for h in follow_links(view, [Hit(chunk=links, score=1.0)], None, Filter())][1:]


@pytest.mark.parametrize(
    ("now", "status"),
    [("2013-07-20T00:00:00+00:00", "Status: In Progress"), ("2013-08-01T00:00:00+00:00", "Status: Closed")],
)
@pytest.mark.slow
def test_the_linked_issue_shows_its_state_as_of_now_to_a_reader_who_may_read_it(
    index: Index, now: str, status: str
) -> None:
    linked = _followed(index, now, ("security",))
    assert linked and linked[0].ordinal == 0 and linked[0].doc_key == "jira:AEROGEAR-42"
    assert status in linked[0].text and SECRET_SUMMARY in linked[0].text


def test_a_reader_who_may_not_read_the_linked_issue_sees_nothing_of_it(index: Index) -> None:
    assert _followed(index, "2013-08-01T00:00:00+00:00", ("team",)) == []
