"""Check eval/github_mls_dev.jsonl against the real GitHub corpus in ../shared/corpora/github-mls-protocol.

The corpus is not part of this repository, so it is read from the shared folder next to the checkout; when it is
absent the check says so and exits 0. Every gold ref must exist (an issue or pull request, one of its comments,
reviews or review comments, or a release tag), the case shape must follow DESIGN.md "Evaluation cases", every
answer-keyword group must occur in the text, state or people of at least one gold item, no question may repeat a
run of six words from its evidence, and the split (ids ending in an even number are held out) must hold
answerable and unanswerable cases on both sides. Exit status 1 on any problem.
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
CORPUS = CORPORA / "github-mls-protocol"
CASES = ROOT / "eval" / "github_mls_dev.jsonl"
MIN_CASES, MIN_NONE = 30, 5


def _login(user: Any) -> str:
    return str(user.get("login") or "") if isinstance(user, dict) else ""


def github_index(corpus: Path) -> dict[str, str]:
    """Ref -> evidence text for every issue, pull request, comment, review, review comment and tag."""
    data = json.loads((corpus / "devserver" / "mlswg__mls-protocol.json").read_text(encoding="utf-8"))
    repo = data["repo"]["full_name"]
    index: dict[str, str] = {}
    for issue in data["issues"]:
        n = str(issue["number"])
        pull = data["pulls"].get(n) or {}
        state = "merged" if pull.get("merged_at") else f"{issue['state']} unmerged" if pull else issue["state"]
        parts = [n, issue["title"], issue.get("body") or "", _login(issue.get("user")), state]
        parts += [_login(pull.get("merged_by"))] + [_login(a) for a in issue.get("assignees") or []]
        parts += [label["name"] for label in issue.get("labels") or []]
        ref = f"github:{repo}#{n}"
        index[ref] = " ".join(parts)
        for c in data["comments"].get(n, []) + data["review_comments"].get(n, []):
            index[f"{ref}/comment-{c['id']}"] = f"{_login(c.get('user'))} {c.get('body') or ''}"
        for r in data["reviews"].get(n, []):
            index[f"{ref}/comment-{r['id']}"] = f"{_login(r.get('user'))} {r['state']} {r.get('body') or ''}"
    for tag in json.loads((corpus / "export" / "tags.json").read_text(encoding="utf-8")):
        index[f"github:{repo}@release:{tag['tag_name']}"] = tag["tag_name"]
    return index


def check() -> list[str]:
    resolvers = {"github": from_index(github_index(CORPUS), "in the corpus")}
    return check_split_set(CASES, resolvers, min_cases=MIN_CASES, min_none=MIN_NONE)


def main() -> None:
    if not (CORPUS / "devserver").is_dir():
        print(f"GitHub corpus not found at {CORPUS}; nothing to check")
        sys.exit(0)
    report(check())


if __name__ == "__main__":
    main()
