"""Check eval/olake_fresh.jsonl, the OLake set written without running the product on it, against the corpus.

The rules of `check_olake_dev.py` (case shape, refs exist, every keyword group occurs in the gold evidence, no
question copies six words of its evidence), plus the split: both halves (held out: id ends in an even digit) hold
answerable and unanswerable cases. When the corpus is absent the check says so and exits 0; exit status 1 on any
problem.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from case_checks import report, split_problems  # noqa: E402
from check_olake_dev import CORPUS, ROOT  # noqa: E402
from check_olake_dev import check as check_set  # noqa: E402

CASES = ROOT / "eval" / "olake_fresh.jsonl"
MIN_CASES, MIN_NONE = 40, 10


def check() -> list[str]:
    """The fresh set's problems: those of any OLake set, then those of its split."""
    problems = check_set(CASES, MIN_CASES, MIN_NONE)
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    return problems + split_problems(cases)


def main() -> None:
    if not (CORPUS / "slack" / "channels.json").is_file():
        print(f"OLake corpus not found at {CORPUS}; nothing to check")
        sys.exit(0)
    report(check())


if __name__ == "__main__":
    main()
