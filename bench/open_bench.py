"""What opening the embedded index costs a new `brief` command, step by step (a script, not a timed test).

    python bench/open_bench.py /tmp/brief-index-bench/edge-100000 --runs 5

Each run is a fresh interpreter (what every CLI command pays) that opens the index the way `brief ask` does
(`Index.open`, then its first read) and reports wall and CPU seconds and page faults for: the manifest check
(`brief-index.json` against the files), the engine's `EdgeShard.load`, the point count brief checks against the
manifest, and one dense query. Prints one JSON line per run and the medians, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]


def _usage() -> tuple[float, float, int, int]:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), r.ru_utime + r.ru_stime, r.ru_minflt, r.ru_majflt


def _step(steps: dict[str, Any], name: str, fn: Any) -> Any:
    before = _usage()
    out = fn()
    after = _usage()
    steps[name] = {
        "wall_s": round(after[0] - before[0], 3),
        "cpu_s": round(after[1] - before[1], 3),
        "minor_faults": after[2] - before[2],
        "major_faults": after[3] - before[3],
    }
    return out


def product(path: Path) -> dict[str, Any]:
    """What `bench/index_bench.py` calls open: `Index.open` and its first read (the point count)."""
    from bench.index_bench import settings_for
    from briefing.index import Index

    steps: dict[str, Any] = {}
    index = _step(steps, "open", lambda: Index.open(settings_for("edge", path)))
    points = _step(steps, "first_read", index.count)
    index.close()
    total = {k: steps["open"][k] + steps["first_read"][k] for k in steps["open"]}
    return {
        "points": points,
        "open_wall_s": round(total["wall_s"], 3),
        "open_cpu_s": round(total["cpu_s"], 3),
        "minor_faults": total["minor_faults"],
        "major_faults": total["major_faults"],
    }


def steps(path: Path) -> dict[str, Any]:
    """The same open, one step at a time."""
    import numpy as np
    import qdrant_edge as qe

    from briefing.index.edge_files import read_meta

    gen = path / "generations" / (path / "CURRENT").read_text(encoding="utf-8").strip()
    out: dict[str, Any] = {}
    _step(out, "manifest_check", lambda: read_meta(gen))
    shard = _step(out, "engine_load", lambda: qe.EdgeShard.load(str(gen)))
    _step(out, "point_count", lambda: shard.count(qe.CountRequest(exact=True)))
    q = np.random.default_rng(1).standard_normal(384).astype(np.float32)
    q /= np.linalg.norm(q)
    request = qe.QueryRequest(limit=50, query=qe.Query.Nearest(q.tolist(), using="dense"), with_payload=True)
    _step(out, "first_query", lambda: shard.query(request))
    _step(out, "second_query", lambda: shard.query(request))
    shard.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, help="an index folder (CURRENT, generations/)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--one", choices=["product", "steps"], default=None, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.one:
        print(json.dumps(product(ns.path) if ns.one == "product" else steps(ns.path)))
        return
    rows = []
    for _ in range(ns.runs):
        row: dict[str, Any] = {"load": round(os.getloadavg()[0], 1)}
        for mode in ("product", "steps"):
            out = subprocess.run(
                [sys.executable, __file__, str(ns.path), "--one", mode],
                check=True,
                capture_output=True,
                text=True,
                cwd=ROOT,
            ).stdout
            row[mode] = json.loads(out.strip().splitlines()[-1])
        print(json.dumps(row), flush=True)
        rows.append(row)
    median: dict[str, Any] = {"load": statistics.median(r["load"] for r in rows)}
    for key in ("open_wall_s", "open_cpu_s", "minor_faults"):
        median[key] = round(statistics.median(r["product"][key] for r in rows), 3)
    for step in rows[0]["steps"]:
        for key in ("wall_s", "cpu_s"):
            median[f"{step}_{key}"] = round(statistics.median(r["steps"][step][key] for r in rows), 3)
    print(json.dumps({"median": median, "runs": len(rows), "points": rows[0]["product"]["points"]}))


if __name__ == "__main__":
    main()
