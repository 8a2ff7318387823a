"""The first questions after a fresh ingest, with and without warming the vector cache at ingest.

For each variant (`[embedding] warm_cache` off; on without `warm_sentences`, "units"; on) and round: a fresh
BRIEF_HOME, one first ingest of the workspace in a child process (wall, CPU seconds of the child, peak RSS, texts
warmed), the vector cache's size on disk, then a second child that loads the models (no question) and times the
first searches and the first asks of the dev set's questions, each question asked once, searches and asks on
different questions. Variants are interleaved round by round so that all see the same load. Not a test: timings
on a shared machine are noisy.

    nice -n 10 python bench/cold_cache_bench.py --corpus olake --rounds 1 --out bench/results/cold-cache-olake.json
    nice -n 10 python bench/cold_cache_bench.py --corpus sample --out bench/results/cold-cache-sample.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OLAKE = ROOT.parent / "shared" / "corpora" / "olake"


def _config(corpus: str, work: Path, variant: str) -> Path:
    if corpus == "sample":
        shutil.copytree(ROOT / "src" / "briefing" / "sample", work, dirs_exist_ok=True)
        text = (work / "brief.toml").read_text()
    else:
        work.mkdir(parents=True, exist_ok=True)
        text = (
            '[workspace]\nname = "olake"\n'
            f'[sources.slack]\ntype = "slack_export"\npath = "{OLAKE / "slack"}"\n'
            f'[sources.docs]\ntype = "files"\npath = "{OLAKE / "docs"}"\n'
        )
    config = work / "brief.toml"
    warm = {"off": "warm_cache = false", "units": "warm_sentences = false", "on": ""}[variant]
    config.write_text(text + f"\n[embedding]\n{warm}\n")
    return config


def _cases(corpus: str) -> list[dict[str, Any]]:
    name = "olake_dev.jsonl" if corpus == "olake" else "sample_dev.jsonl"
    return [json.loads(line) for line in (ROOT / "eval" / name).open()]


def step_ingest(config: Path) -> dict[str, Any]:
    from briefing import pipeline
    from briefing.settings import load_settings

    settings = load_settings(config)
    t = time.perf_counter()
    run = pipeline.run(settings, list(settings.sources))
    wall = time.perf_counter() - t
    assert not run.broken, run.error()
    processed = [r.processed for r in run.sources if r.processed]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "chunks": sum(p.chunks for p in processed),
        "embedded": sum(p.embedded for p in processed),
        "warmed": sum(p.warmed for p in processed),
        "warm_s": round(sum(p.warm_seconds for p in processed), 1),
        "embed_s": round(sum(p.embed_seconds for p in processed), 1),
    }


def step_questions(config: Path, corpus: str, count: int) -> dict[str, Any]:
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    settings = load_settings(config)
    cases = [c for c in _cases(corpus) if not c.get("no_answer")]
    searches, asks = cases[:count], cases[count : 2 * count]
    out: dict[str, Any] = {"search_ms": [], "search_cpu_ms": [], "ask_ms": [], "ask_cpu_ms": []}
    with Brief(settings) as brief:
        brief.embedder.dense(["load the model"], query=True)  # model load, not a question: nothing cached
        brief.embedder.sparse(["load the model"], query=True)
        for kind, group in (("search", searches), ("ask", asks)):
            for case in group:
                call = brief.search if kind == "search" else brief.ask
                t, c = time.perf_counter(), time.process_time()
                call(case["question"], now=parse_now(case["now"]))
                out[f"{kind}_ms"].append(round((time.perf_counter() - t) * 1000))
                out[f"{kind}_cpu_ms"].append(round((time.process_time() - c) * 1000))
    for kind in ("search", "ask"):
        values = sorted(out[f"{kind}_ms"])
        out[f"{kind}_p50_ms"] = round(statistics.median(values))
        out[f"{kind}_max_ms"] = values[-1]
        out[f"{kind}_cpu_total_s"] = round(sum(out[f"{kind}_cpu_ms"]) / 1000, 1)
    return out


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _child(args: list[str], home: Path) -> dict[str, Any]:
    env = {**os.environ, "BRIEF_HOME": str(home), "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    out = subprocess.run([sys.executable, __file__, *args], env=env, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=["olake", "sample"], default="sample")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--questions", type=int, default=10, help="searches, then as many asks (other questions)")
    parser.add_argument("--variants", default="off,on", help="in order: off (no warm), units (no sentences), on")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--step", nargs="+", default=None, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.step:
        if ns.step[0] == "ingest":
            print(json.dumps(step_ingest(Path(ns.step[1]))))
        else:
            print(json.dumps(step_questions(Path(ns.step[1]), ns.step[2], int(ns.step[3]))))
        return
    results: list[dict[str, Any]] = []
    for round_ in range(1, ns.rounds + 1):
        for variant in ns.variants.split(","):
            root = Path(tempfile.mkdtemp(prefix=f"brief-cold-{variant}-"))
            try:
                config = _config(ns.corpus, root / "ws", variant)
                home = root / "home"
                row: dict[str, Any] = {"round": round_, "warm_cache": variant, "load_before": os.getloadavg()[0]}
                row["ingest"] = _child(["--step", "ingest", str(config)], home)
                row["vector_cache_bytes"] = _du(home / "vectors")
                row["index_bytes"] = _du(home / "workspaces")
                row["questions"] = _child(["--step", "questions", str(config), ns.corpus, str(ns.questions)], home)
                row["load_after"] = os.getloadavg()[0]
                results.append(row)
                print(json.dumps(row), flush=True)
            finally:
                shutil.rmtree(root, ignore_errors=True)
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps({"corpus": ns.corpus, "runs": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
