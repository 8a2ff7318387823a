"""Where a writer's memory goes inside the embedded engine, and what hands it back (a script, not a timed test).

    nice -n 10 python bench/edge_memory.py --points 8000 --variant none --variant no-indexes --variant no-sparse \\
        --variant no-text --variant bare --variant steps
    nice -n 10 python bench/edge_memory.py --points 16000 --variant trim --variant flush --variant flush-trim \\
        --variant reopen --variant seal-keep --variant seal

Each variant runs in a fresh process: one qdrant-edge shard with the product's configuration (`EdgeIndex._config`,
the payload indexes of `briefing.index.PAYLOAD_INDEXES`), `--points` points written in requests of 256, shaped like
the product's (a 384-d unit vector, a sparse vector of 40 terms, a payload with a 1,000-character text, four refs,
two authors and the time fields), and the process's anonymous memory (`RssAnon`) after every 1,000 points.

- none: nothing else. no-indexes / no-sparse / no-text / bare: without the payload indexes, the sparse vector, the
  payload text, or all three (which structure holds the memory).
- trim: glibc's `malloc_trim(0)` every 1,000 points (fragmentation, or live data?). flush: the shard flushed every
  1,000 points. flush-trim: both. reopen: flushed, closed and loaded again every 4,000 points.
- seal-keep: the optimizer every 4,000 points (what `[qdrant] segment_points` did before segment sealing). seal: the
  optimizer, a flush and `malloc_trim` every 4,000 points (what the writer does now).
- steps: after the write, the memory after each of trim, optimize, trim, flush, trim.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]


def anonymous_mb() -> int:
    return int(Path("/proc/self/status").read_text().split("RssAnon:")[1].split()[0]) // 1024


def step(variant: str, points: int, work: Path) -> dict[str, Any]:
    import qdrant_edge as qe

    from briefing.index import DENSE, PAYLOAD_INDEXES, SPARSE
    from briefing.index.edge import EdgeIndex
    from briefing.settings import QdrantSettings

    trim = ctypes.CDLL(None).malloc_trim
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    index = EdgeIndex(work, QdrantSettings())
    gen = work / "shard"
    shard = qe.EdgeShard.create(str(gen), index._config(384))
    if variant not in ("no-indexes", "bare"):
        for field, kind in PAYLOAD_INDEXES.items():
            memory = index._memory()
            params = qe.KeywordIndexParams(memory=memory) if kind == "keyword" else qe.FloatIndexParams(memory=memory)
            shard.update(qe.UpdateOperation.create_field_index(field, params))
    rng = np.random.default_rng(0)
    curve: list[tuple[int, int]] = []
    started = time.perf_counter()
    for start in range(0, points, 256):
        batch = []
        for i in range(start, min(points, start + 256)):
            dense = rng.standard_normal(384).astype(np.float32)
            vector: dict[str, Any] = {DENSE: (dense / np.linalg.norm(dense)).tolist()}
            if variant not in ("no-sparse", "bare"):
                terms = sorted(set(rng.integers(0, 2**31, 40).tolist()))
                vector[SPARSE] = qe.SparseVector(indices=terms, values=[1.0] * len(terms))
            text = "" if variant in ("no-text", "bare") else "word " * 200
            payload = {
                "text": text,
                "chunk_id": f"c{i}",
                "doc_key": f"slack:C{i % 300}",
                "doc_id": f"C{i % 300}",
                "source_type": "slack",
                "source_name": "slack",
                "container": f"#ch{i % 20}",
                "authors": [f"U{i % 50}", f"U{i % 7}"],
                "tickets": [],
                "refs": [f"slack:C{i % 300}/{i}.{j}" for j in range(4)],
                "start_ts": float(i),
                "end_ts": float(i + 1),
                "written_ts": float(i),
                "readers": ["*"],
            }
            batch.append(qe.Point(id=i, vector=vector, payload=payload))
        shard.update(qe.UpdateOperation.upsert_points(batch))
        done = min(points, start + 256)
        if done // 1000 == (done - 256) // 1000:
            continue
        if variant in ("trim", "flush-trim"):
            if variant == "flush-trim":
                shard.flush()
            trim(0)
        elif variant == "flush":
            shard.flush()
        elif done // 4000 > (done - 256) // 4000:
            if variant == "reopen":
                shard.flush()
                shard.close()
                shard = qe.EdgeShard.load(str(gen))
            elif variant in ("seal", "seal-keep"):
                shard.optimize()
                if variant == "seal":
                    shard.flush()
                    trim(0)
        curve.append((done, anonymous_mb()))
    out: dict[str, Any] = {"variant": variant, "points": points, "seconds": round(time.perf_counter() - started, 1)}
    out["anon_mb_by_points_written"] = curve
    if variant == "steps":
        steps = [("written", anonymous_mb())]
        for name, action in (
            ("trim", lambda: trim(0)),
            ("optimize", shard.optimize),
            ("trim", lambda: trim(0)),
            ("flush", shard.flush),
            ("trim", lambda: trim(0)),
        ):
            action()
            steps.append((name, anonymous_mb()))
        out["steps"] = steps
    shard.flush()
    shard.close()
    trim(0)
    out["closed_mb"] = anonymous_mb()
    shutil.rmtree(work, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=8000)
    parser.add_argument("--variant", action="append", default=None)
    parser.add_argument("--work", type=Path, default=Path("/tmp/brief-edge-memory"))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--step", default=None, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.step:
        print(json.dumps(step(ns.step, ns.points, ns.work)))
        return
    runs = []
    for variant in ns.variant or ["none"]:
        args = [sys.executable, __file__, "--step", variant, "--points", str(ns.points), "--work", str(ns.work)]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(runs[-1]), flush=True)
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps({"runs": runs}, indent=2) + "\n")


if __name__ == "__main__":
    main()
