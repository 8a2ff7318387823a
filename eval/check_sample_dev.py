"""Check eval/sample_dev.jsonl against the bundled sample workspace.

Every gold ref must exist (a Slack message with that ts in that channel, or a file under docs/), the case
shape must follow DESIGN.md "Evaluation cases", and every answer-keyword group must occur in the text of at
least one gold item, so that a correct, cited answer can contain it. Exit status 1 on any problem.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "src" / "briefing" / "sample"
CASES = ROOT / "eval" / "sample_dev.jsonl"
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


def _message_text(msg: dict[str, Any]) -> str:
    parts = [msg.get("text", "")]
    for att in msg.get("attachments", []):
        parts += [att.get("title", ""), att.get("text", ""), att.get("fallback", "")]
        parts += [f"{f.get('title', '')} {f.get('value', '')}" for f in att.get("fields", [])]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "text":
                parts.append(node.get("text", ""))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(msg.get("blocks", []))
    return " ".join(parts)


def slack_index() -> dict[str, str]:
    export = SAMPLE / "slack_export"
    index: dict[str, str] = {}
    for channel in json.loads((export / "channels.json").read_text(encoding="utf-8")):
        for day in sorted((export / channel["name"]).glob("*.json")):
            for msg in json.loads(day.read_text(encoding="utf-8")):
                index[f"slack:{channel['id']}:{msg['ts']}"] = _message_text(msg)
    return index


def file_text(path: Path) -> str:
    if path.suffix == ".pdf":
        import pypdf

        return "\n".join(page.extract_text() for page in pypdf.PdfReader(path).pages)
    return path.read_text(encoding="utf-8")


def check() -> list[str]:
    slack = slack_index()
    docs = SAMPLE / "docs"
    problems: list[str] = []
    seen: set[str] = set()
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    for c in cases:
        cid = c.get("id", "?")
        if set(c) != KEYS:
            problems.append(f"{cid}: keys {sorted(set(c) ^ KEYS)} differ from the contract")
            continue
        if cid in seen:
            problems.append(f"{cid}: duplicate id")
        seen.add(cid)
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
                    texts.append(file_text(path))
            else:
                problems.append(f"{cid}: unknown ref scheme {ref}")
        evidence = " ".join(texts).lower()
        for group in c["answer_keywords"]:
            if any(k != k.lower() for k in group):
                problems.append(f"{cid}: keyword group {group} is not lower-case")
            if texts and not any(k in evidence for k in group):
                problems.append(f"{cid}: none of {group} occurs in the gold evidence")
    n_none = sum(c.get("no_answer", False) for c in cases)
    if len(cases) < 90 or n_none < 18:
        problems.append(f"{len(cases)} cases, {n_none} no_answer: need at least 90 and 18")
    return problems


def main() -> None:
    problems = check()
    for problem in problems:
        print(problem)
    print("ok" if not problems else f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
