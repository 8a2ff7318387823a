"""Check eval/jira_timob_dev.jsonl against the real JIRA corpus in ../shared/corpora/jira-timob.

The corpus is not part of this repository, so it is read from the shared folder next to the checkout; when it is
absent the check says so and exits 0. Every gold ref must exist (`jira:KEY` an issue, `jira:KEY#comment-ID` one
of its comments), the case shape must follow DESIGN.md "Evaluation cases", every answer-keyword group must occur
in the text, fields or people of at least one gold item, no question may repeat a run of six words from its
evidence, and the split (ids ending in an even number are held out) must hold answerable and unanswerable cases
on both sides. Exit status 1 on any problem.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from case_checks import check_split_set, from_index, report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# The corpora folder: BRIEF_CORPORA when set, else ../shared/corpora next to the checkout.
CORPORA = Path(os.environ.get("BRIEF_CORPORA") or Path(__file__).resolve().parents[2] / "shared" / "corpora")
CORPUS = CORPORA / "jira-timob"
CASES = ROOT / "eval" / "jira_timob_dev.jsonl"
MIN_CASES, MIN_NONE = 30, 5


def _name(user: Any) -> str:
    return str(user.get("displayName") or "") if isinstance(user, dict) else ""


def _header(issue: dict[str, Any]) -> str:
    """An issue's summary, description and the fields a header shows (status, people, versions, sprints, links)."""
    f = issue["fields"]
    parts = [issue["key"], f.get("summary") or "", f.get("description") or ""]
    parts += [(f.get("status") or {}).get("name", ""), (f.get("resolution") or {}).get("name", "")]
    parts += [_name(f.get("assignee")), _name(f.get("reporter")), (f.get("issuetype") or {}).get("name", "")]
    parts += [v.get("name", "") for v in f.get("fixVersions") or []]
    parts += [s.get("name", "") for s in f.get("closedSprints") or []]
    for link in f.get("issuelinks") or []:
        other = link.get("inwardIssue") or link.get("outwardIssue") or {}
        parts += [other.get("key", ""), (other.get("fields") or {}).get("summary", "")]
    parts += [s.get("key", "") + " " + (s.get("fields") or {}).get("summary", "") for s in f.get("subtasks") or []]
    return " ".join(str(p) for p in parts)


def jira_index(corpus: Path) -> dict[str, str]:
    """Ref -> evidence text for every issue and comment of the corpus."""
    index: dict[str, str] = {}
    for issue in json.loads((corpus / "issues.json").read_text(encoding="utf-8")):
        index[f"jira:{issue['key']}"] = _header(issue)
        for c in (issue["fields"].get("comment") or {}).get("comments") or []:
            index[f"jira:{issue['key']}#comment-{c['id']}"] = f"{_name(c.get('author'))} {c.get('body') or ''}"
    return index


def check() -> list[str]:
    resolvers = {"jira": from_index(jira_index(CORPUS), "an issue or comment in the corpus")}
    return check_split_set(CASES, resolvers, min_cases=MIN_CASES, min_none=MIN_NONE)


def main() -> None:
    if not (CORPUS / "issues.json").is_file():
        print(f"JIRA corpus not found at {CORPUS}; nothing to check")
        sys.exit(0)
    report(check())


if __name__ == "__main__":
    main()
