"""Check eval/olake_dev.jsonl against the real OLake corpus in ../shared/corpora/olake.

The corpus is not part of this repository (its Slack part has no license), so it is read from the shared
folder next to the checkout; when it is absent the check says so and exits 0. Every gold ref must exist
(a Slack message with that ts in that channel's day files, or a file under docs/), the case shape must follow
DESIGN.md "Evaluation cases", every answer-keyword group must occur in the text (or author name) of at least
one gold item, and no question may repeat a run of six words from its evidence. Exit status 1 on any problem.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "olake"
CASES = ROOT / "eval" / "olake_dev.jsonl"
CATEGORIES = {
    "direct",
    "thread_reply",
    "time_scoped",
    "person",
    "channel",
    "multi_source",
    "changed_state",
    "summary",
    "no_answer",
}
KEYS = {"id", "question", "now", "gold_refs", "answer_keywords", "no_answer", "category"}
MIN_CASES, MIN_NONE = 35, 8
COPY_RUN = 6  # words in a row shared with the evidence that count as copying it


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


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9_.\-]+", text.lower())


def _copied_run(question: str, evidence: str) -> str | None:
    """The first run of COPY_RUN question words that also occurs in the evidence, if any."""
    q, e = _words(question), " ".join(_words(evidence))
    for i in range(len(q) - COPY_RUN + 1):
        run = " ".join(q[i : i + COPY_RUN])
        if f" {run} " in f" {e} ":
            return run
    return None


def check_case(c: dict[str, Any], slack: dict[str, str], docs: Path, others: dict[str, str] | None = None) -> list[str]:
    """Problems of one case; `others` maps refs of further schemes (e.g. `github:`) to their evidence text."""
    cid = c.get("id", "?")
    if set(c) != KEYS:
        return [f"{cid}: keys {sorted(set(c) ^ KEYS)} differ from the contract"]
    problems: list[str] = []
    if c["category"] not in CATEGORIES:
        problems.append(f"{cid}: unknown category {c['category']}")
    if datetime.fromisoformat(c["now"]).tzinfo is None:
        problems.append(f"{cid}: now has no timezone")
    if c["no_answer"] != (c["category"] == "no_answer"):
        problems.append(f"{cid}: no_answer flag does not match category")
    if c["no_answer"] and (c["gold_refs"] or c["answer_keywords"]):
        problems.append(f"{cid}: no_answer case with gold refs or keywords")
    if not c["no_answer"] and not (c["gold_refs"] and c["answer_keywords"]):
        problems.append(f"{cid}: answerable case without gold refs or keywords")
    texts: list[str] = []
    for ref in c["gold_refs"]:
        if ref.startswith("slack:"):
            if ref not in slack:
                problems.append(f"{cid}: {ref} is not a message in the export")
            else:
                texts.append(slack[ref])
        elif ref.startswith("file:"):
            path = docs / ref.removeprefix("file:")
            if not path.is_file():
                problems.append(f"{cid}: {ref} does not exist under docs/")
            else:
                texts.append(path.read_text(encoding="utf-8"))
        elif others is not None and ref.partition(":")[0] in {r.partition(":")[0] for r in others}:
            if ref not in others:
                problems.append(f"{cid}: {ref} is not in the export")
            else:
                texts.append(others[ref])
        else:
            problems.append(f"{cid}: unknown ref scheme {ref}")
    evidence = " ".join(texts).lower()
    for group in c["answer_keywords"]:
        if any(k != k.lower() for k in group):
            problems.append(f"{cid}: keyword group {group} is not lower-case")
        if texts and not any(k in evidence for k in group):
            problems.append(f"{cid}: none of {group} occurs in the gold evidence")
    copied = _copied_run(c["question"], evidence) if texts else None
    if copied:
        problems.append(f"{cid}: question repeats the evidence ({copied!r}); paraphrase it")
    return problems


def check() -> list[str]:
    raw = CASES.read_text(encoding="utf-8")
    problems: list[str] = []
    # The export's workspace id must never enter this repository; read it from the export, not from here.
    users = json.loads((CORPUS / "slack" / "users.json").read_text(encoding="utf-8"))
    if any(team in raw for team in {u.get("team_id") for u in users if u.get("team_id")}):
        problems.append("olake_dev.jsonl contains the Slack team id")
    slack = slack_index(CORPUS / "slack")
    cases = [json.loads(line) for line in raw.splitlines() if line.strip()]
    seen: set[str] = set()
    for c in cases:
        if c.get("id") in seen:
            problems.append(f"{c.get('id')}: duplicate id")
        seen.add(c.get("id", "?"))
        problems += check_case(c, slack, CORPUS / "docs")
    n_none = sum(bool(c.get("no_answer")) for c in cases)
    if len(cases) < MIN_CASES or n_none < MIN_NONE:
        problems.append(f"{len(cases)} cases, {n_none} no_answer: need at least {MIN_CASES} and {MIN_NONE}")
    return problems


def main() -> None:
    if not (CORPUS / "slack" / "channels.json").is_file():
        print(f"OLake corpus not found at {CORPUS}; nothing to check")
        sys.exit(0)
    problems = check()
    for problem in problems:
        print(problem)
    print("ok" if not problems else f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
