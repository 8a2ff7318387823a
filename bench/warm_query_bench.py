"""Warm search and ask CPU per question, side by side with the raw path (a script, not a timed test).

One long-lived process opens the workspace once, answers one question to load the models, then for each of the
first `--questions` cases takes the CPU seconds (`time.process_time`) of: the raw path (query embedding, BM25
query encoding, one dense and one sparse engine query through the View, reciprocal rank fusion), `Brief.search`
and `Brief.ask`. It prints the p50 of each and the ratios to raw, with the load average before and after.

Asking writes the home's vector cache and metrics: run it on a copy.

    cp -a "$HOME_OF_OLAKE" /tmp/wq-olake
    BRIEF_HOME=/tmp/wq-olake nice -n 10 python bench/warm_query_bench.py olake/brief.toml eval/olake_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from briefing.evaluation.cases import load_cases
from briefing.index import Filter
from briefing.service import Brief
from briefing.settings import load_settings


def loadavg() -> str:
    return Path("/proc/loadavg").read_text(encoding="utf-8").strip()


def raw(brief: Brief, question: str, now: datetime, limit: int) -> list[str]:
    """The floor: query vectors, the two engine queries, reciprocal rank fusion."""
    view = brief.index.view(now)
    vec = brief.embedder.dense([question], query=True)[0]
    svec = brief.embedder.sparse([question], query=True)[0]
    fused: dict[str, float] = {}
    for found in (
        view.search_dense(vec, limit=limit, flt=Filter()),
        view.search_sparse(svec, limit=limit, flt=Filter()),
    ):
        for rank, hit in enumerate(found, 1):
            fused[hit.chunk.chunk_id] = fused.get(hit.chunk.chunk_id, 0.0) + 1.0 / (60 + rank)
    return sorted(fused, key=lambda c: -fused[c])


def cpu(brief: Brief, call: Any, *args: Any, **kwargs: Any) -> float:
    # Each timed call embeds its question itself (a process keeps question vectors for a question's later stages).
    forget = getattr(brief.embedder, "forget_queries", None)
    if forget is not None:
        forget()
    started = time.process_time()
    call(*args, **kwargs)
    return (time.process_time() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path)
    parser.add_argument("cases", type=Path)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--out", type=Path, default=None)
    ns = parser.parse_args()
    settings = load_settings(ns.config)
    cases = load_cases(ns.cases)[: ns.questions]
    found: dict[str, Any] = {"loadavg_before": loadavg(), "questions": len(cases)}
    times: dict[str, list[float]] = {"raw": [], "search": [], "ask": []}
    with Brief(settings) as brief:
        first = cases[0]
        brief.ask(first.question, now=first.now_dt)  # models loaded, caches opened
        raw(brief, first.question, first.now_dt, ns.limit)
        for case in cases:
            times["raw"].append(cpu(brief, raw, brief, case.question, case.now_dt, ns.limit))
            times["search"].append(cpu(brief, brief.search, case.question, now=case.now_dt))
            times["ask"].append(cpu(brief, brief.ask, case.question, now=case.now_dt))
    p50 = {name: round(statistics.median(values), 1) for name, values in times.items()}
    found["cpu_ms_p50"] = p50
    found["search_over_raw"] = round(p50["search"] / p50["raw"], 2)
    found["ask_over_raw"] = round(p50["ask"] / p50["raw"], 2)
    found["loadavg_after"] = loadavg()
    print(json.dumps(found, indent=2))
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps(found, indent=2) + "\n")


if __name__ == "__main__":
    main()
