"""Index engines compared on the product's own query path (a script, not a timed test).

    nice -n 10 python bench/index_bench.py --sizes 10000 100000 --engines edge local --out bench/results/index.json

Per engine and size, in fresh processes: build (upsert through `Index.upsert`, then publish), disk size, open time
and RSS of a new reader, query p50/p95 of what `briefing.retrieve` runs per question (dense + BM25 with the as-of
filter, 50 candidates each, fused by RRF; and the same with a source + time-window filter), top-10 agreement with
the first engine, an incremental write (100 changed chunks) into the built index, and optionally `optimize()`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from bench.synthetic import Workspace  # noqa: E402
from briefing.index import Filter, Index  # noqa: E402
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings  # noqa: E402

MODEL = "synthetic"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def settings_for(engine: str, path: Path) -> Settings:
    return Settings(
        workspace=WorkspaceSettings(name="bench"),
        qdrant=QdrantSettings(path=path, engine="local" if engine == "local" else "edge", optimize_min_points=0),
    )


def du_mb(path: Path) -> float:
    """Blocks actually used (the engine's preallocated pages are sparse files)."""
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file()) / 1e6


def build(engine: str, size: int, path: Path) -> dict[str, Any]:
    shutil.rmtree(path, ignore_errors=True)
    ws = Workspace(size)
    started = time.perf_counter()
    generate = 0.0
    with Index.open(settings_for(engine, path)) as index:
        index.ensure(384, MODEL)
        t = time.perf_counter()
        for chunks, dense, sparse in ws.batches(1000):
            generate += time.perf_counter() - t
            index.upsert(chunks, dense, sparse, MODEL)
            t = time.perf_counter()
        upserted = time.perf_counter() - started - generate
        t = time.perf_counter()
        index.commit()
        commit = time.perf_counter() - t
    return {
        "upsert_s": round(upserted, 2),
        "points_per_s": round(size / upserted, 1),
        "publish_s": round(commit, 2),
        "disk_mb": round(du_mb(path), 1),
        "build_peak_rss_mb": round(peak_mb(), 0),
    }


def _fused(index: Index, q: Any, s: Any, flt: Filter) -> list[str]:
    dense = index.search_dense(q, limit=50, flt=flt)
    sparse = index.search_sparse(s, limit=50, flt=flt)
    scores: dict[str, float] = {}
    for hits in (dense, sparse):
        for rank, hit in enumerate(hits, 1):
            scores[hit.chunk.chunk_id] = scores.get(hit.chunk.chunk_id, 0.0) + 1 / (60 + rank)
    return sorted(scores, key=lambda c: -scores[c])[:10]


def query(engine: str, size: int, path: Path, n: int) -> dict[str, Any]:
    base = rss_mb()
    t = time.perf_counter()
    index = Index.open(settings_for(engine, path))
    count = index.count()
    open_s = time.perf_counter() - t
    opened = rss_mb()
    ws = Workspace(size)
    queries = ws.queries(n)
    plain: list[float] = []
    filtered: list[float] = []
    dense_only: list[float] = []
    tops: list[list[str]] = []
    for i, (q, s, now) in enumerate(queries):
        flt = Filter(as_of=now)
        t = time.perf_counter()
        top = _fused(index, q, s, flt)
        if i:  # the first query warms caches
            plain.append((time.perf_counter() - t) * 1000)
        tops.append(top)
        t = time.perf_counter()
        index.search_dense(q, limit=10, flt=flt)  # the dense-only baseline: one vector search, no BM25, no fusion
        if i:
            dense_only.append((time.perf_counter() - t) * 1000)
        narrow = replace(flt, source_types=("slack",), start=now - timedelta(days=30), end=now)
        t = time.perf_counter()
        _fused(index, q, s, narrow)
        if i:
            filtered.append((time.perf_counter() - t) * 1000)
    index.close()

    def pct(xs: list[float], p: float) -> float:
        return round(statistics.quantiles(xs, n=100)[int(p) - 1], 1) if len(xs) > 2 else round(max(xs), 1)

    return {
        "points": count,
        "open_s": round(open_s, 2),
        "open_rss_mb": round(opened - base, 0),
        "query_p50_ms": pct(plain, 50),
        "query_p95_ms": pct(plain, 95),
        "filtered_p50_ms": pct(filtered, 50),
        "filtered_p95_ms": pct(filtered, 95),
        "dense_only_p50_ms": pct(dense_only, 50),
        "dense_only_p95_ms": pct(dense_only, 95),
        "query_rss_mb": round(rss_mb() - base, 0),
        "tops": tops,
    }


