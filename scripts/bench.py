"""Measure ingest throughput and search/ask latency on the bundled sample workspace (and the olake corpus if present).

Usage: python scripts/bench.py [--olake] [--queries N]
Prints a Markdown table; numbers go into the README by hand. Not a test: timings on shared machines are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OLAKE = ROOT.parent / "shared" / "corpora" / "olake"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def bench(
    name: str, config_text: str | None, copy_from: Path | None, questions: list[tuple[str, str]]
) -> dict[str, Any]:
    from briefing import pipeline
    from briefing.registry import FetchOptions
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    root = Path(tempfile.mkdtemp(prefix=f"brief-bench-{name}-"))
    os.environ["BRIEF_HOME"] = str(root / "home")
    try:
        workspace = root / "ws"
        if copy_from is not None:
            shutil.copytree(copy_from, workspace)
        else:
            workspace.mkdir()
        if config_text is not None:
            (workspace / "brief.toml").write_text(config_text)
        settings = load_settings(workspace / "brief.toml")
        t0 = time.perf_counter()
        first = pipeline.run(settings, list(settings.sources), options=FetchOptions())
        ingest_s = time.perf_counter() - t0
        if first.broken:
            raise SystemExit(f"{name}: {first.error()}")
        chunks = sum(run.processed.chunks for run in first.sources if run.processed)
        t0 = time.perf_counter()
        pipeline.run(settings, list(settings.sources), options=FetchOptions())
        reingest_s = time.perf_counter() - t0
        search_ms: list[float] = []
        ask_ms: list[float] = []
        with Brief(settings) as brief:
            brief.search("warm up the models", now=parse_now(None))
            brief.ask("warm up the models", now=parse_now(None))
            for question, now in questions:
                t0 = time.perf_counter()
                brief.search(question, now=parse_now(now))
                search_ms.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                brief.ask(question, now=parse_now(now))
                ask_ms.append((time.perf_counter() - t0) * 1000)
        return {
            "corpus": name,
            "chunks": chunks,
            "ingest_s": round(ingest_s, 1),
            "chunks_per_s": round(chunks / ingest_s, 1),
            "reingest_unchanged_s": round(reingest_s, 1),
            "search_p50_ms": round(statistics.median(search_ms)),
            "search_p95_ms": round(_percentile(search_ms, 0.95)),
            "ask_p50_ms": round(statistics.median(ask_ms)),
            "ask_p95_ms": round(_percentile(ask_ms, 0.95)),
            "queries": len(questions),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--olake", action="store_true", help="also measure the olake corpus from ../shared")
    parser.add_argument("--queries", type=int, default=30)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    cases = [json.loads(line) for line in (ROOT / "eval" / "sample_dev.jsonl").open()]
    questions = [(c["question"], c["now"]) for c in cases[: args.queries]]
    rows = [bench("sample", None, ROOT / "src" / "briefing" / "sample", questions)]
    if args.olake and OLAKE.is_dir():
        config = (
            '[workspace]\nname = "olake"\n'
            f'[sources.slack]\ntype = "slack_export"\npath = "{OLAKE / "slack"}"\n'
            f'[sources.docs]\ntype = "files"\npath = "{OLAKE / "docs"}"\n'
        )
        olake_q = [(q, "2026-08-22T09:00:00+00:00") for q, _ in questions[:10]]
        rows.append(bench("olake", config, None, olake_q))
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
