"""Rebuild a kept, optimized index's segments with other `[qdrant]` build settings, then measure it (a script).

    nice -n 10 python bench/reoptimize_bench.py /tmp/scale20/real-100k /tmp/reopt-100k \\
        --variant "hnsw_payload_m=0,quantization=scalar" --vectors /tmp/scale20/real.npy --size 100000

Copies SOURCE to WORK (the source is never written), opens a writer with the variant's settings (the writer loads
the shard with them, so the engine's optimizer rebuilds every segment whose settings differ), runs the optimizer
and publishes; records wall and CPU seconds and peak RSS of that rebuild in this process, which is what one
segment of that size costs whatever the index's total size. Then, in fresh processes, the product's query
(`bench/index_bench.py`, query step) and agreement with exact search (`bench/recall_bench.py --reuse`, with the
same `--vectors` and `--size` the source was built from).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from bench.index_bench import du_mb, peak_mb  # noqa: E402
from bench.optimize_bench import child, cpu_s, parse_variant, settings  # noqa: E402
from briefing.index import Index  # noqa: E402
from briefing.index.edge import EdgeIndex  # noqa: E402


def segments(root: Path) -> list[dict[str, Any]]:
    gen = root / "generations" / (root / "CURRENT").read_text().strip()
    out = []
    for segment in sorted((gen / "segments").iterdir()):
        dense = json.loads((segment / "segment.json").read_text())["config"]["vector_data"]["dense"]
        out.append(
            {
                "index": dense["index"]["type"],
                "options": dense["index"].get("options"),
                "quantization": dense.get("quantization_config"),
                "mb": round(sum(f.stat().st_blocks * 512 for f in segment.rglob("*") if f.is_file()) / 1e6, 1),
            }
        )
    return out


def rebuild(work: Path, variant: dict[str, Any]) -> dict[str, Any]:
    load = [os.getloadavg()[0]]
    t0, c0 = time.perf_counter(), cpu_s()
    with Index.open(settings(work, variant)) as index:
        assert isinstance(index, EdgeIndex)
        changed = index.optimize()
        optimized = time.perf_counter() - t0
        load.append(os.getloadavg()[0])
    return {
        "changed": changed,
        "optimize_wall_s": round(optimized, 1),
        "rebuild_publish_wall_s": round(time.perf_counter() - t0, 1),
        "rebuild_cpu_s": round(cpu_s() - c0, 1),
        "rebuild_peak_rss_mb": round(peak_mb(), 0),
        "rebuild_load": load,
        "segments_after": segments(work),
        "disk_mb": round(du_mb(work), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("--variant", default="", help="comma-separated [qdrant] key=value")
    parser.add_argument("--vectors", default="random")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--step", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.step:
        print(json.dumps(rebuild(ns.work, parse_variant(ns.variant))))
        return
    shutil.rmtree(ns.work, ignore_errors=True)
    # cp keeps the engine's sparse files sparse (a plain copy fills their holes: more disk, slower opens).
    subprocess.run([shutil.which("cp") or "/bin/cp", "-a", "--sparse=always", str(ns.source), str(ns.work)], check=True)
    row: dict[str, Any] = {"source": str(ns.source), "variant": ns.variant or "defaults", "size": ns.size}
    row["segments_before"] = segments(ns.work)
    row.update(child([__file__, str(ns.source), str(ns.work), "--variant", ns.variant, "--step"]))
    print(json.dumps(row), flush=True)
    q = child(["bench/index_bench.py", "--step", "query", "edge", str(ns.size), str(ns.work), "40"])
    q.pop("tops")
    row.update({k: v for k, v in q.items() if k != "points"})
    row["query_load"] = os.getloadavg()[0]
    r = child(
        [
            "bench/recall_bench.py",
            "--vectors",
            ns.vectors,
            "--size",
            str(ns.size),
            "--work",
            str(ns.work),
            "--reuse",
            "--efs",
            "64",
            "128",
            "256",
            "--queries",
            str(ns.queries),
        ]
    )
    row["recall"] = r
    print(json.dumps(row), flush=True)
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps(row, indent=2) + "\n")


if __name__ == "__main__":
    main()