def incremental(engine: str, size: int, path: Path) -> dict[str, Any]:
    """100 changed chunks into the built index: what a small scheduled ingest costs (copy, write, publish)."""
    ws = Workspace(size, seed=8)
    chunks, dense, sparse = next(ws.batches(100))
    t = time.perf_counter()
    out: dict[str, Any] = {}
    with Index.open(settings_for(engine, path)) as index:
        index.upsert(chunks, dense, sparse, MODEL)
        write = time.perf_counter() - t
        gen = getattr(index, "_writer_gen", None)
        if gen is not None:  # the embedded engine: what the writer's snapshot copied rather than linked
            files = [f.stat() for f in gen.rglob("*") if f.is_file()]
            copied = sum(st.st_blocks * 512 for st in files if st.st_nlink == 1) / 1e6
            out["incremental_copied_mb"] = round(copied, 1)
            out["incremental_linked_mb"] = round(sum(st.st_blocks * 512 for st in files) / 1e6 - copied, 1)
    out.update({"incremental_100_s": round(time.perf_counter() - t, 2), "incremental_write_s": round(write, 2)})
    return out


def optimize(engine: str, path: Path) -> dict[str, Any]:
    if engine != "edge":
        return {}
    from briefing.index.edge import EdgeIndex

    t = time.perf_counter()
    with Index.open(settings_for(engine, path)) as index:
        assert isinstance(index, EdgeIndex)
        index.optimize()
        built = time.perf_counter() - t
    return {"optimize_s": round(built, 1), "optimize_publish_s": round(time.perf_counter() - t - built, 1)}


def child(args: list[str]) -> dict[str, Any]:
    """One step in a fresh interpreter, so open time and RSS are those of a new `brief` command."""
    out = subprocess.run(
        [sys.executable, __file__, "--step", *args], check=True, capture_output=True, text=True, cwd=ROOT
    ).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--engines", nargs="+", default=["edge", "local"])
    parser.add_argument("--local-max", type=int, default=20_000, help="skip local mode above this size")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--optimize", action="store_true", help="also time optimize() and query again after it")
    parser.add_argument("--work", type=Path, default=Path("/tmp/brief-index-bench"))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the built indexes under --work")
    parser.add_argument("--step", nargs="+", default=None, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.step:
        step, engine, size, path = ns.step[0], ns.step[1], int(ns.step[2]), Path(ns.step[3])
        if step == "build":
            print(json.dumps(build(engine, size, path)))
        elif step == "query":
            print(json.dumps(query(engine, size, path, int(ns.step[4]))))
        elif step == "incremental":
            print(json.dumps(incremental(engine, size, path)))
        elif step == "optimize":
            print(json.dumps(optimize(engine, path)))
        return
    results: list[dict[str, Any]] = []
    meta = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_before": os.getloadavg(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    for size in ns.sizes:
        reference: list[list[str]] | None = None
        for engine in ns.engines:
            if engine == "local" and size > ns.local_max:
                continue
            path = ns.work / f"{engine}-{size}"
            row: dict[str, Any] = {"engine": engine, "size": size, "load": os.getloadavg()[0]}
            row.update(child(["build", engine, str(size), str(path)]))
            q = child(["query", engine, str(size), str(path), str(ns.queries)])
            tops = q.pop("tops")
            if reference is None:
                reference = tops
            else:
                row["top10_agreement"] = round(
                    statistics.mean(len(set(a) & set(b)) / 10 for a, b in zip(reference, tops, strict=True)), 3
                )
            row.update(q)
            if ns.optimize and engine == "edge":
                row.update(child(["optimize", engine, str(size), str(path)]))
                row["optimized_disk_mb"] = round(du_mb(path), 1)
                after = child(["query", engine, str(size), str(path), str(ns.queries)])
                after_tops = after.pop("tops")
                row.update({f"optimized_{k}": v for k, v in after.items() if k != "points"})
                row["optimized_top10_vs_plain"] = round(
                    statistics.mean(len(set(a) & set(b)) / 10 for a, b in zip(tops, after_tops, strict=True)), 3
                )
            # A small scheduled ingest into the built (and, with --optimize, optimized) index, then a new reader.
            row.update(child(["incremental", engine, str(size), str(path)]))
            again = child(["query", engine, str(size), str(path), str(ns.queries)])
            row.update({"after_write_open_s": again["open_s"], "after_write_query_p95_ms": again["query_p95_ms"]})
            row["load_after"] = os.getloadavg()[0]
            print(json.dumps(row), flush=True)
            results.append(row)
            if not ns.keep:
                shutil.rmtree(path, ignore_errors=True)
    meta["load_after"] = os.getloadavg()
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
