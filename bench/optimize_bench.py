"""What the optimizer costs per `[qdrant]` build setting, and what the index answers afterwards (a script).

    nice -n 10 python bench/optimize_bench.py --size 20000 --vectors /tmp/scale20/real.npy \\
        --variant "" --variant "hnsw_payload_m=0" --variant "hnsw_payload_m=0,quantization=scalar" \\
        --work /tmp/optimize-bench --out bench/results/optimize-20k.json

Per variant (comma-separated `[qdrant]` keys, "" for the defaults), in fresh processes: build `--size` points of
the synthetic workspace (`bench/synthetic.py`; grown from real embeddings with `--vectors`) through the product's
writer with those settings, so the optimizer runs where `brief` runs it (every `segment_points` new points inside
the write, and at publish), and record wall and CPU seconds (CPU is what the load average does not inflate),
peak RSS, segments and disk; then open it in a new process and run the product's query (`bench/index_bench.py`,
query step) and the agreement of HNSW dense search with exact search at `hnsw_ef` 128, with the as-of filter and
with a source + 30-day window filter (`bench/recall_bench.py`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from bench.index_bench import MODEL, du_mb, peak_mb  # noqa: E402
from bench.synthetic import Workspace  # noqa: E402
from briefing.index import Index  # noqa: E402
from briefing.index.edge import EdgeIndex  # noqa: E402
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings  # noqa: E402


def parse_variant(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, _, value = item.partition("=")
        out[key.strip()] = value.strip()
    return out


def settings(path: Path, variant: dict[str, Any]) -> Settings:
    return Settings(workspace=WorkspaceSettings(name="bench"), qdrant=QdrantSettings(path=path, **variant))


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class MemorySampler(threading.Thread):
    """Samples the process's anonymous and file-backed resident memory (`/proc/self/status`, Linux) every 2 s:
    `ru_maxrss` counts mapped segment files as well as the engine's own memory."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = {"RssAnon": 0, "RssFile": 0}
        self.done = threading.Event()

    def run(self) -> None:
        status = Path("/proc/self/status")
        while status.exists():
            for line in status.read_text().splitlines():
                key, _, value = line.partition(":")
                if key in self.peak:
                    self.peak[key] = max(self.peak[key], int(value.split()[0]) // 1024)
            if self.done.wait(2.0):
                return


def build(size: int, path: Path, variant: dict[str, Any], vectors: str) -> dict[str, Any]:
    shutil.rmtree(path, ignore_errors=True)
    sampler = MemorySampler()
    sampler.start()
    real = None if vectors == "random" else np.load(vectors).astype(np.float32)
    ws = Workspace(size, real=real)
    load = [os.getloadavg()[0]]
    t0, c0 = time.perf_counter(), cpu_s()
    generate = 0.0
    timings: list[float] = []

    class Optimizes(logging.Handler):  # the writer logs each optimizer run with its seconds
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("optimized"):
                timings.append(float(record.args[-1]))  # type: ignore[index]
                load.append(os.getloadavg()[0])

    logger = logging.getLogger("briefing.index.edge")
    logger.setLevel(logging.INFO)
    logger.addHandler(Optimizes())
    with Index.open(settings(path, variant)) as index:
        index.ensure(384, MODEL)
        t = time.perf_counter()
        for chunks, dense, sparse in ws.batches(1000):
            generate += time.perf_counter() - t
            index.upsert(chunks, dense, sparse, MODEL)
            t = time.perf_counter()
        index.commit()
    sampler.done.set()
    sampler.join()
    optimize_wall = sum(timings)
    wall = time.perf_counter() - t0 - generate
    import qdrant_edge as qe

    gen = Index.open(settings(path, variant))
    assert isinstance(gen, EdgeIndex)
    published = gen.published()
    assert published is not None
    segments = []
    for segment in sorted((published / "segments").iterdir()):
        config = json.loads((segment / "segment.json").read_text())
        segments.append(
            {
                "indexed": any(p.name.startswith("id_tracker.") for p in segment.iterdir()),
                "type": config.get("segment_type"),
                "mb": round(sum(f.stat().st_blocks * 512 for f in segment.rglob("*") if f.is_file()) / 1e6, 1),
            }
        )
    shard = qe.EdgeShard.load(str(published))
    info = shard.info()
    shard.close()
    gen.close()
    return {
        "build_wall_s": round(wall, 1),
        "build_cpu_s": round(cpu_s() - c0, 1),
        "optimize_calls": len(timings),
        "optimize_wall_s": round(optimize_wall, 1),
        "build_peak_rss_mb": round(peak_mb(), 0),
        "build_peak_anon_mb": sampler.peak["RssAnon"],  # the process's own memory
        "build_peak_file_mb": sampler.peak["RssFile"],  # mapped files (page cache the kernel can drop)
        "segments": len(segments),
        "indexed_vectors": int(info.indexed_vectors_count),
        "segment_mb": [s["mb"] for s in segments],
        "disk_mb": round(du_mb(path), 1),
        "build_load": [min(load), max(load)],
    }


def child(args: list[str]) -> dict[str, Any]:
    out = subprocess.run([sys.executable, *args], check=True, capture_output=True, text=True, cwd=ROOT).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--vectors", default="random", help="a .npy of real unit vectors, or 'random'")
    parser.add_argument("--variant", action="append", default=None, help="comma-separated [qdrant] key=value")
    parser.add_argument("--work", type=Path, default=Path("/tmp/brief-optimize-bench"))
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--no-recall", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--step", nargs=2, default=None, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.step:  # build one variant in this process: --step VARIANT PATH
        print(json.dumps(build(ns.size, Path(ns.step[1]), parse_variant(ns.step[0]), ns.vectors)))
        return
    rows = []
    for n, text in enumerate(ns.variant or [""]):
        path = ns.work / f"v{n}"
        row: dict[str, Any] = {"variant": text or "defaults", "size": ns.size, "vectors": ns.vectors}
        row.update(child([__file__, "--size", str(ns.size), "--vectors", ns.vectors, "--step", text, str(path)]))
        q = child(["bench/index_bench.py", "--step", "query", "edge", str(ns.size), str(path), str(ns.queries)])
        q.pop("tops")
        row.update({k: v for k, v in q.items() if k != "points"})
        row["query_load"] = os.getloadavg()[0]
        if not ns.no_recall:
            r = child(
                [
                    "bench/recall_bench.py",
                    "--vectors",
                    ns.vectors,
                    "--size",
                    str(ns.size),
                    "--work",
                    str(path),
                    "--reuse",
                    "--efs",
                    "128",
                    "--queries",
                    str(ns.queries),
                ]
            )
            by_ef = r["by_ef"][0]
            row.update({f"recall_{k}": v for k, v in by_ef.items() if k != "hnsw_ef"})
            row.update({f"recall_{k}": v for k, v in r.items() if k.startswith("narrow")})
        print(json.dumps(row), flush=True)
        rows.append(row)
        if not ns.keep:
            shutil.rmtree(path, ignore_errors=True)
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps({"machine": f"{os.cpu_count()} cores", "results": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
