"""As of `now`, down to the unit: chunks cut to what was written by then, before they are scored or answered."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from briefing.asof import visible
from briefing.embed import Embedder
from briefing.index import Filter, Index
from briefing.model import ChunkLimits, Document, Item, Unit
from briefing.retrieve import Retriever, SearchQuery
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings
from chunkers.slack import chunk_messages
from tests.ask.conftest import _chunk

T0 = datetime(2026, 5, 6, 14, 0, tzinfo=UTC)
# A whole week in one chunk, so one chunk holds the thread and its later replies.
LIMITS = ChunkLimits(gap_seconds=7 * 24 * 3600)


def _message(n: int, text: str, minutes: float, author: str) -> Item:
    return Item(
        ref=f"slack:C01PLAT:17780760{n:02d}.000100",
        source_type="slack",
        kind="message",
        text=text,
        occurred_at=T0 + timedelta(minutes=minutes),
        author=author,
        container="platform-eng",
        thread="1778076001.000100",
        url=f"https://slack.test/{n}",
    )


def _thread(items: list[Item]) -> Document:
    return Document(
        key="slack:C01PLAT/1778076001.000100",
        kind="slack_thread",
        source_type="slack",
        title="#platform-eng",
        items=items,
        container="platform-eng",
        metadata={"channel_id": "C01PLAT", "thread_ts": "1778076001.000100", "root_author": "Alice Chen"},
    )


MESSAGES = [
    _message(1, "Is the cutover still on for Thursday? See PLAT-7.", 0, "Alice Chen"),
    _message(2, "Yes, Thursday 10:00 works for me.", 5, "Bob Okafor"),
    _message(3, "Update: we moved it to Friday because of PLAT-9, ask Carol.", 60 * 30, "Carol Ng"),
    _message(4, "Friday it is; the zebracorn dashboard is ready.", 60 * 31, "Dan Ito"),
]


def test_a_thread_with_later_replies_is_cut_to_what_existed_at_now() -> None:
    [stored] = chunk_messages(_thread(MESSAGES), limits=LIMITS)
    now = T0 + timedelta(hours=1)
    cut = visible(stored, now)
    # Exactly the chunk the chunker makes from the thread as it was at `now`, under the same id.
    [then] = chunk_messages(_thread(MESSAGES[:2]), limits=LIMITS)
    assert cut is not None
    assert cut.chunk_id == stored.chunk_id
    assert cut.text == then.text
    assert cut.refs == then.refs == [MESSAGES[0].ref, MESSAGES[1].ref]
    assert cut.end == MESSAGES[1].occurred_at
    assert cut.authors == ["Alice Chen", "Bob Okafor"]
    assert cut.tickets == ["PLAT-7"]  # PLAT-9 is only named in a later reply
    assert [u.ref for u in cut.units] == cut.refs
    assert "zebracorn" not in cut.text and "Friday" not in cut.text
    assert visible(stored, T0 - timedelta(seconds=1)) is None  # the thread did not exist yet
    assert visible(stored, MESSAGES[-1].occurred_at) is stored  # nothing to cut


def test_units_that_cannot_be_located_are_rebuilt_from_the_units() -> None:
    [stored] = chunk_messages(_thread(MESSAGES), limits=LIMITS)
    stored.units[1] = Unit(stored.units[1].ref, "text that is not in the chunk", "Bob Okafor", MESSAGES[1].occurred_at)
    cut = visible(stored, T0 + timedelta(hours=1))
    assert cut is not None
    lines = cut.text.splitlines()
    assert lines[0] == stored.text.splitlines()[0]  # the header stays
    assert lines[1:] == [
        "[2026-05-06 14:00 UTC] Alice Chen: Is the cutover still on for Thursday? See PLAT-7.",
        "[2026-05-06 14:05 UTC] Bob Okafor: text that is not in the chunk",
    ]


@pytest.fixture(scope="module")
def thread_index(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Index]:
    settings = Settings(
        workspace=WorkspaceSettings(name="asof"),
        qdrant=QdrantSettings(path=Path(tmp_path_factory.mktemp("asof-qdrant"))),
    )
    [thread] = chunk_messages(_thread(MESSAGES), limits=LIMITS)
    other = _chunk(
        "file:notes/dashboards.md::0",
        source="files",
        title="Dashboards",
        container="notes",
        units=[Unit("file:notes/dashboards.md", "The latency dashboard lives in Grafana.", None, T0)],
    )
    index = Index.open(settings)
    chunks = [thread, other]
    index.ensure(embedder.dim, embedder.name)
    texts = [c.text for c in chunks]
    index.upsert(chunks, embedder.dense(texts), embedder.sparse(texts), embedder.name)
    yield index
    index.close()


@pytest.mark.slow
def test_a_cut_chunk_is_scored_on_its_visible_text(thread_index: Index, embedder: Embedder) -> None:
    retriever = Retriever(Settings().retrieval, thread_index, embedder)
    query = "zebracorn dashboard"
    later = retriever.retrieve(SearchQuery(query, now=T0 + timedelta(days=2), k=5))
    full = next(h for h in later.hits if h.chunk.doc_key.startswith("slack:"))
    assert full.sparse_rank == 1 and not full.cut

    then = retriever.retrieve(SearchQuery(query, now=T0 + timedelta(hours=1), k=5))
    hit = next(h for h in then.hits if h.chunk.doc_key.startswith("slack:"))
    assert hit.cut and "zebracorn" not in hit.chunk.text
    assert hit.sparse_rank is None  # its only match was in a reply written later
    assert hit.chunk.refs == [MESSAGES[0].ref, MESSAGES[1].ref]
    assert hit.fused < full.fused


def test_index_reads_see_the_index_as_of_now(thread_index: Index) -> None:
    now = T0 + timedelta(hours=1)
    [chunk] = thread_index.fetch(refs=[MESSAGES[3].ref], within=Filter(as_of=T0 + timedelta(days=2)))
    assert chunk.refs[-1] == MESSAGES[3].ref
    # By a later reply's ref, nothing: that reply did not exist at `now`.
    assert thread_index.fetch(refs=[MESSAGES[3].ref], within=Filter(as_of=now)) == []
    [early] = thread_index.fetch(refs=[MESSAGES[0].ref], within=Filter(as_of=now), whole_documents=True)
    assert early.refs == [MESSAGES[0].ref, MESSAGES[1].ref]
    assert thread_index.chunks(Filter(as_of=T0 - timedelta(minutes=1))) == []
    # A window that starts after the visible part ends does not match a chunk cut to before it.
    assert thread_index.chunks(Filter(as_of=now, start=T0 + timedelta(minutes=30), source_types=("slack",))) == []
    assert thread_index.chunks(Filter(doc_ids=("C01PLAT/1778076001.000100",)))[0].chunk_id == chunk.chunk_id
