"""Check eval/olake_github_dev.jsonl against the real OLake corpus in ../shared/corpora/olake.

The same rules as `check_olake_dev.py` (case shape, refs exist, every keyword group occurs in the gold evidence,
no question copies six words of its evidence), with GitHub refs added: `github:<owner>/<repo>#<n>` must be a PR
in `github/pulls.json`, `github:<owner>/<repo>@<sha>` a commit in `github/commits.json`, and
`github:<owner>/<repo>@release:<tag>` a tag in `github/tags.json`. A PR's evidence is its number, title, author,
merge time and body; a commit's its sha, message, author and date; a tag's its name, date and sha. When the
corpus is absent the check says so and exits 0; exit status 1 on any problem.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from case_checks import check_cases, report  # noqa: E402
from check_olake_dev import CORPUS, ROOT, resolvers, slack_index  # noqa: E402

CASES = ROOT / "eval" / "olake_github_dev.jsonl"
REPO = "datazip-inc/olake"
MIN_CASES, MIN_NONE, MIN_GITHUB = 30, 8, 20


def github_index(folder: Path) -> dict[str, str]:
    """Ref -> evidence text for every PR, commit and tag of the export."""
    index: dict[str, str] = {}
    for pull in json.loads((folder / "pulls.json").read_text(encoding="utf-8")):
        fields = (f"#{pull['number']}", pull.get("title"), pull.get("author"), pull.get("merged_at"), pull.get("body"))
        index[f"github:{REPO}#{pull['number']}"] = " ".join(str(f or "") for f in fields)
    for commit in json.loads((folder / "commits.json").read_text(encoding="utf-8")):
        fields = (commit["sha"], commit.get("message"), commit.get("author"), commit.get("date"))
        index[f"github:{REPO}@{commit['sha']}"] = " ".join(str(f or "") for f in fields)
    for tag in json.loads((folder / "tags.json").read_text(encoding="utf-8")):
        fields = (tag["tag_name"], tag.get("created_at"), tag.get("sha"))
        index[f"github:{REPO}@release:{tag['tag_name']}"] = " ".join(str(f or "") for f in fields)
    return index


def check() -> list[str]:
    raw = CASES.read_text(encoding="utf-8")
    problems: list[str] = []
    users = json.loads((CORPUS / "slack" / "users.json").read_text(encoding="utf-8"))
    if any(team in raw for team in {u.get("team_id") for u in users if u.get("team_id")}):
        problems.append("olake_github_dev.jsonl contains the Slack team id")
    slack, github = slack_index(CORPUS / "slack"), github_index(CORPUS / "github")
    cases: list[dict[str, Any]] = [json.loads(line) for line in raw.splitlines() if line.strip()]
    problems += check_cases(cases, resolvers(slack, CORPUS / "docs", github))
    n_none = sum(bool(c.get("no_answer")) for c in cases)
    n_github = sum(any(r.startswith("github:") for r in c.get("gold_refs", [])) for c in cases)
    if len(cases) < MIN_CASES or n_none < MIN_NONE or n_github < MIN_GITHUB:
        problems.append(
            f"{len(cases)} cases, {n_none} no_answer, {n_github} with GitHub evidence: need at least "
            f"{MIN_CASES}, {MIN_NONE} and {MIN_GITHUB}"
        )
    return problems


def main() -> None:
    if not (CORPUS / "github" / "pulls.json").is_file():
        print(f"OLake corpus (with github/) not found at {CORPUS}; nothing to check")
        sys.exit(0)
    report(check())


if __name__ == "__main__":
    main()
