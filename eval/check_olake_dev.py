"""Check eval/olake_dev.jsonl (or another OLake set, `--cases`) against the real corpus in ../shared/corpora/olake.

The corpus is not part of this repository (its Slack part has no license), so it is read from the shared
folder next to the checkout; when it is absent the check says so and exits 0. Every gold ref must exist
(a Slack message with that ts in that channel's day files, or a file under docs/), the case shape must follow
DESIGN.md "Evaluation cases", every answer-keyword group must occur in the text (or author name) of at least
one gold item, and no question may repeat a run of six words from its evidence. Exit status 1 on any problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import case_checks  # noqa: E402
from case_checks import Resolver, check_cases, from_files, from_index, report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "olake"
CASES = ROOT / "eval" / "olake_dev.jsonl"
MIN_CASES, MIN_NONE = 35, 8


def _message_text(msg: dict[str, Any], names: dict[str, str]) -> str:
    """Text, block text (poll options live only there) and the author's names of one message."""
    parts = [msg.get("text", ""), names.get(msg.get("user", ""), "")]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                parts.append(node["text"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(msg.get("blocks", []))
    return " ".join(parts)


def _user_names(slack: Path) -> dict[str, str]:
    names: dict[str, str] = {}
    for user in json.loads((slack / "users.json").read_text(encoding="utf-8")):
        profile = user.get("profile", {})
        found = [user.get("name", ""), user.get("real_name", ""), profile.get("display_name", "")]
        names[user["id"]] = " ".join(n for n in found if n)
    return names


def slack_index(slack: Path) -> dict[str, str]:
    """Ref -> evidence text for every message in the export."""
    names = _user_names(slack)
    index: dict[str, str] = {}
    for channel in json.loads((slack / "channels.json").read_text(encoding="utf-8")):
        for day in sorted((slack / channel["name"]).glob("*.json")):
            for msg in json.loads(day.read_text(encoding="utf-8")):
                index[f"slack:{channel['id']}:{msg['ts']}"] = _message_text(msg, names)
    return index


def resolvers(slack: dict[str, str], docs: Path, others: dict[str, str] | None = None) -> dict[str, Resolver]:
    """How this corpus's refs resolve; `others` maps refs of further schemes (e.g. `github:`) to their text."""
    found = {"slack": from_index(slack, "a message in the export"), "file": from_files(docs)}
    for scheme in {ref.partition(":")[0] for ref in others or {}}:
        found[scheme] = from_index(others or {}, "in the export")
    return found


def check_case(c: dict[str, Any], slack: dict[str, str], docs: Path, others: dict[str, str] | None = None) -> list[str]:
    """Problems of one case against the export, the docs and `others`."""
    return case_checks.check_case(c, resolvers(slack, docs, others))


def check(cases_path: Path = CASES, min_cases: int = MIN_CASES, min_none: int = MIN_NONE) -> list[str]:
    """Problems of the OLake set at `cases_path`, which needs `min_cases` cases, `min_none` of them unanswerable."""
    raw = cases_path.read_text(encoding="utf-8")
    problems: list[str] = []
    # The export's workspace id must never enter this repository; read it from the export, not from here.
    users = json.loads((CORPUS / "slack" / "users.json").read_text(encoding="utf-8"))
    if any(team in raw for team in {u.get("team_id") for u in users if u.get("team_id")}):
        problems.append(f"{cases_path.name} contains the Slack team id")
    slack = slack_index(CORPUS / "slack")
    cases = [json.loads(line) for line in raw.splitlines() if line.strip()]
    problems += check_cases(cases, resolvers(slack, CORPUS / "docs"))
    n_none = sum(bool(c.get("no_answer")) for c in cases)
    if len(cases) < min_cases or n_none < min_none:
        problems.append(f"{len(cases)} cases, {n_none} no_answer: need at least {min_cases} and {min_none}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description="Check an OLake case set against the real corpus.")
    parser.add_argument("--cases", type=Path, default=CASES, help="the JSONL set (default: eval/olake_dev.jsonl)")
    args = parser.parse_args()
    if not (CORPUS / "slack" / "channels.json").is_file():
        print(f"OLake corpus not found at {CORPUS}; nothing to check")
        sys.exit(0)
    report(check(args.cases))


if __name__ == "__main__":
    main()
