"""The embedded engine's generations: cheap snapshots for writers, crash-safe publishing, damage reported as such.

A writer's new generation hard-links the indexed segments' data files of the published one; these tests check,
against the real engine, that no write goes through such a link (the published generation's bytes stay as they
were), that a writer killed at any point leaves the published generation readable, and that a damaged
generation stops a command with exit 11 and the repair instead of answering from part of the index.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from briefing.embed import SparseVec
from briefing.errors import StateError
from briefing.index import Filter, Index
from briefing.index.edge import EdgeIndex
from briefing.model import Chunk, Unit
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
DIM = 8
MODEL = "test-model"


def _chunk(n: int, text: str | None = None) -> Chunk:
    at = T0 + timedelta(hours=n)
    ref = f"slack:C0OPS:{at.timestamp():.6f}"
    body = text or f"message {n} about the deploy of service {n % 13}"
    return Chunk(
        chunk_id=f"slack:ops:{n}",
        doc_key=f"slack:C0OPS/{n // 3}",
        source_type="slack",
        kind="slack_thread",
        title="#ops",
        text=body,
        refs=[ref],
        start=at,
        end=at + timedelta(minutes=5),
        authors=[f"Person {n % 7}"],
        container="ops",
        units=[Unit(ref=ref, text=body, author=f"Person {n % 7}", at=at)],
        source_name="team-slack",
    )


def _vectors(chunks: list[Chunk]) -> tuple[np.ndarray, list[SparseVec]]:
    dense = np.stack([np.random.default_rng(abs(hash(c.text)) % (1 << 32)).standard_normal(DIM) for c in chunks])
    dense = (dense / np.linalg.norm(dense, axis=1, keepdims=True)).astype(np.float32)
    sparse = []
    for c in chunks:
        terms = sorted({sum(map(ord, w)) % 997 for w in c.text.split()})
        sparse.append(SparseVec(indices=terms, values=[1.0] * len(terms)))
    return dense, sparse


def _write(index: Index, chunks: list[Chunk]) -> None:
    index.ensure(DIM, MODEL)
    dense, sparse = _vectors(chunks)
    index.upsert(chunks, dense, sparse, MODEL)


def _edge(root: Path) -> EdgeIndex:
    # A 1 KB indexing threshold: the optimizer builds indexed (HNSW) segments from a few hundred 8-d points.
    return EdgeIndex(root, QdrantSettings(path=root, optimize_min_points=0), indexing_threshold_kb=1)


def _hashes(gen: Path) -> dict[str, str]:
    """Every file's content, except the two the engine itself rewrites when it loads a shard."""
    return {
        str(f.relative_to(gen)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(gen.rglob("*"))
        if f.is_file() and f.name not in ("edge_config.json", "tracker_journal.dat")
    }


def _indexed(segment: Path) -> bool:
    """A segment the optimizer built (its id tracker is the immutable kind)."""
    return any(f.name.startswith("id_tracker.") for f in segment.iterdir())


def _built(root: Path, n: int = 400) -> Path:
    """An index of `n` points, optimized into an indexed segment, published; its generation folder."""
    with _edge(root) as index:
        _write(index, [_chunk(i) for i in range(n)])
        assert index.optimize()
    gen = _edge(root).published()
    assert gen is not None
    assert any(_indexed(seg) for seg in (gen / "segments").iterdir()), "no indexed segment"
    return gen


EDITED = "message {} was edited: the deploy moved to friday"


def _texts(index: Index, *ns: int) -> list[str]:
    return [c.text for c in index.fetch(refs=[_chunk(n).refs[0] for n in ns])]


@pytest.mark.parametrize("then_optimize", [False, True], ids=["write", "write-and-optimize"])
@pytest.mark.slow
def test_a_small_write_links_the_indexed_data_and_never_writes_through_the_link(
    tmp_path: Path, then_optimize: bool
) -> None:
    import qdrant_edge as qe

    root = tmp_path / "index"
    old = _built(root)
    reader = _edge(root)  # holds the published generation open (and locked) throughout
    assert reader.count() == 400
    before = _hashes(old)

    # Updates and deletes of points that live in the indexed segment, and new points.
    with _edge(root) as writer:
        _write(writer, [_chunk(i, EDITED.format(i)) for i in range(40)])
        _write(writer, [_chunk(i) for i in range(400, 420)])
        writer.delete_ids([_chunk(i).chunk_id for i in range(100, 110)])
        new = writer._writer_gen
        assert new is not None
        linked = {f.name for f in new.rglob("*") if f.is_file() and f.stat().st_nlink > 1}
        assert "matrix.dat" in linked  # the vectors were linked, not copied
        if then_optimize:  # the optimizer rebuilds segments in the writer's generation (what a big ingest does)
            writer.optimize()

    # What was published is byte for byte as it was, and still answers as it did.
    assert _hashes(old) == before
    shard = qe.EdgeShard.load(str(old))
    assert shard.count(qe.CountRequest(exact=True)) == 400
    shard.close()
    with _edge(root) as fresh:
        assert fresh.count() == 410
        assert _texts(fresh, 5, 105, 410) == [EDITED.format(5), _chunk(410).text]
    reader.close()


@pytest.mark.slow
def test_the_linked_generation_survives_the_one_it_came_from(tmp_path: Path) -> None:
    root = tmp_path / "index"
    old = _built(root)
    with _edge(root) as writer:
        _write(writer, [_chunk(i, EDITED.format(i)) for i in range(3)])
    assert not old.exists()  # nobody reads it any more: collected
    with _edge(root) as reader:
        assert reader.count() == 400
        assert _texts(reader, 1, 399) == [EDITED.format(1), _chunk(399).text]
        hits = reader.search_dense(_vectors([_chunk(399)])[0][0], limit=1, flt=Filter())
        assert [h.chunk.chunk_id for h in hits] == [_chunk(399).chunk_id]


KILLED = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    sys.path[:0] = [sys.argv[3]]
    from tests.test_index_edge_damage import EDITED, _chunk, _edge, _write
    import briefing.index.edge_store as edge

    where = sys.argv[2]
    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    if where == "publish":
        edge.os.replace = die  # CURRENT is about to be replaced
    if where == "manifest":
        edge.manifest = die  # the engine flushed and closed, the manifest is not written yet
    writer = _edge(Path(sys.argv[1]))
    _write(writer, [_chunk(i, EDITED.format(i)) for i in range(50)])
    writer.delete_ids([_chunk(i).chunk_id for i in range(200, 250)])
    if where == "write":
        die()
    writer.close()
    """
)


@pytest.mark.parametrize("where", ["write", "manifest", "publish"])
@pytest.mark.slow
def test_a_writer_killed_at_any_point_leaves_the_published_index_readable(tmp_path: Path, where: str) -> None:
    root = tmp_path / "index"
    old = _built(root)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(root), where, str(ROOT)], env=env, capture_output=True, text=True
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert _edge(root).published() == old
    with _edge(root) as reader:
        assert reader.count() == 400
        assert _texts(reader, 1, 201) == [_chunk(1).text, _chunk(201).text]
    # The next writer is not blocked by the dead one, and removes what it left.
    with _edge(root) as writer:
        _write(writer, [_chunk(1, EDITED.format(1))])
    gens = [g for g in (root / "generations").iterdir() if g.is_dir()]
    assert gens == [_edge(root).published()]
    with _edge(root) as reader:
        assert _texts(reader, 1) == [EDITED.format(1)]


def _truncate(gen: Path) -> None:
    """Cut the file holding the most data (the vectors) in half, as a full disk or an interrupted copy would."""
    files = [f for f in gen.rglob("*") if f.is_file() and f.name != "brief-index.json"]
    target = max(files, key=lambda f: f.stat().st_blocks)
    with target.open("r+b") as handle:
        handle.truncate(target.stat().st_size // 2)


def _lose_a_segment(gen: Path) -> None:
    import shutil

    segment = next(s for s in (gen / "segments").iterdir() if _indexed(s))
    shutil.rmtree(segment)


def _garble_meta(gen: Path) -> None:
    (gen / "brief-index.json").write_text("{not json", encoding="utf-8")


def _lose_the_generation(gen: Path) -> None:
    import shutil

    shutil.rmtree(gen)


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (_truncate, r"has \d+ bytes, \d+ were written"),
        (_lose_a_segment, r"is missing"),
        (_garble_meta, r"brief-index\.json is unreadable"),
        (_lose_the_generation, r"published generation is missing"),
    ],
)
def test_a_damaged_generation_is_reported_with_its_repair(
    tmp_path: Path, damage: Callable[[Path], None], why: str
) -> None:
    root = tmp_path / "index"
    damage(_built(root))
    with _edge(root) as reader, pytest.raises(StateError, match=why) as caught:
        reader.count()
    assert caught.value.exit_code == 11
    assert "damaged index" in str(caught.value) and "brief reindex --full" in str(caught.value)
    # A writer does not build on it either.
    with _edge(root) as writer, pytest.raises(StateError, match="brief reindex --full"):
        _write(writer, [_chunk(1)])


def test_reindex_full_moves_a_damaged_index_aside_and_rebuilds(tmp_path: Path) -> None:
    settings = Settings(
        workspace=WorkspaceSettings(name="dmg"), qdrant=QdrantSettings(path=tmp_path / "index", optimize_min_points=0)
    )
    with Index.open(settings) as index:
        _write(index, [_chunk(i) for i in range(30)])
    gen = EdgeIndex(tmp_path / "index", settings.qdrant).published()
    assert gen is not None
    _truncate(gen)
    aside = Index.retire_damaged(settings)
    assert aside is not None and aside.is_dir() and aside.name.startswith("index.damaged-")
    with Index.open(settings) as index:  # what `brief reindex --full` then does
        index.drop()
        _write(index, [_chunk(i) for i in range(10)])
    with Index.open(settings) as index:
        assert index.count() == 10
    assert Index.retire_damaged(settings) is None  # a sound index stays where it is
