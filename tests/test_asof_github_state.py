"""State as of `now` for GitHub: a pull request asked about before and after its review and merge.

Over recorded GitHub responses (tests/fixtures/github_state: PyGithub's replay data), synced by the real connector
from the local GitHub server, normalised and chunked, then read through `briefing.asof` and through both index
engines and a `View`, where the superseded states are filtered out.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from briefing import registry
from briefing.asof import visible
from briefing.embed import SparseVec
from briefing.index import Filter, Index
from briefing.model import Chunk, ChunkLimits, Document
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings
from chunkers.github import chunk_issue
from connectors.github.client import make_client
from connectors.github.connector import GithubConnector
from connectors.http import HttpLayer
from tests.fakes.github_server import FakeGitHub, load, serve

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "github_state"
TOKEN = "ghp_test_token"
ROOMY = ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def _documents() -> dict[str, Document]:
    """The fixture repository synced by the GitHub connector from the local server, and normalised."""
    with serve(FakeGitHub(load(FIXTURES), token=TOKEN)) as fake:
        http = HttpLayer(
            source="gh", vendor="GitHub", base_url=fake.api, credentials="GITHUB_TOKEN", sleep=lambda s: None,
            clock=time.time,
        )  # fmt: skip
        conn = GithubConnector(
            make_client(fake.api, TOKEN, http=http, seconds_between_requests=0),
            repos=["PyGithub/PyGithub"],
            name="gh",
            http=http,
        )
        records = [r for batch in conn.fetch(conn.initial_cursor()) for r in batch.records]
        paths = {path for path, _ in fake.requests}
    assert "/api/v3/repos/PyGithub/PyGithub/issues/538/events" in paths
    normalised = conn.normalise(records)
    assert normalised.failures == []
    return {d.key: d for d in normalised.documents}


@pytest.fixture(scope="module")
def documents() -> dict[str, Document]:
    return _documents()


def _state_at(chunks: list[Chunk], now: datetime) -> str:
    """The text of the one state chunk a reader sees at `now`."""
    seen = [c for c in (visible(c, now) for c in chunks) if c is not None]
    states = [c for c in seen if c.ordinal == 0 and c.metadata.get("section") == "body"]
    assert len(states) == 1, f"{len(states)} state chunks visible at {now}"
    return states[0].text


def test_a_pull_request_before_and_after_its_review_and_merge(documents: dict[str, Document]) -> None:
    chunks = chunk_issue(documents["github:PyGithub/PyGithub#538"], limits=ROOMY)
    opened = _state_at(chunks, _at("2017-03-21T12:00:00+00:00"))
    assert "(pull request, open)" in opened and "review: none yet" in opened
    assert "merged" not in opened and "approved" not in opened and "2017-03-25" not in opened
    requested = _state_at(chunks, _at("2017-03-22T19:06:50+00:00"))
    assert "review: requested from jzelinskie" in requested and "approved" not in requested
    approved = _state_at(chunks, _at("2017-03-23T00:00:00+00:00"))
    assert "state: open" in approved and "review: approved by jzelinskie" in approved and "merged" not in approved
    merged = _state_at(chunks, _at("2017-03-26T00:00:00+00:00"))
    assert "(pull request, merged)" in merged and "merged 2017-03-25 by jzelinskie" in merged
    assert "approved by jzelinskie" in merged and "electrofelix" not in merged  # his review came in 2018
    today = _state_at(chunks, _at("2026-01-01T00:00:00+00:00"))
    assert "review: commented by electrofelix" in today and "review: commented by sfdye" in today


def test_no_other_chunk_names_a_state(documents: dict[str, Document]) -> None:
    """The discussion and body chunks say "(pull request)": the crawl-time state would be a later one."""
    chunks = chunk_issue(documents["github:PyGithub/PyGithub#538"], limits=ROOMY)
    others = [c for c in chunks if c.ordinal != 0]
    assert others and all("merged" not in c.text.splitlines()[0] for c in others)
    before = [visible(c, _at("2017-03-21T12:00:00+00:00")) for c in others]
    assert all(c is None or c.metadata["state"] == "open" for c in before)


def test_changes_after_the_merge_show_only_from_their_moment(documents: dict[str, Document]) -> None:
    """#31 was merged in 2012, assigned later that year and labeled in 2014 (its recorded events)."""
    chunks = chunk_issue(documents["github:PyGithub/PyGithub#31"], limits=ROOMY)
    before = _state_at(chunks, _at("2012-05-27T10:00:00+00:00"))
    assert "state: open" in before and "assignees" not in before and "merged" not in before
    merged = _state_at(chunks, _at("2012-06-01T00:00:00+00:00"))
    assert "merged 2012-05-27 by jacquev6" in merged and "assignees" not in merged
    assigned = _state_at(chunks, _at("2013-01-01T00:00:00+00:00"))
    assert "assignees: jacquev6" in assigned


