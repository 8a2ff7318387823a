"""What a long-lived reader pays after a first ingest that warmed nothing (`[embedding] warm_at = "reader"`).

    nice -n 10 python bench/warm_reader_bench.py --config CFG --home HOME --cases eval/olake_dev.jsonl --work DIR

Copies HOME to DIR with its vector cache removed (what a first ingest under `warm_at = "reader"` leaves: the same
index, no warmed texts), then in one process, as `brief mcp` or `brief slack-bot` would: the first case's answer
(cold), the background warm pass it starts (waited for), then every other case; CPU seconds of each part, every
thread counted. `--no-warm` asks every case with nothing warmed in the background (a one-shot `brief ask` per
question pays the same, plus its start-up). Each case's answer, refusal, cited refs and hit refs go into the
result, so two runs (or a run and a `brief eval` over the original HOME) can be compared case by case.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--no-warm", action="store_true", help="no background warm: every case pays its own texts")
    parser.add_argument("--out", type=Path, default=None)
    ns = parser.parse_args()
    shutil.rmtree(ns.work, ignore_errors=True)
    shutil.copytree(ns.home, ns.work, symlinks=True)
    shutil.rmtree(ns.work / "vectors", ignore_errors=True)
    os.environ["BRIEF_HOME"] = str(ns.work)

    from briefing.mcp_server import BriefTools
    from briefing.settings import load_settings

    settings = load_settings(ns.config)
    if ns.no_warm:
        settings.embedding.warm_cache = False
    settings.embedding.warm_at = "reader"
    cases = [json.loads(line) for line in ns.cases.read_text().splitlines() if line.strip()]
    load_before = os.getloadavg()
    tools = BriefTools(settings)
    answers: dict[str, Any] = {}

    def ask(case: dict[str, Any]) -> None:
        found = tools.ask(case["question"], k=10, now=case.get("now"))
        answers[case["id"]] = {
            "answer": found["answer"],
            "no_answer": found.get("no_answer"),
            "citations": [c["refs"] for c in found["citations"]],
            "hits": [h["refs"] for h in found["hits"]],
        }

    cpu = time.process_time()
    t = time.perf_counter()
    ask(cases[0])
    first_cpu, first_s = time.process_time() - cpu, time.perf_counter() - t
    cpu, t = time.process_time(), time.perf_counter()
    warmed = tools.warmer.join()
    warm_cpu, warm_s = time.process_time() - cpu, time.perf_counter() - t
    cpu, t = time.process_time(), time.perf_counter()
    for case in cases[1:]:
        ask(case)
    rest_cpu, rest_s = time.process_time() - cpu, time.perf_counter() - t
    tools.close()
    result = {
        "config": str(ns.config),
        "cases": len(cases),
        "background_warm": not ns.no_warm,
        "first_answer_cpu_s": round(first_cpu, 2),
        "first_answer_s": round(first_s, 2),
        "warm_pass_cpu_s": round(warm_cpu, 2),
        "warm_pass_s": round(warm_s, 2),
        "warm_pass_chunks": warmed.chunks if warmed else 0,
        "warm_pass_embedded": warmed.embedded if warmed else 0,
        "other_answers_cpu_s": round(rest_cpu, 2),
        "other_answers_s": round(rest_s, 2),
        "total_cpu_s": round(first_cpu + warm_cpu + rest_cpu, 2),
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "answers": answers,
    }
    text = json.dumps(result, indent=1)
    if ns.out:
        ns.out.write_text(text)
    print(json.dumps({k: v for k, v in result.items() if k != "answers"}, indent=1))


if __name__ == "__main__":
    main()
