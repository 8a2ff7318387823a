"""Check eval/sample_dev.jsonl against the bundled sample workspace.

Every gold ref must exist (a Slack message with that ts in that channel, or a file under docs/), the case
shape must follow DESIGN.md "Evaluation cases", and every answer-keyword group must occur in the text of at
least one gold item, so that a correct, cited answer can contain it, and no question may repeat a run of six
words from its evidence. Exit status 1 on any problem.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from case_checks import check_cases, from_files, from_index, report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "src" / "briefing" / "sample"
CASES = ROOT / "eval" / "sample_dev.jsonl"


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
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    messages = from_index(slack_index(), "a message in the export")
    found = {"slack": messages, "file": from_files(SAMPLE / "docs", file_text)}
    problems = check_cases(cases, found)
    n_none = sum(c.get("no_answer", False) for c in cases)
    if len(cases) < 90 or n_none < 18:
        problems.append(f"{len(cases)} cases, {n_none} no_answer: need at least 90 and 18")
    return problems


def main() -> None:
    report(check())


if __name__ == "__main__":
    main()
