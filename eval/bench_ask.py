"""Warm `brief ask` latency in one process: every case's question once to warm models and caches, then timed.

    BRIEF_HOME=$OLAKE_HOME python eval/bench_ask.py --config $OLAKE/brief.toml --cases eval/olake_dev.jsonl \
        --warm-cases eval/olake_fresh.jsonl

With `--warm-cases` the process is warmed on other questions, so each timed question is asked for the first time
(its own embedding and retrieval are not cached); without it the timed pass repeats the warm-up's questions.

Prints p50 / p95 of the whole ask and of its stages (retrieve, answer) over the timed pass, with the load
average before and after, as one JSON object. Timings on a shared machine move with its load: report both.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo), 1)


def main() -> None:
    from briefing.evaluation.cases import load_cases
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=1, help="timed passes over the cases")
    parser.add_argument("--warm-cases", type=Path, help="warm up on these questions instead of the timed ones")
    args = parser.parse_args()
    cases = load_cases(args.cases)
    warm = load_cases(args.warm_cases) if args.warm_cases else cases
    load_before = os.getloadavg()
    totals: list[float] = []
    stages: dict[str, list[float]] = {}
    with Brief(load_settings(args.config)) as brief:
        for case in warm:  # warm-up: models loaded, sentence vectors cached
            brief.ask(case.question, now=parse_now(case.now))
        for _ in range(args.repeats):
            for case in cases:
                t0 = time.perf_counter()
                result = brief.ask(case.question, now=parse_now(case.now))
                totals.append((time.perf_counter() - t0) * 1000)
                for key in ("retrieve", "answer"):
                    stages.setdefault(key, []).append(float(result.timings_ms.get(key, 0.0)))
    out = {
        "questions": len(totals),
        "warmed_on": "other questions" if args.warm_cases else "the same questions",
        "ask_ms": {"p50": _pct(totals, 50), "p95": _pct(totals, 95)},
        **{f"{k}_ms": {"p50": _pct(v, 50), "p95": _pct(v, 95)} for k, v in stages.items()},
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
