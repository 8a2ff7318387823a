"""Measure what unattended operation adds to a run: the lock, the metrics flush, the run log, the watch scan.

Usage: nice -n 10 python scripts/ops_bench.py [--olake]
Ingests the bundled sample workspace (or the olake corpus beside the checkout) into a temporary home once, then
times each hook on its own and a re-ingest with nothing new, with and without two watches. Not a test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OLAKE = ROOT.parent / "shared" / "corpora" / "olake"


def _ms(fn: object, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--olake", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="brief-ops-bench-"))
    os.environ["BRIEF_HOME"] = str(root / "home")
    from briefing import pipeline
    from briefing.index import Index
    from briefing.ops import metrics, runlog, watch
    from briefing.ops.lock import workspace_lock
    from briefing.settings import load_settings

    try:
        if args.olake:
            if not OLAKE.is_dir():
                sys.exit(f"no corpus at {OLAKE}")
            config = root / "brief.toml"
            config.write_text(
                f'[workspace]\nname = "olake"\n[sources.slack]\ntype = "slack_export"\npath = "{OLAKE / "slack"}"\n'
                f'[sources.docs]\ntype = "files"\npath = "{OLAKE / "docs"}"\n'
            )
        else:
            shutil.copytree(ROOT / "src" / "briefing" / "sample", root / "ws")
            config = root / "ws" / "brief.toml"
        settings = load_settings(config)
        t0 = time.perf_counter()
        pipeline.run(settings, list(settings.sources))
        first = time.perf_counter() - t0
        with Index.open(settings) as index:
            points = index.count()

        def locked() -> None:
            with workspace_lock(settings, "bench"):
                pass

        lock = _ms(locked, 50)

        def flush() -> None:
            metrics.inc("brief_items_fetched", 1, source="bench")
            metrics.flush(settings.home, settings.workspace.name)

        flushed = _ms(flush, 50)
        logged = _ms(lambda: runlog.write_run(settings.home, {"run_id": "x", "pad": "y" * 800}), 200)
        t0 = time.perf_counter()
        pipeline.run(settings, list(settings.sources))
        again = time.perf_counter() - t0
        watch.add_watch(settings, target=None, query="outage OR incident OR rollback", sources=[])
        watch.add_watch(settings, target="PAY-142", query=None, sources=[])
        scan = _ms(lambda: watch.run_watches(settings, run_id="bench", chosen=[]), 5)
        t0 = time.perf_counter()
        pipeline.run(settings, list(settings.sources))
        again_watched = time.perf_counter() - t0
        load = os.getloadavg()
        print(
            f"corpus: {'olake' if args.olake else 'sample'}; {points} points; load average {load[0]:.1f} {load[1]:.1f}"
        )
        print("| step | median ms | max ms |\n|---|---|---|")
        print(f"| first ingest (all hooks on) | {first * 1000:.0f} | |")
        print(f"| workspace lock acquire + release | {lock[0]:.2f} | {lock[1]:.2f} |")
        print(f"| metrics flush (totals + textfile) | {flushed[0]:.2f} | {flushed[1]:.2f} |")
        print(f"| run log line | {logged[0]:.2f} | {logged[1]:.2f} |")
        print(f"| watch scan, 2 watches, nothing new | {scan[0]:.0f} | {scan[1]:.0f} |")
        print(f"| re-ingest, nothing new, no watches | {again * 1000:.0f} | |")
        print(f"| re-ingest, nothing new, 2 watches | {again_watched * 1000:.0f} | |")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