def test_the_lifecycle_events_come_from_the_issue_events(documents: dict[str, Document]) -> None:
    meta = documents["github:PyGithub/PyGithub#538"].metadata
    assert [(e["event"], e["by"]) for e in meta["events"]] == [("opened", "allevin"), ("merged", "jzelinskie")]


def test_without_issue_events_the_merge_and_reviews_still_date_the_states(documents: dict[str, Document]) -> None:
    """An older raw cache (no `events`): GitHub's `merged_at` and the reviews' times still cut the intervals."""
    doc = documents["github:PyGithub/PyGithub#538"]
    meta = {**doc.metadata, "timeline": [], "events_fetched": False}
    chunks = chunk_issue(Document(**{**doc.__dict__, "metadata": meta}), limits=ROOMY)
    assert "review: none yet" in _state_at(chunks, _at("2017-03-21T12:00:00+00:00"))
    assert "merged" not in _state_at(chunks, _at("2017-03-24T00:00:00+00:00"))
    assert "merged 2017-03-25 by jzelinskie" in _state_at(chunks, _at("2017-03-26T00:00:00+00:00"))


def test_the_descriptor_declares_the_history_of_its_items() -> None:
    assert {"state", "review"} <= set(registry.descriptor("github").history)


# --- through the index and a View ---------------------------------------------------------------------------------

DIM = 4


def _sparse(text: str) -> SparseVec:
    terms = sorted({sum(map(ord, w)) % 997 for w in text.lower().split()})
    return SparseVec(indices=terms, values=[1.0] * len(terms))


@pytest.fixture(params=["edge", "local"])
def index(request: pytest.FixtureRequest, tmp_path: Path, documents: dict[str, Document]) -> Iterator[Index]:
    settings = Settings(
        workspace=WorkspaceSettings(name="states"),
        qdrant=QdrantSettings(path=tmp_path / "index", engine="local" if request.param == "local" else "edge"),
    )
    idx = Index.open(settings)
    chunks = chunk_issue(documents["github:PyGithub/PyGithub#538"], limits=ROOMY)
    for chunk in chunks:
        chunk.source_name = "gh"
    idx.ensure(DIM, "m")
    idx.upsert(chunks, np.ones((len(chunks), DIM), dtype=np.float32), [_sparse(c.text) for c in chunks], "m")
    idx.commit()
    yield idx
    idx.close()


@pytest.mark.parametrize(
    ("now", "state", "review"),
    [
        ("2017-03-21T00:00:00+00:00", "open", "review: none yet"),
        ("2017-03-24T00:00:00+00:00", "open", "review: approved by jzelinskie"),
        ("2017-03-26T00:00:00+00:00", "merged", "review: approved by jzelinskie"),
    ],
)
@pytest.mark.slow
def test_a_view_reads_the_pull_request_as_of_its_now(index: Index, now: str, state: str, review: str) -> None:
    view = index.view(_at(now))
    key = "github:PyGithub/PyGithub#538"
    found = [c for c in view.chunks(Filter(tickets=(key,))) if c.ordinal == 0]
    assert [c.metadata["state"] for c in found] == [state]
    assert review in found[0].text
    hits = view.search_sparse(_sparse("merged by jzelinskie"), limit=20, flt=Filter(tickets=(key,)))
    assert all("merged 2017" not in h.chunk.text for h in hits) or state == "merged"
