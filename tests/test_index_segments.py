"""The embedded engine's build settings: segments bounded by `[qdrant] segment_points`, HNSW and quantisation
settings that reach the segments the optimizer builds (also in an index built before they were set), and a wrong
value that stops at the config with the key named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.embed import SparseVec
from briefing.index.edge import EdgeIndex
from briefing.model import Chunk, Unit
from briefing.settings import QdrantSettings

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DIM = 8
MODEL = "test-model"
runner = CliRunner()


def _chunks(start: int, n: int) -> list[Chunk]:
    out = []
    for i in range(start, start + n):
        at = T0 + timedelta(minutes=i)
        ref = f"slack:C0GEN:{at.timestamp():.6f}"
        text = f"message {i} about topic {i % 7}"
        out.append(
            Chunk(
                chunk_id=f"slack:general:{i}",
                doc_key=f"slack:C0GEN/{i}",
                source_type="slack",
                kind="slack_thread",
                title="#general",
                text=text,
                refs=[ref],
                start=at,
                end=at,
                authors=["Ada"],
                container="general",
                units=[Unit(ref=ref, text=text, author="Ada", at=at)],
                source_name="team-slack",
            )
        )
    return out


def _vectors(start: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(start)
    vecs = rng.normal(size=(n, DIM)).astype(np.float32)
    unit: np.ndarray = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    return unit


def _write(index: EdgeIndex, start: int, n: int) -> None:
    chunks = _chunks(start, n)
    sparse = [SparseVec(indices=[i % 97], values=[1.0]) for i in range(start, start + n)]
    index.upsert(chunks, _vectors(start, n), sparse, MODEL)


def _index(root: Path, **settings: Any) -> EdgeIndex:
    # An indexing threshold of 1 KB (32 8-d points) so that a test-sized write builds HNSW segments.
    q = QdrantSettings(path=root, **{"upsert_batch": 32, **settings})
    return EdgeIndex(root, q, indexing_threshold_kb=1)


def _segments(root: Path) -> list[dict[str, Any]]:
    gen = root / "generations" / (root / "CURRENT").read_text().strip()
    out = []
    for segment in sorted((gen / "segments").iterdir()):
        config = json.loads((segment / "segment.json").read_text())["config"]["vector_data"]["dense"]
        if config["index"]["type"] == "hnsw":
            out.append(config)
    return out


@pytest.mark.slow
def test_a_long_write_builds_one_bounded_segment_at_a_time_and_still_finds_every_point(tmp_path: Path) -> None:
    root = tmp_path / "index"
    index = _index(root, segment_points=64, optimize_min_points=1)
    index.ensure(DIM, MODEL)
    _write(index, 0, 320)
    index.close()
    # 320 points, 64 a segment: the optimizer ran inside the write five times; merges stop at one segment's size.
    assert len(_segments(root)) >= 5
    unbounded = tmp_path / "one"
    other = _index(unbounded, segment_points=0, optimize_min_points=1)
    other.ensure(DIM, MODEL)
    _write(other, 0, 320)
    other.close()
    assert len(_segments(unbounded)) < len(_segments(root))
    reader = _index(root)
    assert reader.count() == 320
    probe = _vectors(0, 320)
    view = reader.view(T0 + timedelta(days=1))
    for i in (0, 63, 64, 200, 319):  # each point is its own nearest neighbour, whichever segment holds it
        assert view.search_dense(probe[i], limit=1)[0].chunk.chunk_id == f"slack:general:{i}"
    reader.close()


@pytest.mark.slow
def test_build_settings_reach_the_segments_optimized_after_they_were_set(tmp_path: Path) -> None:
    root = tmp_path / "index"
    index = _index(root, optimize_min_points=1)
    index.ensure(DIM, MODEL)
    _write(index, 0, 100)
    index.close()
    assert [s["quantization_config"] for s in _segments(root)] == [None]
    # Quantisation and graph settings set later: the next writer's optimizer builds with them.
    later = _index(root, optimize_min_points=1, quantization="scalar", hnsw_m=8, hnsw_payload_m=0)
    _write(later, 100, 100)
    later.close()
    built = _segments(root)
    assert any(s["quantization_config"] is not None and s["index"]["options"]["m"] == 8 for s in built)
    reader = _index(root)
    assert reader.count() == 200
    hit = reader.view(T0 + timedelta(days=1)).search_dense(_vectors(100, 100)[5], limit=1)
    assert hit[0].chunk.chunk_id == "slack:general:105"
    reader.close()


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("segment_points = -5", "qdrant.segment_points"),
        ("hnsw_payload_m = 1000", "qdrant.hnsw_payload_m"),
        ('hnsw_full_scan_threshold_kb = "big"', "qdrant.hnsw_full_scan_threshold_kb"),
        ("hnsw_full_scan_threshold_kb = 0", "qdrant.hnsw_full_scan_threshold_kb"),
        ("quantization_oversampling = 0.5", "qdrant.quantization_oversampling"),
    ],
)
def test_a_wrong_build_setting_is_a_one_line_config_error(tmp_path: Path, line: str, key: str) -> None:
    config = tmp_path / "brief.toml"
    config.write_text(f"[workspace]\nname = 'w'\n\n[qdrant]\n{line}\n", encoding="utf-8")
    result = runner.invoke(app, ["--config", str(config), "sources"])
    assert result.exit_code == 2
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1 and key in lines[0] and str(config) in " ".join(result.output.split())


WRITER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    sys.path[:0] = [sys.argv[2]]
    from tests.test_index_segments import DIM, MODEL, _index, _write

    def anonymous_mb():
        return int(Path("/proc/self/status").read_text().split("RssAnon:")[1].split()[0]) / 1024

    index = _index(Path(sys.argv[1]), segment_points=2000, optimize_min_points=1, upsert_batch=256)
    index.ensure(DIM, MODEL)
    curve = []
    for start in range(0, 16000, 1000):
        _write(index, start, 1000)
        curve.append(anonymous_mb())
    index.close()
    print(json.dumps(curve))
    """
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the process's memory from /proc")
@pytest.mark.slow
def test_a_long_write_holds_one_segment_in_memory_not_every_point_it_wrote(tmp_path: Path) -> None:
    # The appendable segment keeps its payload indexes and sparse postings in memory (a few KB a point); each
    # sealed segment is flushed and its memory handed back, so 16,000 points cost what 2,000 do.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(tmp_path / "index"), str(ROOT)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    curve = json.loads(done.stdout.strip().splitlines()[-1])
    first, later = max(curve[:4]), max(curve[8:])
    # Kept: about 2.7 KB a point, so the last 8,000 points would add 20 MB or more; sealed: a few MB of noise.
    assert later - first < 8, curve
    reader = _index(tmp_path / "index")
    assert reader.count() == 16000
    assert len(_segments(tmp_path / "index")) >= 7  # every 2,000 points: a segment of their own
    reader.close()
