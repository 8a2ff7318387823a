"""Check eval/clojurians_fresh.jsonl, the Clojurians set written without running the product on it, against the export.

The rules of `check_clojurians_dev.py` (case shape, refs exist, every keyword group occurs in the gold evidence, no
question copies six words of its evidence, both halves of the split hold answerable and unanswerable cases), plus:
every category with two or more cases has cases in both halves (held out: id ends in an even digit). When the
export is absent the check says so and exits 0; exit status 1 on any problem.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from case_checks import report  # noqa: E402
from check_clojurians_dev import CORPUS, ROOT  # noqa: E402
from check_clojurians_dev import check as check_set  # noqa: E402

CASES = ROOT / "eval" / "clojurians_fresh.jsonl"
MIN_CASES, MIN_NONE = 40, 8


def category_split_problems(cases: list[dict[str, Any]]) -> list[str]:
    """Categories of two or more cases that one half of the split lacks."""
    problems: list[str] = []
    for category, n in sorted(Counter(c["category"] for c in cases).items()):
        held = {int(c["id"][-1]) % 2 == 0 for c in cases if c["category"] == category}
        if n >= 2 and held != {True, False}:
            problems.append(f"category {category} ({n} cases) is not in both halves of the split")
    return problems


def check() -> list[str]:
    """The fresh set's problems: those of any Clojurians set, then those of its category split."""
    problems = check_set(CASES, MIN_CASES, MIN_NONE)
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    return problems + category_split_problems(cases)


def main() -> None:
    if not (CORPUS / "channels.json").is_file():
        print(f"Clojurians Slack export not found at {CORPUS}; nothing to check")
        sys.exit(0)
    report(check())


if __name__ == "__main__":
    main()
