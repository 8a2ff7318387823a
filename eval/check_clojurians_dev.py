"""Check eval/clojurians_dev.jsonl (or another set, `--cases`) against the Clojurians Slack export.

The export (../shared/corpora/slack-clojurians) is not part of this repository (no license is stated for it), so
it is read from the shared folder next to the checkout; when it is absent the check says so and exits 0. Every gold
ref must be a message of the export (`slack:<channel_id>:<ts>`), the case shape must follow DESIGN.md "Evaluation
cases", every answer-keyword group must occur in the text or author names of at least one gold message, no question
may repeat a run of six words from its evidence, and the split (ids ending in an even digit are held out) must hold
answerable and unanswerable cases on both sides. Exit status 1 on any problem.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from case_checks import check_split_set, from_index, report  # noqa: E402
from check_olake_dev import slack_index  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# The corpora folder: BRIEF_CORPORA when set, else ../shared/corpora next to the checkout.
CORPORA = Path(os.environ.get("BRIEF_CORPORA") or Path(__file__).resolve().parents[2] / "shared" / "corpora")
CORPUS = CORPORA / "slack-clojurians"
CASES = ROOT / "eval" / "clojurians_dev.jsonl"
MIN_CASES, MIN_NONE = 30, 6


def check(cases_path: Path = CASES, min_cases: int = MIN_CASES, min_none: int = MIN_NONE) -> list[str]:
    """Problems of the set at `cases_path`, which needs `min_cases` cases, `min_none` of them unanswerable."""
    problems: list[str] = []
    # The export's workspace id must never enter this repository; read it from the export, not from here.
    users = json.loads((CORPUS / "users.json").read_text(encoding="utf-8"))
    raw = cases_path.read_text(encoding="utf-8")
    if any(team in raw for team in {u.get("team_id") for u in users if u.get("team_id")}):
        problems.append(f"{cases_path.name} contains the Slack team id")
    resolvers = {"slack": from_index(slack_index(CORPUS), "a message in the export")}
    return problems + check_split_set(cases_path, resolvers, min_cases=min_cases, min_none=min_none)


def main() -> None:
    parser = argparse.ArgumentParser(description="Check a Clojurians Slack case set against the real export.")
    parser.add_argument("--cases", type=Path, default=CASES, help="the JSONL set (default: eval/clojurians_dev.jsonl)")
    args = parser.parse_args()
    if not (CORPUS / "channels.json").is_file():
        print(f"Clojurians Slack export not found at {CORPUS}; nothing to check")
        sys.exit(0)
    report(check(args.cases))


if __name__ == "__main__":
    main()
