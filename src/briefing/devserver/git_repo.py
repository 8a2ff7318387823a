"""Build the sample team's `ledger-api` git repository (src/briefing/sample/STORY.md) in a given folder.

Every commit's author, date and content are fixed (`git_history`) and git runs with no user or system
configuration, so re-running yields the same commit ids (the evaluation's gold refs can use them). `brief demo`
calls `build`; `python -m briefing.devserver.git_repo DEST` (or `python scripts/make_sample_git.py DEST`)
creates `DEST/ledger-api`, replacing an earlier one. Needs the `git` program and nothing else: no network, no
checkout.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path

from briefing.devserver.git_history import HISTORY, PEOPLE

REPO = "ledger-api"


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    base = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(repo),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LC_ALL": "C",
        "TZ": "UTC",
    }
    result = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=repo,
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def available() -> bool:
    """Whether the `git` program is on PATH (the only thing `build` needs)."""
    return shutil.which("git") is not None


def build(dest: Path) -> Path:
    """Create `dest/ledger-api` from HISTORY and return its path; an existing one is replaced."""
    repo = dest / REPO
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    _git(repo, "init", "--quiet")
    branches, current = {"main"}, "main"
    for commit in HISTORY:
        name, email = PEOPLE[commit.who]
        env = {
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_AUTHOR_DATE": commit.at,
            "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email,
            "GIT_COMMITTER_DATE": commit.at,
        }
        if commit.branch != current:
            # A feature branch starts from main as it is at the branch's first commit.
            fresh = commit.branch not in branches
            _git(repo, "checkout", "--quiet", *(["-b", commit.branch, "main"] if fresh else [commit.branch]))
            branches.add(commit.branch)
            current = commit.branch
        for path, text in commit.files.items():
            target = repo / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            _git(repo, "add", "--", path)
        _git(repo, "commit", "--quiet", "--allow-empty", "-m", commit.message, env=env)
        if commit.tag:
            _git(repo, "tag", "-a", commit.tag[0], "-m", commit.tag[1], env=env)
    _git(repo, "checkout", "--quiet", "main")
    return repo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="folder to create ledger-api in")
    args = parser.parse_args()
    repo = build(args.dest)
    print(f"{repo}: {_git(repo, 'rev-list', '--all', '--count')} commits, tags {_git(repo, 'tag').split()}")


if __name__ == "__main__":
    main()
