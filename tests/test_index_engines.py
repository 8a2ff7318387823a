"""The one index interface over both engines: what a reader sees, what a writer changes, and when."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from briefing.embed import SparseVec
from briefing.errors import ConfigError, IndexError_
from briefing.index import PAYLOAD_INDEXES, ClientIndex, Filter, Index
from briefing.index.edge import EdgeIndex
from briefing.model import Chunk, Unit
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings, load_settings

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DIM = 8
MODEL = "test-model"


def _chunk(n: int, text: str, *, days: float = 0, container: str = "general", tickets: tuple[str, ...] = ()) -> Chunk:
    at = T0 + timedelta(days=days)
    ref = f"slack:C0GEN:{at.timestamp():.6f}"
    return Chunk(
        chunk_id=f"slack:general:{n}",
        doc_key=f"slack:C0GEN/{n}",
        source_type="slack",
        kind="slack_thread",
        title="#general",
        text=text,
        refs=[ref],
        start=at,
        end=at + timedelta(minutes=5),
        authors=["Ada"],
        container=container,
        tickets=list(tickets),
        units=[Unit(ref=ref, text=text, author="Ada", at=at)],
        source_name="team-slack",
    )


def _dense(n: int) -> np.ndarray:
    vec = np.zeros(DIM, dtype=np.float32)
    vec[n % DIM] = 1.0
    vec[(n + 1) % DIM] = 0.2
    return vec / np.linalg.norm(vec)


def _sparse(text: str) -> SparseVec:
    terms = sorted({sum(map(ord, w)) % 997 for w in text.lower().split()})
    return SparseVec(indices=terms, values=[1.0] * len(terms))


CHUNKS = [
    _chunk(0, "the migration cutover moves to thursday", days=0, tickets=("PLAT-7",)),
    _chunk(1, "lunch menu for the offsite", days=1, container="random"),
    _chunk(2, "rollback plan for the migration is approved", days=2),
    _chunk(3, "dashboards live in grafana now", days=30),
]


def _write(index: Index, chunks: list[Chunk]) -> None:
    index.ensure(DIM, MODEL)
    index.upsert(chunks, np.vstack([_dense(int(c.chunk_id.rsplit(":", 1)[1])) for c in chunks]),
                 [_sparse(c.text) for c in chunks], MODEL)  # fmt: skip


def _settings(tmp_path: Path, engine: str) -> Settings:
    return Settings(
        workspace=WorkspaceSettings(name="engines"),
        qdrant=QdrantSettings(path=tmp_path / f"index-{engine}", engine="local" if engine == "local" else "edge"),
    )


@pytest.fixture(params=["edge", "local"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Index]:
    idx = Index.open(_settings(tmp_path, request.param))
    _write(idx, CHUNKS)
    idx.commit()
    yield idx
    idx.close()


@pytest.mark.slow
def test_the_settings_pick_the_engine(tmp_path: Path) -> None:
    with Index.open(_settings(tmp_path, "edge")) as edge, Index.open(_settings(tmp_path, "local")) as local:
        assert isinstance(edge, EdgeIndex) and isinstance(local, ClientIndex)
    assert Settings().qdrant.engine == "edge"


def test_search_finds_by_meaning_and_by_words_as_of_now(index: Index) -> None:
    now = T0 + timedelta(days=3)
    dense = index.view(now).search_dense(_dense(2), limit=2)
    assert dense[0].chunk.chunk_id == "slack:general:2"
    words = index.view(now).search_sparse(_sparse("migration rollback"), limit=10)
    assert words[0].chunk.chunk_id == "slack:general:2"
    assert {h.chunk.chunk_id for h in words} == {"slack:general:0", "slack:general:2"}
    # Written 30 days in: not there yet as of day 3, whatever the query.
    assert all(h.chunk.chunk_id != "slack:general:3" for h in index.view(now).search_dense(_dense(3), limit=4))
    assert index.view(T0 + timedelta(days=31)).search_dense(_dense(3), limit=1)[0].chunk.title == "#general"


def test_filters_fetch_and_count(index: Index) -> None:
    assert index.count() == 4
    assert index.count(Filter(containers=("random",))) == 1
    [ticket] = index.fetch(tickets=["PLAT-7"])
    assert ticket.chunk_id == "slack:general:0" and ticket.units[0].author == "Ada"
    assert [c.chunk_id for c in index.fetch(refs=[CHUNKS[2].refs[0]])] == ["slack:general:2"]
    window = Filter(start=T0 + timedelta(days=1), end=T0 + timedelta(days=2, hours=1))
    assert sorted(c.chunk_id for c in index.chunks(window)) == ["slack:general:1", "slack:general:2"]
    stored = {r.payload["chunk_id"]: r.payload["hash"] for r in index.scroll(fields=["chunk_id", "hash"])}
    assert len(stored) == 4 and all(len(h) == 32 for h in stored.values())


def test_rewriting_is_idempotent_and_deletes_remove(index: Index) -> None:
    _write(index, CHUNKS)
    index.delete_ids(["slack:general:1"])
    index.commit()
    assert index.count() == 3
    assert index.fetch(refs=[CHUNKS[1].refs[0]]) == []


@pytest.mark.slow
def test_a_reader_keeps_its_snapshot_while_a_writer_works(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "edge")
    with Index.open(settings) as first:
        _write(first, CHUNKS[:2])
    reader = Index.open(settings)
    assert reader.count() == 2
    with Index.open(settings) as writer:
        _write(writer, CHUNKS[2:])
        writer.delete_ids(["slack:general:0"])
        assert writer.count() == 3  # the writer reads its own writes
        assert reader.count() == 2  # unpublished: nobody else sees them
        with Index.open(settings) as during:
            assert during.count() == 2
    # Published: new readers see it, and the open reader moves to it at its next read.
    with Index.open(settings) as after:
        assert after.count() == 3
    assert reader.count() == 3 and reader.fetch(refs=[CHUNKS[0].refs[0]]) == []
    generations = tmp_path / "index-edge" / "generations"
    with Index.open(settings) as cleaner:  # a writer removes generations nobody reads, not the one `reader` has
        cleaner.delete_ids(["slack:general:1"])
    assert len([p for p in generations.iterdir() if p.is_dir()]) == 2
    assert reader.count() == 2
    reader.close()
    with Index.open(settings) as cleaner:
        cleaner.delete_ids(["slack:general:2"])
    assert len([p for p in generations.iterdir() if p.is_dir()]) == 1


def test_a_full_rebuild_stays_invisible_until_it_is_complete(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "edge")
    with Index.open(settings) as first:
        _write(first, CHUNKS)
    with Index.open(settings) as rebuild:
        rebuild.drop()
        assert rebuild.count() == 0
        with Index.open(settings) as asking:
            assert asking.count() == 4
        _write(rebuild, CHUNKS[:1])
    with Index.open(settings) as after:
        assert after.count() == 1


class _Clock:
    """A clock that moves only when the code under test pauses."""

    def __init__(self) -> None:
        self.now = 0.0
        self.pauses = 0

    def __call__(self) -> float:
        return self.now

    def pause(self, seconds: float) -> None:
        self.pauses += 1
        self.now += seconds


def test_a_second_writer_waits_two_seconds_then_says_why(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "edge")
    root = tmp_path / "index-edge"
    with Index.open(settings) as first:
        _write(first, CHUNKS[:1])
    writer = Index.open(settings)
    writer.delete_ids(["slack:general:0"])  # holds the writer lock until it commits
    clock = _Clock()
    second = EdgeIndex(root, settings.qdrant, clock=clock, pause=clock.pause)
    assert second.count() == 1  # reading is never blocked
    with pytest.raises(IndexError_) as caught:
        second.delete_ids(["slack:general:0"])
    assert caught.value.exit_code == 9
    assert "another brief ingest or reindex is writing" in str(caught.value) and "waited 2 s" in str(caught.value)
    assert clock.now == pytest.approx(2.0, abs=0.06) and clock.pauses >= 2
    writer.close()
    second.delete_ids(["slack:general:0"])  # free now: no wait at all
    second.close()
    with Index.open(settings) as after:
        assert after.count() == 0


def test_an_old_local_mode_index_asks_for_reindex_and_an_ingest_migrates_it(tmp_path: Path) -> None:
    settings = Settings(workspace=WorkspaceSettings(name="old"), home=tmp_path / "home")
    legacy = Settings(workspace=settings.workspace, home=settings.home, qdrant=QdrantSettings(engine="local"))
    with Index.open(legacy) as old:
        _write(old, CHUNKS)
    with Index.open(settings) as reader, pytest.raises(IndexError_, match=r"brief reindex --full"):
        reader.count()
    with Index.open(settings) as writer:  # what `brief reindex --full` (or the next ingest) does
        writer.drop()
        _write(writer, CHUNKS[:2])
    with Index.open(settings) as reader:
        assert reader.count() == 2


def test_a_dimension_change_asks_for_a_full_reindex(index: Index) -> None:
    with pytest.raises(IndexError_, match=r"8-d vectors .* gives 16-d: run `brief reindex --full`"):
        index.ensure(16, "bigger-model")


def test_an_index_written_before_doc_id_gets_it_on_the_next_ensure(tmp_path: Path) -> None:
    with Index.open(_settings(tmp_path, "local")) as index:
        assert isinstance(index, ClientIndex)
        _write(index, CHUNKS)
        by_id = Filter(doc_ids=("C0GEN/2",))
        index.client.delete_payload(index.collection, keys=["doc_id"], points=[r.id for r in index.scroll()])
        assert index.chunks(by_id) == []
        index.ensure(DIM, MODEL)
        assert [c.chunk_id for c in index.chunks(by_id)] == ["slack:general:2"]


def test_bad_index_settings_name_the_key(tmp_path: Path) -> None:
    config = tmp_path / "brief.toml"
    config.write_text('[qdrant]\nengine = "sqlite"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"qdrant\.engine"):
        load_settings(config)
    config.write_text("[qdrant]\nshards = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"qdrant\.shards"):
        load_settings(config)
    config.write_text("[qdrant]\nhnsw_ef = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"qdrant\.hnsw_ef"):
        load_settings(config)


@pytest.mark.parametrize("quantization", ["scalar", "binary"])
def test_hnsw_and_quantisation_settings_build_a_working_collection(tmp_path: Path, quantization: str) -> None:
    for engine in ("edge", "local"):
        q = QdrantSettings(
            path=tmp_path / f"{engine}-{quantization}",
            engine="local" if engine == "local" else "edge",
            hnsw_m=8,
            hnsw_ef_construct=32,
            hnsw_ef=16,  # the search effort goes with every dense query
            quantization=quantization,  # type: ignore[arg-type]
            upsert_batch=2,  # several upsert requests for four chunks
        )
        with Index.open(Settings(workspace=WorkspaceSettings(name="q"), qdrant=q)) as index:
            _write(index, CHUNKS)
            assert index.count() == 4
            hits = index.view(T0 + timedelta(days=40)).search_dense(_dense(2), limit=1)
            assert hits[0].chunk.chunk_id == "slack:general:2"
            if isinstance(index, EdgeIndex):  # brute force (the recall benchmark's reference) finds the same
                index.exact = True
                exact = index.view(T0 + timedelta(days=40)).search_dense(_dense(2), limit=1)
                assert [h.chunk.chunk_id for h in exact] == ["slack:general:2"]


SERVER = os.environ.get("QDRANT_TEST_URL")


@pytest.mark.skipif(not SERVER, reason="set QDRANT_TEST_URL=http://localhost:6333 to run against a Qdrant server")
def test_a_server_collection_has_its_payload_indexes_and_cluster_settings_up_front() -> None:
    settings = Settings(
        workspace=WorkspaceSettings(name=f"test-{os.getpid()}"),
        qdrant=QdrantSettings(url=SERVER, shards=2, replicas=1, hnsw_m=16, quantization="scalar"),
    )
    with Index.open(settings) as index:
        assert isinstance(index, ClientIndex) and index.server
        index.drop()
        try:
            _write(index, CHUNKS)
            info = index.client.get_collection(index.collection)
            assert set(PAYLOAD_INDEXES) <= set(info.payload_schema)
            assert info.config.params.shard_number == 2
            assert info.config.quantization_config is not None
            now = T0 + timedelta(days=3)
            assert index.view(now).search_sparse(_sparse("migration rollback"), limit=1)[0].chunk.chunk_id == (
                "slack:general:2"
            )
        finally:
            index.drop()


def test_the_optimizer_runs_once_enough_was_written_not_per_write(tmp_path: Path) -> None:
    q = QdrantSettings(path=tmp_path / "opt", optimize_min_points=6)
    settings = Settings(workspace=WorkspaceSettings(name="opt"), qdrant=q)
    runs: list[int] = []

    def since() -> int:
        meta = json.loads(
            (tmp_path / "opt" / "generations" / _current(tmp_path / "opt") / "brief-index.json").read_text()
        )
        return int(meta["since_optimize"])

    for _ in range(3):
        with Index.open(settings) as index:
            _write(index, CHUNKS[:3])  # 3 points written per ingest
        runs.append(since())
    # 3, then 6 -> optimized at that publish (back to 0), then 3 again.
    assert runs == [3, 0, 3]
    with Index.open(settings) as index:
        assert index.count() == 3


def _current(root: Path) -> str:
    return (root / "CURRENT").read_text().strip()
