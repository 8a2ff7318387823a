"""What the workspace-vocabulary lookups cost an ask: the same questions asked with and without them, interleaved.

Both runs share one process, one index and warm caches; with the lookups off, `Vocabulary.spread` returns nothing
(so no word is looked up and no word vector is embedded), everything else is the production ask path.

    BRIEF_HOME=/tmp/olake-home python eval/bench_vocabulary.py /work/homes/olake/brief.toml eval/olake_dev.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    from briefing.ask import vocabulary
    from briefing.evaluation.cases import load_cases
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    config, cases_path = Path(sys.argv[1]), Path(sys.argv[2])
    real = vocabulary.Vocabulary.spread

    def off(self: Any, words: Any, *, view: Any) -> dict[str, Any]:
        return {}

    on_ms: list[float] = []
    off_ms: list[float] = []
    with Brief(load_settings(config)) as brief:
        cases = load_cases(cases_path)
        for case in cases[:10]:
            brief.ask(case.question, now=parse_now(case.now), k=10)  # warm the models and caches
        for i, case in enumerate(cases):
            runs = [(True, on_ms), (False, off_ms)]
            for enabled, sink in runs if i % 2 else runs[::-1]:
                vocabulary.Vocabulary.spread = real if enabled else off  # type: ignore[method-assign]
                t0 = time.perf_counter()
                brief.ask(case.question, now=parse_now(case.now), k=10)
                sink.append((time.perf_counter() - t0) * 1000)
        vocabulary.Vocabulary.spread = real  # type: ignore[method-assign]

    def pct(xs: list[float], p: float) -> float:
        return round(sorted(xs)[int(p * (len(xs) - 1))], 1)

    diff = [a - b for a, b in zip(on_ms, off_ms, strict=True)]
    print(
        json.dumps(
            {
                "questions": len(cases),
                "with_p50_ms": pct(on_ms, 0.5),
                "with_p95_ms": pct(on_ms, 0.95),
                "without_p50_ms": pct(off_ms, 0.5),
                "without_p95_ms": pct(off_ms, 0.95),
                "paired_difference_median_ms": round(statistics.median(diff), 1),
            }
        )
    )


if __name__ == "__main__":
    main()
