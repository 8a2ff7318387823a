"""Check eval/clojurians_dev.jsonl against the real Clojurians Slack export in ../shared/corpora/slack-clojurians.

The export is not part of this repository (no license is stated for it), so it is read from the shared folder next
to the checkout; when it is absent the check says so and exits 0. Every gold ref must be a message of the export
(`slack:<channel_id>:<ts>`), the case shape must follow DESIGN.md "Evaluation cases", every answer-keyword group
must occur in the text or author names of at least one gold message, no question may repeat a run of six words
from its evidence, and the split (ids ending in an even digit are held out) must hold answerable and unanswerable
cases on both sides. Exit status 1 on any problem.
"""

from __future__ import annotations

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


def check() -> list[str]:
    problems: list[str] = []
    # The export's workspace id must never enter this repository; read it from the export, not from here.
    users = json.loads((CORPUS / "users.json").read_text(encoding="utf-8"))
    raw = CASES.read_text(encoding="utf-8")
    if any(team in raw for team in {u.get("team_id") for u in users if u.get("team_id")}):
        problems.append("clojurians_dev.jsonl contains the Slack team id")
    resolvers = {"slack": from_index(slack_index(CORPUS), "a message in the export")}
    return problems + check_split_set(CASES, resolvers, min_cases=MIN_CASES, min_none=MIN_NONE)


def main() -> None:
    if not (CORPUS / "channels.json").is_file():
        print(f"Clojurians Slack export not found at {CORPUS}; nothing to check")
        sys.exit(0)
    report(check())


if __name__ == "__main__":
    main()
