"""Top-10 agreement of the embedded engine's HNSW search with exact search, per `[qdrant] hnsw_ef` (a script).

    nice -n 10 python bench/real_vectors.py --out /tmp/real.npy
    nice -n 10 python bench/recall_bench.py --vectors /tmp/real.npy --size 100000 --work /tmp/recall-100k --keep
    python bench/recall_bench.py --vectors /tmp/real.npy --size 100000 --work /tmp/recall-100k --reuse

Builds (or, with --reuse, opens) an optimized index of `--size` points grown from real embeddings
(`bench/synthetic.py`, real mode), then asks held-out real vectors what `briefing.retrieve` asks (the as-of filter,
50 dense candidates): the exact top 10 (the engine's brute force, `exact=True`) against HNSW's at each ef, with
latency p50/p95, and the product's fused top 10 (dense + BM25, RRF) with exact against HNSW dense candidates.
`--vectors random` uses the random vectors of `bench/index_bench.py` instead.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from bench.index_bench import MODEL, du_mb, settings_for  # noqa: E402
from bench.synthetic import Workspace  # noqa: E402
from briefing.index import Filter, Index  # noqa: E402
from briefing.index.edge import EdgeIndex  # noqa: E402
from briefing.settings import HNSW_EF, QdrantSettings  # noqa: E402

CANDIDATES = 50  # what briefing.retrieve asks each engine for


def pct(xs: list[float], p: int) -> float:
    return round(statistics.quantiles(xs, n=100)[p - 1], 1) if len(xs) > 2 else round(max(xs), 1)


def build(ws: Workspace, path: Path) -> dict[str, Any]:
    shutil.rmtree(path, ignore_errors=True)
    t = time.perf_counter()
    with Index.open(settings_for("edge", path)) as index:
        index.ensure(384, MODEL)
        for chunks, dense, sparse in ws.batches(1000):
            index.upsert(chunks, dense, sparse, MODEL)
        built = time.perf_counter() - t
        t = time.perf_counter()
        assert isinstance(index, EdgeIndex)
        index.optimize()
        optimized = time.perf_counter() - t
    return {"build_s": round(built, 1), "optimize_s": round(optimized, 1), "disk_mb": round(du_mb(path), 1)}


def fused(dense: list[str], sparse: list[str]) -> list[str]:
    scores: dict[str, float] = {}
    for hits in (dense, sparse):
        for rank, chunk_id in enumerate(hits, 1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1 / (60 + rank)
    return sorted(scores, key=lambda c: -scores[c])[:10]


def measure(
    ws: Workspace, path: Path, efs: list[int], n: int, overrides: dict[str, str] | None = None
) -> dict[str, Any]:
    index = Index.open(settings_for("edge", path))
    assert isinstance(index, EdgeIndex)
    if overrides:  # the reader's [qdrant] query settings (e.g. quantization, quantization_oversampling)
        checked = QdrantSettings(**overrides)
        index.qdrant = index.qdrant.model_copy(update={k: getattr(checked, k) for k in overrides})
    points = index.count()
    queries = ws.queries(n)
    flts = [Filter(as_of=now) for _, _, now in queries]
    index.exact = True
    exact = [
        [h.chunk.chunk_id for h in index.search_dense(q, limit=CANDIDATES, flt=f)]
        for (q, _, _), f in zip(queries, flts, strict=True)
    ]
    index.exact = False
    sparse = [
        [h.chunk.chunk_id for h in index.search_sparse(s, limit=CANDIDATES, flt=f)]
        for (_, s, _), f in zip(queries, flts, strict=True)
    ]
    rows = []
    for ef in efs:
        index.qdrant = index.qdrant.model_copy(update={"hnsw_ef": ef})
        index.search_dense(queries[0][0], limit=CANDIDATES, flt=flts[0])  # warm
        times, dense_agree, fused_agree = [], [], []
        for i, ((q, _, _), f) in enumerate(zip(queries, flts, strict=True)):
            t = time.perf_counter()
            got = [h.chunk.chunk_id for h in index.search_dense(q, limit=CANDIDATES, flt=f)]
            times.append((time.perf_counter() - t) * 1000)
            dense_agree.append(len(set(got[:10]) & set(exact[i][:10])) / max(1, min(10, len(exact[i]))))
            fused_agree.append(len(set(fused(got, sparse[i])) & set(fused(exact[i], sparse[i]))) / 10)
        rows.append(
            {
                "hnsw_ef": ef,
                "dense_top10_vs_exact": round(statistics.mean(dense_agree), 3),
                "dense_top10_min": round(min(dense_agree), 2),
                "fused_top10_vs_exact": round(statistics.mean(fused_agree), 3),
                "dense_p50_ms": pct(times, 50),
                "dense_p95_ms": pct(times, 95),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    # A narrow filter (one source, a 30-day window: a few % of the points) is where the graph's per-field payload
    # links (`[qdrant] hnsw_payload_m`) matter; the engine's planner searches small candidate sets exactly.
    index.qdrant = index.qdrant.model_copy(update={"hnsw_ef": HNSW_EF})
    narrow = [
        replace(f, source_types=("slack",), start=now - timedelta(days=30), end=now)
        for f, (_, _, now) in zip(flts, queries, strict=True)
    ]
    index.exact = True
    narrow_exact = [
        [h.chunk.chunk_id for h in index.search_dense(q, limit=10, flt=f)]
        for (q, _, _), f in zip(queries, narrow, strict=True)
    ]
    index.exact = False
    narrow_agree, narrow_times = [], []
    for i, ((q, _, _), f) in enumerate(zip(queries, narrow, strict=True)):
        t = time.perf_counter()
        got = [h.chunk.chunk_id for h in index.search_dense(q, limit=10, flt=f)]
        narrow_times.append((time.perf_counter() - t) * 1000)
        if not narrow_exact[i]:  # the window holds nothing at all: finding nothing is right
            narrow_agree.append(0.0 if got else 1.0)
            continue
        narrow_agree.append(len(set(got) & set(narrow_exact[i])) / min(10, len(narrow_exact[i])))
    index.exact = True
    t0 = []
    for (q, _, _), f in zip(queries, flts, strict=True):
        t = time.perf_counter()
        index.search_dense(q, limit=CANDIDATES, flt=f)
        t0.append((time.perf_counter() - t) * 1000)
    index.close()
    return {
        "points": points,
        "queries": n,
        "exact_p50_ms": pct(t0, 50),
        "exact_p95_ms": pct(t0, 95),
        "by_ef": rows,
        "narrow_top10_vs_exact": round(statistics.mean(narrow_agree), 3),
        "narrow_top10_min": round(min(narrow_agree), 2),
        "narrow_p50_ms": pct(narrow_times, 50),
        "narrow_p95_ms": pct(narrow_times, 95),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vectors", default="random", help="a .npy of real unit vectors, or 'random'")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/brief-recall-bench"))
    parser.add_argument("--efs", type=int, nargs="+", default=[32, 64, 128, 256, 512])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--reuse", action="store_true", help="measure an index built by an earlier --keep run")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--set", action="append", default=[], help="a reader [qdrant] key=value (repeatable)")
    ns = parser.parse_args()
    overrides = dict(item.split("=", 1) for item in ns.set)
    real = None if ns.vectors == "random" else np.load(ns.vectors).astype(np.float32)
    ws = Workspace(ns.size, real=real)
    out: dict[str, Any] = {"size": ns.size, "vectors": ns.vectors, "real_vectors": 0 if real is None else len(real)}
    out["load_before"] = os.getloadavg()[0]
    if not ns.reuse:
        out.update(build(ws, ns.work))
        print(json.dumps(out), flush=True)
    out["reader_settings"] = overrides
    out.update(measure(ws, ns.work, ns.efs, ns.queries, overrides))
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out))
    if ns.out:
        ns.out.write_text(json.dumps(out, indent=2) + "\n")
    if not ns.keep and not ns.reuse:
        shutil.rmtree(ns.work, ignore_errors=True)


if __name__ == "__main__":
    main()
